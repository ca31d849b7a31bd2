//! Importing exported memories as they were: ids (where free, see
//! [`memory_bank_store::import_ids`]), timestamps, contexts, revisions and the file's
//! claim of how each was confirmed.

use std::collections::HashSet;

use memory_bank_contract::transfer::OnConflict;
use memory_bank_contract::Timestamp;
use memory_bank_store::import_ids::{self, ImportTarget};
use memory_bank_store::stored::imported_from_json;
use memory_bank_store::{ImportKind, ImportOutcome, ImportRow, StoreError};
use sqlx::MySqlConnection;

use crate::counts;
use crate::delete::delete_in;
use crate::postings::{self, Posted};
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
    let [own, derived] = import_ids::candidate_ids(user_id, &row.memory);
    // Locks the rows found, so a concurrent import or delete of them waits.
    let owners: Vec<(String, String)> = sqlx::query_as("SELECT id, user_id FROM memory WHERE id IN (?, ?) FOR UPDATE")
        .bind(own)
        .bind(derived)
        .fetch_all(&mut *tx)
        .await
        .map_err(db_err)?;
    let ImportTarget { id, exists } = import_ids::target(user_id, &row.memory, &owners);
    if exists && on_conflict == OnConflict::Skip {
        return Ok(ImportOutcome { kind: ImportKind::Skipped, id });
    }
    // Context and revision ids are keys of their own tables: one another memory has is
    // replaced before an overwrite deletes anything.
    let taken = taken_ids(tx, &import_ids::row_ids(&row.memory), &id).await?;
    let renames = if taken.is_empty() {
        Default::default()
    } else {
        let alternatives = import_ids::alternatives(user_id, &taken);
        let still_taken = taken_ids(tx, &alternatives.values().cloned().collect::<Vec<_>>(), &id).await?;
        import_ids::renames(alternatives, &still_taken, row.memory.created_at.unix_ms())
    };
    let m = import_ids::stored_as(&row.memory, &id, &renames);
    let kind = if exists {
        delete_in(tx, memory_bank_store::BankKey::Personal(user_id), &id).await?;
        ImportKind::Overwritten
    } else {
        ImportKind::Imported
    };
    let tags = m.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    sqlx::query(
        "INSERT INTO memory (id, user_id, org_id, scope, content, source, tags, search_text, created_at, updated_at,
                             confirmed_via, proposed_by, imported_from)
         VALUES (?, ?, ?, 'user', ?, 'chat', ?, ?, ?, ?, ?, ?, ?)",
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
    .bind(imported_from_json(m.imported_from.as_ref()))
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    postings::add(tx, &[Posted { user_id, created_at: m.created_at, id: &m.id, search_text: &row.search_text }]).await?;
    counts::added(tx, [(user_id, "user", m.id.as_str())]).await?;
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
    for exported in &m.revisions {
        let r = &exported.revision;
        let tags = r.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
        sqlx::query(
            "INSERT INTO memory_revision (id, memory_id, user_id, content, tags, confirmed_via, imported_from, created_at, replaced_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&r.id)
        .bind(&m.id)
        .bind(user_id)
        .bind(&r.content)
        .bind(tags)
        .bind(r.confirmed_via.map(|v| v.as_str()))
        .bind(imported_from_json(exported.imported_from.as_ref()))
        .bind(at(r.created_at))
        .bind(at(r.replaced_at))
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    }
    Ok(ImportOutcome { kind, id })
}

/// Those of `ids` (context and revision ids) that rows of a memory other than
/// `memory_id` have, whoever owns them.
async fn taken_ids(tx: &mut MySqlConnection, ids: &[String], memory_id: &str) -> Result<HashSet<String>, StoreError> {
    if ids.is_empty() {
        return Ok(HashSet::new());
    }
    // The id list travels as one bound JSON array, as in every other lookup here.
    let list = serde_json::Value::from(ids.to_vec()).to_string();
    let taken: Vec<String> = sqlx::query_scalar(
        "SELECT c.id FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
                JOIN memory_context AS c ON c.id = j.wanted WHERE c.memory_id <> ?
         UNION ALL
         SELECT r.id FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
                JOIN memory_revision AS r ON r.id = j.wanted WHERE r.memory_id <> ?",
    )
    .bind(&list)
    .bind(memory_id)
    .bind(&list)
    .bind(memory_id)
    .fetch_all(&mut *tx)
    .await
    .map_err(db_err)?;
    Ok(taken.into_iter().collect())
}
