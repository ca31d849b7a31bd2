//! Export and import that round-trip: `GET /v1/export` writes one JSON line per memory
//! ([`ExportedMemory`]: the memory with its contexts and revisions), and `POST
//! /v1/import` reads the same lines back, keeping ids and timestamps, so an export
//! imported into an empty bank exports byte for byte the same.
//!
//! Every line is checked with the save limits and the secret check before anything is
//! imported ([`parse_import_line`]); a bad line is reported by its number and the good
//! ones are imported all the same.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::edit::Revision;
use crate::ids::{self, CONTEXT_PREFIX, MEMORY_PREFIX, REVISION_PREFIX};
use crate::limits::{MAX_CITATION_ID_CHARS, MAX_CONTENT_CHARS, MAX_CONTEXTS, MAX_SNIPPET_CHARS, MAX_TAGS, MAX_TAG_CHARS};
use crate::validate::check_text;
use crate::wire::{Citation, ConfirmedVia, Memory, MemoryContext, Origin};
use crate::{FieldError, Timestamp};

/// Most bytes `POST /v1/import` reads (about 100 000 typical memories).
pub const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;

/// Most revisions one imported memory may carry.
pub const MAX_IMPORT_REVISIONS: usize = 1000;

/// One line of an export: a memory, what it cites, and its earlier versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportedMemory {
    /// `mem_…`
    pub id: String,
    /// The sentence.
    pub content: String,
    /// Its tags, or null.
    pub tags: Option<Vec<String>>,
    /// When it was saved.
    pub created_at: Timestamp,
    /// When it was last edited (its `createdAt` if never).
    pub updated_at: Timestamp,
    /// What it cites.
    pub contexts: Vec<MemoryContext>,
    /// Earlier versions, most recently replaced first.
    pub revisions: Vec<Revision>,
    /// How the person confirmed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
    /// The MCP client that proposed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_by: Option<String>,
}

impl ExportedMemory {
    /// A memory and its revisions as one export line.
    pub fn new(memory: Memory, revisions: Vec<Revision>) -> ExportedMemory {
        ExportedMemory {
            id: memory.id,
            content: memory.content,
            tags: memory.tags,
            created_at: memory.created_at,
            updated_at: memory.updated_at,
            contexts: memory.contexts,
            revisions,
            confirmed_via: memory.confirmed_via,
            proposed_by: memory.proposed_by,
        }
    }
}

/// What an import does with a line whose id the caller already has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnConflict {
    /// Keep the memory that is there (importing the same file twice changes nothing).
    #[default]
    Skip,
    /// Replace it, its contexts and revisions with the line's.
    Overwrite,
}

impl OnConflict {
    /// Reads `skip` or `overwrite`.
    pub fn parse(text: &str) -> Option<OnConflict> {
        match text {
            "skip" => Some(OnConflict::Skip),
            "overwrite" => Some(OnConflict::Overwrite),
            _ => None,
        }
    }
}

/// A line that could not be imported, by its number (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportLineError {
    /// Line number in the file, from 1.
    pub line: usize,
    /// `invalid_request`, `looks_like_secret`, `id_in_use`, `quota_exceeded`.
    pub error: String,
    /// What is wrong and what to do.
    pub message: String,
}

/// Response of `POST /v1/import`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Lines imported as new memories.
    pub imported: u64,
    /// Lines whose id the caller already had, left as they were.
    pub skipped: u64,
    /// Lines whose id the caller already had, replaced.
    pub overwritten: u64,
    /// Lines not imported, each with its reason (at most [`MAX_REPORTED_LINES`]).
    pub failed: Vec<ImportLineError>,
    /// How many lines were not imported in all.
    pub failed_count: u64,
}

/// Most bad lines a report lists one by one.
pub const MAX_REPORTED_LINES: usize = 100;

impl ImportReport {
    /// Records a line that was not imported.
    pub fn fail(&mut self, error: ImportLineError) {
        self.failed_count += 1;
        if self.failed.len() < MAX_REPORTED_LINES {
            self.failed.push(error);
        }
    }
}

/// A line that passed the checks: the memory as it will be stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidImport {
    /// Its line number.
    pub line: usize,
    /// The memory (trimmed text; ids and timestamps as given).
    pub memory: ExportedMemory,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Line {
    id: String,
    content: String,
    #[serde(default)]
    tags: Option<Vec<String>>,
    created_at: Timestamp,
    updated_at: Option<Timestamp>,
    #[serde(default)]
    contexts: Vec<LineContext>,
    #[serde(default)]
    revisions: Vec<LineRevision>,
    #[serde(default)]
    confirmed_via: Option<ConfirmedVia>,
    #[serde(default)]
    proposed_by: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LineContext {
    id: String,
    snippet: String,
    #[serde(default)]
    citation: Option<Citation>,
    #[serde(default)]
    origin: Option<Origin>,
    created_at: Timestamp,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LineRevision {
    id: String,
    memory_id: String,
    content: String,
    #[serde(default)]
    tags: Option<Vec<String>>,
    created_at: Timestamp,
    replaced_at: Timestamp,
    #[serde(default)]
    confirmed_via: Option<ConfirmedVia>,
}

/// Checks line `number` of an import file. `Ok(None)` for a blank line.
pub fn parse_import_line(number: usize, text: &str) -> Result<Option<ValidImport>, ImportLineError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let fail = |error: &str, message: String| ImportLineError { line: number, error: error.into(), message };
    let line: Line = serde_json::from_str(text).map_err(|e| fail("invalid_request", format!("not a memory line: {e}")))?;
    let mut errors: Vec<FieldError> = Vec::new();
    let check_id = |errors: &mut Vec<FieldError>, path: &str, prefix: &str, id: &str| {
        if !ids::is_valid(prefix, id) {
            errors.push(FieldError::new(path, format!("{path} must be a {prefix}_… id, got {id:?}")));
        }
    };
    check_id(&mut errors, "id", MEMORY_PREFIX, &line.id);
    let content = check_text(&mut errors, "content", &line.content, MAX_CONTENT_CHARS);
    let tags = checked_tags(&mut errors, "tags", line.tags);
    if line.contexts.len() > MAX_CONTEXTS {
        errors.push(FieldError::new(
            "contexts",
            format!("at most {MAX_CONTEXTS} contexts are allowed, got {}", line.contexts.len()),
        ));
    }
    let mut contexts = Vec::new();
    for (i, c) in line.contexts.into_iter().take(MAX_CONTEXTS).enumerate() {
        let base = format!("contexts[{i}]");
        check_id(&mut errors, &format!("{base}.id"), CONTEXT_PREFIX, &c.id);
        let snippet = check_text(&mut errors, &format!("{base}.snippet"), &c.snippet, MAX_SNIPPET_CHARS);
        let citation = c.citation.map(|cited| Citation {
            conversation_id: cited
                .conversation_id
                .map(|v| check_text(&mut errors, &format!("{base}.citation.conversationId"), &v, MAX_CITATION_ID_CHARS)),
            message_id: cited
                .message_id
                .map(|v| check_text(&mut errors, &format!("{base}.citation.messageId"), &v, MAX_CITATION_ID_CHARS)),
        });
        contexts.push(MemoryContext { id: c.id, snippet, citation, origin: c.origin, created_at: c.created_at });
    }
    if line.revisions.len() > MAX_IMPORT_REVISIONS {
        errors.push(FieldError::new("revisions", format!("at most {MAX_IMPORT_REVISIONS} revisions are allowed")));
    }
    let mut revisions = Vec::new();
    for (i, r) in line.revisions.into_iter().take(MAX_IMPORT_REVISIONS).enumerate() {
        let base = format!("revisions[{i}]");
        check_id(&mut errors, &format!("{base}.id"), REVISION_PREFIX, &r.id);
        if r.memory_id != line.id {
            errors.push(FieldError::new(format!("{base}.memoryId"), "a revision must name the memory of its line"));
        }
        let content = check_text(&mut errors, &format!("{base}.content"), &r.content, MAX_CONTENT_CHARS);
        let tags = checked_tags(&mut errors, &format!("{base}.tags"), r.tags);
        revisions.push(Revision {
            id: r.id,
            memory_id: r.memory_id,
            content,
            tags,
            created_at: r.created_at,
            replaced_at: r.replaced_at,
            confirmed_via: r.confirmed_via,
        });
    }
    let proposed_by = line.proposed_by.map(|p| check_text(&mut errors, "proposedBy", &p, MAX_CITATION_ID_CHARS));
    if let Some(first) = errors.first() {
        let more = if errors.len() > 1 { format!(" (and {} more problems)", errors.len() - 1) } else { String::new() };
        return Err(fail("invalid_request", format!("{}{more}", first.message)));
    }
    let memory = ExportedMemory {
        id: line.id,
        content,
        tags,
        created_at: line.created_at,
        updated_at: line.updated_at.unwrap_or(line.created_at),
        contexts,
        revisions,
        confirmed_via: line.confirmed_via,
        proposed_by,
    };
    let found = secrets_in(&memory);
    if !found.is_empty() {
        return Err(fail(
            "looks_like_secret",
            format!("this looks like a secret ({}); remove it from the file", crate::secrets::describe(&found)),
        ));
    }
    Ok(Some(ValidImport { line: number, memory }))
}

fn checked_tags(errors: &mut Vec<FieldError>, path: &str, tags: Option<Vec<String>>) -> Option<Vec<String>> {
    let tags = tags?;
    if tags.len() > MAX_TAGS {
        errors.push(FieldError::new(path, format!("at most {MAX_TAGS} tags are allowed, got {}", tags.len())));
        return None;
    }
    Some(tags.iter().enumerate().map(|(i, t)| check_text(errors, &format!("{path}[{i}]"), t, MAX_TAG_CHARS)).collect())
}

/// Every stored text of an imported memory that looks like a secret: the same fields
/// a save checks, plus the text of every revision.
fn secrets_in(memory: &ExportedMemory) -> Vec<crate::secrets::SecretFinding> {
    let mut fields: Vec<(String, &str)> = vec![("content".into(), memory.content.as_str())];
    for (i, tag) in memory.tags.iter().flatten().enumerate() {
        fields.push((format!("tags[{i}]"), tag));
    }
    for (i, c) in memory.contexts.iter().enumerate() {
        fields.push((format!("contexts[{i}].snippet"), &c.snippet));
        for id in c.citation.iter().flat_map(|c| [c.conversation_id.as_deref(), c.message_id.as_deref()]).flatten() {
            fields.push((format!("contexts[{i}].citation"), id));
        }
    }
    for (i, r) in memory.revisions.iter().enumerate() {
        fields.push((format!("revisions[{i}].content"), &r.content));
        for tag in r.tags.iter().flatten() {
            fields.push((format!("revisions[{i}].tags"), tag));
        }
    }
    crate::secrets::findings(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"id":"mem_01jdq00000000000000000001a","content":" Tea, not coffee ","tags":["drinks"],"createdAt":"2026-11-01T10:00:00.000Z","updatedAt":"2026-11-02T10:00:00.000Z","contexts":[{"id":"mctx_01jdq00000000000000000001a","snippet":"I drink tea","citation":{"messageId":"m1"},"origin":null,"createdAt":"2026-11-01T10:00:00.000Z"}],"revisions":[{"id":"mrev_01jdq00000000000000000001a","memoryId":"mem_01jdq00000000000000000001a","content":"Tea","tags":null,"createdAt":"2026-11-01T10:00:00.000Z","replacedAt":"2026-11-02T10:00:00.000Z"}]}"#;

    #[test]
    fn a_good_line_keeps_ids_and_timestamps_and_is_trimmed() {
        let line = parse_import_line(7, GOOD).unwrap().unwrap();
        assert_eq!(line.line, 7);
        assert_eq!(line.memory.id, "mem_01jdq00000000000000000001a");
        assert_eq!(line.memory.content, "Tea, not coffee");
        assert_eq!(line.memory.updated_at.to_rfc3339(), "2026-11-02T10:00:00.000Z");
        assert_eq!(line.memory.contexts[0].citation.as_ref().unwrap().message_id.as_deref(), Some("m1"));
        assert_eq!(line.memory.revisions[0].content, "Tea");
        assert_eq!(parse_import_line(8, "   ").unwrap(), None);
    }

    #[test]
    fn bad_lines_say_what_is_wrong_with_their_number() {
        let secret = GOOD.replace("Tea, not coffee", &format!("ghp_{}", "a1B2".repeat(9)));
        let cases = [
            ("not json", "invalid_request", "not a memory line"),
            (r#"{"content":"x","createdAt":"2026-11-01T10:00:00.000Z"}"#, "invalid_request", "missing field `id`"),
            (&GOOD.replace("mem_01jdq00000000000000000001a\",\"content", "mem_bad\",\"content"), "invalid_request", "mem_… id"),
            (&GOOD.replace(" Tea, not coffee ", " "), "invalid_request", "content is only whitespace"),
            (
                &GOOD.replace("\"tags\":[\"drinks\"]", "\"tags\":[\"drinks\"],\"scope\":\"org\""),
                "invalid_request",
                "unknown field `scope`",
            ),
            (&secret, "looks_like_secret", "secret"),
        ];
        for (text, error, says) in cases {
            let refused = parse_import_line(3, text).unwrap_err();
            assert_eq!((refused.line, refused.error.as_str()), (3, error), "{text}");
            assert!(refused.message.contains(says), "{says:?} not in {:?}", refused.message);
        }
    }
}
