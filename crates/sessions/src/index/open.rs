//! Opening the index: racing openers wait for one another, and an index that cannot be
//! opened (another schema version, not a database, a plaintext one or one under another
//! key when opened with a key) is a broken cache, deleted and rebuilt once, under a lock.

use std::path::{Path, PathBuf};

use memory_bank_sqlcipher_file::{DbKey, FileLock};
use rusqlite::Connection;

use super::{search_path, Index, IndexError};

impl Index {
    /// Opens or creates the index at `path`, with its search file ([`search_path`]), both
    /// encrypted under `key` when one is given (the archive's: archived sessions' messages
    /// are stored here too), plaintext without. An index from another schema version, or
    /// one that is not a valid database (a plaintext one opened with a key, one under
    /// another key, an encrypted one without a key), is deleted and rebuilt: it only
    /// caches source files (and the archive, a file of its own that is never deleted here).
    pub fn open(path: &Path, key: Option<&DbKey>) -> Result<Index, IndexError> {
        memory_bank_private_files::create_parent_dir(path)
            .map_err(|source| IndexError::Io { path: path.to_path_buf(), source })?;
        // Held shared while opening, so a rebuild (exclusive) never deletes the files under
        // an open in progress: one that found the new database beside the old `-shm`
        // would use a WAL index nobody else sees, or (threads of one process, where
        // POSIX locks do not conflict) truncate the one another connection has mapped.
        let first = {
            let _no_rebuild = FileLock::acquire_shared(&rebuild_lock(path))
                .map_err(|source| IndexError::Io { path: path.to_path_buf(), source })?;
            Self::open_retrying(path, key)
        };
        match first {
            Err(err) if !is_transient(&err) => Self::rebuild(path, key, err),
            opened => opened,
        }
    }

    /// Several processes (agents starting their `memory-bank mcp` together) may open a new
    /// index at once: one creating the schema makes the others see a locked or half made
    /// database for a moment. Those wait and try again; only an index that still cannot be
    /// opened is a broken cache (never a busy one, whose files another process is using).
    fn open_retrying(path: &Path, key: Option<&DbKey>) -> Result<Index, IndexError> {
        let mut attempt = 1;
        loop {
            match Self::open_existing(path, key) {
                Err(err) if attempt < OPEN_ATTEMPTS && is_transient(&err) => {
                    std::thread::sleep(std::time::Duration::from_millis(25 * attempt as u64));
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// Deletes the broken index at `path` and makes a new one, under a lock: processes
    /// finding the same broken index at once (a plaintext one, on the first keyed open
    /// after an update) rebuild it once, and none deletes the new index another has just
    /// made (each looks again once it holds the lock).
    fn rebuild(path: &Path, key: Option<&DbKey>, why: IndexError) -> Result<Index, IndexError> {
        let _lock = FileLock::acquire(&rebuild_lock(path))
            .map_err(|source| IndexError::Io { path: path.to_path_buf(), source })?;
        match Self::open_retrying(path, key) {
            Err(err) if !is_transient(&err) => {}
            opened => return opened,
        }
        // A plaintext index that another process has open (an earlier release, still
        // running) is its index: deleted, it would go on in files nobody else sees. It is
        // used as it is for this run, like a plaintext archive in use, and encrypted (that
        // is, rebuilt) at an open where nothing else has it open.
        if key.is_some() && in_use_plaintext(path) {
            if let Ok(index) = Self::open_retrying(path, None) {
                tracing::warn!(
                    "the session index {} is open in another process, so it cannot be encrypted now; it stays \
                     unencrypted until an open where nothing else has it open",
                    path.display()
                );
                return Ok(index);
            }
        }
        // The reason only: the key is never in it.
        tracing::info!(reason = %why, "the session index cannot be opened; it is rebuilt");
        for file in [path.to_path_buf(), search_path(path)] {
            for suffix in ["", "-wal", "-shm"] {
                let mut p = file.as_os_str().to_owned();
                p.push(suffix);
                match std::fs::remove_file(PathBuf::from(&p)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(IndexError::Io { path: PathBuf::from(p), source: e })
                    }
                    _ => {}
                }
            }
        }
        Self::open_retrying(path, key)
    }
}

/// The lock file beside the index at `path` that orders opens and rebuilds.
fn rebuild_lock(path: &Path) -> PathBuf {
    let mut lock = path.as_os_str().to_owned();
    lock.push(".rebuild-lock");
    PathBuf::from(lock)
}

/// Whether `path` is a plaintext index that another connection has open. Leaving WAL
/// mode needs the file to itself (every connection in WAL mode holds a shared lock on it
/// while open), so success proves nobody else uses it; the file is about to be deleted,
/// so the change does not matter. Tried for a while: another keyed opener's failed first
/// read holds the file for a moment only.
fn in_use_plaintext(path: &Path) -> bool {
    if !matches!(memory_bank_sqlcipher_file::file_state(path), Ok(memory_bank_sqlcipher_file::FileState::Plaintext)) {
        return false;
    }
    for attempt in 1..=OPEN_ATTEMPTS {
        let alone = Connection::open(path).and_then(|conn| {
            conn.busy_timeout(std::time::Duration::from_millis(100))?;
            conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get::<_, String>(0))
        });
        if matches!(alone, Ok(mode) if mode.eq_ignore_ascii_case("delete")) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(25 * u64::from(attempt)));
    }
    true
}

/// How many times [`Index::open`] tries a database another process is busy creating.
const OPEN_ATTEMPTS: u32 = 8;

/// A failure that another process's work explains and that passes: the database is
/// locked or busy, or its schema is being created ("no such table", "table … already
/// exists" when two create it at once).
fn is_transient(err: &IndexError) -> bool {
    let text = err.to_string();
    ["database is locked", "database is busy", "locking protocol", "no such table", "already exists", "disk I/O error"].iter().any(|t| text.contains(t))
}
