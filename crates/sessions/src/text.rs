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
