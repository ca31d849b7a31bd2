//! Gemini CLI: `~/.gemini/tmp` (`$GEMINI_CLI_HOME` replaces the home directory).
//!
//! Units: `tmp/<project-id>/chats/session-*.jsonl` (JSON Lines, since v0.39) and the legacy
//! `session-*.json` (one pretty JSON document, rewritten on every change; skipped when the
//! CLI already converted it to a `.jsonl` next to it). Sub-agent files
//! `chats/<parentSessionId>/<sessionId>.jsonl` belong to their parent and are not units.
//!
//! JSONL records: the metadata line `{sessionId, projectHash, startTime, lastUpdated,
//! kind?, summary?}`; message records `{id, timestamp, type, content, displayContent?}`
//! (the same id is appended again when tokens or tool results arrive: the last record
//! wins at the position of the first); `{"$set":{…}}` metadata updates (`summary` is the
//! title, `lastUpdated` the activity time; a checkpoint `messages` list is not applied,
//! so the transcript keeps what was said); `{"$rewindTo": id}` deletes that message and
//! every later one.
//!
//! Only `user` and `gemini` records with text are messages: `info`/`error`/`warning` are UI
//! notices, a `user` record holding only `functionResponse` parts is a tool result, and
//! thoughts, `functionCall` parts and `toolCalls` are not text. For a user record the text
//! the person typed (`displayContent`, when present) is preferred over the expanded prompt.
//! The message id to cite is the record's own `id`.
//!
//! The workspace is not in the session file: it comes from `tmp/<slug>/.project_root` (when
//! it is a small file inside the folder, not a link out of it), else
//! `~/.gemini/projects.json` (`{projects: {<abs path>: slug}}`); a legacy `sha256(project
//! root)` folder is resolved by hashing the known project paths, else it stays unknown.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::jsonl;
use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::model::{Role, Source};
use crate::source::{Env, LineParser, LinePos, Problem, Root, SourceReader, Unit, UnitKind, WholeSession};

use super::lenient::{List, Obj, Parts, Scalar};

/// Reads Gemini sessions.
pub struct Gemini;

impl SourceReader for Gemini {
    fn source(&self) -> Source {
        Source::Gemini
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        env.path_or_home("GEMINI_CLI_HOME", &[])
            .map(|home| home.join(".gemini").join("tmp"))
            .into_iter()
            .collect()
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        // Accept `~/.gemini` as well as `~/.gemini/tmp`.
        let tmp = if root.file_name().is_some_and(|n| n != "tmp") && root.join("tmp").is_dir() {
            root.join("tmp")
        } else {
            root.to_path_buf()
        };
        let confined = Root::new(root);
        let mut projects: Vec<(String, PathBuf)> = confined
            .read_dir(&tmp, problems)
            .into_iter()
            .filter(|e| e.is_dir)
            .filter_map(|e| Some((e.name()?.to_string(), e.path)))
            .collect();
        if projects.is_empty() {
            return;
        }
        projects.sort();

        // Known project roots: `.project_root` markers, then the registry.
        let mut by_slug: HashMap<String, String> = HashMap::new();
        for (slug, dir) in &projects {
            if let Some(path) = read_marker(&confined, &dir.join(".project_root"), problems) {
                by_slug.insert(slug.clone(), path);
            }
        }
        let registry = tmp.parent().map(|p| p.join("projects.json"));
        let registry = registry.map(|p| read_registry(&p, problems)).unwrap_or_default();
        let mut by_hash: HashMap<String, String> = HashMap::new();
        for (path, slug) in &registry {
            by_slug.entry(slug.clone()).or_insert_with(|| path.clone());
        }
        for path in registry.keys().chain(by_slug.values()) {
            by_hash.insert(project_hash(path), path.clone());
        }

        for (slug, dir) in &projects {
            let workspace = by_slug
                .get(slug)
                .or_else(|| by_hash.get(&slug.to_ascii_lowercase()))
                .cloned();
            let chats = dir.join("chats");
            let mut found: Vec<Unit> = Vec::new();
            for entry in confined.read_dir(&chats, problems) {
                // Sub-agent folders (`chats/<parentSessionId>/`) belong to their parent;
                // anything else that is not a file is no session.
                if !entry.is_file {
                    continue;
                }
                let Some(name) = entry.name() else { continue };
                if !name.starts_with("session-") {
                    continue;
                }
                let kind = if name.ends_with(".jsonl") {
                    UnitKind::Jsonl
                } else if name.ends_with(".json") {
                    if chats.join(format!("{name}l")).exists() {
                        continue; // converted to JSONL on resume; that file has it all
                    }
                    UnitKind::Whole
                } else {
                    continue;
                };
                let mut unit = Unit::new(Source::Gemini, entry.path.clone(), kind);
                unit.workspace_hint = workspace.clone();
                found.push(unit);
            }
            found.sort_by(|a, b| a.path.cmp(&b.path));
            units.extend(found);
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        let bytes = std::fs::read(&unit.path)?;
        let doc: LegacyDoc = jsonl::parse_line_as(&bytes).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "not a Gemini session document")
        })?;
        let mut events = Vec::new();
        meta_events(
            doc.session_id,
            doc.start_time,
            doc.last_updated,
            doc.summary,
            doc.kind,
            &mut events,
        );
        let mut parser = Parser::default();
        for record in doc.messages.0 {
            if let Some(record) = record.0 {
                parser.record(record, &mut events);
            }
        }
        Ok(vec![WholeSession { key: String::new(), events }])
    }
}

/// The longest `.project_root` read: a path (even a Windows long path) is far shorter, and
/// a bigger file is not a marker.
const MAX_MARKER_BYTES: u64 = 64 << 10;

/// The workspace path a `.project_root` marker holds, if it is a file inside the root.
fn read_marker(root: &Root, path: &Path, problems: &mut Vec<Problem>) -> Option<String> {
    use std::io::Read;
    if !root.file(path, problems) {
        return None;
    }
    let mut text = String::new();
    let file = std::fs::File::open(path).ok()?;
    let read = file.take(MAX_MARKER_BYTES + 1).read_to_string(&mut text).ok()?;
    let text = text.trim();
    (!text.is_empty() && read as u64 <= MAX_MARKER_BYTES).then(|| text.to_string())
}

/// `projects.json` as `path → slug`. A missing file is empty; an unreadable one is a
/// problem; a malformed one (being rewritten) is empty.
fn read_registry(path: &Path, problems: &mut Vec<Problem>) -> HashMap<String, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return HashMap::new(),
        Err(e) => {
            problems.push(Problem { path: path.to_path_buf(), message: e.to_string() });
            return HashMap::new();
        }
    };
    let Some(value) = jsonl::parse_line(&bytes) else { return HashMap::new() };
    let Some(map) = value.get("projects").and_then(|p| p.as_object()) else { return HashMap::new() };
    map.iter()
        .filter_map(|(path, slug)| Some((path.clone(), slug.as_str()?.to_string())))
        .collect()
}

/// Gemini's legacy project id: the hex SHA-256 of the project root path.
fn project_hash(path: &str) -> String {
    let digest = Sha256::digest(path.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------------------
// Record shapes (every field lenient; everything else, such as `toolCalls`, `thoughts` and
// a `$set.messages` checkpoint, is skipped without being built).

#[derive(Deserialize, Default)]
#[serde(default)]
struct Record {
    // Message records.
    id: Scalar,
    timestamp: Scalar,
    #[serde(rename = "type")]
    ty: Scalar,
    content: Parts,
    #[serde(rename = "displayContent")]
    display_content: Parts,
    // The metadata line.
    #[serde(rename = "sessionId")]
    session_id: Scalar,
    #[serde(rename = "startTime")]
    start_time: Scalar,
    #[serde(rename = "lastUpdated")]
    last_updated: Scalar,
    summary: Scalar,
    kind: Scalar,
    // Updates.
    #[serde(rename = "$set")]
    set: Obj<SetRecord>,
    #[serde(rename = "$rewindTo")]
    rewind_to: Scalar,
    /// A `gemini` record's tool calls.
    #[serde(rename = "toolCalls")]
    tool_calls: List<ToolCallRecord>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCallRecord {
    id: Scalar,
    name: Scalar,
    #[serde(rename = "displayName")]
    display_name: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SetRecord {
    summary: Scalar,
    #[serde(rename = "lastUpdated")]
    last_updated: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LegacyDoc {
    #[serde(rename = "sessionId")]
    session_id: Scalar,
    #[serde(rename = "startTime")]
    start_time: Scalar,
    #[serde(rename = "lastUpdated")]
    last_updated: Scalar,
    summary: Scalar,
    kind: Scalar,
    messages: List<Record>,
}

fn meta_events(
    session_id: Scalar,
    start: Scalar,
    last: Scalar,
    summary: Scalar,
    kind: Scalar,
    out: &mut Vec<Event>,
) {
    let created = start.time();
    let updated = match (created, last.time()) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    out.push(Event::Meta(MetaEvent {
        session_id: session_id.string().filter(|s| !s.is_empty()),
        title: summary.string().map(|s| (TitleRank::Generated, s)),
        created,
        updated,
        hidden: kind.as_str() == Some("subagent"),
        ..Default::default()
    }));
}

/// Parser for one session. Its state is a cache of the message ids met in this pass, used
/// to aim a `$rewindTo` that names a record without text (never emitted) at the first
/// emitted message after it.
#[derive(Default)]
struct Parser {
    order: Vec<String>,
    known: HashSet<String>,
    emitted: HashSet<String>,
}

impl Parser {
    fn record(&mut self, rec: Record, out: &mut Vec<Event>) {
        if let Some(target) = rec.rewind_to.string() {
            self.rewind(target, out);
            return;
        }
        if let Some(id) = rec.id.as_str().filter(|s| !s.is_empty()) {
            let role = match rec.ty.as_str() {
                Some("user") => Role::User,
                Some("gemini") => Role::Assistant,
                _ => return, // info, error, warning: UI notices
            };
            let id = id.to_string();
            if self.known.insert(id.clone()) {
                self.order.push(id.clone());
            }
            let mut text = None;
            if role == Role::User {
                text = joined(&rec.display_content);
            }
            if let Some(text) = text.or_else(|| joined(&rec.content)) {
                self.emitted.insert(id.clone());
                out.push(Event::message(id.clone(), id.clone(), role, text, rec.timestamp.time(), Merge::Replace));
            }
            for (n, call) in rec.tool_calls.0.iter().enumerate() {
                let Some(call) = call.0.as_ref() else { continue };
                let key = call.id.as_str().map_or_else(|| format!("{id}#{n}"), str::to_string);
                let name = call.display_name.as_str().or(call.name.as_str()).unwrap_or("tool").to_string();
                out.push(Event::ToolCall { key, name });
            }
            return;
        }
        if let Some(set) = rec.set.0 {
            let updated = set.last_updated.time();
            let title = set.summary.string().map(|s| (TitleRank::Generated, s));
            if updated.is_some() || title.is_some() {
                out.push(Event::Meta(MetaEvent { title, updated, ..Default::default() }));
            }
            return;
        }
        if matches!(rec.session_id, Scalar::Str(_)) {
            meta_events(rec.session_id, rec.start_time, rec.last_updated, rec.summary, rec.kind, out);
        }
    }

    fn rewind(&mut self, target: String, out: &mut Vec<Event>) {
        let Some(at) = self.order.iter().position(|id| *id == target) else {
            // Met in an earlier pass: the index knows it if it had text.
            out.push(Event::Rewind { key: target });
            return;
        };
        if let Some(first) = self.order[at..].iter().find(|id| self.emitted.contains(*id)) {
            out.push(Event::Rewind { key: first.clone() });
        }
        for id in self.order.drain(at..) {
            self.emitted.remove(&id);
            self.known.remove(&id);
        }
    }
}

/// Concatenates the text parts (Gemini splits one text into parts; its own reader joins
/// them with nothing in between); `None` when no text is left.
fn joined(parts: &Parts) -> Option<String> {
    let text: String = parts.texts().collect();
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

impl LineParser for Parser {
    fn line(&mut self, line: &[u8], _pos: LinePos, out: &mut Vec<Event>) {
        if let Some(rec) = jsonl::parse_line_as::<Record>(line) {
            self.record(rec, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_hash_is_hex_sha256() {
        assert_eq!(
            project_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
