//! The storage trait and the row types it moves.

use async_trait::async_trait;
use memory_bank_contract::validate::Cursor;
use memory_bank_contract::wire::{Citation, ConfirmedVia, Memory, Org, Origin, Proposal, ProposalStatus, Scope, User};
use memory_bank_contract::transfer::{ExportedMemory, ExportedRevision, OnConflict};
use memory_bank_contract::Timestamp;
use memory_bank_contract::teams::Role;

use crate::rank::Tally;
use crate::tokens::TokenKind;
use crate::StoreError;

/// Reads that may refuse a save, run by [`MemoryStore::insert_memory_checked`].
pub type SaveChecks<'a> = futures_util::future::BoxFuture<'a, Result<(), StoreError>>;

/// Most full-text candidates ranked per search. Bounds the work a very common term can
/// cause: the newest matches up to this many are ranked; older ones beyond it are not.
pub const SEARCH_CANDIDATE_CAP: u32 = 1000;

/// Which bank a read touches: a person's own (`scope = 'user'`, owned by their user id)
/// or an org's team bank (`scope = 'org'`, owned by the org's id; `docs/teams.md`).
/// Every statement that takes one filters on both its owner and its scope, so a read of
/// one bank can never return a row of another, whatever ids it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankKey<'a> {
    /// The person's own bank: their user id.
    Personal(&'a str),
    /// An org's team bank: the org's id.
    Team(&'a str),
}

impl<'a> BankKey<'a> {
    /// The rows' `user_id`: the person's id, or the org's for its team bank.
    pub fn owner(self) -> &'a str {
        match self {
            BankKey::Personal(owner) | BankKey::Team(owner) => owner,
        }
    }

    /// The rows' `scope`.
    pub fn scope(self) -> Scope {
        match self {
            BankKey::Personal(_) => Scope::User,
            BankKey::Team(_) => Scope::Org,
        }
    }
}

/// Who changes which bank: every write to a memory or a proposal names both, so a team
/// bank's change is written to its org's audit log, by its actor, in the change's own
/// transaction (the store does it; no caller can forget it). In a personal bank the actor
/// is its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change<'a> {
    /// The bank changed (or, for a proposal, the Inbox it waits in).
    pub bank: BankKey<'a>,
    /// The person changing it: the owner, an org's admin, or the member proposing.
    pub actor: &'a str,
}

impl<'a> Change<'a> {
    /// The owner changing their own bank.
    pub fn personal(user_id: &'a str) -> Change<'a> {
        Change { bank: BankKey::Personal(user_id), actor: user_id }
    }

    /// `actor` changing the org's team bank.
    pub fn team(org_id: &'a str, actor: &'a str) -> Change<'a> {
        Change { bank: BankKey::Team(org_id), actor }
    }
}

/// A memory ready to insert: ids, timestamp and search terms already decided.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMemory {
    /// `mem_…`
    pub id: String,
    /// Owner: the person, or for a team memory (`scope: org`) its org.
    pub user_id: String,
    /// Org active at save time (a team memory's own org).
    pub org_id: String,
    /// `user` (the person's bank) or `org` (the org's team bank).
    pub scope: Scope,
    /// Trimmed content.
    pub content: String,
    /// Source label (`chat`).
    pub source: String,
    /// Tags, or `None`.
    pub tags: Option<Vec<String>>,
    /// One instant for the row, its contexts and the response.
    pub created_at: Timestamp,
    /// Space-separated user-scoped terms from [`crate::terms::index_text`].
    pub search_text: String,
    /// Contexts, in order; their ids sort in that order.
    pub contexts: Vec<NewContext>,
    /// How a person confirmed it, when known.
    pub confirmed_via: Option<ConfirmedVia>,
    /// The MCP client that proposed it, when it came from a proposal.
    pub proposed_by: Option<String>,
    /// Team memories: the member who saved it (its author); `None` in a personal bank.
    pub saved_by: Option<String>,
    /// Team memories: the admin or owner who confirmed it; `None` in a personal bank.
    pub confirmed_by: Option<String>,
}

/// A context row ready to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewContext {
    /// `mctx_…`
    pub id: String,
    /// Trimmed snippet.
    pub snippet: String,
    /// Cited ids, or `None`.
    pub citation: Option<Citation>,
    /// Origin, or `None`.
    pub origin: Option<Origin>,
}

impl NewMemory {
    /// A plain user-scoped chat memory saved at `at` (ms since the epoch): a new id for
    /// that instant, its search terms indexed, no tags or contexts. What bulk loads
    /// (benchmarks, comparison tests) insert.
    pub fn plain(user_id: &str, org_id: &str, content: String, at: i64) -> NewMemory {
        NewMemory {
            id: memory_bank_contract::ids::new_id_at(memory_bank_contract::ids::MEMORY_PREFIX, at),
            user_id: user_id.to_owned(),
            org_id: org_id.to_owned(),
            scope: Scope::User,
            search_text: crate::terms::index_text(user_id, [content.as_str()]),
            content,
            source: "chat".into(),
            tags: None,
            created_at: Timestamp::from_unix_ms(at),
            contexts: Vec::new(),
            confirmed_via: None,
            proposed_by: None,
            saved_by: None,
            confirmed_by: None,
        }
    }

    /// The memory as a reader will see it.
    pub fn to_memory(&self) -> Memory {
        Memory {
            id: self.id.clone(),
            content: self.content.clone(),
            tags: self.tags.clone(),
            source: self.source.clone(),
            scope: self.scope,
            org_id: self.org_id.clone(),
            created_at: self.created_at,
            updated_at: self.created_at,
            contexts: self
                .contexts
                .iter()
                .map(|c| memory_bank_contract::wire::MemoryContext {
                    id: c.id.clone(),
                    snippet: c.snippet.clone(),
                    citation: c.citation.clone(),
                    origin: c.origin,
                    created_at: self.created_at,
                })
                .collect(),
            confirmed_via: self.confirmed_via,
            proposed_by: self.proposed_by.clone(),
            imported_from: None,
            saved_by: self.saved_by.clone(),
            confirmed_by: self.confirmed_by.clone(),
        }
    }
}

/// A new version of a memory, decided by the bank: what replaces content, tags and the
/// search terms, and the revision id that keeps the version replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryUpdate {
    /// Trimmed new content (the old one when only tags change).
    pub content: String,
    /// New tags, or `None`.
    pub tags: Option<Vec<String>>,
    /// The row's new search terms (content, tags and the unchanged snippets).
    pub search_text: String,
    /// When the edit happened: the memory's new `updated_at`, the revision's `replaced_at`.
    pub updated_at: Timestamp,
    /// How the person confirmed the edit.
    pub confirmed_via: Option<ConfirmedVia>,
    /// `mrev_…` for the version being replaced.
    pub revision_id: String,
}

/// A memory to import as it was exported, with its search terms decided by the bank.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportRow {
    /// The memory, its contexts and revisions, ids and timestamps as given.
    pub memory: ExportedMemory,
    /// Its search terms (content, tags and snippets).
    pub search_text: String,
}

/// What importing one row did, and the memory's id in the bank: the row's own, or
/// the one [`crate::import_ids`] chose because the row's was taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOutcome {
    /// What happened.
    pub kind: ImportKind,
    /// The memory's id in the bank.
    pub id: String,
}

/// What importing one row did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportKind {
    /// A new memory.
    Imported,
    /// The caller had it; left as it was.
    Skipped,
    /// The caller had it; replaced.
    Overwritten,
}

/// Whose rows offboarding removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offboard<'a> {
    /// A user: their memories (with contexts and revisions), proposals, tokens,
    /// memberships and the user.
    User(&'a str),
    /// An org: the memories and proposals recorded with it, its memberships and the org.
    Org(&'a str),
}

/// What accepting a proposal does, in the same transaction as marking it accepted.
#[derive(Debug, Clone, Copy)]
pub enum Decision<'a> {
    /// Inserts this memory (the proposal records its id).
    Save(&'a NewMemory),
    /// Deletes the caller's memory with this id, if it still exists.
    Delete(&'a str),
    /// Writes this new version of the caller's memory with this id (keeping the old one
    /// as a revision), if it still exists.
    Edit(&'a str, &'a MemoryUpdate),
}

impl Decision<'_> {
    /// The memory the accepted proposal records: the one saved, or the one a save
    /// accepted as an edit rewrote (a delete records none: its memory is gone).
    pub fn memory_id(&self) -> Option<&str> {
        match self {
            Decision::Save(memory) => Some(memory.id.as_str()),
            Decision::Edit(memory_id, _) => Some(memory_id),
            Decision::Delete(_) => None,
        }
    }
}

/// A full-text match before ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Memory id.
    pub id: String,
    /// Its creation time (tie-break: newest first).
    pub created_at: Timestamp,
    /// Its stored search terms without the owner code, for scoring in the app
    /// ([`crate::terms::candidate_terms`]).
    pub terms: String,
}

/// A store's own key for a memory row ([`MemoryStore::term_rows`]): SQLite's row number,
/// MySQL's memory id.
pub type RowKey = String;

/// A term's rows in a bank, read up to a cap ([`MemoryStore::term_rows`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermRows {
    /// At least the cap hold it: a common term. Its rows are counted, not read out,
    /// since no caller uses a common term's rows (and 500 keys a term cost a save 0.1 ms).
    Common,
    /// Every row holding it, fewer than the cap.
    Rows(Vec<RowKey>),
}

impl TermRows {
    /// How many rows hold the term, `cap` when it is common.
    pub fn count(&self, cap: u32) -> u32 {
        match self {
            TermRows::Common => cap,
            TermRows::Rows(keys) => u32::try_from(keys.len()).unwrap_or(u32::MAX).min(cap),
        }
    }
}

/// A memory's sentence, for the duplicate hint's comparison of wording.
#[derive(Debug, Clone, PartialEq)]
pub struct Worded {
    /// Memory id.
    pub id: String,
    /// Its creation time (tie-break: newest first).
    pub created_at: Timestamp,
    /// The sentence.
    pub content: String,
}

/// How far the rewrite of stored search terms has come: every memory is in scheme
/// `version`, except, while `version` is below the current one, those after
/// `done_through` (by id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermsProgress {
    /// The scheme reached by every memory up to `done_through`.
    pub version: i64,
    /// The last memory id rewritten; `None` before the first batch.
    pub done_through: Option<String>,
}

/// A memory's texts, from which its search terms are derived.
#[derive(Debug, Clone, PartialEq)]
pub struct TermsSource {
    /// Memory id.
    pub id: String,
    /// Its owner (the terms' scope).
    pub user_id: String,
    /// The sentence.
    pub content: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its contexts' snippets.
    pub snippets: Vec<String>,
    /// The terms stored now.
    pub search_text: String,
}

impl TermsSource {
    /// A row as both stores read it: tags and snippets as JSON arrays of strings, read
    /// the way every stored memory's tags are ([`crate::stored::parse_tags`]).
    pub fn from_stored(
        id: String,
        user_id: String,
        content: String,
        tags: Option<&str>,
        snippets: Option<&str>,
        search_text: String,
    ) -> TermsSource {
        let tags = crate::stored::parse_tags(tags).unwrap_or_default();
        let snippets = crate::stored::parse_tags(snippets).unwrap_or_default();
        TermsSource { id, user_id, content, tags, snippets, search_text }
    }
}

/// New terms for one memory, applied only if its terms are still `old`.
#[derive(Debug, Clone, PartialEq)]
pub struct TermsRewrite {
    /// Memory id.
    pub id: String,
    /// The terms read.
    pub old: String,
    /// The terms in today's scheme.
    pub new: String,
}

/// A memory's vector to write, made from the text whose search terms are `search_text`.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorRow {
    /// Memory id.
    pub memory_id: String,
    /// Its owner.
    pub user_id: String,
    /// The memory's search terms when its text was read: the row is written only while
    /// they are still the same (an edit in between changes them, and makes its own).
    pub search_text: String,
    /// The stored bytes ([`crate::meaning::vector::encode`]).
    pub vector: Vec<u8>,
}

/// A stored vector, as a person's in-memory copy reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVector {
    /// Grows with every write.
    pub seq: i64,
    /// Memory id.
    pub memory_id: String,
    /// The stored bytes.
    pub vector: Vec<u8>,
}

/// How many vectors of a model a user has, and the highest `seq` among them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VectorSummary {
    /// Rows.
    pub count: u64,
    /// Highest `seq`; 0 when none.
    pub max_seq: i64,
}

/// Who a live token belongs to and what it may do.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenOwner {
    /// The token's own id (`tok_…`, never the secret): what the rate limit counts by.
    pub token_id: String,
    /// The token's user.
    pub user: User,
    /// Its kind.
    pub kind: TokenKind,
}

/// What [`MemoryStore::ensure_search_index`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnsureOutcome {
    /// True only for the one caller that created the index.
    pub created: bool,
}

/// What [`MemoryStore::optimize_search_index`] did: the full-text index's size on
/// disk before and after, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptimizeOutcome {
    /// Bytes the index took before; `None` when the database does not tell this user.
    pub before_bytes: Option<u64>,
    /// Bytes it takes now; `None` when the database does not tell this user.
    pub after_bytes: Option<u64>,
}

/// Everything Memory Bank needs from a database. Implementations must bind every
/// value as a parameter, filter every memory read and delete by owner and
/// `scope = 'user'`, and run multi-row writes in one transaction.
#[async_trait]
pub trait MemoryStore: crate::TeamStore + Send + Sync + 'static {
    /// Short backend name used in messages (`sqlite`, `mysql`).
    fn backend(&self) -> &'static str;

    /// Cheap round trip to check the database answers.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Applies pending migrations, then [`Self::ensure_search_index`]. Idempotent.
    async fn migrate(&self) -> Result<EnsureOutcome, StoreError>;

    /// Creates the full-text index (and backfills it) when missing, under one fixed
    /// name. Safe to run concurrently: exactly one caller reports `created`.
    async fn ensure_search_index(&self) -> Result<EnsureOutcome, StoreError>;

    /// Whether the full-text index exists.
    async fn search_index_exists(&self) -> Result<bool, StoreError>;

    /// Rewrites the full-text index compactly (`memory-bank db optimize`): SQLite merges
    /// its FTS5 segments, MySQL packs the pages of its index table. Search does not need
    /// it to stay fast. Results never change. Saves may wait while it runs; searches do not.
    async fn optimize_search_index(&self) -> Result<OptimizeOutcome, StoreError>;

    /// The full-text index's size on disk, in bytes; `None` when the database does
    /// not tell this user.
    async fn search_index_bytes(&self) -> Result<Option<u64>, StoreError>;

    /// Creates a user. The email must be unique.
    async fn create_user(&self, id: &str, email: &str, now: Timestamp) -> Result<User, StoreError>;

    /// All users, oldest first.
    async fn list_users(&self) -> Result<Vec<User>, StoreError>;

    /// Creates an org.
    async fn create_org(&self, id: &str, name: &str, now: Timestamp) -> Result<Org, StoreError>;

    /// Adds a user to an org with `role`, or, when `None`, as its owner if it has none yet
    /// and else as a member. Adding someone already a member changes nothing (their role
    /// is [`crate::TeamStore::set_member_role`]'s to change). `NotFound` if either is missing.
    async fn add_member(&self, org_id: &str, user_id: &str, role: Option<Role>, now: Timestamp) -> Result<(), StoreError>;

    /// The orgs a user belongs to, by name.
    async fn user_orgs(&self, user_id: &str) -> Result<Vec<Org>, StoreError>;

    /// Whether the user is a member of the org (false when either does not exist).
    async fn is_member(&self, user_id: &str, org_id: &str) -> Result<bool, StoreError>;

    /// Stores a token hash of this kind for a user. `NotFound` if the user is missing.
    async fn insert_token(
        &self,
        id: &str,
        user_id: &str,
        token_hash: &str,
        kind: TokenKind,
        now: Timestamp,
    ) -> Result<(), StoreError>;

    /// Revokes the token with this hash; false if there is no live token with it.
    async fn revoke_token(&self, token_hash: &str, now: Timestamp) -> Result<bool, StoreError>;

    /// Revokes every live token of this kind of the user; how many there were.
    async fn revoke_tokens_of_kind(
        &self,
        user_id: &str,
        kind: TokenKind,
        now: Timestamp,
    ) -> Result<u64, StoreError>;

    /// The owner and kind of a live (not revoked) token with this hash.
    async fn token_owner(&self, token_hash: &str) -> Result<Option<TokenOwner>, StoreError>;

    /// Inserts a memory, its contexts and its search terms in one transaction: all of
    /// them or none. A store may commit other saves in the same transaction (SQLite
    /// groups the saves that wait for its writer); each still succeeds or fails alone.
    /// While the org the memory records (`org_id`) has memory turned off, nothing is
    /// written and the answer is `TeamRefused(OrgMemoryDisabled)`: the kill switch is
    /// read inside the insert's own transaction, so no save slips past a switch
    /// turned off while it ran, and a save needs no separate read of it.
    async fn insert_memory(&self, memory: &NewMemory) -> Result<(), StoreError>;

    /// [`Self::insert_memory`], committed only once `checks` (reads that may refuse the
    /// save: the quota's count) passed; nothing is written unless both succeed, and the
    /// insert's own refusal (the kill switch) answers before the checks'. A store may run
    /// the two side by side (MySQL: the checks' reads on other connections while the
    /// insert's statements run, a round trip fewer than one after the other).
    async fn insert_memory_checked(&self, memory: &NewMemory, checks: SaveChecks<'_>) -> Result<(), StoreError> {
        checks.await?;
        self.insert_memory(memory).await
    }

    /// Inserts many memories in one transaction (bulk import, benchmarks), refused as a
    /// whole as [`Self::insert_memory`] is.
    async fn insert_memories(&self, memories: &[NewMemory]) -> Result<(), StoreError>;

    /// The bank's memories, newest first (`created_at`, then id), strictly after
    /// `cursor`, at most `limit`, with contexts.
    async fn list_memories(&self, bank: BankKey<'_>, cursor: Option<&Cursor>, limit: u32) -> Result<Vec<Memory>, StoreError>;

    /// How many memories the bank holds. A store may keep the number beside the rows
    /// rather than count them.
    async fn count_memories(&self, bank: BankKey<'_>) -> Result<u64, StoreError>;

    /// The bank's rows counted one by one, whatever [`Self::count_memories`] keeps: what
    /// a quota refusal is decided on, so a kept number that went wrong (a release that
    /// did not keep it wrote rows) never refuses a save there is room for.
    async fn recount_memories(&self, bank: BankKey<'_>) -> Result<u64, StoreError> {
        self.count_memories(bank).await
    }

    /// The bank's newest memories whose index holds any of the `terms`, already scoped
    /// to the bank's owner ([`crate::terms::scope_terms`]), at most `cap`.
    async fn search_candidates(&self, bank: BankKey<'_>, scoped_terms: &[String], cap: u32) -> Result<Vec<Candidate>, StoreError>;

    /// [`Self::search_candidates`] of several banks (a person's own and their team's), in
    /// `banks`' order, each with its own scoped terms and its own `cap`. The default asks
    /// every bank at once, each on its own; a store may answer them together when one
    /// request costs less than two (SQLite: on one reader, one after the other).
    async fn search_candidates_in(&self, banks: &[(BankKey<'_>, Vec<String>)], cap: u32) -> Result<Vec<Vec<Candidate>>, StoreError> {
        futures_util::future::try_join_all(banks.iter().map(|(bank, terms)| self.search_candidates(*bank, terms, cap))).await
    }

    /// [`Self::search_candidates_in`]'s candidates handed to `tally` (with their bank's
    /// index in `banks`) rather than kept: a search needs a candidate's terms only to
    /// count the query's in them. The default reads the lists and hands them over; a
    /// store that steps its rows itself (SQLite) hands over each row's terms where they
    /// lie, uncopied.
    async fn tally_candidates_in(&self, banks: &[(BankKey<'_>, Vec<String>)], cap: u32, tally: &mut Tally<'_>) -> Result<(), StoreError> {
        for (bank, candidates) in self.search_candidates_in(banks, cap).await?.iter().enumerate() {
            for candidate in candidates {
                tally.add(bank, &candidate.id, candidate.created_at, &candidate.terms);
            }
        }
        Ok(())
    }

    /// For each term, already scoped to the bank's owner, the keys of the bank's rows
    /// whose index holds it, or [`TermRows::Common`] when `cap` or more do (one
    /// posting-list read per term, bounded by the cap). The duplicate hint counts its
    /// candidates from these (similar.rs). A list may hold rows that do not hold the term
    /// or are another bank's (a code collision), never miss one.
    async fn term_rows(&self, bank: BankKey<'_>, scoped_terms: &[String], cap: u32) -> Result<Vec<TermRows>, StoreError>;

    /// The memories of `bank` among these row keys, with their sentences (other banks'
    /// rows are left out).
    async fn worded_rows(&self, bank: BankKey<'_>, keys: &[RowKey]) -> Result<Vec<Worded>, StoreError>;

    /// The memories of `bank` among these row keys as search candidates: their terms
    /// without the owner code, not their sentences (other banks' rows are left out). The
    /// duplicate hint checks many rows' terms with these before reading any sentence.
    async fn candidate_rows(&self, bank: BankKey<'_>, keys: &[RowKey]) -> Result<Vec<Candidate>, StoreError>;

    /// How far stored search terms have been rewritten to [`crate::terms::TERMS_VERSION`].
    async fn terms_progress(&self) -> Result<TermsProgress, StoreError>;

    /// Up to `limit` memories of any owner and scope with ids after `after`, in id
    /// order, with the texts their terms are made from.
    async fn memories_for_terms(&self, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError>;

    /// In one transaction: each row's `search_text` replaced where it is still the one
    /// read (a memory edited meanwhile already has new terms), and `progress` recorded.
    /// Returns how many rows were replaced.
    async fn rewrite_terms(&self, rows: &[TermsRewrite], progress: &TermsProgress) -> Result<u64, StoreError>;

    /// Memories with no vector made by `model`, in id order after `after`, at most
    /// `limit`, with the texts a vector is made from: what the backfill reads.
    async fn memories_without_vector(&self, model: &str, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError>;

    /// Writes vectors made by `model`, each replacing its memory's, and each only while
    /// the memory's search terms are still the row's `search_text`. How many it wrote.
    async fn put_vectors(&self, model: &str, rows: &[VectorRow]) -> Result<u64, StoreError>;

    /// The user's vectors made by `model` whose `seq` is above `after_seq`, in `seq`
    /// order, at most `limit`.
    async fn vectors_after(&self, user_id: &str, model: &str, after_seq: i64, limit: u32) -> Result<Vec<StoredVector>, StoreError>;

    /// How many vectors made by `model` the user has, and their highest `seq`.
    async fn vector_summary(&self, user_id: &str, model: &str) -> Result<VectorSummary, StoreError>;

    /// How many memories the bank holds, and how many of them have a vector made by
    /// `model` (`db status`).
    async fn vector_coverage(&self, model: &str) -> Result<(u64, u64), StoreError>;

    /// Deletes every vector made by a model other than `model`; how many.
    async fn drop_other_vectors(&self, model: &str) -> Result<u64, StoreError>;

    /// Ids of the bank's memories with a context citing the session
    /// `conversation_id`, newest first (`created_at`, then id), at most `limit`.
    async fn citing_memory_ids(&self, bank: BankKey<'_>, conversation_id: &str, limit: u32) -> Result<Vec<String>, StoreError>;

    /// The bank's memories with these ids, with contexts, any order.
    async fn memories_by_ids(&self, bank: BankKey<'_>, ids: &[String]) -> Result<Vec<Memory>, StoreError>;

    /// Deletes the bank's memory, its contexts and its revisions in one transaction (a
    /// team bank's with its `deleted` audit line). False when the bank has no such row.
    async fn delete_memory(&self, by: Change<'_>, id: &str, now: Timestamp) -> Result<bool, StoreError>;

    /// In one transaction: keeps the bank's memory as it is now as a revision (its
    /// content, tags, `updated_at` as `created_at`, confirmation), then writes `update`
    /// to the row and its full-text entry (a team bank's with its `edited` audit line).
    /// False (nothing changed) when the bank has no such memory.
    async fn update_memory(&self, by: Change<'_>, id: &str, update: &MemoryUpdate) -> Result<bool, StoreError>;

    /// The user's revisions of these memories, by memory then most recently replaced
    /// first, each with the claim of its import file if it was imported.
    async fn revisions(&self, user_id: &str, memory_ids: &[String]) -> Result<Vec<ExportedRevision>, StoreError>;

    /// Imports `rows` for the user in `org_id`, in one transaction, keeping their
    /// timestamps and, where they are free, their ids: one outcome per row, in order.
    /// A row the user has (under its id or the one an earlier import gave it, see
    /// [`crate::import_ids`]) is skipped or overwritten; ids other rows have are
    /// replaced as [`crate::import_ids`] says, so no row is refused for its ids.
    async fn import_memories(
        &self,
        user_id: &str,
        org_id: &str,
        rows: &[ImportRow],
        on_conflict: OnConflict,
    ) -> Result<Vec<ImportOutcome>, StoreError>;

    /// First step of offboarding, so nothing new arrives while it runs: deletes the
    /// user's tokens, or the org's memberships. False when the user or org does not exist.
    async fn offboard_start(&self, target: Offboard<'_>) -> Result<bool, StoreError>;

    /// Deletes up to `batch` of the target's memories, each with its contexts,
    /// revisions and search entry, in one transaction; how many. Zero when none is left.
    async fn offboard_memories(&self, target: Offboard<'_>, batch: u32) -> Result<u64, StoreError>;

    /// Last step, in one transaction: the target's proposals and memberships, then the
    /// user or org itself. `Conflict` (nothing changed) if a memory of it is still there.
    async fn offboard_finish(&self, target: Offboard<'_>) -> Result<(), StoreError>;

    /// Stores a new proposal (its `status` is `pending`), with what it was proposed
    /// against, in the Inbox of `by.bank` (the person's own, or the org's for a team
    /// bank, with its `proposed` audit line), unless `by.actor` already has `max_pending`
    /// proposals pending there and not expired at its `created_at`: false then, and
    /// nothing is stored. The count and the insert are one atomic step, so parallel
    /// proposals cannot pass the cap.
    async fn insert_proposal(&self, by: Change<'_>, proposal: &Proposal, max_pending: u32) -> Result<bool, StoreError>;

    /// The proposal with this id in the Inbox of `bank` (a person's own, or an org's),
    /// with its stored status (`pending` even past `expires_at`: the caller decides what
    /// expired means at its `now`).
    async fn proposal(&self, bank: BankKey<'_>, id: &str) -> Result<Option<Proposal>, StoreError>;

    /// The proposals in the Inbox of `bank`, newest first, strictly after `cursor`, at
    /// most `limit`. `Pending` means pending and not expired at `now`; `Expired` pending
    /// and expired. With `proposer`, a team Inbox's proposals by that person only (a
    /// personal Inbox's are all its owner's: it is ignored there).
    async fn list_proposals(
        &self,
        bank: BankKey<'_>,
        proposer: Option<&str>,
        status: Option<ProposalStatus>,
        now: Timestamp,
        cursor: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<Proposal>, StoreError>;

    /// In one transaction: marks the proposal in the Inbox of `by.bank` accepted if it is
    /// pending and not expired at `now`, then carries out `decision` on that bank (a team
    /// bank's with the `accepted` audit line and the change's own). False (and nothing
    /// changed) when it is not pending any more.
    async fn accept_proposal(&self, by: Change<'_>, id: &str, decision: Decision<'_>, now: Timestamp) -> Result<bool, StoreError>;

    /// Marks the proposal in the Inbox of `by.bank` rejected if it is pending and not
    /// expired at `now` (a team bank's with its `rejected` audit line).
    async fn reject_proposal(&self, by: Change<'_>, id: &str, now: Timestamp) -> Result<bool, StoreError>;

    /// How many proposals, of every user, are pending and not expired at `now` (the
    /// `proposals_pending` gauge of `serve --metrics`). Reads the `(status, expires_at)`
    /// index alone: its cost follows the proposals waiting (at most
    /// `MAX_PENDING_PROPOSALS` a person), not the history of decided ones.
    async fn count_pending_proposals(&self, now: Timestamp) -> Result<u64, StoreError>;
}
