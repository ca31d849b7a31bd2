//! Encryption at rest for a SQLite bank (SQLCipher): telling an encrypted file from a
//! plaintext one, keying connections, encrypting a plaintext bank in place, and rekeying.
//!
//! SQLCipher encrypts every page of the database file and of its WAL with AES-256 (an
//! HMAC per page catches tampering and wrong keys); the `-shm` index holds no content,
//! and temporary tables and sorts stay in memory (the bundled build sets
//! `SQLITE_TEMP_STORE=2`). Without a key SQLCipher is plain SQLite, so an unkeyed bank
//! works exactly as before.
//!
//! Encrypting a plaintext bank never leaves it half done: the whole bank is exported into
//! a new encrypted file beside it (`sqlcipher_export`), checked table by table and row by
//! row against the original, and only then renamed over it, which replaces the plaintext
//! in one step. Whatever interrupts it (a crash, a kill, a full disk) leaves the plaintext
//! file as it was, and the next open starts again from it.

use std::path::{Path, PathBuf};
use std::str::FromStr as _;

use memory_bank_store::StoreError;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions as _, Connection as _, SqliteConnection};

use crate::key::DbKey;
use crate::rows::db_err;
use crate::BUSY_TIMEOUT;

pub use memory_bank_sqlcipher_file::FileState;

/// Reads the first bytes of `path` to tell what it is (nothing is decrypted to tell).
pub fn file_state(path: &Path) -> Result<FileState, StoreError> {
    memory_bank_sqlcipher_file::file_state(path)
        .map_err(|e| StoreError::Invalid(format!("cannot read the bank {}: {e}", path.display())))
}

/// `options` with the key applied. sqlx runs `PRAGMA key` first on every new
/// connection, before any other pragma reads the file (its pragma list starts with
/// `key`; `a_keyed_connection_runs_the_key_pragma_first` checks it). Statement
/// logging is off on keyed connections: sqlx would otherwise log that pragma, key and
/// all, at debug level (and at warn level if it ran slowly).
///
/// Pages are authenticated with HMAC-SHA256 rather than SQLCipher's default HMAC-SHA512:
/// CPUs hash SHA-256 in hardware, so a page read from the OS cache costs 7.1 µs instead of
/// 10.7 µs (plaintext 2.2 µs; `examples/cipher_page_cost.rs`, BENCHMARKS.md). The page
/// cache is the bank's ([`crate::PAGE_CACHE_KIB`]); setting it here also makes the
/// connection read the schema as it connects, so a key that does not fit fails there.
pub(crate) fn keyed(options: SqliteConnectOptions, key: &DbKey) -> SqliteConnectOptions {
    debug_assert!(QUIETED.get().is_some(), "quiet_cipher_log runs before any keyed connection");
    options
        .pragma("key", key.pragma_value())
        .pragma("cipher_hmac_algorithm", HMAC_ALGORITHM)
        .pragma("cache_size", format!("-{}", crate::PAGE_CACHE_KIB))
        .disable_statement_logging()
}

pub use memory_bank_sqlcipher_file::HMAC_ALGORITHM;

static QUIETED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();

/// Turns SQLCipher's own log off, once per process. It writes to stderr (a wrong key
/// prints "error decrypting page 1"), which is the CLI's error channel and the MCP
/// server's log; the error itself reaches the caller as [`StoreError::KeyRejected`].
pub(crate) async fn quiet_cipher_log() {
    QUIETED
        .get_or_init(|| async {
            let quieted = async {
                let mut conn = SqliteConnectOptions::from_str("sqlite::memory:")?.disable_statement_logging().connect().await?;
                sqlx::query("PRAGMA cipher_log_level = NONE").execute(&mut conn).await?;
                conn.close().await
            };
            if let Err(e) = quieted.await {
                tracing::debug!(error = %e, "cannot turn SQLCipher's log off");
            }
        })
        .await;
}

/// Makes the process wait, as it exits, until sqlx's SQLite worker threads are gone.
///
/// Why: SQLCipher frees its crypto provider and private heap at exit (an `atexit`
/// handler and a `.fini_array` destructor), while a connection whose pool was dropped as
/// `main` returned may still be closing on its worker thread; that close then read freed
/// memory and the process died (SIGSEGV in `sqlite3FreeCodecArg`, in test binaries and
/// the CLI). `atexit` handlers run last-registered first and before the destructors, so
/// this one, registered after the process's first SQLite connection (after SQLCipher's),
/// runs before either. It waits at most 2 s; where thread names cannot be read
/// (not Linux) it does not wait.
pub(crate) fn wait_for_workers_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        unsafe extern "C" {
            fn atexit(handler: extern "C" fn()) -> std::ffi::c_int;
        }
        // SAFETY: the C library's `atexit`, given a function that never unwinds.
        if unsafe { atexit(wait_for_workers) } != 0 {
            tracing::debug!("cannot register the exit handler that waits for SQLite's worker threads");
        }
    });
}

extern "C" fn wait_for_workers() {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while std::time::Instant::now() < deadline && workers_alive() {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Whether a thread of sqlx's SQLite workers (`sqlx-sqlite-worker-N`, cut to 15
/// characters by the kernel) still runs in this process.
fn workers_alive() -> bool {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return false };
    tasks.flatten().any(|task| {
        std::fs::read_to_string(task.path().join("comm")).is_ok_and(|name| name.starts_with("sqlx-sqlite-wor"))
    })
}

/// True for SQLite's "file is not a database" (SQLITE_NOTADB), what SQLCipher answers
/// for a wrong key and for an encrypted file opened without one.
pub(crate) fn is_not_a_database(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.code().as_deref() == Some("26"))
}

/// Where the encrypted copy is written before it replaces the bank.
pub fn staging_path(path: &Path) -> PathBuf {
    sibling(path, ".encrypting")
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(suffix);
    path.with_file_name(name)
}

/// One connection to the existing bank file alone: no pool, no WAL switch, only the key
/// (if any) and the busy timeout. `attach_new`: databases it attaches may be created
/// (SQLite gives attached files the main connection's open flags).
async fn single_connection(path: &Path, key: Option<&DbKey>, attach_new: bool) -> Result<SqliteConnection, StoreError> {
    quiet_cipher_log().await;
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(attach_new)
        .busy_timeout(BUSY_TIMEOUT)
        .disable_statement_logging();
    let options = match key {
        Some(key) => keyed(options, key),
        None => options,
    };
    // A keyed connection reads the bank's first page as it connects (`cache_size` loads
    // the schema), so a key that does not fit fails here.
    options.connect().await.map_err(|e| match key {
        Some(_) if is_not_a_database(&e) => StoreError::KeyRejected { path: path.display().to_string() },
        _ => db_err(e),
    })
}

/// Leaves WAL mode, which folds the WAL into the file and needs every other connection
/// to the bank closed: SQLite refuses the switch while another connection, in any
/// process, has the bank open. So success also proves nobody else is using it.
async fn take_sole_use(conn: &mut SqliteConnection, path: &Path) -> Result<(), StoreError> {
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode = DELETE").fetch_one(&mut *conn).await.map_err(|e| {
        if e.to_string().contains("locked") {
            StoreError::InUse { path: path.display().to_string() }
        } else {
            db_err(e)
        }
    })?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(StoreError::InUse { path: path.display().to_string() });
    }
    Ok(())
}

/// Encrypts the plaintext bank at `path` with `key`, in place (see the module docs).
/// A bank another process has open is left as it is ([`StoreError::InUse`]).
pub async fn encrypt_plaintext(path: &Path, key: &DbKey) -> Result<(), StoreError> {
    let lock_path = sibling(path, ".encrypt-lock");
    // flock blocks the thread while another process encrypts: not a runtime worker's.
    let _lock = tokio::task::spawn_blocking(move || memory_bank_sqlcipher_file::FileLock::acquire(&lock_path))
        .await
        .map_err(|e| StoreError::Database(format!("the lock wait failed: {e}")))?
        .map_err(|e| StoreError::Invalid(e.to_string()))?;
    // Another process may have encrypted it while this one waited for the lock.
    if file_state(path)? != FileState::Plaintext {
        return Ok(());
    }
    let staging = staging_path(path);
    // What an interrupted attempt left: never the bank itself, only its unfinished copy.
    remove_if_present(&staging)?;
    remove_if_present(&sibling(&staging, "-journal"))?;
    // It becomes the bank: private from the start (ATTACH would make it with the umask's mode).
    memory_bank_private_files::create_sqlite_file(&staging).map_err(|e| io_error("create the encrypted copy", &staging, e))?;
    let mut conn = single_connection(path, None, true).await?;
    let outcome = export_verify_swap(&mut conn, path, &staging, key).await;
    let _ = conn.close().await;
    if outcome.is_err() {
        let _ = std::fs::remove_file(&staging);
        return outcome;
    }
    // The plaintext WAL index, if SQLite left one: it belongs to the replaced file.
    remove_if_present(&sibling(path, "-shm"))?;
    remove_if_present(&sibling(path, "-wal"))?;
    tracing::info!("the bank was encrypted");
    Ok(())
}

async fn export_verify_swap(conn: &mut SqliteConnection, path: &Path, staging: &Path, key: &DbKey) -> Result<(), StoreError> {
    take_sole_use(conn, path).await?;
    let staging_text = staging.to_str().ok_or_else(|| StoreError::Invalid(format!("the path {} is not UTF-8", staging.display())))?;
    sqlx::query("ATTACH DATABASE ?1 AS encrypted KEY ?2")
        .bind(staging_text)
        .bind(key.raw_literal())
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    // Before the copy's first page is written: the HMAC is part of its format.
    sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA encrypted.cipher_hmac_algorithm = {HMAC_ALGORITHM}")))
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    // The export runs under the write lock: no writer can change the bank meanwhile.
    sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await.map_err(db_err)?;
    sqlx::query("SELECT sqlcipher_export('encrypted')").execute(&mut *conn).await.map_err(db_err)?;
    let user_version: i64 = sqlx::query_scalar("PRAGMA main.user_version").fetch_one(&mut *conn).await.map_err(db_err)?;
    // A PRAGMA takes no bound parameters; this is an integer SQLite gave us.
    sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA encrypted.user_version = {user_version}")))
        .execute(&mut *conn)
        .await
        .map_err(db_err)?;
    sqlx::query("COMMIT").execute(&mut *conn).await.map_err(db_err)?;
    // Checked and swapped under an exclusive lock, held until the copy has replaced the
    // bank: nothing written between the export and the rename can be lost.
    sqlx::query("BEGIN EXCLUSIVE").execute(&mut *conn).await.map_err(db_err)?;
    let swapped = async {
        crate::verify::same_contents(&mut *conn).await?;
        std::fs::File::open(staging).and_then(|f| f.sync_all()).map_err(|e| io_error("sync the encrypted copy", staging, e))?;
        std::fs::rename(staging, path).map_err(|e| io_error("replace the bank with its encrypted copy", path, e))?;
        sync_dir(path);
        Ok::<(), StoreError>(())
    }
    .await;
    let _ = sqlx::query("ROLLBACK").execute(&mut *conn).await;
    let _ = sqlx::query("DETACH DATABASE encrypted").execute(&mut *conn).await;
    swapped
}

/// Changes the key of the encrypted bank at `path` from `old` to `new` (`PRAGMA rekey`,
/// which rewrites every page). Needs the bank to itself, like encrypting does; interrupted,
/// SQLCipher's own journal rolls the file back to the old key on the next open.
pub async fn rekey(path: &Path, old: &DbKey, new: &DbKey) -> Result<(), StoreError> {
    let mut conn = single_connection(path, Some(old), false).await?;
    let outcome = async {
        check_key(&mut conn, path).await?;
        take_sole_use(&mut conn, path).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA rekey = {}", new.pragma_value())))
            .execute(&mut conn)
            .await
            .map_err(db_err)?;
        sqlx::query("PRAGMA journal_mode = WAL").execute(&mut conn).await.map_err(db_err)?;
        Ok(())
    }
    .await;
    let _ = conn.close().await;
    outcome?;
    // The new key must open it before anyone is told it changed.
    let mut conn = single_connection(path, Some(new), false).await?;
    let opened = check_key(&mut conn, path).await;
    let _ = conn.close().await;
    opened
}

/// Whether `key` opens the bank at `path` (a read of its schema, nothing written).
pub async fn key_opens(path: &Path, key: &DbKey) -> Result<bool, StoreError> {
    let outcome = async {
        let mut conn = single_connection(path, Some(key), false).await?;
        let checked = check_key(&mut conn, path).await;
        let _ = conn.close().await;
        checked
    }
    .await;
    match outcome {
        Ok(()) => Ok(true),
        Err(StoreError::KeyRejected { .. }) => Ok(false),
        Err(other) => Err(other),
    }
}

async fn check_key(conn: &mut SqliteConnection, path: &Path) -> Result<(), StoreError> {
    match sqlx::query("SELECT count(*) FROM sqlite_schema").execute(&mut *conn).await {
        Ok(_) => Ok(()),
        Err(e) if is_not_a_database(&e) => Err(StoreError::KeyRejected { path: path.display().to_string() }),
        Err(e) => Err(db_err(e)),
    }
}

/// The SQLCipher version linked in (`4.10.0 community`), or `None` for plain SQLite.
pub async fn cipher_version() -> Result<Option<String>, StoreError> {
    let mut conn = SqliteConnectOptions::from_str("sqlite::memory:").map_err(db_err)?.connect().await.map_err(db_err)?;
    let version: Option<String> = sqlx::query_scalar("PRAGMA cipher_version").fetch_optional(&mut conn).await.map_err(db_err)?;
    let _ = conn.close().await;
    Ok(version)
}

fn remove_if_present(path: &Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error("remove", path, e)),
    }
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Invalid(format!("cannot {what} ({}): {e}; the bank itself is unchanged", path.display()))
}

/// Makes the rename durable; a folder that cannot be flushed is only worth a warning.
fn sync_dir(path: &Path) {
    if let Err(e) = memory_bank_sqlcipher_file::sync_parent_dir(path) {
        tracing::warn!(error = %e, "cannot flush the data folder after encrypting the bank");
    }
}
