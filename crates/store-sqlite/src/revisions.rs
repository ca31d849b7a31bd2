//! The `memory_revision` table: an edit keeps the version it replaces, in the same
//! transaction that rewrites the row and its full-text entry.

use memory_bank_contract::edit::Revision;
use memory_bank_contract::transfer::ExportedRevision;
use memory_bank_contract::wire::ConfirmedVia;
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::{parse_imported_from, parse_tags};
use memory_bank_store::{BankKey, MemoryUpdate, StoreError};
use sqlx::sqlite::SqliteRow;
use sqlx::{SqliteConnection, SqlitePool};

use crate::rows::{db_err, get, replace_fts_terms};

/// Inside `tx`: keeps the row as a revision, then writes `update` to it and to
/// `memory_fts`; false when the user has no such memory. An imported memory's file
/// claim goes with the version it was about: the new one is the person's own.
pub(crate) async fn update(
    tx: &mut SqliteConnection,
    bank: BankKey<'_>,
    id: &str,
    update: &MemoryUpdate,
) -> Result<bool, StoreError> {
    let kept = sqlx::query(
        "INSERT INTO memory_revision (id, memory_id, user_id, content, tags, confirmed_via, imported_from, created_at, replaced_at)
         SELECT ?1, id, user_id, content, tags, confirmed_via, imported_from, updated_at, ?2 FROM memory
         WHERE id = ?3 AND user_id = ?4 AND scope = ?5",
    )
    .bind(&update.revision_id)
    .bind(update.updated_at.unix_ms())
    .bind(id)
    .bind(bank.owner())
    .bind(bank.scope().as_str())
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    if kept.rows_affected() == 0 {
        return Ok(false);
    }
    // The vector was made from the text being replaced; the bank writes the new one.
    sqlx::query("DELETE FROM memory_vector WHERE memory_id = ?1").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    let tags = update.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    let seq: i64 = sqlx::query_scalar(
        "UPDATE memory SET content = ?1, tags = ?2, search_text = ?3, updated_at = ?4, confirmed_via = ?5, imported_from = NULL
         WHERE id = ?6 AND user_id = ?7 AND scope = ?8 RETURNING seq",
    )
    .bind(&update.content)
    .bind(tags)
    .bind(&update.search_text)
    .bind(update.updated_at.unix_ms())
    .bind(update.confirmed_via.map(|v| v.as_str()))
    .bind(id)
    .bind(bank.owner())
    .bind(bank.scope().as_str())
    .fetch_one(&mut *tx)
    .await
    .map_err(db_err)?;
    replace_fts_terms(&mut *tx, seq, &update.search_text).await?;
    Ok(true)
}

pub(crate) async fn list(pool: &SqlitePool, user_id: &str, memory_ids: &[String]) -> Result<Vec<ExportedRevision>, StoreError> {
    if memory_ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query(
        "SELECT id, memory_id, content, tags, confirmed_via, imported_from, created_at, replaced_at FROM memory_revision
         WHERE memory_id IN (SELECT value FROM json_each(?1)) AND user_id = ?2 ORDER BY memory_id, replaced_at DESC, id DESC",
    )
    .bind(serde_json::Value::from(memory_ids.to_vec()).to_string())
    .bind(user_id)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    rows.iter().map(from_row).collect()
}

/// Inside `tx`: the revisions of a memory being deleted.
pub(crate) async fn delete_all(tx: &mut SqliteConnection, user_id: &str, memory_id: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM memory_revision WHERE memory_id = ?1 AND user_id = ?2")
        .bind(memory_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    Ok(())
}

fn from_row(row: &SqliteRow) -> Result<ExportedRevision, StoreError> {
    let revision = Revision {
        id: get(row, "id")?,
        memory_id: get(row, "memory_id")?,
        content: get(row, "content")?,
        tags: parse_tags(get::<Option<String>>(row, "tags")?.as_deref()),
        created_at: Timestamp::from_unix_ms(get(row, "created_at")?),
        replaced_at: Timestamp::from_unix_ms(get(row, "replaced_at")?),
        confirmed_via: get::<Option<String>>(row, "confirmed_via")?.as_deref().and_then(ConfirmedVia::parse),
    };
    Ok(ExportedRevision { revision, imported_from: parse_imported_from(get::<Option<String>>(row, "imported_from")?.as_deref()) })
}
