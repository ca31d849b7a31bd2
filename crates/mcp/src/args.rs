//! Reading tool arguments leniently and checking them clearly.
//!
//! Tools declare their arguments' types in the schema (`#[schemars(with = …)]`) but read
//! them as any JSON value and check them here, so that a wrong type gets the same clear
//! message naming the argument as an out-of-range value does, an `isError` result the agent
//! can act on. Numbers may also come as `3.0` or `"3"`: models send both. Optional
//! arguments are simply not required (`#[serde(default)]`, no `null` in their types),
//! which every client's schema support handles.

use serde_json::Value;

/// A bad argument: the message says which and what is expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError(pub String);

impl From<ArgError> for memory_bank_sessions::ActionError {
    fn from(e: ArgError) -> Self {
        memory_bank_sessions::ActionError { code: memory_bank_sessions::ErrorCode::InvalidRequest, message: e.0 }
    }
}

/// A whole number (`3`, `3.0` or `"3"`), else `None`.
pub fn whole_number(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    }
}

/// A whole number from `min` to `max`, `default` if absent.
pub fn whole(v: Option<&Value>, default: u64, min: u64, max: u64, name: &str) -> Result<u64, ArgError> {
    match v {
        None | Some(Value::Null) => Ok(default),
        Some(v) => whole_number(v)
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| ArgError(format!("{name} must be a whole number from {min} to {max}."))),
    }
}

/// An optional whole number as a JSON number, for an action that checks its range itself
/// (`what` completes "{name} must be …").
pub fn number(v: Option<Value>, name: &str, what: &str) -> Result<Option<Value>, ArgError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => whole_number(&v).map(|n| Some(n.into())).ok_or_else(|| ArgError(format!("{name} must be {what}."))),
    }
}

/// An optional text argument.
pub fn text(v: Option<Value>, name: &str) -> Result<Option<String>, ArgError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ArgError(format!("{name} must be a string."))),
    }
}

/// A schema transform (`#[schemars(transform = drop_null_defaults)]` on an arguments
/// struct) removing the `"default": null` that `#[serde(default)]` puts on optional
/// arguments.
pub fn drop_null_defaults(schema: &mut schemars::Schema) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(property) = property {
                if property.get("default") == Some(&Value::Null) {
                    property.remove("default");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_numbers_in_range_or_a_clear_error() {
        assert_eq!(whole(None, 20, 1, 100, "limit"), Ok(20));
        assert_eq!(whole(Some(&json!("7")), 20, 1, 100, "limit"), Ok(7));
        assert_eq!(whole(Some(&json!(100)), 20, 1, 100, "limit"), Ok(100));
        assert_eq!(whole(Some(&json!(3.0)), 20, 1, 100, "limit"), Ok(3));
        for bad in [json!(0), json!(101), json!(2.5), json!(-1), json!("x"), json!([1]), json!(true)] {
            let e = whole(Some(&bad), 20, 1, 100, "limit").unwrap_err();
            assert_eq!(e.0, "limit must be a whole number from 1 to 100.");
        }
    }

    #[test]
    fn texts_and_numbers_name_the_argument() {
        assert_eq!(text(Some(json!("a")), "cursor"), Ok(Some("a".into())));
        assert_eq!(text(Some(Value::Null), "cursor"), Ok(None));
        assert_eq!(text(Some(json!(2)), "cursor").unwrap_err().0, "cursor must be a string.");
        assert_eq!(number(Some(json!("12")), "before", "an index"), Ok(Some(json!(12))));
        assert_eq!(number(Some(json!(-1)), "before", "an index").unwrap_err().0, "before must be an index.");
    }
}
