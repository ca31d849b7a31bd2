//! The person's own bank: the SQLite file in the app's data folder, opened directly.
//! SQLite's WAL and busy timeout let the desktop app's embedded service and any
//! number of agent processes write to it at once without losing each other's rows.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use memory_bank_contract::gate::Refused;
use memory_bank_contract::teams::BankScope;
use memory_bank_contract::validate;
use memory_bank_contract::wire::{
    AcceptProposalRequest, ListResponse, Memory, Proposal, ProposalResponse, ProposeRequest, SearchResult,
};
use memory_bank_contract::ErrorCode;
use memory_bank_db_key::{KeyError, KeySource};
use memory_bank_store::{Bank, ProposalError, RecallQuery, RecallRule, Recalled, StoreError, TokenKind};

use crate::{AccessError, MemoryAccess};

/// The desktop app's identifier: its data folder's name.
pub const APP_IDENTIFIER: &str = "dev.memorybank.app";

/// The desktop app's data folder, where the local bank lives: `MEMORY_BANK_DATA_DIR`,
/// else the OS data folder's `dev.memorybank.app` (what Tauri's `app_data_dir` is:
/// `~/.local/share/…` on Linux, `~/Library/Application Support/…` on macOS,
/// `%APPDATA%\…` on Windows).
pub fn app_data_dir() -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("MEMORY_BANK_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(dir.into());
    }
    Some(directories::BaseDirs::new()?.data_dir().join(APP_IDENTIFIER))
}

pub use memory_bank_server::local::{LOCAL_EMAIL, LOCAL_ORG};

/// The local bank and the local user acting in their org.
#[derive(Clone)]
pub struct LocalAccess {
    bank: Bank,
    user_id: String,
    org_id: String,
    path: String,
    /// False for an agent token's caller: the same rule as the HTTP routes.
    may_confirm: bool,
}

/// The local bank's file in `data_dir`.
pub fn bank_file(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("memory.db")
}

/// Where the desktop app and `memory-bank mcp` find the local bank's key: the key file
/// when one is given (`MEMORY_BANK_DB_KEY_FILE`, `--db-key-file`), else the OS keyring
/// (see [`KeySource::local_default`]).
pub fn default_key_source(data_dir: &Path, key_file: Option<std::path::PathBuf>) -> KeySource {
    KeySource::local_default(&bank_file(data_dir), key_file)
}

impl LocalAccess {
    /// Opens (creating if needed) `data_dir/memory.db` with the key from `key` (encrypting
    /// a plaintext bank; see `memory_bank_db_key::open_bank`) and provisions the local
    /// user and org on first use, as the desktop app does.
    pub async fn open(data_dir: &Path, key: &KeySource) -> Result<Self, AccessError> {
        Self::open_searching(data_dir, key, memory_bank_meaning::words_only_from_env()).await
    }

    /// [`LocalAccess::open`], searching by words only when `words_only` (the desktop
    /// app's setting "Search by words only"): no vectors made, no model loaded.
    pub async fn open_searching(data_dir: &Path, key: &KeySource, words_only: bool) -> Result<Self, AccessError> {
        // A folder an older release made readable is tightened; the store creates the bank
        // and its companions private itself.
        crate::private_files::secure_data_dir(data_dir).map_err(|e| {
            AccessError::new(ErrorCode::Internal, format!("cannot prepare the data folder {}: {e}", data_dir.display()))
        })?;
        let path = bank_file(data_dir);
        let store = memory_bank_db_key::open_bank(&format!("sqlite://{}", path.display()), key).await.map_err(key_error)?;
        let bank = memory_bank_meaning::attach(Bank::new(Arc::new(store)), words_only);
        bank.assert_search_index().await.map_err(store_error)?;
        // An older bank's terms are brought to today's scheme in the background; a
        // short command that exits first leaves the rest for the next open.
        tokio::spawn(bank.clone().rewrite_search_terms_logged());
        // Memories without a vector get one in the background (none: the model stays unloaded).
        tokio::spawn(bank.clone().backfill_vectors_forever());
        let (user_id, org_id) =
            memory_bank_server::local::provision_local_account(&bank).await.map_err(store_error)?;
        Ok(Self { bank, user_id, org_id, path: format!("the local memory bank at {}", path.display()), may_confirm: true })
    }

    /// The local bank opened only for what the recall hook reads: nothing is created,
    /// provisioned or started in the background, and the model is never loaded (the
    /// hook answers on every prompt, within the agent's patience). `None` when there is
    /// no bank or no local account yet: nothing to recall.
    pub async fn open_to_recall(data_dir: &Path, key: &KeySource) -> Result<Option<Self>, AccessError> {
        let path = bank_file(data_dir);
        if !path.exists() {
            return Ok(None);
        }
        let store = memory_bank_db_key::open_bank(&format!("sqlite://{}", path.display()), key).await.map_err(key_error)?;
        let bank = Bank::new(Arc::new(store));
        let users = bank.list_users().await.map_err(store_error)?;
        let Some(user) = users.into_iter().find(|u| u.email == LOCAL_EMAIL) else { return Ok(None) };
        let org_id = bank.user_orgs(&user.id).await.map_err(store_error)?.into_iter().next().map(|o| o.id).unwrap_or_default();
        let path = format!("the local memory bank at {}", path.display());
        Ok(Some(Self { bank, user_id: user.id, org_id, path, may_confirm: false }))
    }

    /// The memories that clearly bear on `query` (see `memory_bank_store::recall`).
    pub async fn recall(&self, query: &RecallQuery<'_>, rule: &RecallRule) -> Result<Vec<Recalled>, AccessError> {
        self.bank.recall(&self.user_id, query, rule).await.map_err(store_error)
    }

    /// `user_id` acting in `org_id` on `bank` with a token of `kind` (the service's MCP
    /// endpoint, for the caller a token authenticated). An agent token may not accept or
    /// reject, here as on the HTTP routes, even when its client says the person agreed.
    pub fn for_caller(bank: Bank, user_id: String, org_id: String, kind: TokenKind) -> Self {
        Self { bank, user_id, org_id, path: "this memory service".into(), may_confirm: kind != TokenKind::Agent }
    }

    fn require_person(&self) -> Result<(), AccessError> {
        if self.may_confirm {
            return Ok(());
        }
        Err(AccessError::new(
            ErrorCode::AgentTokenCannotConfirm,
            "an agent token may propose but not confirm; the person decides in Memory Bank's Inbox",
        ))
    }

    /// The bank itself (the embedded service serves it).
    pub fn bank(&self) -> &Bank {
        &self.bank
    }

    /// The local user's id.
    pub fn user_id(&self) -> &str {
        &self.user_id
    }

    /// The org the caller acts in (the local bank's own org).
    pub fn org_id(&self) -> &str {
        &self.org_id
    }
}

fn store_error(err: StoreError) -> AccessError {
    let code = match err {
        StoreError::Unavailable(_) | StoreError::Contended(_) | StoreError::SearchIndexMissing { .. } => {
            ErrorCode::ServiceUnavailable
        }
        StoreError::Invalid(_) => ErrorCode::InvalidRequest,
        StoreError::Refused(ref refused) => return refused_error(refused),
        // The org's own words: its policy or the caller's role (the HTTP routes' codes).
        StoreError::TeamRefused(refusal) => return AccessError::new(refusal.code(), refusal.describe()),
        StoreError::NotFound(ref what) if what.starts_with("org ") => ErrorCode::OrganizationNotFound,
        _ => ErrorCode::Internal,
    };
    AccessError::new(code, format!("the local memory bank failed: {err}"))
}

fn key_error(err: KeyError) -> AccessError {
    match err {
        KeyError::Store(err) => store_error(err),
        // Every other message names its fix (restore the keyring entry, the key file…).
        other => AccessError::new(ErrorCode::Keyring, other.to_string()),
    }
}

fn proposal_error(err: ProposalError) -> AccessError {
    match err {
        ProposalError::NotFound => AccessError::new(ErrorCode::ProposalNotFound, "no such proposal"),
        ProposalError::NotPending(status) => {
            AccessError::new(ErrorCode::ProposalNotPending, format!("the proposal is {} already", status.as_str()))
        }
        ProposalError::MemoryNotFound => AccessError::new(ErrorCode::MemoryNotFound, "no such memory"),
        ProposalError::Refused(refused) => refused_error(&refused),
        ProposalError::MemoryChanged { proposed_against, memory_now } => AccessError::new(
            ErrorCode::MemoryChanged,
            format!(
                "the memory changed since this was proposed (it said “{}”, it says “{}” now); nothing was changed: \
                 the person decides in Memory Bank's Inbox, where both are shown",
                proposed_against.content, memory_now.content
            ),
        ),
        ProposalError::TooMany { limit } => AccessError::new(
            ErrorCode::TooManyProposals,
            format!(
                "{limit} proposals already wait for the person in Memory Bank's Inbox; nothing was stored. Propose again \
                 after they decided some (proposals expire after {} days)",
                memory_bank_contract::limits::PROPOSAL_TTL_DAYS
            ),
        ),
        ProposalError::Store(err) => store_error(err),
    }
}

/// What the gate refused, as the HTTP API says it: `invalid_request` or `looks_like_secret`.
fn refused_error(refused: &Refused) -> AccessError {
    let code = match refused {
        Refused::Invalid(_) => ErrorCode::InvalidRequest,
        Refused::LooksLikeSecret(_) => ErrorCode::LooksLikeSecret,
    };
    AccessError { code, message: refused.describe(), details: refused.details() }
}

fn invalid(details: Vec<memory_bank_contract::FieldError>) -> AccessError {
    let message = details.iter().map(|d| format!("{}: {}", d.path, d.message)).collect::<Vec<_>>().join("; ");
    AccessError { code: ErrorCode::InvalidRequest, message, details }
}

#[async_trait]
impl MemoryAccess for LocalAccess {
    fn describe(&self) -> String {
        self.path.clone()
    }

    fn may_confirm(&self) -> bool {
        self.may_confirm
    }

    async fn search(&self, query: &str, limit: u32, scope: Option<BankScope>) -> Result<Vec<SearchResult>, AccessError> {
        let request = validate::parse_search(Some(query), Some(&limit.to_string()), None).map_err(invalid)?;
        self.bank.search_for(&self.user_id, &self.org_id, scope.unwrap_or_default(), &request).await.map_err(store_error)
    }

    async fn list(&self, limit: u32, cursor: Option<&str>, scope: Option<BankScope>) -> Result<ListResponse, AccessError> {
        let request = validate::parse_list(Some(&limit.to_string()), cursor).map_err(invalid)?;
        let banks = self.bank.banks_for(&self.user_id, &self.org_id, scope.unwrap_or_default()).await.map_err(store_error)?;
        self.bank.list_in(&banks, &request).await.map_err(store_error)
    }

    async fn memory(&self, id: &str) -> Result<Memory, AccessError> {
        let banks = self.bank.banks_for(&self.user_id, &self.org_id, BankScope::All).await.map_err(store_error)?;
        let found = self.bank.memory_in(&banks, id).await.map_err(store_error)?;
        found.ok_or_else(|| AccessError::new(ErrorCode::MemoryNotFound, format!("no memory {id}")))
    }

    async fn propose(&self, request: ProposeRequest) -> Result<Proposal, AccessError> {
        let input = validate::validate_propose(request).map_err(|r| refused_error(&r))?;
        // Through this door it is an agent proposing (the person answers, at most), so
        // the org's `agents_may_propose` applies.
        self.bank.propose(&self.user_id, &self.org_id, input).await.map_err(proposal_error)
    }

    async fn proposal(&self, id: &str) -> Result<Proposal, AccessError> {
        self.bank.proposal_for(&self.user_id, &self.org_id, id).await.map_err(proposal_error)
    }

    async fn accept(&self, id: &str, edits: AcceptProposalRequest) -> Result<ProposalResponse, AccessError> {
        self.require_person()?;
        let accepted = self.bank.accept_proposal_for(&self.user_id, &self.org_id, id, edits).await.map_err(proposal_error)?;
        Ok(ProposalResponse { proposal: accepted.proposal, memory: accepted.memory, similar: accepted.similar })
    }

    async fn reject(&self, id: &str) -> Result<Proposal, AccessError> {
        self.require_person()?;
        self.bank.reject_proposal_for(&self.user_id, &self.org_id, id).await.map_err(proposal_error)
    }
}
