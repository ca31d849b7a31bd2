//! Error translation, row mapping and context loading for the MySQL store.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use memory_bank_contract::wire::{ConfirmedVia, Memory, MemoryContext, Org, Origin, Scope, User};
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::{parse_citation, parse_imported_from, parse_tags};
use memory_bank_store::StoreError;
use sqlx::mysql::{MySqlDatabaseError, MySqlRow};
use sqlx::{MySqlConnection, Row};

/// Server error numbers that mean "the server is going away or cannot take us now":
/// too many connections (1040), a Galera node that is not part of the Primary
/// component or still catching up ("WSREP has not yet prepared node for application
/// use", 1047), shutdown in progress (1053), connection killed (1927), and the
/// client-side codes some proxies relay: cannot connect (2002), server gone (2006),
/// connection lost mid-query (2013).
const UNAVAILABLE_NUMBERS: [u16; 7] = [1040, 1047, 1053, 1927, 2002, 2006, 2013];

/// `ER_LOCK_DEADLOCK`: InnoDB chose this transaction to break a deadlock, or a
/// Galera node aborted it for a conflicting write or schema change replicated from
/// another node ("certification failure", "brute force abort").
const DEADLOCK: u16 = 1213;

/// `ER_NO_SUCH_TABLE`: with the search index's table in the message, the index is gone.
const NO_SUCH_TABLE: u16 = 1146;

/// The server's error number, when the error came from the server.
pub(crate) fn error_number(err: &sqlx::Error) -> Option<u16> {
    match err {
        sqlx::Error::Database(db) => db.try_downcast_ref::<MySqlDatabaseError>().map(MySqlDatabaseError::number),
        _ => None,
    }
}

/// Maps a sqlx error to a [`StoreError`] that says what to do. Anything that means
/// the server cannot be reached becomes `Unavailable` (the HTTP layer answers 503).
pub(crate) fn db_err(err: sqlx::Error) -> StoreError {
    let number = error_number(&err);
    match &err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => StoreError::Unavailable(err.to_string()),
        _ if number == Some(DEADLOCK) => StoreError::Contended(err.to_string()),
        sqlx::Error::Database(db) if number == Some(NO_SUCH_TABLE) && db.message().contains(crate::SEARCH_INDEX) => {
            StoreError::SearchIndexMissing { backend: "mysql" }
        }
        _ if number.is_some_and(|n| UNAVAILABLE_NUMBERS.contains(&n)) => StoreError::Unavailable(err.to_string()),
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
        _ => StoreError::Database(err.to_string()),
    }
}

fn is_tls_failure(err: &sqlx::Error, verifying: bool) -> bool {
    match err {
        sqlx::Error::Tls(_) => true,
        sqlx::Error::Io(io) => verifying && io.kind() == std::io::ErrorKind::InvalidData,
        _ => false,
    }
}

/// What to add to a URL to connect over verified TLS, for error messages.
const TLS_HINT: &str = "ssl-mode=VERIFY_IDENTITY&ssl-ca=/path/to/ca.pem (the CA bundle of the server's certificate)";

/// Like [`db_err`], with advice for the mistakes made when first pointing the
/// service at a server: a database that does not exist, wrong credentials, a user
/// that must use TLS, a certificate that does not verify. `tls_off` is true when
/// the URL says `ssl-mode=DISABLED`, `verifying` when it says VERIFY_CA or
/// VERIFY_IDENTITY.
pub(crate) fn open_err(err: sqlx::Error, database: &str, tls_off: bool, verifying: bool) -> StoreError {
    // A user created `REQUIRE SSL` (and managed services, and MySQL 8's default
    // caching_sha2_password login without a cached password) refuse a plaintext login
    // with the same "access denied" as a wrong password, so say both.
    let tls_advice = if tls_off {
        format!("; the URL turns TLS off (ssl-mode=DISABLED): if the user or server requires TLS, use {TLS_HINT}")
    } else {
        format!("; if the server requires verified TLS, add {TLS_HINT}")
    };
    match (&err, error_number(&err)) {
        (_, Some(1049)) => StoreError::Invalid(format!(
            "the database {database:?} does not exist on the server; create it \
             (CREATE DATABASE {database} CHARACTER SET utf8mb4) and run `memory-bank db bootstrap`"
        )),
        (_, Some(1044 | 1045)) => StoreError::Invalid(format!(
            "the server refused the login ({err}); check the user and password in the database URL \
             and that the user may use {database:?}{tls_advice}"
        )),
        // A certificate that does not verify, a server without TLS under a VERIFY mode,
        // an unreadable ssl-ca file: a setting to fix, not an outage to wait out.
        // rustls reports a certificate it rejects during the handshake as an I/O
        // error of kind InvalidData (an unreachable server is ConnectionRefused,
        // TimedOut and the like, and stays Unavailable).
        (sqlx::Error::Tls(_), _) | (sqlx::Error::Io(_), _) if is_tls_failure(&err, verifying) => StoreError::Invalid(format!(
            "TLS with the database server failed ({err}); check ssl-mode and ssl-ca in the database URL: \
             ssl-ca must name the CA bundle that signed the server's certificate, and VERIFY_IDENTITY \
             needs the URL's host to be a name (or IP) in that certificate"
        )),
        _ => db_err(err),
    }
}

pub(crate) fn get<'r, T: sqlx::Decode<'r, sqlx::MySql> + sqlx::Type<sqlx::MySql>>(row: &'r MySqlRow, column: &str) -> Result<T, StoreError> {
    row.try_get(column).map_err(db_err)
}

/// A TIMESTAMP(3) column as milliseconds since the epoch (the session is UTC).
pub(crate) fn timestamp(row: &MySqlRow, column: &str) -> Result<Timestamp, StoreError> {
    Ok(Timestamp::from_datetime(get::<DateTime<Utc>>(row, column)?))
}

pub(crate) fn user_from_row(row: &MySqlRow) -> Result<User, StoreError> {
    Ok(User { id: get(row, "id")?, email: get(row, "email")?, created_at: timestamp(row, "created_at")? })
}

/// The columns every memory read selects, in the shape [`memory_from_row`] expects.
/// JSON is cast to text because MySQL 8 sends JSON columns as their own type.
macro_rules! memory_columns {
    () => {
        "id, content, CAST(tags AS CHAR) AS tags, source, scope, org_id, created_at, updated_at, confirmed_via, proposed_by,
         CAST(imported_from AS CHAR) AS imported_from, saved_by, confirmed_by"
    };
}
pub(crate) use memory_columns;

pub(crate) fn memory_from_row(row: &MySqlRow) -> Result<Memory, StoreError> {
    let scope: String = get(row, "scope")?;
    Ok(Memory {
        id: get(row, "id")?,
        content: get(row, "content")?,
        tags: parse_tags(get::<Option<String>>(row, "tags")?.as_deref()),
        source: get(row, "source")?,
        scope: if scope == "org" { Scope::Org } else { Scope::User },
        org_id: get(row, "org_id")?,
        created_at: timestamp(row, "created_at")?,
        updated_at: timestamp(row, "updated_at")?,
        contexts: Vec::new(),
        confirmed_via: get::<Option<String>>(row, "confirmed_via")?.as_deref().and_then(ConfirmedVia::parse),
        proposed_by: get(row, "proposed_by")?,
        imported_from: parse_imported_from(get::<Option<String>>(row, "imported_from")?.as_deref()),
        saved_by: get(row, "saved_by")?,
        confirmed_by: get(row, "confirmed_by")?,
    })
}

/// A context from a row, its id and creation time read from the named columns.
fn context_from_row(row: &MySqlRow, id: &str, created_at: &str) -> Result<MemoryContext, StoreError> {
    let origin: Option<String> = get(row, "origin")?;
    Ok(MemoryContext {
        id: get(row, id)?,
        snippet: get(row, "snippet")?,
        citation: parse_citation(get::<Option<String>>(row, "citation")?.as_deref()),
        origin: origin.as_deref().and_then(Origin::parse),
        created_at: timestamp(row, created_at)?,
    })
}

/// Loads the contexts of `memories` in one query and attaches them in saved order
/// (context ids sort in the order they were saved).
pub(crate) async fn attach_contexts(conn: &mut MySqlConnection, mut memories: Vec<Memory>) -> Result<Vec<Memory>, StoreError> {
    if memories.is_empty() {
        return Ok(memories);
    }
    let ids: Vec<String> = memories.iter().map(|m| m.id.clone()).collect();
    // The id list travels as one bound JSON array, so the SQL text never changes
    // with the page size; the semi-join still looks each id up in the index.
    let rows = sqlx::query(
        "SELECT id, memory_id, CAST(citation AS CHAR) AS citation, snippet, origin, created_at FROM memory_context
         WHERE memory_id IN (SELECT j.id FROM JSON_TABLE(?, '$[*]' COLUMNS (id VARCHAR(64) PATH '$')) AS j)
         ORDER BY memory_id, id",
    )
    .bind(serde_json::Value::from(ids).to_string())
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    let mut by_memory: HashMap<String, Vec<MemoryContext>> = HashMap::new();
    for row in &rows {
        by_memory.entry(get(row, "memory_id")?).or_default().push(context_from_row(row, "id", "created_at")?);
    }
    for memory in &mut memories {
        memory.contexts = by_memory.remove(&memory.id).unwrap_or_default();
    }
    Ok(memories)
}

/// The columns of a memory joined with one of its contexts (`memory`, `c`), named
/// as [`memories_from_joined_rows`] reads them.
macro_rules! memory_with_context_columns {
    () => {
        "memory.id AS id, memory.content AS content, CAST(memory.tags AS CHAR) AS tags, memory.source AS source,
         memory.scope AS scope, memory.org_id AS org_id, memory.created_at AS created_at, memory.updated_at AS updated_at,
         memory.confirmed_via AS confirmed_via, memory.proposed_by AS proposed_by,
         CAST(memory.imported_from AS CHAR) AS imported_from, memory.saved_by AS saved_by, memory.confirmed_by AS confirmed_by,
         c.id AS context_id, CAST(c.citation AS CHAR) AS citation, c.snippet AS snippet, c.origin AS origin,
         c.created_at AS context_created_at"
    };
}
pub(crate) use memory_with_context_columns;

/// Memories from rows of `memory LEFT JOIN memory_context`: one row per context, or
/// one with null context columns for a memory without any, in any order. Contexts
/// are put in saved order (their ids sort that way) here rather than by an
/// `ORDER BY`, which made the server sort the rows, memory text included, in a
/// temporary table: 1.4 ms against 0.7 ms without it for 20 memories.
pub(crate) fn memories_from_joined_rows(rows: &[MySqlRow]) -> Result<Vec<Memory>, StoreError> {
    let mut memories: Vec<Memory> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    for row in rows {
        let id: String = get(row, "id")?;
        let at = match position.get(&id) {
            Some(&at) => at,
            None => {
                memories.push(memory_from_row(row)?);
                position.insert(id, memories.len() - 1);
                memories.len() - 1
            }
        };
        if get::<Option<String>>(row, "context_id")?.is_some() {
            memories[at].contexts.push(context_from_row(row, "context_id", "context_created_at")?);
        }
    }
    for memory in &mut memories {
        memory.contexts.sort_by(|a, b| a.id.cmp(&b.id));
    }
    Ok(memories)
}

/// An org as created (MySQL has no `RETURNING`, and the values are ours anyway).
pub(crate) fn org(id: &str, name: &str, now: Timestamp) -> Org {
    Org { id: id.to_owned(), name: name.to_owned(), created_at: now }
}

/// An org read back from a row.
pub(crate) fn org_from_row(row: &MySqlRow) -> Result<Org, StoreError> {
    Ok(Org { id: get(row, "id")?, name: get(row, "name")?, created_at: timestamp(row, "created_at")? })
}
