// Settings → Search: by words and meaning (the default), or by words only. Kept in the
// per-device preferences; with the local bank, words only also means no model in memory
// and no vectors made (Rust opens the bank again without them).
import type { AppState } from "../ipc";
import { PrefCheckbox } from "./PrefCheckbox";

export function SearchSection({ state }: { state: AppState }) {
  return (
    <PrefCheckbox
      state={state}
      pref="wordsOnly"
      title="settings.search.title"
      label="settings.search.wordsOnly"
      help="settings.search.wordsOnlyHelp"
    />
  );
}
