//! The MySQL store's search index: a table of its own, `memory_term`, one row per
//! memory and stored term, keyed `(user_id, term, created_at, memory_id)`.
//!
//! Why not InnoDB FULLTEXT, which this store used before:
//! - **A common word stays a bounded read.** A bank's newest `cap` rows holding a term
//!   are the last `cap` entries of one primary-key range, read backwards. FULLTEXT
//!   resolves every match of a term to its row before any `LIMIT` applies: a word in
//!   most of a team bank of 10⁵ cost 50–110 ms, one in 10⁶ memories more still.
//! - **No maintenance to stay fast.** FULLTEXT adds a word's postings once per cache
//!   flush, so an index grown one save at a time held about one entry per term and save,
//!   and common words needed `db optimize` to be fast again. A B-tree read is the same
//!   read however the tree grew.
//! - **Exact terms.** The rows hold the app's terms ([`memory_bank_store::terms`])
//!   byte for byte, so no engine parser (InnoDB splits at characters above U+FFFF) can
//!   disagree with the SQLite store.
//!
//! The price, measured in BENCHMARKS.md: the table is larger (about 3.6 KB a memory at
//! 10⁶, against about 1.1 KB for a FULLTEXT index grown save by save), and each save
//! writes about 20 rows at scattered places of it, which costs reads from disk once the
//! table no longer fits InnoDB's buffer pool.
//!
//! The table is derived from `memory.search_text` only, and every write path keeps it
//! in step inside the transaction that changes the row (no foreign keys: managed MySQL
//! forbids them). `db migrate` fills it from the rows already there, resumably, and
//! marks it complete in the table's own comment, so a dropped table is a missing index
//! again, never a complete-looking empty one.

use memory_bank_contract::Timestamp;
use memory_bank_store::{EnsureOutcome, StoreError};
use sqlx::{MySqlConnection, MySqlPool, Row as _};

use crate::rows::{db_err, error_number, timestamp};
use crate::{fulltext, layout, schema};

/// The index table's name.
pub const SEARCH_INDEX: &str = "memory_term";

/// Longest stored term kept, in characters: the user code (11) and the longest term
/// ([`memory_bank_store::terms::MAX_TERM_CHARS`], 64), with room to spare. A longer one
/// (never written by this app) is left out rather than fail a save.
const TERM_CHARS: usize = 80;

/// The table, created by [`ensure`] (not a migration file), so that a lost table is put
/// back by the same path that first made it. `utf8mb4_bin`: terms and ids compare byte
/// for byte, as the SQLite store's do.
const CREATE_TABLE: &str = "CREATE TABLE memory_term (
    user_id    VARCHAR(64)  NOT NULL,
    term       VARCHAR(80)  NOT NULL,
    created_at TIMESTAMP(3) NOT NULL,
    memory_id  VARCHAR(64)  NOT NULL,
    PRIMARY KEY (user_id, term, created_at, memory_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin";

/// The table comment that says every row of `memory` is in it.
const COMPLETE: &str = "complete";

/// `ER_TABLE_EXISTS_ERROR`: another caller created the table first.
const TABLE_EXISTS: u16 = 1050;

/// Rows of `memory` read per transaction while filling.
const FILL_BATCH: u32 = 500;

/// One memory row as the index sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Posted<'a> {
    pub user_id: &'a str,
    pub created_at: Timestamp,
    pub id: &'a str,
    pub search_text: &'a str,
}

/// The rows' postings, `[user_id, term, created_at, memory_id]`, each stored term once
/// per row, sent as JSON arrays (one bound parameter, whatever the count). In key order
/// (byte order, as `utf8mb4_bin` compares; the times in one format sort as they compare),
/// so a batch of many rows walks the index from one end to the other instead of jumping
/// between its pages.
fn postings<'a>(rows: &[Posted<'a>]) -> Vec<Posting<'a>> {
    let mut postings: Vec<Posting<'a>> = Vec::new();
    for row in rows {
        let created_at = row.created_at.to_datetime().format("%Y-%m-%d %H:%M:%S%.3f").to_string();
        for term in row.search_text.split(' ') {
            if term.is_empty() || term.chars().count() > TERM_CHARS {
                continue;
            }
            postings.push((row.user_id, term, created_at.clone(), row.id));
        }
    }
    postings.sort_unstable();
    postings.dedup();
    postings
}

/// One posting: owner, term, creation time as the server reads it, memory id.
type Posting<'a> = (&'a str, &'a str, String, &'a str);

/// The postings as a table (MariaDB 10.6+ and MySQL 8 both have `JSON_TABLE`).
const POSTINGS_TABLE: &str = "JSON_TABLE(?, '$[*]' COLUMNS (
    user_id VARCHAR(64) PATH '$[0]', term VARCHAR(80) PATH '$[1]',
    created_at VARCHAR(32) PATH '$[2]', memory_id VARCHAR(64) PATH '$[3]')) AS j";

/// Postings sent in one statement: a few hundred kilobytes of JSON, far below the
/// smallest `max_allowed_packet` a server ships with (4 MB on MySQL 5.7-era configs).
const POSTINGS_PER_STATEMENT: usize = 4_000;

/// Inside `tx`: indexes the rows' stored terms. Idempotent: a posting already there
/// (a fill that met a save) is left as it is.
pub(crate) async fn add(tx: &mut MySqlConnection, rows: &[Posted<'_>]) -> Result<(), StoreError> {
    let postings = postings(rows);
    if postings.len() <= POSTINGS_AS_VALUES {
        return add_as_values(tx, &postings).await;
    }
    for chunk in postings.chunks(POSTINGS_PER_STATEMENT) {
        let json = serde_json::json!(chunk).to_string();
        let statement = format!(
            "INSERT INTO memory_term (user_id, term, created_at, memory_id)
             SELECT j.user_id, j.term, CAST(j.created_at AS DATETIME(3)), j.memory_id FROM {POSTINGS_TABLE}
             ON DUPLICATE KEY UPDATE memory_id = memory_term.memory_id"
        );
        // Built from constants only; the postings are one bound parameter.
        sqlx::query(sqlx::AssertSqlSafe(statement)).bind(json).execute(&mut *tx).await.map_err(db_err)?;
    }
    Ok(())
}

/// Most postings sent as rows of bound values (a save's few dozen; more come as JSON):
/// the server reads 28 rows so in 0.19 ms against 0.24 as a JSON table (BENCHMARKS.md, "A
/// save without its BEGIN"). The statement's text is the count's, so a connection prepares
/// and keeps one per count, up to this many.
const POSTINGS_AS_VALUES: usize = 64;

/// Inside `tx`: `postings` (at most [`POSTINGS_AS_VALUES`]) as rows of bound values.
async fn add_as_values(tx: &mut MySqlConnection, postings: &[Posting<'_>]) -> Result<(), StoreError> {
    if postings.is_empty() {
        return Ok(());
    }
    let statement = format!(
        "INSERT INTO memory_term (user_id, term, created_at, memory_id) VALUES {}
         ON DUPLICATE KEY UPDATE memory_id = memory_term.memory_id",
        vec!["(?, ?, CAST(? AS DATETIME(3)), ?)"; postings.len()].join(", ")
    );
    // Built from constants only (a placeholder row per posting); every value is bound.
    let mut insert = sqlx::query(sqlx::AssertSqlSafe(statement));
    for (user_id, term, created_at, memory_id) in postings {
        insert = insert.bind(*user_id).bind(*term).bind(created_at.as_str()).bind(*memory_id);
    }
    insert.execute(&mut *tx).await.map_err(db_err)?;
    Ok(())
}

/// Inside `tx`: removes the rows' postings, as their `search_text` lists them (the text
/// the row holds when it is deleted or rewritten, read in the same transaction).
pub(crate) async fn remove(tx: &mut MySqlConnection, rows: &[Posted<'_>]) -> Result<(), StoreError> {
    for chunk in postings(rows).chunks(POSTINGS_PER_STATEMENT) {
        let json = serde_json::json!(chunk).to_string();
        // STRAIGHT_JOIN: each posting is one primary-key lookup; left to itself the
        // optimizer may scan the index table for a handful of rows.
        let statement = format!(
            "DELETE t FROM {POSTINGS_TABLE} STRAIGHT_JOIN memory_term AS t
             ON t.user_id = j.user_id AND t.term = j.term AND t.created_at = CAST(j.created_at AS DATETIME(3)) AND t.memory_id = j.memory_id"
        );
        sqlx::query(sqlx::AssertSqlSafe(statement)).bind(json).execute(&mut *tx).await.map_err(db_err)?;
    }
    Ok(())
}

/// A memory row read for its postings, owned.
#[derive(Debug, Clone)]
pub(crate) struct PostedRow {
    pub user_id: String,
    pub created_at: Timestamp,
    pub id: String,
    pub search_text: String,
}

impl PostedRow {
    pub(crate) fn posted(&self) -> Posted<'_> {
        Posted { user_id: &self.user_id, created_at: self.created_at, id: &self.id, search_text: &self.search_text }
    }

    pub(crate) fn from_row(row: &sqlx::mysql::MySqlRow) -> Result<Self, StoreError> {
        Ok(Self {
            user_id: row.try_get("user_id").map_err(db_err)?,
            created_at: timestamp(row, "created_at")?,
            id: row.try_get("id").map_err(db_err)?,
            search_text: row.try_get("search_text").map_err(db_err)?,
        })
    }
}

/// Whether the index exists and holds every memory: what the service checks at start.
pub(crate) async fn exists(pool: &MySqlPool) -> Result<bool, StoreError> {
    Ok(table_comment(pool).await?.is_some_and(|c| c == COMPLETE))
}

/// The index table's comment; `None` when there is no such table.
async fn table_comment(pool: &MySqlPool) -> Result<Option<String>, StoreError> {
    sqlx::query_scalar(
        "SELECT CAST(TABLE_COMMENT AS CHAR) FROM information_schema.TABLES
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory_term'",
    )
    .fetch_optional(pool)
    .await
    .map_err(db_err)
}

/// Normalises `created_at`, then makes the index whole: creates the table when missing,
/// fills it from the rows already saved, marks it complete, and drops the FULLTEXT
/// index older releases kept. Concurrent callers on one server take turns; exactly one
/// of any number reports `created: true`, the one that created the table.
pub(crate) async fn ensure(pool: &MySqlPool) -> Result<EnsureOutcome, StoreError> {
    layout::normalise_created_at(pool).await?;
    if exists(pool).await? {
        fulltext::retire(pool).await?;
        return Ok(EnsureOutcome { created: false });
    }
    let lock = schema::MaintenanceLock::acquire(pool, schema::LockFor::SearchIndex).await?;
    let outcome = fill_locked(pool).await;
    let released = lock.release().await;
    let outcome = outcome?;
    released?;
    fulltext::retire(pool).await?;
    Ok(outcome)
}

async fn fill_locked(pool: &MySqlPool) -> Result<EnsureOutcome, StoreError> {
    let created = match table_comment(pool).await? {
        Some(comment) if comment == COMPLETE => return Ok(EnsureOutcome { created: false }),
        // Left incomplete (a fill stopped, or another Galera node's is running):
        // go on from where the fill got to; every posting it writes is idempotent.
        Some(_) => false,
        None => create_table(pool).await?,
    };
    fill(pool).await?;
    // DDL: replicated in order on a Galera cluster, and gone with the table if it is dropped.
    sqlx::raw_sql("ALTER TABLE memory_term COMMENT = 'complete'").execute(pool).await.map_err(db_err)?;
    tracing::info!(index = SEARCH_INDEX, created, "search index complete");
    Ok(EnsureOutcome { created })
}

/// Creates the table and starts its fill from the first row: true when this caller
/// made it, false when another (a Galera node) did first.
async fn create_table(pool: &MySqlPool) -> Result<bool, StoreError> {
    match sqlx::raw_sql(CREATE_TABLE).execute(pool).await {
        Ok(_) => {
            sqlx::query("UPDATE memory_term_fill SET done_through = NULL WHERE id = 1").execute(pool).await.map_err(db_err)?;
            Ok(true)
        }
        Err(err) if error_number(&err) == Some(TABLE_EXISTS) => Ok(false),
        Err(err) => Err(db_err(err)),
    }
}

/// Indexes every row of `memory` in batches of [`FILL_BATCH`] ids, one transaction each,
/// noting how far it got so a stopped fill goes on from there. The rows of a batch are
/// read under a shared lock, so a delete or edit of one waits for the batch and then
/// removes exactly the postings written. Rows saved meanwhile index themselves.
async fn fill(pool: &MySqlPool) -> Result<(), StoreError> {
    let mut filled = 0u64;
    loop {
        let mut tx = pool.begin().await.map_err(db_err)?;
        let through: Option<String> = sqlx::query_scalar("SELECT done_through FROM memory_term_fill WHERE id = 1 FOR UPDATE")
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_err)?
            .flatten();
        let rows = sqlx::query(
            "SELECT id, user_id, created_at, search_text FROM memory WHERE id > ? ORDER BY id LIMIT ? LOCK IN SHARE MODE",
        )
        .bind(through.as_deref().unwrap_or(""))
        .bind(FILL_BATCH)
        .fetch_all(&mut *tx)
        .await
        .map_err(db_err)?;
        let rows = rows.iter().map(PostedRow::from_row).collect::<Result<Vec<_>, _>>()?;
        let Some(last) = rows.last() else {
            sqlx::query("UPDATE memory_term_fill SET done_through = NULL WHERE id = 1").execute(&mut *tx).await.map_err(db_err)?;
            tx.commit().await.map_err(db_err)?;
            tracing::info!(rows = filled, "search index filled");
            return Ok(());
        };
        add(&mut tx, &rows.iter().map(PostedRow::posted).collect::<Vec<_>>()).await?;
        sqlx::query("UPDATE memory_term_fill SET done_through = ? WHERE id = 1").bind(&last.id).execute(&mut *tx).await.map_err(db_err)?;
        tx.commit().await.map_err(db_err)?;
        filled += rows.len() as u64;
    }
}

/// Rewrites the index table in primary-key order (`db optimize`). A B-tree filled in
/// random key order (saves of many banks) has its pages part-full; the rebuild packs
/// them. Reads go on meanwhile; writes wait.
pub(crate) async fn optimize(pool: &MySqlPool) -> Result<memory_bank_store::OptimizeOutcome, StoreError> {
    if !exists(pool).await? {
        return Err(StoreError::Migration(
            "the search index is missing or incomplete, so there is nothing to optimize; run `memory-bank db migrate` to build it"
                .to_owned(),
        ));
    }
    let before_bytes = index_bytes(pool).await?;
    sqlx::raw_sql("ALTER TABLE memory_term FORCE").execute(pool).await.map_err(db_err)?;
    let after_bytes = index_bytes(pool).await?;
    tracing::info!(?before_bytes, ?after_bytes, "search index optimized");
    Ok(memory_bank_store::OptimizeOutcome { before_bytes, after_bytes })
}

/// Bytes the index table takes, as the server's statistics say (refreshed first, as
/// InnoDB updates them lazily). Any user may read these for its own tables.
pub(crate) async fn index_bytes(pool: &MySqlPool) -> Result<Option<u64>, StoreError> {
    sqlx::raw_sql("ANALYZE TABLE memory_term").execute(pool).await.map_err(db_err)?;
    let bytes: Option<i64> = sqlx::query_scalar(
        "SELECT CAST(DATA_LENGTH + INDEX_LENGTH AS SIGNED) FROM information_schema.TABLES
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory_term'",
    )
    .fetch_optional(pool)
    .await
    .map_err(db_err)?;
    Ok(bytes.map(|b| b.max(0).unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stored_term_is_posted_once_per_row_in_key_order() {
        let at = Timestamp::from_unix_ms(1_733_472_000_123);
        let rows = [
            Posted { user_id: "usr_a", created_at: at, id: "mem_1", search_text: "u1tea u1tea s1tea" },
            Posted { user_id: "usr_a", created_at: at, id: "mem_2", search_text: "" },
        ];
        assert_eq!(
            serde_json::json!(postings(&rows)),
            serde_json::json!([
                ["usr_a", "s1tea", "2024-12-06 08:00:00.123", "mem_1"],
                ["usr_a", "u1tea", "2024-12-06 08:00:00.123", "mem_1"]
            ])
        );
        assert!(postings(&rows[1..]).is_empty());
        let long = format!("u1{}", "a".repeat(TERM_CHARS));
        assert!(postings(&[Posted { search_text: &long, ..rows[0] }]).is_empty());
    }
}
