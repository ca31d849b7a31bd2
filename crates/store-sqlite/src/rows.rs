//! Row mapping and error translation for the SQLite store.

use memory_bank_contract::wire::{ConfirmedVia, Memory, MemoryContext, Org, Origin, Scope, User};
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::{parse_citation, parse_imported_from, parse_tags};
use memory_bank_store::StoreError;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

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
        sqlx::Error::Database(db) if index_missing(db.message()) => {
            StoreError::SearchIndexMissing { backend: "sqlite" }
        }
        _ => StoreError::Database(err.to_string()),
    }
}

/// Whether SQLite's error `message` says the search index is missing.
pub(crate) fn index_missing(message: &str) -> bool {
    message.contains("no such table: memory_fts")
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

/// The memories of a statement over `memory AS m`, packed into one JSON array (one
/// `[id, content, tags, source, scope, org_id, created_at, updated_at, confirmed_via,
/// proposed_by, imported_from, saved_by, confirmed_by, contexts]` each, the contexts an
/// array of `[id, citation, snippet, origin, created_at]` in saved order), in the order
/// `$order` gives (an aggregate's `ORDER BY …`, or nothing). One row: each row a
/// statement hands back is a trip through the driver's channel from SQLite's worker
/// thread, and 20 of them cost more than the statement (BENCHMARKS.md, "Both banks in one
/// statement"). A macro, so each statement is one literal (`concat!`), built by nothing
/// at run time.
macro_rules! packed_memories {
    ($order:literal) => {
        concat!(
            "json_group_array(json_array(m.id, m.content, m.tags, m.source, m.scope, m.org_id, m.created_at,
               m.updated_at, m.confirmed_via, m.proposed_by, m.imported_from, m.saved_by, m.confirmed_by,
               json((SELECT json_group_array(json_array(c.id, c.citation, c.snippet, c.origin, c.created_at) ORDER BY c.id)
                     FROM memory_context AS c WHERE c.memory_id = m.id)))",
            $order,
            ")"
        )
    };
}
pub(crate) use packed_memories;

/// A memory as [`packed_memories`] packs it, its fields in that order.
type PackedMemory = (
    String,
    String,
    Option<String>,
    String,
    String,
    String,
    i64,
    i64,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Vec<PackedContext>,
);

/// A context as [`packed_memories`] packs it: id, citation, snippet, origin, created_at.
type PackedContext = (String, Option<String>, String, Option<String>, i64);

/// The memories a statement packed with [`packed_memories`] (none for SQL NULL: an
/// aggregate over no rows).
pub(crate) fn memories_from_packed(packed: Option<&str>) -> Result<Vec<Memory>, StoreError> {
    let Some(packed) = packed else { return Ok(Vec::new()) };
    let rows: Vec<PackedMemory> =
        serde_json::from_str(packed).map_err(|e| StoreError::Database(format!("unreadable memories: {e}")))?;
    Ok(rows.into_iter().map(memory_from_packed).collect())
}

fn memory_from_packed(row: PackedMemory) -> Memory {
    let (
        id,
        content,
        tags,
        source,
        scope,
        org_id,
        created_at,
        updated_at,
        confirmed_via,
        proposed_by,
        imported_from,
        saved_by,
        confirmed_by,
        contexts,
    ) = row;
    Memory {
        id,
        content,
        tags: parse_tags(tags.as_deref()),
        source,
        scope: if scope == "org" { Scope::Org } else { Scope::User },
        org_id,
        created_at: Timestamp::from_unix_ms(created_at),
        updated_at: Timestamp::from_unix_ms(updated_at),
        contexts: contexts.into_iter().map(context_from_packed).collect(),
        confirmed_via: confirmed_via.as_deref().and_then(ConfirmedVia::parse),
        proposed_by,
        imported_from: parse_imported_from(imported_from.as_deref()),
        saved_by,
        confirmed_by,
    }
}

fn context_from_packed((id, citation, snippet, origin, created_at): PackedContext) -> MemoryContext {
    MemoryContext {
        id,
        snippet,
        citation: parse_citation(citation.as_deref()),
        origin: origin.as_deref().and_then(Origin::parse),
        created_at: Timestamp::from_unix_ms(created_at),
    }
}
