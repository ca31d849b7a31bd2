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
const SCHEMA_VERSION: i64 = 4;

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
    -- Lower-cased (Unicode) title and workspace, for the list filter: computed once when
    -- written instead of lower() over long first messages on every query.
    filter_key TEXT NOT NULL DEFAULT '',
    UNIQUE (unit_id, key)
);
-- Listings: newest first straight from the index, and counts without reading the rows
-- (which hold the first user message).
CREATE INDEX session_list ON session (
    hidden, updated DESC, created DESC, id DESC, unit_id, source, session_id, workspace, title, message_count
);
CREATE INDEX session_by_id ON session (session_id);
CREATE TABLE message (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    ts INTEGER,
    -- The search order, always coalesce(ts, session.updated) (kept so by `apply.rs`), so
    -- search can walk messages newest first instead of sorting every match.
    sort_ts INTEGER
);
CREATE UNIQUE INDEX message_by_position ON message (session, idx);
CREATE INDEX message_by_key ON message (session, key);
CREATE INDEX message_by_sort ON message (sort_ts);
CREATE INDEX message_untimed ON message (session) WHERE ts IS NULL;
-- Substring search: trigrams, case-insensitive. External content: new rows are added by
-- `apply.rs` right after inserting them (no AFTER INSERT trigger: a trigger makes every
-- INSERT open a statement savepoint, and FTS5 flushes its pending terms to a new segment
-- at each savepoint, so a bulk index wrote one tiny segment per message and spent most
-- of its time merging them); deletes and updates are kept in step by triggers.
-- `hashsize`: pending terms buffered before a segment is written (default 1 MB).
CREATE VIRTUAL TABLE message_fts USING fts5 (
    text, content = 'message', content_rowid = 'id', tokenize = 'trigram case_sensitive 0'
);
INSERT INTO message_fts (message_fts, rank) VALUES ('hashsize', 8388608);
CREATE TRIGGER message_ad AFTER DELETE ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER message_au AFTER UPDATE OF text ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO message_fts (rowid, text) VALUES (new.id, new.text);
END;
-- Tool calls between messages (shown collapsed), after message `after_idx` (-1: before any).
CREATE TABLE tool_call (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    key TEXT NOT NULL,
    after_idx INTEGER NOT NULL,
    name TEXT NOT NULL
);
CREATE UNIQUE INDEX tool_call_by_key ON tool_call (session, key);
CREATE INDEX tool_call_by_position ON tool_call (session, after_idx);
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
        // A 64 MB page cache (default 2 MB): a first index inserts into several b-trees at
        // once, and listings read every session row.
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536;")?;
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
