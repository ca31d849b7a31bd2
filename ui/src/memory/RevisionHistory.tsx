// The earlier versions of an edited memory, newest first, each restorable in one click
// (the restore is an edit like any other: the version it replaces joins the history).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorMessage, type Memory } from "../ipc";
import { useMemoryEdits } from "./editing";

interface Props {
  memory: Memory;
  orgId: string;
  titleId: string;
}

export function RevisionHistory({ memory, orgId, titleId }: Props) {
  const { t, i18n } = useTranslation();
  const { history, restore } = useMemoryEdits(orgId);
  const revisions = useQuery({
    queryKey: ["memory-revisions", orgId, memory.id, memory.updatedAt],
    queryFn: () => history(memory.id),
  });
  const [error, setError] = useState<string | null>(null);
  const when = (iso: string) => {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(i18n.language, { dateStyle: "medium", timeStyle: "short" });
  };

  if (revisions.isPending) return <p className="revisions-status">{t("history.loading")}</p>;
  if (revisions.isError) return <p role="alert">{t("history.failed", { message: errorMessage(revisions.error) })}</p>;
  return (
    <section className="revisions" aria-labelledby={titleId} aria-label={t("history.title")}>
      <h3 className="revisions-title">{t("history.title")}</h3>
      {revisions.data.length === 0 && <p className="revisions-status">{t("history.empty")}</p>}
      <ol className="revisions-list">
        {revisions.data.map((revision) => (
          <li key={revision.id} className="revision">
            <p className="revision-text">{revision.content}</p>
            <p className="revision-meta">
              {t("history.replaced", { when: when(revision.replacedAt) })}
              {revision.tags && revision.tags.length > 0 && ` · ${revision.tags.join(", ")}`}
            </p>
            <button
              type="button"
              className="button button-ghost"
              aria-label={t("history.restoreLabel", { content: revision.content })}
              onClick={() => {
                setError(null);
                restore(memory.id, revision.id).catch((err: unknown) =>
                  setError(t("history.restoreFailed", { message: errorMessage(err) })),
                );
              }}
            >
              {t("history.restore")}
            </button>
          </li>
        ))}
      </ol>
      {error && <p role="alert">{error}</p>}
    </section>
  );
}
