//! The MySQL/MariaDB side of rewriting stored search terms
//! (`memory_bank_store::search_terms`).

use memory_bank_store::{StoreError, TermsProgress, TermsRewrite, TermsSource};
use sqlx::{MySqlPool, Row as _};

use crate::postings::{self, Posted, PostedRow};
use crate::rows::db_err;

pub(crate) async fn progress(pool: &MySqlPool) -> Result<TermsProgress, StoreError> {
    let row = sqlx::query("SELECT version, done_through FROM search_terms WHERE id = 1")
        .fetch_one(pool)
        .await
        .map_err(db_err)?;
    let version: i32 = row.try_get("version").map_err(db_err)?;
    Ok(TermsProgress { version: i64::from(version), done_through: row.try_get("done_through").map_err(db_err)? })
}

pub(crate) async fn sources(pool: &MySqlPool, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
    let rows = sqlx::query(
        "SELECT m.id, m.user_id, m.content, CAST(m.tags AS CHAR) AS tags, m.search_text,
                (SELECT CAST(JSON_ARRAYAGG(c.snippet) AS CHAR) FROM memory_context AS c WHERE c.memory_id = m.id) AS snippets
         FROM memory AS m WHERE m.id > ? ORDER BY m.id LIMIT ?",
    )
    .bind(after.unwrap_or(""))
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    rows.iter()
        .map(|row| {
            let tags: Option<String> = row.try_get("tags").map_err(db_err)?;
            let snippets: Option<String> = row.try_get("snippets").map_err(db_err)?;
            Ok(TermsSource::from_stored(
                row.try_get("id").map_err(db_err)?,
                row.try_get("user_id").map_err(db_err)?,
                row.try_get("content").map_err(db_err)?,
                tags.as_deref(),
                snippets.as_deref(),
                row.try_get("search_text").map_err(db_err)?,
            ))
        })
        .collect()
}

pub(crate) async fn rewrite(pool: &MySqlPool, rows: &[TermsRewrite], progress: &TermsProgress) -> Result<u64, StoreError> {
    let mut tx = pool.begin().await.map_err(db_err)?;
    let mut changed = 0;
    for row in rows {
        // Only a row still holding the terms read: an edit since then wrote its own.
        let found = sqlx::query("SELECT id, user_id, created_at, search_text FROM memory WHERE id = ? AND search_text = ? FOR UPDATE")
            .bind(&row.id)
            .bind(&row.old)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_err)?;
        let Some(found) = found else { continue };
        let before = PostedRow::from_row(&found)?;
        changed += sqlx::query("UPDATE memory SET search_text = ? WHERE id = ? AND user_id = ? AND created_at = ?")
            .bind(&row.new)
            .bind(&row.id)
            .bind(&before.user_id)
            .bind(before.created_at.to_datetime())
            .execute(&mut *tx)
            .await
            .map_err(db_err)?
            .rows_affected();
        postings::remove(&mut tx, &[before.posted()]).await?;
        postings::add(&mut tx, &[Posted { search_text: &row.new, ..before.posted() }]).await?;
    }
    sqlx::query("UPDATE search_terms SET version = ?, done_through = ? WHERE id = 1")
        .bind(progress.version)
        .bind(&progress.done_through)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    tx.commit().await.map_err(db_err)?;
    Ok(changed)
}
