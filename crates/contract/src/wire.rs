//! JSON shapes of the HTTP API (camelCase on the wire).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// Which bank a memory belongs to. Today the server only writes `user`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The caller's own bank; follows them across orgs.
    User,
    /// Reserved for a future org-shared bank; never returned to readers today.
    Org,
}

impl Scope {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Org => "org",
        }
    }
}

/// Where a context snippet came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The conversation the agent was in when it drafted the memory.
    ActiveConversation,
    /// A past conversation found by searching.
    SearchedConversation,
}

impl Origin {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::ActiveConversation => "active_conversation",
            Origin::SearchedConversation => "searched_conversation",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "active_conversation" => Some(Origin::ActiveConversation),
            "searched_conversation" => Some(Origin::SearchedConversation),
            _ => None,
        }
    }
}

/// The ids a snippet cites. Holds only the ids that were given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    /// The session the snippet came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// The message the snippet came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// Provenance of a memory: a snippet and what it cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemoryContext {
    /// `mctx_…`
    pub id: String,
    /// The excerpt the memory was drawn from.
    pub snippet: String,
    /// The session/message ids the snippet cites, or null.
    pub citation: Option<Citation>,
    /// Where the snippet came from, or null.
    pub origin: Option<Origin>,
    /// When it was saved (same instant as its memory).
    pub created_at: Timestamp,
}

/// One memory: a plain sentence plus optional provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    /// `mem_…`, time-sortable.
    pub id: String,
    /// The sentence, trimmed, exactly as stored.
    pub content: String,
    /// Tags as given (trimmed), `[]` if an empty list was sent, null if none.
    pub tags: Option<Vec<String>>,
    /// Who wrote it; always `chat` today.
    pub source: String,
    /// Always `user` for rows a reader can see.
    pub scope: Scope,
    /// The org that was active when it was saved.
    pub org_id: String,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last change (equal to `createdAt`: memories are not edited).
    pub updated_at: Timestamp,
    /// Provenance, in the order it was given.
    pub contexts: Vec<MemoryContext>,
}

/// A context in a save request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextInput {
    /// Required, 1–4000 characters after trimming.
    pub snippet: String,
    /// Optional, 1–128 characters.
    #[serde(default, alias = "conversation_id", skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// Optional, 1–128 characters.
    #[serde(default, alias = "message_id", skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// Body of `POST /v1/memory`. Unknown keys (including `scope` and `source`) are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SaveMemoryRequest {
    /// Required, 1–8000 characters after trimming.
    pub content: String,
    /// Optional, at most 32 tags of 1–64 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Optional, at most 16.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<ContextInput>>,
}

/// Response of `POST /v1/memory` (201).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SaveMemoryResponse {
    /// The stored memory, byte-for-byte what a later list returns.
    pub memory: Memory,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// The memory, with its contexts.
    #[serde(flatten)]
    pub memory: Memory,
    /// Relevance, higher is better; comparable within one response only.
    pub score: f64,
}

/// Response of `GET /v1/memory/search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SearchResponse {
    /// Best first; newest first among equal scores. Empty when nothing matches.
    pub results: Vec<SearchResult>,
}

/// Response of `GET /v1/memory`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResponse {
    /// Newest first.
    pub memories: Vec<Memory>,
    /// Pass as `cursor` to get the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// A user account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// `usr_…`
    pub id: String,
    /// The email it was created with.
    pub email: String,
    /// Creation time.
    pub created_at: Timestamp,
}

/// An organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Org {
    /// `org_…`
    pub id: String,
    /// Display name.
    pub name: String,
    /// Creation time.
    pub created_at: Timestamp,
}

/// Response of `GET /v1/me`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MeResponse {
    /// The caller.
    pub user: User,
    /// Orgs the caller is a member of, by name.
    pub orgs: Vec<Org>,
}

/// Response of `GET /healthz`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HealthResponse {
    /// `ok` when the database answers.
    pub status: String,
}
