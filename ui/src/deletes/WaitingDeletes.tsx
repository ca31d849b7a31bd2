// Deletes Rust could not send yet (the server was unreachable when they were due): their
// rows stay hidden, Rust retries them on its own, and here the person sees them and may
// still cancel each one. Only the active org's are shown, where the rows would be.
import { useQueryClient, type InfiniteData } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { ListResponse } from "../ipc";
import { listRoot } from "../memory/queryKeys";
import { usePendingDeletes } from "./PendingDeletes";

/** The sentence of memory `id` if a cached page of one of `orgId`'s lists still holds it. */
function useCachedContent(orgId: string) {
  const client = useQueryClient();
  return (id: string): string | null => {
    for (const [, data] of client.getQueriesData<InfiniteData<ListResponse>>({ queryKey: listRoot(orgId) })) {
      for (const page of data?.pages ?? []) {
        const found = page.memories.find((memory) => memory.id === id);
        if (found) return found.content;
      }
    }
    return null;
  };
}

export function WaitingDeletes({ orgId }: { orgId: string }) {
  const { t } = useTranslation();
  const { waiting, cancelWaiting } = usePendingDeletes();
  const contentOf = useCachedContent(orgId);
  const here = waiting.filter((entry) => entry.orgId === orgId);
  if (here.length === 0) return null;
  return (
    <section className="waiting-deletes" aria-labelledby="waiting-deletes-title">
      <h2 id="waiting-deletes-title" className="waiting-deletes-title">
        {t("waitingDeletes.title", { count: here.length })}
      </h2>
      <p className="waiting-deletes-help">{t("waitingDeletes.help")}</p>
      <ul>
        {here.map((entry) => {
          const content = contentOf(entry.id);
          const label = content ? `“${content}”` : t("waitingDeletes.unnamed", { id: entry.id });
          return (
            <li key={entry.id} className="waiting-delete">
              <span className="waiting-delete-text">{label}</span>
              <button
                type="button"
                className="button-secondary"
                aria-label={t("waitingDeletes.cancelAlt", { label })}
                title={entry.message}
                onClick={() => void cancelWaiting(entry.id)}
              >
                {t("waitingDeletes.cancel")}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
