//! What the lookup actions take and how they fail: their arguments, read leniently (the
//! CLI and agents send numeric strings and short source names), and their errors.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::index::IndexError;

/// Why an action failed; serialised as `{"error": code, "message": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ActionError {
    /// Stable code.
    #[serde(rename = "error")]
    pub code: ErrorCode,
    /// What happened and what to do, in plain English.
    pub message: String,
}

/// The stable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No listed session has that id.
    SessionNotFound,
    /// The session has no messages.
    NoMessages,
    /// An argument is missing or out of range (`invalid_request`, as on every other door).
    InvalidRequest,
    /// No session id was given and no session is open.
    NoOpenSession,
    /// The index itself failed.
    Index,
}

impl ActionError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ActionError { code, message: message.into() }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }
}

impl From<IndexError> for ActionError {
    fn from(e: IndexError) -> Self {
        match e {
            // Not a cache: its message says what to do instead.
            IndexError::Archive { .. } => ActionError::new(ErrorCode::Index, format!("{e}.")),
            e => ActionError::new(ErrorCode::Index, format!("{e}. Deleting the index file makes it rebuild.")),
        }
    }
}

/// Arguments of `list_sessions`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
// In TypeScript: what the app sends. The actions also take what the CLI and agents send
// (numeric strings, short source names) and read it leniently, below.
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ListArgs {
    /// 1–200, default 30.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub limit: Option<Value>,
    /// A workspace path or its last folder name.
    pub workspace: Option<String>,
    /// `claude-code`, `codex`, `opencode` or `gemini`.
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::Source>"))]
    pub source: Option<String>,
    /// Text in the title, workspace or id.
    pub query: Option<String>,
    /// The `nextCursor` of the previous page; default: the first page.
    pub cursor: Option<String>,
    /// `all` (default), `live` (their source is there) or `archived` (kept after their
    /// tool deleted them).
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::SessionStatus>"))]
    pub status: Option<String>,
}

/// Arguments of `open`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct OpenArgs {
    /// Required.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub session_id: Option<String>,
    /// Narrows the lookup to one tool.
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::Source>"))]
    pub source: Option<String>,
}

/// Arguments of `forget_session`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ForgetArgs {
    /// Required.
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub session_id: Option<String>,
    /// Narrows it to one tool.
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::Source>"))]
    pub source: Option<String>,
}

/// Arguments of `read_transcript`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ReadArgs {
    /// Default: the open session.
    pub session_id: Option<String>,
    /// Clamped to 1–30; anything that is not a number means 10.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub count: Option<Value>,
    /// Read messages with a smaller index; default: the end.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub before: Option<Value>,
    /// Cut each text to this many characters ([`MIN_MESSAGE_CHARS`]–[`MAX_MESSAGE_CHARS`]),
    /// marking it `truncated`; default: whole texts.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub max_chars_per_message: Option<Value>,
}

/// Arguments of `latest_message`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct LatestArgs {
    /// Default: the open session.
    pub session_id: Option<String>,
    /// Cut the text to this many characters ([`MIN_MESSAGE_CHARS`]–[`MAX_MESSAGE_CHARS`]),
    /// marking it `truncated`; default: the whole text.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub max_chars: Option<Value>,
}

/// Arguments of `session_activity`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ActivityArgs {
    /// Default: the open session.
    pub session_id: Option<String>,
    /// The first message of the range (its preceding calls are included); default 0.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub from_index: Option<Value>,
    /// The last message of the range; default the last message.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub to_index: Option<Value>,
}

/// Arguments of `search_messages`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct SearchArgs {
    /// Required: text a message must contain (case-insensitive).
    #[cfg_attr(feature = "ts", ts(as = "String"))]
    pub query: Option<String>,
    /// 1–200, default 20.
    #[cfg_attr(feature = "ts", ts(as = "Option<u32>"))]
    pub limit: Option<Value>,
    /// Only sessions of this tool: `claude-code`, `codex`, `opencode` or `gemini`.
    #[cfg_attr(feature = "ts", ts(as = "Option<crate::Source>"))]
    pub source: Option<String>,
    /// Only sessions in this workspace (a path or its last folder name).
    pub workspace: Option<String>,
    /// The `nextCursor` of the previous page; default: the first page.
    pub cursor: Option<String>,
}

/// The longest accepted search query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;

/// The smallest accepted per-message character cap.
pub const MIN_MESSAGE_CHARS: u32 = 200;

/// The largest accepted per-message character cap.
pub const MAX_MESSAGE_CHARS: u32 = 20_000;
