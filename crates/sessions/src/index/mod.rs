//! The persistent session index: a SQLite file in the app data directory that mirrors
//! what the readers found, keyed by file identity (device, inode), size and mtime, so a
//! refresh reads only new files and the bytes appended to known ones.
//!
//! It is a cache: it can be deleted at any time and is rebuilt on the next refresh, which
//! takes the sessions whose source is gone back from the archive (`archive.rs`, not a
//! cache; `keep.rs` says how the two stay in step).

mod apply;
mod filters;
mod keep;
mod open;
mod page;
mod query;
mod read;
mod refresh;
mod search;
mod segments;
mod trigram;

use std::path::{Path, PathBuf};

use memory_bank_sqlcipher_file::DbKey;
use rusqlite::Connection;

use crate::archive::Archive;
pub use crate::error::IndexError;
use crate::keyed;
use crate::model::Source;
use crate::stamp::new_generation;

pub use page::{ListCursor, SearchCursor};
pub use filters::{Facets, FoundSession, ListFilter, SearchFilter, SessionStatus, SourceCount, WorkspaceCount};
pub use refresh::RefreshReport;

/// Bump when the schema or a reader's output changes: the index is then rebuilt (and
/// imports the archived sessions again from the archive, which is not rebuilt).
const SCHEMA_VERSION: i64 = 8;

const SCHEMA: &str = r#"
CREATE TABLE unit (
    id INTEGER PRIMARY KEY,
    -- NULL for an archive unit: no file, it holds the archived sessions of one root and
    -- tool (`keep.rs`).
    path TEXT UNIQUE,
    archive INTEGER NOT NULL DEFAULT 0,
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
    tail_sum INTEGER NOT NULL DEFAULT 0,
    -- Whole units whose reader reads changes only (opencode.db): where the next read starts.
    mark INTEGER
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
    -- Folded (`text::fold`: Unicode) title and workspace, for the list filter: computed
    -- once when written instead of folding long first messages on every query.
    filter_key TEXT NOT NULL DEFAULT '',
    -- When its source was seen gone (ms); NULL while it is live. An archived session sits
    -- in its root's archive unit, keyed by its session id.
    archived_at INTEGER,
    UNIQUE (unit_id, key)
);
-- Listings: newest first straight from the index, and counts without reading the rows
-- (which hold the first user message).
CREATE INDEX session_list ON session (
    hidden, updated DESC, created DESC, id DESC, unit_id, source, session_id, workspace, title, message_count,
    archived_at
);
CREATE INDEX session_by_id ON session (session_id);
CREATE TABLE message (
    -- Never reused, so the search index knows every id above its watermark is new.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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
-- Changes to messages the search index may hold (see `search.rs`): new messages are
-- found by id, so only a changed text or a deleted message is logged.
CREATE TABLE search_dirty (seq INTEGER PRIMARY KEY AUTOINCREMENT, message_id INTEGER NOT NULL);
CREATE TRIGGER message_ad AFTER DELETE ON message BEGIN
    INSERT INTO search_dirty (message_id) VALUES (old.id);
END;
CREATE TRIGGER message_au AFTER UPDATE OF text ON message BEGIN
    INSERT INTO search_dirty (message_id) VALUES (old.id);
END;
-- Tells the search file which index it follows (a new one for every rebuilt index), and
-- which archive's sessions this index imported (`keep.rs`; NULL: none yet).
CREATE TABLE index_meta (generation INTEGER NOT NULL, archive_id INTEGER);
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

/// An open session index.
pub struct Index {
    conn: Connection,
    /// In memory, nothing else can open the search index: a refresh builds it itself.
    inline_search: bool,
    /// Called after each commit of a refresh (the search indexer's wake-up call).
    on_commit: Option<Box<dyn Fn() + Send>>,
    /// Source bytes read between commits (and per part of a big file).
    commit_every: u64,
    /// Where sessions go when their source vanishes (`keep.rs`); without one, they are
    /// dropped.
    archive: Option<Archive>,
    /// Archive vanished sessions (the person's setting), else drop them.
    keep_archived: bool,
}

/// Source bytes read before committing: a long first index shows progress, wakes the
/// search indexer, and holds at most this much of a big file in memory.
const COMMIT_EVERY_BYTES: u64 = 64 << 20;

/// How long a write waits for another process's transaction (a refresh commits at least
/// every 64 MB of source, so this is rarely reached).
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The search index file beside the index file at `path`.
pub fn search_path(path: &Path) -> PathBuf {
    path.with_extension("search.sqlite")
}

impl Index {
    /// An index in memory (tests, one-off CLI runs without a data directory).
    pub fn in_memory() -> Result<Index, IndexError> {
        let conn = Connection::open_in_memory()?;
        let mut index = Self::init(conn)?;
        search::attach(&index.conn, None, None)?;
        index.inline_search = true;
        Ok(index)
    }

    fn open_existing(path: &Path, key: Option<&DbKey>) -> Result<Index, IndexError> {
        // Both files made here, empty and private, rather than by SQLite with the umask's
        // mode: their WALs and shared-memory indexes take the files' mode (0600). Here and
        // not once in `open`: a rebuild deletes them and opens again.
        for file in [path.to_path_buf(), search_path(path)] {
            memory_bank_private_files::create_sqlite_file(&file).map_err(|source| IndexError::Io { path: file.clone(), source })?;
        }
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // The key first: nothing may read the file before it. A wrong key (or a plaintext
        // file) shows at the first read below as "file is not a database".
        if let Some(key) = key {
            keyed::apply(&conn, key)?;
        }
        // A cache: losing the last transactions on power loss only means re-reading files.
        // A 64 MB page cache (default 2 MB): a first index inserts into several b-trees at
        // once, and listings read every session row.
        // Deleted rows are zeroed inside their pages (`secure_delete = FAST`: no more I/O than
        // without; pages freed whole keep their bytes until reused, see the README).
        // The search file, attached next, takes the setting.
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536; PRAGMA secure_delete = FAST;",
        )?;
        let index = Self::init(conn)?;
        search::attach(&index.conn, Some(&search_path(path)), key)?;
        Ok(index)
    }

    fn init(conn: Connection) -> Result<Index, IndexError> {
        register_functions(&conn)?;
        // A refresh runs ~30 distinct statements per session read (the default keeps 16).
        conn.set_prepared_statement_cache_capacity(64);
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version != SCHEMA_VERSION {
            let tables: i64 =
                conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'unit'", [], |r| r.get(0))?;
            if tables > 0 {
                // Older layout: start over (the caller deletes the file and retries).
                return Err(IndexError::Sqlite(rusqlite::Error::InvalidQuery));
            }
            conn.execute_batch(&format!("BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION};"))?;
            conn.execute("INSERT INTO index_meta (generation) VALUES (?1)", [new_generation()])?;
            conn.execute_batch("COMMIT;")?;
        }
        Ok(Index {
            conn,
            inline_search: false,
            on_commit: None,
            commit_every: COMMIT_EVERY_BYTES,
            archive: None,
            keep_archived: true,
        })
    }

    /// Keeps the sessions whose source vanishes in `archive` from now on, and shows the
    /// sessions it holds: a new or rebuilt index imports them (`keep.rs`).
    pub(crate) fn attach_archive(&mut self, archive: Archive) -> Result<(), IndexError> {
        // Read first: opening a library must not wait for another process's long refresh
        // (which holds the write lock) when there is nothing to import, as is usual.
        if !keep::needs_import(&self.conn, &archive)? {
            self.archive = Some(archive);
            return Ok(());
        }
        let tx = refresh::begin_write(&self.conn)?;
        keep::import(&tx, &archive)?;
        tx.commit()?;
        committed(&self.on_commit);
        if self.inline_search {
            self.index_for_search(&|| false)?;
        }
        self.archive = Some(archive);
        Ok(())
    }

    /// Whether a session whose source vanishes is archived (the default) or dropped.
    pub fn set_keep_archived(&mut self, keep: bool) {
        self.keep_archived = keep;
    }

    /// Forgets the sessions with this id (of `source`, when given) under `roots`, live or
    /// archived: removed from the index and the archive, and hidden until they have new
    /// activity (`keep.rs`). Returns what they were; none when no session has that id.
    pub fn forget(&mut self, roots: &[String], session_id: &str, source: Option<Source>) -> Result<Vec<FoundSession>, IndexError> {
        let tx = refresh::begin_write(&self.conn)?;
        let found = self.matching(&tx, roots, session_id, source)?;
        let rows: Vec<(i64, String)> = found.iter().map(|(f, root)| (f.row, root.clone())).collect();
        keep::forget(&tx, self.archive.as_ref(), &rows)?;
        tx.commit()?;
        committed(&self.on_commit);
        if self.inline_search {
            self.index_for_search(&|| false)?;
        }
        Ok(found.into_iter().map(|(f, _)| f).collect())
    }

    /// Calls `hook` after each commit of a refresh (to wake a search indexer).
    pub fn set_on_commit(&mut self, hook: Box<dyn Fn() + Send>) {
        self.on_commit = Some(hook);
    }

    /// Commits after every `bytes` of source read instead of 64 MB (tests use a small value
    /// to read their fixtures in many parts).
    #[doc(hidden)]
    pub fn set_commit_every(&mut self, bytes: u64) {
        self.commit_every = bytes.max(1);
    }

    /// Brings the message search index up to date, giving up between batches when `stop`
    /// returns true. Until it is caught up, search scans the stored texts instead.
    /// Whether there was anything to index.
    pub fn index_for_search(&self, stop: &dyn Fn() -> bool) -> Result<bool, IndexError> {
        Ok(search::catch_up(&self.conn, stop)?)
    }

    /// Copies what the write-ahead logs hold into the index files, as far as readers
    /// allow (a passive checkpoint: never waits, never blocks a writer). The search
    /// indexer runs it when it falls idle, so the first commit after a long first index
    /// (often a transcript read) does not pay for copying tens of megabytes.
    pub fn checkpoint(&self) -> Result<(), IndexError> {
        for checkpoint in ["PRAGMA main.wal_checkpoint(PASSIVE)", "PRAGMA search.wal_checkpoint(PASSIVE)"] {
            self.conn.query_row(checkpoint, [], |_| Ok(()))?;
        }
        Ok(())
    }

    #[cfg(any(test, feature = "testing"))] // only tests ask
    /// Whether the message search index holds every message.
    pub fn search_is_caught_up(&self) -> Result<bool, IndexError> {
        Ok(search::is_caught_up(&self.conn)?)
    }
}

/// SQL functions the queries use: `contains_folded(text, needle)`, a Unicode
/// case-insensitive containment test (SQLite's `lower()` folds ASCII only).
fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        "contains_folded",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            let text = ctx.get_raw(0).as_str_or_null().ok().flatten().unwrap_or("");
            let needle = ctx.get_raw(1).as_str_or_null().ok().flatten().unwrap_or("");
            Ok(crate::text::contains_folded(text, needle))
        },
    )
}

fn committed(hook: &Option<Box<dyn Fn() + Send>>) {
    if let Some(hook) = hook {
        hook();
    }
}
