//! goose's message JSON, the same in both layouts: the `content_json` and `metadata_json`
//! columns of `sessions.db`, and the lines of the old `<id>.jsonl` files.
//!
//! A message is `{id?, role: "user"|"assistant", created: <epoch seconds>, content: [Item],
//! metadata: {userVisible, agentVisible}}` (`crates/goose/src/conversation/message.rs` at
//! aaif-goose/goose 893b3e5; the same fields in the 1.x releases that wrote `.jsonl` files).
//! Items are tagged by `type`:
//!
//! - `text` (`{text, annotations?}`): the message's words. A text whose
//!   `annotations.audience` leaves out `user` is for the model only and is not read.
//! - `toolRequest` and `frontendToolRequest` (`{id, toolCall: {status, value: {name,
//!   arguments}}}`): a tool call, read as an [`Event::ToolCall`] (name only).
//! - everything else is not read: `toolResponse` (tool output, on user messages),
//!   `thinking`/`redactedThinking` and the older `reasoning` (the model's reasoning),
//!   `image`, `toolConfirmationRequest`, `actionRequired`, `systemNotification`, and the
//!   old compaction markers (`conversationCompacted`, `summarizationRequested`,
//!   `contextLengthExceeded`).
//!
//! A message with `userVisible: false` is not shown by goose and is not read: the summary
//! that replaces history after a compaction, and context goose hands the model alone
//! (a sub-agent's result delivered to its parent). Messages compacted away stay
//! `userVisible` (only `agentVisible` turns off), so the whole conversation reads as the
//! person saw it.

use serde::{Deserialize, Deserializer};

use crate::events::{Event, Merge, TitleRank};
use crate::model::Role;
use crate::sources::lenient::{List, Obj, Scalar};

/// One content item; tool arguments and outputs are skipped without being built.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Item {
    #[serde(rename = "type")]
    ty: Scalar,
    text: Scalar,
    id: Scalar,
    #[serde(rename = "toolCall")]
    tool_call: Obj<ToolCall>,
    annotations: Obj<Annotations>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCall {
    value: Obj<CallValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CallValue {
    name: Scalar,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Annotations {
    audience: Audience,
}

/// An MCP `audience`: the roles a content is meant for (`None`: everyone).
#[derive(Default)]
struct Audience(Option<Vec<String>>);

impl<'de> Deserialize<'de> for Audience {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Array(items) => {
                Ok(Audience(Some(items.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())))
            }
            _ => Ok(Audience(None)),
        }
    }
}

/// `metadata` of a message: whether goose shows it to the person.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Visibility {
    #[serde(rename = "userVisible")]
    user_visible: Scalar,
}

impl Visibility {
    /// Shown unless it says `false` (goose's default is visible).
    pub(super) fn shown(&self) -> bool {
        !matches!(self.user_visible, Scalar::Bool(false))
    }
}

/// One user or assistant message, before ordering.
#[derive(Debug)]
pub(super) struct Msg {
    /// Unique in its session (a row id, a line number).
    pub(super) key: String,
    /// The id to cite.
    pub(super) id: String,
    pub(super) role: Role,
    /// Ms since the epoch.
    pub(super) created: Option<i64>,
    /// `None` for a message with tool calls only.
    pub(super) text: Option<String>,
    /// `(call id, tool name)`, in order.
    pub(super) tools: Vec<(String, String)>,
}

impl Msg {
    /// The message a `role` and its `content` make, or `None` when it is neither the
    /// person's nor the agent's, is hidden from the person, or holds neither text nor
    /// tool calls.
    pub(super) fn new(key: String, id: String, role: &str, created: Option<i64>, content: &List<Item>, visibility: &Visibility) -> Option<Msg> {
        let role = Role::parse(role)?;
        if !visibility.shown() {
            return None;
        }
        let items = content.0.iter().filter_map(|i| i.0.as_ref());
        let mut texts: Vec<&str> = Vec::new();
        let mut tools = Vec::new();
        for item in items {
            match item.ty.as_str() {
                Some("text") if for_user(item) => texts.extend(item.text.as_str()),
                Some("toolRequest" | "frontendToolRequest") => {
                    let call = item.id.as_str().filter(|s| !s.is_empty()).map_or_else(|| format!("{key}#{}", tools.len()), str::to_owned);
                    let name = item.tool_call.0.as_ref().and_then(|c| c.value.0.as_ref()).and_then(|v| v.name.as_str());
                    tools.push((call, name.filter(|n| !n.is_empty()).unwrap_or("tool").to_owned()));
                }
                _ => {}
            }
        }
        // goose joins a message's texts with line breaks (`as_concat_text`).
        let text = texts.join("\n").trim().to_owned();
        let text = (!text.is_empty()).then_some(text);
        if text.is_none() && tools.is_empty() {
            return None;
        }
        Some(Msg { key, id, role, created, text, tools })
    }

    /// Its events: the message (when it has text), then its tool calls.
    pub(super) fn events(self, out: &mut Vec<Event>) {
        if let Some(text) = self.text {
            out.push(Event::message(self.key, self.id, self.role, text, self.created, Merge::Replace));
        }
        out.extend(self.tools.into_iter().map(|(key, name)| Event::ToolCall { key, name }));
    }
}

/// A text meant for the person too (no audience, or one that names `user`).
fn for_user(item: &Item) -> bool {
    match item.annotations.0.as_ref().and_then(|a| a.audience.0.as_ref()) {
        Some(roles) => roles.iter().any(|r| r == "user"),
        None => true,
    }
}

/// The names goose gives a session until it has one: its CLI's, its ACP server's, its
/// desktop's. They are not titles (the list shows the first prompt instead).
const PLACEHOLDER_NAMES: [&str; 4] = ["CLI Session", "ACP Session", "New Chat", "New session"];

/// The title of a session named `name`: chosen by the person when `user_set`, else
/// generated by goose (a placeholder is none).
pub(super) fn title(name: Option<String>, user_set: bool) -> Option<(TitleRank, String)> {
    let name = name?;
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return None;
    }
    if user_set {
        return Some((TitleRank::Custom, trimmed.to_owned()));
    }
    if PLACEHOLDER_NAMES.iter().any(|p| p.eq_ignore_ascii_case(trimmed)) {
        return None;
    }
    Some((TitleRank::Generated, trimmed.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str, metadata: &str) -> Option<Msg> {
        let content: List<Item> = serde_json::from_str(content).unwrap();
        // As the readers take it: metadata that is not an object is none.
        let visibility: Visibility = crate::jsonl::parse_line_as(metadata.as_bytes()).unwrap_or_default();
        Msg::new("k".into(), "m".into(), role, None, &content, &visibility)
    }

    #[test]
    fn texts_and_tool_calls_are_read_the_rest_is_not() {
        let m = msg(
            "assistant",
            r#"[{"type":"thinking","thinking":"hmm","signature":""},{"type":"text","text":"Looking."},
                {"type":"toolRequest","id":"call_1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}},
                {"type":"toolRequest","toolCall":{"status":"error","error":"-32602: bad"}},
                {"type":"text","text":"for the model","annotations":{"audience":["assistant"]}},
                {"type":"text","text":"Done.","annotations":{"audience":["user","assistant"]}}]"#,
            r#"{"userVisible":true,"agentVisible":true}"#,
        )
        .unwrap();
        assert_eq!(m.text.as_deref(), Some("Looking.\nDone."));
        assert_eq!(m.tools, [("call_1".to_string(), "developer__shell".to_string()), ("k#1".to_string(), "tool".to_string())]);
    }

    #[test]
    fn hidden_tool_output_only_and_unknown_roles_are_no_messages() {
        assert!(msg("assistant", r#"[{"type":"text","text":"summary"}]"#, r#"{"userVisible":false,"agentVisible":true}"#).is_none());
        assert!(msg("user", r#"[{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":[]}}]"#, "{}").is_none());
        assert!(msg("system", r#"[{"type":"text","text":"x"}]"#, "{}").is_none());
        assert!(msg("user", r#"[{"type":"text","text":"compacted, still shown"}]"#, r#"{"userVisible":true,"agentVisible":false}"#).is_some());
        assert!(msg("user", r#""not a list""#, r#""not an object""#).is_none());
    }

    #[test]
    fn placeholders_are_no_titles() {
        assert_eq!(title(Some("CLI Session".into()), false), None);
        assert_eq!(title(Some("new chat".into()), false), None);
        assert_eq!(title(Some("CLI Session".into()), true), Some((TitleRank::Custom, "CLI Session".into())));
        assert_eq!(title(Some(" Fix the parser ".into()), false), Some((TitleRank::Generated, "Fix the parser".into())));
        assert_eq!(title(Some("  ".into()), true), None);
    }
}
