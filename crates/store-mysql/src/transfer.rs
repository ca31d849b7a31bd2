//! Importing exported memories as they were: ids, timestamps, contexts and revisions.

use memory_bank_contract::transfer::OnConflict;
use memory_bank_contract::Timestamp;
use memory_bank_store::{ImportOutcome, ImportRow, StoreError};
use sqlx::MySqlConnection;

use crate::delete::delete_in;
use crate::rows::db_err;

fn at(ts: Timestamp) -> chrono::DateTime<chrono::Utc> {
    ts.to_datetime()
}

/// Inside `tx`: imports one row for `user_id` (see [`memory_bank_store::MemoryStore::import_memories`]).
pub(crate) async fn import_one(
    tx: &mut MySqlConnection,
    user_id: &str,
    org_id: &str,
    row: &ImportRow,
    on_conflict: OnConflict,
) -> Result<ImportOutcome, StoreError> {
    let m = &row.memory;
    let owner: Option<String> = sqlx::query_scalar("SELECT user_id FROM memory WHERE id = ? FOR UPDATE")
        .bind(&m.id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db_err)?;
    match owner.as_deref() {
        Some(owner) if owner != user_id => return Ok(ImportOutcome::IdInUse),
        Some(_) if on_conflict == OnConflict::Skip => return Ok(ImportOutcome::Skipped),
        _ => {}
    }
    // Context and revision ids are keys of their own tables: one taken by another
    // memory means this line cannot keep its ids. Checked before an overwrite deletes
    // anything, so a refused line changes nothing.
    let context_ids: Vec<&str> = m.contexts.iter().map(|c| c.id.as_str()).collect();
    let revision_ids: Vec<&str> = m.revisions.iter().map(|r| r.id.as_str()).collect();
    let taken: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
                   JOIN memory_context AS c ON c.id = j.wanted WHERE c.memory_id <> ?)
              + (SELECT count(*) FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
                   JOIN memory_revision AS r ON r.id = j.wanted WHERE r.memory_id <> ?)",
    )
    .bind(serde_json::Value::from(context_ids).to_string())
    .bind(&m.id)
    .bind(serde_json::Value::from(revision_ids).to_string())
    .bind(&m.id)
    .fetch_one(&mut *tx)
    .await
    .map_err(db_err)?;
    if taken > 0 {
        return Ok(ImportOutcome::IdInUse);
    }
    let outcome = if owner.is_some() {
        delete_in(tx, user_id, &m.id).await?;
        ImportOutcome::Overwritten
    } else {
        ImportOutcome::Imported
    };
    let tags = m.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    sqlx::query(
        "INSERT INTO memory (id, user_id, org_id, scope, content, source, tags, search_text, created_at, updated_at,
                             confirmed_via, proposed_by)
         VALUES (?, ?, ?, 'user', ?, 'chat', ?, ?, ?, ?, ?, ?)",
    )
    .bind(&m.id)
    .bind(user_id)
    .bind(org_id)
    .bind(&m.content)
    .bind(tags)
    .bind(&row.search_text)
    .bind(at(m.created_at))
    .bind(at(m.updated_at))
    .bind(m.confirmed_via.map(|v| v.as_str()))
    .bind(&m.proposed_by)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    for c in &m.contexts {
        let citation = c.citation.as_ref().map(|c| serde_json::to_string(c).unwrap_or_default());
        sqlx::query(
            "INSERT INTO memory_context (id, memory_id, citation, snippet, origin, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&c.id)
        .bind(&m.id)
        .bind(citation)
        .bind(&c.snippet)
        .bind(c.origin.map(|o| o.as_str()))
        .bind(at(c.created_at))
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    }
    for r in &m.revisions {
        let tags = r.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
        sqlx::query(
            "INSERT INTO memory_revision (id, memory_id, user_id, content, tags, confirmed_via, created_at, replaced_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&r.id)
        .bind(&m.id)
        .bind(user_id)
        .bind(&r.content)
        .bind(tags)
        .bind(r.confirmed_via.map(|v| v.as_str()))
        .bind(at(r.created_at))
        .bind(at(r.replaced_at))
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    }
    Ok(outcome)
}
