//! Input validation: trim first, then check; the trimmed value is what gets stored.
//!
//! Every function returns all problems at once as [`FieldError`]s, so a client can
//! fix a request in one round trip. Nothing is ever clamped silently. What is stored
//! passes the [`crate::gate`] (limits, characters, secrets) and comes out as a `Valid…`
//! value that only this crate can make.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::body::parse_object;
use crate::edit::{self, EditMemoryRequest, ValidEdit};
use crate::gate::{Gate, Layout, Refused};
use crate::ids::{self, MEMORY_PREFIX};
use crate::limits::*;
use crate::wire::{
    AcceptProposalRequest, Citation, ConfirmedVia, ContextInput, FindSimilarRequest, Origin, ProposalAction, ProposeRequest,
    SaveMemoryRequest, Scope,
};
use crate::FieldError;

/// A save request that passed the gate.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ValidSave {
    /// Trimmed content.
    pub content: String,
    /// Trimmed tags, or `None` when the field was absent or null.
    pub tags: Option<Vec<String>>,
    /// Validated contexts, in request order.
    pub contexts: Vec<ValidContext>,
    /// How the person confirmed it, when the client said.
    pub confirmed_via: Option<ConfirmedVia>,
    /// The bank asked for: the caller's own unless `org` was given.
    pub scope: Scope,
}

/// A context that passed the gate.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ValidContext {
    /// Trimmed snippet.
    pub snippet: String,
    /// The ids given, or `None` when neither was.
    pub citation: Option<Citation>,
    /// Origin, if given.
    pub origin: Option<Origin>,
}

/// A proposal that passed the gate.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidProposal {
    /// A memory to save, within the memory limits.
    #[non_exhaustive]
    Save {
        /// The drafted memory.
        save: ValidSave,
        /// The proposing client's name.
        proposed_by: Option<String>,
    },
    /// A memory to delete.
    #[non_exhaustive]
    Delete {
        /// Its id (trimmed; not checked for existence here).
        memory_id: String,
        /// The bank it is in, when the proposer said (else the bank holding it).
        scope: Option<Scope>,
        /// The proposing client's name.
        proposed_by: Option<String>,
    },
    /// A memory to edit.
    #[non_exhaustive]
    Edit {
        /// Its id (trimmed; not checked for existence here).
        memory_id: String,
        /// The bank it is in, when the proposer said (else the bank holding it).
        scope: Option<Scope>,
        /// The new sentence and/or tags, within the memory limits.
        edit: ValidEdit,
        /// The proposing client's name.
        proposed_by: Option<String>,
    },
}

impl ValidProposal {
    /// A save proposal of a memory that passed the save gate (a member's save to the
    /// team bank, which becomes a proposal in the org Inbox).
    pub fn save(save: ValidSave, proposed_by: Option<String>) -> ValidProposal {
        ValidProposal::Save { save, proposed_by }
    }

    /// The bank the proposer named: `org` for the active org's team bank (its Inbox is
    /// the org's), `user` for their own; `None` when they did not say (a save goes to
    /// their own bank, an edit or delete to the bank holding its memory).
    pub fn scope(&self) -> Option<Scope> {
        match self {
            ValidProposal::Save { save, .. } => Some(save.scope),
            ValidProposal::Delete { scope, .. } | ValidProposal::Edit { scope, .. } => *scope,
        }
    }
}

/// Parses and validates a `POST /v1/proposals` body.
pub fn parse_propose_body(body: &[u8]) -> Result<ValidProposal, Refused> {
    validate_propose(parse_object(body).map_err(Refused::Invalid)?)
}

/// Validates a proposal: a save within the memory limits, a delete naming a memory, or
/// an edit of one; every text it would store passes the gate.
pub fn validate_propose(request: ProposeRequest) -> Result<ValidProposal, Refused> {
    let mut gate = Gate::new();
    let proposed_by = request.proposed_by.map(|name| gate.text("proposedBy", &name, MAX_CITATION_ID_CHARS, Layout::Line));
    let proposal = match request.action.unwrap_or(ProposalAction::Save) {
        ProposalAction::Save => {
            if request.memory_id.is_some() {
                gate.error(FieldError::new("memoryId", "memoryId is only for \"action\": \"delete\"; leave it out to save"));
            }
            let Some(content) = request.content else {
                gate.error(FieldError::new("content", "content is required: the sentence to remember"));
                return Err(gate.admit().expect_err("an error was recorded"));
            };
            let draft = SaveMemoryRequest { content, tags: request.tags, contexts: request.contexts, confirmed_via: None, scope: request.scope };
            ValidProposal::Save { save: save_fields(&mut gate, draft), proposed_by }
        }
        ProposalAction::Delete => {
            if request.content.is_some() || request.tags.is_some() || request.contexts.is_some() {
                gate.error(FieldError::new("action", "a delete proposal takes only memoryId"));
            }
            let memory_id = memory_id(&mut gate, request.memory_id, "delete");
            ValidProposal::Delete { memory_id, scope: request.scope, proposed_by }
        }
        ProposalAction::Edit => {
            if request.contexts.is_some() {
                gate.error(FieldError::new("contexts", "an edit changes content and tags only; its citations stay"));
            }
            let memory_id = memory_id(&mut gate, request.memory_id, "edit");
            let change = EditMemoryRequest { content: request.content, tags: request.tags, confirmed_via: None };
            ValidProposal::Edit { memory_id, scope: request.scope, edit: edit::edit_fields(&mut gate, change), proposed_by }
        }
    };
    gate.admit().map(|()| proposal)
}

fn memory_id(gate: &mut Gate, id: Option<String>, action: &str) -> String {
    match id {
        Some(id) => gate.text("memoryId", &id, MAX_CITATION_ID_CHARS, Layout::Line),
        None => {
            gate.error(FieldError::new("memoryId", format!("memoryId is required: the mem_… id to {action}")));
            String::new()
        }
    }
}

/// The person's edits when accepting a proposal, parsed; validated once merged.
pub fn parse_accept_body(body: &[u8]) -> Result<AcceptProposalRequest, Vec<FieldError>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(AcceptProposalRequest::default());
    }
    parse_object(body)
}

/// The save an accepted proposal makes: the proposal's draft with the person's edits,
/// through the gate like any save.
pub fn merge_accept(draft: SaveMemoryRequest, edits: AcceptProposalRequest) -> Result<(ValidSave, ConfirmedVia), Refused> {
    let via = edits.confirmed_via.unwrap_or(ConfirmedVia::App);
    let merged = SaveMemoryRequest {
        content: edits.content.unwrap_or(draft.content),
        tags: edits.tags.or(draft.tags),
        contexts: edits.contexts.or(draft.contexts),
        confirmed_via: Some(via),
        scope: draft.scope,
    };
    validate_save(merged).map(|save| (save, via))
}

/// A search request that passed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidSearch {
    /// Trimmed query text.
    pub query: String,
    /// 1..=50.
    pub limit: u32,
    /// By words only, never by meaning (the person's setting "Search by words only").
    pub words_only: bool,
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
pub fn parse_save_body(body: &[u8]) -> Result<ValidSave, Refused> {
    validate_save(parse_object(body).map_err(Refused::Invalid)?)
}

/// The body of `POST /v1/memory/similar`: a sentence within the save limits, trimmed.
pub fn parse_similar_body(body: &[u8]) -> Result<FindSimilarRequest, Vec<FieldError>> {
    let request: FindSimilarRequest = parse_object(body)?;
    let mut errors = Vec::new();
    let content = crate::gate::within(&mut errors, "content", &request.content, MAX_CONTENT_CHARS);
    if errors.is_empty() {
        Ok(FindSimilarRequest { content, exclude_id: request.exclude_id.map(|id| id.trim().to_owned()) })
    } else {
        Err(errors)
    }
}

/// Validates an already-deserialized save request: every stored field through the gate.
pub fn validate_save(request: SaveMemoryRequest) -> Result<ValidSave, Refused> {
    let mut gate = Gate::new();
    let save = save_fields(&mut gate, request);
    gate.admit().map(|()| save)
}

/// A save's fields checked into `gate`: the content, each tag, each context's snippet
/// and citation ids. Past a count limit the elements are not checked: one detail says
/// "too many", instead of one per element of a huge list.
fn save_fields(gate: &mut Gate, request: SaveMemoryRequest) -> ValidSave {
    let content = gate.text("content", &request.content, MAX_CONTENT_CHARS, Layout::Prose);
    let tags = request.tags.map(|tags| gate.tags("tags", &tags));
    let inputs = request.contexts.unwrap_or_default();
    let contexts = if inputs.len() > MAX_CONTEXTS {
        gate.error(FieldError::new("contexts", format!("at most {MAX_CONTEXTS} contexts are allowed, got {}", inputs.len())));
        Vec::new()
    } else {
        inputs.into_iter().enumerate().map(|(i, c)| context_fields(gate, i, c)).collect()
    };
    ValidSave { content, tags, contexts, confirmed_via: request.confirmed_via, scope: request.scope.unwrap_or(Scope::User) }
}

fn context_fields(gate: &mut Gate, index: usize, input: ContextInput) -> ValidContext {
    let base = format!("contexts[{index}]");
    let snippet = gate.text(&format!("{base}.snippet"), &input.snippet, MAX_SNIPPET_CHARS, Layout::Prose);
    let mut id = |name: &str, value: Option<String>| {
        value.map(|v| gate.text(&format!("{base}.{name}"), &v, MAX_CITATION_ID_CHARS, Layout::Line))
    };
    let conversation_id = id("conversationId", input.conversation_id);
    let message_id = id("messageId", input.message_id);
    let citation = (conversation_id.is_some() || message_id.is_some()).then_some(Citation { conversation_id, message_id });
    ValidContext { snippet, citation, origin: input.origin }
}


/// Validates `GET /v1/memory/search` parameters (raw query-string values).
pub fn parse_search(q: Option<&str>, limit: Option<&str>, words_only: Option<&str>) -> Result<ValidSearch, Vec<FieldError>> {
    let mut errors = Vec::new();
    let query = match q {
        None => {
            errors.push(FieldError::new("q", "q is required: pass the words to search for"));
            String::new()
        }
        Some(q) => crate::gate::within(&mut errors, "q", q, MAX_QUERY_CHARS),
    };
    let limit = parse_limit(&mut errors, limit, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
    let words_only = parse_flag(&mut errors, "wordsOnly", words_only);
    if errors.is_empty() {
        Ok(ValidSearch { query, limit, words_only })
    } else {
        Err(errors)
    }
}

/// The `scope` of a list or search: `mine`, `team` or `all` (the default when absent).
pub fn parse_scope(scope: Option<&str>) -> Result<crate::teams::BankScope, Vec<FieldError>> {
    match scope {
        None => Ok(crate::teams::BankScope::default()),
        Some(text) => crate::teams::BankScope::parse(text).ok_or_else(|| {
            vec![FieldError::new("scope", "scope is mine (your own memories), team (your org's) or all (both, the default)")]
        }),
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
    let id = crate::gate::within(&mut errors, "conversationId", conversation_id.unwrap_or(""), MAX_CITATION_ID_CHARS);
    if errors.is_empty() {
        Ok((id, limit))
    } else {
        Err(errors)
    }
}

/// Validates `POST /v1/memory`'s query: `similar=true` asks for the duplicate hint in the
/// answer. It costs about a search, so a save computes it only for a door that shows it.
pub fn parse_save_params(similar: Option<&str>) -> Result<bool, Vec<FieldError>> {
    let mut errors = Vec::new();
    let similar = parse_flag(&mut errors, "similar", similar);
    if errors.is_empty() {
        Ok(similar)
    } else {
        Err(errors)
    }
}

/// A `true`/`false` query parameter, `false` when absent.
fn parse_flag(errors: &mut Vec<FieldError>, name: &str, raw: Option<&str>) -> bool {
    match raw.map(str::trim) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            errors.push(FieldError::new(name, format!("{name} must be true or false, got {other:?}")));
            false
        }
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

    fn invalid(result: Result<ValidSave, Refused>) -> Vec<FieldError> {
        match result {
            Err(Refused::Invalid(details)) => details,
            other => panic!("expected invalid_request, got {other:?}"),
        }
    }

    fn paths(result: Result<ValidSave, Refused>) -> Vec<String> {
        invalid(result).into_iter().map(|e| e.path).collect()
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
        assert!(parse_search(Some("x"), Some("51"), None).is_err());
        assert!(parse_search(Some("x"), Some("0"), None).is_err());
        assert!(parse_search(Some("x"), Some("1.5"), None).is_err());
        assert!(parse_search(Some("x"), Some("+5"), None).is_err());
        assert_eq!(parse_search(Some(" x "), None, None).unwrap(), ValidSearch { query: "x".into(), limit: 20, words_only: false });
        assert!(parse_search(Some("x"), None, Some("true")).unwrap().words_only);
        assert_eq!(parse_search(Some("x"), None, Some("yes")).unwrap_err()[0].path, "wordsOnly");
        assert_eq!((parse_save_params(None), parse_save_params(Some("false")), parse_save_params(Some(" true"))), (Ok(false), Ok(false), Ok(true)));
        assert_eq!(parse_save_params(Some("1")).unwrap_err()[0].path, "similar");
        assert_eq!(parse_list(Some("100"), None).unwrap().limit, 100);
        assert!(parse_list(Some("101"), None).is_err());
    }

    #[test]
    fn too_many_tags_or_contexts_is_one_detail_not_one_per_element() {
        let tags = vec!["\"\""; 40_000].join(",");
        let body = format!(r#"{{"content":"x","tags":[{tags}]}}"#);
        let errors = invalid(parse_save_body(body.as_bytes()));
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
        let errors = invalid(parse_save_body(body.as_bytes()));
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

    #[test]
    fn every_stored_field_of_a_save_passes_the_secret_check() {
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let request = SaveMemoryRequest {
            content: "plain words".into(),
            tags: Some(vec!["ok".into(), token.into()]),
            contexts: Some(vec![ContextInput {
                snippet: "fine".into(),
                conversation_id: Some(format!("sess-{token}")),
                message_id: Some("AKIAIOSFODNN7EXAMPLE".into()),
                origin: None,
            }]),
            confirmed_via: None,
            scope: None,
        };
        let Err(Refused::LooksLikeSecret(found)) = validate_save(request) else { panic!("secrets in a tag and citation ids") };
        let found: Vec<(String, &str)> = found.into_iter().map(|f| (f.path, f.kind)).collect();
        assert_eq!(
            found,
            [
                ("tags[1]".to_owned(), "GitHub token"),
                ("contexts[0].conversationId".to_owned(), "GitHub token"),
                ("contexts[0].messageId".to_owned(), "AWS access key"),
            ]
        );
        assert!(validate_save(SaveMemoryRequest { content: "Ada prefers tea".into(), ..Default::default() }).is_ok());
    }

    #[test]
    fn the_person_s_edits_on_accept_pass_the_gate() {
        let draft = SaveMemoryRequest { content: "harmless".into(), ..Default::default() };
        let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA";
        for edits in [
            AcceptProposalRequest { content: Some(key.into()), ..Default::default() },
            AcceptProposalRequest { tags: Some(vec!["AKIAQWERTYUIOPASDFGH".into()]), ..Default::default() },
            AcceptProposalRequest {
                contexts: Some(vec![ContextInput { snippet: format!("token ghp_{}", "a1B2".repeat(9)), ..Default::default() }]),
                ..Default::default()
            },
        ] {
            assert!(matches!(merge_accept(draft.clone(), edits.clone()), Err(Refused::LooksLikeSecret(_))), "{edits:?}");
        }
    }

    #[test]
    fn control_characters_are_refused_in_every_stored_field_but_newlines_and_tabs_in_prose() {
        let ok = validate_save(SaveMemoryRequest {
            content: "line one\n\tline two".into(),
            contexts: Some(vec![ContextInput { snippet: "a\nquoted\tmessage".into(), ..Default::default() }]),
            ..Default::default()
        });
        assert_eq!(ok.unwrap().content, "line one\n\tline two");
        let cases = [
            (SaveMemoryRequest { content: "nul\0inside".into(), ..Default::default() }, "content"),
            (SaveMemoryRequest { content: "x".into(), tags: Some(vec!["two\nlines".into()]), ..Default::default() }, "tags[0]"),
            (
                SaveMemoryRequest {
                    content: "x".into(),
                    contexts: Some(vec![ContextInput { snippet: "bell\u{7}".into(), ..Default::default() }]),
                    ..Default::default()
                },
                "contexts[0].snippet",
            ),
            (
                SaveMemoryRequest {
                    content: "x".into(),
                    contexts: Some(vec![ContextInput {
                        snippet: "s".into(),
                        message_id: Some("m\u{1b}1".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                },
                "contexts[0].messageId",
            ),
        ];
        for (request, path) in cases {
            assert_eq!(paths(validate_save(request)), [path]);
        }
        let proposal = validate_propose(ProposeRequest {
            content: Some("fine".into()),
            proposed_by: Some("evil\u{1b}[2Jclient".into()),
            ..Default::default()
        });
        assert!(matches!(proposal, Err(Refused::Invalid(ref d)) if d[0].path == "proposedBy"), "{proposal:?}");
    }
}
