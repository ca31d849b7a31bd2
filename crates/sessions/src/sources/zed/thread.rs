//! The JSON of one Zed thread (`threads.data`, once decompressed), in both of the shapes
//! the same table holds, read in one pass with the heavy parts (tool input and output,
//! mentioned files' contents, images, token usage) skipped unread:
//!
//! * the agent (2025-08 on, `"version": "0.3.0"`): `{title, messages, updated_at,
//!   initial_project_snapshot, subagent_context, …}` where each message is serde's
//!   externally tagged enum: `{"User": {id, content: [{"Text": s} | {"Mention": {uri,
//!   content}} | {"Image": …}]}}`, `{"Agent": {content: [{"Text": s} | {"Thinking": …} |
//!   {"RedactedThinking": s} | {"ToolUse": {id, name, input, …}}], tool_results}}`, or
//!   `"Resume"` (the agent went on after its tool-use limit; not a message);
//! * the first agent panel (`"version": "0.1.0"`/`"0.2.0"`, or none): `{summary, messages,
//!   updated_at, initial_project_snapshot}` with messages `{id, role: user|assistant|system,
//!   segments: [{type: text|thinking|redacted_thinking, …}], tool_uses: [{id, name,
//!   input}], tool_results, context, is_hidden}` (or, oldest, `text` instead of segments).
//!
//! A message's text is its `Text` parts (or `text` segments): what the person typed (a
//! mention stays as the link they typed; the file contents it expanded to are injected
//! context) and what the agent answered; thinking is not text. Hidden messages, system
//! messages and the user messages of 0.1.0 that only carry tool results are not messages.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::super::lenient::{otherwise, List, Obj, Scalar};

#[derive(Debug, Default, Deserialize)]
pub(super) struct Thread {
    /// The agent's title.
    #[serde(default)]
    pub title: Scalar,
    /// The first panel's title.
    #[serde(default)]
    pub summary: Scalar,
    #[serde(default)]
    pub updated_at: Scalar,
    #[serde(default)]
    pub messages: Messages,
    #[serde(default)]
    pub initial_project_snapshot: Obj<ProjectSnapshot>,
    /// Set on a sub-agent's thread (`parent_thread_id`).
    #[serde(default)]
    pub subagent_context: Obj<IgnoredAny>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct ProjectSnapshot {
    #[serde(default)]
    pub worktree_snapshots: List<WorktreeSnapshot>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct WorktreeSnapshot {
    #[serde(default)]
    pub worktree_path: Scalar,
}

/// One message, as read.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Message {
    /// The message's own id (user messages of the agent; every message of the first panel).
    pub id: Option<String>,
    /// `Some(true)` the person, `Some(false)` the agent; `None` not a message.
    pub user: Option<bool>,
    pub texts: Vec<String>,
    /// Tool calls `(id, name)`.
    pub tools: Vec<(String, String)>,
}

#[derive(Debug, Default)]
pub(super) struct Messages(pub Vec<Message>);

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Messages;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of messages")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Messages, A::Error> {
                let mut out = Vec::new();
                while let Some(m) = seq.next_element::<Message>()? {
                    out.push(m);
                }
                Ok(Messages(out))
            }
            otherwise!('de, Messages::default(); map, str, number, bool, null);
        }
        d.deserialize_any(V)
    }
}

/// The agent's user and agent message bodies.
#[derive(Debug, Default, Deserialize)]
struct Body {
    #[serde(default)]
    id: Scalar,
    #[serde(default)]
    content: Parts,
}

/// Externally tagged content parts: `{"Text": s}`, `{"ToolUse": {id, name}}`, others.
#[derive(Debug, Default)]
struct Parts {
    texts: Vec<String>,
    tools: Vec<(String, String)>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolUse {
    #[serde(default)]
    id: Scalar,
    #[serde(default)]
    name: Scalar,
}

impl<'de> Deserialize<'de> for Parts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Part(Option<Result<String, (String, String)>>);
        impl<'de> Deserialize<'de> for Part {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct PV;
                impl<'de> Visitor<'de> for PV {
                    type Value = Part;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a content part")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
                        let mut part = Part(None);
                        while let Some(key) = map.next_key::<String>()? {
                            match key.as_str() {
                                "Text" => {
                                    if let Some(t) = map.next_value::<Scalar>()?.string() {
                                        part = Part(Some(Ok(t)));
                                    }
                                }
                                "ToolUse" => {
                                    if let Some(t) = map.next_value::<Obj<ToolUse>>()?.0 {
                                        let name = t.name.string().unwrap_or_default();
                                        part = Part(Some(Err((t.id.string().unwrap_or_default(), name))));
                                    }
                                }
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(part)
                    }
                    otherwise!('de, Part(None); seq, str, number, bool, null);
                }
                d.deserialize_any(PV)
            }
        }
        struct SV;
        impl<'de> Visitor<'de> for SV {
            type Value = Parts;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of content parts")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
                let mut out = Parts::default();
                while let Some(part) = seq.next_element::<Part>()? {
                    match part.0 {
                        Some(Ok(text)) => out.texts.push(text),
                        Some(Err(tool)) => out.tools.push(tool),
                        None => {}
                    }
                }
                Ok(out)
            }
            otherwise!('de, Parts::default(); map, str, number, bool, null);
        }
        d.deserialize_any(SV)
    }
}

/// A first-panel segment: `{type: "text", text}` counts.
#[derive(Debug, Default, Deserialize)]
struct Segment {
    #[serde(default, rename = "type")]
    kind: Scalar,
    #[serde(default)]
    text: Scalar,
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Message;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
                let mut m = Message::default();
                // The first panel's fields, gathered as they come.
                let (mut role, mut hidden, mut has_results) = (None::<String>, false, false);
                let mut legacy_text = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "User" | "Agent" => {
                            if let Some(body) = map.next_value::<Obj<Body>>()?.0 {
                                m.user = Some(key == "User");
                                m.id = body.id.string().filter(|s| !s.is_empty());
                                m.texts = body.content.texts;
                                m.tools = body.content.tools;
                            }
                        }
                        "id" => m.id = map.next_value::<Scalar>()?.into_id(),
                        "role" => role = map.next_value::<Scalar>()?.string(),
                        "is_hidden" => hidden = map.next_value::<Scalar>()?.is_true(),
                        "segments" => {
                            let segments: List<Segment> = map.next_value()?;
                            m.texts = segments
                                .0
                                .into_iter()
                                .filter_map(|s| s.0)
                                .filter(|s| s.kind.as_str() == Some("text"))
                                .filter_map(|s| s.text.string())
                                .collect();
                        }
                        "text" => legacy_text = map.next_value::<Scalar>()?.string(),
                        "tool_uses" => {
                            let uses: List<ToolUse> = map.next_value()?;
                            m.tools = uses
                                .0
                                .into_iter()
                                .filter_map(|u| u.0)
                                .map(|u| (u.id.string().unwrap_or_default(), u.name.string().unwrap_or_default()))
                                .collect();
                        }
                        "tool_results" => {
                            has_results = map.next_value::<Counted>()?.0 > 0;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                if let Some(role) = role {
                    m.user = match role.as_str() {
                        "user" if !hidden && !has_results => Some(true),
                        "assistant" if !hidden => Some(false),
                        _ => None,
                    };
                    if m.texts.is_empty() {
                        m.texts.extend(legacy_text);
                    }
                }
                Ok(m)
            }
            otherwise!('de, Message::default(); seq, str, number, bool, null); // a bare string is "Resume"
        }
        d.deserialize_any(V)
    }
}

/// How many elements an array has (anything else: 0), without building them.
struct Counted(usize);

impl<'de> Deserialize<'de> for Counted {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Counted;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Counted, A::Error> {
                let mut n = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Counted(n))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Counted, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Counted(0))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Counted, E> {
                Ok(Counted(0))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Counted, E> {
                Ok(Counted(0))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Counted, E> {
                Ok(Counted(0))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Counted, E> {
                Ok(Counted(0))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Counted, E> {
                Ok(Counted(0))
            }
            fn visit_unit<E>(self) -> Result<Counted, E> {
                Ok(Counted(0))
            }
        }
        d.deserialize_any(V)
    }
}

trait IntoId {
    fn into_id(self) -> Option<String>;
}

impl IntoId for Scalar {
    /// A string id, or a numeric one written out (the first panel's `MessageId(usize)`).
    fn into_id(self) -> Option<String> {
        match self {
            Scalar::Str(s) if !s.is_empty() => Some(s),
            Scalar::Num(n) if n.is_finite() => Some(format!("{}", n as i64)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_read() {
        let t: Thread = serde_json::from_str(
            r#"{"version":"0.3.0","title":"T","updated_at":"2026-03-01T10:00:00Z","messages":[
                {"User":{"id":"u1","content":[{"Text":"hi "},{"Mention":{"uri":{"File":{"abs_path":"/a"}},"content":"FILE"}},{"Text":"there"}]}},
                {"Agent":{"content":[{"Thinking":{"text":"hmm","signature":null}},{"Text":"answer"},{"ToolUse":{"id":"t1","name":"read_file","raw_input":"{}","input":{},"is_input_complete":true}}],"tool_results":{}}},
                "Resume",
                {"Hologram":{"x":1}}
            ]}"#,
        )
        .unwrap();
        let m = &t.messages.0;
        assert_eq!(m.len(), 4);
        assert_eq!((m[0].user, m[0].id.as_deref(), m[0].texts.clone()), (Some(true), Some("u1"), vec!["hi ".to_string(), "there".to_string()]));
        assert_eq!((m[1].user, m[1].texts.clone(), m[1].tools.clone()), (Some(false), vec!["answer".to_string()], vec![("t1".to_string(), "read_file".to_string())]));
        assert_eq!(m[2], Message::default());
        assert_eq!(m[3].user, None);

        let t: Thread = serde_json::from_str(
            r#"{"version":"0.1.0","summary":"S","updated_at":"2025-05-01T10:00:00Z","messages":[
                {"id":0,"role":"user","segments":[{"type":"text","text":"q"}],"tool_uses":[],"tool_results":[],"context":"CTX","is_hidden":false},
                {"id":1,"role":"assistant","segments":[{"type":"thinking","text":"t"},{"type":"text","text":"a"}],"tool_uses":[{"id":"x","name":"grep","input":{}}],"tool_results":[]},
                {"id":2,"role":"user","segments":[],"tool_results":[{"tool_use_id":"x"}]},
                {"id":3,"role":"user","text":"hidden","is_hidden":true},
                {"id":4,"role":"assistant","text":"oldest shape"}
            ]}"#,
        )
        .unwrap();
        let m = &t.messages.0;
        assert_eq!((m[0].user, m[0].id.as_deref(), m[0].texts.clone()), (Some(true), Some("0"), vec!["q".to_string()]));
        assert_eq!((m[1].user, m[1].texts.clone(), m[1].tools.len()), (Some(false), vec!["a".to_string()], 1));
        assert_eq!((m[2].user, m[3].user), (None, None));
        assert_eq!((m[4].user, m[4].texts.clone()), (Some(false), vec!["oldest shape".to_string()]));
    }
}
