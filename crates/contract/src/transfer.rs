//! Export and import: `GET /v1/export` writes one JSON line per memory
//! ([`ExportedMemory`]: the memory with its contexts and revisions), and `POST
//! /v1/import` reads such lines back, keeping ids, text and timestamps.
//!
//! An import confirms nothing: a file can say anything, so what a line claims about
//! how a memory was confirmed (`confirmedVia`, `proposedBy`) is stored as the file's
//! claim ([`ImportedFrom`]) and the memory says `confirmedVia: "import"`. A first
//! import of an export therefore changes exactly that; an export of imported memories
//! imports into an empty bank byte for byte the same (the `claims` module).
//!
//! Every line is checked before anything is imported ([`parse_import_line`]): the save
//! limits, the secret check, its ids (each once), its timestamps (see [`times`]). A bad
//! line is reported by its number and the good ones are imported all the same.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use std::collections::HashMap;

use crate::edit::Revision;
use crate::ids::{self, CONTEXT_PREFIX, MEMORY_PREFIX, REVISION_PREFIX};
use crate::limits::{MAX_CITATION_ID_CHARS, MAX_CONTENT_CHARS, MAX_CONTEXTS, MAX_SNIPPET_CHARS};
use crate::gate::{Gate, Layout, Refused};
use crate::wire::{Citation, ConfirmedVia, ImportedFrom, Memory, MemoryContext, Origin};
use crate::{FieldError, Timestamp};

mod claims;
pub mod times;

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
    pub revisions: Vec<ExportedRevision>,
    /// How the person confirmed it (`import` for an imported memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
    /// The MCP client that proposed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_by: Option<String>,
    /// An imported memory's claim from its import file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<ImportedFrom>,
    /// A team memory's author (an org's export only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved_by: Option<String>,
    /// A team memory's confirmer (an org's export only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_by: Option<String>,
}

/// An org export's line for one line of its audit log, after its memories' lines
/// (`GET /v1/orgs/{id}/export`): `{"audit": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ExportedAuditLine {
    /// The log line, ids and lengths only.
    pub audit: crate::teams::AuditEntry,
}

/// An earlier version in an export line: the revision, and for an imported one what
/// its import file claimed about how it had been confirmed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportedRevision {
    /// The version as `GET /v1/memory/{id}/revisions` shows it.
    #[serde(flatten)]
    pub revision: Revision,
    /// An imported version's claim from its import file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<ImportedFrom>,
}

impl ExportedMemory {
    /// A memory and its revisions as one export line.
    pub fn new(memory: Memory, revisions: Vec<ExportedRevision>) -> ExportedMemory {
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
            imported_from: memory.imported_from,
            saved_by: memory.saved_by,
            confirmed_by: memory.confirmed_by,
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
    /// `invalid_request` or `looks_like_secret` (the line itself), `quota_exceeded`
    /// (the person's memory cap was reached before this line).
    pub error: String,
    /// What is wrong and what to do.
    pub message: String,
}

/// Response of `POST /v1/import`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Lines imported as new memories (under a new id for those in `newIds`).
    pub imported: u64,
    /// Lines whose id the caller already had, left as they were.
    pub skipped: u64,
    /// Lines whose id the caller already had, replaced.
    pub overwritten: u64,
    /// Lines not imported, each with its reason (at most [`MAX_REPORTED_LINES`]).
    pub failed: Vec<ImportLineError>,
    /// How many lines were not imported in all.
    pub failed_count: u64,
    /// Lines imported under a new memory id, because the service could not give them
    /// theirs (at most [`MAX_REPORTED_LINES`]).
    pub new_ids: Vec<ImportNewId>,
    /// How many lines were imported under a new memory id in all.
    pub new_id_count: u64,
}

/// A line imported under a memory id other than its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportNewId {
    /// Line number in the file, from 1.
    pub line: usize,
    /// The memory's id in the bank.
    pub id: String,
}

/// Most lines a report lists one by one, of those that failed and of those under new ids.
pub const MAX_REPORTED_LINES: usize = 100;

impl ImportReport {
    /// Records a line that was not imported.
    pub fn fail(&mut self, error: ImportLineError) {
        self.failed_count += 1;
        if self.failed.len() < MAX_REPORTED_LINES {
            self.failed.push(error);
        }
    }

    /// Records a line imported under a new memory id.
    pub fn new_id(&mut self, new_id: ImportNewId) {
        self.new_id_count += 1;
        if self.new_ids.len() < MAX_REPORTED_LINES {
            self.new_ids.push(new_id);
        }
    }

    /// Adds `part`, the report of lines `offset + 1…` of the same file.
    pub fn add(&mut self, part: ImportReport, offset: usize) {
        self.imported += part.imported;
        self.skipped += part.skipped;
        self.overwritten += part.overwritten;
        self.failed_count += part.failed_count - part.failed.len() as u64;
        for mut failure in part.failed {
            failure.line += offset;
            self.fail(failure);
        }
        self.new_id_count += part.new_id_count - part.new_ids.len() as u64;
        for mut new_id in part.new_ids {
            new_id.line += offset;
            self.new_id(new_id);
        }
    }
}

/// A line that passed the gate: the memory as it will be stored.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ValidImport {
    /// Its line number.
    pub line: usize,
    /// The memory (trimmed text; ids and timestamps as given; `confirmedVia: "import"`
    /// and the file's claim in `importedFrom`).
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
    #[serde(default)]
    imported_from: Option<ImportedFrom>,
    // A team memory's authorship, from an org's export: read so such a line imports,
    // not kept (an import fills the importer's own bank, where nobody else saves).
    #[serde(default, rename = "savedBy")]
    _saved_by: Option<String>,
    #[serde(default, rename = "confirmedBy")]
    _confirmed_by: Option<String>,
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
    #[serde(default)]
    imported_from: Option<ImportedFrom>,
}

/// Checks line `number` of an import file, read at `now` (timestamps may be at most a
/// day ahead of it, see [`times`]). `Ok(None)` for a blank line. A UTF-8 byte-order
/// mark at the start of the line (as some editors write one at the start of a file)
/// is not part of it.
pub fn parse_import_line(number: usize, text: &str, now: Timestamp) -> Result<Option<ValidImport>, ImportLineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(None);
    }
    let fail = |error: &str, message: String| ImportLineError { line: number, error: error.into(), message };
    let line = read_line(text).map_err(|message| fail("invalid_request", message))?;
    // Every stored text through the gate (limits, characters, secrets), as for a save;
    // the shape of the line (ids, times, repeats) into `errors`, reported with it.
    let mut gate = Gate::new();
    let mut errors: Vec<FieldError> = Vec::new();
    let check_id = |errors: &mut Vec<FieldError>, path: &str, prefix: &str, id: &str| {
        if !ids::is_valid(prefix, id) {
            errors.push(FieldError::new(path, format!("{path} must be a {prefix}_… id, got {id:?}")));
        }
    };
    check_id(&mut errors, "id", MEMORY_PREFIX, &line.id);
    let content = gate.text("content", &line.content, MAX_CONTENT_CHARS, Layout::Prose);
    let tags = line.tags.map(|tags| gate.tags("tags", &tags));
    let updated_at = line.updated_at.unwrap_or(line.created_at);
    times::check_memory(&mut errors, line.created_at, updated_at, now);
    if line.contexts.len() > MAX_CONTEXTS {
        errors.push(FieldError::new(
            "contexts",
            format!("at most {MAX_CONTEXTS} contexts are allowed, got {}", line.contexts.len()),
        ));
    }
    let mut contexts = Vec::new();
    let mut seen = HashMap::new();
    for (i, c) in line.contexts.into_iter().take(MAX_CONTEXTS).enumerate() {
        let base = format!("contexts[{i}]");
        check_id(&mut errors, &format!("{base}.id"), CONTEXT_PREFIX, &c.id);
        check_once(&mut errors, &mut seen, "contexts", i, &c.id);
        let snippet = gate.text(&format!("{base}.snippet"), &c.snippet, MAX_SNIPPET_CHARS, Layout::Prose);
        let citation = c.citation.map(|cited| Citation {
            conversation_id: cited
                .conversation_id
                .map(|v| gate.text(&format!("{base}.citation.conversationId"), &v, MAX_CITATION_ID_CHARS, Layout::Line)),
            message_id: cited
                .message_id
                .map(|v| gate.text(&format!("{base}.citation.messageId"), &v, MAX_CITATION_ID_CHARS, Layout::Line)),
        });
        times::check_context(&mut errors, &base, c.created_at, now);
        contexts.push(MemoryContext { id: c.id, snippet, citation, origin: c.origin, created_at: c.created_at });
    }
    if line.revisions.len() > MAX_IMPORT_REVISIONS {
        errors.push(FieldError::new("revisions", format!("at most {MAX_IMPORT_REVISIONS} revisions are allowed")));
    }
    let mut revisions = Vec::new();
    let mut seen = HashMap::new();
    for (i, r) in line.revisions.into_iter().take(MAX_IMPORT_REVISIONS).enumerate() {
        let base = format!("revisions[{i}]");
        check_id(&mut errors, &format!("{base}.id"), REVISION_PREFIX, &r.id);
        check_once(&mut errors, &mut seen, "revisions", i, &r.id);
        if r.memory_id != line.id {
            errors.push(FieldError::new(format!("{base}.memoryId"), "a revision must name the memory of its line"));
        }
        let content = gate.text(&format!("{base}.content"), &r.content, MAX_CONTENT_CHARS, Layout::Prose);
        let tags = r.tags.map(|tags| gate.tags(&format!("{base}.tags"), &tags));
        times::check_revision(&mut errors, &base, (r.created_at, r.replaced_at), (line.created_at, updated_at));
        let (confirmed_via, imported_from) = claims::as_imported(&mut gate, &base, r.confirmed_via, None, r.imported_from);
        revisions.push(ExportedRevision {
            revision: Revision {
                id: r.id,
                memory_id: r.memory_id,
                content,
                tags,
                created_at: r.created_at,
                replaced_at: r.replaced_at,
                confirmed_via,
            },
            imported_from,
        });
    }
    let (confirmed_via, imported_from) =
        claims::as_imported(&mut gate, "", line.confirmed_via, line.proposed_by, line.imported_from);
    gate.errors(errors);
    match gate.admit() {
        Ok(()) => {}
        Err(Refused::Invalid(details)) => {
            let more = if details.len() > 1 { format!(" (and {} more problems)", details.len() - 1) } else { String::new() };
            let first = details.first().map(|d| d.message.as_str()).unwrap_or("the line is not a memory");
            return Err(fail("invalid_request", format!("{first}{more}")));
        }
        Err(Refused::LooksLikeSecret(found)) => {
            return Err(fail(
                "looks_like_secret",
                format!("this looks like a secret ({}); remove it from the file", crate::secrets::describe(&found)),
            ));
        }
    }
    let memory = ExportedMemory {
        id: line.id,
        content,
        tags,
        created_at: line.created_at,
        updated_at,
        contexts,
        revisions,
        confirmed_via,
        proposed_by: None,
        imported_from,
        saved_by: None,
        confirmed_by: None,
    };
    Ok(Some(ValidImport { line: number, memory }))
}

/// The line as JSON, or what is wrong with it: the field's path and the problem (a
/// timestamp says which format it wants, see [`Timestamp`]'s parser).
fn read_line(text: &str) -> Result<Line, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a memory line: this is not JSON ({e})"))?;
    if !value.is_object() {
        return Err("not a memory line: each line is one JSON object, as `memory export` writes".into());
    }
    if value.get("audit").is_some() {
        return Err("an org's audit line, not a memory: the log stays with its org; nothing to import".into());
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let problem = err.inner().to_string();
        if path == "." {
            format!("not a memory line: {problem}")
        } else {
            format!("{path}: {problem}")
        }
    })
}

/// Refuses an id met before in the same list (`contexts` or `revisions`): each row is
/// stored under its own id, so a repeat would be a second row with the first's key.
fn check_once(errors: &mut Vec<FieldError>, seen: &mut HashMap<String, usize>, list: &str, i: usize, id: &str) {
    if let Some(first) = seen.get(id) {
        errors.push(FieldError::new(
            format!("{list}[{i}].id"),
            format!("{list}[{i}].id repeats {list}[{first}].id ({id}); give each one its own id, or remove the repeat"),
        ));
    } else {
        seen.insert(id.to_owned(), i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"id":"mem_01jdq00000000000000000001a","content":" Tea, not coffee ","tags":["drinks"],"createdAt":"2026-11-01T10:00:00.000Z","updatedAt":"2026-11-02T10:00:00.000Z","contexts":[{"id":"mctx_01jdq00000000000000000001a","snippet":"I drink tea","citation":{"messageId":"m1"},"origin":null,"createdAt":"2026-11-01T10:00:00.000Z"}],"revisions":[{"id":"mrev_01jdq00000000000000000001a","memoryId":"mem_01jdq00000000000000000001a","content":"Tea","tags":null,"createdAt":"2026-11-01T10:00:00.000Z","replacedAt":"2026-11-02T10:00:00.000Z"}]}"#;

    /// Parses as the service does, at a fixed "now" (2026-12-03T12:00:00Z).
    fn parse(number: usize, text: &str) -> Result<Option<ValidImport>, ImportLineError> {
        parse_import_line(number, text, Timestamp::from_unix_ms(1_796_299_200_000))
    }

    #[test]
    fn an_import_confirms_nothing_and_keeps_the_lines_claim_as_imported_from() {
        let mut forged: serde_json::Value = serde_json::from_str(GOOD).unwrap();
        forged["confirmedVia"] = "elicitation".into();
        forged["proposedBy"] = "claude-code".into();
        forged["revisions"][0]["confirmedVia"] = "app".into();
        let imported = parse(1, &forged.to_string()).unwrap().unwrap().memory;
        assert_eq!((imported.confirmed_via, imported.proposed_by.as_deref()), (Some(ConfirmedVia::Import), None));
        let claim = ImportedFrom { confirmed_via: Some(ConfirmedVia::Elicitation), proposed_by: Some("claude-code".into()) };
        assert_eq!(imported.imported_from, Some(claim));
        let revision = &imported.revisions[0];
        assert_eq!(revision.revision.confirmed_via, Some(ConfirmedVia::Import));
        assert_eq!(revision.imported_from, Some(ImportedFrom { confirmed_via: Some(ConfirmedVia::App), proposed_by: None }));
        // Its export imports as it is: the claim stays a claim, nothing else moves.
        let exported = serde_json::to_string(&imported).unwrap();
        assert!(exported.contains(r#""confirmedVia":"import","importedFrom":{"confirmedVia":"elicitation","proposedBy":"claude-code"}"#), "{exported}");
        let again = parse(1, &exported).unwrap().unwrap().memory;
        assert_eq!(serde_json::to_string(&again).unwrap(), exported);
        // A line that claims nothing is imported, with no claim.
        let plain = parse(1, GOOD).unwrap().unwrap().memory;
        assert_eq!((plain.confirmed_via, plain.imported_from), (Some(ConfirmedVia::Import), None));
        assert_eq!(plain.revisions[0].imported_from, None);
        // An earlier import's claim beside a claim of its own is two stories: refused.
        let mut both: serde_json::Value = serde_json::from_str(&exported).unwrap();
        both["proposedBy"] = "codex".into();
        let error = refused(&both.to_string());
        assert!(error.message.contains("importedFrom is what an earlier import kept") && error.message.contains("keep one"), "{error:?}");
    }

    fn refused(text: &str) -> ImportLineError {
        parse(2, text).expect_err(text)
    }

    #[test]
    fn a_line_repeating_a_context_or_revision_id_is_refused_naming_both() {
        let line: serde_json::Value = serde_json::from_str(GOOD).unwrap();
        let mut two_contexts = line.clone();
        let context = two_contexts["contexts"][0].clone();
        two_contexts["contexts"].as_array_mut().unwrap().push(context);
        let mut two_revisions = line.clone();
        let revision = two_revisions["revisions"][0].clone();
        two_revisions["revisions"].as_array_mut().unwrap().push(revision);
        for (text, says) in [
            (two_contexts.to_string(), "contexts[1].id repeats contexts[0].id (mctx_01jdq00000000000000000001a)"),
            (two_revisions.to_string(), "revisions[1].id repeats revisions[0].id (mrev_01jdq00000000000000000001a)"),
        ] {
            let error = refused(&text);
            assert_eq!((error.line, error.error.as_str()), (2, "invalid_request"));
            assert!(error.message.contains(says), "{says:?} not in {:?}", error.message);
        }
    }

    #[test]
    fn timestamps_out_of_order_or_in_the_future_are_refused_with_the_rule() {
        let cases = [
            (GOOD.replace("\"createdAt\":\"2026-11-01T10:00:00.000Z\",\"updatedAt\"", "\"createdAt\":\"9999-01-01T00:00:00.000Z\",\"updatedAt\""), "createdAt is in the future"),
            (GOOD.replace("\"updatedAt\":\"2026-11-02T10:00:00.000Z\"", "\"updatedAt\":\"2026-10-01T10:00:00.000Z\""), "updatedAt is before createdAt"),
            (GOOD.replace("\"updatedAt\":\"2026-11-02T10:00:00.000Z\"", "\"updatedAt\":\"2027-11-02T10:00:00.000Z\""), "updatedAt is in the future"),
            (GOOD.replace("\"createdAt\":\"2026-11-01T10:00:00.000Z\",\"updatedAt\"", "\"createdAt\":\"1969-12-31T23:00:00.000Z\",\"updatedAt\""), "createdAt is before 1970"),
            (GOOD.replace("\"origin\":null,\"createdAt\":\"2026-11-01T10:00:00.000Z\"", "\"origin\":null,\"createdAt\":\"9999-11-01T10:00:00.000Z\""), "contexts[0].createdAt is in the future"),
            (GOOD.replace("\"replacedAt\":\"2026-11-02T10:00:00.000Z\"", "\"replacedAt\":\"2026-10-31T10:00:00.000Z\""), "revisions[0].replacedAt is before its createdAt"),
            (GOOD.replace("\"tags\":null,\"createdAt\":\"2026-11-01T10:00:00.000Z\"", "\"tags\":null,\"createdAt\":\"2026-10-01T10:00:00.000Z\""), "revisions[0].createdAt is before the memory's createdAt"),
            (GOOD.replace("\"replacedAt\":\"2026-11-02T10:00:00.000Z\"", "\"replacedAt\":\"2026-11-03T10:00:00.000Z\""), "revisions[0].replacedAt is after the memory's updatedAt"),
        ];
        for (text, says) in cases {
            let error = refused(&text);
            assert_eq!(error.error, "invalid_request", "{text}");
            assert!(error.message.contains(says), "{says:?} not in {:?}", error.message);
        }
        // Up to a day ahead is a clock a little fast, not an error.
        let soon = GOOD.replace("2026-11-02T10:00:00.000Z\",\"contexts", "2026-12-03T20:00:00.000Z\",\"contexts").replace("\"replacedAt\":\"2026-11-02T10:00:00.000Z\"", "\"replacedAt\":\"2026-12-03T20:00:00.000Z\"");
        assert!(parse(1, &soon).unwrap().is_some());
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_line() {
        let line = parse(1, &format!("\u{feff}{GOOD}")).unwrap().unwrap();
        assert_eq!(line.memory.id, "mem_01jdq00000000000000000001a");
        assert_eq!(parse(1, "\u{feff}").unwrap(), None);
    }

    #[test]
    fn a_bad_timestamp_says_which_field_what_is_wrong_and_the_format_wanted() {
        for (from, to, path) in [
            ("\"createdAt\":\"2026-11-01T10:00:00.000Z\",\"updatedAt\"", "\"createdAt\":\"2026-11-01\",\"updatedAt\"", "createdAt"),
            ("\"replacedAt\":\"2026-11-02T10:00:00.000Z\"", "\"replacedAt\":\"yesterday\"", "revisions[0].replacedAt"),
        ] {
            let error = refused(&GOOD.replace(from, to));
            assert_eq!(error.error, "invalid_request");
            assert!(error.message.starts_with(&format!("{path}: ")), "{:?}", error.message);
            assert!(error.message.contains("is not a date and time") && error.message.contains("e.g. 2026-11-29T22:25:11.123Z"), "{:?}", error.message);
            assert!(!error.message.contains("premature"), "{:?}", error.message);
        }
    }

    #[test]
    fn reports_of_slices_add_up_with_line_numbers_over_the_whole_file() {
        let failed = |line| ImportLineError { line, error: "invalid_request".into(), message: "x".into() };
        let mut total = ImportReport::default();
        let mut first = ImportReport { imported: 2, ..Default::default() };
        first.fail(failed(3));
        first.new_id(ImportNewId { line: 1, id: "mem_a".into() });
        total.add(first, 0);
        let mut second = ImportReport { imported: 1, skipped: 1, ..Default::default() };
        second.fail(failed(2));
        second.new_id(ImportNewId { line: 4, id: "mem_b".into() });
        second.new_id_count += 5; // five more than it lists
        total.add(second, 2000);
        assert_eq!((total.imported, total.skipped, total.failed_count, total.new_id_count), (3, 1, 2, 7));
        assert_eq!(total.failed.iter().map(|f| f.line).collect::<Vec<_>>(), [3, 2002]);
        assert_eq!(total.new_ids.iter().map(|n| (n.line, n.id.as_str())).collect::<Vec<_>>(), [(1, "mem_a"), (2004, "mem_b")]);
    }

    #[test]
    fn a_good_line_keeps_ids_and_timestamps_and_is_trimmed() {
        let line = parse(7, GOOD).unwrap().unwrap();
        assert_eq!(line.line, 7);
        assert_eq!(line.memory.id, "mem_01jdq00000000000000000001a");
        assert_eq!(line.memory.content, "Tea, not coffee");
        assert_eq!(line.memory.updated_at.to_rfc3339(), "2026-11-02T10:00:00.000Z");
        assert_eq!(line.memory.contexts[0].citation.as_ref().unwrap().message_id.as_deref(), Some("m1"));
        assert_eq!(line.memory.revisions[0].revision.content, "Tea");
        assert_eq!(parse(8, "   ").unwrap(), None);
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
            // The gate a save passes, on every text of the line: characters, and secrets
            // hidden by format characters, in revisions, citations and the file's claim.
            (&GOOD.replace("Tea, not coffee", "Tea\\u0000, not coffee"), "invalid_request", "U+0000 (NUL)"),
            (&GOOD.replace("\"drinks\"", "\"two\\nlines\""), "invalid_request", "one line"),
            (&GOOD.replace("\"content\":\"Tea\"", "\"content\":\"old key AKIAQWERTY\u{200b}UIOPASDFGH\""), "looks_like_secret", "revisions[0].content"),
            (&GOOD.replace("\"messageId\":\"m1\"", "\"messageId\":\"AKIAQWERTYUIOPASDFGH\""), "looks_like_secret", "contexts[0].citation.messageId"),
            (
                &GOOD.replace("\"tags\":[\"drinks\"]", &format!("\"tags\":[\"drinks\"],\"proposedBy\":\"ghp_{}\"", "a1B2".repeat(9))),
                "looks_like_secret",
                "proposedBy",
            ),
        ];
        for (text, error, says) in cases {
            let refused = parse(3, text).unwrap_err();
            assert_eq!((refused.line, refused.error.as_str()), (3, error), "{text}");
            assert!(refused.message.contains(says), "{says:?} not in {:?}", refused.message);
        }
    }
}
