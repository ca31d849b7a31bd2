import type { AppState } from "../ipc";
import { AccountSection } from "./AccountSection";
import { PreferencesSection } from "./PreferencesSection";
import { SessionFoldersSection } from "./SessionFoldersSection";

export function SettingsView({ state }: { state: AppState }) {
  return (
    <div className="settings">
      <AccountSection state={state} />
      <PreferencesSection state={state} />
      <SessionFoldersSection state={state} />
    </div>
  );
}
