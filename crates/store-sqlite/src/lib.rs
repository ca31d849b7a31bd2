//! The embedded SQLite backend: one file, WAL mode, FTS5 over the app's search terms,
//! encrypted at rest when opened with a key (SQLCipher; see [`encryption`]).
//!
//! Two processes may share a database file: WAL lets readers run beside a writer,
//! and a busy timeout makes writers wait for each other instead of failing.

pub mod encryption;
mod compaction;
mod group_commit;
mod key;
mod list;
mod verify;
mod proposals;
mod offboarding;
mod readers;
mod revisions;
mod search;
mod search_terms;
mod teams;
mod transfer;
mod rows;
mod vectors;
mod wipe;

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use memory_bank_contract::teams::Role;
use memory_bank_contract::transfer::{ExportedRevision, OnConflict};
use memory_bank_contract::validate::Cursor;
use memory_bank_contract::wire::{Memory, Org, Proposal, ProposalStatus, User};
use memory_bank_contract::Timestamp;
use memory_bank_contract::teams::{AuditAction, NewAuditEntry};
use memory_bank_store::teams::{change_entry, chars, proposed_entry};
use memory_bank_store::rank::Tally;
use memory_bank_store::{
    BankKey, Candidate, Change, Decision, EnsureOutcome, ImportOutcome, ImportRow, MemoryStore, MemoryUpdate, NewMemory, Offboard, OptimizeOutcome, StoreError, TermsProgress, TermsRewrite, TermsSource, TokenKind, TokenOwner, StoredVector, VectorRow, VectorSummary, RowKey, TermRows, Worded,
};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row as _, SqliteConnection, SqlitePool};

pub use encryption::FileState;
pub use key::{DbKey, KeyFormatError};
use rows::{db_err, memories_from_packed, org_from_row, user_from_row};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Name of the FTS5 table that indexes `memory.search_text`.
pub const FTS_TABLE: &str = "memory_fts";

/// Page cache of each connection, in KiB (SQLite's default is 2 MB). It fills only as
/// pages are read, so a bank smaller than this never takes more than its size per
/// connection. Plaintext banks read missed pages from the OS cache at about 2 µs each,
/// encrypted ones must also decrypt them (7 µs, `examples/cipher_page_cost.rs`): with
/// 2 MB, searches on an encrypted 10⁵-memory bank took twice as long as on a plaintext
/// one; with 64 MB, 1.0–1.2× (BENCHMARKS.md, "Encrypted SQLite banks").
pub(crate) const PAGE_CACHE_KIB: u32 = 64 * 1024;

/// A bank's rows counted one by one, from the `memory_owner_scope` index alone (what a
/// quota refusal is decided on; saves read the count the triggers keep in
/// `memory_count`). A macro, so its test can ask for the plan of this literal.
macro_rules! count_bank {
    () => {
        "SELECT count(*) FROM memory WHERE user_id = ?1 AND scope = ?2"
    };
}

/// Reader connections of a file bank, besides the writer.
const READERS: u32 = 3;

/// How long a writer waits for another process's write lock before failing.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The SQLite store.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    /// Reads.
    pool: SqlitePool,
    /// Writes: one connection. SQLite admits one writer at a time anyway, and a
    /// connection's page cache survives only its own writes (any other connection's
    /// write empties it), so writes that always take the same connection find the pages
    /// they change still decrypted; saves on an encrypted bank, measured in BENCHMARKS.md.
    /// The same pool as `pool` for an in-memory database.
    writer: SqlitePool,
    /// Saves waiting for `writer`, committed together (see `group_commit`).
    saves: std::sync::Arc<group_commit::SaveQueue>,
    /// Writes since the search index was last compacted (see `compaction`).
    compaction: std::sync::Arc<compaction::Compaction>,
    /// Whether offboarding wipes what it deleted (`wipe.rs`): always, except on the
    /// benchmark's comparison bank.
    wipes: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// A search's reads (see `readers`).
    readers: std::sync::Arc<readers::Readers>,
}

impl SqliteStore {
    /// One packed value from `statement`, run on the bank's rows among `keys` (row
    /// numbers, bound as a JSON array in ?1; the owner in ?2 and the bank in ?3).
    async fn packed_by_row_keys(&self, statement: &'static str, bank: BankKey<'_>, keys: &[RowKey]) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar(statement)
            .bind(search::row_numbers(keys))
            .bind(bank.owner())
            .bind(bank.scope().as_str())
            .fetch_one(&self.pool)
            .await
            .map_err(db_err)
    }

    /// Opens (creating if missing) the database at `url` (`sqlite:///abs/path.db`,
    /// `sqlite://relative.db`, `sqlite::memory:`) without a key: a plaintext bank. A new
    /// database gets its schema and search index; an older one gets pending migrations and
    /// then the index ensured. An encrypted bank is refused ([`StoreError::KeyMissing`]).
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with_key(url, None).await
    }

    /// Like [`Self::open`], encrypted with `key` when one is given: a new bank is created
    /// encrypted, a plaintext one is encrypted in place first (see
    /// [`encryption::encrypt_plaintext`]), and an encrypted one is opened with it. A key
    /// that does not open the bank is [`StoreError::KeyRejected`]; nothing is changed
    /// then, and no new bank ever replaces one that could not be opened.
    pub async fn open_with_key(url: &str, key: Option<&DbKey>) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url).map_err(|e| {
            StoreError::Invalid(format!("{url:?} is not a SQLite URL ({e}); use sqlite:///path/to/memory.db"))
        })?;
        let path = bank_file(url, &options);
        if let Some(path) = &path {
            // Created here, empty and private, rather than by SQLite with the umask's mode:
            // its WAL, shared-memory index and journals take the file's mode (0600).
            memory_bank_private_files::create_sqlite_file(path).map_err(|e| {
                StoreError::Invalid(format!("cannot create the database file {}: {e}", path.display()))
            })?;
            match (encryption::file_state(path)?, key) {
                (FileState::Encrypted, None) => return Err(StoreError::KeyMissing { path: path.display().to_string() }),
                (FileState::Plaintext, Some(key)) => encryption::encrypt_plaintext(path, key).await?,
                _ => {}
            }
        }
        let options = match key {
            Some(key) => {
                encryption::quiet_cipher_log().await;
                encryption::keyed(options, key)
            }
            None => options,
        };
        // Another process opening the same new bank (the app and an agent's
        // `memory-bank mcp`) can hold the lock through steps SQLite's busy handler does
        // not cover (switching to WAL, creating the schema): wait and open again.
        const ATTEMPTS: u32 = 8;
        let mut attempt = 1;
        loop {
            match Self::open_once(options.clone(), path.as_deref(), key).await {
                Err(err) if attempt < ATTEMPTS && err.to_string().contains("database is locked") => {
                    tracing::debug!(attempt, "the bank is busy being opened by another process; trying again");
                    tokio::time::sleep(Duration::from_millis(25 * u64::from(attempt))).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    async fn open_once(options: SqliteConnectOptions, path: Option<&std::path::Path>, key: Option<&DbKey>) -> Result<Self, StoreError> {
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            .pragma(wipe::SECURE_DELETE.0, wipe::SECURE_DELETE.1)
            .pragma("cache_size", format!("-{PAGE_CACHE_KIB}"));
        let in_memory = path.is_none();
        let pool = |connections: u32| {
            SqlitePoolOptions::new()
                .max_connections(connections)
                // sqlx pings a connection before handing it out: for SQLite, a round trip
                // to the connection's worker thread before every statement, with nothing
                // to find (no server can hang up on a file). sqlx pings each connection
                // as it returns to the pool as well, and drops a broken one there.
                .test_before_acquire(false)
                .idle_timeout(if in_memory { None } else { Some(Duration::from_secs(600)) })
                .max_lifetime(if in_memory { None } else { Some(Duration::from_secs(3600)) })
                .connect_with(options.clone())
        };
        let opened = |e: sqlx::Error| match path {
            // The key (or its absence) does not fit the file: SQLCipher cannot read page 1.
            Some(path) if encryption::is_not_a_database(&e) => StoreError::KeyRejected { path: path.display().to_string() },
            _ => db_err(e),
        };
        // An in-memory database exists per connection, so it must have exactly one, for
        // reads and writes. A file gets `READERS` readers and the writer: each connection
        // has its own page cache and sqlx hands idle connections out in turn, so with
        // fewer, each cache sees more of the reads (measured: an encrypted bank's
        // searches, BENCHMARKS.md).
        let (pool, writer) = if in_memory {
            let pool = pool(1).await.map_err(opened)?;
            (pool.clone(), pool)
        } else {
            let writer = pool(1).await.map_err(opened)?;
            (pool(READERS).await.map_err(opened)?, writer)
        };
        // After the first connection, so after SQLCipher registered its own exit handler.
        encryption::wait_for_workers_at_exit();
        let readers = match path {
            Some(path) => readers::Readers::of_file(path, key),
            None => readers::Readers::of_memory(pool.clone()),
        };
        let store = Self {
            pool,
            writer,
            saves: Default::default(),
            compaction: Default::default(),
            wipes: std::sync::Arc::new(true.into()),
            readers: std::sync::Arc::new(readers),
        };
        let applied_before = store.applied_migrations().await?;
        run_migrations(&store.writer).await?;
        if store.applied_migrations().await? != applied_before {
            store.ensure_search_index().await?;
        }
        if !in_memory {
            store.compact_if_spread();
        }
        Ok(store)
    }

    /// The readers' connection pool, for tests and tools that need raw access.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Closes every connection (the readers' and the writer's), so the files can be
    /// replaced or removed.
    pub async fn close(&self) {
        self.readers.close();
        self.pool.close().await;
        self.writer.close().await;
    }

    async fn applied_migrations(&self) -> Result<i64, StoreError> {
        applied_migrations(&self.pool).await
    }

    /// Starts a write transaction that takes the write lock at once, so two writers
    /// queue on the busy timeout instead of failing when a read upgrades to a write.
    async fn begin_write(&self) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, StoreError> {
        let tx = begin_immediate(self.writer.acquire().await.map_err(db_err)?).await?;
        self.wrote();
        Ok(tx)
    }
}

/// A write transaction on `conn` that takes the write lock at once (see `begin_write`).
pub(crate) async fn begin_immediate(
    conn: sqlx::pool::PoolConnection<sqlx::Sqlite>,
) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, StoreError> {
    sqlx::Transaction::begin(conn, Some(sqlx::SqlSafeStr::into_sql_str("BEGIN IMMEDIATE"))).await.map_err(db_err)
}

/// Folds the write-ahead log into the database file (for size reports and backups).
pub async fn checkpoint(store: &SqliteStore) -> Result<(), StoreError> {
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&store.writer).await.map_err(db_err).map(drop)
}

/// The file a SQLite URL names, or `None` for an in-memory database.
pub fn bank_path(url: &str) -> Result<Option<PathBuf>, StoreError> {
    let options = SqliteConnectOptions::from_str(url).map_err(|e| {
        StoreError::Invalid(format!("{url:?} is not a SQLite URL ({e}); use sqlite:///path/to/memory.db"))
    })?;
    Ok(bank_file(url, &options))
}

/// The bank's file, or `None` for an in-memory database.
fn bank_file(url: &str, options: &SqliteConnectOptions) -> Option<PathBuf> {
    let path = options.get_filename();
    if path.as_os_str().is_empty() || url.contains(":memory:") || url.contains("mode=memory") {
        return None;
    }
    Some(path.to_path_buf())
}

pub(crate) async fn fts_exists(conn: &mut SqliteConnection) -> Result<bool, StoreError> {
    let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_fts'")
        .fetch_optional(conn)
        .await
        .map_err(db_err)?;
    Ok(found.is_some())
}

/// Applies pending migrations, tolerating another process doing the same at once.
///
/// sqlx takes no lock for SQLite: two processes opening a new bank together (the app
/// and an agent's `memory-bank mcp`) both decide to apply migration 1, and the one whose
/// write waited on the other's then finds its tables made ("table users already
/// exists", "duplicate column name"). Its transaction rolled back whole, so running the
/// migrator again, once the other has committed, finds those migrations applied.
///
/// Several openers can collide once per migration (each applying the next one at the
/// same moment), so a failure while another opener committed migrations meanwhile is
/// progress and not counted against the attempts: only failures with nothing applied
/// by anyone are. A real fault fails the same way every time and is reported after the
/// last try.
async fn run_migrations(pool: &SqlitePool) -> Result<(), StoreError> {
    const ATTEMPTS: u32 = 5;
    let mut attempt = 1;
    let mut applied = applied_migrations(pool).await.unwrap_or(0);
    loop {
        let Err(err) = MIGRATOR.run(pool).await else { return Ok(()) };
        // "table … already exists", "duplicate column name", "UNIQUE constraint failed:
        // _sqlx_migrations.version": the other opener's work.
        let now = applied_migrations(pool).await.unwrap_or(applied);
        if now <= applied {
            if attempt == ATTEMPTS {
                return Err(StoreError::Migration(err.to_string()));
            }
            attempt += 1;
        }
        applied = now;
        tracing::debug!(attempt, applied, "another process migrated this bank meanwhile; checking again");
        tokio::time::sleep(Duration::from_millis(20 * u64::from(attempt))).await;
    }
}

/// How many migrations the bank records as applied (0 before the first).
async fn applied_migrations(pool: &SqlitePool) -> Result<i64, StoreError> {
    let table: Option<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'")
            .fetch_optional(pool)
            .await
            .map_err(db_err)?;
    if table.is_none() {
        return Ok(0);
    }
    sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations").fetch_one(pool).await.map_err(db_err)
}

async fn insert_one(tx: &mut SqliteConnection, memory: &NewMemory) -> Result<(), StoreError> {
    let tags = memory.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    // Refused while its org has memory turned off: read in the insert itself, inside
    // the write transaction, so a save is either before the switch or refused.
    let seq: Option<i64> = sqlx::query_scalar(
        "INSERT INTO memory (id, user_id, org_id, scope, content, source, tags, search_text, created_at, updated_at,
                             confirmed_via, proposed_by, saved_by, confirmed_by)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12, ?13
         WHERE NOT EXISTS (SELECT 1 FROM org_policy WHERE org_id = ?3 AND memory_enabled = 0) RETURNING seq",
    )
    .bind(&memory.id)
    .bind(&memory.user_id)
    .bind(&memory.org_id)
    .bind(memory.scope.as_str())
    .bind(&memory.content)
    .bind(&memory.source)
    .bind(tags)
    .bind(&memory.search_text)
    .bind(memory.created_at.unix_ms())
    .bind(memory.confirmed_via.map(|v| v.as_str()))
    .bind(&memory.proposed_by)
    .bind(&memory.saved_by)
    .bind(&memory.confirmed_by)
    .fetch_optional(&mut *tx)
    .await
    .map_err(db_err)?;
    let Some(seq) = seq else {
        return Err(StoreError::TeamRefused(memory_bank_contract::teams::TeamRefusal::OrgMemoryDisabled));
    };
    sqlx::query("INSERT INTO memory_fts (rowid, terms) VALUES (?1, ?2)")
        .bind(seq)
        .bind(&memory.search_text)
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    for context in &memory.contexts {
        let citation = context.citation.as_ref().map(|c| serde_json::to_string(c).unwrap_or_default());
        sqlx::query(
            "INSERT INTO memory_context (id, memory_id, citation, snippet, origin, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .bind(&context.id)
        .bind(&memory.id)
        .bind(citation)
        .bind(&context.snippet)
        .bind(context.origin.map(|o| o.as_str()))
        .bind(memory.created_at.unix_ms())
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    }
    if let Some(entry) = memory_bank_store::teams::saved_entry(memory) {
        teams::append_audit(tx, &entry).await?;
    }
    Ok(())
}

/// Deletes the bank's memory, its contexts and its index entry inside `tx`: the
/// characters of the sentence deleted, `None` when the bank has no such row.
pub(crate) async fn delete_in(tx: &mut SqliteConnection, bank: BankKey<'_>, id: &str) -> Result<Option<u32>, StoreError> {
    let found: Option<(i64, i64)> =
        sqlx::query_as("SELECT seq, length(content) FROM memory WHERE id = ?1 AND user_id = ?2 AND scope = ?3")
            .bind(id)
            .bind(bank.owner())
            .bind(bank.scope().as_str())
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_err)?;
    let Some((seq, chars)) = found else { return Ok(None) };
    let user_id = bank.owner();
    sqlx::query("DELETE FROM memory_context WHERE memory_id = ?1").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    sqlx::query("DELETE FROM memory_vector WHERE memory_id = ?1").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    revisions::delete_all(tx, user_id, id).await?;
    sqlx::query("DELETE FROM memory_fts WHERE rowid = ?1").bind(seq).execute(&mut *tx).await.map_err(db_err)?;
    sqlx::query("DELETE FROM memory WHERE seq = ?1 AND user_id = ?2").bind(seq).bind(user_id).execute(&mut *tx).await.map_err(db_err)?;
    Ok(Some(u32::try_from(chars).unwrap_or(u32::MAX)))
}

/// Writes `entry` (a team bank's change; `None` for a personal bank) inside `tx`.
async fn audit_if_team(tx: &mut SqliteConnection, entry: Option<NewAuditEntry>) -> Result<(), StoreError> {
    match entry {
        Some(entry) => teams::append_audit(tx, &entry).await,
        None => Ok(()),
    }
}

#[async_trait]
impl MemoryStore for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await.map_err(db_err).map(drop)
    }

    async fn migrate(&self) -> Result<EnsureOutcome, StoreError> {
        run_migrations(&self.writer).await?;
        self.ensure_search_index().await
    }

    async fn ensure_search_index(&self) -> Result<EnsureOutcome, StoreError> {
        // The write lock serialises concurrent creators: the first creates and
        // backfills, the rest then find the table and report `created: false`.
        let mut tx = self.begin_write().await?;
        if fts_exists(&mut tx).await? {
            tx.rollback().await.map_err(db_err)?;
            return Ok(EnsureOutcome { created: false });
        }
        // `ascii` splits only on ASCII punctuation and spaces: the app has already
        // decided the terms (see memory_bank_store::terms), so FTS5 keeps them whole.
        sqlx::query(
            "CREATE VIRTUAL TABLE memory_fts USING fts5(terms, content = '', contentless_delete = 1, tokenize = 'ascii')",
        )
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
        let backfilled = sqlx::query("INSERT INTO memory_fts (rowid, terms) SELECT seq, search_text FROM memory")
            .execute(&mut *tx)
            .await
            .map_err(db_err)?
            .rows_affected();
        tx.commit().await.map_err(db_err)?;
        tracing::info!(backfilled, "search index created");
        Ok(EnsureOutcome { created: true })
    }

    async fn search_index_exists(&self) -> Result<bool, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        fts_exists(&mut conn).await
    }

    async fn optimize_search_index(&self) -> Result<OptimizeOutcome, StoreError> {
        let before_bytes = self.search_index_bytes().await?;
        // FTS5 merges its segments into one b-tree; the write lock keeps saves out meanwhile.
        let mut tx = self.begin_write().await?;
        if !fts_exists(&mut tx).await? {
            return Err(StoreError::Migration("the search index is missing; run `memory-bank db migrate` to create it".to_owned()));
        }
        sqlx::query("INSERT INTO memory_fts (memory_fts) VALUES ('optimize')").execute(&mut *tx).await.map_err(db_err)?;
        tx.commit().await.map_err(db_err)?;
        let after_bytes = self.search_index_bytes().await?;
        Ok(OptimizeOutcome { before_bytes, after_bytes })
    }

    async fn search_index_bytes(&self) -> Result<Option<u64>, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        // The FTS5 table's shadow tables (`memory_fts_data`, `_idx`, …), each asked for
        // by name: `dbstat` only narrows to one b-tree for `name = ?`.
        let tables: Vec<String> = sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'memory\\_fts\\_%' ESCAPE '\\'",
        )
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
        let mut bytes = 0u64;
        for table in tables {
            let size: i64 = sqlx::query_scalar("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = ?1")
                .bind(&table)
                .fetch_one(&mut *conn)
                .await
                .map_err(db_err)?;
            bytes += size.max(0).unsigned_abs();
        }
        Ok(Some(bytes))
    }

    async fn create_user(&self, id: &str, email: &str, now: Timestamp) -> Result<User, StoreError> {
        let row = sqlx::query("INSERT INTO users (id, email, created_at) VALUES (?1, ?2, ?3) RETURNING id, email, created_at")
            .bind(id)
            .bind(email)
            .bind(now.unix_ms())
            .fetch_one(&self.writer)
            .await
            .map_err(|e| match db_err(e) {
                StoreError::Conflict(_) => StoreError::Conflict(format!("a user with email {email} already exists")),
                other => other,
            })?;
        user_from_row(&row)
    }

    async fn list_users(&self) -> Result<Vec<User>, StoreError> {
        let rows = sqlx::query("SELECT id, email, created_at FROM users ORDER BY created_at, id")
            .fetch_all(&self.pool)
            .await
            .map_err(db_err)?;
        rows.iter().map(user_from_row).collect()
    }

    async fn create_org(&self, id: &str, name: &str, now: Timestamp) -> Result<Org, StoreError> {
        let row = sqlx::query("INSERT INTO orgs (id, name, created_at) VALUES (?1, ?2, ?3) RETURNING id, name, created_at")
            .bind(id)
            .bind(name)
            .bind(now.unix_ms())
            .fetch_one(&self.writer)
            .await
            .map_err(db_err)?;
        org_from_row(&row)
    }

    async fn add_member(&self, org_id: &str, user_id: &str, role: Option<Role>, now: Timestamp) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let org: Option<i64> = sqlx::query_scalar("SELECT 1 FROM orgs WHERE id = ?1").bind(org_id).fetch_optional(&mut *tx).await.map_err(db_err)?;
        if org.is_none() {
            return Err(StoreError::NotFound(format!("org {org_id}")));
        }
        let user: Option<i64> = sqlx::query_scalar("SELECT 1 FROM users WHERE id = ?1").bind(user_id).fetch_optional(&mut *tx).await.map_err(db_err)?;
        if user.is_none() {
            return Err(StoreError::NotFound(format!("user {user_id}")));
        }
        let role = match role {
            Some(role) => role,
            None => teams::first_role(&mut tx, org_id).await?,
        };
        sqlx::query("INSERT OR IGNORE INTO org_members (org_id, user_id, created_at, role) VALUES (?1, ?2, ?3, ?4)")
            .bind(org_id)
            .bind(user_id)
            .bind(now.unix_ms())
            .bind(role.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        tx.commit().await.map_err(db_err)
    }

    async fn user_orgs(&self, user_id: &str) -> Result<Vec<Org>, StoreError> {
        let rows = sqlx::query(
            "SELECT o.id, o.name, o.created_at FROM orgs o JOIN org_members m ON m.org_id = o.id
             WHERE m.user_id = ?1 ORDER BY o.name, o.id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        rows.iter().map(org_from_row).collect()
    }

    async fn is_member(&self, user_id: &str, org_id: &str) -> Result<bool, StoreError> {
        let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM org_members WHERE user_id = ?1 AND org_id = ?2")
            .bind(user_id)
            .bind(org_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(found.is_some())
    }

    async fn insert_token(
        &self,
        id: &str,
        user_id: &str,
        token_hash: &str,
        kind: TokenKind,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO api_tokens (id, user_id, token_hash, created_at, kind)
             SELECT ?1, id, ?3, ?4, ?5 FROM users WHERE id = ?2",
        )
        .bind(id)
        .bind(user_id)
        .bind(token_hash)
        .bind(now.unix_ms())
        .bind(kind.as_str())
        .execute(&self.writer)
        .await
        .map_err(db_err)?
        .rows_affected();
        if inserted == 0 {
            return Err(StoreError::NotFound(format!("user {user_id}")));
        }
        Ok(())
    }

    async fn revoke_token(&self, token_hash: &str, now: Timestamp) -> Result<bool, StoreError> {
        let changed = sqlx::query("UPDATE api_tokens SET revoked_at = ?2 WHERE token_hash = ?1 AND revoked_at IS NULL")
            .bind(token_hash)
            .bind(now.unix_ms())
            .execute(&self.writer)
            .await
            .map_err(db_err)?
            .rows_affected();
        Ok(changed > 0)
    }

    async fn revoke_tokens_of_kind(
        &self,
        user_id: &str,
        kind: TokenKind,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let changed =
            sqlx::query("UPDATE api_tokens SET revoked_at = ?3 WHERE user_id = ?1 AND kind = ?2 AND revoked_at IS NULL")
                .bind(user_id)
                .bind(kind.as_str())
                .bind(now.unix_ms())
                .execute(&self.writer)
                .await
                .map_err(db_err)?
                .rows_affected();
        Ok(changed)
    }

    async fn token_owner(&self, token_hash: &str) -> Result<Option<TokenOwner>, StoreError> {
        let row = sqlx::query(
            "SELECT u.id, u.email, u.created_at, t.id AS token_id, t.kind FROM api_tokens t JOIN users u ON u.id = t.user_id
             WHERE t.token_hash = ?1 AND t.revoked_at IS NULL",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_err)?;
        let Some(row) = row else { return Ok(None) };
        let kind: String = row.try_get("kind").map_err(db_err)?;
        Ok(Some(TokenOwner {
            token_id: row.try_get("token_id").map_err(db_err)?,
            user: user_from_row(&row)?,
            kind: TokenKind::from_stored(&kind),
        }))
    }

    async fn insert_memory(&self, memory: &NewMemory) -> Result<(), StoreError> {
        self.save_in_group(memory).await
    }

    async fn insert_memories(&self, memories: &[NewMemory]) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        for memory in memories {
            insert_one(&mut tx, memory).await?;
        }
        tx.commit().await.map_err(db_err)
    }

    async fn count_memories(&self, bank: BankKey<'_>) -> Result<u64, StoreError> {
        // Kept by the migration's triggers on every insert and delete.
        let n: Option<i64> = sqlx::query_scalar("SELECT n FROM memory_count WHERE user_id = ?1 AND scope = ?2")
            .bind(bank.owner())
            .bind(bank.scope().as_str())
            .fetch_optional(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(n.unwrap_or(0).max(0).unsigned_abs())
    }

    async fn recount_memories(&self, bank: BankKey<'_>) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query_scalar(count_bank!())
            .bind(bank.owner())
            .bind(bank.scope().as_str())
            .fetch_one(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(n as u64)
    }

    async fn list_memories(&self, bank: BankKey<'_>, cursor: Option<&Cursor>, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let packed = self.readers.read(|conn| list::page(conn, bank, cursor, limit)).await?;
        memories_from_packed(packed.as_deref())
    }

    async fn search_candidates(&self, bank: BankKey<'_>, scoped_terms: &[String], cap: u32) -> Result<Vec<Candidate>, StoreError> {
        self.readers.read(|conn| search::bank_candidates(conn, bank, scoped_terms, cap)).await
    }

    async fn search_candidates_in(&self, banks: &[(BankKey<'_>, Vec<String>)], cap: u32) -> Result<Vec<Vec<Candidate>>, StoreError> {
        // Every bank on one reader, one after the other: stepped on this thread, a second
        // bank costs its statement and no hand-off (see `readers`).
        self.readers.read(|conn| search::candidates_in(conn, banks, cap)).await
    }

    async fn tally_candidates_in(&self, banks: &[(BankKey<'_>, Vec<String>)], cap: u32, tally: &mut Tally<'_>) -> Result<(), StoreError> {
        self.readers.read(|conn| search::tally_in(conn, banks, cap, tally)).await
    }

    async fn term_rows(&self, _bank: BankKey<'_>, scoped_terms: &[String], cap: u32) -> Result<Vec<TermRows>, StoreError> {
        if scoped_terms.is_empty() {
            return Ok(Vec::new());
        }
        // One statement for all terms; each reads at most `cap` entries of the term's
        // posting list (FTS5 stops at the LIMIT), and a term at the cap answers NULL, not
        // its rows. Quoted as phrases, as the search's match expression quotes them; the terms arrive as one
        // bound JSON array. A list is row numbers separated by spaces.
        let phrases: Vec<String> = scoped_terms.iter().map(|t| format!("\"{t}\"")).collect();
        let phrases = serde_json::to_string(&phrases).map_err(|e| StoreError::Database(e.to_string()))?;
        let lists: Vec<(i64, Option<String>)> = sqlx::query_as(
            "SELECT t.key, (SELECT CASE WHEN count(*) < ?2 THEN coalesce(group_concat(seq, ' '), '') END
                            FROM (SELECT rowid AS seq FROM memory_fts WHERE memory_fts MATCH t.value LIMIT ?2))
             FROM json_each(?1) AS t ORDER BY t.key",
        )
        .bind(phrases)
        .bind(cap)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(lists.into_iter().map(|(_, list)| term_rows_from(list.as_deref())).collect())
    }

    async fn worded_rows(&self, bank: BankKey<'_>, keys: &[RowKey]) -> Result<Vec<Worded>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let packed = self
            .packed_by_row_keys(
                "SELECT json_group_array(json_array(m.id, m.created_at, m.content)) FROM memory AS m
                 WHERE m.seq IN (SELECT value FROM json_each(?1)) AND +m.user_id = ?2 AND +m.scope = ?3",
                bank,
                keys,
            )
            .await?;
        Ok(unpack_rows(packed)?.into_iter().map(|(id, created_at, content)| Worded { id, created_at, content }).collect())
    }

    async fn candidate_rows(&self, bank: BankKey<'_>, keys: &[RowKey]) -> Result<Vec<Candidate>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        self.readers.read(|conn| search::candidate_rows(conn, bank, keys)).await
    }

    async fn terms_progress(&self) -> Result<TermsProgress, StoreError> {
        search_terms::progress(&self.pool).await
    }

    async fn memories_for_terms(&self, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
        search_terms::sources(&self.pool, after, limit).await
    }

    async fn rewrite_terms(&self, rows: &[TermsRewrite], progress: &TermsProgress) -> Result<u64, StoreError> {
        search_terms::rewrite(self, rows, progress).await
    }

    async fn memories_without_vector(&self, model: &str, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
        vectors::without_vector(&self.pool, model, after, limit).await
    }

    async fn put_vectors(&self, model: &str, rows: &[VectorRow]) -> Result<u64, StoreError> {
        vectors::put(self, model, rows).await
    }

    async fn vectors_after(&self, user_id: &str, model: &str, after_seq: i64, limit: u32) -> Result<Vec<StoredVector>, StoreError> {
        vectors::after(&self.pool, user_id, model, after_seq, limit).await
    }

    async fn vector_summary(&self, user_id: &str, model: &str) -> Result<VectorSummary, StoreError> {
        vectors::summary(&self.pool, user_id, model).await
    }

    async fn vector_coverage(&self, model: &str) -> Result<(u64, u64), StoreError> {
        vectors::coverage(&self.pool, model).await
    }

    async fn drop_other_vectors(&self, model: &str) -> Result<u64, StoreError> {
        vectors::drop_others(self, model).await
    }

    async fn citing_memory_ids(&self, bank: BankKey<'_>, conversation_id: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        // The contexts by the expression index first, then each memory by its key; the
        // owner check on the memory row keeps it to the caller's.
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT m.id FROM memory_context AS c CROSS JOIN memory AS m ON m.id = c.memory_id
             WHERE json_extract(c.citation, '$.conversationId') = ?2 AND +m.user_id = ?1 AND +m.scope = ?4
             GROUP BY m.id ORDER BY max(m.created_at) DESC, m.id DESC LIMIT ?3",
        )
        .bind(bank.owner())
        .bind(conversation_id)
        .bind(limit)
        .bind(bank.scope().as_str())
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    async fn memories_by_ids(&self, bank: BankKey<'_>, ids: &[String]) -> Result<Vec<Memory>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let packed = self.readers.read(|conn| search::memories_by_ids(conn, bank, ids)).await?;
        memories_from_packed(packed.as_deref())
    }

    async fn delete_memory(&self, by: Change<'_>, id: &str, now: Timestamp) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let deleted = delete_in(&mut tx, by.bank, id).await?;
        if let Some(chars) = deleted {
            let entry = change_entry(by, AuditAction::Deleted, now, Some(id), None, Some(chars));
            audit_if_team(&mut tx, entry).await?;
        }
        tx.commit().await.map_err(db_err)?;
        Ok(deleted.is_some())
    }

    async fn update_memory(&self, by: Change<'_>, id: &str, update: &MemoryUpdate) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let updated = revisions::update(&mut tx, by.bank, id, update).await?;
        if updated {
            let entry = change_entry(by, AuditAction::Edited, update.updated_at, Some(id), None, Some(chars(&update.content)));
            audit_if_team(&mut tx, entry).await?;
        }
        tx.commit().await.map_err(db_err)?;
        Ok(updated)
    }

    async fn revisions(&self, user_id: &str, memory_ids: &[String]) -> Result<Vec<ExportedRevision>, StoreError> {
        revisions::list(&self.pool, user_id, memory_ids).await
    }

    async fn import_memories(
        &self,
        user_id: &str,
        org_id: &str,
        rows: &[ImportRow],
        on_conflict: OnConflict,
    ) -> Result<Vec<ImportOutcome>, StoreError> {
        let mut tx = self.begin_write().await?;
        let mut outcomes = Vec::with_capacity(rows.len());
        for row in rows {
            outcomes.push(transfer::import_one(&mut tx, user_id, org_id, row, on_conflict).await?);
        }
        tx.commit().await.map_err(db_err)?;
        Ok(outcomes)
    }

    async fn offboard_start(&self, target: Offboard<'_>) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let found = offboarding::start(&mut tx, target).await?;
        tx.commit().await.map_err(db_err)?;
        Ok(found)
    }

    async fn offboard_memories(&self, target: Offboard<'_>, batch: u32) -> Result<u64, StoreError> {
        let mut tx = self.begin_write().await?;
        let deleted = offboarding::memories(&mut tx, target, batch).await?;
        tx.commit().await.map_err(db_err)?;
        Ok(deleted)
    }

    async fn offboard_finish(&self, target: Offboard<'_>) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        offboarding::finish(&mut tx, target).await?;
        tx.commit().await.map_err(db_err)?;
        if self.wipes.load(std::sync::atomic::Ordering::Relaxed) {
            wipe::wipe_after_offboarding(&self.writer).await;
        }
        Ok(())
    }

    async fn insert_proposal(&self, by: Change<'_>, proposal: &Proposal, max_pending: u32) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        if !proposals::insert(&mut tx, by, proposal, max_pending).await? {
            tx.rollback().await.map_err(db_err)?;
            return Ok(false);
        }
        let entry = proposed_entry(by, proposal);
        audit_if_team(&mut tx, entry).await?;
        tx.commit().await.map_err(db_err)?;
        Ok(true)
    }

    async fn proposal(&self, bank: BankKey<'_>, id: &str) -> Result<Option<Proposal>, StoreError> {
        proposals::get(&self.pool, bank, id).await
    }

    async fn list_proposals(
        &self,
        bank: BankKey<'_>,
        proposer: Option<&str>,
        status: Option<ProposalStatus>,
        now: Timestamp,
        cursor: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<Proposal>, StoreError> {
        proposals::list(&self.pool, bank, proposer, status, now, cursor, limit).await
    }

    async fn accept_proposal(&self, by: Change<'_>, id: &str, decision: Decision<'_>, now: Timestamp) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let memory_id = decision.memory_id();
        if !proposals::mark(&mut tx, by.bank, id, "accepted", memory_id, now).await? {
            tx.rollback().await.map_err(db_err)?;
            return Ok(false);
        }
        audit_if_team(&mut tx, change_entry(by, AuditAction::Accepted, now, memory_id, Some(id), None)).await?;
        match decision {
            Decision::Save(memory) => insert_one(&mut tx, memory).await?,
            Decision::Delete(memory_id) => {
                if let Some(chars) = delete_in(&mut tx, by.bank, memory_id).await? {
                    let entry = change_entry(by, AuditAction::Deleted, now, Some(memory_id), None, Some(chars));
                    audit_if_team(&mut tx, entry).await?;
                }
            }
            Decision::Edit(memory_id, update) => {
                if revisions::update(&mut tx, by.bank, memory_id, update).await? {
                    let entry = change_entry(by, AuditAction::Edited, now, Some(memory_id), None, Some(chars(&update.content)));
                    audit_if_team(&mut tx, entry).await?;
                }
            }
        }
        tx.commit().await.map_err(db_err)?;
        Ok(true)
    }

    async fn reject_proposal(&self, by: Change<'_>, id: &str, now: Timestamp) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let rejected = proposals::mark(&mut tx, by.bank, id, "rejected", None, now).await?;
        if rejected {
            audit_if_team(&mut tx, change_entry(by, AuditAction::Rejected, now, None, Some(id), None)).await?;
        }
        tx.commit().await.map_err(db_err)?;
        Ok(rejected)
    }

    async fn count_pending_proposals(&self, now: Timestamp) -> Result<u64, StoreError> {
        proposals::count_pending(&self.pool, now).await
    }
}

/// A term's rows as `term_rows`' statement answers them: NULL for a term at the cap,
/// else its row numbers separated by spaces (none for a term no row holds).
fn term_rows_from(list: Option<&str>) -> TermRows {
    match list {
        None => TermRows::Common,
        Some(list) => TermRows::Rows(list.split_terminator(' ').map(str::to_owned).collect()),
    }
}

/// The `[id, created_at, text]` rows a statement packed into one JSON array (streaming
/// thousands of small rows through the driver costs more than the query itself).
fn unpack_rows(packed: Option<String>) -> Result<Vec<(String, Timestamp, String)>, StoreError> {
    let rows: Vec<(String, i64, String)> = serde_json::from_str(packed.as_deref().unwrap_or("[]"))
        .map_err(|e| StoreError::Database(format!("unreadable candidates: {e}")))?;
    Ok(rows.into_iter().map(|(id, created_at, text)| (id, Timestamp::from_unix_ms(created_at), text)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The triggers count every row in and out, whatever statement moves it, even one no
    /// write path makes today (a row changing banks).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_triggers_count_rows_in_out_and_between_banks() {
        let store = SqliteStore::open("sqlite::memory:").await.unwrap();
        let counts = |store: SqliteStore| async move {
            let mut counts = Vec::new();
            for bank in [BankKey::Personal("usr_a"), BankKey::Team("usr_a"), BankKey::Personal("usr_b")] {
                let (kept, rows) = (store.count_memories(bank).await.unwrap(), store.recount_memories(bank).await.unwrap());
                assert_eq!(kept, rows, "{bank:?}");
                counts.push(kept);
            }
            counts
        };
        let rows: Vec<NewMemory> = (0..3).map(|i| NewMemory::plain("usr_a", "org_x", format!("note {i}"), 1_764_000_000_000 + i)).collect();
        store.insert_memories(&rows).await.unwrap();
        store.insert_memory(&NewMemory::plain("usr_b", "org_x", "b's note".into(), 1_764_000_000_100)).await.unwrap();
        assert_eq!(counts(store.clone()).await, [3, 0, 1]);
        sqlx::query("UPDATE memory SET scope = 'org' WHERE id = ?1").bind(&rows[0].id).execute(&store.writer).await.unwrap();
        sqlx::query("UPDATE memory SET user_id = 'usr_b' WHERE id = ?1").bind(&rows[1].id).execute(&store.writer).await.unwrap();
        sqlx::query("UPDATE memory SET content = 'same bank' WHERE id = ?1").bind(&rows[2].id).execute(&store.writer).await.unwrap();
        assert_eq!(counts(store.clone()).await, [1, 1, 2]);
        sqlx::query("DELETE FROM memory WHERE user_id = 'usr_b'").execute(&store.writer).await.unwrap();
        assert_eq!(counts(store.clone()).await, [1, 1, 0]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bank_is_counted_from_an_index_alone() {
        let store = SqliteStore::open("sqlite::memory:").await.unwrap();
        let plan: Vec<(i64, i64, i64, String)> = sqlx::query_as(concat!("EXPLAIN QUERY PLAN ", count_bank!()))
            .bind("usr_a")
            .bind("user")
            .fetch_all(&store.pool)
            .await
            .unwrap();
        let plan: Vec<String> = plan.into_iter().map(|(_, _, _, step)| step).collect();
        assert!(plan.iter().any(|step| step.contains("COVERING INDEX memory_owner_scope")), "{plan:?}");
    }

    #[test]
    fn term_rows_read_back_as_the_statement_packs_them() {
        assert_eq!(term_rows_from(None), TermRows::Common);
        assert_eq!(term_rows_from(Some("")), TermRows::Rows(Vec::new()));
        assert_eq!(term_rows_from(Some("7 12 3")), TermRows::Rows(vec!["7".into(), "12".into(), "3".into()]));
    }
}
