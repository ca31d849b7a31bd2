//! Input validation: trim first, then check; the trimmed value is what gets stored.
//!
//! Every function returns all problems at once as [`FieldError`]s, so a client can
//! fix a request in one round trip. Nothing is ever clamped silently.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::ids::{self, MEMORY_PREFIX};
use crate::limits::*;
use crate::wire::{
    AcceptProposalRequest, Citation, FindSimilarRequest, ConfirmedVia, ContextInput, Origin, ProposalAction, ProposeRequest, SaveMemoryRequest,
};
use crate::FieldError;

/// A save request that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidSave {
    /// Trimmed content.
    pub content: String,
    /// Trimmed tags, or `None` when the field was absent or null.
    pub tags: Option<Vec<String>>,
    /// Validated contexts, in request order.
    pub contexts: Vec<ValidContext>,
    /// How the person confirmed it, when the client said.
    pub confirmed_via: Option<ConfirmedVia>,
}

/// A context that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidContext {
    /// Trimmed snippet.
    pub snippet: String,
    /// The ids given, or `None` when neither was.
    pub citation: Option<Citation>,
    /// Origin, if given.
    pub origin: Option<Origin>,
}

/// A proposal that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidProposal {
    /// A memory to save, within the memory limits.
    Save {
        /// The drafted memory.
        save: ValidSave,
        /// The proposing client's name.
        proposed_by: Option<String>,
    },
    /// A memory to delete.
    Delete {
        /// Its id (trimmed; not checked for existence here).
        memory_id: String,
        /// The proposing client's name.
        proposed_by: Option<String>,
    },
    /// A memory to edit.
    Edit {
        /// Its id (trimmed; not checked for existence here).
        memory_id: String,
        /// The new sentence and/or tags, within the memory limits.
        edit: crate::edit::ValidEdit,
        /// The proposing client's name.
        proposed_by: Option<String>,
    },
}

/// Parses and validates a `POST /v1/proposals` body.
pub fn parse_propose_body(body: &[u8]) -> Result<ValidProposal, Vec<FieldError>> {
    validate_propose(parse_object(body)?)
}

/// Validates a proposal: a save within the memory limits, or a delete naming a memory.
pub fn validate_propose(request: ProposeRequest) -> Result<ValidProposal, Vec<FieldError>> {
    let mut errors = Vec::new();
    let proposed_by = request.proposed_by.map(|name| check_text(&mut errors, "proposedBy", &name, MAX_CITATION_ID_CHARS));
    let proposal = match request.action.unwrap_or(ProposalAction::Save) {
        ProposalAction::Save => {
            if request.memory_id.is_some() {
                errors.push(FieldError::new("memoryId", "memoryId is only for \"action\": \"delete\"; leave it out to save"));
            }
            let Some(content) = request.content else {
                errors.push(FieldError::new("content", "content is required: the sentence to remember"));
                return Err(errors);
            };
            let save = SaveMemoryRequest { content, tags: request.tags, contexts: request.contexts, confirmed_via: None };
            match validate_save(save) {
                Ok(save) => ValidProposal::Save { save, proposed_by },
                Err(more) => {
                    errors.extend(more);
                    return Err(crate::cap_details(errors));
                }
            }
        }
        ProposalAction::Delete => {
            if request.content.is_some() || request.tags.is_some() || request.contexts.is_some() {
                errors.push(FieldError::new("action", "a delete proposal takes only memoryId"));
            }
            let memory_id = match request.memory_id {
                Some(id) => check_text(&mut errors, "memoryId", &id, MAX_CITATION_ID_CHARS),
                None => {
                    errors.push(FieldError::new("memoryId", "memoryId is required: the mem_… id to delete"));
                    String::new()
                }
            };
            ValidProposal::Delete { memory_id, proposed_by }
        }
        ProposalAction::Edit => {
            if request.contexts.is_some() {
                errors.push(FieldError::new("contexts", "an edit changes content and tags only; its citations stay"));
            }
            let memory_id = match request.memory_id {
                Some(id) => check_text(&mut errors, "memoryId", &id, MAX_CITATION_ID_CHARS),
                None => {
                    errors.push(FieldError::new("memoryId", "memoryId is required: the mem_… id to edit"));
                    String::new()
                }
            };
            let change = crate::edit::EditMemoryRequest { content: request.content, tags: request.tags, confirmed_via: None };
            // Limits here; secrets are the caller's secret check, as for a save.
            match crate::edit::check_edit_limits(change) {
                Ok(edit) => ValidProposal::Edit { memory_id, edit, proposed_by },
                Err(more) => {
                    errors.extend(more);
                    return Err(crate::cap_details(errors));
                }
            }
        }
    };
    if errors.is_empty() {
        Ok(proposal)
    } else {
        Err(crate::cap_details(errors))
    }
}

/// The person's edits when accepting a proposal, parsed; validated once merged.
pub fn parse_accept_body(body: &[u8]) -> Result<AcceptProposalRequest, Vec<FieldError>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(AcceptProposalRequest::default());
    }
    parse_object(body)
}

/// The save an accepted proposal makes: the proposal's draft with the person's edits.
pub fn merge_accept(draft: SaveMemoryRequest, edits: AcceptProposalRequest) -> Result<(ValidSave, ConfirmedVia), Vec<FieldError>> {
    let via = edits.confirmed_via.unwrap_or(ConfirmedVia::App);
    let merged = SaveMemoryRequest {
        content: edits.content.unwrap_or(draft.content),
        tags: edits.tags.or(draft.tags),
        contexts: edits.contexts.or(draft.contexts),
        confirmed_via: Some(via),
    };
    validate_save(merged).map(|save| (save, via))
}

/// A JSON object body deserialized into `T`. Parsed to a value first: syntax errors
/// then point at the body, and a top-level array (which serde would happily read as a
/// struct) is refused.
pub(crate) fn parse_object<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Vec<FieldError>> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|err| {
        vec![FieldError::new("body", format!("the body is not valid JSON ({err}); send a JSON object"))]
    })?;
    if !value.is_object() {
        return Err(vec![FieldError::new("body", "the body must be a JSON object like {\"content\": \"…\"}")]);
    }
    serde_path_to_error::deserialize(value).map_err(|err| vec![json_error(&err)])
}

/// A search request that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidSearch {
    /// Trimmed query text.
    pub query: String,
    /// 1..=50.
    pub limit: u32,
}

/// A list request that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidList {
    /// 1..=100.
    pub limit: u32,
    /// Where the previous page ended, if any.
    pub cursor: Option<Cursor>,
}

/// Position in the newest-first order: the last row of the previous page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// `created_at` of that row, ms since the epoch.
    pub created_at_ms: i64,
    /// Its id (tie-breaker within one millisecond).
    pub id: String,
}

impl Cursor {
    /// Opaque, URL-safe form.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{}:{}", self.created_at_ms, self.id))
    }

    /// Parses a memory-list cursor made by [`Cursor::encode`]; `None` for anything else.
    pub fn decode(text: &str) -> Option<Self> {
        Self::decode_for(MEMORY_PREFIX, text)
    }

    /// Parses a cursor over rows whose ids have `prefix`.
    pub fn decode_for(prefix: &str, text: &str) -> Option<Self> {
        let raw = String::from_utf8(URL_SAFE_NO_PAD.decode(text).ok()?).ok()?;
        let (ms, id) = raw.split_once(':')?;
        let created_at_ms = ms.parse::<i64>().ok()?;
        ids::is_valid(prefix, id).then(|| Cursor { created_at_ms, id: id.to_owned() })
    }
}

/// Parses and validates a `POST /v1/memory` body. Malformed JSON and wrong types
/// are reported in the same shape as limit violations.
pub fn parse_save_body(body: &[u8]) -> Result<ValidSave, Vec<FieldError>> {
    validate_save(parse_object(body)?)
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

/// The body of `POST /v1/memory/similar`: a sentence within the save limits, trimmed.
pub fn parse_similar_body(body: &[u8]) -> Result<FindSimilarRequest, Vec<FieldError>> {
    let request: FindSimilarRequest = parse_object(body)?;
    let mut errors = Vec::new();
    let content = check_text(&mut errors, "content", &request.content, MAX_CONTENT_CHARS);
    if errors.is_empty() {
        Ok(FindSimilarRequest { content, exclude_id: request.exclude_id.map(|id| id.trim().to_owned()) })
    } else {
        Err(errors)
    }
}

/// Validates an already-deserialized save request.
pub fn validate_save(request: SaveMemoryRequest) -> Result<ValidSave, Vec<FieldError>> {
    let mut errors = Vec::new();
    let content = check_text(&mut errors, "content", &request.content, MAX_CONTENT_CHARS);

    // Past a count limit the elements are not checked: one detail says "too many",
    // instead of one per element of a huge list.
    let tags = request.tags.map(|tags| {
        if tags.len() > MAX_TAGS {
            errors.push(FieldError::new(
                "tags",
                format!("at most {MAX_TAGS} tags are allowed, got {}", tags.len()),
            ));
            return Vec::new();
        }
        tags.iter()
            .enumerate()
            .map(|(i, tag)| check_text(&mut errors, &format!("tags[{i}]"), tag, MAX_TAG_CHARS))
            .collect::<Vec<_>>()
    });

    let inputs = request.contexts.unwrap_or_default();
    let contexts = if inputs.len() > MAX_CONTEXTS {
        errors.push(FieldError::new(
            "contexts",
            format!("at most {MAX_CONTEXTS} contexts are allowed, got {}", inputs.len()),
        ));
        Vec::new()
    } else {
        inputs
            .into_iter()
            .enumerate()
            .map(|(i, c)| validate_context(&mut errors, i, c))
            .collect()
    };

    if errors.is_empty() {
        Ok(ValidSave { content, tags, contexts, confirmed_via: request.confirmed_via })
    } else {
        Err(crate::cap_details(errors))
    }
}

fn validate_context(errors: &mut Vec<FieldError>, index: usize, input: ContextInput) -> ValidContext {
    let base = format!("contexts[{index}]");
    let snippet = check_text(errors, &format!("{base}.snippet"), &input.snippet, MAX_SNIPPET_CHARS);
    let mut id = |name: &str, value: Option<String>| {
        value.map(|v| check_text(errors, &format!("{base}.{name}"), &v, MAX_CITATION_ID_CHARS))
    };
    let conversation_id = id("conversationId", input.conversation_id);
    let message_id = id("messageId", input.message_id);
    let citation = (conversation_id.is_some() || message_id.is_some()).then_some(Citation { conversation_id, message_id });
    ValidContext { snippet, citation, origin: input.origin }
}

/// Trims `value` and records an error unless it has 1..=max characters.
pub(crate) fn check_text(errors: &mut Vec<FieldError>, path: &str, value: &str, max: usize) -> String {
    let trimmed = value.trim();
    let chars = trimmed.chars().count();
    if chars == 0 {
        let what = if value.is_empty() { "is empty" } else { "is only whitespace" };
        errors.push(FieldError::new(path, format!("{path} {what}; it needs 1 to {max} characters")));
    } else if chars > max {
        errors.push(FieldError::new(path, format!("{path} has {chars} characters; the limit is {max}")));
    }
    trimmed.to_owned()
}

/// Validates `GET /v1/memory/search` parameters (raw query-string values).
pub fn parse_search(q: Option<&str>, limit: Option<&str>) -> Result<ValidSearch, Vec<FieldError>> {
    let mut errors = Vec::new();
    let query = match q {
        None => {
            errors.push(FieldError::new("q", "q is required: pass the words to search for"));
            String::new()
        }
        Some(q) => check_text(&mut errors, "q", q, MAX_QUERY_CHARS),
    };
    let limit = parse_limit(&mut errors, limit, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
    if errors.is_empty() {
        Ok(ValidSearch { query, limit })
    } else {
        Err(errors)
    }
}

/// Validates `GET /v1/memory` parameters (raw query-string values).
pub fn parse_list(limit: Option<&str>, cursor: Option<&str>) -> Result<ValidList, Vec<FieldError>> {
    let mut errors = Vec::new();
    let limit = parse_limit(&mut errors, limit, DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT);
    let cursor = match cursor {
        None => None,
        Some(text) => {
            let parsed = Cursor::decode(text);
            if parsed.is_none() {
                errors.push(FieldError::new(
                    "cursor",
                    "cursor is not one this server issued; pass nextCursor from a previous page, or omit it to start",
                ));
            }
            parsed
        }
    };
    if errors.is_empty() {
        Ok(ValidList { limit, cursor })
    } else {
        Err(errors)
    }
}

/// `GET /v1/memory/citing?conversationId=&limit=`: a session id (1–128 characters) and
/// at most [`MAX_LIST_LIMIT`] memories (that many by default).
pub fn parse_citing(conversation_id: Option<&str>, limit: Option<&str>) -> Result<(String, u32), Vec<FieldError>> {
    let mut errors = Vec::new();
    let limit = parse_limit(&mut errors, limit, MAX_LIST_LIMIT, MAX_LIST_LIMIT);
    let id = check_text(&mut errors, "conversationId", conversation_id.unwrap_or(""), MAX_CITATION_ID_CHARS);
    if errors.is_empty() {
        Ok((id, limit))
    } else {
        Err(errors)
    }
}

fn parse_limit(errors: &mut Vec<FieldError>, raw: Option<&str>, default: u32, max: u32) -> u32 {
    let Some(raw) = raw else { return default };
    let value = raw.trim();
    match value.parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) && value.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => {
            errors.push(FieldError::new("limit", format!("limit must be a whole number from 1 to {max}, got {raw:?}")));
            default
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(result: Result<ValidSave, Vec<FieldError>>) -> Vec<String> {
        result.unwrap_err().into_iter().map(|e| e.path).collect()
    }

    #[test]
    fn trims_and_keeps_the_trimmed_value() {
        let ok = parse_save_body(br#"{"content":"  hi  ","tags":[" a "],"contexts":[{"snippet":" s ","messageId":"m1"}]}"#).unwrap();
        assert_eq!(ok.content, "hi");
        assert_eq!(ok.tags, Some(vec!["a".to_owned()]));
        assert_eq!(ok.contexts[0].snippet, "s");
        assert_eq!(ok.contexts[0].citation, Some(Citation { conversation_id: None, message_id: Some("m1".into()) }));
    }

    #[test]
    fn reports_json_paths_for_type_errors_and_missing_fields() {
        assert_eq!(paths(parse_save_body(br#"{"tags":[]}"#)), ["content"]);
        assert_eq!(paths(parse_save_body(br#"{"content":"x","contexts":[{"snippet":"a"},{"snippet":5}]}"#)), ["contexts[1].snippet"]);
        assert_eq!(paths(parse_save_body(br#"{"content":"x","contexts":[{}]}"#)), ["contexts[0].snippet"]);
        assert_eq!(paths(parse_save_body(br#"{"content":"x","contexts":[{"snippet":"a","origin":"elsewhere"}]}"#)), ["contexts[0].origin"]);
        assert_eq!(paths(parse_save_body(b"{not json")), ["body"]);
        assert_eq!(paths(parse_save_body(b"[]")), ["body"]);
    }

    #[test]
    fn limits_reject_rather_than_clamp() {
        assert!(parse_search(Some("x"), Some("51")).is_err());
        assert!(parse_search(Some("x"), Some("0")).is_err());
        assert!(parse_search(Some("x"), Some("1.5")).is_err());
        assert!(parse_search(Some("x"), Some("+5")).is_err());
        assert_eq!(parse_search(Some(" x "), None).unwrap(), ValidSearch { query: "x".into(), limit: 20 });
        assert_eq!(parse_list(Some("100"), None).unwrap().limit, 100);
        assert!(parse_list(Some("101"), None).is_err());
    }

    #[test]
    fn too_many_tags_or_contexts_is_one_detail_not_one_per_element() {
        let tags = vec!["\"\""; 40_000].join(",");
        let body = format!(r#"{{"content":"x","tags":[{tags}]}}"#);
        let errors = parse_save_body(body.as_bytes()).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].path, "tags");
        let contexts = vec![r#"{"snippet":""}"#; 5_000].join(",");
        let body = format!(r#"{{"content":"x","contexts":[{contexts}]}}"#);
        assert_eq!(paths(parse_save_body(body.as_bytes())), ["contexts"]);
    }

    #[test]
    fn many_problems_within_the_counts_are_capped() {
        let tags = vec!["\" \""; MAX_TAGS].join(",");
        let contexts = vec![r#"{"snippet":" ","messageId":""}"#; MAX_CONTEXTS].join(",");
        let body = format!(r#"{{"content":"","tags":[{tags}],"contexts":[{contexts}]}}"#);
        let errors = parse_save_body(body.as_bytes()).unwrap_err();
        assert_eq!(errors.len(), crate::MAX_ERROR_DETAILS);
        assert!(errors.last().unwrap().message.contains("more problems"));
    }

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let c = Cursor { created_at_ms: 42, id: ids::new_id(MEMORY_PREFIX) };
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        assert!(parse_list(None, Some("garbage")).is_err());
        assert!(parse_list(None, Some(&URL_SAFE_NO_PAD.encode("1:mem_x"))).is_err());
    }
}
