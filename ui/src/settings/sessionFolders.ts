// What the Session folders section knows without asking the backend: the tools, where
// each keeps its sessions by default (and the variable that moves it), and which paths
// the backend will take.
import type { SessionRoot, Source } from "../ipc";

export const SOURCES: Source[] = ["claude-code", "codex", "opencode", "gemini"];

/** Each tool's default folder, as crates/sessions looks for it, and the variable it honours. */
export const DEFAULT_FOLDERS: { source: Source; path: string; env: string }[] = [
  { source: "claude-code", path: "~/.claude", env: "CLAUDE_CONFIG_DIR" },
  { source: "codex", path: "~/.codex", env: "CODEX_HOME" },
  { source: "opencode", path: "~/.local/share/opencode", env: "XDG_DATA_HOME" },
  { source: "gemini", path: "~/.gemini", env: "GEMINI_CLI_HOME" },
];

/** An example folder per tool, shown as the path field's placeholder. */
export const EXAMPLE_PATHS: Record<Source, string> = {
  "claude-code": "/mnt/old-laptop/.claude",
  codex: "/mnt/old-laptop/.codex",
  opencode: "/mnt/old-laptop/.local/share/opencode",
  gemini: "/mnt/old-laptop/.gemini",
};

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
