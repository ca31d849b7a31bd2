//! The session document of Qwen Code up to 0.1.x (Gemini CLI's old layout):
//! `tmp/<sha256(project path)>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.json`, pretty JSON,
//! rewritten whole on every change:
//! `{sessionId, projectHash, startTime, lastUpdated, messages: [{id, timestamp, type,
//! content, thoughts?, tokens?, model?, toolCalls?}]}`.
//!
//! `type` is `user` (the prompt as sent, a string), `qwen` (the reply's text; a reply that
//! only called tools has empty content and `toolCalls: [{id, name, displayName, args,
//! result, status}]`) or a UI notice (`info`, `error`, `warning`), which is not a message.
//! Thoughts are not the reply. The message id to cite is the record's `id`. There is no
//! title (the first prompt stands for it) and no workspace (see the module docs).

use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent};
use crate::jsonl;
use crate::model::Role;
use crate::sources::lenient::{List, Parts, Scalar};

#[derive(Deserialize, Default)]
#[serde(default)]
struct Document {
    #[serde(rename = "sessionId")]
    session_id: Scalar,
    #[serde(rename = "startTime")]
    start_time: Scalar,
    #[serde(rename = "lastUpdated")]
    last_updated: Scalar,
    messages: List<Entry>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry {
    id: Scalar,
    timestamp: Scalar,
    #[serde(rename = "type")]
    ty: Scalar,
    content: Parts,
    #[serde(rename = "toolCalls")]
    tool_calls: List<ToolCall>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCall {
    id: Scalar,
    name: Scalar,
    #[serde(rename = "displayName")]
    display_name: Scalar,
}

/// The events of one document; `None` when it is not a JSON object.
pub(super) fn parse(bytes: &[u8]) -> Option<Vec<Event>> {
    let doc: Document = jsonl::parse_line_as(bytes)?;
    let created = doc.start_time.time();
    let updated = match (created, doc.last_updated.time()) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let mut events = vec![Event::Meta(MetaEvent {
        session_id: doc.session_id.string().filter(|s| !s.is_empty()),
        created,
        updated,
        ..Default::default()
    })];
    for entry in doc.messages.0.into_iter().filter_map(|e| e.0) {
        let Some(id) = entry.id.string().filter(|id| !id.is_empty()) else { continue };
        let role = match entry.ty.as_str() {
            Some("user") => Role::User,
            // The first releases kept Gemini CLI's name for the model.
            Some("qwen" | "gemini") => Role::Assistant,
            _ => continue,
        };
        let text: String = entry.content.texts().collect();
        let text = text.trim();
        if !text.is_empty() {
            events.push(Event::message(&id, &id, role, text, entry.timestamp.time(), Merge::Replace));
        }
        for (n, call) in entry.tool_calls.0.iter().filter_map(|c| c.0.as_ref()).enumerate() {
            let key = call.id.as_str().filter(|k| !k.is_empty()).map_or_else(|| format!("{id}#{n}"), str::to_string);
            let name = call.display_name.as_str().or(call.name.as_str()).unwrap_or("tool").to_string();
            events.push(Event::ToolCall { key, name });
        }
    }
    Some(events)
}
