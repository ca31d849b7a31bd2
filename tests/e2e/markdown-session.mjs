// A long, Markdown-heavy Claude Code session for the transcript benchmark (bench.mjs
// --transcript): short questions from the person, and agent answers the way agents
// write them (headings, lists, tables, inline code, links, fenced code in several
// languages, some blocks long enough to fold). Deterministic: message i is always the same.
import { claudeAssistant, claudeUser } from "./harness.mjs";

const CODE = {
  ts: (n) =>
    Array.from({ length: n }, (_, i) =>
      i % 4 === 0 ? `// step ${i}: keep the cursor stable` : `export const value${i}: number = compute(${i}, "key-${i}") ?? ${i * 3};`,
    ).join("\n"),
  bash: (n) => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? `# check ${i}` : `cargo test -p crate-${i} -- --nocapture 2>&1 | tail -n ${i + 5}`)).join("\n"),
  rust: (n) =>
    Array.from({ length: n }, (_, i) => (i % 5 === 0 ? `/// Doc line ${i}.` : `    let field_${i}: Vec<u64> = items.iter().map(|x| x * ${i}).collect();`)).join("\n"),
  diff: (n) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? `-    old_call(${i});` : `+    new_call(${i}, &options);`)).join("\n"),
};
const LANGUAGES = Object.keys(CODE);

/** The agent's answer number `i`: about 1–3 kB of Markdown. */
export function markdownAnswer(i) {
  const language = LANGUAGES[i % LANGUAGES.length];
  // Every fifth answer carries a long block (folded at 20 lines), the others short ones.
  const lines = i % 5 === 0 ? 45 : 6 + (i % 9);
  const parts = [
    `## Step ${i}: ${i % 2 === 0 ? "the importer" : "the index"}`,
    `I looked at \`src/module_${i}.ts\` and **the cursor** is reset when *the list* changes. See [the design notes](https://example.com/notes/${i}) and ~~the old plan~~.`,
    `- Keep \`limit\` at ${i % 50} rows\n- Retry after **${i % 7} s**\n  - nested: check \`nextCursor\`\n- Done: [x] parse, [ ] index`,
    "```" + language + "\n" + CODE[language](lines) + "\n```",
  ];
  if (i % 3 === 0) parts.push(`| file | lines | status |\n|---|---:|---|\n| a_${i}.ts | ${i} | ok |\n| b_${i}.rs | ${i * 2} | **changed** |\n| c_${i}.md | ${i % 13} | \`todo\` |`);
  if (i % 4 === 0) parts.push(`> Note: run \`make check\` before pushing (message ${i}).\n\n1. build\n2. test\n3. ship`);
  return parts.join("\n\n");
}

/** Session records for `count` messages, person and agent taking turns, oldest first. */
export function markdownSession(sessionId, cwd, count) {
  const id = (i) => `a0000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  return Array.from({ length: count }, (_, i) => {
    const minutesAgo = count - i;
    return i % 2 === 0
      ? claudeUser(sessionId, cwd, id(i), `Question ${i}: what does \`step ${i}\` change, and why?`, minutesAgo)
      : claudeAssistant(sessionId, cwd, id(i), markdownAnswer(i), minutesAgo);
  });
}
