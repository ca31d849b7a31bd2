//! The MySQL/MariaDB side of meaning search (`memory_bank_store::meaning`): the
//! `memory_vector` table, encrypted at rest when the server encrypts its tablespaces.

use memory_bank_store::{StoreError, StoredVector, TermsSource, VectorRow, VectorSummary};
use sqlx::{MySqlPool, Row as _};

use crate::rows::db_err;

pub(crate) async fn without_vector(pool: &MySqlPool, model: &str, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
    let rows = sqlx::query(
        "SELECT m.id, m.user_id, m.content, CAST(m.tags AS CHAR) AS tags, m.search_text
         FROM memory AS m LEFT JOIN memory_vector AS v ON v.memory_id = m.id AND v.model = ?
         WHERE v.seq IS NULL AND m.id > ? ORDER BY m.id LIMIT ?",
    )
    .bind(model)
    .bind(after.unwrap_or(""))
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    rows.iter()
        .map(|row| {
            let tags: Option<String> = row.try_get("tags").map_err(db_err)?;
            Ok(TermsSource::from_stored(
                row.try_get("id").map_err(db_err)?,
                row.try_get("user_id").map_err(db_err)?,
                row.try_get("content").map_err(db_err)?,
                tags.as_deref(),
                None,
                row.try_get("search_text").map_err(db_err)?,
            ))
        })
        .collect()
}

pub(crate) async fn put(pool: &MySqlPool, model: &str, rows: &[VectorRow]) -> Result<u64, StoreError> {
    if rows.is_empty() {
        return Ok(0);
    }
    let mut tx = pool.begin().await.map_err(db_err)?;
    let mut written = 0;
    for row in rows {
        // REPLACE deletes the old row and inserts one with a new seq, so every copy
        // in memory sees the change.
        let affected = sqlx::query(
            "REPLACE INTO memory_vector (memory_id, user_id, model, vector)
             SELECT id, user_id, ?, ? FROM memory WHERE id = ? AND user_id = ? AND search_text = ?",
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
        written += u64::from(affected > 0);
    }
    tx.commit().await.map_err(db_err)?;
    Ok(written)
}

pub(crate) async fn after(pool: &MySqlPool, user_id: &str, model: &str, after_seq: i64, limit: u32) -> Result<Vec<StoredVector>, StoreError> {
    let rows = sqlx::query(
        "SELECT CAST(seq AS SIGNED) AS seq, memory_id, vector FROM memory_vector
         WHERE user_id = ? AND seq > ? AND model = ? ORDER BY seq LIMIT ?",
    )
    .bind(user_id)
    .bind(after_seq)
    .bind(model)
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    rows.iter()
        .map(|row| {
            Ok(StoredVector {
                seq: row.try_get("seq").map_err(db_err)?,
                memory_id: row.try_get("memory_id").map_err(db_err)?,
                vector: row.try_get("vector").map_err(db_err)?,
            })
        })
        .collect()
}

pub(crate) async fn summary(pool: &MySqlPool, user_id: &str, model: &str) -> Result<VectorSummary, StoreError> {
    let row = sqlx::query(
        "SELECT count(*) AS n, CAST(COALESCE(max(seq), 0) AS SIGNED) AS max_seq
         FROM memory_vector WHERE user_id = ? AND model = ?",
    )
    .bind(user_id)
    .bind(model)
    .fetch_one(pool)
    .await
    .map_err(db_err)?;
    let count: i64 = row.try_get("n").map_err(db_err)?;
    Ok(VectorSummary { count: count.max(0) as u64, max_seq: row.try_get("max_seq").map_err(db_err)? })
}

pub(crate) async fn coverage(pool: &MySqlPool, model: &str) -> Result<(u64, u64), StoreError> {
    let row = sqlx::query(
        "SELECT (SELECT count(*) FROM memory) AS memories,
                (SELECT count(*) FROM memory_vector AS v JOIN memory AS m ON m.id = v.memory_id WHERE v.model = ?) AS with_vector",
    )
    .bind(model)
    .fetch_one(pool)
    .await
    .map_err(db_err)?;
    let memories: i64 = row.try_get("memories").map_err(db_err)?;
    let with_vector: i64 = row.try_get("with_vector").map_err(db_err)?;
    Ok((memories.max(0) as u64, with_vector.max(0) as u64))
}

pub(crate) async fn drop_others(pool: &MySqlPool, model: &str) -> Result<u64, StoreError> {
    Ok(sqlx::query("DELETE FROM memory_vector WHERE model <> ?")
        .bind(model)
        .execute(pool)
        .await
        .map_err(db_err)?
        .rows_affected())
}
