//! [`Bank`]: the store-agnostic operations behind every route and CLI command.

use std::collections::HashMap;

use std::sync::Arc;

use memory_bank_contract::ids::{self, CONTEXT_PREFIX, MEMORY_PREFIX, ORG_PREFIX, TOKEN_PREFIX, USER_PREFIX};
use memory_bank_contract::limits::SOURCE_CHAT;
use memory_bank_contract::validate::{Cursor, ValidList, ValidSave, ValidSearch};
use memory_bank_contract::wire::{ListResponse, Matched, Memory, Org, Scope, SearchResult, User};
use memory_bank_contract::Timestamp;

use crate::store::{BankKey, MemoryStore, NewContext, NewMemory, TokenOwner, SEARCH_CANDIDATE_CAP};
use crate::tokens::TokenKind;
use crate::meaning::{fuse, Meaning, MeaningError, WORDS_DEPTH};
use crate::events::{BankEvent, BankEvents, CreatedVia};
use crate::{rank, terms, tokens, StoreError};

/// Source of "now". The system clock in production; tests may fix it.
pub trait Clock: Send + Sync + 'static {
    /// The current instant, millisecond precision.
    fn now(&self) -> Timestamp;
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// Memory Bank's operations over any [`MemoryStore`]. Cheap to clone.
#[derive(Clone)]
pub struct Bank {
    store: Arc<dyn MemoryStore>,
    clock: Arc<dyn Clock>,
    /// Most memories one user may have (`serve --max-memories-per-user`); `None`: no cap.
    max_memories_per_user: Option<u64>,
    /// Search by meaning too; `None`: by words alone.
    meaning: Option<Arc<Meaning>>,
    /// Told what the bank did (`serve --metrics`); `None`: nobody.
    events: Option<Arc<dyn BankEvents>>,
    /// Terms the duplicate hint found common, so not read again (see `similar`).
    common_terms: Arc<crate::similar::CommonTerms>,
    /// Whether every memory's terms are in today's scheme (see `search_terms`).
    scheme_current: Arc<crate::search_terms::SchemeCurrent>,
}

impl Bank {
    /// A bank over `store` using the system clock.
    pub fn new(store: Arc<dyn MemoryStore>) -> Self {
        Self::with_clock(store, Arc::new(SystemClock))
    }

    /// A bank over `store` with a custom clock.
    pub fn with_clock(store: Arc<dyn MemoryStore>, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            max_memories_per_user: None,
            meaning: None,
            events: None,
            common_terms: Default::default(),
            scheme_current: Default::default(),
        }
    }

    /// This bank with a per-user cap on memories: a save or an accepted proposal that
    /// would pass it is refused ([`StoreError::QuotaExceeded`]); an import takes the
    /// lines that fit and reports each one past it (`quota_exceeded`).
    pub fn with_memory_quota(mut self, max_memories_per_user: Option<u64>) -> Self {
        self.max_memories_per_user = max_memories_per_user;
        self
    }

    /// This bank with search by meaning, through `meaning`'s model: vectors are made on
    /// every save and edit, and by [`Bank::backfill_vectors`] for the rest.
    pub fn with_meaning(mut self, meaning: Meaning) -> Self {
        self.meaning = Some(Arc::new(meaning));
        self
    }

    /// This bank telling `events` what it does: memories created, searches, proposals
    /// made and decided, memories refused for the cap ([`BankEvent`]). Clones made
    /// afterwards tell them too; set it before handing the bank out.
    pub fn with_events(mut self, events: Arc<dyn BankEvents>) -> Self {
        self.events = Some(events);
        self
    }

    /// Tells the events' listener, if there is one.
    pub(crate) fn record(&self, event: BankEvent) {
        if let Some(events) = &self.events {
            events.record(event);
        }
    }

    /// Meaning search, when this bank has it.
    pub fn meaning(&self) -> Option<&Meaning> {
        self.meaning.as_deref()
    }

    pub(crate) fn meaning_arc(&self) -> Option<Arc<Meaning>> {
        self.meaning.clone()
    }

    /// The per-user cap on memories, if any.
    pub(crate) fn max_memories_per_user(&self) -> Option<u64> {
        self.max_memories_per_user
    }

    /// Refuses `adding` more memories for the user when that would pass the cap. Checked
    /// before the write, so concurrent saves may pass it by as many as are in flight.
    pub(crate) async fn check_quota(&self, user_id: &str, adding: u64) -> Result<(), StoreError> {
        let have = self.count_for_quota(user_id, adding).await?;
        self.refuse_past_quota(user_id, have, adding)
    }

    /// How many memories the user has, when the cap applies to adding `adding`.
    async fn count_for_quota(&self, user_id: &str, adding: u64) -> Result<Option<u64>, StoreError> {
        let Some(limit) = self.max_memories_per_user.filter(|_| adding > 0) else { return Ok(None) };
        self.count_against(BankKey::Personal(user_id), adding, limit).await.map(Some)
    }

    /// How many memories `bank` holds, for a cap of `limit` on adding `adding`: the
    /// number the store keeps, and when that would refuse, the rows counted one by one
    /// ([`MemoryStore::recount_memories`]), so every refusal stands on an exact count.
    pub(crate) async fn count_against(&self, bank: BankKey<'_>, adding: u64, limit: u64) -> Result<u64, StoreError> {
        let kept = self.store.count_memories(bank).await?;
        if kept.saturating_add(adding) <= limit {
            return Ok(kept);
        }
        self.store.recount_memories(bank).await
    }

    /// Whether `adding` more memories to the `have` a user has passes the cap: the
    /// decision alone, neither logged nor counted.
    fn past_quota(&self, have: Option<u64>, adding: u64) -> Result<(), StoreError> {
        match (self.max_memories_per_user, have) {
            (Some(limit), Some(have)) if have + adding > limit => Err(StoreError::QuotaExceeded { limit }),
            _ => Ok(()),
        }
    }

    /// Logs and counts a quota refusal, once it is the answer.
    fn quota_refused(&self, user_id: &str, adding: u64, limit: u64) {
        tracing::info!(user_id, adding, limit, "memory.quota_exceeded");
        self.record(BankEvent::QuotaRefused { count: adding });
    }

    /// [`Self::check_quota`]'s decision, once the user's memories (`have`) are counted.
    fn refuse_past_quota(&self, user_id: &str, have: Option<u64>, adding: u64) -> Result<(), StoreError> {
        let answer = self.past_quota(have, adding);
        if let Err(StoreError::QuotaExceeded { limit }) = answer {
            self.quota_refused(user_id, adding, limit);
        }
        answer
    }

    /// The underlying store.
    pub fn store(&self) -> &dyn MemoryStore {
        self.store.as_ref()
    }

    pub(crate) fn common_terms(&self) -> &crate::similar::CommonTerms {
        &self.common_terms
    }

    pub(crate) fn scheme_current(&self) -> &crate::search_terms::SchemeCurrent {
        &self.scheme_current
    }

    /// Saves a validated memory for `user_id`, recording `org_id`: into their own bank,
    /// or, when the save asks for `scope: org`, into the org's team bank
    /// ([`Bank::save_to_team`], admins and owners only). Source `chat`; one timestamp
    /// stamps the rows and the result. Refused while the org has memory turned off.
    pub async fn save(&self, user_id: &str, org_id: &str, input: ValidSave) -> Result<Memory, StoreError> {
        if input.scope == Scope::Org {
            return self.save_to_team(user_id, org_id, input).await;
        }
        let memory = new_memory(user_id, org_id, input, self.clock.now(), None);
        match self.max_memories_per_user {
            // The insert reads the kill switch itself: nothing to read before it.
            None => self.store.insert_memory(&memory).await?,
            // With a quota, the count; the store may read it beside its insert. The kill
            // switch still answers before the quota: read when the count would refuse
            // (only then: on a server each read is a connection's round trips).
            Some(_) => {
                let checks = async {
                    let have = self.count_for_quota(user_id, 1).await?;
                    let past = self.past_quota(have, 1);
                    if past.is_err() && !self.store.org_policy(org_id).await?.memory_enabled {
                        return Err(StoreError::TeamRefused(memory_bank_contract::teams::TeamRefusal::OrgMemoryDisabled));
                    }
                    past
                };
                if let Err(refused) = self.store.insert_memory_checked(&memory, Box::pin(checks)).await {
                    // A quota refusal is counted only when it is the answer.
                    if let StoreError::QuotaExceeded { limit } = refused {
                        self.quota_refused(user_id, 1, limit);
                    }
                    return Err(refused);
                }
            }
        }
        self.remember_meaning(user_id, &memory.id, &memory.search_text, &memory.content, memory.tags.as_deref().unwrap_or_default()).await;
        tracing::info!(
            memory_id = %memory.id, user_id, org_id, contexts = memory.contexts.len(),
            content_len = memory.content.chars().count(), "memory.save"
        );
        self.record(BankEvent::MemoriesCreated { via: CreatedVia::Save, count: 1 });
        Ok(memory.to_memory())
    }

    /// One of the user's memories, with its contexts; `None` for a malformed id too.
    pub async fn memory(&self, user_id: &str, id: &str) -> Result<Option<Memory>, StoreError> {
        self.memory_in(&[BankKey::Personal(user_id)], id).await
    }

    /// The memory `id` from whichever of `banks` holds it, with its contexts; `None`
    /// when none does, and for a malformed id.
    pub async fn memory_in(&self, banks: &[BankKey<'_>], id: &str) -> Result<Option<Memory>, StoreError> {
        if !ids::is_valid(MEMORY_PREFIX, id) {
            return Ok(None);
        }
        for bank in banks {
            if let Some(memory) = self.store.memories_by_ids(*bank, &[id.to_owned()]).await?.pop() {
                return Ok(Some(memory));
            }
        }
        Ok(None)
    }

    /// "Now" by this bank's clock (an import checks its lines' times against it).
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }


    /// Search over the user's memories: by their words (content, snippets and tags, in
    /// any form of each word) and, when this bank has a model, by meaning, the two
    /// fused ([`fuse`]). Each result says which matched.
    pub async fn search(&self, user_id: &str, request: &ValidSearch) -> Result<Vec<SearchResult>, StoreError> {
        self.search_in(&[BankKey::Personal(user_id)], request).await
    }

    /// Search over `banks` together (a person's own and their org's team bank): each
    /// bank gives its candidates, by words and by meaning, and they are ranked as one
    /// list, so a team memory and a personal one compete on the same scores.
    pub async fn search_in(&self, banks: &[BankKey<'_>], request: &ValidSearch) -> Result<Vec<SearchResult>, StoreError> {
        let found = self.search_banks(banks, request).await?;
        Ok(self.searched(banks, request, found))
    }

    /// A search's log line and its count in the metrics, once its results are the
    /// caller's to see.
    pub(crate) fn searched(&self, banks: &[BankKey<'_>], request: &ValidSearch, found: Found) -> Vec<SearchResult> {
        let owner = banks.first().map(|b| b.owner()).unwrap_or_default();
        tracing::info!(owner, banks = banks.len(), query_len = request.query.chars().count(), terms = found.terms,
            by_meaning = found.by_meaning, results = found.results.len(), "memory.search");
        self.record(BankEvent::Searched);
        found.results
    }

    /// [`Bank::search_in`]'s work, neither logged nor counted.
    pub(crate) async fn search_banks(&self, banks: &[BankKey<'_>], request: &ValidSearch) -> Result<Found, StoreError> {
        let query_terms = terms::query_terms(&request.query);
        let limit = request.limit as usize;
        let meaning = self.meaning.as_ref().filter(|_| !request.words_only);
        // Both sides at once: the query's embedding (on a blocking thread) costs more
        // than the words' side, which then costs nothing more.
        // Each candidate's bank (an index into `banks`) when there are several, so only
        // the banks that hold a winner are read for the results, each for its own.
        let by_words = async {
            if query_terms.is_empty() {
                return Ok((Vec::new(), Vec::new()));
            }
            let lookup = self.lookup_terms(&query_terms).await?;
            let scoped: Vec<(BankKey<'_>, Vec<String>)> =
                banks.iter().map(|bank| (*bank, terms::scope_terms(bank.owner(), &lookup))).collect();
            let mut tally = rank::Tally::new(&query_terms);
            self.store.tally_candidates_in(&scoped, SEARCH_CANDIDATE_CAP, &mut tally).await?;
            // Deeper than the limit when fusing: a memory just past it by words may be
            // near the top by meaning.
            let depth = if meaning.is_some() { limit.max(WORDS_DEPTH) } else { limit };
            let (ranked, banks_of): (Vec<rank::Ranked>, Vec<usize>) = tally.rank(depth).into_iter().unzip();
            // The banks of the ranked ones, when there are several.
            let origin: Vec<(String, usize)> =
                if banks.len() > 1 { ranked.iter().map(|r| r.id.clone()).zip(banks_of).collect() } else { Vec::new() };
            Ok::<_, StoreError>((ranked, origin))
        };
        let by_meaning = async {
            let Some(meaning) = meaning else { return Ok((Vec::new(), Vec::new())) };
            let owners: Vec<&str> = banks.iter().map(|bank| bank.owner()).collect();
            let per_bank = match meaning.nearest_in(self.store.as_ref(), &owners, &request.query).await {
                Ok(per_bank) => per_bank,
                Err(MeaningError::Store(err)) => return Err(err),
                Err(MeaningError::Model(why)) => {
                    // The model logs why when it fails to load (at most once a minute).
                    tracing::debug!(%why, "search by meaning unavailable; searching by words alone");
                    return Ok((Vec::new(), Vec::new()));
                }
            };
            let (mut near, mut origin) = (Vec::new(), Vec::new());
            for (i, found) in per_bank.into_iter().enumerate() {
                if banks.len() > 1 {
                    origin.extend(found.iter().map(|n| (n.id.clone(), i)));
                }
                near.extend(found);
            }
            // Closest first over both banks, as fuse expects of one list.
            near.sort_by(|a, b| b.cosine.total_cmp(&a.cosine));
            Ok((near, origin))
        };
        // Meaning first: its first step (reading new vectors) is in flight before the
        // words' candidates are read, which on a SQLite bank holds this thread.
        let (near, words) = tokio::join!(by_meaning, by_words);
        let ((words, word_origin), (near, near_origin)) = (words?, near?);
        let origin: HashMap<String, usize> = word_origin.into_iter().chain(near_origin).collect();
        let hits: Vec<(String, f64, Matched)> = if near.is_empty() {
            words.into_iter().take(limit).map(|r| (r.id, r.score, Matched::Words)).collect()
        } else {
            fuse::fuse(&words, &near, limit).into_iter().map(|f| (f.id, f.score, f.matched)).collect()
        };
        // Each bank holding a winner reads its own, all at once. One bank: every hit is
        // its own (no origin was kept).
        let reads = banks.iter().enumerate().filter_map(|(i, bank)| {
            let wanted: Vec<String> = hits
                .iter()
                .filter(|(id, ..)| banks.len() == 1 || origin.get(id) == Some(&i))
                .map(|(id, ..)| id.clone())
                .collect();
            (!wanted.is_empty()).then_some(async move { self.store.memories_by_ids(*bank, &wanted).await })
        });
        let mut memories: Vec<Memory> = futures_util::future::try_join_all(reads).await?.into_iter().flatten().collect();
        let mut results = Vec::with_capacity(hits.len());
        for (id, score, matched) in hits {
            // A row deleted between the reads is simply not returned.
            if let Some(pos) = memories.iter().position(|m| m.id == id) {
                results.push(SearchResult { memory: memories.swap_remove(pos), score, matched });
            }
        }
        Ok(Found { results, terms: query_terms.len(), by_meaning: near.len() })
    }

    /// One page of the user's memories, newest first, and the cursor for the next.
    pub async fn list(&self, user_id: &str, request: &ValidList) -> Result<ListResponse, StoreError> {
        self.list_in(&[BankKey::Personal(user_id)], request).await
    }

    /// One page of `banks`' memories together, newest first, and the cursor for the
    /// next: each bank's page past the cursor, merged (the cursor is a time and an id,
    /// so it pages every bank alike).
    pub async fn list_in(&self, banks: &[BankKey<'_>], request: &ValidList) -> Result<ListResponse, StoreError> {
        let mut memories = Vec::new();
        for bank in banks {
            memories.extend(self.store.list_memories(*bank, request.cursor.as_ref(), request.limit + 1).await?);
        }
        if banks.len() > 1 {
            memories.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        }
        let more = memories.len() > request.limit as usize;
        memories.truncate(request.limit as usize);
        let next_cursor = more.then(|| memories.last()).flatten().map(|m| {
            Cursor {
                created_at_ms: m.created_at.unix_ms(),
                id: m.id.clone(),
            }
            .encode()
        });
        let owner = banks.first().map(|b| b.owner()).unwrap_or_default();
        tracing::info!(owner, banks = banks.len(), returned = memories.len(), more, "memory.list");
        Ok(ListResponse { memories, next_cursor })
    }

    /// The user's memories that cite the session `conversation_id`, newest first, at
    /// most `limit` (the Sessions view marks them on the session and its messages).
    pub async fn citing(&self, user_id: &str, conversation_id: &str, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let bank = BankKey::Personal(user_id);
        let ids = self.store.citing_memory_ids(bank, conversation_id, limit).await?;
        let mut memories = self.store.memories_by_ids(bank, &ids).await?;
        memories.sort_by_key(|m| ids.iter().position(|id| *id == m.id));
        Ok(memories)
    }

    /// Deletes one of the user's memories. False (never an error) when the id is
    /// malformed, absent, someone else's or org-scoped: callers cannot tell which.
    pub async fn delete(&self, user_id: &str, id: &str) -> Result<bool, StoreError> {
        self.delete_in(crate::Change::personal(user_id), id).await
    }

    /// Deletes the memory of `by.bank`, by `by.actor` (a team bank's delete is in its
    /// org's audit log; the doors check the actor may make it).
    pub(crate) async fn delete_in(&self, by: crate::Change<'_>, id: &str) -> Result<bool, StoreError> {
        let well_formed = ids::is_valid(MEMORY_PREFIX, id);
        let deleted = well_formed && self.store.delete_memory(by, id, self.clock.now()).await?;
        if deleted {
            if let Some(meaning) = &self.meaning {
                meaning.forget(by.bank.owner(), id).await;
            }
        }
        // A malformed id is caller text: log that it was malformed, not what it said.
        let logged_id = if well_formed { id } else { "<malformed>" };
        tracing::info!(user_id = by.actor, memory_id = logged_id, deleted, scope = by.bank.scope().as_str(), "memory.delete");
        Ok(deleted)
    }

    /// The owner and kind of a bearer token, if it is live.
    pub async fn authenticate(&self, token: &str) -> Result<Option<TokenOwner>, StoreError> {
        self.store.token_owner(&tokens::hash(token)).await
    }

    /// Whether the user is a member of the org.
    pub async fn is_member(&self, user_id: &str, org_id: &str) -> Result<bool, StoreError> {
        self.store.is_member(user_id, org_id).await
    }

    /// The orgs of a user.
    pub async fn user_orgs(&self, user_id: &str) -> Result<Vec<Org>, StoreError> {
        self.store.user_orgs(user_id).await
    }

    /// Creates a user (admin).
    pub async fn add_user(&self, email: &str) -> Result<User, StoreError> {
        let email = email.trim();
        if email.is_empty() || email.len() > 254 || !email.contains('@') || email.chars().any(char::is_whitespace) {
            return Err(StoreError::Invalid(format!("{email:?} is not an email address like ada@example.com")));
        }
        let now = self.clock.now();
        self.store.create_user(&ids::new_id_at(USER_PREFIX, now.unix_ms()), email, now).await
    }

    /// All users (admin).
    pub async fn list_users(&self) -> Result<Vec<User>, StoreError> {
        self.store.list_users().await
    }

    /// Creates an org (admin).
    pub async fn add_org(&self, name: &str) -> Result<Org, StoreError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 128 {
            return Err(StoreError::Invalid("an org name needs 1 to 128 characters".into()));
        }
        let now = self.clock.now();
        self.store.create_org(&ids::new_id_at(ORG_PREFIX, now.unix_ms()), name, now).await
    }

    /// Adds a user to an org (admin): its owner if it has none yet, else a member.
    /// Idempotent.
    pub async fn add_member(&self, org_id: &str, user_id: &str) -> Result<(), StoreError> {
        self.store.add_member(org_id, user_id, None, self.clock.now()).await
    }

    /// Issues a new full token for a user and returns it; only its hash is stored.
    pub async fn issue_token(&self, user_id: &str) -> Result<String, StoreError> {
        self.issue_token_of_kind(user_id, TokenKind::Full).await
    }

    /// Issues a new token of `kind` for a user and returns it; only its hash is stored.
    pub async fn issue_token_of_kind(
        &self,
        user_id: &str,
        kind: TokenKind,
    ) -> Result<String, StoreError> {
        let token = tokens::generate();
        let now = self.clock.now();
        let id = ids::new_id_at(TOKEN_PREFIX, now.unix_ms());
        self.store
            .insert_token(&id, user_id, &tokens::hash(&token), kind, now)
            .await?;
        tracing::info!(user_id, kind = kind.as_str(), "token.issue");
        Ok(token)
    }

    /// Revokes every live token of `kind` of a user; how many there were.
    pub async fn revoke_tokens_of_kind(
        &self,
        user_id: &str,
        kind: TokenKind,
    ) -> Result<u64, StoreError> {
        let revoked = self
            .store
            .revoke_tokens_of_kind(user_id, kind, self.clock.now())
            .await?;
        tracing::info!(user_id, kind = kind.as_str(), revoked, "token.revoke_kind");
        Ok(revoked)
    }

    /// Revokes a token; false when no live token matches.
    pub async fn revoke_token(&self, token: &str) -> Result<bool, StoreError> {
        self.store.revoke_token(&tokens::hash(token.trim()), self.clock.now()).await
    }

    /// Refuses to go on when the full-text index is missing, naming the fix.
    pub async fn assert_search_index(&self) -> Result<(), StoreError> {
        if self.store.search_index_exists().await? {
            Ok(())
        } else {
            Err(StoreError::SearchIndexMissing { backend: self.store.backend() })
        }
    }
}

/// The rows a validated save becomes: ids and terms decided, one timestamp for all.
pub(crate) fn new_memory(user_id: &str, org_id: &str, input: ValidSave, now: Timestamp, proposed_by: Option<String>) -> NewMemory {
    let search_text = terms::memory_index_text(
        user_id,
        &input.content,
        input.tags.as_deref().unwrap_or_default(),
        input.contexts.iter().map(|c| c.snippet.as_str()),
    );
    NewMemory {
        id: ids::new_id_at(MEMORY_PREFIX, now.unix_ms()),
        user_id: user_id.to_owned(),
        org_id: org_id.to_owned(),
        scope: Scope::User,
        source: SOURCE_CHAT.to_owned(),
        tags: input.tags,
        created_at: now,
        search_text,
        contexts: input
            .contexts
            .into_iter()
            .map(|c| NewContext {
                id: ids::new_id_at(CONTEXT_PREFIX, now.unix_ms()),
                snippet: c.snippet,
                citation: c.citation,
                origin: c.origin,
            })
            .collect(),
        content: input.content,
        confirmed_via: input.confirmed_via,
        proposed_by,
        saved_by: None,
        confirmed_by: None,
    }
}

/// What a search found, before it is logged and counted ([`Bank::searched`]).
pub(crate) struct Found {
    results: Vec<SearchResult>,
    /// The query's terms, and the memories near it by meaning: for the log line.
    terms: usize,
    by_meaning: usize,
}
