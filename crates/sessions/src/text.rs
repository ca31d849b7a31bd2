//! Small text helpers shared by the readers, and the case folding every search uses.

use std::borrow::Cow;
use std::ops::Range;

/// Joins the non-empty, trimmed pieces with a blank line; `None` when nothing is left.
pub fn join_text<'a>(pieces: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut out = String::new();
    for piece in pieces {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(piece);
    }
    (!out.is_empty()).then_some(out)
}

/// Reads a JSON number or numeric string of ms since epoch, or an RFC 3339 string.
pub fn time_value(v: &serde_json::Value) -> Option<i64> {
    match v {
        serde_json::Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        serde_json::Value::String(s) => crate::model::parse_time(s).or_else(|| s.parse().ok()),
        _ => None,
    }
}

/// Folds one character for case-insensitive matching: `char::to_lowercase` on its own,
/// with final sigma `ς` as `σ`. Every match, the search index and the list filter fold
/// with this, so they agree; unlike `str::to_lowercase` (which picks `ς` or `σ` by the
/// characters around it) it is context-free, so each folded character comes from exactly
/// one original character and a query folds the same alone as inside a text.
#[inline]
pub fn fold_char(c: char, mut push: impl FnMut(char)) {
    if c.is_ascii() {
        push(c.to_ascii_lowercase());
    } else if c == 'ς' {
        push('σ');
    } else {
        for l in c.to_lowercase() {
            push(if l == 'ς' { 'σ' } else { l });
        }
    }
}

/// `text` folded by [`fold_char`] (which may change its length: `İ` becomes two
/// characters, the Kelvin sign one byte instead of three).
pub fn fold(text: &str) -> Cow<'_, str> {
    if text.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        fold_char(c, |l| out.push(l));
    }
    Cow::Owned(out)
}

/// Whether `text` folded contains `needle`, which is already folded ([`fold`]). SQLite's
/// own `lower()` folds ASCII only, so the index registers this as the SQL function
/// `contains_folded(text, needle)` (see `index/mod.rs`).
pub fn contains_folded(text: &str, needle: &str) -> bool {
    if text.is_ascii() {
        // Folded ASCII stays ASCII: no allocation for the common case.
        return ascii_find(text, needle).is_some();
    }
    fold(text).contains(needle)
}

/// Where `needle` (already folded) first occurs in `text` folded, as a byte range of
/// `text` itself: the original characters whose folded forms the match covers, so the
/// range always lies on character boundaries of `text` (positions in the folded text do
/// not: folding changes lengths).
pub fn find_folded(text: &str, needle: &str) -> Option<Range<usize>> {
    if text.is_ascii() || needle.is_empty() {
        return ascii_find(text, needle);
    }
    let folded = fold(text);
    let at = folded.find(needle)?;
    let end = at + needle.len();
    // Fold again char by char, counting folded bytes, to find the characters that made
    // folded bytes `at` and `end - 1` (every character folds to at least one).
    let (mut folded_pos, mut start) = (0, None);
    for (i, c) in text.char_indices() {
        let mut len = 0;
        fold_char(c, |l| len += l.len_utf8());
        folded_pos += len;
        if start.is_none() && folded_pos > at {
            start = Some(i);
        }
        if folded_pos >= end {
            return Some(start.unwrap_or(i)..i + c.len_utf8());
        }
    }
    // Unreachable while `fold` is `fold_char` per character; clamped all the same.
    Some(start.unwrap_or(text.len())..text.len())
}

/// [`find_folded`] for ASCII `text`, whose folded bytes are its own.
fn ascii_find(text: &str, needle: &str) -> Option<Range<usize>> {
    if needle.is_empty() {
        return Some(0..0);
    }
    if !needle.is_ascii() {
        return None;
    }
    let at = text.as_bytes().windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))?;
    Some(at..at + needle.len())
}

#[cfg(test)]
mod tests {
    use super::{contains_folded, find_folded, fold};

    #[test]
    fn contains_folded_agrees_with_to_lowercase_up_to_final_sigma() {
        for (text, query, expected) in [
            ("The Client Migration", "client migration", true),
            ("ΟΔΟΣ ΠΡΟΣ", "οδος", true), // to_lowercase picks the final form ς at a word end
            ("ΟΔΟΣ ΠΡΟΣ", "οδος προς", true),
            ("ΟΔΟΣΑ", "ΟΔΟΣ", true), // …and σ inside a word, so this once did not match
            ("Привет МИР", "мир", true),
            ("ascii only", "ï", false),
            ("KELVIN \u{212A}", "k", true),
            ("我们讨论了客户迁移", "客户迁移", true),
            ("只有迁移", "客户迁移", false),
        ] {
            let needle = fold(query);
            assert_eq!(contains_folded(text, &needle), expected, "{text} / {query}");
            let sigma = |s: String| s.replace('ς', "σ");
            assert_eq!(expected, sigma(text.to_lowercase()).contains(&sigma(query.to_lowercase())), "{text}");
        }
    }

    #[test]
    fn a_match_maps_back_to_whole_characters_of_the_original() {
        let text = "İİ needle \u{212A}elvin Straße";
        let at = |q: &str| find_folded(text, &fold(q)).map(|r| &text[r]);
        assert_eq!(at("needle"), Some("needle"));
        assert_eq!(at("kelvin"), Some("\u{212A}elvin"));
        assert_eq!(at("STRASSE"), None, "ß is not ss");
        assert_eq!(at("straße"), Some("Straße"));
        // Half of İ's folded form (i + combining dot) still stands for the whole İ.
        assert_eq!(at("\u{307}i"), Some("İİ"));
        assert_eq!(at("i\u{307} n"), Some("İ n"));
        assert_eq!(find_folded("ascii", ""), Some(0..0));
        assert_eq!(find_folded("İ", ""), Some(0..0));
    }
}
