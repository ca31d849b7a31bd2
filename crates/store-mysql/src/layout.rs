//! The physical order of `memory`: rows clustered by owner, newest last; and the
//! `created_at` columns that order is built on, normalised first.
//!
//! InnoDB stores a table in primary-key order. With `id` (time-ordered) as the key, a
//! user's rows are spread over the whole table, one page each, so a search whose term
//! is in most of a user's memories reads ~700 scattered pages at 10⁶ rows (measured
//! 7 ms p50 / 20–50 ms p95 for the candidate query alone). With the key
//! `(user_id, created_at, id)` the same rows sit on a few dozen adjacent pages
//! (1.8–2.4 ms p50 / 7–11 ms p95), and newest-first paging is a primary-key range.
//! `id` stays unique through its own index, which id lookups and deletes use.
//!
//! Done in code rather than in a migration file because what to change depends on the
//! table: a database adopted from an older release may lack the old owner index or
//! have a nullable `created_at`, and MySQL 8 has no `DROP INDEX IF EXISTS`.

use memory_bank_store::StoreError;
use sqlx::{MySqlPool, Row as _};

use crate::rows::db_err;

/// The primary key `memory` should have, in order.
const CLUSTER_KEY: [&str; 3] = ["user_id", "created_at", "id"];

async fn index_exists(pool: &MySqlPool, name: &str) -> Result<bool, StoreError> {
    let found: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM information_schema.STATISTICS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory' AND INDEX_NAME = ? LIMIT 1",
    )
    .bind(name)
    .fetch_optional(pool)
    .await
    .map_err(db_err)?;
    Ok(found.is_some())
}

/// Whether `memory` is clustered by owner already.
pub(crate) async fn is_clustered(pool: &MySqlPool) -> Result<bool, StoreError> {
    let key: Vec<String> = sqlx::query_scalar(
        "SELECT CAST(COLUMN_NAME AS CHAR) FROM information_schema.STATISTICS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory' AND INDEX_NAME = 'PRIMARY'
         ORDER BY SEQ_IN_INDEX",
    )
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    Ok(key.iter().map(String::as_str).eq(CLUSTER_KEY))
}

/// Gives `memory` the primary key `(user_id, created_at, id)`, a unique index on `id`,
/// and drops the owner index the new key makes redundant. Does nothing when the key
/// is already right. Callers hold the migration lock (see `schema::migrate`).
pub(crate) async fn cluster_by_user(pool: &MySqlPool) -> Result<(), StoreError> {
    if is_clustered(pool).await? {
        return Ok(());
    }
    let mut alter = String::from(
        // A key column must be NOT NULL; older schemas had a nullable created_at. The
        // values (milliseconds included) are kept. ALGORITHM = COPY: the rebuild also
        // rebuilds an existing FULLTEXT index, which MariaDB 10.11 does not reliably
        // do in place (see fulltext.rs).
        "ALTER TABLE memory MODIFY created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
         DROP PRIMARY KEY, ADD PRIMARY KEY (user_id, created_at, id)",
    );
    if !index_exists(pool, "memory_id").await? {
        alter.push_str(", ADD UNIQUE KEY memory_id (id)");
    }
    if index_exists(pool, "memory_user_id").await? {
        alter.push_str(", DROP KEY memory_user_id");
    }
    alter.push_str(", ALGORITHM = COPY");
    tracing::info!("clustering memory by user");
    // Built only from the fixed fragments above: no caller input reaches it.
    sqlx::raw_sql(sqlx::AssertSqlSafe(alter)).execute(pool).await.map_err(db_err)?;
    Ok(())
}

/// Makes `created_at` of `memory_context`, then `memory`, a NOT NULL TIMESTAMP(3)
/// defaulting to CURRENT_TIMESTAMP(3), as older schemas had other types or defaults
/// (e.g. `now()` or no default). Existing values are kept, milliseconds included:
/// a TIMESTAMP(3) or DATETIME(3) column converts without loss in a UTC session.
pub(crate) async fn normalise_created_at(pool: &MySqlPool) -> Result<(), StoreError> {
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
