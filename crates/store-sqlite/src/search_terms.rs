//! The SQLite side of rewriting stored search terms (`memory_bank_store::search_terms`).

use memory_bank_store::{StoreError, TermsProgress, TermsRewrite, TermsSource};
use sqlx::SqlitePool;

use crate::rows::{db_err, replace_fts_terms};
use crate::SqliteStore;

pub(crate) async fn progress(pool: &SqlitePool) -> Result<TermsProgress, StoreError> {
    let (version, done_through): (i64, Option<String>) =
        sqlx::query_as("SELECT version, done_through FROM search_terms WHERE id = 1")
            .fetch_one(pool)
            .await
            .map_err(db_err)?;
    Ok(TermsProgress { version, done_through })
}

pub(crate) async fn sources(pool: &SqlitePool, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
    let rows: Vec<(String, String, String, Option<String>, String, String)> = sqlx::query_as(
        "SELECT m.id, m.user_id, m.content, m.tags, m.search_text,
                (SELECT json_group_array(c.snippet) FROM memory_context AS c WHERE c.memory_id = m.id)
         FROM memory AS m WHERE m.id > ?1 ORDER BY m.id LIMIT ?2",
    )
    .bind(after.unwrap_or(""))
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    Ok(rows
        .into_iter()
        .map(|(id, user_id, content, tags, search_text, snippets)| {
            TermsSource::from_stored(id, user_id, content, tags.as_deref(), Some(&snippets), search_text)
        })
        .collect())
}

pub(crate) async fn rewrite(store: &SqliteStore, rows: &[TermsRewrite], progress: &TermsProgress) -> Result<u64, StoreError> {
    let mut tx = store.begin_write().await?;
    let mut changed = 0;
    for row in rows {
        let seq: Option<i64> =
            sqlx::query_scalar("UPDATE memory SET search_text = ?1 WHERE id = ?2 AND search_text = ?3 RETURNING seq")
                .bind(&row.new)
                .bind(&row.id)
                .bind(&row.old)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_err)?;
        let Some(seq) = seq else { continue };
        replace_fts_terms(&mut tx, seq, &row.new).await?;
        changed += 1;
    }
    sqlx::query("UPDATE search_terms SET version = ?1, done_through = ?2 WHERE id = 1")
        .bind(progress.version)
        .bind(&progress.done_through)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    tx.commit().await.map_err(db_err)?;
    Ok(changed)
}
