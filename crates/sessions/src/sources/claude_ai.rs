//! Claude.ai's data export (Settings → Privacy → Export data): `conversations.json` in the
//! zip, one object per conversation (see [`super::exports`] for where they are kept).
//!
//! A conversation: `{uuid, name, summary, created_at, updated_at (RFC 3339),
//! current_leaf_message_uuid?, chat_messages: [{uuid, sender: human|assistant, text,
//! content: [{type: text|thinking|tool_use|tool_result, text, name}], created_at,
//! parent_message_uuid?, attachments, files}]}`. Editing a prompt or retrying an answer
//! branches the conversation; when the export names the current leaf and the messages their
//! parents, the transcript is the path from the first message to that leaf, else the
//! messages in the order exported.
//!
//! Shown: the person's (`human`) and Claude's text: the `text` blocks of `content` (or the
//! message's `text` when it has no content blocks). Thinking and tool results are not
//! messages; a `tool_use` block is a tool call. The id to cite is the message's `uuid`; the
//! title is the conversation's `name` (else its `summary`).

use serde_json::Value;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::model::{parse_time, Role, Source};

use super::exports::{text_field, ExportReader};

/// Reads Claude.ai's exported conversations.
pub static CLAUDE_AI: ExportReader = ExportReader { source: Source::ClaudeAi, id: conversation_id, events, updated };

fn updated(conversation: &Value) -> Option<i64> {
    time(conversation, "updated_at")
}

/// A Claude.ai conversation's id; `None` for anything else.
fn conversation_id(value: &Value) -> Option<String> {
    value.get("chat_messages")?.as_array()?;
    text_field(value, "uuid")
}

fn time(value: &Value, key: &str) -> Option<i64> {
    value.get(key).and_then(Value::as_str).and_then(parse_time)
}

fn events(conversation: &Value) -> Vec<Event> {
    let title = text_field(conversation, "name").or_else(|| text_field(conversation, "summary"));
    let mut events = vec![Event::Meta(MetaEvent {
        session_id: conversation_id(conversation),
        title: title.map(|t| (TitleRank::Generated, t)),
        created: time(conversation, "created_at"),
        updated: time(conversation, "updated_at"),
        ..Default::default()
    })];
    for message in visible_branch(conversation) {
        message_events(message, &mut events);
    }
    events
}

/// The messages of the branch the person last saw, in order.
fn visible_branch(conversation: &Value) -> Vec<&Value> {
    let all: Vec<&Value> = conversation.get("chat_messages").and_then(Value::as_array).into_iter().flatten().collect();
    let Some(leaf) = text_field(conversation, "current_leaf_message_uuid") else { return all };
    let by_id: std::collections::HashMap<String, &Value> =
        all.iter().filter_map(|m| Some((text_field(m, "uuid")?, *m))).collect();
    let mut path = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut at = Some(leaf);
    while let Some(id) = at.filter(|id| seen.insert(id.clone())) {
        let Some(message) = by_id.get(&id) else { break };
        path.push(*message);
        at = text_field(message, "parent_message_uuid");
    }
    if path.is_empty() {
        return all;
    }
    path.reverse();
    path
}

fn message_events(message: &Value, out: &mut Vec<Event>) {
    let Some(id) = text_field(message, "uuid") else { return };
    let role = match message.get("sender").and_then(Value::as_str) {
        Some("human") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return,
    };
    let blocks = message.get("content").and_then(Value::as_array).filter(|b| !b.is_empty());
    let mut texts: Vec<&str> = Vec::new();
    match blocks {
        Some(blocks) => {
            for (n, block) in blocks.iter().enumerate() {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => texts.extend(block.get("text").and_then(Value::as_str)),
                    Some("tool_use") => {
                        let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
                        out.push(Event::ToolCall { key: format!("{id}:{n}"), name: name.to_owned() });
                    }
                    _ => {}
                }
            }
        }
        None => texts.extend(message.get("text").and_then(Value::as_str)),
    }
    let text = texts.iter().map(|t| t.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n\n");
    if !text.is_empty() {
        out.push(Event::message(id.clone(), id, role, text, time(message, "created_at"), Merge::Replace));
    }
}
