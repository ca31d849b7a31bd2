// What the Session folders section knows without asking the backend: the tools, an example
// folder for each, and which paths the backend will take. Where each tool's sessions are
// read from on this computer is the backend's answer (`session_sources`).
import type { SessionRoot, Source } from "../ipc";

/** An example folder per tool, shown as the path field's placeholder; its keys are every
 *  source (the type says so), in the order the backend lists them. */
export const EXAMPLE_PATHS: Record<Source, string> = {
  "claude-code": "/mnt/old-laptop/.claude",
  codex: "/mnt/old-laptop/.codex",
  opencode: "/mnt/old-laptop/.local/share/opencode",
  gemini: "/mnt/old-laptop/.gemini",
  "qwen-code": "/mnt/old-laptop/.qwen",
  cursor: "/mnt/old-laptop/.config/Cursor",
  "copilot-cli": "/mnt/old-laptop/.copilot",
  amp: "/mnt/old-laptop/.local/share/amp",
  goose: "/mnt/old-laptop/.local/share/goose",
  crush: "/home/me/src",
  zed: "/mnt/old-laptop/.local/share/zed",
  aider: "/home/me/src",
  cline: "/mnt/old-laptop/.config/Code/User/globalStorage/saoudrizwan.claude-dev",
  "roo-code": "/mnt/old-laptop/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline",
  windsurf: "/mnt/old-laptop/.codeium/windsurf",
  antigravity: "/mnt/old-laptop/.gemini/antigravity",
  chatgpt: "/home/me/Downloads/chatgpt-export",
  "claude-ai": "/home/me/Downloads/claude-export",
};

/** Every source, for the add-a-folder form. */
export const SOURCES = Object.keys(EXAMPLE_PATHS) as Source[];

/**
 * The backend takes absolute paths only: `/…`, a Windows drive (`C:\…`, `C:/…`) or a UNC
 * share (`\\server\…`). `~` is not expanded there, so it is refused here too.
 */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

export function sameRoot(a: SessionRoot, b: SessionRoot): boolean {
  return a.source === b.source && a.path === b.path;
}
