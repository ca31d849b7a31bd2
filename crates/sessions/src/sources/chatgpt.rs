//! ChatGPT's data export (Settings → Data controls → Export data): `conversations.json` in
//! the zip, one object per conversation (see [`super::exports`] for where they are kept).
//!
//! A conversation: `{id | conversation_id, title, create_time, update_time (seconds since
//! the epoch, fractional), mapping: {<node id>: {id, message, parent, children}},
//! current_node}`. The mapping is a tree: editing a prompt or regenerating an answer
//! branches it, and `current_node` is the leaf the person last saw, so the transcript is the
//! path from the root to it (when it is missing, the newest child is followed from the root).
//! A message: `{id, author: {role: user|assistant|system|tool, name}, create_time, content:
//! {content_type, parts | text}, recipient, metadata}`.
//!
//! Shown: the person's and the assistant's text (`text`, `multimodal_text`: its string parts;
//! an image part is shown as `[image]`; `code`: in a fenced block). Not messages: system and
//! tool messages (tool output, browsing results), hidden ones
//! (`metadata.is_visually_hidden_from_conversation`: custom instructions and the like),
//! the assistant's thoughts and reasoning recaps; an assistant message addressed to a tool
//! (`recipient` other than `all`: `python`, `browser`, `dalle.text2im`…) is a tool call.
//! The id to cite is the message's own id; the title is the conversation's.

use serde_json::Value;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::model::{Role, Source};

use super::exports::{seconds, text_field, ExportReader};

/// Reads ChatGPT's exported conversations.
pub static CHATGPT: ExportReader = ExportReader { source: Source::Chatgpt, id: conversation_id, events, updated };

fn updated(conversation: &Value) -> Option<i64> {
    conversation.get("update_time").and_then(seconds)
}

/// A ChatGPT conversation's id; `None` for anything else.
fn conversation_id(value: &Value) -> Option<String> {
    value.get("mapping")?.as_object()?;
    text_field(value, "conversation_id").or_else(|| text_field(value, "id"))
}

fn events(conversation: &Value) -> Vec<Event> {
    let mut events = vec![Event::Meta(MetaEvent {
        session_id: conversation_id(conversation),
        title: text_field(conversation, "title").map(|t| (TitleRank::Generated, t)),
        created: conversation.get("create_time").and_then(seconds),
        updated: updated(conversation),
        ..Default::default()
    })];
    for message in visible_branch(conversation) {
        events.extend(message_event(message));
    }
    events
}

/// The messages from the root to the current node, in order.
fn visible_branch(conversation: &Value) -> Vec<&Value> {
    let Some(mapping) = conversation.get("mapping").and_then(Value::as_object) else { return Vec::new() };
    let node = |id: &str| mapping.get(id);
    let mut path: Vec<&Value> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut at = conversation.get("current_node").and_then(Value::as_str).filter(|id| mapping.contains_key(*id));
    if at.is_none() {
        // No current node: from the root (a node without a known parent), the newest child each time.
        let root = mapping.iter().find(|(_, n)| n.get("parent").and_then(Value::as_str).is_none_or(|p| !mapping.contains_key(p)));
        let mut next = root.map(|(id, _)| id.as_str());
        while let Some(id) = next.filter(|id| seen.insert(id.to_string())) {
            let Some(n) = node(id) else { break };
            path.push(n);
            next = n.get("children").and_then(Value::as_array).and_then(|c| c.last()).and_then(Value::as_str);
        }
    } else {
        while let Some(id) = at.filter(|id| seen.insert(id.to_string())) {
            let Some(n) = node(id) else { break };
            path.push(n);
            at = n.get("parent").and_then(Value::as_str);
        }
        path.reverse();
    }
    path.into_iter().filter_map(|n| n.get("message").filter(|m| m.is_object())).collect()
}

fn message_event(message: &Value) -> Option<Event> {
    let id = text_field(message, "id")?;
    let role = message.get("author").and_then(|a| a.get("role")).and_then(Value::as_str)?;
    let hidden = message.get("metadata").and_then(|m| m.get("is_visually_hidden_from_conversation")).and_then(Value::as_bool);
    if hidden == Some(true) {
        return None;
    }
    let role = match role {
        "user" => Role::User,
        "assistant" => {
            let recipient = message.get("recipient").and_then(Value::as_str).unwrap_or("all");
            if recipient != "all" {
                return Some(Event::ToolCall { key: id, name: recipient.to_owned() });
            }
            Role::Assistant
        }
        _ => return None,
    };
    let text = content_text(message.get("content")?)?;
    let at = message.get("create_time").and_then(seconds);
    Some(Event::message(id.clone(), id, role, text, at, Merge::Replace))
}

/// The text a message shows, or `None` for content that is not said to the person.
fn content_text(content: &Value) -> Option<String> {
    let kind = content.get("content_type").and_then(Value::as_str).unwrap_or("text");
    let text = match kind {
        "text" | "multimodal_text" => {
            let parts = content.get("parts")?.as_array()?;
            let pieces: Vec<String> = parts
                .iter()
                .filter_map(|part| match part {
                    Value::String(s) => Some(s.clone()),
                    Value::Object(o) if o.get("content_type").and_then(Value::as_str).is_some_and(|t| t.contains("image")) => {
                        Some("[image]".to_owned())
                    }
                    Value::Object(o) => o.get("text").and_then(Value::as_str).map(str::to_owned),
                    _ => None,
                })
                .filter(|s| !s.trim().is_empty())
                .collect();
            pieces.join("\n\n")
        }
        "code" => {
            let code = content.get("text").and_then(Value::as_str)?;
            let language = content.get("language").and_then(Value::as_str).filter(|l| *l != "unknown").unwrap_or("");
            format!("```{language}\n{code}\n```")
        }
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}
