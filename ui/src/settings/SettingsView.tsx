import type { AppState } from "../ipc";
import { AccountSection } from "./AccountSection";
import { AgentsSection } from "./AgentsSection";
import { ChatImportSection } from "./ChatImportSection";
import { DataSection } from "./DataSection";
import { PreferencesSection } from "./PreferencesSection";
import { SessionFoldersSection } from "./SessionFoldersSection";
import { SearchSection } from "./SearchSection";
import { SessionHistorySection } from "./SessionHistorySection";
import { SessionSourcesSection } from "./SessionSourcesSection";
import { TeamSection } from "./TeamSection";

/** `focusAgents`: opened to set up agents, so the Agents section takes the focus. */
export function SettingsView({ state, focusAgents = false }: { state: AppState; focusAgents?: boolean }) {
  return (
    <div className="settings">
      <AccountSection state={state} />
      <TeamSection state={state} />
      <AgentsSection autoFocus={focusAgents} />
      <PreferencesSection state={state} />
      <SearchSection state={state} />
      <SessionHistorySection state={state} />
      <SessionSourcesSection />
      <SessionFoldersSection state={state} />
      <DataSection state={state} />
      <ChatImportSection />
    </div>
  );
}
