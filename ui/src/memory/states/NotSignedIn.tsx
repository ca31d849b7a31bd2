import { useTranslation } from "react-i18next";
import type { DesktopError } from "../../bindings";

/** Signed out; `error` says why when connecting failed (a bank key gone missing, say). */
export function NotSignedIn({ onOpenSettings, error }: { onOpenSettings: () => void; error: DesktopError | null }) {
  const { t } = useTranslation();
  return (
    <section className="state" aria-labelledby="state-not-signed-in">
      <h2 id="state-not-signed-in">{t("states.notSignedInTitle")}</h2>
      {error ? (
        <p role="alert" className="state-reason">
          {t("states.connectFailed", { message: error.message })}
        </p>
      ) : (
        <p>{t("states.notSignedInBody")}</p>
      )}
      <button type="button" className="button button-primary" onClick={onOpenSettings}>
        {t("states.openSettings")}
      </button>
    </section>
  );
}
