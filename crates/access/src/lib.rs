//! The memory actions an agent may take, once, behind [`MemoryAccess`]: search, list,
//! read one memory, propose a save or a delete, follow a proposal, and (for a person
//! who confirmed in the agent's own client) accept or reject it.
//!
//! Two implementations, one contract (the suite in `tests/`): [`LocalAccess`] works on
//! the person's own bank file, the one the desktop app uses, so an agent reaches it
//! whether or not the app is open; [`RemoteAccess`] talks to a memory service with a
//! token. Neither can save or delete without a proposal: confirmation is the
//! proposal being accepted, by the person, in the Inbox or in the agent's client.

mod local;
mod remote;

/// Creating files and folders private to their user (the desktop app reaches it here).
pub use memory_bank_private_files as private_files;
/// The embedding model the local bank searches with (`prepare_process` first in `main`).
pub use memory_bank_meaning as meaning;

use async_trait::async_trait;
use memory_bank_contract::teams::BankScope;
use memory_bank_contract::wire::{
    AcceptProposalRequest, ListResponse, Memory, Proposal, ProposalResponse, ProposeRequest, SearchResult,
};
use memory_bank_contract::{ErrorCode, FieldError};

pub use local::{app_data_dir, bank_file, default_key_source, LocalAccess, APP_IDENTIFIER, LOCAL_EMAIL, LOCAL_ORG};
pub use remote::RemoteAccess;

/// Why an action failed: a stable code and a message saying what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct AccessError {
    /// The API error code (`memory_not_found`, `agent_token_cannot_confirm`, …).
    pub code: ErrorCode,
    /// What went wrong and what to do.
    pub message: String,
    /// Field problems, for `invalid_request` and `looks_like_secret`.
    pub details: Vec<FieldError>,
}

impl AccessError {
    /// An error with no details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: Vec::new() }
    }
}

/// The memory actions, wherever the bank is.
#[async_trait]
pub trait MemoryAccess: Send + Sync {
    /// Where this reaches, for messages (`the local bank at …`, `https://…`).
    fn describe(&self) -> String;

    /// Whether [`accept`](Self::accept) and [`reject`](Self::reject) can succeed: false
    /// for an agent token, which may only propose. Asking the person in the agent's
    /// client is pointless then; the proposal goes to the Inbox.
    fn may_confirm(&self) -> bool;

    /// Best matches first, over the banks `scope` names (`None`: the caller's own and
    /// their org's team bank, ranked together).
    async fn search(&self, query: &str, limit: u32, scope: Option<BankScope>) -> Result<Vec<SearchResult>, AccessError>;

    /// One page, newest first, of the banks `scope` names (`None`: both).
    async fn list(&self, limit: u32, cursor: Option<&str>, scope: Option<BankScope>) -> Result<ListResponse, AccessError>;

    /// One memory, or `memory_not_found`.
    async fn memory(&self, id: &str) -> Result<Memory, AccessError>;

    /// Stores a proposal (a save or a delete) for the person to decide.
    async fn propose(&self, request: ProposeRequest) -> Result<Proposal, AccessError>;

    /// Where a proposal stands.
    async fn proposal(&self, id: &str) -> Result<Proposal, AccessError>;

    /// Accepts a proposal the person confirmed (with their edits). A token that may not
    /// confirm gets `agent_token_cannot_confirm`, and the proposal stays pending.
    async fn accept(&self, id: &str, edits: AcceptProposalRequest) -> Result<ProposalResponse, AccessError>;

    /// Rejects a proposal the person declined.
    async fn reject(&self, id: &str) -> Result<Proposal, AccessError>;
}
