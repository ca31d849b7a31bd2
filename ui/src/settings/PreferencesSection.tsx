// Per-device preferences kept by the backend (tauri-plugin-store): language and the
// `memory` feature flag, which only hides the panel in this UI.
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { useAppStateCommand } from "../app/useAppState";
import { LANGUAGES } from "../i18n";
import { errorMessage, setPrefs, type AppState, type Language } from "../ipc";

const SYSTEM = "system";

export function PreferencesSection({ state }: { state: AppState }) {
  const { t } = useTranslation();
  const languageId = useId();
  const flagId = useId();
  const save = useAppStateCommand(setPrefs);

  return (
    <>
      <section className="settings-section" aria-labelledby="settings-language">
        <h2 id="settings-language">{t("settings.language")}</h2>
        <label htmlFor={languageId} className="visually-hidden">
          {t("settings.language")}
        </label>
        <select
          id={languageId}
          className="input"
          value={state.prefs.language ?? SYSTEM}
          disabled={save.isPending}
          onChange={(event) => {
            const value = event.currentTarget.value;
            save.mutate({ language: value === SYSTEM ? null : (value as Language) });
          }}
        >
          <option value={SYSTEM}>{t("settings.languageSystem")}</option>
          {LANGUAGES.map((language) => (
            // Each language is named in itself, so it can be found from either UI.
            <option key={language.code} value={language.code} lang={language.code}>
              {language.name}
            </option>
          ))}
        </select>
      </section>

      <section className="settings-section" aria-labelledby="settings-features">
        <h2 id="settings-features">{t("settings.features")}</h2>
        <div className="checkbox">
          <input
            id={flagId}
            type="checkbox"
            checked={state.prefs.memoryEnabled}
            disabled={save.isPending}
            onChange={(event) => save.mutate({ memoryEnabled: event.currentTarget.checked })}
          />
          <label htmlFor={flagId}>{t("settings.memoryFlag")}</label>
        </div>
      </section>

      {save.error && (
        <p className="form-error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
    </>
  );
}
