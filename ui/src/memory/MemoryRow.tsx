// One memory. Everything from the server is rendered as React text children, never as
// HTML, so content like `<img src=x onerror=…>` shows as those characters.
import type { TFunction } from "i18next";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { Memory, MemoryContext } from "../ipc";
import { CitationLink } from "./CitationLink";
import { TrashIcon } from "./icons";

const SEPARATOR = " · ";

function citationText(context: MemoryContext, t: TFunction) {
  const parts: string[] = [];
  if (context.citation?.conversationId)
    parts.push(t("row.session", { id: context.citation.conversationId }));
  if (context.citation?.messageId) parts.push(t("row.message", { id: context.citation.messageId }));
  return parts.join(", ");
}

interface Props {
  memory: Memory;
  onDelete: (memory: Memory) => void;
}

export function MemoryRow({ memory, onDelete }: Props) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const snippets = memory.contexts.map((context) => context.snippet);
  const citations = memory.contexts
    .map((context) => ({ context, text: citationText(context, t) }))
    .filter((citation) => citation.text !== "");
  const created = new Date(memory.createdAt);
  const createdText = Number.isNaN(created.getTime())
    ? memory.createdAt
    : new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(
        created,
      );

  return (
    <article className="row" aria-labelledby={titleId}>
      <div className="row-body">
        <p id={titleId} className="row-title">
          {memory.content}
        </p>
        {snippets.length > 0 && (
          <p className="row-provenance">
            <span className="row-label">{t("row.from")}: </span>
            {snippets.join(SEPARATOR)}
            {citations.length > 0 && (
              <span className="row-citations">
                {" "}
                ({t("row.cites")}:{" "}
                {citations.map(({ context, text }, index) => (
                  <span key={index}>
                    {index > 0 && SEPARATOR}
                    {context.citation?.conversationId && context.citation.messageId ? (
                      <CitationLink
                        conversationId={context.citation.conversationId}
                        messageId={context.citation.messageId}
                        text={text}
                      />
                    ) : (
                      text
                    )}
                  </span>
                ))}
                )
              </span>
            )}
          </p>
        )}
        <div className="row-meta">
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
        </div>
      </div>
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
}
