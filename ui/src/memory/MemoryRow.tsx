// One memory. Everything from the server is rendered as React text children, never as
// HTML, so content like `<img src=x onerror=…>` shows as those characters.
import { memo, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Memory } from "../ipc";
import type { ShownMemory } from "./useMemories";
import { confirmedText } from "./confirmedText";
import { TrashIcon } from "./icons";
import { MemoryEditor } from "./MemoryEditor";
import { Provenance } from "./Provenance";
import { RevisionHistory } from "./RevisionHistory";
import { useAppState } from "../app/useAppState";
import { teamProvenance, useTeamMembers } from "../team/useTeam";

// One formatter per language, not one per rendered row: each Intl.DateTimeFormat holds
// native ICU objects the JavaScript GC does not see, and making one per row while
// scrolling grew the web process's malloc heap by ~45 MB per 2 000 rows (BENCHMARKS.md,
// issue 14).
const dateFormats = new Map<string, Intl.DateTimeFormat>();
function dateFormat(language: string): Intl.DateTimeFormat {
  let format = dateFormats.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
    dateFormats.set(language, format);
  }
  return format;
}

interface Props {
  /** A memory; a search hit also says why it was found. */
  memory: ShownMemory;
  /** The org the panel shows: edits are made there. */
  orgId: string;
  onDelete: (memory: Memory) => void;
}

// Memoised: the list renders again on every scroll frame, and a row whose memory did
// not change need not be rendered again.
export const MemoryRow = memo(function MemoryRow({ memory, orgId, onDelete }: Props) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const [editing, setEditing] = useState(false);
  const [showHistory, setShowHistory] = useState(false);
  const edited = memory.updatedAt !== memory.createdAt;
  const confirmed = confirmedText(memory, t);
  const isTeam = memory.scope === "org";
  const me = useAppState().data?.user?.id ?? null;
  const team = useTeamMembers(orgId, isTeam && Boolean(memory.savedBy));
  const savedBy = isTeam ? teamProvenance(memory, me, team.data, t) : null;
  const created = new Date(memory.createdAt);
  const createdText = Number.isNaN(created.getTime())
    ? memory.createdAt
    : dateFormat(i18n.language).format(created);

  if (editing) {
    return (
      <article className="row" aria-label={t("edit.label")}>
        <div className="row-body">
          <MemoryEditor memory={memory} orgId={orgId} onDone={() => setEditing(false)} />
        </div>
      </article>
    );
  }

  return (
    <article className="row" aria-labelledby={titleId}>
      <div className="row-body">
        <p id={titleId} className="row-title">
          {memory.content}
        </p>
        <Provenance contexts={memory.contexts} />
        <div className="row-meta">
          {isTeam && <span className="row-team">{t("row.team")}</span>}
          {memory.tags && memory.tags.length > 0 && (
            <ul className="tags" aria-label={t("row.tags")}>
              {memory.tags.map((tag, index) => (
                <li key={`${index}-${tag}`} className="tag">
                  {tag}
                </li>
              ))}
            </ul>
          )}
          <span className="row-date">
            {t("row.saved")} <time dateTime={memory.createdAt}>{createdText}</time>
          </span>
          {savedBy && <span className="row-saved-by">{savedBy}</span>}
          {confirmed && <span className="row-confirmed">{confirmed}</span>}
          {memory.matched && <span className="row-matched">{t(`row.matched.${memory.matched}`)}</span>}
          {edited && (
            <button
              type="button"
              className="button button-ghost row-edited"
              aria-expanded={showHistory}
              aria-describedby={titleId}
              onClick={() => setShowHistory((open) => !open)}
            >
              {t("row.edited")}
            </button>
          )}
        </div>
        {showHistory && <RevisionHistory memory={memory} orgId={orgId} titleId={titleId} />}
      </div>
      <button
        type="button"
        className="button button-ghost"
        aria-label={t("row.editLabel")}
        aria-describedby={titleId}
        onClick={() => setEditing(true)}
      >
        <span aria-hidden="true">{t("row.edit")}</span>
      </button>
      <button
        type="button"
        className="button button-ghost button-danger"
        aria-label={t("row.deleteLabel")}
        aria-describedby={titleId}
        onClick={() => onDelete(memory)}
      >
        <TrashIcon />
        <span aria-hidden="true">{t("row.delete")}</span>
      </button>
    </article>
  );
});
