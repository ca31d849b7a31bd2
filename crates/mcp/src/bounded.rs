//! Bounded answers: no tool result is longer than [`MAX_RESULT_BYTES`].
//!
//! Agents cap what a tool may return (Codex cuts every result at about 10 KiB, Claude Code
//! warns at 10 000 tokens), and a cut answer is worse than a short one: the agent sees half
//! a JSON document and cannot tell what is missing. So every tool builds its answer to fit,
//! and says how much more there is instead: lists return fewer items with a `nextCursor`
//! that continues right after the last one returned, texts are cut per message and marked
//! `truncated`, and titles and snippets have caps of their own.
//!
//! The budget is counted on the JSON text exactly as it is sent (the text content, which
//! is the same JSON as `structuredContent`), in bytes of UTF-8: never fewer than its
//! characters, so the 10 000-character rule holds and Codex's byte cut never bites.

use rmcp::model::CallToolResult;
use serde::Serialize;
use serde_json::{json, Value};

/// The longest text a tool result may hold, in bytes of UTF-8 (so also in characters).
pub const MAX_RESULT_BYTES: usize = 10_000;

/// The longest search snippet returned, in characters.
pub const MAX_SNIPPET_CHARS: usize = 300;

/// The longest session title returned, in characters (a title can be a whole first message).
pub const MAX_TITLE_CHARS: usize = 200;

/// The longest workspace path returned, in characters.
pub const MAX_WORKSPACE_CHARS: usize = 300;

/// The length that counts against the budget: the compact JSON text, in bytes.
pub fn json_len(value: &Value) -> usize {
    value.to_string().len()
}

/// Whether `value` fits the budget.
pub fn fits(value: &Value) -> bool {
    json_len(value) <= MAX_RESULT_BYTES
}

/// `text` cut to at most `max` characters, `…` marking the cut (within the `max`).
pub fn cap(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some(_) => {
            let end = text.char_indices().nth(max.saturating_sub(1)).map_or(text.len(), |(i, _)| i);
            format!("{}…", &text[..end])
        }
    }
}

/// The first `max` characters of `text`, and whether anything was cut.
pub fn prefix(text: &str, max: usize) -> (&str, bool) {
    match text.char_indices().nth(max) {
        None => (text, false),
        Some((end, _)) => (&text[..end], true),
    }
}

/// The largest `k` in `0..=n` whose answer `render(k)` fits the budget, and that answer.
/// `render(0)` is taken even if it does not fit (callers keep it small).
///
/// The answers grow with `k` (each item adds its own text), so a binary search finds `k`
/// in `log n` renders.
pub fn fit_count(n: usize, render: impl Fn(usize) -> Value) -> (usize, Value) {
    let whole = render(n);
    if fits(&whole) {
        return (n, whole);
    }
    // Invariant: render(lo) fits (or lo = 0), render(hi) does not.
    let (mut lo, mut hi) = (0, n);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(&render(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, render(lo))
}

/// The most characters `c` in `0..=max` for which `render(c)` fits (`render(0)` if none).
pub fn fit_chars(max: usize, render: impl Fn(usize) -> Value) -> Value {
    let (_, value) = fit_count(max, render);
    value
}

/// A successful answer: the JSON as structured content and as text.
pub fn answer(value: &impl Serialize) -> CallToolResult {
    let value = serde_json::to_value(value).unwrap_or_else(|e| json!({"error": "internal", "message": e.to_string()}));
    debug_assert!(fits(&value), "{} bytes: {value}", json_len(&value));
    CallToolResult::structured(value)
}

/// A failed call the agent can act on: `isError: true` and `{"error": code, "message": …}`
/// (the message says what to do next), as structured content and as text.
pub fn failure(code: &str, message: &str) -> CallToolResult {
    let message = cap(message, MAX_RESULT_BYTES / 8);
    CallToolResult::structured_error(json!({"error": code, "message": message}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_and_prefix_count_characters() {
        assert_eq!(cap("abc", 3), "abc");
        assert_eq!(cap("abcd", 3), "ab…");
        assert_eq!(cap("客户迁移计划", 4), "客户迁…");
        assert_eq!(cap("", 0), "");
        assert_eq!(prefix("客户迁移", 2), ("客户", true));
        assert_eq!(prefix("客户", 2), ("客户", false));
    }

    #[test]
    fn fit_count_finds_the_largest_count_that_fits() {
        let items: Vec<String> = (0..50).map(|i| "x".repeat(100 + i * 10)).collect();
        let render = |k: usize| json!({"items": &items[..k]});
        let (k, value) = fit_count(items.len(), render);
        assert!(fits(&value));
        assert!(!fits(&render(k + 1)));
        assert_eq!(fit_count(3, |k| json!({"items": &items[..k]})).0, 3);
        // Nothing fits: zero items.
        let huge = ["y".repeat(MAX_RESULT_BYTES)];
        assert_eq!(fit_count(1, |k| json!({"items": &huge[..k]})).0, 0);
    }

    #[test]
    fn fit_chars_counts_escapes_against_the_budget() {
        let text = "\"\n".repeat(20_000);
        let value = fit_chars(20_000, |c| json!({"text": prefix(&text, c).0}));
        assert!(fits(&value));
        let kept = value["text"].as_str().unwrap().chars().count();
        assert!(kept > 4000 && kept < 5000, "two bytes per character: {kept}");
    }
}
