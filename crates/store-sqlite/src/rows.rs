//! Row mapping and error translation for the SQLite store.

use std::collections::HashMap;

use memory_bank_contract::wire::{ConfirmedVia, Memory, MemoryContext, Org, Origin, Scope, User};
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::{parse_citation, parse_imported_from, parse_tags};
use memory_bank_store::StoreError;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection, SqlitePool};

/// Maps a sqlx error to a [`StoreError`] that says what to do.
/// Gives memory row `seq` the full-text terms `terms` in place of its old ones: a
/// contentless FTS5 entry is replaced by deleting and inserting its rowid.
pub(crate) async fn replace_fts_terms(conn: &mut SqliteConnection, seq: i64, terms: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM memory_fts WHERE rowid = ?1").bind(seq).execute(&mut *conn).await.map_err(db_err)?;
    sqlx::query("INSERT INTO memory_fts (rowid, terms) VALUES (?1, ?2)")
        .bind(seq)
        .bind(terms)
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(())
}

pub(crate) fn db_err(err: sqlx::Error) -> StoreError {
    match &err {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => {
            StoreError::Unavailable(err.to_string())
        }
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
        sqlx::Error::Database(db) if db.message().contains("no such table: memory_fts") => {
            StoreError::SearchIndexMissing { backend: "sqlite" }
        }
        _ => StoreError::Database(err.to_string()),
    }
}

pub(crate) fn get<'r, T: sqlx::Decode<'r, sqlx::Sqlite> + sqlx::Type<sqlx::Sqlite>>(row: &'r SqliteRow, column: &str) -> Result<T, StoreError> {
    row.try_get(column).map_err(db_err)
}

pub(crate) fn user_from_row(row: &SqliteRow) -> Result<User, StoreError> {
    Ok(User { id: get(row, "id")?, email: get(row, "email")?, created_at: Timestamp::from_unix_ms(get(row, "created_at")?) })
}

pub(crate) fn org_from_row(row: &SqliteRow) -> Result<Org, StoreError> {
    Ok(Org { id: get(row, "id")?, name: get(row, "name")?, created_at: Timestamp::from_unix_ms(get(row, "created_at")?) })
}

pub(crate) fn memory_from_row(row: &SqliteRow) -> Result<Memory, StoreError> {
    let scope: String = get(row, "scope")?;
    Ok(Memory {
        id: get(row, "id")?,
        content: get(row, "content")?,
        tags: parse_tags(get::<Option<String>>(row, "tags")?.as_deref()),
        source: get(row, "source")?,
        scope: if scope == "org" { Scope::Org } else { Scope::User },
        org_id: get(row, "org_id")?,
        created_at: Timestamp::from_unix_ms(get(row, "created_at")?),
        updated_at: Timestamp::from_unix_ms(get(row, "updated_at")?),
        contexts: Vec::new(),
        confirmed_via: get::<Option<String>>(row, "confirmed_via")?.as_deref().and_then(ConfirmedVia::parse),
        proposed_by: get(row, "proposed_by")?,
        imported_from: parse_imported_from(get::<Option<String>>(row, "imported_from")?.as_deref()),
        saved_by: get(row, "saved_by")?,
        confirmed_by: get(row, "confirmed_by")?,
    })
}

/// Loads the contexts of `memories` in one query and attaches them in saved order.
pub(crate) async fn attach_contexts(pool: &SqlitePool, mut memories: Vec<Memory>) -> Result<Vec<Memory>, StoreError> {
    if memories.is_empty() {
        return Ok(memories);
    }
    let ids: Vec<String> = memories.iter().map(|m| m.id.clone()).collect();
    let rows = sqlx::query(
        "SELECT id, memory_id, citation, snippet, origin, created_at FROM memory_context
         WHERE memory_id IN (SELECT value FROM json_each(?1)) ORDER BY memory_id, id",
    )
    .bind(serde_json::Value::from(ids).to_string())
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    let mut by_memory: HashMap<String, Vec<MemoryContext>> = HashMap::new();
    for row in &rows {
        let origin: Option<String> = get(row, "origin")?;
        by_memory.entry(get(row, "memory_id")?).or_default().push(MemoryContext {
            id: get(row, "id")?,
            snippet: get(row, "snippet")?,
            citation: parse_citation(get::<Option<String>>(row, "citation")?.as_deref()),
            origin: origin.as_deref().and_then(Origin::parse),
            created_at: Timestamp::from_unix_ms(get(row, "created_at")?),
        });
    }
    for memory in &mut memories {
        memory.contexts = by_memory.remove(&memory.id).unwrap_or_default();
    }
    Ok(memories)
}
