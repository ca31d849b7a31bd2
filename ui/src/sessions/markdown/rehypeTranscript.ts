// The rehype step between Markdown and React for a transcript message. Markdown's raw
// HTML is kept as the literal text it was (never parsed, never dropped: the person sees
// what the agent wrote), ids are dropped (every message would repeat "fn-1"), headings
// are renumbered under the transcript's own title, secrets are marked, and a message that
// is one paragraph is left as its inline text.
import type { Element, Root, RootContent } from "hast";
import { markSecrets } from "./hastSecrets";

type Node = Root | RootContent;

function eachElement(node: Node, visit: (element: Element) => void) {
  if (node.type === "element") visit(node);
  if (node.type === "root" || node.type === "element") for (const child of node.children) eachElement(child, visit);
}

/** Raw HTML (`<img onerror=…>`, `<script>`) becomes a text node with the same characters. */
function rawAsText(node: Node) {
  if (node.type !== "root" && node.type !== "element") return;
  node.children.forEach((child, index) => {
    if (child.type === "raw") node.children[index] = { type: "text", value: child.value };
    else rawAsText(child);
  });
}

/**
 * Footnote references and back-references link to ids inside the message, which links
 * cannot follow anyway (only http, https and mailto open): the back-references go, and so
 * do the ids and the aria-describedby that point at them, which would repeat across
 * messages.
 */
function dropInMessageAnchors(tree: Root) {
  eachElement(tree, (element) => {
    element.children = element.children.filter(
      (child) => !(child.type === "element" && child.properties.dataFootnoteBackref !== undefined),
    );
    delete element.properties.id;
    delete element.properties.ariaDescribedBy;
  });
}

const HEADING = /^h([1-6])$/;
/** The transcript's title is an h2, so a message's headings start at h3. */
const FIRST_LEVEL = 3;

/**
 * A message's headings keep their order but are renumbered from h3 without gaps (`##` and
 * `####` become h3 and h4), so heading navigation in a screen reader stays a tree under
 * the transcript. The class keeps the level the author wrote, for the look.
 */
function nestHeadings(tree: Root) {
  const headings: { element: Element; level: number }[] = [];
  eachElement(tree, (element) => {
    const match = HEADING.exec(element.tagName);
    if (match) headings.push({ element, level: Number(match[1]) });
  });
  const levels = [...new Set(headings.map((h) => h.level))].sort((a, b) => a - b);
  for (const { element, level } of headings) {
    element.tagName = `h${Math.min(6, FIRST_LEVEL + levels.indexOf(level))}`;
    element.properties.className = [`md-h${level}`];
  }
}

const isWhitespace = (node: RootContent) => node.type === "text" && node.value.trim() === "";

/** One paragraph and nothing else: its inline content, without the paragraph's margins. */
function unwrapLoneParagraph(tree: Root) {
  const content = tree.children.filter((child) => !isWhitespace(child));
  const [only] = content;
  if (content.length === 1 && only.type === "element" && only.tagName === "p") tree.children = only.children;
}

/** Code blocks mark their own secrets after highlighting (CodeBlock.tsx). */
const isCodeBlock = (element: Element) => element.tagName === "pre";

export function rehypeTranscript() {
  return (tree: Root) => {
    rawAsText(tree);
    dropInMessageAnchors(tree);
    nestHeadings(tree);
    markSecrets(tree, isCodeBlock);
    unwrapLoneParagraph(tree);
  };
}
