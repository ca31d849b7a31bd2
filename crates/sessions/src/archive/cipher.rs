//! Encryption at rest of the archive: SQLCipher, the bank's cipher, with a key the door
//! finds by the bank's rules (`memory_bank_db_key::resolve_key`; this crate only takes
//! the key, so it links no key store and no sqlx).
//!
//! The archive can hold the only copy of a session its tool deleted, so a plaintext
//! archive is encrypted the way the bank is, never half done: exported into
//! `sessions-archive.sqlite.encrypting` beside it (`sqlcipher_export`), checked table by
//! table and row by row against the original, flushed, and renamed over it. Whatever
//! interrupts that leaves the plaintext archive as it was, and the next keyed open starts
//! again. A key that does not open it, or no key for an encrypted one, is an error that
//! says what to do; the file is never replaced.

use std::path::{Path, PathBuf};

use memory_bank_sqlcipher_file::DbKey;
use rusqlite::{Connection, ErrorCode};

use super::verify::same_contents;
use crate::error::IndexError;
use crate::keyed;

pub(crate) use memory_bank_sqlcipher_file::FileState;

/// What the archive file is, from its first bytes (nothing is decrypted to tell).
pub(crate) fn file_state(path: &Path) -> Result<FileState, IndexError> {
    memory_bank_sqlcipher_file::file_state(path).map_err(|source| IndexError::Io { path: path.to_path_buf(), source })
}

/// Where the encrypted copy is written before it replaces the archive.
pub(crate) fn staging_path(path: &Path) -> PathBuf {
    sibling(path, ".encrypting")
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(suffix);
    path.with_file_name(name)
}

/// Applies `key` to a connection that has run nothing yet (`PRAGMA key` must come before
/// anything reads the file), then checks that it opens the file. Never logs the key.
pub(super) fn apply_key(conn: &Connection, path: &Path, key: Option<&DbKey>) -> Result<(), IndexError> {
    if try_key(conn, path, key)? {
        Ok(())
    } else {
        Err(rejected(path, key.is_some()))
    }
}

/// [`apply_key`], answering `false` where SQLCipher cannot read the file with that key.
fn try_key(conn: &Connection, path: &Path, key: Option<&DbKey>) -> Result<bool, IndexError> {
    if let Some(key) = key {
        keyed::apply(conn, key).map_err(|e| archive_error(path, e.to_string()))?;
    }
    match conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(())) {
        Ok(()) => Ok(true),
        Err(e) if keyed::is_not_a_database(&e) => Ok(false),
        Err(e) => Err(archive_error(path, e.to_string())),
    }
}

/// Whether `key` opens the encrypted file at `path` (a read of its schema; nothing written).
fn opens(path: &Path, key: &DbKey) -> Result<bool, IndexError> {
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| archive_error(path, e.to_string()))?;
    conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(|e| archive_error(path, e.to_string()))?;
    try_key(&conn, path, Some(key))
}

/// Moves the archive at `path` from one of the `retired` keys to `key` (see
/// [`crate::rekey_archive`]). `PRAGMA rekey` rewrites every page in one transaction, so an
/// interrupted rekey leaves it under the old key, and the next call starts again.
pub(crate) fn rekey_from_retired(path: &Path, key: &DbKey, retired: &[DbKey]) -> Result<bool, IndexError> {
    if retired.is_empty() || file_state(path)? != FileState::Encrypted || opens(path, key)? {
        return Ok(false);
    }
    let mut old = None;
    for candidate in retired.iter().rev() {
        if opens(path, candidate)? {
            old = Some(candidate);
            break;
        }
    }
    // No key opens it: opening it reports that, naming what to do.
    let Some(old) = old else { return Ok(false) };
    let failed = |e: rusqlite::Error| archive_error(path, format!("cannot change it to the key file's new key: {e}; it is unchanged"));
    let conn = Connection::open(path).map_err(failed)?;
    conn.busy_timeout(std::time::Duration::from_secs(2)).map_err(failed)?;
    apply_key(&conn, path, Some(old))?;
    // Like encrypting it, this needs the archive to itself (SQLCipher rekeys outside WAL mode).
    let mode: String = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0)).map_err(failed)?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(archive_error(path, "it is open in another process, so it cannot take the key file's new key now; close the app and agents, then try again".into()));
    }
    conn.execute_batch(&format!("PRAGMA rekey = {}; PRAGMA journal_mode = WAL;", key.pragma_value())).map_err(failed)?;
    drop(conn);
    if !opens(path, key)? {
        return Err(archive_error(path, "the key file's new key does not open it after the change; report this".into()));
    }
    tracing::info!("the session archive now has the key file's new key");
    Ok(true)
}

/// The error for a file SQLCipher cannot read with the key it was given (or without one).
fn rejected(path: &Path, had_key: bool) -> IndexError {
    let entry = format!("service \"memory-bank\", entry \"database-key:{}\"", path.display());
    let message = if had_key {
        format!(
            "the key Memory Bank found does not open it: it was encrypted with another key. Put that key back where \
             it was (the OS keyring's {entry}, or the key file given with --db-key-file or MEMORY_BANK_DB_KEY_FILE \
             when it was encrypted). The archive was not changed: it holds the sessions kept after their tool \
             deleted them, maybe their only copy"
        )
    } else {
        format!(
            "it is encrypted (or is not a SQLite file) and was opened without a key. Give Memory Bank its key (the \
             OS keyring's {entry}, or the key file with --db-key-file or MEMORY_BANK_DB_KEY_FILE). The archive was \
             not changed; if it is not a session archive at all, move it away to start a new one"
        )
    };
    archive_error(path, message)
}

fn archive_error(path: &Path, message: String) -> IndexError {
    IndexError::Archive { path: path.to_path_buf(), message }
}

/// Why a plaintext archive was not encrypted.
pub(super) enum NotEncrypted {
    /// Another connection has it open (this process's other library, the app and an
    /// agent's `memory-bank mcp`): it can be encrypted only when nothing else uses it.
    InUse,
    /// Anything else; the plaintext archive is unchanged.
    Failed(IndexError),
}

/// Encrypts the plaintext archive at `path` with `key`, in place (see the module docs).
pub(super) fn encrypt_plaintext(path: &Path, key: &DbKey) -> Result<(), NotEncrypted> {
    let failed = |message: String| NotEncrypted::Failed(archive_error(path, format!("{message}; the archive is unchanged")));
    let _lock = memory_bank_sqlcipher_file::FileLock::acquire(&sibling(path, ".encrypt-lock")).map_err(|e| failed(e.to_string()))?;
    // Another process may have encrypted it while this one waited for the lock.
    if file_state(path).map_err(NotEncrypted::Failed)? != FileState::Plaintext {
        return Ok(());
    }
    let staging = staging_path(path);
    // What an interrupted attempt left: never the archive itself, only its unfinished copy.
    for leftover in [staging.clone(), sibling(&staging, "-journal")] {
        match std::fs::remove_file(&leftover) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(failed(format!("cannot remove {}: {e}", leftover.display()))),
            _ => {}
        }
    }
    // It becomes the archive: private from the start (ATTACH would make it with the umask's mode).
    memory_bank_private_files::create_sqlite_file(&staging).map_err(|e| failed(format!("cannot create {}: {e}", staging.display())))?;
    let conn = Connection::open(path).map_err(|e| failed(e.to_string()))?;
    // Short: a busy archive is someone else's open connection, which will not go away.
    conn.busy_timeout(std::time::Duration::from_secs(2)).map_err(|e| failed(e.to_string()))?;
    let outcome = export_verify_swap(&conn, path, &staging, key);
    drop(conn);
    if outcome.is_err() {
        let _ = std::fs::remove_file(&staging);
        return outcome;
    }
    // No WAL to clear away: leaving WAL mode folded it into the file and removed it, and
    // removing one now could hit the new file's own, made by an open that came after.
    tracing::info!("the session archive was encrypted");
    Ok(())
}

fn export_verify_swap(conn: &Connection, path: &Path, staging: &Path, key: &DbKey) -> Result<(), NotEncrypted> {
    let failed = |e: rusqlite::Error| NotEncrypted::Failed(archive_error(path, format!("cannot encrypt it: {e}; the archive is unchanged")));
    // Leaving WAL mode folds the WAL into the file, and SQLite refuses it while any other
    // connection has the file open: success proves nobody else is using it.
    let mode: String = match conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0)) {
        Ok(mode) => mode,
        Err(e) if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) || e.sqlite_error_code() == Some(ErrorCode::DatabaseLocked) => {
            return Err(NotEncrypted::InUse)
        }
        Err(e) => return Err(failed(e)),
    };
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(NotEncrypted::InUse);
    }
    let staging_text = staging.to_str().ok_or_else(|| {
        NotEncrypted::Failed(archive_error(path, format!("the path {} is not UTF-8, so it cannot be encrypted", staging.display())))
    })?;
    keyed::attach(conn, staging_text, "encrypted", Some(key))
        .map_err(|e| NotEncrypted::Failed(archive_error(path, format!("cannot encrypt it: {e}; the archive is unchanged"))))?;
    let outcome = (|| {
        // Under the write lock: nothing changes the archive while it is exported.
        conn.execute_batch("BEGIN IMMEDIATE;").map_err(failed)?;
        conn.query_row("SELECT sqlcipher_export('encrypted')", [], |_| Ok(())).map_err(failed)?;
        let version: i64 = conn.query_row("PRAGMA main.user_version", [], |r| r.get(0)).map_err(failed)?;
        conn.execute_batch(&format!("PRAGMA encrypted.user_version = {version}; COMMIT;")).map_err(failed)?;
        // Checked and swapped under an exclusive lock held until the copy has replaced
        // the archive: nothing written between the export and the rename is lost.
        conn.execute_batch("BEGIN EXCLUSIVE;").map_err(failed)?;
        same_contents(conn).map_err(|e| NotEncrypted::Failed(archive_error(path, e)))?;
        let io = |what: &str, e: std::io::Error| {
            NotEncrypted::Failed(archive_error(path, format!("cannot {what}: {e}; the archive is unchanged")))
        };
        std::fs::File::open(staging).and_then(|f| f.sync_all()).map_err(|e| io("flush its encrypted copy", e))?;
        std::fs::rename(staging, path).map_err(|e| io("replace it with its encrypted copy", e))?;
        sync_dir(path);
        Ok(())
    })();
    let _ = conn.execute_batch("ROLLBACK;");
    let _ = conn.execute_batch("DETACH DATABASE encrypted;");
    outcome
}

/// Makes the rename durable; a folder that cannot be flushed is only worth a warning.
fn sync_dir(path: &Path) {
    if let Err(e) = memory_bank_sqlcipher_file::sync_parent_dir(path) {
        tracing::warn!(error = %e, "cannot flush the data folder after encrypting the session archive");
    }
}
