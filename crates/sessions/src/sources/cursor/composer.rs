//! The JSON the editor keeps for a composer (a chat or agent conversation) and its bubbles
//! (messages), and how they become events. Every field is lenient (`lenient.rs`): a value
//! of an unexpected type reads as absent, and the heavy fields (code blocks, file states,
//! tool results, context) are skipped unread.

use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::model::Role;
use crate::source::WholeSession;
use crate::text::join_text;

use super::super::lenient::{List, Obj, Scalar};

/// `composerData:<id>` (global `cursorDiskKV`), an `allComposers` entry of a workspace's
/// `composer.composerData` (0.4x, conversation inline) or a composer head.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ComposerData {
    #[serde(default)]
    pub composer_id: Scalar,
    /// The title Cursor generated or the person gave.
    #[serde(default)]
    pub name: Scalar,
    #[serde(default)]
    pub created_at: Scalar,
    #[serde(default)]
    pub last_updated_at: Scalar,
    /// Since 0.43: the conversation's order, bubble ids only (the bubbles are
    /// `bubbleId:<composerId>:<bubbleId>` rows).
    #[serde(default)]
    pub full_conversation_headers_only: List<BubbleHeader>,
    /// Before: the bubbles inline.
    #[serde(default)]
    pub conversation: List<Bubble>,
    /// The workspace folder the composer belongs to (2025 on).
    #[serde(default)]
    pub workspace_identifier: Obj<WorkspaceIdentifier>,
    #[serde(default)]
    pub is_subagent: Scalar,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BubbleHeader {
    #[serde(default)]
    pub bubble_id: Scalar,
}

/// `{id, uri: {fsPath, path, external, scheme}}`: the workspace storage id and the folder
/// (a VS Code URI object).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WorkspaceIdentifier {
    #[serde(default)]
    pub id: Scalar,
    #[serde(default)]
    pub uri: Obj<UriComponents>,
    /// A `.code-workspace` file's URI, for multi-root workspaces.
    #[serde(default)]
    pub config_path: Obj<UriComponents>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UriComponents {
    #[serde(default)]
    pub fs_path: Scalar,
    #[serde(default)]
    pub external: Scalar,
    #[serde(default)]
    pub path: Scalar,
}

impl WorkspaceIdentifier {
    /// The folder's path, when it is a local one.
    pub fn folder(&self) -> Option<String> {
        let uri = self.uri.0.as_ref().or(self.config_path.0.as_ref())?;
        if let Some(p) = uri.fs_path.as_str().filter(|p| !p.is_empty()) {
            return Some(p.to_string());
        }
        uri.external.as_str().and_then(file_uri_path).or_else(|| uri.path.as_str().filter(|p| !p.is_empty()).map(str::to_string))
    }
}

/// One message: `bubbleId:<composerId>:<bubbleId>`, or an element of an inline
/// `conversation`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Bubble {
    #[serde(default)]
    pub bubble_id: Scalar,
    /// 1 the person, 2 the agent.
    #[serde(default, rename = "type")]
    pub kind: Scalar,
    /// What the person typed, or the agent's answer (Markdown); empty on tool bubbles.
    #[serde(default)]
    pub text: Scalar,
    /// RFC 3339 (2025 on); absent before.
    #[serde(default)]
    pub created_at: Scalar,
    #[serde(default)]
    pub timing_info: Obj<TimingInfo>,
    /// A tool call the agent made (`read_file_v2`, `run_terminal_command_v2`, `task_v2`, …).
    #[serde(default)]
    pub tool_former_data: Obj<ToolFormerData>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TimingInfo {
    /// Epoch ms when the request was sent (the other `client*` times are monotonic).
    #[serde(default)]
    pub client_rpc_send_time: Scalar,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolFormerData {
    #[serde(default)]
    pub name: Scalar,
    #[serde(default)]
    pub tool_call_id: Scalar,
}

impl Bubble {
    fn role(&self) -> Option<Role> {
        match &self.kind {
            Scalar::Num(n) if *n == 1.0 => Some(Role::User),
            Scalar::Num(n) if *n == 2.0 => Some(Role::Assistant),
            Scalar::Str(s) if s == "user" => Some(Role::User),
            Scalar::Str(s) if s == "ai" || s == "assistant" => Some(Role::Assistant),
            _ => None,
        }
    }

    fn time(&self) -> Option<i64> {
        self.created_at.time().or_else(|| self.timing_info.0.as_ref().and_then(|t| t.client_rpc_send_time.time()))
    }

    /// The bubble's message (when it has text) and tool call, keyed by `fallback_id`
    /// when it names no id of its own.
    pub fn events(&self, fallback_id: &str, out: &mut Vec<Event>) {
        let Some(role) = self.role() else { return };
        let id = self.bubble_id.as_str().filter(|s| !s.is_empty()).unwrap_or(fallback_id);
        if let Some(text) = self.text.as_str().and_then(|t| join_text([t])) {
            out.push(Event::message(id, id, role, text, self.time(), Merge::Replace));
        }
        if let Some(tool) = &self.tool_former_data.0 {
            if let Some(name) = tool.name.as_str().filter(|n| !n.is_empty()) {
                let key = tool.tool_call_id.as_str().filter(|k| !k.is_empty()).unwrap_or(id);
                out.push(Event::ToolCall { key: key.to_string(), name: name.to_string() });
            }
        }
    }
}

/// Session-level facts of one composer.
#[derive(Debug, Default, Clone)]
pub(super) struct Facts {
    pub id: String,
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub created: Option<i64>,
    pub updated: Option<i64>,
    /// A sub-agent's conversation (`task-<toolCallId>` composers, `isSubagent`).
    pub hidden: bool,
}

impl Facts {
    /// Fills what `self` lacks from `other`.
    pub fn or(mut self, other: &Facts) -> Facts {
        self.title = self.title.or_else(|| other.title.clone());
        self.workspace = self.workspace.or_else(|| other.workspace.clone());
        self.created = self.created.or(other.created);
        self.updated = self.updated.max(other.updated);
        self.hidden |= other.hidden;
        self
    }
}

impl ComposerData {
    pub fn facts(&self, id: &str) -> Facts {
        Facts {
            id: id.to_string(),
            title: self.name.as_str().map(str::trim).filter(|n| !n.is_empty()).map(str::to_string),
            workspace: self.workspace_identifier.0.as_ref().and_then(WorkspaceIdentifier::folder),
            created: self.created_at.time(),
            updated: self.last_updated_at.time(),
            hidden: id.starts_with("task-") || self.is_subagent.is_true() || matches!(self.is_subagent, Scalar::Num(n) if n != 0.0),
        }
    }

    /// The bubble ids in conversation order (headers-only layout); empty for inline ones.
    pub fn header_ids(&self) -> impl Iterator<Item = &str> {
        self.full_conversation_headers_only.0.iter().filter_map(|h| h.0.as_ref()?.bubble_id.as_str())
    }
}

/// A session's events: its facts, then its bubbles in order.
pub(super) fn session<'a>(facts: Facts, bubbles: impl IntoIterator<Item = (String, &'a Bubble)>) -> WholeSession {
    let mut events = Vec::new();
    events.push(Event::Meta(MetaEvent {
        session_id: Some(facts.id.clone()),
        title: facts.title.map(|t| (TitleRank::Generated, t)),
        workspace: facts.workspace,
        created: facts.created,
        updated: facts.updated,
        hidden: facts.hidden,
    }));
    for (id, bubble) in bubbles {
        bubble.events(&id, &mut events);
    }
    WholeSession { key: facts.id, events }
}

/// The local path of a `file://` URI (percent-decoded; `/c:/x` becomes `c:/x`); `None`
/// for other schemes (remote workspaces: `vscode-remote://…`).
pub(super) fn file_uri_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///path` (empty authority) or `file://server/share` (UNC).
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let decoded = percent_decode(path);
    let windows_drive = decoded.len() >= 3 && decoded.as_bytes()[0] == b'/' && decoded.as_bytes()[2] == b':';
    let path = if windows_drive { decoded[1..].to_string() } else { decoded };
    if authority.is_empty() {
        (!path.is_empty()).then_some(path)
    } else {
        Some(format!("//{authority}{path}"))
    }
}

fn percent_decode(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let (b'%', Some(Some(hi)), Some(Some(lo))) = (bytes[i], bytes.get(i + 1).map(|b| hex(*b)), bytes.get(i + 2).map(|b| hex(*b))) {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(file_uri_path("file:///home/me/My%20Project").as_deref(), Some("/home/me/My Project"));
        assert_eq!(file_uri_path("file:///c%3A/Users/me/app").as_deref(), Some("c:/Users/me/app"));
        assert_eq!(file_uri_path("file://server/share/app").as_deref(), Some("//server/share/app"));
        assert_eq!(file_uri_path("vscode-remote://ssh-remote%2Bbox/home/me"), None);
        assert_eq!(file_uri_path("file:///bad%zzend%").as_deref(), Some("/bad%zzend%"));
    }

    #[test]
    fn a_bubble_of_unknown_shape_is_nothing() {
        let b: Bubble = serde_json::from_str(r#"{"type": 7, "text": "x"}"#).unwrap();
        let mut out = Vec::new();
        b.events("k", &mut out);
        assert!(out.is_empty());
        let b: Bubble = serde_json::from_str(r#"{"type": "2", "text": ["x"], "toolFormerData": "no"}"#).unwrap();
        b.events("k", &mut out);
        assert!(out.is_empty());
    }
}
