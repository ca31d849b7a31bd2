// A fenced code block: highlighted, with its language named above it. A long one is
// folded to its first lines with a "Show all N lines" button (a real button: keyboard and
// screen readers reach it), so one pasted log does not fill the transcript.
import type { Element, ElementContent } from "hast";
import { useId, useLayoutEffect, useMemo, useRef } from "react";
import { useTranslation } from "react-i18next";
import { hastSpans } from "./HastSpans";
import { highlightedTree } from "./highlight";
import { useBlockFold, useRowResized } from "./rowContext";

/** Blocks longer than this are folded… */
export const FOLD_OVER_LINES = 20;
/** …to this many lines. */
export const FOLDED_LINES = 10;

const textOf = (nodes: ElementContent[]): string =>
  nodes.map((node) => (node.type === "text" ? node.value : node.type === "element" ? textOf(node.children) : "")).join("");

/** The code and its language from the `<pre><code class="language-x">` Markdown made. */
function codeOf(pre: Element | undefined): { code: string; language: string | null } {
  const code = pre?.children.find((child): child is Element => child.type === "element" && child.tagName === "code");
  const classes = code?.properties.className;
  const language = Array.isArray(classes)
    ? (classes.map(String).find((name) => name.startsWith("language-"))?.slice("language-".length) ?? null)
    : null;
  // Markdown ends a block's text with a newline of its own.
  return { code: textOf(code?.children ?? []).replace(/\n$/, ""), language };
}

export function CodeBlock({ node }: { node?: Element }) {
  const { t } = useTranslation();
  const { code, language } = useMemo(() => codeOf(node), [node]);
  const lines = useMemo(() => code.split("\n"), [code]);
  const foldable = lines.length > FOLD_OVER_LINES;
  // Where the block starts in the message: its id there, stable across re-renders.
  const [expanded, toggle] = useBlockFold(String(node?.position?.start.offset ?? 0));
  const shown = foldable && !expanded ? lines.slice(0, FOLDED_LINES).join("\n") : code;
  const tree = useMemo(() => highlightedTree(shown, language), [shown, language]);
  const codeId = useId();

  const ref = useRef<HTMLDivElement>(null);
  const onResize = useRowResized();
  const mounted = useRef(false);
  useLayoutEffect(() => {
    // On mount the list measures the row itself; afterwards only folding changes it.
    if (mounted.current && ref.current) onResize(ref.current);
    mounted.current = true;
  }, [expanded, onResize]);

  return (
    <div ref={ref} className="md-code">
      {language && <span className="md-code-language">{language}</span>}
      <pre id={codeId}>
        <code className={language ? `hljs language-${language}` : "hljs"}>{hastSpans(tree.children)}</code>
      </pre>
      {foldable && (
        <button
          type="button"
          className="button button-small md-code-fold"
          aria-expanded={expanded}
          aria-controls={codeId}
          onClick={toggle}
        >
          {expanded ? t("markdown.showFirstLines", { count: FOLDED_LINES }) : t("markdown.showAllLines", { count: lines.length })}
        </button>
      )}
    </div>
  );
}
