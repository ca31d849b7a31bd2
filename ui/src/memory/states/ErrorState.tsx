import { useTranslation } from "react-i18next";
import { errorMessage } from "../../ipc";

interface Props {
  error: unknown;
  onRetry: () => void;
  /** Defaults to "Could not load memories". */
  title?: string;
}

export function ErrorState({ error, onRetry, title }: Props) {
  const { t } = useTranslation();
  return (
    <section className="state state-error" role="alert" aria-labelledby="state-error">
      <h2 id="state-error">{title ?? t("states.errorTitle")}</h2>
      <p>{errorMessage(error)}</p>
      <button type="button" className="button" onClick={onRetry}>
        {t("states.retry")}
      </button>
    </section>
  );
}
