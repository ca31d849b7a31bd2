// Settings → Session history: whether a session stays in the history (archived) after
// its tool deletes it. On by default; kept in the per-device preferences, and Rust tells
// the session index.
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { useAppStateCommand } from "../app/useAppState";
import { errorMessage, setPrefs, type AppState } from "../ipc";

export function SessionHistorySection({ state }: { state: AppState }) {
  const { t } = useTranslation();
  const keepId = useId();
  const helpId = useId();
  const save = useAppStateCommand(setPrefs);
  return (
    <section className="settings-section" aria-labelledby="settings-history">
      <h2 id="settings-history">{t("settings.history.title")}</h2>
      <div className="checkbox">
        <input
          id={keepId}
          type="checkbox"
          checked={state.prefs.keepArchivedSessions}
          disabled={save.isPending}
          aria-describedby={helpId}
          onChange={(event) => save.mutate({ keepArchivedSessions: event.currentTarget.checked })}
        />
        <label htmlFor={keepId}>{t("settings.history.keep")}</label>
      </div>
      <p id={helpId} className="hint">
        {t("settings.history.keepHelp")}
      </p>
      {save.error && (
        <p className="form-error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
    </section>
  );
}
