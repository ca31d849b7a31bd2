// Marks text that looks like a secret inside a hast tree (rendered Markdown, or a
// highlighted code block), with the same detector as the Remember dialog. The detector
// runs on the tree's text as one string, so a key split over several nodes (half of it
// in bold, a token cut by the highlighter) is still found; each node's share of a match
// is wrapped in its own <mark class="secret" data-secret-kind="…">.
import type { Element, ElementContent, Root, Text } from "hast";
import { findSecrets, segments, type SecretMatch } from "../secrets";

type Parent = Root | Element;

interface Piece {
  node: Text;
  parent: Parent;
  /** Offset of the node's text in the joined string. */
  start: number;
}

/** Text nodes in document order and their joined text; `skip` subtrees count as a line break. */
function collect(tree: Parent, skip: (element: Element) => boolean) {
  const pieces: Piece[] = [];
  let text = "";
  const walk = (parent: Parent) => {
    for (const child of parent.children) {
      if (child.type === "text") {
        pieces.push({ node: child, parent, start: text.length });
        text += child.value;
      } else if (child.type === "element") {
        if (skip(child)) text += "\n";
        else walk(child);
      }
    }
  };
  walk(tree);
  return { pieces, text };
}

/** The parts of `matches` that fall inside [start, start + length), relative to start. */
function within(matches: SecretMatch[], start: number, length: number): SecretMatch[] {
  const end = start + length;
  return matches
    .filter((match) => match.start < end && match.end > start)
    .map((match) => ({ kind: match.kind, start: Math.max(match.start, start) - start, end: Math.min(match.end, end) - start }));
}

function secretMark(value: string, kind: string): Element {
  return {
    type: "element",
    tagName: "mark",
    properties: { className: ["secret"], dataSecretKind: kind },
    children: [{ type: "text", value }],
  };
}

/** Wraps every secret-looking span of `tree`'s text in a mark, in place. */
export function markSecrets(tree: Parent, skip: (element: Element) => boolean = () => false): void {
  const { pieces, text } = collect(tree, skip);
  const matches = findSecrets(text);
  if (matches.length === 0) return;
  for (const { node, parent, start } of pieces) {
    const local = within(matches, start, node.value.length);
    if (local.length === 0) continue;
    const replacement: ElementContent[] = segments(node.value, local).map((segment) =>
      segment.secret ? secretMark(segment.text, segment.secret) : { type: "text", value: segment.text },
    );
    const children = parent.children as ElementContent[];
    children.splice(children.indexOf(node), 1, ...replacement);
  }
}
