//! Search by meaning: each memory also has a sentence vector, made on this machine (or
//! the team's server) by a small embedding model, and a search adds the memories whose
//! vectors are closest to the query's to those that hold its words ([`fuse`]).
//!
//! # Why this shape
//!
//! - **Derived, never primary.** A vector is made only from text the person can read
//!   ([`meaning_text`]: the sentence and its tags) and can always be made again from
//!   it: an edit deletes the old one in its own transaction, and the backfill
//!   ([`Bank::backfill_vectors`]) makes every missing one, so nothing is lost when a
//!   write's vector could not be made (model missing, process killed).
//! - **The model is not this crate's.** [`Embed`] is what the bank needs of it; the
//!   desktop app and the service give it one (crate `memory-bank-meaning`) that loads
//!   the model when first needed and lets it go when idle. Without one, or when the
//!   model cannot load, search is by words alone, as before, and says so.
//! - **Vectors in memory.** Comparing the query with every vector of the person's is
//!   exact and fast at the sizes a person's bank has (10⁵ vectors: a few ms); see
//!   [`index`] for how the copy stays in step with the database.

pub mod backfill;
pub mod fuse;
pub mod index;
pub mod status;
pub mod vector;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;

use self::index::{Near, OwnerIndex};
use crate::store::MemoryStore;
use crate::StoreError;

/// Candidates ranked by words before fusing (deeper than a search's limit: a memory just
/// past it by words may be near the top by meaning).
pub const WORDS_DEPTH: usize = 50;

/// Candidates the meaning side adds to a search, at most.
pub const DEPTH: usize = 100;

/// The lowest cosine a memory needs to be a candidate by meaning: below it a sentence
/// is about something else. Measured on the recall benchmark: the closest memory to a
/// real question has a cosine of at least 0.38 (median 0.73), while nonsense and queries
/// in a language the model does not know reach at most 0.33.
pub const FLOOR: f32 = 0.35;

/// A person's vectors are let go after this long without a search of theirs.
const OWNER_IDLE: Duration = Duration::from_secs(600);

/// Rows read per query when a copy catches up.
const PAGE: u32 = 4096;

/// A sentence-embedding model, as the bank needs it.
#[async_trait]
pub trait Embed: Send + Sync + 'static {
    /// The model's name, stored with each vector: a vector of another model is made
    /// again (see [`Bank::backfill_vectors`]).
    fn model(&self) -> &str;

    /// The length of its vectors.
    fn dimensions(&self) -> usize;

    /// One unit-length vector per text, in order; `Err` says why the model cannot
    /// give them (it could not load, for instance), in words for a person.
    async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, String>;

    /// Whether the model can be used, loading it if need be: where it was loaded
    /// from, or why it cannot be.
    async fn check(&self) -> Result<String, String>;

    /// Why the model could not be used when it was last tried, without trying again
    /// (for a status polled often); `None` when it worked or was not tried yet.
    fn problem(&self) -> Option<String> {
        None
    }
}

/// The text a memory's vector is made from: its sentence, then its tags.
pub fn meaning_text(content: &str, tags: &[String]) -> String {
    if tags.is_empty() {
        content.to_owned()
    } else {
        format!("{content} ({})", tags.join(", "))
    }
}

/// One person's vectors in memory, and when they last searched.
struct Owner {
    index: Arc<tokio::sync::Mutex<OwnerIndex>>,
    used: Instant,
}

/// The model and each person's vectors in memory. One per bank, shared by its clones.
pub struct Meaning {
    embed: Arc<dyn Embed>,
    owners: Mutex<HashMap<String, Owner>>,
    /// Wakes the backfill: an import, or a write whose vector could not be made.
    pub(crate) wake: tokio::sync::Notify,
}

impl Meaning {
    /// Meaning search with `embed`.
    pub fn new(embed: Arc<dyn Embed>) -> Self {
        Meaning { embed, owners: Mutex::new(HashMap::new()), wake: tokio::sync::Notify::new() }
    }

    /// The model.
    pub fn embedder(&self) -> &dyn Embed {
        self.embed.as_ref()
    }

    fn owner(&self, user_id: &str) -> Arc<tokio::sync::Mutex<OwnerIndex>> {
        let mut owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        owners.retain(|user, owner| user == user_id || now.duration_since(owner.used) < OWNER_IDLE);
        let owner = owners.entry(user_id.to_owned()).or_insert_with(|| Owner {
            index: Arc::new(tokio::sync::Mutex::new(OwnerIndex::new(self.embed.dimensions()))),
            used: now,
        });
        owner.used = now;
        owner.index.clone()
    }

    /// Brings the copy of the user's vectors up to date with the database.
    async fn refresh(&self, store: &dyn MemoryStore, user_id: &str, index: &mut OwnerIndex) -> Result<(), StoreError> {
        let model = self.embed.model();
        let summary = store.vector_summary(user_id, model).await?;
        if summary.max_seq > index.seen_seq {
            self.read_after(store, user_id, index).await?;
        }
        if summary.count != index.len() as u64 {
            // Rows deleted by another process, or written out of `seq` order: read all.
            *index = OwnerIndex::new(self.embed.dimensions());
            self.read_after(store, user_id, index).await?;
        }
        Ok(())
    }

    async fn read_after(&self, store: &dyn MemoryStore, user_id: &str, index: &mut OwnerIndex) -> Result<(), StoreError> {
        loop {
            let rows = store.vectors_after(user_id, self.embed.model(), index.seen_seq, PAGE).await?;
            for row in &rows {
                index.upsert(&row.memory_id, &row.vector);
                index.seen_seq = index.seen_seq.max(row.seq);
            }
            if rows.len() < PAGE as usize {
                return Ok(());
            }
        }
    }

    /// Each owner's memories closest in meaning to `query` (a person's own bank and
    /// their team's), closest first, in the order of `owners`. The query is embedded
    /// once for all of them, and not at all when none has vectors yet (the model is then
    /// not loaded for it); `Err` in words when the model cannot be used.
    pub(crate) async fn nearest_in(&self, store: &dyn MemoryStore, owners: &[&str], query: &str) -> Result<Vec<Vec<Near>>, MeaningError> {
        let mut any = false;
        for user_id in owners {
            let owner = self.owner(user_id);
            let mut index = owner.lock().await;
            self.refresh(store, user_id, &mut index).await.map_err(MeaningError::Store)?;
            any |= !index.is_empty();
        }
        if !any {
            return Ok(vec![Vec::new(); owners.len()]);
        }
        let vectors = self.embed.embed(vec![query.to_owned()]).await.map_err(MeaningError::Model)?;
        let Some(query) = vectors.first() else { return Ok(vec![Vec::new(); owners.len()]) };
        let mut near = Vec::with_capacity(owners.len());
        for user_id in owners {
            // A save between the refresh and here is in the copy already, or next time.
            near.push(self.owner(user_id).lock().await.nearest(query, DEPTH, FLOOR));
        }
        Ok(near)
    }

    /// Drops a deleted memory's vector from the copy (the store deleted the row).
    pub(crate) async fn forget(&self, user_id: &str, memory_id: &str) {
        let owner = self.owner(user_id);
        let mut index = owner.lock().await;
        index.remove(memory_id);
    }
}

/// Why the meaning side of a search gave nothing.
#[derive(Debug)]
pub(crate) enum MeaningError {
    /// Reading the vectors failed.
    Store(StoreError),
    /// The model cannot be used; why.
    Model(String),
}
