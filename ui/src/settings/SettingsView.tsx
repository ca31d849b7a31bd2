import type { AppState } from "../ipc";
import { AccountSection } from "./AccountSection";
import { AgentsSection } from "./AgentsSection";
import { DataSection } from "./DataSection";
import { PreferencesSection } from "./PreferencesSection";
import { SessionFoldersSection } from "./SessionFoldersSection";
import { SearchSection } from "./SearchSection";
import { SessionHistorySection } from "./SessionHistorySection";

/** `focusAgents`: opened to set up agents, so the Agents section takes the focus. */
export function SettingsView({ state, focusAgents = false }: { state: AppState; focusAgents?: boolean }) {
  return (
    <div className="settings">
      <AccountSection state={state} />
      <AgentsSection autoFocus={focusAgents} />
      <PreferencesSection state={state} />
      <SearchSection state={state} />
      <SessionHistorySection state={state} />
      <SessionFoldersSection state={state} />
      <DataSection state={state} />
    </div>
  );
}
