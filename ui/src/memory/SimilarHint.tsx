// "You already have: …": the person's memories worded much like a sentence about to be
// saved (the service decides which; see the README's duplicate hints). A hint only:
// nothing is merged unless the person presses "Change it to this instead" on one.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { findSimilar, type SimilarMemory } from "../ipc";
import { shorten } from "../sessions/format";
import { similarKey } from "./queryKeys";

/** How long typing pauses before the service is asked again. */
export const SIMILAR_DEBOUNCE_MS = 400;

interface Props {
  similar: SimilarMemory[];
  /** Offers to change that memory instead; without it the list is shown alone. */
  onEditInstead?: (memory: SimilarMemory) => void;
  busy?: boolean;
}

export function SimilarHint({ similar, onEditInstead, busy }: Props) {
  const { t } = useTranslation();
  if (similar.length === 0) return null;
  return (
    <section className="similar-hint" aria-label={t("similar.title")}>
      <p className="similar-title">{t("similar.title")}</p>
      <ul>
        {similar.map((memory) => (
          <li key={memory.id} data-memory-id={memory.id}>
            <span className="similar-content" title={memory.content}>
              {shorten(memory.content, 200)}
            </span>
            {onEditInstead && (
              <button
                type="button"
                className="button button-small"
                aria-label={t("similar.editInsteadLabel", { content: shorten(memory.content, 80) })}
                disabled={busy}
                onClick={() => onEditInstead(memory)}
              >
                {t("similar.editInstead")}
              </button>
            )}
          </li>
        ))}
      </ul>
      {onEditInstead && <p className="hint">{t("similar.help")}</p>}
    </section>
  );
}

/** The memories alike to `content` in `orgId`, asked once typing pauses; [] while unsure. */
export function useSimilar(orgId: string | null, content: string): SimilarMemory[] {
  const [settled, setSettled] = useState(content.trim());
  useEffect(() => {
    const timer = setTimeout(() => setSettled(content.trim()), SIMILAR_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [content]);
  const query = useQuery({
    queryKey: similarKey(orgId ?? "", settled),
    queryFn: () => findSimilar({ orgId: orgId as string, content: settled }),
    enabled: orgId !== null && settled !== "",
    staleTime: 30_000,
    // A hint that fails to load is simply not shown; saving still works.
    retry: false,
  });
  return query.data?.similar ?? [];
}
