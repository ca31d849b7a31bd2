//! Keeping the full-text index compact as the bank grows, without `db optimize`.
//!
//! Why: each write transaction adds a segment (a b-tree of its own) to the FTS5 index,
//! and looking a term up probes every segment. FTS5 merges segments by itself only once
//! four sit on one level (`automerge`), which leaves 17–22 of them in a 10⁴-memory bank;
//! there the duplicate hint's lookup of a sentence's 12 terms took 0.45 ms, against
//! 0.34 ms at 4–7 segments and 0.26 ms at one (BENCHMARKS.md). `db optimize` merges all
//! into one, but rewrites the whole index in one transaction under the write lock
//! (seconds at 10⁶ memories), so it is no thing to run behind a person's saves.
//!
//! So after every [`WRITES_BEFORE_COMPACTING`] write transactions a background task
//! merges wherever two segments sit on one level (FTS5's `usermerge` set to 2), at most
//! [`PAGES_A_STEP`] pages a transaction, until FTS5 reports nothing left to merge. It
//! takes the writer like a save and lets go of it between steps, so a save waits for
//! one step at most. A bank opened with its index already spread (loaded in bulk, or
//! by an older version) is merged the same way at once, since one that is only searched
//! would otherwise never be. Merging never changes what a search finds, only how fast.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use memory_bank_store::StoreError;

use crate::rows::db_err;
use crate::{begin_immediate, SqliteStore};

/// Write transactions between two compactions: each added a segment at most.
const WRITES_BEFORE_COMPACTING: u32 = 8;

/// Pages one merge step writes, about: a step is one transaction, so this is what a
/// save arriving meanwhile may wait for (0.5 ms typical for 64 pages at 10⁴ memories).
const PAGES_A_STEP: i64 = 32;

/// Segments one level may hold before the background merge joins them (FTS5's
/// `usermerge`; its default, 4, is what leaves the index spread).
const SEGMENTS_A_LEVEL: i64 = 2;

/// Segments from which a bank being opened is merged at once. A new or small bank has
/// one to three, so opening one writes nothing; a 10⁴-memory bank loaded in bulk had 17.
const SEGMENTS_WORTH_MERGING_AT_OPEN: u64 = 8;

/// When a background compaction merges.
enum When {
    /// At once: writes added segments.
    Always,
    /// Only if the index has [`SEGMENTS_WORTH_MERGING_AT_OPEN`] segments or more.
    Spread,
}

/// Writes since the last compaction, and whether one is running.
#[derive(Debug, Default)]
pub(crate) struct Compaction {
    writes: AtomicU32,
    running: AtomicBool,
}

impl SqliteStore {
    /// Counts a write transaction; every [`WRITES_BEFORE_COMPACTING`]th starts a
    /// background compaction, unless one is running (it will see this write's segment).
    pub(crate) fn wrote(&self) {
        let writes = self.compaction.writes.fetch_add(1, Ordering::Relaxed) + 1;
        if writes >= WRITES_BEFORE_COMPACTING {
            self.compact_in_background(When::Always);
        }
    }

    /// Starts a background compaction if the index is spread over
    /// [`SEGMENTS_WORTH_MERGING_AT_OPEN`] segments or more: a bank loaded in bulk, or
    /// written by an older version, and then only searched would otherwise never be.
    pub(crate) fn compact_if_spread(&self) {
        self.compact_in_background(When::Spread);
    }

    /// Runs [`Self::compact_search_index`] on a task of its own, unless one runs already.
    fn compact_in_background(&self, when: When) {
        if self.compaction.running.swap(true, Ordering::AcqRel) {
            return;
        }
        self.compaction.writes.store(0, Ordering::Relaxed);
        let store = self.clone();
        tokio::spawn(async move {
            let merge = match when {
                When::Always => true,
                // No index yet: `ensure_search_index` makes a compact one.
                When::Spread => store.search_index_segments().await.is_ok_and(|n| n >= SEGMENTS_WORTH_MERGING_AT_OPEN),
            };
            if merge {
                if let Err(e) = store.compact_search_index().await {
                    // The index stays correct, only spread; the next writes try again.
                    tracing::warn!(error = %e, "merging the search index's segments stopped");
                }
            }
            store.compaction.running.store(false, Ordering::Release);
        });
    }

    /// Merges the search index's segments until FTS5 finds no level holding
    /// [`SEGMENTS_A_LEVEL`] of them, a step a transaction; the steps that merged.
    pub async fn compact_search_index(&self) -> Result<u32, StoreError> {
        self.merge_at_two_a_level().await?;
        let mut steps = 0;
        while self.merge_step().await? {
            steps += 1;
        }
        Ok(steps)
    }

    /// How many segments the search index has now (for tests and the benchmark).
    pub async fn search_index_segments(&self) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query_scalar("SELECT count(DISTINCT segid) FROM memory_fts_idx")
            .fetch_one(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(n.unsigned_abs())
    }

    /// Sets FTS5's `usermerge` to [`SEGMENTS_A_LEVEL`] once per index: it is stored
    /// with the index, which `ensure_search_index` may create after this store opened.
    async fn merge_at_two_a_level(&self) -> Result<(), StoreError> {
        let set: Option<i64> = sqlx::query_scalar("SELECT v FROM memory_fts_config WHERE k = 'usermerge'")
            .fetch_optional(&self.writer)
            .await
            .map_err(db_err)?;
        if set != Some(SEGMENTS_A_LEVEL) {
            sqlx::query("INSERT INTO memory_fts (memory_fts, rank) VALUES ('usermerge', ?1)")
                .bind(SEGMENTS_A_LEVEL)
                .execute(&self.writer)
                .await
                .map_err(db_err)?;
        }
        Ok(())
    }

    /// One merge of at most [`PAGES_A_STEP`] pages in a transaction of its own; whether
    /// it merged anything. FTS5 counts the command as one change and each page it
    /// writes as more, so fewer than two changes means there was nothing to merge.
    async fn merge_step(&self) -> Result<bool, StoreError> {
        let mut tx = begin_immediate(self.writer.acquire().await.map_err(db_err)?).await?;
        let changes = "SELECT total_changes()";
        let before: i64 = sqlx::query_scalar(changes).fetch_one(&mut *tx).await.map_err(db_err)?;
        sqlx::query("INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', ?1)")
            .bind(PAGES_A_STEP)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        let after: i64 = sqlx::query_scalar(changes).fetch_one(&mut *tx).await.map_err(db_err)?;
        tx.commit().await.map_err(db_err)?;
        Ok(after - before >= 2)
    }
}
