// One transcript message: role, time, its text rendered as Markdown (React elements, never
// HTML: markdown/MessageMarkdown.tsx), and "Remember…" for the whole message (its text as
// written) or for text selected inside it (the rendered text the person selected).
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import type { TranscriptMessage } from "../ipc";
import { MessageCitations } from "./CitedBy";
import { dateTime } from "./format";
import { MessageMarkdown } from "./markdown/MessageMarkdown";
import { MessageIndexContext } from "./markdown/rowContext";

interface Props {
  message: TranscriptMessage;
  tabbable: boolean;
  highlighted: boolean;
  /** Text selected inside this message, if any. */
  selection: string | null;
  onSelection: (index: number, text: string | null) => void;
  onRemember: (message: TranscriptMessage, selection: string | null) => void;
  onFocusMessage: (index: number) => void;
}

/** The selected text if the selection lies entirely inside `element`. */
function selectionWithin(element: HTMLElement): string | null {
  const selection = window.getSelection();
  if (!selection || selection.isCollapsed || selection.rangeCount === 0) return null;
  const range = selection.getRangeAt(0);
  if (!element.contains(range.startContainer) || !element.contains(range.endContainer)) return null;
  const text = selection.toString().trim();
  return text === "" ? null : text;
}

export function MessageRow(props: Props) {
  const { message, selection } = props;
  const { t, i18n } = useTranslation();
  const textRef = useRef<HTMLDivElement>(null);
  const role = t(`sessions.${message.role}`);
  const time = dateTime(message.timestamp, i18n.language);
  const checkSelection = () => {
    if (textRef.current) props.onSelection(message.index, selectionWithin(textRef.current));
  };

  return (
    <article
      className={`message message-${message.role}${props.highlighted ? " message-highlight" : ""}`}
      tabIndex={props.tabbable ? 0 : -1}
      data-message-index={message.index}
      aria-label={t("transcript.message", { role, n: message.index + 1 })}
      aria-current={props.highlighted ? "true" : undefined}
      onFocus={() => props.onFocusMessage(message.index)}
    >
      <div className="message-head">
        <span className="message-role">{role}</span>
        {time && message.timestamp && <time dateTime={message.timestamp}>{time}</time>}
        <MessageCitations messageId={message.messageId} />
      </div>
      <div ref={textRef} className="message-text" onMouseUp={checkSelection} onKeyUp={checkSelection}>
        <MessageIndexContext.Provider value={message.index}>
          <MessageMarkdown text={message.text} />
        </MessageIndexContext.Provider>
      </div>
      <div className="message-actions">
        {selection && (
          <button
            type="button"
            className="button button-small button-primary"
            onClick={() => props.onRemember(message, selection)}
          >
            {t("transcript.rememberSelection")}
          </button>
        )}
        <button
          type="button"
          className="button button-small"
          aria-label={t("transcript.rememberLabel")}
          onClick={() => props.onRemember(message, null)}
        >
          {t("transcript.remember")}
        </button>
      </div>
    </article>
  );
}
