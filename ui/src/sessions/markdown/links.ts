// Which link targets a transcript may have. A message is untrusted text (an agent may have
// copied a web page into it), so a link is kept only when it is an absolute http, https or
// mailto URL; everything else (javascript:, data:, vbscript:, file:, relative paths that
// would resolve inside the app, footnote anchors) is rendered as inert text.

/** The schemes the system browser (or mail client) is asked to open; the window's
 * capability allows the same three (src-tauri/capabilities/default.json). */
const OPENABLE = new Set(["http:", "https:", "mailto:"]);

/**
 * The URL to open for a link written as `raw`, or null when it must stay inert. The
 * WHATWG parser (the one the web view uses) does the normalising that obfuscations rely
 * on: it lower-cases the scheme and drops tabs, newlines and leading spaces, so
 * `JaVaScRiPt:` and `java\tscript:` are seen as the `javascript:` they are.
 */
export function safeHref(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null; // relative or malformed: nothing outside the app to open
  }
  if (!OPENABLE.has(url.protocol)) return null;
  if (url.protocol !== "mailto:" && url.hostname === "") return null;
  return url.href;
}

/** react-markdown's `urlTransform`: every URL attribute (link and image) goes through
 * `safeHref`; an empty string means "inert" to the components that render them. */
export function transcriptUrlTransform(url: string): string {
  return safeHref(url) ?? "";
}
