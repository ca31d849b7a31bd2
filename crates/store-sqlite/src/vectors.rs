//! The SQLite side of meaning search (`memory_bank_store::meaning`): the
//! `memory_vector` table, inside the bank's file and so inside its encryption.

use memory_bank_store::{StoreError, StoredVector, TermsSource, VectorRow, VectorSummary};
use sqlx::SqlitePool;

use crate::rows::db_err;
use crate::SqliteStore;

pub(crate) async fn without_vector(pool: &SqlitePool, model: &str, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
    let rows: Vec<(String, String, String, Option<String>, String)> = sqlx::query_as(
        "SELECT m.id, m.user_id, m.content, m.tags, m.search_text
         FROM memory AS m LEFT JOIN memory_vector AS v ON v.memory_id = m.id AND v.model = ?1
         WHERE v.seq IS NULL AND m.id > ?2 ORDER BY m.id LIMIT ?3",
    )
    .bind(model)
    .bind(after.unwrap_or(""))
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    Ok(rows
        .into_iter()
        .map(|(id, user_id, content, tags, search_text)| TermsSource::from_stored(id, user_id, content, tags.as_deref(), None, search_text))
        .collect())
}

pub(crate) async fn put(store: &SqliteStore, model: &str, rows: &[VectorRow]) -> Result<u64, StoreError> {
    if rows.is_empty() {
        return Ok(0);
    }
    let mut tx = store.begin_write().await?;
    let mut written = 0;
    for row in rows {
        // REPLACE deletes the old row and inserts one with a new seq, so every copy
        // in memory sees the change.
        written += sqlx::query(
            "INSERT OR REPLACE INTO memory_vector (memory_id, user_id, model, vector)
             SELECT id, user_id, ?1, ?2 FROM memory WHERE id = ?3 AND user_id = ?4 AND search_text = ?5",
        )
        .bind(model)
        .bind(&row.vector)
        .bind(&row.memory_id)
        .bind(&row.user_id)
        .bind(&row.search_text)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?
        .rows_affected();
    }
    tx.commit().await.map_err(db_err)?;
    Ok(written)
}

pub(crate) async fn after(pool: &SqlitePool, user_id: &str, model: &str, after_seq: i64, limit: u32) -> Result<Vec<StoredVector>, StoreError> {
    let rows: Vec<(i64, String, Vec<u8>)> = sqlx::query_as(
        "SELECT seq, memory_id, vector FROM memory_vector
         WHERE user_id = ?1 AND seq > ?2 AND model = ?3 ORDER BY seq LIMIT ?4",
    )
    .bind(user_id)
    .bind(after_seq)
    .bind(model)
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    Ok(rows.into_iter().map(|(seq, memory_id, vector)| StoredVector { seq, memory_id, vector }).collect())
}

pub(crate) async fn summary(pool: &SqlitePool, user_id: &str, model: &str) -> Result<VectorSummary, StoreError> {
    let (count, max_seq): (i64, Option<i64>) =
        sqlx::query_as("SELECT count(*), max(seq) FROM memory_vector WHERE user_id = ?1 AND model = ?2")
            .bind(user_id)
            .bind(model)
            .fetch_one(pool)
            .await
            .map_err(db_err)?;
    Ok(VectorSummary { count: count.max(0) as u64, max_seq: max_seq.unwrap_or(0) })
}

pub(crate) async fn coverage(pool: &SqlitePool, model: &str) -> Result<(u64, u64), StoreError> {
    let (memories, with_vector): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM memory),
                (SELECT count(*) FROM memory_vector AS v JOIN memory AS m ON m.id = v.memory_id WHERE v.model = ?1)",
    )
    .bind(model)
    .fetch_one(pool)
    .await
    .map_err(db_err)?;
    Ok((memories.max(0) as u64, with_vector.max(0) as u64))
}

pub(crate) async fn drop_others(store: &SqliteStore, model: &str) -> Result<u64, StoreError> {
    let mut tx = store.begin_write().await?;
    let dropped = sqlx::query("DELETE FROM memory_vector WHERE model <> ?1")
        .bind(model)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?
        .rows_affected();
    tx.commit().await.map_err(db_err)?;
    Ok(dropped)
}
