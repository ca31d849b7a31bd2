//! OpenAI Codex CLI: `$CODEX_HOME` (default `~/.codex`).
//!
//! Units:
//! * `sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl` and
//!   `archived_sessions/rollout-….jsonl`: one rollout per file, JSON Lines. Two generations
//!   are read by the same parser: the envelope era (`{timestamp, type, payload}` lines) and
//!   the earlier Rust "bare" era (line 1 `{id, timestamp, instructions, git}`, then bare
//!   `{"type":"message",…}` items and `{"record_type":"state"}` lines, no per-line times,
//!   the cwd only inside `<environment_context><cwd>…</cwd>`).
//! * `sessions/rollout-<date>-<uuid>.json`: the TypeScript CLI (spring 2025), one JSON
//!   document `{session:{timestamp,id,instructions}, items:[…]}`, read whole.
//! * `session_index.jsonl`: thread names (`{id, thread_name, updated_at}`, latest wins),
//!   turned into [`Event::ExternalTitle`] only.
//!
//! Messages are the `response_item` messages with role `user`/`assistant` (the `event_msg`
//! copies of the same text are ignored). Injected context (`<environment_context>`,
//! `# AGENTS.md instructions…`, `<user_instructions>`, …), developer/system messages,
//! reasoning, tool calls and outputs and `compacted` replacement history are not messages.
//! Codex stores no message ids: a JSONL message is cited as `L<line>` (1-based line in the
//! file) and a TypeScript-era message as `I<n>` (1-based position in `items`, which the CLI
//! only ever appends to).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::jsonl;
use crate::events::{Event, Merge, MetaEvent};
use crate::model::{Role, Source};
use crate::source::{Env, LineParser, LinePos, Problem, Root, SourceReader, Unit, UnitKind, WholeSession};

use super::lenient::{self, Obj, Parts, Scalar};

/// Reads Codex sessions.
pub struct Codex;

const INDEX_FILE: &str = "session_index.jsonl";

impl SourceReader for Codex {
    fn source(&self) -> Source {
        Source::Codex
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        env.path_or_home("CODEX_HOME", &[".codex"]).into_iter().collect()
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        let mut found = Vec::new();
        walk_rollouts(&confined, &root.join("sessions"), 0, &mut found, problems);
        walk_rollouts(&confined, &root.join("archived_sessions"), 0, &mut found, problems);
        found.sort_by(|a, b| a.path.cmp(&b.path));
        units.extend(found);
        let index = root.join(INDEX_FILE);
        if confined.file(&index, problems) {
            units.push(Unit::new(Source::Codex, index, UnitKind::Jsonl));
        }
    }

    fn line_parser(&self, unit: &Unit) -> Box<dyn LineParser> {
        if unit.path.file_name().is_some_and(|n| n == INDEX_FILE) {
            Box::new(IndexParser)
        } else {
            Box::new(RolloutParser::default())
        }
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        let bytes = std::fs::read(&unit.path)?;
        let doc: LegacyDoc = jsonl::parse_line_as(&bytes).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "not a Codex session document")
        })?;
        let mut events = Vec::new();
        if let Some(session) = doc.session.0 {
            let time = session.timestamp.time();
            events.push(Event::Meta(MetaEvent {
                session_id: session.id.string(),
                created: time,
                updated: time,
                ..Default::default()
            }));
        }
        for (i, item) in doc.items.0.into_iter().enumerate() {
            let Some(item) = item.0 else { continue };
            let id = format!("I{}", i + 1);
            match item.ty.as_str() {
                None | Some("message") => message_events(item.role.as_str(), item.content, &id, None, &mut events),
                Some(kind) => tool_call(kind, &item.name, &item.call_id, &id, &mut events),
            }
        }
        Ok(vec![WholeSession { key: String::new(), events }])
    }
}

/// Collects `rollout-*.jsonl` (any depth up to `YYYY/MM/DD`) and the TypeScript-era
/// `rollout-*.json` files under `dir`.
fn walk_rollouts(root: &Root, dir: &Path, depth: usize, out: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
    for entry in root.read_dir(dir, problems) {
        let path = entry.path.clone();
        if entry.is_dir {
            if depth < 3 {
                walk_rollouts(root, &path, depth + 1, out, problems);
            }
            continue;
        }
        let Some(name) = entry.name() else { continue };
        if !name.starts_with("rollout-") || !entry.is_file {
            continue;
        }
        let kind = if name.ends_with(".jsonl") {
            UnitKind::Jsonl
        } else if name.ends_with(".json") {
            UnitKind::Whole
        } else {
            continue;
        };
        let mut unit = Unit::new(Source::Codex, path.clone(), kind);
        unit.session_hint = uuid_in_name(name);
        out.push(unit);
    }
}

/// The uuid at the end of a rollout file name (`rollout-…-<uuid>.jsonl`).
fn uuid_in_name(name: &str) -> Option<String> {
    let stem = name.strip_suffix(".jsonl").or_else(|| name.strip_suffix(".json"))?;
    let tail = stem.get(stem.len().checked_sub(36)?..)?;
    let ok = tail.char_indices().all(|(i, c)| match i {
        8 | 13 | 18 | 23 => c == '-',
        _ => c.is_ascii_hexdigit(),
    });
    ok.then(|| tail.to_ascii_lowercase())
}

// ---------------------------------------------------------------------------------------
// Record shapes. Every field is lenient (a value of an unexpected type is ignored, never an
// error) and everything not named here is skipped without being built.

#[derive(Deserialize, Default)]
#[serde(default)]
struct Line {
    timestamp: Scalar,
    #[serde(rename = "type")]
    ty: Scalar,
    payload: Obj<Payload>,
    // Bare era: the first line `{id, timestamp, instructions, git}` and bare items.
    id: Scalar,
    role: Scalar,
    content: Parts,
    name: Scalar,
    call_id: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Payload {
    #[serde(rename = "type")]
    ty: Scalar,
    role: Scalar,
    content: Parts,
    id: Scalar,
    timestamp: Scalar,
    cwd: Scalar,
    source: lenient::SubagentFlag,
    /// Tool calls: the tool and the call id.
    name: Scalar,
    call_id: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct IndexLine {
    id: Scalar,
    thread_name: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LegacyDoc {
    session: Obj<LegacySession>,
    items: lenient::List<Item>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LegacySession {
    id: Scalar,
    timestamp: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Item {
    #[serde(rename = "type")]
    ty: Scalar,
    role: Scalar,
    content: Parts,
    name: Scalar,
    call_id: Scalar,
}

// ---------------------------------------------------------------------------------------

/// `session_index.jsonl`: every line names a thread.
struct IndexParser;

impl LineParser for IndexParser {
    fn line(&mut self, line: &[u8], _pos: LinePos, out: &mut Vec<Event>) {
        let Some(rec) = jsonl::parse_line_as::<IndexLine>(line) else { return };
        let Some(session_id) = rec.id.string().filter(|s| !s.is_empty()) else { return };
        let title = rec.thread_name.string().unwrap_or_default();
        out.push(Event::ExternalTitle { session_id, title });
    }
}

/// A rollout file. Its state is a cache: the latest time already emitted, and whether a
/// `session_meta` was met (a fork copies its parent's meta after its own; that second one
/// says nothing about this session).
#[derive(Default)]
struct RolloutParser {
    last_time: Option<i64>,
    seen_meta: bool,
    /// Whether this pass started after the file's first line (bytes appended since the
    /// last pass, or the next part of a big file).
    resumed: Option<bool>,
}

impl RolloutParser {
    fn touch(&mut self, time: Option<i64>, out: &mut Vec<Event>) {
        if let Some(t) = time {
            if self.last_time.is_none_or(|last| t > last) {
                self.last_time = Some(t);
                out.push(Event::Meta(MetaEvent { updated: Some(t), ..Default::default() }));
            }
        }
    }
}

impl LineParser for RolloutParser {
    fn line(&mut self, line: &[u8], pos: LinePos, out: &mut Vec<Event>) {
        let resumed = *self.resumed.get_or_insert(pos.offset > 0);
        let Some(rec) = jsonl::parse_line_as::<Line>(line) else { return };
        let time = rec.timestamp.time();
        let id = || format!("L{}", pos.line_no);
        match (rec.ty.as_str(), rec.payload.0) {
            (Some("session_meta"), Some(p)) => {
                if std::mem::replace(&mut self.seen_meta, true) {
                    self.touch(time, out);
                    return;
                }
                if resumed {
                    // Codex writes its own meta first, so one met past the start is a
                    // fork's copy of its parent's: its id and workspace only count when
                    // none is known (the index keeps the first), its times and flags never.
                    out.push(Event::Meta(MetaEvent {
                        session_id: p.id.string(),
                        workspace: p.cwd.string(),
                        ..Default::default()
                    }));
                    self.touch(time, out);
                    return;
                }
                let created = p.timestamp.time().or(time);
                out.push(Event::Meta(MetaEvent {
                    session_id: p.id.string(),
                    workspace: p.cwd.string(),
                    created,
                    updated: created,
                    hidden: p.source.0,
                    ..Default::default()
                }));
                self.touch(time, out);
            }
            (Some("response_item"), Some(p)) => {
                match p.ty.as_str() {
                    Some("message") => message_events(p.role.as_str(), p.content, &id(), time, out),
                    Some(kind) => tool_call(kind, &p.name, &p.call_id, &id(), out),
                    None => {}
                }
                self.touch(time, out);
            }
            (Some("turn_context"), Some(p)) => {
                if let Some(cwd) = p.cwd.string() {
                    out.push(Event::Meta(MetaEvent { workspace: Some(cwd), ..Default::default() }));
                }
                self.touch(time, out);
            }
            (Some(_), Some(_)) => self.touch(time, out),
            // Bare era.
            (Some("message"), None) => message_events(rec.role.as_str(), rec.content, &id(), None, out),
            (Some(kind), None) => tool_call(kind, &rec.name, &rec.call_id, &id(), out),
            (None, None) => {
                // The bare-era first line; `{"record_type":"state"}` has neither field.
                if let Some(session_id) = rec.id.string() {
                    self.seen_meta = true;
                    out.push(Event::Meta(MetaEvent {
                        session_id: Some(session_id),
                        created: time,
                        updated: time,
                        ..Default::default()
                    }));
                }
            }
            _ => {}
        }
    }
}

/// A Responses-API tool call item as a tool call (outputs and other items are not).
fn tool_call(kind: &str, name: &Scalar, call_id: &Scalar, line_id: &str, out: &mut Vec<Event>) {
    let name = match kind {
        "function_call" | "custom_tool_call" => name.as_str().unwrap_or("tool").to_string(),
        "local_shell_call" => "shell".into(),
        "web_search_call" => "web_search".into(),
        _ => return,
    };
    let key = call_id.as_str().unwrap_or(line_id).to_string();
    out.push(Event::ToolCall { key, name });
}

/// Turns one Responses-API message into events: a user or assistant message with its
/// visible text, and the workspace named by an injected `<environment_context>`.
fn message_events(role: Option<&str>, content: Parts, id: &str, time: Option<i64>, out: &mut Vec<Event>) {
    let role = match role {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return, // developer, system
    };
    let mut pieces: Vec<&str> = Vec::new();
    for part in &content.0 {
        let Some(text) = part.text.as_deref() else { continue };
        if !matches!(part.ty.as_deref(), None | Some("input_text" | "output_text" | "text")) {
            continue;
        }
        if role == Role::User && is_injected(text) {
            if let Some(cwd) = tag_value(text, "cwd") {
                out.push(Event::Meta(MetaEvent { workspace: Some(cwd), ..Default::default() }));
            }
            continue;
        }
        pieces.push(text);
    }
    if let Some(text) = crate::text::join_text(pieces) {
        out.push(Event::message(id, id, role, text, time, Merge::Replace));
    }
}

/// Prefixes of the context Codex injects as "user" input (case-insensitive, after leading
/// whitespace).
const INJECTED_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# agents.md instructions",
    "<instructions>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<skill>",
    "<collaboration_mode>",
    "<model_switch>",
    "<personality_spec>",
    "<token_budget>",
    "<hook_prompt",
    "<external_",
    "<image name=",
    "</image>",
    "<local_image",
    "</local_image>",
];

/// True for text Codex injected rather than the person typed: a known prefix, or a block
/// wrapped whole in one `snake_case` tag (`<foo_bar>…</foo_bar>`), Codex's convention for
/// context fragments.
fn is_injected(text: &str) -> bool {
    let t = text.trim();
    let mut end = t.len().min(40);
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    let lower = t[..end].to_ascii_lowercase();
    if INJECTED_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    let Some(rest) = t.strip_prefix('<') else { return false };
    let Some(end) = rest.find('>') else { return false };
    let tag = &rest[..end];
    let snake = tag.contains('_') && tag.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    snake && t.ends_with(&format!("</{tag}>"))
}

/// The trimmed text inside `<tag>…</tag>`, if non-empty.
fn tag_value(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    let value = text[start..end].trim();
    (!value.is_empty()).then(|| value.to_string())
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injected_context_is_recognised() {
        assert!(is_injected("<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"));
        assert!(is_injected("# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>"));
        assert!(is_injected("  <user_instructions>\nbe brief\n</user_instructions>"));
        assert!(is_injected("<some_new_context>\nx\n</some_new_context>"));
        assert!(!is_injected("<div>hello</div>"));
        assert!(!is_injected("please fix <cwd> handling"));
        assert!(!is_injected("ééééééééééééééééééééééééééééééééééééééééééé"));
    }

    #[test]
    fn uuid_is_taken_from_the_file_name() {
        assert_eq!(
            uuid_in_name("rollout-2025-10-01T09-30-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl").as_deref(),
            Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
        );
        assert_eq!(uuid_in_name("rollout-2025-10-01.jsonl"), None);
    }
}
