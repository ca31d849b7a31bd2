//! JSON request bodies: one object, read into a request type, with errors that point at
//! the field (`contexts[1].snippet`) in the same shape as limit violations.

use crate::FieldError;

/// A JSON object body deserialized into `T`. Parsed to a value first: syntax errors
/// then point at the body, and a top-level array (which serde would happily read as a
/// struct) is refused.
pub fn parse_object<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Vec<FieldError>> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|err| {
        vec![FieldError::new("body", format!("the body is not valid JSON ({err}); send a JSON object"))]
    })?;
    if !value.is_object() {
        return Err(vec![FieldError::new("body", "the body must be a JSON object like {\"content\": \"…\"}")]);
    }
    serde_path_to_error::deserialize(value).map_err(|err| vec![json_error(&err)])
}

fn json_error(err: &serde_path_to_error::Error<serde_json::Error>) -> FieldError {
    let inner = err.inner();
    let mut path = err.path().to_string();
    if path == "." || path == "?" {
        path.clear();
    }
    let text = inner.to_string();
    // serde reports a missing field at its parent; point at the field itself.
    if let Some(name) = text.strip_prefix("missing field `").and_then(|r| r.split('`').next()) {
        path = if path.is_empty() { name.to_owned() } else { format!("{path}.{name}") };
    }
    if path.is_empty() {
        path = "body".to_owned();
    }
    FieldError::new(path, text)
}

