import { useTranslation } from "react-i18next";
import { errorMessage } from "../../ipc";

export function ErrorState({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <section className="state state-error" role="alert" aria-labelledby="state-error">
      <h2 id="state-error">{t("states.errorTitle")}</h2>
      <p>{errorMessage(error)}</p>
      <button type="button" className="button" onClick={onRetry}>
        {t("states.retry")}
      </button>
    </section>
  );
}
