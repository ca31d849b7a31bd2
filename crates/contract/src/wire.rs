//! JSON shapes of the HTTP API (camelCase on the wire).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// Which bank a memory belongs to. Today the server only writes `user`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The caller's own bank; follows them across orgs.
    User,
    /// The org's team bank, shared by its members (`docs/teams.md`).
    Org,
}

impl Scope {
    /// `user`, the default where a scope is absent.
    pub fn user() -> Scope {
        Scope::User
    }

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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// How a person confirmed that a memory should exist: nothing becomes a memory on an
/// agent's word alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ConfirmedVia {
    /// In Memory Bank's own window (the Remember dialog, or Accept in the Inbox).
    App,
    /// In the agent's own client, through an MCP elicitation form the person accepted.
    Elicitation,
    /// Typed by the person with `memory-bank memory save`.
    Cli,
    /// Brought in from an export.
    Import,
}

impl ConfirmedVia {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfirmedVia::App => "app",
            ConfirmedVia::Elicitation => "elicitation",
            ConfirmedVia::Cli => "cli",
            ConfirmedVia::Import => "import",
        }
    }

    /// Parses the stored spelling.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "app" => Some(ConfirmedVia::App),
            "elicitation" => Some(ConfirmedVia::Elicitation),
            "cli" => Some(ConfirmedVia::Cli),
            "import" => Some(ConfirmedVia::Import),
            _ => None,
        }
    }
}

/// The ids a snippet cites. Holds only the ids that were given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: Timestamp,
}

/// One memory: a plain sentence plus optional provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// `user`: the reader's own bank; `org`: the team bank of `orgId`.
    pub scope: Scope,
    /// The org that was active when it was saved.
    pub org_id: String,
    /// Creation time.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: Timestamp,
    /// Last change (equal to `createdAt`: memories are not edited).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub updated_at: Timestamp,
    /// Provenance, in the order it was given.
    pub contexts: Vec<MemoryContext>,
    /// How a person confirmed it; absent for memories saved before this was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
    /// The MCP client that proposed it (its name from `initialize`, e.g. `claude-code`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_by: Option<String>,
    /// For an imported memory (`confirmedVia: "import"`): what the import file said
    /// about how it had been confirmed, kept as the file's claim, never as a confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<ImportedFrom>,
    /// A team memory's author (`scope: org`): the member who saved or proposed it, by
    /// user id; kept when they leave the org. Absent in a personal bank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved_by: Option<String>,
    /// A team memory's confirmer: the admin or owner who saved or accepted it, by user
    /// id. Absent in a personal bank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_by: Option<String>,
}

/// What an import file claimed about a memory or one of its versions (its
/// `confirmedVia` and `proposedBy`), kept beside it: an import confirms nothing, so the
/// memory itself says `confirmedVia: "import"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportedFrom {
    /// How the file said it was confirmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
    /// The MCP client the file said proposed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_by: Option<String>,
}

/// A context in a save request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// Body of `POST /v1/memory`. Unknown keys (including `source`) are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// How the person confirmed it (`app`, `cli`, `import`); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
    /// Which bank: `user` (the caller's own, the default) or `org` (the `X-Org-Id`
    /// org's team bank, for its admins and owners).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
}

/// Response of `POST /v1/memory` (201).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SaveMemoryResponse {
    /// The stored memory, byte-for-byte what a later list returns.
    pub memory: Memory,
    /// After a save asked with `?similar=true`, or an edit: the other memories of its bank
    /// (the caller's own, or the team's for a team memory) worded much like it (see
    /// [`SimilarMemory`]); absent when there are none, and when a save did not ask.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub similar: Vec<SimilarMemory>,
}

/// One of the caller's memories (or, for a team save or proposal, the team's) whose words
/// overlap strongly with a sentence being saved, proposed or accepted: a hint that it may already be remembered. Never merged
/// automatically; the person may edit that memory instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SimilarMemory {
    /// `mem_…`
    pub id: String,
    /// Its sentence as stored.
    pub content: String,
}

/// Body of `POST /v1/memory/similar`: a sentence not saved yet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FindSimilarRequest {
    /// The sentence, up to 8000 characters.
    pub content: String,
    /// A memory to leave out (the one being edited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub exclude_id: Option<String>,
}

/// Answer of `POST /v1/memory/similar`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SimilarResponse {
    /// Most alike first; empty when nothing is alike.
    pub similar: Vec<SimilarMemory>,
}

/// Why a search hit was found: so the person and the agent can judge a weak match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Matched {
    /// It holds the query's words, as written or in another form ("deploys" for "deploy").
    #[default]
    Words,
    /// Its meaning is close to the query's, without sharing its words.
    Meaning,
    /// Both.
    Both,
}

impl Matched {
    /// The spelling on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Matched::Words => "words",
            Matched::Meaning => "meaning",
            Matched::Both => "both",
        }
    }
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// The memory, with its contexts.
    #[serde(flatten)]
    pub memory: Memory,
    /// Relevance, higher is better; comparable within one response only.
    pub score: f64,
    /// Whether it matched the query's words, its meaning, or both (`words` from a
    /// service older than this field).
    #[serde(default)]
    pub matched: Matched,
}

/// Response of `GET /v1/memory/search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchResponse {
    /// Best first; newest first among equal scores. Empty when nothing matches.
    pub results: Vec<SearchResult>,
}

/// Whether search reads meaning too, and how far the caller's vectors are made:
/// `GET /v1/memory/search/status` (the panel shows it while the backfill runs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchStatus {
    /// `on`: by words and meaning; `off`: by words only (chosen); `unavailable`: by
    /// words for now, the model cannot be used (`reason` says why).
    pub meaning: MeaningState,
    /// The caller's memories.
    pub memories: u64,
    /// Of them, those found by meaning already (the rest once the backfill reaches them).
    pub with_vector: u64,
    /// Why the model cannot be used, when `unavailable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reason: Option<String>,
}

/// Whether search reads meaning ([`SearchStatus::meaning`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MeaningState {
    /// Words and meaning.
    On,
    /// Words only, as chosen (`--words-only`, the app's setting).
    Off,
    /// Words for now: the model cannot be used.
    Unavailable,
}

/// Response of `GET /v1/memory/citing`: the memories that cite one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CitingResponse {
    /// Newest first, with their contexts (which say the cited messages).
    pub memories: Vec<Memory>,
}

/// Response of `GET /v1/memory`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// Whether this token may save, accept, reject and delete: false for an agent
    /// token, which may only search, list and propose. (Absent from older services,
    /// which are read as `true`; their routes still refuse what the token may not do.)
    #[serde(rename = "mayConfirm", default = "may_confirm_by_default")]
    pub may_confirm: bool,
}

fn may_confirm_by_default() -> bool {
    true
}

/// Response of `GET /healthz`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HealthResponse {
    /// `ok` when the database answers.
    pub status: String,
}

/// What a proposal asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ProposalAction {
    /// Save a new memory.
    Save,
    /// Delete an existing one.
    Delete,
    /// Change an existing one's sentence and/or tags (`content`, `tags` say to what).
    Edit,
}

impl ProposalAction {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalAction::Save => "save",
            ProposalAction::Delete => "delete",
            ProposalAction::Edit => "edit",
        }
    }
}

/// Where a proposal stands. `expired` is a pending proposal past its `expiresAt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    /// Waiting for the person.
    Pending,
    /// The person accepted it: the memory was saved (or deleted).
    Accepted,
    /// The person rejected it; nothing changed.
    Rejected,
    /// Nobody decided within 7 days; nothing changed.
    Expired,
}

impl ProposalStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Pending => "pending",
            ProposalStatus::Accepted => "accepted",
            ProposalStatus::Rejected => "rejected",
            ProposalStatus::Expired => "expired",
        }
    }
}

/// A context of a proposal: what the drafted memory cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProposedContext {
    /// The excerpt.
    pub snippet: String,
    /// The session/message ids it cites, or null.
    pub citation: Option<Citation>,
    /// Where it came from, or null.
    pub origin: Option<Origin>,
}

/// Something an agent asked for that waits for a person: a memory to save, or one to
/// delete. Owned by one user like a memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Proposal {
    /// `prop_…`
    pub id: String,
    /// Save or delete.
    pub action: ProposalAction,
    /// Where it stands.
    pub status: ProposalStatus,
    /// Save: the drafted sentence. Delete: the memory's content when it was proposed.
    pub content: String,
    /// Save: the drafted tags.
    pub tags: Option<Vec<String>>,
    /// Save: what the memory would cite.
    pub contexts: Vec<ProposedContext>,
    /// Delete: the memory to delete. Save, once accepted: the memory saved.
    pub memory_id: Option<String>,
    /// The MCP client that proposed it, when known.
    pub proposed_by: Option<String>,
    /// The org that was active.
    pub org_id: String,
    /// When it was proposed.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub created_at: Timestamp,
    /// When it expires if nobody decides.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub expires_at: Timestamp,
    /// When a person accepted or rejected it.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub decided_at: Option<Timestamp>,
    /// A pending save or edit: the memories of its bank (the user's own, or the team's)
    /// worded much like it, as they stand when read (empty otherwise).
    #[serde(default)]
    pub similar: Vec<SimilarMemory>,
    /// An edit or a delete: the memory as it was when the agent proposed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_against: Option<MemoryVersion>,
    /// Which bank it changes: `user` (the proposer's own; their Inbox) or `org` (the team
    /// bank of `orgId`; the org Inbox, answered by its admins and owners).
    #[serde(default = "Scope::user")]
    pub scope: Scope,
    /// A team proposal's proposer: the member (by user id) who, or whose agent,
    /// proposed it. Absent for a personal proposal, which only its owner sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposer: Option<String>,
    /// A pending edit or delete whose memory changed since it was proposed: the memory as
    /// it is now. Accepting it then needs this version in the accept's `memoryNow`, so a
    /// change the person has not seen is never overwritten or deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_now: Option<MemoryVersion>,
}

/// One version of a memory's words: what a proposal was made against, or what it says now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MemoryVersion {
    /// The sentence.
    pub content: String,
    /// Its tags, or null.
    pub tags: Option<Vec<String>>,
}

/// Body of `POST /v1/proposals`: `{"action":"save", content, tags?, contexts?}` (the
/// memory limits apply) or `{"action":"delete", "memoryId"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProposeRequest {
    /// `save` (the default) or `delete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ProposalAction>,
    /// Save: the drafted sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Save: tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Save: provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<ContextInput>>,
    /// Delete: the memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_id: Option<String>,
    /// The proposing MCP client's name, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_by: Option<String>,
    /// Which bank: `user` (the caller's own, the default) or `org` (the `X-Org-Id` org's
    /// team bank: the proposal waits in the org Inbox for its admins and owners). An edit
    /// or delete without it goes to the bank holding its memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
}

/// Body of `POST /v1/proposals/{id}/accept`: the person's edits, all optional; what is
/// absent is kept as proposed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptProposalRequest {
    /// The sentence as the person edited it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The tags as the person edited them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// The contexts as the person edited them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<ContextInput>>,
    /// Where the person accepted it (`app` unless said otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_via: Option<ConfirmedVia>,
    /// A save only: write the sentence as a new version of this memory of the person's
    /// (one of the proposal's `similar`) instead of saving a new memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_instead: Option<String>,
    /// An edit or delete whose memory changed since it was proposed: the memory as the
    /// person saw it (the proposal's `memoryNow`), to apply the proposal over it anyway.
    /// Refused again (409 `memory_changed`) when the memory changed once more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_now: Option<MemoryVersion>,
}

/// Answer of the proposal routes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ProposalResponse {
    /// The proposal as it stands now.
    pub proposal: Proposal,
    /// Accepted saves: the memory saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory>,
    /// The memories of its bank (the user's own, or the team's) worded much like it: for a
    /// pending save or edit (as in `proposal.similar`), or, once accepted, like the memory
    /// saved or edited.
    #[serde(default)]
    pub similar: Vec<SimilarMemory>,
}

/// Answer of `GET /v1/proposals`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProposalListResponse {
    /// Newest first.
    pub proposals: Vec<Proposal>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// `scope=team` only: the caller's role in the org, which says what the list is. An
    /// admin's or owner's is the whole org Inbox, theirs to decide; a member's holds only
    /// the team proposals they (or their agents) made, to follow, not to decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub your_role: Option<crate::teams::Role>,
}
