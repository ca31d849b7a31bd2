//! Reading stored JSON columns the same way on every backend: what a reader gets is
//! normalised, so a malformed row degrades to null instead of failing a whole page.

use memory_bank_contract::wire::{Citation, ImportedFrom};

/// Tags as stored: anything but an array reads as null; non-string items are dropped.
pub fn parse_tags(raw: Option<&str>) -> Option<Vec<String>> {
    match serde_json::from_str::<serde_json::Value>(raw?).ok()? {
        serde_json::Value::Array(items) => Some(items.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()),
        _ => None,
    }
}

/// A citation as stored: anything but an object reads as null.
pub fn parse_citation(raw: Option<&str>) -> Option<Citation> {
    let value = serde_json::from_str::<serde_json::Value>(raw?).ok()?;
    value.is_object().then(|| serde_json::from_value(value).ok()).flatten()
}

/// An import file's claim as stored: anything but such an object reads as null.
pub fn parse_imported_from(raw: Option<&str>) -> Option<ImportedFrom> {
    serde_json::from_str(raw?).ok()
}

/// An import file's claim as it is stored (a JSON object), or `None`.
pub fn imported_from_json(claim: Option<&ImportedFrom>) -> Option<String> {
    // Serializing our own type cannot fail.
    claim.map(|c| serde_json::to_string(c).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_values_read_as_null_or_are_dropped() {
        assert_eq!(parse_tags(Some(r#"["a", 1, null, "b"]"#)), Some(vec!["a".into(), "b".into()]));
        assert_eq!(parse_tags(Some(r#""a""#)), None);
        assert_eq!(parse_tags(Some("not json")), None);
        assert_eq!(parse_tags(None), None);
        assert_eq!(parse_citation(Some(r#"["x"]"#)), None);
        assert_eq!(parse_citation(Some(r#"{"messageId":"m"}"#)).unwrap().message_id.as_deref(), Some("m"));
        assert_eq!(parse_imported_from(Some(r#"["x"]"#)), None);
        let claim = parse_imported_from(Some(r#"{"proposedBy":"claude-code"}"#)).unwrap();
        assert_eq!(claim.proposed_by.as_deref(), Some("claude-code"));
        assert_eq!(imported_from_json(Some(&claim)).as_deref(), Some(r#"{"proposedBy":"claude-code"}"#));
    }
}
