// Finds text that looks like a secret (API keys, tokens, private keys, passwords), so the
// "Remember…" dialog can highlight it and refuse to save until it is edited out. Pure;
// the Rust side refuses the same things (`looks_like_secret`) if the UI is bypassed.

export type SecretKind =
  | "anthropicKey"
  | "openaiKey"
  | "stripeKey"
  | "githubToken"
  | "slackToken"
  | "awsKey"
  | "awsSecret"
  | "googleKey"
  | "memoryBankToken"
  | "jwt"
  | "privateKey"
  | "urlPassword"
  | "bearer"
  | "assignment";

export interface SecretMatch {
  kind: SecretKind;
  start: number;
  end: number;
}

// Order matters only for overlaps: an earlier pattern wins a tie at the same start.
const PATTERNS: { kind: SecretKind; regex: RegExp; accept?: (match: RegExpExecArray) => boolean }[] = [
  { kind: "privateKey", regex: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { kind: "anthropicKey", regex: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: "openaiKey", regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, accept: hasDigit },
  { kind: "stripeKey", regex: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: "githubToken", regex: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { kind: "slackToken", regex: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { kind: "awsKey", regex: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "awsSecret", regex: /\baws_?secret_?(?:access_?)?key\b["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}\b/gi },
  { kind: "googleKey", regex: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "memoryBankToken", regex: /\bmbk_[A-Za-z0-9_-]{20,}/g },
  { kind: "jwt", regex: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // scheme://user:password@host — the userinfo may not contain "/" so paths with ":" and
  // "@" further on (https://host/a:b@c) are not mistaken for credentials.
  { kind: "urlPassword", regex: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:[^\s@/]+@[^\s/]+/gi },
  { kind: "bearer", regex: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g },
  // password=…, api_key: "…", secret=… with a value that looks like one; the name may be
  // part of a longer one (DB_PASSWORD, aws_secret_access_key, github.token).
  {
    kind: "assignment",
    regex:
      /\b[a-z0-9_.-]*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|access[_-]?token|auth[_-]?token|token)[a-z0-9_-]*["']?\s*[:=]\s*["']?([^\s"'`,;<>]{6,})/gi,
    accept: (match) => looksLikeValue(match[1]),
  },
];

function hasDigit(match: RegExpExecArray) {
  return /\d/.test(match[0]);
}

/** A value, not a word, a placeholder or a variable reference. */
function looksLikeValue(value: string) {
  if (/^[$%{<[(*]/.test(value) || /^(?:process\.env|os\.environ|env\.)/i.test(value)) return false;
  if (/^x+$/i.test(value)) return false;
  // A number is a setting (max_tokens: 100000), not a key.
  if (/^[\d._]+$/.test(value)) return false;
  // Plain words ("password: required") are prose; long letter runs are passphrases.
  return /[^A-Za-z]/.test(value) || value.length >= 16;
}

/** `text` as a reader sees it, with where each of its UTF-16 units came from: NFKC
 * (fullwidth ＡＫＩＡ… is AKIA…), without format characters (a zero-width space or a soft
 * hyphen inside a key), and with `joinLines` without line breaks and NULs (a key broken
 * over two lines). The same views the service's detector reads. */
function view(text: string, joinLines: boolean): { text: string; from: number[]; to: number[] } {
  let out = "";
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  for (const char of text) {
    const end = at + char.length;
    const hidden = /\p{Cf}/u.test(char) || (joinLines && /[\n\r\0\u0085\u2028\u2029]/.test(char));
    if (!hidden) {
      const shown = char.normalize("NFKC");
      out += shown;
      for (let i = 0; i < shown.length; i++) {
        from.push(at);
        to.push(end);
      }
    }
    at = end;
  }
  return { text: out, from, to };
}

/** Every secret-looking span in `text`, sorted, without overlaps. */
export function findSecrets(text: string): SecretMatch[] {
  const found: SecretMatch[] = [];
  const views = [view(text, false), view(text, true)];
  for (const seen of views) {
    for (const { kind, regex, accept } of PATTERNS) {
      regex.lastIndex = 0;
      for (let match = regex.exec(seen.text); match; match = regex.exec(seen.text)) {
        if (match[0].length === 0) {
          regex.lastIndex++;
          continue;
        }
        if (accept && !accept(match)) continue;
        const last = match.index + match[0].length - 1;
        found.push({ kind, start: seen.from[match.index], end: seen.to[last] });
      }
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretMatch[] = [];
  for (const match of found) {
    const last = merged[merged.length - 1];
    if (last && match.start < last.end) {
      last.end = Math.max(last.end, match.end);
      // "AWS_ACCESS_KEY_ID=AKIA…" is an AWS key, not just an assignment: the specific name wins.
      if (last.kind === "assignment") last.kind = match.kind;
    } else merged.push({ ...match });
  }
  return merged;
}

export interface Segment {
  text: string;
  secret: SecretKind | null;
}

/** `text` cut into plain and secret segments, for rendering with <mark> (never HTML). */
export function segments(text: string, matches: SecretMatch[]): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const match of matches) {
    if (match.start > at) out.push({ text: text.slice(at, match.start), secret: null });
    out.push({ text: text.slice(match.start, match.end), secret: match.kind });
    at = match.end;
  }
  if (at < text.length) out.push({ text: text.slice(at), secret: null });
  return out;
}

/** The distinct kinds found, in order of first appearance. */
export function secretKinds(matches: SecretMatch[]): SecretKind[] {
  return [...new Set(matches.map((match) => match.kind))];
}
