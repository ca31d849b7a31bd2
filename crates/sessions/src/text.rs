//! Small text helpers shared by the readers.

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

/// Whether `text` lower-cased (`str::to_lowercase`) contains `needle`, which is already
/// lower-cased. SQLite's own `lower()` folds ASCII only, so the index registers this as
/// the SQL function `contains_folded(text, needle)` (see `index/mod.rs`).
pub fn contains_folded(text: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if text.is_ascii() {
        // Lower-cased ASCII stays ASCII: no allocation for the common case.
        return needle.is_ascii()
            && text.as_bytes().windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle.as_bytes()));
    }
    text.to_lowercase().contains(needle)
}

#[cfg(test)]
mod tests {
    use super::contains_folded;

    #[test]
    fn contains_folded_agrees_with_to_lowercase() {
        for (text, query, expected) in [
            ("The Client Migration", "client migration", true),
            ("ΟΔΟΣ ΠΡΟΣ", "οδος", true), // to_lowercase picks the final form ς at a word end
            ("ΟΔΟΣ ΠΡΟΣ", "οδος προς", true),
            ("Привет МИР", "мир", true),
            ("ascii only", "ï", false),
            ("KELVIN \u{212A}", "k", true),
            ("我们讨论了客户迁移", "客户迁移", true),
            ("只有迁移", "客户迁移", false),
        ] {
            let needle = query.to_lowercase();
            assert_eq!(contains_folded(text, &needle), expected, "{text} / {query}");
            assert_eq!(contains_folded(text, &needle), text.to_lowercase().contains(&needle), "{text}");
        }
    }
}
