// Syntax highlighting for code blocks: lowlight (highlight.js grammars) returns a hast
// tree of <span class="hljs-…"> nodes, which HastSpans renders as React elements, so no
// HTML string is ever made. `common` holds the ~37 languages agents write most (shell,
// diff, TypeScript, Rust, Python, SQL, YAML, TOML as ini…). A block with no language, or
// one lowlight does not know, stays plain: guessing means running every grammar.
import type { Root } from "hast";
import { common, createLowlight } from "lowlight";
import { markSecrets } from "./hastSecrets";

const lowlight = createLowlight(common);

/** `code` as a hast tree: highlighted when `language` is known, with secrets marked. */
export function highlightedTree(code: string, language: string | null): Root {
  const tree: Root =
    language && lowlight.registered(language)
      ? lowlight.highlight(language, code)
      : { type: "root", children: [{ type: "text", value: code }] };
  markSecrets(tree);
  return tree;
}
