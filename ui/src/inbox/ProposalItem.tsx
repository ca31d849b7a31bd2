// One pending proposal: what the agent asked for, where it came from, who proposed it,
// and Accept… / Reject. Accept… opens the check in place: for a save the sentence and
// tags are editable, with the same live secret highlight as "Remember…" (which blocks
// saving); for a delete, a last question. Everything from the agent is React text.
import { useEffect, useId, useRef, useState, type KeyboardEvent, type Ref } from "react";
import { useTranslation } from "react-i18next";
import type { MemoryVersion, Proposal, ProposalEdits } from "../ipc";
import { Provenance } from "../memory/Provenance";
import { SimilarHint } from "../memory/SimilarHint";
import { SecretWarning } from "../sessions/SecretWarning";
import { findSecrets } from "../sessions/secrets";
import { clientName } from "./clientName";

export const CONTENT_MAX_CHARS = 8000;

interface Props {
  proposal: Proposal;
  /** The org's name when it is not the active one. */
  otherOrg: string | null;
  /** An org Inbox proposal: the member who (or whose agent) proposed it, in words. */
  proposer?: string | null;
  /** The one proposal in the tab order (roving tabindex). */
  active: boolean;
  /** The check (Accept…) is open. */
  open: boolean;
  busy: boolean;
  error: string | null;
  itemRef: Ref<HTMLElement>;
  onFocus: () => void;
  onOpen: () => void;
  onCancel: () => void;
  onAccept: (edits: ProposalEdits | undefined) => void;
  onReject: () => void;
}

export function ProposalItem(props: Props) {
  const { proposal } = props;
  const { t, i18n } = useTranslation();
  const ids = { title: useId(), meta: useId() };
  const created = new Date(proposal.createdAt);
  const createdText = Number.isNaN(created.getTime())
    ? proposal.createdAt
    : new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(created);
  const client = proposal.proposedBy ? clientName(proposal.proposedBy) : null;
  const who = props.proposer
    ? client
      ? t("inbox.teamProposedByAgent", { who: props.proposer, client })
      : t("inbox.teamProposedBy", { who: props.proposer })
    : client
      ? t("inbox.proposedBy", { client })
      : t("inbox.proposedByUnknown");
  const isDelete = proposal.action === "delete";

  return (
    <article
      ref={props.itemRef}
      className={`proposal${isDelete ? " proposal-delete" : ""}`}
      tabIndex={props.active ? 0 : -1}
      data-proposal-id={proposal.id}
      aria-labelledby={ids.title}
      aria-describedby={ids.meta}
      onFocus={(event) => {
        if (event.target === event.currentTarget) props.onFocus();
      }}
    >
      <p className="proposal-kind">
        {isDelete ? t("inbox.delete") : proposal.action === "edit" ? t("inbox.edit") : t("inbox.save")}
      </p>
      <p id={ids.title} className="row-title">
        {proposal.content}
      </p>
      <Provenance contexts={proposal.contexts} />
      {proposal.memoryNow && proposal.proposedAgainst && (
        <ChangedSince against={proposal.proposedAgainst} now={proposal.memoryNow} isDelete={isDelete} />
      )}
      <div className="row-meta">
        {proposal.tags && proposal.tags.length > 0 && (
          <ul className="tags" aria-label={t("row.tags")}>
            {proposal.tags.map((tag, index) => (
              <li key={`${index}-${tag}`} className="tag">
                {tag}
              </li>
            ))}
          </ul>
        )}
        <span id={ids.meta}>
          {who} · <time dateTime={proposal.createdAt}>{createdText}</time>
          {props.otherOrg && ` · ${t("inbox.inOrg", { org: props.otherOrg })}`}
        </span>
      </div>
      {!props.open && <SimilarHint similar={proposal.similar} />}
      {props.open ? (
        isDelete ? (
          <DeleteCheck {...props} />
        ) : (
          <SaveCheck {...props} />
        )
      ) : (
        <div className="proposal-actions">
          <button
            type="button"
            className="button button-primary"
            aria-label={t("inbox.acceptLabel")}
            aria-describedby={ids.title}
            aria-keyshortcuts="Enter"
            disabled={props.busy}
            onClick={props.onOpen}
          >
            {t("inbox.accept")}
          </button>
          <button
            type="button"
            className="button"
            aria-label={t("inbox.rejectLabel")}
            aria-describedby={ids.title}
            aria-keyshortcuts="R Delete"
            disabled={props.busy}
            onClick={props.onReject}
          >
            {props.busy ? t("inbox.working") : t("inbox.reject")}
          </button>
        </div>
      )}
      {props.error && (
        <p className="form-error" role="alert">
          {t("inbox.failed", { message: props.error })}
        </p>
      )}
    </article>
  );
}

/** Comma-separated (ASCII or full-width commas), trimmed, no empties. */
export function parseTags(text: string): string[] {
  return text
    .split(/[,，]/)
    .map((tag) => tag.trim())
    .filter(Boolean);
}

function SaveCheck({ proposal, busy, onAccept, onCancel }: Props) {
  const { t } = useTranslation();
  const ids = { content: useId(), help: useId(), tags: useId(), tagsHelp: useId(), warn: useId() };
  const [content, setContent] = useState(proposal.content);
  const contentRef = useRef<HTMLTextAreaElement>(null);
  // Focus the sentence with the caret at its end, ready to edit.
  useEffect(() => {
    const field = contentRef.current;
    if (!field) return;
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
  }, []);
  const [tags, setTags] = useState((proposal.tags ?? []).join(", "));
  const contentSecrets = findSecrets(content);
  const tagSecrets = findSecrets(tags);
  const secret = contentSecrets.length + tagSecrets.length > 0;
  const empty = content.trim() === "";
  const canSave = !secret && !empty && !busy;

  const accept = (editInstead?: string) => {
    if (!canSave) return;
    const edits: ProposalEdits = {};
    if (content.trim() !== proposal.content) edits.content = content.trim();
    const tagList = parseTags(tags);
    if (tagList.join("\u0000") !== (proposal.tags ?? []).join("\u0000")) edits.tags = tagList;
    // A save the person turns into a new wording of a memory they already have.
    if (editInstead) edits.editInstead = editInstead;
    // An edit of a memory that changed since: applied over the version shown above.
    if (proposal.memoryNow) edits.memoryNow = proposal.memoryNow;
    onAccept(Object.keys(edits).length > 0 ? edits : undefined);
  };
  const keys = (event: KeyboardEvent) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      accept();
    } else if (event.key === "Escape") {
      event.preventDefault();
      onCancel();
    }
  };

  return (
    <div className="proposal-check form" onKeyDown={keys}>
      <label htmlFor={ids.content}>{t("inbox.content")}</label>
      <span id={ids.help} className="hint">
        {t("inbox.editHelp")} {t("inbox.editKeys")}
      </span>
      <textarea
        id={ids.content}
        className="input"
        rows={3}
        maxLength={CONTENT_MAX_CHARS}
        ref={contentRef}
        value={content}
        aria-invalid={contentSecrets.length > 0 || undefined}
        aria-describedby={`${ids.help}${secret ? ` ${ids.warn}` : ""}`}
        onChange={(event) => setContent(event.currentTarget.value)}
      />
      <label htmlFor={ids.tags}>{t("inbox.tags")}</label>
      <span id={ids.tagsHelp} className="hint">
        {t("inbox.tagsHelp")}
      </span>
      <input
        id={ids.tags}
        className="input"
        value={tags}
        autoComplete="off"
        aria-invalid={tagSecrets.length > 0 || undefined}
        aria-describedby={`${ids.tagsHelp}${secret ? ` ${ids.warn}` : ""}`}
        onChange={(event) => setTags(event.currentTarget.value)}
      />
      <SecretWarning
        id={ids.warn}
        fields={[
          { label: t("inbox.content"), text: content, matches: contentSecrets },
          { label: t("inbox.tags"), text: tags, matches: tagSecrets },
        ]}
      />
      <SimilarHint
        similar={proposal.similar}
        onEditInstead={proposal.action === "save" ? (memory) => accept(memory.id) : undefined}
        busy={!canSave}
      />
      {empty && <p className="hint">{t("inbox.emptyContent")}</p>}
      <div className="form-actions">
        <button type="button" className="button button-primary" disabled={!canSave} onClick={() => accept()}>
          {busy ? t("inbox.working") : t("inbox.saveMemory")}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          {t("inbox.cancel")}
        </button>
      </div>
    </div>
  );
}

function DeleteCheck({ proposal, busy, onAccept, onCancel }: Props) {
  const { t } = useTranslation();
  const questionId = useId();
  return (
    <div
      className="proposal-check"
      role="group"
      aria-labelledby={questionId}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          onCancel();
        }
      }}
    >
      <p id={questionId}>{t("inbox.deleteQuestion")}</p>
      <div className="form-actions">
        {/* The safe choice gets the focus, as in the panel's delete dialog. */}
        <button type="button" className="button" autoFocus onClick={onCancel}>
          {t("inbox.cancel")}
        </button>
        <button
          type="button"
          className="button button-danger-solid"
          disabled={busy}
          // A memory that changed since: deleted as it is now, shown above.
          onClick={() => onAccept(proposal.memoryNow ? { memoryNow: proposal.memoryNow } : undefined)}
        >
          {busy ? t("inbox.working") : t("inbox.deleteMemory")}
        </button>
      </div>
    </div>
  );
}

/** The memory changed after the agent proposed this: both versions, so that accepting
 * never overwrites or deletes a change the person has not seen. */
function ChangedSince({ against, now, isDelete }: { against: MemoryVersion; now: MemoryVersion; isDelete: boolean }) {
  const { t } = useTranslation();
  const version = (label: string, shown: MemoryVersion) => (
    <div className="changed-version">
      <dt>{label}</dt>
      <dd>
        {shown.content}
        {shown.tags && shown.tags.length > 0 && <span className="hint"> · {shown.tags.join(", ")}</span>}
      </dd>
    </div>
  );
  return (
    <section className="proposal-changed" role="note" aria-label={t("inbox.changedTitle")}>
      <p className="proposal-changed-title">{t("inbox.changedTitle")}</p>
      <dl>
        {version(t("inbox.changedThen"), against)}
        {version(t("inbox.changedNow"), now)}
      </dl>
      <p className="hint">{isDelete ? t("inbox.changedDelete") : t("inbox.changedApply")}</p>
    </section>
  );
}
