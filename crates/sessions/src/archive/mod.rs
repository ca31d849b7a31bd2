//! The session archive: the sessions whose source the tool deleted (Claude Code removes
//! transcripts after 30 days, Gemini CLI too), kept in a SQLite file of their own beside
//! the index (`sessions-archive.sqlite`, see [`archive_path`]), and the sessions the
//! person forgot.
//!
//! Unlike the index, this is not a cache: for an archived session it holds the only copy
//! left. So it is written durably (`synchronous = FULL`), each change in one transaction,
//! before the index records the change; its schema is migrated forward, never dropped;
//! and a rebuilt index imports it again (`index/keep.rs`). Opened with a key it is
//! encrypted at rest (SQLCipher, like the bank; a plaintext one is encrypted on the first
//! keyed open: [`cipher`]), since it may be the last copy of a session and no longer sits
//! next to a plaintext original. [`Archive::open`] is the one place it is opened.

mod adopt;
mod cipher;
mod verify;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sqlcipher_file::DbKey;
use rusqlite::{params, Connection, OptionalExtension};

use crate::error::IndexError;
use crate::stamp::{new_generation, now_ms};

pub use adopt::{adopt_archive, Adoption};
#[cfg(feature = "testing")]
pub(crate) use cipher::staging_path;

/// The archive's current schema version; [`MIGRATIONS`] brings an older file up to it.
const ARCHIVE_SCHEMA_VERSION: i64 = 1;

/// `MIGRATIONS[v]` moves a file at version `v` to `v + 1`. Only ever appended to: an
/// archive is migrated forward, and never dropped.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE archive_meta (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- Tells one archive from another, so an index knows whether it holds this one's sessions.
    archive_id INTEGER NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE archived_session (
    id INTEGER PRIMARY KEY,
    -- The folder it was read under (a root), its tool, and the tool's id: what names a
    -- session for the person, whatever file it came from.
    root TEXT NOT NULL,
    source TEXT NOT NULL,
    session_id TEXT NOT NULL,
    -- The file (or database) the session was read from.
    path TEXT,
    title TEXT,
    title_rank INTEGER NOT NULL DEFAULT 0,
    workspace TEXT,
    created INTEGER,
    updated INTEGER,
    first_user TEXT,
    message_count INTEGER NOT NULL,
    -- When the index saw the source gone (ms since the epoch).
    archived_at INTEGER NOT NULL,
    UNIQUE (root, source, session_id)
);
CREATE TABLE archived_message (
    session INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    ts INTEGER,
    PRIMARY KEY (session, idx)
);
CREATE TABLE archived_tool_call (
    session INTEGER NOT NULL,
    key TEXT NOT NULL,
    after_idx INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (session, key)
);
-- Sessions the person forgot: hidden until they have activity after `until` (their last
-- activity when forgotten).
CREATE TABLE forgotten (
    root TEXT NOT NULL,
    source TEXT NOT NULL,
    session_id TEXT NOT NULL,
    until INTEGER NOT NULL,
    forgotten_at INTEGER NOT NULL,
    PRIMARY KEY (root, source, session_id)
);
"#];

/// Gives the encrypted archive at `path` the key `key` when it is still under one of the
/// `retired` keys: a key file's keys that `memory-bank db rekey` replaced (the archive
/// shares the bank's key file, but a rekey cannot reach every archive that uses it).
/// Call it before [`crate::Library::open`]; an archive `key` already opens, or a
/// plaintext one, is left alone. True when the key was changed.
pub fn rekey_archive(path: &Path, key: &DbKey, retired: &[DbKey]) -> Result<bool, IndexError> {
    cipher::rekey_from_retired(path, key, retired)
}

/// The archive file beside the index file at `index`: `sessions-archive.sqlite` in the
/// same folder (or `<index>.archive.sqlite` should the index itself have that name).
pub fn archive_path(index: &Path) -> PathBuf {
    let beside = index.with_file_name("sessions-archive.sqlite");
    if beside == index {
        index.with_extension("archive.sqlite")
    } else {
        beside
    }
}

/// What names a session for the person: the folder it was read under, its tool, its id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct SessionKey {
    pub(crate) root: String,
    pub(crate) source: String,
    pub(crate) session_id: String,
}

/// An archived session's own row (its messages and tool calls are copied beside it).
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionFacts {
    pub(crate) path: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) title_rank: i64,
    pub(crate) workspace: Option<String>,
    pub(crate) created: Option<i64>,
    pub(crate) updated: Option<i64>,
    pub(crate) first_user: Option<String>,
    pub(crate) message_count: i64,
    pub(crate) archived_at: i64,
}

/// One message row: `(idx, key, message_id, role, text, ts)`.
pub(crate) type MessageRow = (i64, String, String, String, String, Option<i64>);

/// One tool call row: `(key, after_idx, name)`.
pub(crate) type ToolCallRow = (String, i64, String);

/// Hands message rows, in order, to the function it is given (so a long session is
/// copied without being held in memory whole).
pub(crate) type MessageFeed<'a> = dyn FnMut(&mut dyn FnMut(MessageRow) -> rusqlite::Result<()>) -> rusqlite::Result<()> + 'a;

/// Takes one archived session with its messages and tool calls.
pub(crate) type SessionVisitor<'a> =
    dyn FnMut(&SessionKey, &SessionFacts, Vec<MessageRow>, Vec<ToolCallRow>) -> rusqlite::Result<()> + 'a;

/// The open archive.
pub(crate) struct Archive {
    conn: Connection,
    id: i64,
    /// The key it is encrypted with; `None` while it is plaintext.
    key: Option<DbKey>,
}

/// WAL mode, and durable: a commit here is the only copy of what it holds. What it
/// deletes (a forgotten session, one whose source came back) is overwritten with zeros,
/// freed pages included (`secure_delete`): it may have been the last copy of a transcript.
fn wal_and_durable(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;")
}

/// Whether `e` is SQLite saying another connection holds the lock it needs.
fn is_busy(e: &IndexError) -> bool {
    let busy = |e: &rusqlite::Error| matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked));
    matches!(e, IndexError::Sqlite(e) if busy(e))
}

/// How long an open waits for another process that has the archive locked.
const ARCHIVE_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl Archive {
    /// Opens (or creates) the archive at `path`, migrating an older one. With `key` it is
    /// encrypted: a new one from the start, a plaintext one first (unless another process
    /// has it open: then it stays plaintext for now, with a warning). A newer one (from a
    /// later Memory Bank), a file that is not an archive, a wrong key or an encrypted
    /// archive without one is an error that says what to do: it is never replaced, since
    /// it may hold the only copy of a session.
    pub(crate) fn open(path: &Path, key: Option<&DbKey>) -> Result<Archive, IndexError> {
        let failed = |e: rusqlite::Error| IndexError::Archive {
            path: path.to_path_buf(),
            message: format!(
                "{e}. It holds the sessions kept after their tool deleted them: move it away to start a new one \
                 (they are then no longer shown)"
            ),
        };
        // Made here, empty and private, rather than by SQLite with the umask's mode: its
        // WAL, shared-memory index and journal take the file's mode (0600).
        memory_bank_private_files::create_sqlite_file(path).map_err(|source| IndexError::Io { path: path.to_path_buf(), source })?;
        let key = match (key, cipher::file_state(path)?) {
            (Some(key), cipher::FileState::Plaintext) => match cipher::encrypt_plaintext(path, key) {
                Ok(()) => Some(key),
                Err(cipher::NotEncrypted::InUse) => {
                    tracing::warn!(
                        "the session archive {} is open in another process, so it cannot be encrypted now; it stays \
                         unencrypted until an open where nothing else has it open",
                        path.display()
                    );
                    None
                }
                Err(cipher::NotEncrypted::Failed(e)) => return Err(e),
            },
            (key, _) => key,
        };
        let connect = || {
            let conn = Connection::open(path)?;
            // A setting of the connection, not a statement: the key is still the first one.
            conn.busy_timeout(ARCHIVE_BUSY_TIMEOUT)?;
            // The key first: nothing may read the file before it.
            cipher::apply_key(&conn, path, key)?;
            wal_and_durable(&conn)?;
            Self::init(conn)
        };
        // Two processes opening the archive at once (the app and an agent's CLI) can trip
        // over each other in ways SQLite reports at once instead of waiting: "database is
        // locked" where both switch a just-encrypted (or just-made) file to WAL mode at once
        // (SQLite refuses one rather than let them deadlock), or SQLCipher's "error with
        // PRAGMA key" while the other holds a new file's exclusive lock (both seen on a
        // loaded machine). Such an open is tried again until the busy timeout; an existing
        // archive's other errors (a wrong key, a newer version) are reported at once.
        let new = std::fs::metadata(path).map(|m| m.len() == 0).unwrap_or(true);
        let deadline = std::time::Instant::now() + ARCHIVE_BUSY_TIMEOUT;
        let mut archive = loop {
            match connect() {
                Err(e) if (new || is_busy(&e)) && std::time::Instant::now() < deadline => {
                    tracing::debug!(error = %e, "the session archive is being opened by another connection; opening it again");
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                outcome => {
                    break outcome.map_err(|e| match e {
                        IndexError::Sqlite(e) => failed(e),
                        IndexError::Archive { message, .. } => IndexError::Archive { path: path.to_path_buf(), message },
                        other => other,
                    })?
                }
            }
        };
        archive.key = key.cloned();
        Ok(archive)
    }

    /// An archive in memory, for an index in memory (it lasts as long as the library).
    pub(crate) fn in_memory() -> Result<Archive, IndexError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(mut conn: Connection) -> Result<Archive, IndexError> {
        // The write lock first: two processes opening a new archive migrate it once.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > ARCHIVE_SCHEMA_VERSION {
            return Err(IndexError::Archive {
                path: PathBuf::new(),
                message: format!(
                    "the session archive was written by a newer Memory Bank (archive version {version}, this one \
                     reads up to {ARCHIVE_SCHEMA_VERSION}): update Memory Bank to read it"
                ),
            });
        }
        for migration in &MIGRATIONS[version as usize..] {
            tx.execute_batch(migration)?;
        }
        if version == 0 {
            tx.execute(
                "INSERT INTO archive_meta (id, archive_id, created) VALUES (1, ?1, ?2)",
                params![new_generation(), now_ms()],
            )?;
        }
        tx.execute_batch(&format!("PRAGMA user_version = {ARCHIVE_SCHEMA_VERSION};"))?;
        let id = tx.query_row("SELECT archive_id FROM archive_meta", [], |r| r.get(0))?;
        tx.commit()?;
        Ok(Archive { conn, id, key: None })
    }

    /// The key it is encrypted with, `None` while it is plaintext (no key, or another
    /// process had it open when it was to be encrypted): the index's key (`Library::open`).
    pub(crate) fn key(&self) -> Option<&DbKey> {
        self.key.as_ref()
    }

    /// Tells this archive from another (a deleted and recreated one, say).
    pub(crate) fn id(&self) -> i64 {
        self.id
    }

    /// Stores a session with its messages and tool calls in one transaction, replacing
    /// what was stored under the same key. `messages` and `calls` are read as they are
    /// written, so a long session is never held in memory whole.
    pub(crate) fn store(
        &self,
        key: &SessionKey,
        facts: &SessionFacts,
        messages: &mut MessageFeed<'_>,
        calls: &[ToolCallRow],
    ) -> rusqlite::Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        remove_in(&tx, key)?;
        tx.prepare_cached(
            "INSERT INTO archived_session (root, source, session_id, path, title, title_rank, workspace, created,
                 updated, first_user, message_count, archived_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            key.root,
            key.source,
            key.session_id,
            facts.path,
            facts.title,
            facts.title_rank,
            facts.workspace,
            facts.created,
            facts.updated,
            facts.first_user,
            facts.message_count,
            facts.archived_at
        ])?;
        let session = tx.last_insert_rowid();
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO archived_message (session, idx, key, message_id, role, text, ts) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            messages(&mut |(idx, key, message_id, role, text, ts)| {
                insert.execute(params![session, idx, key, message_id, role, text, ts]).map(drop)
            })?;
            let mut insert =
                tx.prepare_cached("INSERT INTO archived_tool_call (session, key, after_idx, name) VALUES (?1, ?2, ?3, ?4)")?;
            for (key, after, name) in calls {
                insert.execute(params![session, key, after, name])?;
            }
        }
        tx.commit()
    }

    /// Removes a session (it is live again, or forgotten).
    pub(crate) fn remove(&self, key: &SessionKey) -> rusqlite::Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        remove_in(&tx, key)?;
        tx.commit()
    }

    /// Forgets a session: removed from the archive, and hidden until it has activity
    /// after `until`.
    pub(crate) fn forget(&self, key: &SessionKey, until: i64) -> rusqlite::Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        remove_in(&tx, key)?;
        tx.prepare_cached(
            "INSERT INTO forgotten (root, source, session_id, until, forgotten_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (root, source, session_id) DO UPDATE SET until = max(until, excluded.until),
                 forgotten_at = excluded.forgotten_at",
        )?
        .execute(params![key.root, key.source, key.session_id, until, now_ms()])?;
        tx.commit()?;
        self.empty_wal();
        Ok(())
    }

    /// Folds the WAL into the file and truncates it, so the older copies of the pages a
    /// forget changed (which held the session's text) leave the disk now rather than when
    /// SQLite next reuses the log. Another process in the middle of a read keeps it from
    /// being emptied: a later checkpoint does it then.
    fn empty_wal(&self) {
        match self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0)) {
            Ok(0) => {}
            Ok(_) => tracing::debug!("the session archive's WAL is in use elsewhere; a later checkpoint empties it"),
            Err(e) => tracing::warn!(error = %e, "the session archive's WAL could not be emptied after a forget"),
        }
    }

    /// A forgotten session that has had new activity is shown again.
    pub(crate) fn unforget(&self, key: &SessionKey) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached("DELETE FROM forgotten WHERE root = ?1 AND source = ?2 AND session_id = ?3")?
            .execute(params![key.root, key.source, key.session_id])
            .map(drop)
    }

    /// Every forgotten session, with the activity time it stays hidden up to.
    pub(crate) fn forgotten(&self) -> rusqlite::Result<HashMap<SessionKey, i64>> {
        let mut stmt = self.conn.prepare_cached("SELECT root, source, session_id, until FROM forgotten")?;
        let rows = stmt.query_map([], |r| {
            Ok((SessionKey { root: r.get(0)?, source: r.get(1)?, session_id: r.get(2)? }, r.get(3)?))
        })?;
        rows.collect()
    }

    /// Calls `each` with every archived session, oldest archived first, with its messages
    /// and tool calls (one session in memory at a time).
    pub(crate) fn for_each(
        &self,
        each: &mut SessionVisitor<'_>,
    ) -> rusqlite::Result<()> {
        let sessions: Vec<(i64, SessionKey, SessionFacts)> = self
            .conn
            .prepare(
                "SELECT id, root, source, session_id, path, title, title_rank, workspace, created, updated, first_user,
                        message_count, archived_at
                 FROM archived_session ORDER BY archived_at, id",
            )?
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    SessionKey { root: r.get(1)?, source: r.get(2)?, session_id: r.get(3)? },
                    SessionFacts {
                        path: r.get(4)?,
                        title: r.get(5)?,
                        title_rank: r.get(6)?,
                        workspace: r.get(7)?,
                        created: r.get(8)?,
                        updated: r.get(9)?,
                        first_user: r.get(10)?,
                        message_count: r.get(11)?,
                        archived_at: r.get(12)?,
                    },
                ))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut messages = self.conn.prepare_cached(
            "SELECT idx, key, message_id, role, text, ts FROM archived_message WHERE session = ?1 ORDER BY idx",
        )?;
        let mut calls =
            self.conn.prepare_cached("SELECT key, after_idx, name FROM archived_tool_call WHERE session = ?1 ORDER BY rowid")?;
        for (id, key, facts) in sessions {
            let rows = messages
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
                .collect::<rusqlite::Result<Vec<MessageRow>>>()?;
            let tools = calls
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<Vec<ToolCallRow>>>()?;
            each(&key, &facts, rows, tools)?;
        }
        Ok(())
    }

    /// Whether the archive holds `key`.
    pub(crate) fn holds(&self, key: &SessionKey) -> rusqlite::Result<bool> {
        self.conn
            .query_row(
                "SELECT id FROM archived_session WHERE root = ?1 AND source = ?2 AND session_id = ?3",
                params![key.root, key.source, key.session_id],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .map(|row| row.is_some())
    }
}

fn remove_in(tx: &Connection, key: &SessionKey) -> rusqlite::Result<()> {
    let id: Option<i64> = tx
        .prepare_cached("SELECT id FROM archived_session WHERE root = ?1 AND source = ?2 AND session_id = ?3")?
        .query_row(params![key.root, key.source, key.session_id], |r| r.get(0))
        .optional()?;
    if let Some(id) = id {
        tx.prepare_cached("DELETE FROM archived_message WHERE session = ?1")?.execute([id])?;
        tx.prepare_cached("DELETE FROM archived_tool_call WHERE session = ?1")?.execute([id])?;
        tx.prepare_cached("DELETE FROM archived_session WHERE id = ?1")?.execute([id])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: &str) -> SessionKey {
        SessionKey { root: "/home/a/.claude".into(), source: "claude-code".into(), session_id: id.into() }
    }

    fn store(archive: &Archive, id: &str, texts: &[&str]) {
        let facts = SessionFacts { message_count: texts.len() as i64, archived_at: 7, ..Default::default() };
        let rows: Vec<MessageRow> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i as i64, format!("k{i}"), format!("m{i}"), "user".to_string(), t.to_string(), None))
            .collect();
        let mut feed = |put: &mut dyn FnMut(MessageRow) -> rusqlite::Result<()>| rows.iter().cloned().try_for_each(put);
        archive.store(&key(id), &facts, &mut feed, &[("c1".into(), 0, "Read".into())]).unwrap();
    }

    fn stored(archive: &Archive) -> Vec<(String, Vec<String>, usize)> {
        let mut out = Vec::new();
        archive
            .for_each(&mut |key, _, messages, calls| {
                out.push((key.session_id.clone(), messages.into_iter().map(|m| m.4).collect(), calls.len()));
                Ok(())
            })
            .unwrap();
        out
    }

    #[test]
    fn sessions_are_stored_replaced_removed_and_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = archive_path(&dir.path().join("sessions-index.sqlite"));
        assert_eq!(path, dir.path().join("sessions-archive.sqlite"));
        let archive = Archive::open(&path, None).unwrap();
        store(&archive, "a", &["one", "two"]);
        store(&archive, "b", &["three"]);
        store(&archive, "a", &["one again"]);
        assert!(archive.holds(&key("a")).unwrap());
        let id = archive.id();
        drop(archive);
        let archive = Archive::open(&path, None).unwrap();
        assert_eq!(archive.id(), id, "the same archive");
        assert_eq!(stored(&archive), [("b".to_string(), vec!["three".to_string()], 1), ("a".to_string(), vec!["one again".to_string()], 1)]);
        archive.remove(&key("b")).unwrap();
        archive.forget(&key("a"), 50).unwrap();
        assert!(stored(&archive).is_empty());
        assert_eq!(archive.forgotten().unwrap(), HashMap::from([(key("a"), 50)]));
        archive.forget(&key("a"), 40).unwrap();
        assert_eq!(archive.forgotten().unwrap()[&key("a")], 50, "the latest activity forgotten stays");
        archive.unforget(&key("a")).unwrap();
        assert!(archive.forgotten().unwrap().is_empty());
    }

    #[test]
    fn an_archive_from_a_newer_version_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions-archive.sqlite");
        store(&Archive::open(&path, None).unwrap(), "a", &["kept"]);
        Connection::open(&path).unwrap().execute_batch("PRAGMA user_version = 99;").unwrap();
        let err = Archive::open(&path, None).err().expect("refused");
        assert!(err.to_string().contains("newer Memory Bank"), "{err}");
        assert!(err.to_string().contains(&path.display().to_string()), "{err}");
        Connection::open(&path).unwrap().execute_batch("PRAGMA user_version = 1;").unwrap();
        assert_eq!(stored(&Archive::open(&path, None).unwrap()).len(), 1, "nothing was lost");
    }

    #[test]
    fn a_file_that_is_not_an_archive_is_an_error_that_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions-archive.sqlite");
        std::fs::write(&path, "not a database, and longer than a header would be ........................").unwrap();
        let err = Archive::open(&path, None).err().expect("refused");
        assert!(err.to_string().contains("move it away"), "{err}");
        assert!(path.exists(), "never deleted");
    }
}
