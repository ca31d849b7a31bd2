// The tool calls an agent made between two messages, collapsed to one line
// ("3 tool calls · Read, Bash ×2") that expands to the full list in call order.
// Tool names come from session files: they are React text, and never go through
// i18next interpolation either.
import { useId, useLayoutEffect, useRef } from "react";
import { useTranslation } from "react-i18next";

/** Distinct names shown in the summary before "…". */
export const SUMMARY_NAMES = 5;

/** "Read, Bash ×2, Edit": distinct names in first-call order, cut after `SUMMARY_NAMES`. */
export function summarizeTools(tools: readonly string[], separator: string, more: string): string {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool, (counts.get(tool) ?? 0) + 1);
  const names = [...counts].slice(0, SUMMARY_NAMES).map(([name, n]) => (n > 1 ? `${name} ×${n}` : name));
  if (counts.size > SUMMARY_NAMES) names.push(more);
  return names.join(separator);
}

interface Props {
  tools: readonly string[];
  /** The message they followed (-1: before the first message). */
  afterIndex: number;
  expanded: boolean;
  onToggle: (afterIndex: number) => void;
  /** Called after the size may have changed (shown, expanded, collapsed). */
  onResize: (element: HTMLElement) => void;
}

export function ActivityDisclosure({ tools, afterIndex, expanded, onToggle, onResize }: Props) {
  const { t } = useTranslation();
  const listId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const { length } = tools;
  useLayoutEffect(() => {
    if (ref.current) onResize(ref.current);
  }, [expanded, length, onResize]);

  const summary = summarizeTools(tools, t("transcript.activitySeparator"), t("transcript.activityMore"));
  return (
    <div ref={ref} className="activity" data-activity-after={afterIndex}>
      <button
        type="button"
        className="activity-toggle"
        aria-expanded={expanded}
        aria-controls={expanded ? listId : undefined}
        onClick={() => onToggle(afterIndex)}
      >
        <span className="activity-chevron" aria-hidden="true">
          {expanded ? "▾" : "▸"}
        </span>
        {/* One text: the accessible name reads as shown. */}
        <span className="activity-summary">
          {t("transcript.activityCalls", { count: length })} · {summary}
        </span>
      </button>
      {expanded && (
        <ol id={listId} className="activity-list" aria-label={t("transcript.activityList")}>
          {tools.map((tool, i) => (
            <li key={i}>{tool}</li>
          ))}
        </ol>
      )}
    </div>
  );
}
