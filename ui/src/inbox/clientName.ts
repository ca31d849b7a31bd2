// The names people know MCP clients by. Agents send their own name at initialize
// ("claude-code", "codex-mcp-client", …); one we do not know is shown as given. Product
// names, so not translated. Mirrors `client_display_name` in crates/desktop/src/inbox.rs.
const KNOWN: Record<string, string> = {
  "claude-code": "Claude Code",
  "claude code": "Claude Code",
  codex: "Codex",
  "codex-cli": "Codex",
  "codex-mcp-client": "Codex",
  opencode: "opencode",
  gemini: "Gemini CLI",
  "gemini-cli": "Gemini CLI",
  "gemini-cli-mcp-client": "Gemini CLI",
};

export function clientName(name: string): string {
  const trimmed = name.trim();
  return KNOWN[trimmed.toLowerCase()] ?? trimmed;
}
