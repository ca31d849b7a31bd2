//! The InnoDB FULLTEXT index older releases searched with, retired: the store's own
//! index table (`postings`) replaces it, and once that is complete nothing reads the
//! FULLTEXT index while every save still paid to keep it.

use memory_bank_store::StoreError;
use sqlx::MySqlPool;

use crate::rows::{db_err, error_number};

/// `ER_CANT_DROP_FIELD_OR_KEY`: another caller dropped it first.
const NO_SUCH_KEY: u16 = 1091;

/// Drops the FULLTEXT index an older release made, when there is one. Only called once
/// the index table is complete, so searches never lack an index.
pub(crate) async fn retire(pool: &MySqlPool) -> Result<(), StoreError> {
    let found: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM information_schema.STATISTICS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory' AND INDEX_NAME = 'memory_search_fulltext' LIMIT 1",
    )
    .fetch_optional(pool)
    .await
    .map_err(db_err)?;
    if found.is_none() {
        return Ok(());
    }
    match sqlx::raw_sql("ALTER TABLE memory DROP INDEX memory_search_fulltext").execute(pool).await {
        Ok(_) => {
            tracing::info!("the FULLTEXT index of older releases dropped");
            Ok(())
        }
        Err(err) if error_number(&err) == Some(NO_SUCH_KEY) => Ok(()),
        Err(err) => Err(db_err(err)),
    }
}
