// Settings → Session history: whether a session stays in the history (archived) after
// its tool deletes it. On by default; kept in the per-device preferences, and Rust tells
// the session index.
import type { AppState } from "../ipc";
import { PrefCheckbox } from "./PrefCheckbox";

export function SessionHistorySection({ state }: { state: AppState }) {
  return (
    <PrefCheckbox
      state={state}
      pref="keepArchivedSessions"
      title="settings.history.title"
      label="settings.history.keep"
      help="settings.history.keepHelp"
    />
  );
}
