//! Editing a memory in place, and the history that keeps every earlier version:
//! `PATCH /v1/memory/{id}`, `GET /v1/memory/{id}/revisions` and restoring one.
//!
//! An edit changes the sentence and/or the tags, never the id, `createdAt` or the
//! contexts it cites; the version it replaces is kept as a [`Revision`]. Restoring a
//! revision is an edit like any other (it becomes a revision itself when replaced), so
//! the history only ever grows until the memory is deleted, with its revisions.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::body::parse_object;
use crate::gate::{Gate, Layout, Refused};
use crate::limits::MAX_CONTENT_CHARS;
use crate::wire::ConfirmedVia;
use crate::{FieldError, Timestamp};

/// Body of `PATCH /v1/memory/{id}`: the new sentence and/or the new tags (an empty list
/// clears them). At least one of the two.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditMemoryRequest {
    /// The new sentence, 1–8000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The new tags (at most 32, 1–64 characters each); `[]` removes them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// How the person confirmed the edit (`app`, `cli`, `elicitation`); the server
    /// records `app` for an edit accepted from the Inbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
}

/// An edit that passed the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidEdit {
    /// Trimmed new content, or `None` to keep it.
    pub content: Option<String>,
    /// Trimmed new tags (`Some(vec![])` clears them), or `None` to keep them.
    pub tags: Option<Vec<String>>,
    /// How the person confirmed it.
    pub confirmed_via: Option<ConfirmedVia>,
}

/// One earlier version of a memory.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Revision {
    /// `mrev_…`
    pub id: String,
    /// The memory it is a version of.
    pub memory_id: String,
    /// The sentence as it was.
    pub content: String,
    /// The tags as they were.
    pub tags: Option<Vec<String>>,
    /// When this version was written (saved, or the edit that made it).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: Timestamp,
    /// When an edit replaced it.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub replaced_at: Timestamp,
    /// How the person had confirmed this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
}

/// Response of `GET /v1/memory/{id}/revisions`: newest first.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RevisionListResponse {
    /// Earlier versions, the most recently replaced first.
    pub revisions: Vec<Revision>,
}

/// Checks an edit with the save limits, the character rules and the secret check: the
/// gate every stored text passes, so an edit can never store what a save would refuse.
/// Restoring a revision and accepting an edit proposal come through here too.
pub fn validate_edit(request: EditMemoryRequest) -> Result<ValidEdit, Refused> {
    let mut gate = Gate::new();
    let edit = edit_fields(&mut gate, request);
    gate.admit().map(|()| edit)
}

/// An edit's fields checked into `gate`: content and/or tags, within the save limits.
pub(crate) fn edit_fields(gate: &mut Gate, request: EditMemoryRequest) -> ValidEdit {
    if request.content.is_none() && request.tags.is_none() {
        gate.error(FieldError::new("body", "send content and/or tags: the new sentence, the new tags"));
    }
    let content = request.content.map(|content| gate.text("content", &content, MAX_CONTENT_CHARS, Layout::Prose));
    let tags = request.tags.map(|tags| gate.tags("tags", &tags));
    ValidEdit { content, tags, confirmed_via: request.confirmed_via }
}

/// Parses and validates a `PATCH` body (a JSON object, no unknown fields).
pub fn parse_edit_body(body: &[u8]) -> Result<ValidEdit, Refused> {
    let request: EditMemoryRequest = parse_object(body).map_err(Refused::Invalid)?;
    validate_edit(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_needs_content_or_tags_and_keeps_the_save_limits() {
        let empty = validate_edit(EditMemoryRequest::default());
        assert!(matches!(empty, Err(Refused::Invalid(ref d)) if d[0].path == "body"), "{empty:?}");
        let long = validate_edit(EditMemoryRequest { content: Some("x".repeat(8001)), ..Default::default() });
        assert!(matches!(long, Err(Refused::Invalid(ref d)) if d[0].path == "content"));
        let tags = validate_edit(EditMemoryRequest { tags: Some(vec![" ".into()]), ..Default::default() });
        assert!(matches!(tags, Err(Refused::Invalid(ref d)) if d[0].path == "tags[0]"));
        let ok = validate_edit(EditMemoryRequest {
            content: Some("  Tea, not coffee. ".into()),
            tags: Some(vec![]),
            ..Default::default()
        });
        assert_eq!(ok.unwrap(), ValidEdit { content: Some("Tea, not coffee.".into()), tags: Some(vec![]), confirmed_via: None });
    }

    #[test]
    fn an_edit_that_looks_like_a_secret_is_refused() {
        let key = format!("my key is ghp_{}", "a1B2".repeat(9));
        let refused = validate_edit(EditMemoryRequest { content: Some(key), ..Default::default() });
        assert!(matches!(refused, Err(Refused::LooksLikeSecret(ref f)) if f[0].path == "content"), "{refused:?}");
    }

    #[test]
    fn unknown_fields_are_refused() {
        let refused = parse_edit_body(br#"{"content":"x","contexts":[]}"#);
        assert!(matches!(refused, Err(Refused::Invalid(_))), "{refused:?}");
    }
}
