// Where a memory (or a proposed one) came from: its snippets, and the session and message
// each cites, as a link to the transcript when that session is on this machine.
// Everything is rendered as React text, never as HTML.
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import type { Citation } from "../ipc";
import { CitationLink } from "./CitationLink";

const SEPARATOR = " · ";

interface Context {
  snippet: string;
  citation: Citation | null;
}

function citationText(citation: Citation | null, t: TFunction) {
  const parts: string[] = [];
  if (citation?.conversationId) parts.push(t("row.session", { id: citation.conversationId }));
  if (citation?.messageId) parts.push(t("row.message", { id: citation.messageId }));
  return parts.join(", ");
}

/** Nothing when there are no contexts. */
export function Provenance({ contexts }: { contexts: Context[] }) {
  const { t } = useTranslation();
  if (contexts.length === 0) return null;
  const citations = contexts
    .map((context) => ({ citation: context.citation, text: citationText(context.citation, t) }))
    .filter((entry) => entry.text !== "");
  return (
    <p className="row-provenance">
      <span className="row-label">{t("row.from")}: </span>
      {contexts.map((context) => context.snippet).join(SEPARATOR)}
      {citations.length > 0 && (
        <span className="row-citations">
          {" "}
          ({t("row.cites")}:{" "}
          {citations.map(({ citation, text }, index) => (
            <span key={index}>
              {index > 0 && SEPARATOR}
              {citation?.conversationId && citation.messageId ? (
                <CitationLink conversationId={citation.conversationId} messageId={citation.messageId} text={text} />
              ) : (
                text
              )}
            </span>
          ))}
          )
        </span>
      )}
    </p>
  );
}
