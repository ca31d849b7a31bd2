// Display helpers for session data. Everything returns plain strings, rendered as text.

/** Titles can be a whole first message: shown on one line, cut at this many characters. */
export const TITLE_MAX_CHARS = 120;

/** One line, at most `max` characters (with "…"); the full text goes in a tooltip. */
export function shorten(text: string, max = TITLE_MAX_CHARS): string {
  const line = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(line); // by code point, so a surrogate pair is never split
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : line;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** "3 hours ago" / "3小时前"; null when there is no valid time. */
export function relativeTime(iso: string | null, language: string, now = Date.now()): string | null {
  if (!iso) return null;
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return null;
  const seconds = Math.round((time - now) / 1000);
  const format = new Intl.RelativeTimeFormat(language, { numeric: "auto" });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return format.format(0, "minute");
}

/** A full local date and time, for tooltips and message headers. */
export function dateTime(iso: string | null, language: string): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** The day alone ("Dec 1, 2026"), or null for a missing or unreadable time. */
export function dateOnly(iso: string | null, language: string): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(language, { dateStyle: "medium" }).format(date);
}

export function formatNumber(value: number, language: string): string {
  return new Intl.NumberFormat(language).format(value);
}
