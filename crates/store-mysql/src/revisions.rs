//! The `memory_revision` table: an edit keeps the version it replaces, in the same
//! transaction that rewrites the row and its postings.

use chrono::{DateTime, Utc};
use memory_bank_contract::edit::Revision;
use memory_bank_contract::transfer::ExportedRevision;
use memory_bank_contract::wire::ConfirmedVia;
use memory_bank_store::stored::{parse_imported_from, parse_tags};
use memory_bank_store::{BankKey, MemoryUpdate, StoreError};
use sqlx::mysql::MySqlRow;
use sqlx::{MySqlConnection, MySqlPool};

use crate::postings::{self, Posted, PostedRow};
use crate::rows::{db_err, get, timestamp};

/// Inside `tx`: locks the row, keeps it as a revision, then writes `update` to it;
/// false when the user has no such memory. An imported memory's file claim goes with
/// the version it was about: the new one is the person's own.
pub(crate) async fn update(tx: &mut MySqlConnection, bank: BankKey<'_>, id: &str, update: &MemoryUpdate) -> Result<bool, StoreError> {
    let (user_id, scope) = (bank.owner(), bank.scope().as_str());
    // The row lock first: two edits of one memory queue here instead of deadlocking on
    // the shared lock INSERT … SELECT would take.
    let found = sqlx::query("SELECT id, user_id, created_at, search_text FROM memory WHERE id = ? AND user_id = ? AND scope = ? FOR UPDATE")
        .bind(id)
        .bind(user_id)
        .bind(scope)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db_err)?;
    let Some(found) = found else { return Ok(false) };
    let before = PostedRow::from_row(&found)?;
    let replaced_at: DateTime<Utc> = update.updated_at.to_datetime();
    sqlx::query(
        "INSERT INTO memory_revision (id, memory_id, user_id, content, tags, confirmed_via, imported_from, created_at, replaced_at)
         SELECT ?, id, user_id, content, tags, confirmed_via, imported_from, updated_at, ? FROM memory WHERE id = ? AND user_id = ?",
    )
    .bind(&update.revision_id)
    .bind(replaced_at)
    .bind(id)
    .bind(user_id)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    // The vector was made from the text being replaced; the bank writes the new one.
    sqlx::query("DELETE FROM memory_vector WHERE memory_id = ?").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    let tags = update.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    sqlx::query(
        "UPDATE memory SET content = ?, tags = ?, search_text = ?, updated_at = ?, confirmed_via = ?, imported_from = NULL
         WHERE id = ? AND user_id = ? AND scope = ?",
    )
    .bind(&update.content)
    .bind(tags)
    .bind(&update.search_text)
    .bind(replaced_at)
    .bind(update.confirmed_via.map(|v| v.as_str()))
    .bind(id)
    .bind(user_id)
    .bind(scope)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    postings::remove(tx, &[before.posted()]).await?;
    postings::add(tx, &[Posted { search_text: &update.search_text, ..before.posted() }]).await?;
    Ok(true)
}

pub(crate) async fn list(pool: &MySqlPool, user_id: &str, memory_ids: &[String]) -> Result<Vec<ExportedRevision>, StoreError> {
    if memory_ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query(
        "SELECT r.id, r.memory_id, r.content, CAST(r.tags AS CHAR) AS tags, r.confirmed_via,
                CAST(r.imported_from AS CHAR) AS imported_from, r.created_at, r.replaced_at
         FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
         JOIN memory_revision AS r ON r.memory_id = j.wanted
         WHERE r.user_id = ? ORDER BY r.memory_id, r.replaced_at DESC, r.id DESC",
    )
    .bind(serde_json::Value::from(memory_ids.to_vec()).to_string())
    .bind(user_id)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    rows.iter().map(from_row).collect()
}

/// Inside `tx`: the revisions of a memory being deleted.
pub(crate) async fn delete_all(tx: &mut MySqlConnection, user_id: &str, memory_id: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM memory_revision WHERE memory_id = ? AND user_id = ?")
        .bind(memory_id)
        .bind(user_id)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    Ok(())
}

fn from_row(row: &MySqlRow) -> Result<ExportedRevision, StoreError> {
    let revision = Revision {
        id: get(row, "id")?,
        memory_id: get(row, "memory_id")?,
        content: get(row, "content")?,
        tags: parse_tags(get::<Option<String>>(row, "tags")?.as_deref()),
        created_at: timestamp(row, "created_at")?,
        replaced_at: timestamp(row, "replaced_at")?,
        confirmed_via: get::<Option<String>>(row, "confirmed_via")?.as_deref().and_then(ConfirmedVia::parse),
    };
    Ok(ExportedRevision { revision, imported_from: parse_imported_from(get::<Option<String>>(row, "imported_from")?.as_deref()) })
}
