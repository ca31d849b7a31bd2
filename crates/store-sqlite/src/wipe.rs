//! Deleted text leaves the disk. By default SQLite only marks what it deletes as free:
//! the bytes stay in the page (and in the WAL's older copies of it) until something
//! happens to overwrite them; and the full-text index (FTS5, `contentless_delete`)
//! records a deleted row as a tombstone beside its terms, which stay in the index's pages
//! until a merge rewrites them. So a bank:
//!
//! - runs every connection with `secure_delete` on: deleted cells and freed pages are
//!   overwritten with zeros in the same write (rows, contexts, revisions, proposals, and
//!   the index's own pages when it drops them);
//! - after offboarding, rewrites the full-text index (FTS5 `optimize`: one merge of every
//!   segment, which leaves out the deleted rows' terms) and empties the WAL (a checkpoint
//!   that truncates it: the older copies of the pages held the user's text), so nothing
//!   of theirs is left in either file ([`wipe_after_offboarding`]).
//!
//! A single deleted memory's words stay in the index's pages until FTS5 next merges them
//! (`db optimize` does at once), and its older page copies in the WAL until SQLite reuses
//! the log. What this does not reach (text deleted before this release, backups, the file
//! system's own copies) is in the README ("Deleting for good"); what it costs a save and
//! a delete, in BENCHMARKS.md.

use memory_bank_store::StoreError;
use sqlx::SqlitePool;

use crate::rows::db_err;

/// The connection pragma (every connection of the pools).
pub(crate) const SECURE_DELETE: (&str, &str) = ("secure_delete", "ON");

/// After an offboarding: the full-text index rewritten without the deleted rows' terms,
/// then the WAL folded in and truncated. The rows are deleted already, so a step that
/// cannot run now (another process holds the write lock, or is mid-read) is a warning
/// naming what finishes it, never a failure of the offboarding.
pub(crate) async fn wipe_after_offboarding(writer: &SqlitePool) {
    let rewritten = async {
        let mut tx = crate::begin_immediate(writer.acquire().await.map_err(db_err)?).await?;
        if crate::fts_exists(&mut tx).await? {
            sqlx::query("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')").execute(&mut *tx).await.map_err(db_err)?;
        }
        tx.commit().await.map_err(db_err)
    };
    if let Err(e) = rewritten.await {
        tracing::warn!(
            error = %e,
            "the search index could not be rewritten after the deletion, so words of the deleted memories stay in \
             its pages; run `memory-bank db optimize` to rewrite it"
        );
    }
    match empty_wal(writer).await {
        Ok(true) => {}
        Ok(false) => tracing::warn!(
            "another connection is reading the bank, so its write-ahead log could not be emptied now; the deleted \
             text leaves it at a later checkpoint"
        ),
        Err(e) => tracing::warn!(error = %e, "the bank's write-ahead log could not be emptied after the deletion"),
    }
}

/// Folds the WAL into the bank and truncates it to nothing; false when a reader kept
/// part of it from being folded in (then nothing was truncated).
async fn empty_wal(writer: &SqlitePool) -> Result<bool, StoreError> {
    let (busy, _log, _done): (i64, i64, i64) =
        sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)").fetch_one(writer).await.map_err(db_err)?;
    Ok(busy == 0)
}

impl crate::SqliteStore {
    /// For the benchmark only (BENCHMARKS.md, "Deleting for good"): turns `secure_delete`
    /// off on the writer's connection (every write goes through it) and the wipe after
    /// offboarding off, so the bench times saves, deletes and offboarding as they were
    /// before, on the same data. Never called by the product.
    #[doc(hidden)]
    pub async fn disable_secure_delete_for_benchmark(&self) -> Result<(), StoreError> {
        self.wipes.store(false, std::sync::atomic::Ordering::Relaxed);
        sqlx::query("PRAGMA secure_delete = OFF").execute(&self.writer).await.map_err(db_err).map(drop)
    }
}
