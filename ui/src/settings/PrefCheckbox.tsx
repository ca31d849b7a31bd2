// A Settings section holding one per-device preference as a checkbox with its help text
// (Session history, Search). The preference is kept by Rust; the section shows the state
// Rust answers with.
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { useAppStateCommand } from "../app/useAppState";
import { errorMessage, setPrefs, type AppState } from "../ipc";

type BooleanPref = "keepArchivedSessions" | "wordsOnly";

interface Props {
  state: AppState;
  pref: BooleanPref;
  /** i18n keys. */
  title: string;
  label: string;
  help: string;
}

export function PrefCheckbox({ state, pref, title, label, help }: Props) {
  const { t } = useTranslation();
  const headingId = useId();
  const checkboxId = useId();
  const helpId = useId();
  const save = useAppStateCommand(setPrefs);
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h2 id={headingId}>{t(title)}</h2>
      <div className="checkbox">
        <input
          id={checkboxId}
          type="checkbox"
          checked={state.prefs[pref]}
          disabled={save.isPending}
          aria-describedby={helpId}
          onChange={(event) => save.mutate({ [pref]: event.currentTarget.checked })}
        />
        <label htmlFor={checkboxId}>{t(label)}</label>
      </div>
      <p id={helpId} className="hint">
        {t(help)}
      </p>
      {save.error && (
        <p className="form-error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
    </section>
  );
}
