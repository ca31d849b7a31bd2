//! The persistent session index: a SQLite file in the app data directory that mirrors
//! what the readers found, keyed by file identity (device, inode), size and mtime, so a
//! refresh reads only new files and the bytes appended to known ones.
//!
//! It is a cache: it can be deleted at any time and is rebuilt on the next refresh.

mod apply;
mod query;
mod refresh;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use query::{Facets, FoundSession, ListFilter, SourceCount, WorkspaceCount};
pub use refresh::RefreshReport;

/// Bump when the schema or a reader's output changes: the index is then rebuilt.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = r#"
CREATE TABLE unit (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    root TEXT NOT NULL,
    source TEXT NOT NULL,
    session_hint TEXT,
    workspace_hint TEXT,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    fingerprint INTEGER NOT NULL,
    -- JSONL: bytes consumed, lines consumed, and a checksum of the bytes before `offset`
    -- (so a file rewritten in place is read again from the start).
    offset INTEGER NOT NULL DEFAULT 0,
    lines INTEGER NOT NULL DEFAULT 0,
    tail_sum INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE session (
    id INTEGER PRIMARY KEY,
    unit_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    source TEXT NOT NULL,
    session_id TEXT NOT NULL,
    title TEXT,
    title_rank INTEGER NOT NULL DEFAULT 0,
    workspace TEXT,
    created INTEGER,
    updated INTEGER,
    hidden INTEGER NOT NULL DEFAULT 0,
    message_count INTEGER NOT NULL DEFAULT 0,
    first_user TEXT,
    UNIQUE (unit_id, key)
);
CREATE INDEX session_by_updated ON session (hidden, updated DESC);
CREATE INDEX session_by_id ON session (session_id);
CREATE TABLE message (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    ts INTEGER
);
CREATE UNIQUE INDEX message_by_position ON message (session, idx);
CREATE INDEX message_by_key ON message (session, key);
-- Substring search: trigrams, case-insensitive. External content, kept in step by triggers.
CREATE VIRTUAL TABLE message_fts USING fts5 (
    text, content = 'message', content_rowid = 'id', tokenize = 'trigram case_sensitive 0'
);
CREATE TRIGGER message_ai AFTER INSERT ON message BEGIN
    INSERT INTO message_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER message_ad AFTER DELETE ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER message_au AFTER UPDATE OF text ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO message_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TABLE external_title (
    source TEXT NOT NULL,
    session_id TEXT NOT NULL,
    title TEXT NOT NULL,
    PRIMARY KEY (source, session_id)
);
"#;

/// A failure of the index itself (not of a source file, which is a [`crate::Problem`]).
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// SQLite failed.
    #[error("the session index failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The index file or its folder could not be created.
    #[error("could not open the session index at {path}: {source}")]
    Io {
        /// The index file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// An open session index.
pub struct Index {
    conn: Connection,
}

impl Index {
    /// Opens or creates the index at `path`. An index from another schema version, or one
    /// that is not a valid database, is deleted and rebuilt: it only caches source files.
    pub fn open(path: &Path) -> Result<Index, IndexError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|source| IndexError::Io { path: path.to_path_buf(), source })?;
        }
        match Self::open_existing(path) {
            Ok(index) => Ok(index),
            Err(_) => {
                for suffix in ["", "-wal", "-shm"] {
                    let mut p = path.as_os_str().to_owned();
                    p.push(suffix);
                    let _ = std::fs::remove_file(PathBuf::from(p));
                }
                Self::open_existing(path)
            }
        }
    }

    /// An index in memory (tests, one-off CLI runs without a data directory).
    pub fn in_memory() -> Result<Index, IndexError> {
        let conn = Connection::open_in_memory()?;
        Self::init(conn)
    }

    fn open_existing(path: &Path) -> Result<Index, IndexError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        // A cache: losing the last transactions on power loss only means re-reading files.
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;")?;
        Self::init(conn)
    }

    fn init(conn: Connection) -> Result<Index, IndexError> {
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version != SCHEMA_VERSION {
            let tables: i64 =
                conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'unit'", [], |r| r.get(0))?;
            if tables > 0 {
                // Older layout: start over (the caller deletes the file and retries).
                return Err(IndexError::Sqlite(rusqlite::Error::InvalidQuery));
            }
            conn.execute_batch(&format!("BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"))?;
        }
        Ok(Index { conn })
    }
}
