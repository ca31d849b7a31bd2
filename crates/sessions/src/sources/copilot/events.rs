//! The events of `session-state/<id>/events.jsonl` (and of the older `<id>.jsonl`).
//!
//! Every line is one event: `{type, id, timestamp, parentId, agentId?, ephemeral?, data}`
//! (1.0.102 ships its schema as `schemas/session-events.schema.json`; about 190 types, most
//! of them bookkeeping). What is read:
//!
//! - `session.start`: `data.sessionId`, `data.startTime`, `data.context.cwd` (the
//!   workspace, since 0.0.40x); `data.detachedFromSpawningParentSessionId` marks a
//!   background run launched from another session (the memory-consolidation agent),
//!   which is not listed on its own. `session.resume` and `session.context_changed`
//!   name the folder too (the first one named wins).
//! - `user.message`: `data.content` is the prompt as the timeline shows it (with `@file`
//!   mentions as typed; `transformedContent`, what the model got, and `attachments` are
//!   not read). Only the person's own: a `data.source` other than `user` (a skill's hidden
//!   prompt, another agent's request, a command's or a schedule's prompt, autopilot's)
//!   and `data.isAutopilotContinuation` are injected by the CLI, as its own notion of a
//!   user-sourced message (`source` absent or `user`) has it.
//! - `assistant.message`: `data.content` (reasoning, `reasoningText`, is not the reply);
//!   each of `data.toolRequests` is an [`Event::ToolCall`] keyed by its `toolCallId`.
//! - `session.import_legacy` (0.0.343 … 0.0.37x): a session of the first layout converted
//!   when resumed; its `legacySession.timeline` is read as the document would be
//!   (`legacy.rs`).
//! - `session.title_changed` is documented as never written to disk; if one is, it is a
//!   generated title (the title otherwise comes from `workspace.yaml`).
//!
//! A sub-agent's events are in the same file, marked with `agentId` (and, in older
//! releases, `data.parentToolCallId` only): they belong to the `task` tool call that ran
//! it, shown there, and are not messages. System prompts (`system.message`), tool
//! execution and results, usage, compaction (`session.compaction_complete` with its
//! `summaryContent`; the events before it stay), hooks, permissions and the rest are
//! not messages. Every message is keyed and cited by its event `id`; times are the
//! events' `timestamp`.

use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::jsonl;
use crate::model::Role;
use crate::source::{LineParser, LinePos};
use crate::sources::lenient::{List, Obj, Scalar};

use super::legacy;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Record {
    #[serde(rename = "type")]
    ty: Scalar,
    id: Scalar,
    timestamp: Scalar,
    #[serde(rename = "agentId")]
    agent_id: Scalar,
    data: Obj<Data>,
}

/// The fields of `data` read, across the event types (each type uses a few).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Data {
    #[serde(rename = "sessionId")]
    session_id: Scalar,
    #[serde(rename = "startTime")]
    start_time: Scalar,
    context: Obj<Context>,
    /// `session.context_changed` carries the context as `data` itself.
    cwd: Scalar,
    #[serde(rename = "detachedFromSpawningParentSessionId")]
    detached_from: Scalar,
    content: Scalar,
    source: Scalar,
    #[serde(rename = "isAutopilotContinuation")]
    autopilot_continuation: Scalar,
    #[serde(rename = "agentId")]
    agent_id: Scalar,
    #[serde(rename = "parentToolCallId")]
    parent_tool_call_id: Scalar,
    #[serde(rename = "toolRequests")]
    tool_requests: List<ToolRequest>,
    title: Scalar,
    #[serde(rename = "legacySession")]
    legacy_session: Obj<legacy::Document>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Context {
    cwd: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolRequest {
    #[serde(rename = "toolCallId")]
    tool_call_id: Scalar,
    name: Scalar,
}

/// Parser for one events file. Every event stands alone, so it keeps no state.
pub(super) struct Parser;

impl LineParser for Parser {
    fn line(&mut self, line: &[u8], _pos: LinePos, out: &mut Vec<Event>) {
        if let Some(record) = jsonl::parse_line_as::<Record>(line) {
            record_events(record, out);
        }
    }
}

fn non_empty(s: Scalar) -> Option<String> {
    s.string().filter(|s| !s.trim().is_empty())
}

fn record_events(record: Record, out: &mut Vec<Event>) {
    let time = record.timestamp.time();
    out.push(Event::Meta(MetaEvent { created: time, updated: time, ..Default::default() }));
    let Some(data) = record.data.0 else { return };
    // A sub-agent's events: its prompt, replies and tool calls belong to the tool call
    // that ran it.
    let sub_agent = [&record.agent_id, &data.agent_id, &data.parent_tool_call_id]
        .iter()
        .any(|s| s.as_str().is_some_and(|s| !s.is_empty()));
    let id = record.id.string().filter(|s| !s.is_empty());
    match record.ty.as_str().unwrap_or_default() {
        "session.start" => out.push(Event::Meta(MetaEvent {
            session_id: non_empty(data.session_id),
            workspace: data.context.0.and_then(|c| non_empty(c.cwd)),
            created: data.start_time.time(),
            hidden: data.detached_from.as_str().is_some_and(|s| !s.is_empty()),
            ..Default::default()
        })),
        "session.resume" => out.push(Event::Meta(MetaEvent {
            workspace: data.context.0.and_then(|c| non_empty(c.cwd)),
            ..Default::default()
        })),
        "session.context_changed" => {
            out.push(Event::Meta(MetaEvent { workspace: non_empty(data.cwd), ..Default::default() }));
        }
        "session.title_changed" => {
            if let Some(title) = non_empty(data.title) {
                out.push(Event::Meta(MetaEvent { title: Some((TitleRank::Generated, title)), ..Default::default() }));
            }
        }
        "user.message" if !sub_agent => {
            let typed = matches!(data.source.as_str(), None | Some("user")) && !data.autopilot_continuation.is_true();
            if let (true, Some(id)) = (typed, id) {
                message(&id, Role::User, data.content, time, out);
            }
        }
        "assistant.message" if !sub_agent => {
            let Some(id) = id else { return };
            message(&id, Role::Assistant, data.content, time, out);
            let calls = data.tool_requests.0.into_iter().filter_map(|c| c.0);
            for (n, call) in calls.enumerate() {
                let key = non_empty(call.tool_call_id).unwrap_or_else(|| format!("{id}#{n}"));
                let name = non_empty(call.name).unwrap_or_else(|| "tool".to_string());
                out.push(Event::ToolCall { key, name });
            }
        }
        "session.import_legacy" => {
            if let Some(session) = data.legacy_session.0 {
                legacy::document_events(session, out);
            }
        }
        _ => {}
    }
}

/// A message with text, keyed and cited by its event id.
fn message(id: &str, role: Role, content: Scalar, time: Option<i64>, out: &mut Vec<Event>) {
    let Some(text) = content.string() else { return };
    let text = text.trim();
    if !text.is_empty() {
        out.push(Event::message(id, id, role, text, time, Merge::Replace));
    }
}
