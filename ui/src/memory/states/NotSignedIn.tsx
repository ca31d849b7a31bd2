import { useTranslation } from "react-i18next";

export function NotSignedIn({ onOpenSettings }: { onOpenSettings: () => void }) {
  const { t } = useTranslation();
  return (
    <section className="state" aria-labelledby="state-not-signed-in">
      <h2 id="state-not-signed-in">{t("states.notSignedInTitle")}</h2>
      <p>{t("states.notSignedInBody")}</p>
      <button type="button" className="button button-primary" onClick={onOpenSettings}>
        {t("states.openSettings")}
      </button>
    </section>
  );
}
