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

/// The columns [`memory_from_row`] reads, from `memory AS m`: the row's, and its
/// contexts as one JSON array (`[id, citation, snippet, origin, created_at]` each, in
/// saved order), so a page of memories is one statement rather than one for the rows and
/// one for their contexts (each statement is a round trip to SQLite's worker thread).
/// A macro, so each statement is one literal (`concat!`), built by nothing at run time.
macro_rules! memory_columns {
    () => {
        "m.id, m.content, m.tags, m.source, m.scope, m.org_id, m.created_at, m.updated_at,
         m.confirmed_via, m.proposed_by, m.imported_from, m.saved_by, m.confirmed_by,
         (SELECT json_group_array(json_array(c.id, c.citation, c.snippet, c.origin, c.created_at) ORDER BY c.id)
          FROM memory_context AS c WHERE c.memory_id = m.id) AS contexts"
    };
}
pub(crate) use memory_columns;

/// A memory from a row of [`memory_columns`].
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
        contexts: contexts_from(&get::<String>(row, "contexts")?)?,
        confirmed_via: get::<Option<String>>(row, "confirmed_via")?.as_deref().and_then(ConfirmedVia::parse),
        proposed_by: get(row, "proposed_by")?,
        imported_from: parse_imported_from(get::<Option<String>>(row, "imported_from")?.as_deref()),
        saved_by: get(row, "saved_by")?,
        confirmed_by: get(row, "confirmed_by")?,
    })
}

/// A memory's contexts from the JSON array [`memory_columns`] packs them in.
fn contexts_from(packed: &str) -> Result<Vec<MemoryContext>, StoreError> {
    type Packed = (String, Option<String>, String, Option<String>, i64);
    let rows: Vec<Packed> =
        serde_json::from_str(packed).map_err(|e| StoreError::Database(format!("unreadable contexts: {e}")))?;
    Ok(rows
        .into_iter()
        .map(|(id, citation, snippet, origin, created_at)| MemoryContext {
            id,
            snippet,
            citation: parse_citation(citation.as_deref()),
            origin: origin.as_deref().and_then(Origin::parse),
            created_at: Timestamp::from_unix_ms(created_at),
        })
        .collect())
}
