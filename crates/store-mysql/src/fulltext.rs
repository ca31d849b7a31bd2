//! The FULLTEXT index lifecycle, as one code path for fresh and upgraded databases:
//! normalise the `created_at` columns, then create the index under one fixed name
//! only when it is missing.
//!
//! Why one fixed name: InnoDB silently accepts a second FULLTEXT index on the same
//! column under another name, so "create if missing" is only safe when every caller
//! checks and creates the same name. Concurrent creators are expected (several
//! service instances running `db migrate` at once): the server serialises the DDL and
//! every loser gets "duplicate key name" (1061), which here means "already there".

use memory_bank_store::{EnsureOutcome, OptimizeOutcome, StoreError};
use sqlx::{MySqlPool, Row};

use crate::rows::{db_err, error_number};

/// Name of the FULLTEXT index on `memory.search_text`.
pub const SEARCH_INDEX: &str = "memory_search_fulltext";

/// `ER_DUP_KEYNAME`: another caller created the index first.
const DUPLICATE_KEY_NAME: u16 = 1061;

/// `ER_SPECIFIC_ACCESS_DENIED_ERROR`: the InnoDB views need the PROCESS privilege.
const NEEDS_PROCESS_PRIVILEGE: u16 = 1227;

/// `ER_UNKNOWN_TABLE`: this server calls the view by the other name.
const UNKNOWN_VIEW: u16 = 1109;

/// `ER_ALTER_OPERATION_NOT_SUPPORTED(_REASON)`: the server cannot rebuild in place.
const NOT_IN_PLACE: [u16; 2] = [1845, 1846];

/// Whether the FULLTEXT index exists on `memory` in the connection's database.
pub(crate) async fn exists(pool: &MySqlPool) -> Result<bool, StoreError> {
    let found: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM information_schema.STATISTICS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory' AND INDEX_NAME = 'memory_search_fulltext'
         LIMIT 1",
    )
    .fetch_optional(pool)
    .await
    .map_err(db_err)?;
    Ok(found.is_some())
}

/// Normalises `created_at`, then creates the index when missing. Exactly one of any
/// number of concurrent callers reports `created: true`.
pub(crate) async fn ensure(pool: &MySqlPool) -> Result<EnsureOutcome, StoreError> {
    normalise_created_at(pool).await?;
    if exists(pool).await? {
        return Ok(EnsureOutcome { created: false });
    }
    // The server indexes the existing rows while it builds the index: no backfill.
    // ALGORITHM=COPY rebuilds the table: on MariaDB 10.11 an in-place build on a table
    // that had a FULLTEXT index before (dropped by hand, or lost in a botched restore)
    // returns an index that silently misses every row written under the old one.
    // Writes wait during the rebuild; reads go on.
    let created = sqlx::raw_sql(
        "ALTER TABLE memory ADD FULLTEXT INDEX memory_search_fulltext (search_text), ALGORITHM = COPY",
    )
    .execute(pool)
    .await;
    match created {
        Ok(_) => {
            tracing::info!(index = SEARCH_INDEX, "search index created");
            Ok(EnsureOutcome { created: true })
        }
        Err(err) if error_number(&err) == Some(DUPLICATE_KEY_NAME) => Ok(EnsureOutcome { created: false }),
        Err(err) => {
            // Some other failure: if a concurrent creator got there anyway, that is fine.
            if exists(pool).await? {
                tracing::debug!(error = %err, "index creation lost a race");
                return Ok(EnsureOutcome { created: false });
            }
            Err(match error_number(&err) {
                Some(1146 | 1072) => StoreError::Migration(format!(
                    "cannot create the search index ({err}); the `memory` table is missing or has no \
                     `search_text` column: run `memory-bank db migrate`, or `memory-bank db bootstrap` on a new database"
                )),
                _ => db_err(err),
            })
        }
    }
}

/// Makes `created_at` of `memory_context`, then `memory`, a NOT NULL TIMESTAMP(3)
/// defaulting to CURRENT_TIMESTAMP(3), as older schemas had other types or defaults
/// (e.g. `now()` or no default). Existing values are kept, milliseconds included:
/// a TIMESTAMP(3) or DATETIME(3) column converts without loss in a UTC session.
async fn normalise_created_at(pool: &MySqlPool) -> Result<(), StoreError> {
    // Two fixed statements: a table name cannot be a bound parameter.
    let tables: [(&str, &'static str); 2] = [
        ("memory_context", "ALTER TABLE memory_context MODIFY created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)"),
        ("memory", "ALTER TABLE memory MODIFY created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)"),
    ];
    for (table, alter) in tables {
        let row = sqlx::query(
            "SELECT CAST(COLUMN_DEFAULT AS CHAR) AS col_default, CAST(DATA_TYPE AS CHAR) AS data_type,
                    CAST(DATETIME_PRECISION AS SIGNED) AS col_precision, CAST(IS_NULLABLE AS CHAR) AS nullable
             FROM information_schema.COLUMNS
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = 'created_at'",
        )
        .bind(table)
        .fetch_optional(pool)
        .await
        .map_err(db_err)?;
        let Some(row) = row else {
            return Err(StoreError::Migration(format!(
                "the table `{table}` or its `created_at` column is missing; run `memory-bank db migrate`, \
                 or `memory-bank db bootstrap` on a new database"
            )));
        };
        let default: Option<String> = row.try_get("col_default").map_err(db_err)?;
        let data_type: String = row.try_get("data_type").map_err(db_err)?;
        let precision: Option<i64> = row.try_get("col_precision").map_err(db_err)?;
        let nullable: String = row.try_get("nullable").map_err(db_err)?;
        let normal = default.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("current_timestamp(3)"))
            && data_type.eq_ignore_ascii_case("timestamp")
            && precision == Some(3)
            && nullable.eq_ignore_ascii_case("NO");
        if !normal {
            tracing::info!(table, ?default, data_type, ?precision, "normalising created_at");
            sqlx::raw_sql(alter).execute(pool).await.map_err(db_err)?;
        }
    }
    Ok(())
}

/// Rebuilds `memory` in place, which writes its FULLTEXT index anew, compactly.
///
/// Why: InnoDB adds a word's postings to the index once per cache flush, so an
/// index grown one save at a time holds about one entry per (user-scoped) term and
/// save. At 10⁶ memories that is 1 149 MB against 306 MB for the same rows indexed
/// at once, and a very common term costs about twice as much to look up (measured
/// in BENCHMARKS.md). `OPTIMIZE TABLE` with `innodb_optimize_fulltext_only` would
/// be the targeted tool, but it needs a global setting (a privilege managed services
/// do not give) and on MariaDB 10.11 it returned at once and merged nothing.
///
/// `ALGORITHM = INPLACE` sorts every row's terms and writes the index in one pass
/// (30 s at 10⁶ memories); a copy re-inserts the rows one by one and leaves the
/// index nearly as fragmented (868 MB, 66 s). The server takes a shared lock
/// meanwhile: searches and lists go on, saves and deletes wait.
pub(crate) async fn optimize(pool: &MySqlPool) -> Result<OptimizeOutcome, StoreError> {
    if !exists(pool).await? {
        return Err(StoreError::Migration(
            "the search index is missing, so there is nothing to optimize; run `memory-bank db migrate` to create it"
                .to_owned(),
        ));
    }
    let before_bytes = index_bytes(pool).await?;
    let rebuilt = sqlx::raw_sql("ALTER TABLE memory FORCE, ALGORITHM = INPLACE").execute(pool).await;
    match rebuilt {
        Ok(_) => {}
        // A server that cannot rebuild this table in place still compacts some by copying.
        Err(err) if error_number(&err).is_some_and(|n| NOT_IN_PLACE.contains(&n)) => {
            tracing::info!(error = %err, "rebuilding memory by copying");
            sqlx::raw_sql("ALTER TABLE memory FORCE").execute(pool).await.map_err(db_err)?;
        }
        Err(err) => return Err(db_err(err)),
    }
    let after_bytes = index_bytes(pool).await?;
    tracing::info!(?before_bytes, ?after_bytes, "search index optimized");
    Ok(OptimizeOutcome { before_bytes, after_bytes })
}

/// Bytes of the FULLTEXT index on disk: InnoDB keeps it in auxiliary tables of its
/// own (`<database>/FTS_…`, one file each; `memory` has the only FULLTEXT index).
/// `None` when this user may not read InnoDB's views (they need PROCESS).
pub(crate) async fn index_bytes(pool: &MySqlPool) -> Result<Option<u64>, StoreError> {
    // MariaDB names the view INNODB_SYS_TABLESPACES, MySQL 8 INNODB_TABLESPACES.
    const BY_SERVER: [&str; 2] = [
        "SELECT CAST(SUM(FILE_SIZE) AS SIGNED) FROM information_schema.INNODB_SYS_TABLESPACES
         WHERE LEFT(NAME, CHAR_LENGTH(DATABASE()) + 5) = CONCAT(DATABASE(), '/FTS_')",
        "SELECT CAST(SUM(FILE_SIZE) AS SIGNED) FROM information_schema.INNODB_TABLESPACES
         WHERE LEFT(NAME, CHAR_LENGTH(DATABASE()) + 5) = CONCAT(DATABASE(), '/FTS_')",
    ];
    for statement in BY_SERVER {
        match sqlx::query_scalar::<_, Option<i64>>(statement).fetch_one(pool).await {
            Ok(bytes) => return Ok(Some(bytes.unwrap_or(0).max(0).unsigned_abs())),
            Err(err) if error_number(&err) == Some(NEEDS_PROCESS_PRIVILEGE) => return Ok(None),
            Err(err) if error_number(&err) == Some(UNKNOWN_VIEW) => continue,
            Err(err) => return Err(db_err(err)),
        }
    }
    Ok(None)
}
