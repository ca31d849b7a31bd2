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
};

export function SourceIcon({ source }: { source: Source }) {
  const { t } = useTranslation();
  const label = t(`sources.${source}`);
  return (
    <svg {...base} role="img" aria-label={label} className={`source-icon source-${source}`}>
      <title>{label}</title>
      {SHAPES[source] ?? <circle cx="12" cy="12" r="8" />}
    </svg>
  );
}
