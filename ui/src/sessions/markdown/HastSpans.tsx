// Renders a highlighted code tree (highlight.ts) as React elements. Only what the
// highlighter and the secret marker make is rendered: text, <span class> and the secret
// <mark>; anything else would render as its text alone.
import type { RootContent } from "hast";
import type { ReactNode } from "react";
import { SecretMark } from "./SecretMark";

const classOf = (value: unknown) => (Array.isArray(value) ? value.join(" ") : undefined);

export function hastSpans(nodes: readonly RootContent[]): ReactNode[] {
  return nodes.map((node, index) => {
    if (node.type === "text") return node.value;
    if (node.type !== "element") return null;
    if (node.tagName === "mark")
      return (
        <SecretMark key={index} data-secret-kind={String(node.properties.dataSecretKind)}>
          {hastSpans(node.children)}
        </SecretMark>
      );
    if (node.tagName === "span")
      return (
        <span key={index} className={classOf(node.properties.className)}>
          {hastSpans(node.children)}
        </span>
      );
    return hastSpans(node.children);
  });
}
