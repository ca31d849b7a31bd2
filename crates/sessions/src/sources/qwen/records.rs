//! The JSON Lines records of `projects/<p>/chats/<sessionId>.jsonl` (Qwen Code 0.5 … 0.24).
//!
//! Every record: `{uuid, parentUuid, sessionId, timestamp, type, subtype?, provenance?, cwd,
//! version, gitBranch?, message?: {role, parts: [Part]}, systemPayload?, …}`; `parts` are
//! Gemini API parts (`{text, thought?}`, `{functionCall: {id, name, args}}`,
//! `{functionResponse}`, `{inlineData}`).
//!
//! Messages, as the CLI's own resumed view shows them:
//! - `user` without a subtype: what the person typed. An `at_command` system record written
//!   just before it (its parent) holds the typed `userText`, while the record's parts hold
//!   the prompt with the referenced files pasted in: the typed text is taken (when a read
//!   ends between those two lines, the next pass has only the expanded prompt). When the
//!   payload carries `hookContext` (or the last part is a
//!   `<qwen:user-prompt-submit-context>` block), `systemPayload.displayText` is what was
//!   typed; else the text parts (without such a block), joined by line breaks.
//! - `user` with subtype `mid_turn_user_message` (typed while tools ran; `displayText`) and
//!   `realtime_message` (voice); the other user subtypes (`notification`, `cron`,
//!   `goal_runtime`) are not the person's words and are not messages.
//! - `assistant`: its text parts (thoughts are not the reply); each `functionCall` part is
//!   an [`Event::ToolCall`] keyed by its call id.
//! - `tool_result` records and `system` records (telemetry, snapshots, slash commands,
//!   `chat_compression` checkpoints, which leave the recorded history as it was) are not.
//!
//! The title is the last `custom_title` system record (`systemPayload.customTitle`):
//! `titleSource: "auto"` is generated, `"manual"` (or none, from older versions) chosen by
//! the person; the CLI re-appends it to the end of the file now and then. The workspace is
//! the `cwd` field; times are `timestamp`; the id to cite is the record's `uuid`.
//!
//! Branches: `parentUuid` links records into a tree and the CLI shows the chain that ends
//! at the last record. A rewind appends a `rewind` system record whose parent is the record
//! before the user message it went back to, so later records continue from there. So each
//! message is keyed by its *parent's* uuid (unique on a chain: one child each), and a
//! record whose parent is not the record before it rewinds the message keyed by that parent
//! (the first record of the branch left behind) and everything after it. This works when
//! the rewind is appended long after the messages it removes (a later pass), since the key
//! comes from the record itself. Title and source records re-anchored at the end of the
//! file do not move the chain (the next record names the one before them as its parent),
//! which leaves no message behind, so nothing is rewound.

use std::collections::HashMap;

use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::jsonl;
use crate::model::Role;
use crate::source::{LineParser, LinePos};
use crate::sources::lenient::{List, Obj, Scalar};

/// The key of a message whose record has no parent (the first of a file).
const ROOT_KEY: &str = "root";

/// The block a `UserPromptSubmit` hook's context is appended to a prompt in.
const HOOK_CONTEXT_OPEN: &str = "<qwen:user-prompt-submit-context>";
const HOOK_CONTEXT_CLOSE: &str = "</qwen:user-prompt-submit-context>";

// Record shapes (every field lenient; tool output, telemetry and snapshots are skipped
// without being built).

#[derive(Deserialize, Default)]
#[serde(default)]
struct Record {
    uuid: Scalar,
    #[serde(rename = "parentUuid")]
    parent_uuid: Scalar,
    #[serde(rename = "sessionId")]
    session_id: Scalar,
    timestamp: Scalar,
    #[serde(rename = "type")]
    ty: Scalar,
    subtype: Scalar,
    cwd: Scalar,
    message: Obj<Message>,
    #[serde(rename = "systemPayload")]
    payload: Obj<Payload>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message {
    parts: List<Part>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Part {
    text: Scalar,
    thought: Scalar,
    #[serde(rename = "functionCall")]
    function_call: Obj<FunctionCall>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FunctionCall {
    id: Scalar,
    name: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Payload {
    #[serde(rename = "displayText")]
    display_text: Scalar,
    #[serde(rename = "hookContext")]
    hook_context: Scalar,
    #[serde(rename = "userText")]
    user_text: Scalar,
    #[serde(rename = "customTitle")]
    custom_title: Scalar,
    #[serde(rename = "titleSource")]
    title_source: Scalar,
}

/// Parser for one session file. Its state is a cache of the records met in this pass (a
/// pass may start in the middle of the file), used to aim a branch at the messages of
/// this pass and to pair an `at_command` with its prompt; facts that must outlive the
/// pass go out as events.
#[derive(Default)]
pub(super) struct Parser {
    /// The uuid of the previous record in this pass; `None` at its start.
    prev: Option<String>,
    /// The records of this pass in order, with the key of the message each one was.
    order: Vec<(String, Option<String>)>,
    /// Position of each uuid in `order`.
    at: HashMap<String, usize>,
    /// The last `at_command` record: its uuid and the text the person typed.
    at_command: Option<(String, String)>,
}

impl LineParser for Parser {
    fn line(&mut self, line: &[u8], _pos: LinePos, out: &mut Vec<Event>) {
        if let Some(rec) = jsonl::parse_line_as::<Record>(line) {
            self.record(rec, out);
            return;
        }
        // A lost newline glues two records (`…}{…`); the CLI's reader splits them too.
        if line.windows(2).any(|w| w == b"}{") {
            let text = jsonl::repair_surrogates(&String::from_utf8_lossy(line));
            for rec in serde_json::Deserializer::from_str(&text).into_iter::<Record>().map_while(Result::ok) {
                self.record(rec, out);
            }
        }
    }
}

impl Parser {
    fn record(&mut self, mut rec: Record, out: &mut Vec<Event>) {
        let Some(uuid) = rec.uuid.string().filter(|u| !u.is_empty()) else { return };
        let parent = rec.parent_uuid.string();
        let time = rec.timestamp.time();
        out.push(Event::Meta(MetaEvent {
            session_id: rec.session_id.string().filter(|s| !s.is_empty()),
            workspace: rec.cwd.string().filter(|s| !s.trim().is_empty()),
            created: time,
            updated: time,
            ..Default::default()
        }));

        let kind = rec.ty.as_str().unwrap_or_default();
        let subtype = rec.subtype.as_str();
        let moves_chain = matches!(kind, "user" | "assistant" | "tool_result") || subtype == Some("rewind");
        // At the start of a pass the record before is unknown: a branch may begin here.
        let continues = self.prev.is_some() && self.prev == parent;
        if moves_chain && !continues && !self.at.contains_key(&uuid) {
            self.branch_from(parent.as_deref(), out);
        }
        self.prev = Some(uuid.clone());

        let payload = rec.payload.0.take().unwrap_or_default();
        let message = rec.message.0.take().unwrap_or_default();
        let parts = message.parts.0.as_slice();
        let key = parent.clone().unwrap_or_else(|| ROOT_KEY.to_string());
        let mut emitted = None;
        match (kind, subtype) {
            ("system", Some("custom_title")) => {
                let title = payload.custom_title.string().filter(|t| !t.trim().is_empty());
                let rank = match payload.title_source.as_str() {
                    Some("auto") => TitleRank::Generated,
                    _ => TitleRank::Custom,
                };
                if let Some(title) = title {
                    out.push(Event::Meta(MetaEvent { title: Some((rank, title)), ..Default::default() }));
                }
            }
            ("system", Some("at_command")) => {
                self.at_command = payload.user_text.string().map(|text| (uuid.clone(), text));
            }
            ("user", None) => {
                let typed = self.at_command.take().filter(|(at, _)| parent.as_ref() == Some(at)).map(|(_, t)| t);
                let text = typed.and_then(non_empty).or_else(|| prompt_text(parts, &payload));
                emitted = emit(&key, &uuid, Role::User, text, time, out);
            }
            ("user", Some("mid_turn_user_message")) => {
                let text = payload.display_text.string().and_then(non_empty).or_else(|| parts_text(parts, false));
                emitted = emit(&key, &uuid, Role::User, text, time, out);
            }
            ("user", Some("realtime_message")) => {
                emitted = emit(&key, &uuid, Role::User, parts_text(parts, false), time, out);
            }
            ("assistant", _) => {
                emitted = emit(&key, &uuid, Role::Assistant, parts_text(parts, false), time, out);
                tool_calls(parts, &uuid, out);
            }
            _ => {}
        }
        if let Some(&i) = self.at.get(&uuid) {
            // The same uuid again: its fragments make one message.
            self.order[i].1 = self.order[i].1.take().or(emitted);
        } else {
            self.at.insert(uuid.clone(), self.order.len());
            self.order.push((uuid, emitted));
        }
    }

    /// A record continues from `parent` rather than from the record before it: every
    /// message after `parent` is on the branch left behind.
    fn branch_from(&mut self, parent: Option<&str>, out: &mut Vec<Event>) {
        let Some(&i) = parent.and_then(|p| self.at.get(p)) else {
            // The parent was met in an earlier pass (or is a record lost to a broken line,
            // or there is none): its first child, if that was a message, is keyed by it.
            // A lost parent's only child is this record, so nothing is rewound then.
            out.push(Event::Rewind { key: parent.unwrap_or(ROOT_KEY).to_string() });
            return;
        };
        let mut first = None;
        for (_, key) in &mut self.order[i + 1..] {
            if let Some(key) = key.take() {
                first.get_or_insert(key);
            }
        }
        if let Some(key) = first {
            out.push(Event::Rewind { key });
        }
    }
}

/// Emits a message with text (fragments of one record, written again with the same uuid,
/// are joined as the CLI joins their parts); the key it was emitted under.
fn emit(key: &str, uuid: &str, role: Role, text: Option<String>, time: Option<i64>, out: &mut Vec<Event>) -> Option<String> {
    let text = text?;
    out.push(Event::message(key, uuid, role, text, time, Merge::Append));
    Some(key.to_string())
}

fn non_empty(text: String) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Whether a part is the block a `UserPromptSubmit` hook's context was appended in.
fn is_hook_context(part: &Part) -> bool {
    let Some(text) = part.text.as_str().map(str::trim) else { return false };
    text.strip_prefix(HOOK_CONTEXT_OPEN)
        .and_then(|t| t.strip_suffix(HOOK_CONTEXT_CLOSE))
        .is_some_and(|body| {
            body.starts_with('\n') && body.ends_with('\n') && !body.contains(HOOK_CONTEXT_OPEN) && !body.contains(HOOK_CONTEXT_CLOSE)
        })
}

/// The text of a prompt record as the CLI shows it (see the module docs).
fn prompt_text(parts: &[Obj<Part>], payload: &Payload) -> Option<String> {
    let hook_part = parts.len() > 1 && parts.last().and_then(|p| p.0.as_ref()).is_some_and(is_hook_context);
    if matches!(payload.hook_context, Scalar::Str(_)) || hook_part {
        if let Some(display) = payload.display_text.as_str() {
            return non_empty(display.to_string());
        }
    }
    parts_text(parts, hook_part)
}

/// The text parts that are not thoughts, joined by line breaks (as the CLI joins them);
/// `None` when no text is left.
fn parts_text(parts: &[Obj<Part>], without_last: bool) -> Option<String> {
    let parts = if without_last { &parts[..parts.len().saturating_sub(1)] } else { parts };
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.0.as_ref())
        .filter(|p| !p.thought.is_true())
        .filter_map(|p| p.text.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    non_empty(texts.join("\n"))
}

/// The `functionCall` parts of an assistant record, as tool calls.
fn tool_calls(parts: &[Obj<Part>], uuid: &str, out: &mut Vec<Event>) {
    let calls = parts.iter().filter_map(|p| p.0.as_ref()?.function_call.0.as_ref());
    for (n, call) in calls.enumerate() {
        let key = call.id.as_str().filter(|id| !id.is_empty()).map_or_else(|| format!("{uuid}#{n}"), str::to_string);
        let name = call.name.as_str().filter(|n| !n.is_empty()).unwrap_or("tool").to_string();
        out.push(Event::ToolCall { key, name });
    }
}
