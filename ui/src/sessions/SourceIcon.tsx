// One distinct inline glyph per agent tool, labelled for assistive technology.
import { useTranslation } from "react-i18next";
import type { Source } from "../ipc";

const base = {
  width: 16,
  height: 16,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round" as const,
  strokeLinejoin: "round" as const,
  focusable: false,
};

const SHAPES: Record<Source, React.ReactNode> = {
  // A sunburst for Claude Code.
  "claude-code": <path d="M12 3v18M3 12h18M5.6 5.6l12.8 12.8M18.4 5.6 5.6 18.4" />,
  // A terminal prompt for Codex.
  codex: (
    <>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="m7 9 3 3-3 3M13 15h4" />
    </>
  ),
  // Code brackets for opencode.
  opencode: <path d="m8 6-6 6 6 6M16 6l6 6-6 6M14 4l-4 16" />,
  // A four-pointed star for Gemini.
  gemini: <path d="M12 2c0 5.5 4.5 10 10 10-5.5 0-10 4.5-10 10 0-5.5-4.5-10-10-10 5.5 0 10-4.5 10-10z" />,
  // A hexagon with a tail, a "Q", for Qwen Code.
  "qwen-code": (
    <>
      <path d="M12 3 19.8 7.5v9L12 21l-7.8-4.5v-9z" />
      <path d="m14 14 4 4" />
    </>
  ),
  // A chat bubble with a pen stroke for Aider, which pairs on code in the terminal.
  aider: (
    <>
      <path d="M4 5h16v11H9l-5 4z" />
      <path d="m9 12 6-6" />
    </>
  ),
  // A robot head for Cline.
  cline: (
    <>
      <rect x="5" y="8" width="14" height="11" rx="3" />
      <path d="M12 4v4M9.5 13h.01M14.5 13h.01" />
    </>
  ),
  // Two speech bubbles for imported ChatGPT chats.
  chatgpt: (
    <>
      <path d="M3 4h12v8H8l-4 3z" />
      <path d="M9 15h7l4 3v-9h-3" />
    </>
  ),
  // A spark in a bubble for imported Claude.ai chats.
  "claude-ai": (
    <>
      <path d="M4 4h16v12H10l-5 4v-4H4z" />
      <path d="M12 7v6M9 10h6" />
    </>
  ),
  // A pointer arrow for Cursor.
  cursor: <path d="M5 3l14 7-6 2-2 6z" />,
  // Goggles for GitHub Copilot CLI.
  "copilot-cli": (
    <>
      <circle cx="8" cy="12" r="4" />
      <circle cx="16" cy="12" r="4" />
      <path d="M12 12h0M3 18h18" />
    </>
  ),
  // A lightning bolt, current, for Amp.
  amp: <path d="M13 2 4 14h7l-1 8 9-12h-7z" />,
  // A bird's wing for goose.
  goose: <path d="M4 16c4 0 7-2 9-6s5-6 8-6c0 6-4 12-11 12l-6 4z" />,
  // A heart-shaped sweet for Crush, Charm's agent.
  crush: <path d="M12 20s-7-4.5-7-10a4 4 0 0 1 7-2.6A4 4 0 0 1 19 10c0 5.5-7 10-7 10z" />,
  // A Z for Zed.
  zed: <path d="M5 5h14L5 19h14" />,
  // A sail for Windsurf.
  windsurf: <path d="M12 3v16M12 3c5 4 6 9 5 13h-5M4 20h16" />,
  // An arrow rising against gravity for Antigravity.
  antigravity: <path d="M12 20V4M6 10l6-6 6 6M5 20h14" />,
  // A kangaroo's hop, an arc and a landing, for Roo Code.
  "roo-code": <path d="M3 19c3-9 9-13 18-13M17 3l4 3-4 3M3 19h6" />,
};

/** `decorative`: beside the tool's name already, so hidden from assistive technology. */
export function SourceIcon({ source, decorative = false }: { source: Source; decorative?: boolean }) {
  const { t } = useTranslation();
  const label = t(`sources.${source}`);
  if (decorative)
    return (
      <svg {...base} aria-hidden="true" className={`source-icon source-${source}`}>
        {SHAPES[source] ?? <circle cx="12" cy="12" r="8" />}
      </svg>
    );
  return (
    <svg {...base} role="img" aria-label={label} className={`source-icon source-${source}`}>
      <title>{label}</title>
      {SHAPES[source] ?? <circle cx="12" cy="12" r="8" />}
    </svg>
  );
}
