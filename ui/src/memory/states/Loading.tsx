import { useTranslation } from "react-i18next";

const SKELETON_ROWS = 3;

/** Skeleton rows shaped like real rows; the text is for screen readers. */
export function Loading({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <div className="state-loading" role="status" aria-busy="true">
      <span className="visually-hidden">{label ?? t("states.loading")}</span>
      {Array.from({ length: SKELETON_ROWS }, (_, index) => (
        <div key={index} className="skeleton-row" aria-hidden="true">
          <div className="skeleton skeleton-title" />
          <div className="skeleton skeleton-line" />
        </div>
      ))}
    </div>
  );
}
