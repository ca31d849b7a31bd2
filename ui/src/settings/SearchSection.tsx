// Settings → Search: by words and meaning (the default), or by words only. Kept in the
// per-device preferences; with the local bank, words only also means no model in memory
// and no vectors made (Rust opens the bank again without them).
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { useAppStateCommand } from "../app/useAppState";
import { errorMessage, setPrefs, type AppState } from "../ipc";

export function SearchSection({ state }: { state: AppState }) {
  const { t } = useTranslation();
  const wordsOnlyId = useId();
  const helpId = useId();
  const save = useAppStateCommand(setPrefs);
  return (
    <section className="settings-section" aria-labelledby="settings-search">
      <h2 id="settings-search">{t("settings.search.title")}</h2>
      <div className="checkbox">
        <input
          id={wordsOnlyId}
          type="checkbox"
          checked={state.prefs.wordsOnly}
          disabled={save.isPending}
          aria-describedby={helpId}
          onChange={(event) => save.mutate({ wordsOnly: event.currentTarget.checked })}
        />
        <label htmlFor={wordsOnlyId}>{t("settings.search.wordsOnly")}</label>
      </div>
      <p id={helpId} className="hint">
        {t("settings.search.wordsOnlyHelp")}
      </p>
      {save.error && (
        <p className="form-error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
    </section>
  );
}
