//! The first layout, up to 0.0.340 at least (0.0.343 converts it):
//! `history-session-state/session_<sessionId>_<start ms>.json`, one JSON document the CLI
//! rewrote (100 ms after each change) as `{sessionId, startTime, chatMessages, timeline,
//! selectedModel?}` (its zod schema in the 0.0.340 bundle).
//!
//! `chatMessages` are the OpenAI-style messages sent to the model (system prompt, the
//! prompt wrapped with reminders, tool results); `timeline` is what the CLI showed, each
//! entry `{id, timestamp, type, …}`: `user` and `copilot` (`text`, the person's prompt
//! and the reply), `tool_call_requested` and `tool_call_completed` (`callId`, `name`,
//! arguments, result), `info` and `error` (notices). The transcript is the timeline: its
//! `user` and `copilot` entries are the messages (keyed and cited by their `id`), its tool
//! calls are [`Event::ToolCall`]s. The document names no folder and has no title (the
//! CLI listed the first prompt).

use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent};
use crate::jsonl;
use crate::model::Role;
use crate::sources::lenient::{List, Obj, Scalar};

/// A session document (also what a `session.import_legacy` event holds).
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Document {
    #[serde(rename = "sessionId")]
    session_id: Scalar,
    #[serde(rename = "startTime")]
    start_time: Scalar,
    timeline: List<Entry>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Entry {
    id: Scalar,
    timestamp: Scalar,
    #[serde(rename = "type")]
    ty: Scalar,
    text: Scalar,
    #[serde(rename = "callId")]
    call_id: Scalar,
    name: Scalar,
}

/// The session id in a document's file name, `session_<id>_<start ms>.json`.
pub(super) fn file_session_id(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("session_")?.strip_suffix(".json")?;
    let (id, ms) = rest.rsplit_once('_')?;
    (!id.is_empty() && !ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

/// The events of a document; `None` when it is not (or not yet) a whole JSON object.
pub(super) fn parse(bytes: &[u8]) -> Option<Vec<Event>> {
    let document = jsonl::parse_line_as::<Obj<Document>>(bytes)?.0?;
    let mut events = Vec::new();
    document_events(document, &mut events);
    Some(events)
}

/// The events of a document, in timeline order.
pub(super) fn document_events(document: Document, out: &mut Vec<Event>) {
    let created = document.start_time.time();
    out.push(Event::Meta(MetaEvent {
        session_id: document.session_id.string().filter(|s| !s.trim().is_empty()),
        created,
        updated: created,
        ..Default::default()
    }));
    for (n, entry) in document.timeline.0.into_iter().filter_map(|e| e.0).enumerate() {
        let time = entry.timestamp.time();
        out.push(Event::Meta(MetaEvent { updated: time, ..Default::default() }));
        let key = entry.id.string().filter(|s| !s.is_empty()).unwrap_or_else(|| format!("T{n}"));
        let role = match entry.ty.as_str() {
            Some("user") => Role::User,
            Some("copilot") => Role::Assistant,
            Some("tool_call_requested" | "tool_call_completed") => {
                let call = entry.call_id.string().filter(|s| !s.is_empty()).unwrap_or(key);
                let name = entry.name.string().filter(|s| !s.is_empty()).unwrap_or_else(|| "tool".to_string());
                out.push(Event::ToolCall { key: call, name });
                continue;
            }
            _ => continue,
        };
        let Some(text) = entry.text.string() else { continue };
        let text = text.trim();
        if !text.is_empty() {
            out.push(Event::message(&key, &key, role, text, time, Merge::Replace));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_file_names() {
        assert_eq!(
            file_session_id("session_0c0ffee0-0000-4000-8000-000000000000_1759958416398.json"),
            Some("0c0ffee0-0000-4000-8000-000000000000")
        );
        assert_eq!(file_session_id("session_abc_12x.json"), None);
        assert_eq!(file_session_id("session__1.json"), None);
        assert_eq!(file_session_id("notes.json"), None);
    }
}
