//! `session-state/<id>/workspace.yaml`: the session's metadata, a flat YAML mapping the CLI
//! rewrites whole — in 1.0.102 `id`, `cwd`, `git_root`, `repository`, `branch`,
//! `client_name`, `name`, `user_named`, `summary_count`, `fork_count`, `created_at`,
//! `updated_at`; around 1.0.6 `summary` held the generated (or first-prompt) title and
//! `name` only a `/rename`, which set both; 0.0.38x wrote `id`, `name`, `summary_count`
//! and the times. The title is `name`, else `summary`: the CLI's own list shows that.
//!
//! Only the top-level scalars are needed, so this reads them with a small reader of the
//! YAML the CLI's serializers write (the `yaml` package in the JavaScript releases,
//! Rust in the current one): plain scalars, single- and double-quoted ones (escapes,
//! lines folded into spaces), and `|` / `>` block scalars (a multi-line prompt is
//! written `name: |-` then indented lines). Anything else is no title.

use std::io::Read;
use std::path::Path;

use crate::events::Event;
use crate::source::WholeSession;

/// The biggest file read: a title is a prompt at most (a pasted file, at worst).
const MAX_BYTES: u64 = 8 << 20;

/// The title event of session `session_id` from its `workspace.yaml`; nothing when the
/// file names none (cut short while written, or from a release that wrote none).
pub(super) fn read(path: &Path, session_id: String) -> std::io::Result<Vec<WholeSession>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES || session_id.is_empty() {
        return Ok(Vec::new());
    }
    let text = String::from_utf8_lossy(&bytes);
    let Some(title) = scalar(&text, "name").or_else(|| scalar(&text, "summary")) else { return Ok(Vec::new()) };
    let title = title.trim().to_string();
    Ok(vec![WholeSession { key: String::new(), events: vec![Event::ExternalTitle { session_id, title }] }])
}

/// The value of top-level key `key`, when it is a scalar (`null` and `~` are none).
pub(super) fn scalar(text: &str, key: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let at = lines.iter().position(|line| {
        line.strip_prefix(key).and_then(|rest| rest.strip_prefix(':')).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
    })?;
    let value = lines[at][key.len() + 1..].trim();
    // The lines after it that belong to it: indented ones, and blank ones between them.
    let mut end = at + 1;
    while end < lines.len() && (lines[end].starts_with([' ', '\t']) || lines[end].trim().is_empty()) {
        end += 1;
    }
    while end > at + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let more = &lines[at + 1..end];
    match value.chars().next() {
        Some('|' | '>') => Some(block(value, more)),
        Some('"') => double_quoted(&folded(value, more)),
        Some('\'') => single_quoted(&folded(value, more)),
        _ => {
            let value = strip_comment(&folded(value, more)).trim().to_string();
            (!value.is_empty() && value != "~" && value != "null").then_some(value)
        }
    }
}

/// A flow scalar over several lines, its line breaks folded into spaces (a blank line
/// is a line break).
fn folded(first: &str, more: &[&str]) -> String {
    let mut out = first.to_string();
    let mut blank = false;
    for line in more {
        let line = line.trim();
        if line.is_empty() {
            out.push('\n');
            blank = true;
        } else {
            if !blank && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(line);
            blank = false;
        }
    }
    out
}

/// A plain scalar without a trailing ` # comment`.
fn strip_comment(value: &str) -> &str {
    match value.find(" #") {
        Some(at) => &value[..at],
        None => value,
    }
}

/// A `|` (literal) or `>` (folded) block scalar: its lines without their common indent.
fn block(header: &str, lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let body: Vec<&str> = lines.iter().map(|l| l.get(indent..).unwrap_or("")).collect();
    if !header.starts_with('>') {
        return body.join("\n");
    }
    let mut out = String::new();
    let mut previous_text = false;
    for line in body {
        if line.is_empty() {
            out.push('\n');
            previous_text = false;
        } else {
            // More-indented lines keep their breaks; others fold into spaces.
            if previous_text && !line.starts_with([' ', '\t']) {
                out.push(' ');
            } else if previous_text {
                out.push('\n');
            }
            out.push_str(line);
            previous_text = true;
        }
    }
    out
}

/// `'…'` with `''` for a quote.
fn single_quoted(value: &str) -> Option<String> {
    let inner = value.strip_prefix('\'')?;
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            if chars.peek() == Some(&'\'') {
                chars.next();
                out.push('\'');
                continue;
            }
            return Some(out);
        }
        out.push(c);
    }
    Some(out) // unterminated: what there is
}

/// `"…"` with YAML's escapes (JSON's, plus `\x`, `\U`, `\0`, `\e`, `\N`, `\_`, `\L`, `\P`).
fn double_quoted(value: &str) -> Option<String> {
    let inner = value.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => {
                let Some(e) = chars.next() else { break };
                let hex = |chars: &mut std::str::Chars, n: usize| {
                    let digits: String = chars.by_ref().take(n).collect();
                    u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32).unwrap_or('\u{fffd}')
                };
                match e {
                    'n' => out.push('\n'),
                    't' | '\t' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'e' => out.push('\u{1b}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    'N' => out.push('\u{85}'),
                    '_' => out.push('\u{a0}'),
                    'L' => out.push('\u{2028}'),
                    'P' => out.push('\u{2029}'),
                    'x' => out.push(hex(&mut chars, 2)),
                    'u' => out.push(hex(&mut chars, 4)),
                    'U' => out.push(hex(&mut chars, 8)),
                    ' ' => out.push(' '),
                    // An escaped line break (folded away) and `\"`, `\\`, `\/`.
                    '\n' => {}
                    other => out.push(other),
                }
            }
            c => out.push(c),
        }
    }
    Some(out) // unterminated: what there is
}

#[cfg(test)]
mod tests {
    use super::scalar;

    #[test]
    fn the_scalars_the_cli_writes() {
        let yaml = "id: 68c3f77e-4b47-4463-8016-23f71c03e0bd\ncwd: /tmp/proj\nname: |-\n  'quoted': line one: with colon\n  line two #hash \"dq\"\n\n  after a blank line\nuser_named: false\nsummary_count: 0\n";
        assert_eq!(scalar(yaml, "name").as_deref(), Some("'quoted': line one: with colon\nline two #hash \"dq\"\n\nafter a blank line"));
        assert_eq!(scalar(yaml, "cwd").as_deref(), Some("/tmp/proj"));
        assert_eq!(scalar(yaml, "user_named").as_deref(), Some("false"));
        assert_eq!(scalar(yaml, "summary"), None);
        assert_eq!(scalar(yaml, "user"), None, "a key is matched whole");

        let quoted = "name: \"Deploy: notes \\u00e9\\t\\\"x\\\"\"\nsummary: 'it''s a ''title'''\nother: plain # a comment\n";
        assert_eq!(scalar(quoted, "name").as_deref(), Some("Deploy: notes é\t\"x\""));
        assert_eq!(scalar(quoted, "summary").as_deref(), Some("it's a 'title'"));
        assert_eq!(scalar(quoted, "other").as_deref(), Some("plain"));

        let folded = "summary: >-\n  folded\n  into one\n\n  line\nname: \"two\n  lines\"\nplain: first\n  second\nempty:\nnull_value: null\n";
        assert_eq!(scalar(folded, "summary").as_deref(), Some("folded into one\nline"));
        assert_eq!(scalar(folded, "name").as_deref(), Some("two lines"));
        assert_eq!(scalar(folded, "plain").as_deref(), Some("first second"));
        assert_eq!(scalar(folded, "empty"), None);
        assert_eq!(scalar(folded, "null_value"), None);
        assert_eq!(scalar("name: \"cut sho", "name").as_deref(), Some("cut sho"));
        assert_eq!(scalar("name: x\r\nsummary: y\r\n", "name").as_deref(), Some("x"));
    }
}
