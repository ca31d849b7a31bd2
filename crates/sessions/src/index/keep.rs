//! What the index keeps when a source vanishes, and what it forgets.
//!
//! **Archived.** When a session's file is deleted (or, in opencode's database, its rows),
//! its session is not dropped: its messages are copied to the archive file first
//! (`archive.rs`, durable), then the session moves into its root's *archive unit* (a unit
//! row without a file, one per root and tool) with `archived_at` set. Its rows stay, so it
//! is still listed, read and searched, and its message ids do not change. A hidden
//! session (a sub-agent's) is dropped, as it was never shown. When a live session with the
//! same root, tool and id is read again (the file came back, or moved: Codex moving a
//! rollout to `archived_sessions/`), the archived copy is dropped from both files: the
//! source is the truth while it exists. A rebuilt index imports the archive
//! ([`import`]). With `keep_archived` off, a vanished session is dropped as before.
//!
//! **Forgotten.** Forgetting a session removes it from the index (its search entries go
//! with its messages) and from the archive, and records it in the archive as forgotten up
//! to its last activity time. A read of its source brings it back only when the session
//! has activity after that (the agent went on with it); until then every read drops it
//! again, through refreshes and index rebuilds alike.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension, Transaction};

use crate::archive::{Archive, MessageRow, SessionFacts, SessionKey, ToolCallRow};
use crate::stamp::now_ms;

/// The archive's side of one write to the index.
pub(super) struct Keeper<'a> {
    archive: Option<&'a Archive>,
    /// Archive what vanishes (else drop it).
    keep: bool,
    forgotten: HashMap<SessionKey, i64>,
    /// Whether the index holds archived sessions (else a new session has no copy to drop).
    any_archived: bool,
}

impl<'a> Keeper<'a> {
    /// The keeper of a write that holds the index's write lock.
    pub(super) fn new(tx: &Transaction, archive: Option<&'a Archive>, keep: bool) -> rusqlite::Result<Keeper<'a>> {
        let forgotten = match archive {
            Some(archive) => archive.forgotten()?,
            None => HashMap::new(),
        };
        let any_archived = tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM unit WHERE archive = 1)")?
            .query_row([], |r| r.get(0))?;
        Ok(Keeper { archive, keep, forgotten, any_archived })
    }

    /// The file of unit `unit_id` (under `root`) is gone: its sessions are archived or
    /// dropped. The unit row itself is the caller's to delete. Returns the sessions archived.
    pub(super) fn unit_gone(&mut self, tx: &Transaction, unit_id: i64, root: &str) -> rusqlite::Result<u64> {
        let sessions: Vec<i64> = tx
            .prepare_cached("SELECT id FROM session WHERE unit_id = ?1")?
            .query_map([unit_id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut archived = 0;
        for session in sessions {
            archived += u64::from(self.session_gone(tx, session, root)?);
        }
        Ok(archived)
    }

    /// Session row `session` is gone from its source: archived (moved to its root's
    /// archive unit, its messages copied to the archive file first) or dropped. Whether it
    /// was archived.
    pub(super) fn session_gone(&mut self, tx: &Transaction, session: i64, root: &str) -> rusqlite::Result<bool> {
        let Some((key, facts, hidden)) = session_facts(tx, session, root)? else { return Ok(false) };
        let archive = match self.archive {
            Some(archive) if self.keep && !hidden && !self.forgotten.contains_key(&key) && !live_twin(tx, &key, session)? => archive,
            _ => {
                clear_session_row(tx, session)?;
                return Ok(false);
            }
        };
        let calls: Vec<ToolCallRow> = tx
            .prepare_cached("SELECT key, after_idx, name FROM tool_call WHERE session = ?1 ORDER BY id")?
            .query_map([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let mut messages = tx.prepare_cached(
            "SELECT idx, key, message_id, role, text, ts FROM message WHERE session = ?1 ORDER BY idx",
        )?;
        let mut feed = |put: &mut dyn FnMut(MessageRow) -> rusqlite::Result<()>| {
            let mut rows = messages.query([session])?;
            while let Some(r) = rows.next()? {
                put((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))?;
            }
            Ok(())
        };
        // The durable copy first: should the index's transaction be lost, the next refresh
        // finds the file gone again and stores the same copy again.
        archive.store(&key, &facts, &mut feed, &calls)?;
        let unit = archive_unit(tx, &key.root, &key.source)?;
        drop_archived(tx, unit, &key.session_id)?;
        tx.prepare_cached("UPDATE session SET unit_id = ?2, key = ?3, archived_at = ?4 WHERE id = ?1")?
            .execute(params![session, unit, key.session_id, facts.archived_at])?;
        self.any_archived = true;
        Ok(true)
    }

    /// A live session was just written for the first time: an archived copy of it (same
    /// root, tool and id) is dropped, from the index and from the archive.
    pub(super) fn revive(&mut self, tx: &Transaction, key: &SessionKey) -> rusqlite::Result<()> {
        if !self.any_archived {
            return Ok(());
        }
        let unit: Option<i64> = tx
            .prepare_cached("SELECT id FROM unit WHERE archive = 1 AND root = ?1 AND source = ?2")?
            .query_row(params![key.root, key.source], |r| r.get(0))
            .optional()?;
        let Some(unit) = unit else { return Ok(()) };
        if drop_archived(tx, unit, &key.session_id)? {
            if let Some(archive) = self.archive {
                archive.remove(key)?;
            }
        }
        Ok(())
    }

    /// After session `key` of unit `unit_id` was read: a forgotten session without newer
    /// activity is dropped again (`true`); one with newer activity is shown again.
    pub(super) fn settle(&mut self, tx: &Transaction, unit_id: i64, key: &str, root: &str) -> rusqlite::Result<bool> {
        if self.forgotten.is_empty() {
            return Ok(false);
        }
        let found: Option<(i64, String, String, Option<i64>)> = tx
            .prepare_cached("SELECT id, source, session_id, updated FROM session WHERE unit_id = ?1 AND key = ?2")?
            .query_row(params![unit_id, key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()?;
        let Some((row, source, session_id, updated)) = found else { return Ok(false) };
        let key = SessionKey { root: root.to_string(), source, session_id };
        match self.forgotten.get(&key) {
            None => Ok(false),
            Some(&until) if updated.unwrap_or(0) <= until => {
                clear_session_row(tx, row)?;
                Ok(true)
            }
            Some(_) => {
                if let Some(archive) = self.archive {
                    archive.unforget(&key)?;
                }
                self.forgotten.remove(&key);
                Ok(false)
            }
        }
    }

    /// Whether session `session_id` (a database's session key) under `root` is forgotten.
    pub(super) fn is_forgotten(&self, root: &str, source: &str, session_id: &str) -> bool {
        !self.forgotten.is_empty()
            && self.forgotten.contains_key(&SessionKey {
                root: root.to_string(),
                source: source.to_string(),
                session_id: session_id.to_string(),
            })
    }
}

/// What the archive stores of session row `session`, and whether it is hidden; `None` when
/// there is no such row.
fn session_facts(tx: &Transaction, session: i64, root: &str) -> rusqlite::Result<Option<(SessionKey, SessionFacts, bool)>> {
    tx.prepare_cached(
        "SELECT s.source, s.session_id, coalesce(nullif(et.title, ''), s.title),
                CASE WHEN nullif(et.title, '') IS NULL THEN s.title_rank ELSE 4 END,
                s.workspace, s.created, s.updated, s.first_user, s.message_count, u.path, s.hidden
         FROM session s JOIN unit u ON u.id = s.unit_id
             LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id
         WHERE s.id = ?1",
    )?
    .query_row([session], |r| {
        let key = SessionKey { root: root.to_string(), source: r.get(0)?, session_id: r.get(1)? };
        let facts = SessionFacts {
            title: r.get(2)?,
            title_rank: r.get(3)?,
            workspace: r.get(4)?,
            created: r.get(5)?,
            updated: r.get(6)?,
            first_user: r.get(7)?,
            message_count: r.get(8)?,
            path: r.get(9)?,
            archived_at: now_ms(),
        };
        Ok((key, facts, r.get(10)?))
    })
    .optional()
}

/// Whether another live, listed session has the same root, tool and id (its file moved).
fn live_twin(tx: &Transaction, key: &SessionKey, besides: i64) -> rusqlite::Result<bool> {
    tx.prepare_cached(
        "SELECT 1 FROM session s JOIN unit u ON u.id = s.unit_id
         WHERE s.session_id = ?1 AND s.source = ?2 AND u.root = ?3 AND u.archive = 0 AND s.hidden = 0 AND s.id != ?4",
    )?
    .exists(params![key.session_id, key.source, key.root, besides])
}

/// The archive unit of `root` and `source`, made when first needed.
fn archive_unit(tx: &Transaction, root: &str, source: &str) -> rusqlite::Result<i64> {
    let found: Option<i64> = tx
        .prepare_cached("SELECT id FROM unit WHERE archive = 1 AND root = ?1 AND source = ?2")?
        .query_row(params![root, source], |r| r.get(0))
        .optional()?;
    if let Some(id) = found {
        return Ok(id);
    }
    tx.prepare_cached(
        "INSERT INTO unit (path, archive, root, source, dev, ino, size, mtime_ns, fingerprint)
         VALUES (NULL, 1, ?1, ?2, 0, 0, 0, 0, 0)",
    )?
    .execute(params![root, source])?;
    Ok(tx.last_insert_rowid())
}

/// Drops the archived session `session_id` of archive unit `unit`; whether there was one.
fn drop_archived(tx: &Transaction, unit: i64, session_id: &str) -> rusqlite::Result<bool> {
    let row: Option<i64> = tx
        .prepare_cached("SELECT id FROM session WHERE unit_id = ?1 AND key = ?2")?
        .query_row(params![unit, session_id], |r| r.get(0))
        .optional()?;
    match row {
        Some(row) => clear_session_row(tx, row).map(|()| true),
        None => Ok(false),
    }
}

/// Removes one session row with its messages (their search entries follow, `search.rs`)
/// and tool calls.
pub(super) fn clear_session_row(tx: &Transaction, session: i64) -> rusqlite::Result<()> {
    tx.prepare_cached("DELETE FROM tool_call WHERE session = ?1")?.execute([session])?;
    tx.prepare_cached("DELETE FROM message WHERE session = ?1")?.execute([session])?;
    tx.prepare_cached("DELETE FROM session WHERE id = ?1")?.execute([session])?;
    Ok(())
}

/// Whether the index does not hold `archive`'s sessions yet ([`import`]).
pub(super) fn needs_import(conn: &rusqlite::Connection, archive: &Archive) -> rusqlite::Result<bool> {
    let imported: Option<i64> = conn.query_row("SELECT archive_id FROM index_meta", [], |r| r.get(0))?;
    Ok(imported != Some(archive.id()))
}

/// Imports `archive`'s sessions into an index that does not hold them yet: a new or
/// rebuilt index, or one that held another archive's (the file was replaced). Runs inside
/// the caller's write transaction; a session read live meanwhile is not imported.
pub(super) fn import(tx: &Transaction, archive: &Archive) -> rusqlite::Result<()> {
    // Checked again under the write lock: another process may have just imported it.
    if !needs_import(tx, archive)? {
        return Ok(());
    }
    // Another archive's sessions (or none): this index shows this archive's.
    let archived: Vec<i64> = tx
        .prepare("SELECT s.id FROM session s JOIN unit u ON u.id = s.unit_id WHERE u.archive = 1")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for row in archived {
        clear_session_row(tx, row)?;
    }
    archive.for_each(&mut |key, facts, messages, calls| {
        if live_twin(tx, key, -1)? {
            return Ok(());
        }
        let unit = archive_unit(tx, &key.root, &key.source)?;
        drop_archived(tx, unit, &key.session_id)?;
        let filter = super::apply::filter_key(facts.title.as_deref().or(facts.first_user.as_deref()), facts.workspace.as_deref());
        tx.prepare_cached(
            "INSERT INTO session (unit_id, key, source, session_id, title, title_rank, workspace, created, updated,
                 hidden, message_count, first_user, filter_key, archived_at)
             VALUES (?1, ?2, ?3, ?2, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            unit,
            key.session_id,
            key.source,
            facts.title,
            facts.title_rank,
            facts.workspace,
            facts.created,
            facts.updated,
            facts.message_count,
            facts.first_user,
            filter,
            facts.archived_at
        ])?;
        let session = tx.last_insert_rowid();
        let mut insert = tx.prepare_cached(
            "INSERT INTO message (session, idx, key, message_id, role, text, ts, sort_ts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, coalesce(?7, ?8))",
        )?;
        for (idx, key, message_id, role, text, ts) in messages {
            insert.execute(params![session, idx, key, message_id, role, text, ts, facts.updated])?;
        }
        let mut insert = tx.prepare_cached("INSERT INTO tool_call (session, key, after_idx, name) VALUES (?1, ?2, ?3, ?4)")?;
        for (key, after, name) in calls {
            insert.execute(params![session, key, after, name])?;
        }
        Ok(())
    })?;
    // Its forgotten marks too: a live session the index holds that the archive says was
    // forgotten (by another index over it, or in an archive merged into it) goes, as a
    // forget here would have done.
    for (key, until) in archive.forgotten()? {
        let live: Vec<(i64, Option<i64>)> = tx
            .prepare_cached(
                "SELECT s.id, s.updated FROM session s JOIN unit u ON u.id = s.unit_id
                 WHERE s.session_id = ?1 AND s.source = ?2 AND u.root = ?3 AND u.archive = 0",
            )?
            .query_map(params![key.session_id, key.source, key.root], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (row, updated) in live {
            if updated.unwrap_or(0) <= until {
                read_again(tx, row)?;
                clear_session_row(tx, row)?;
            }
        }
    }
    tx.execute("UPDATE index_meta SET archive_id = ?1", [archive.id()])?;
    Ok(())
}

/// A JSONL file's read position goes back to its start, so that when it changes it is
/// read whole (a forgotten session comes back only with newer activity, and whole).
fn read_again(tx: &Transaction, session: i64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "UPDATE unit SET offset = 0, lines = 0, tail_sum = 0
         WHERE id = (SELECT unit_id FROM session WHERE id = ?1) AND archive = 0",
    )?
    .execute([session])
    .map(drop)
}

/// Forgets session rows `rows` (each with its root): removed from the archive and marked
/// forgotten there first, then from the index. A JSONL file's read position goes back to
/// its start, so that when it changes it is read whole (and shown again only with newer
/// activity).
pub(super) fn forget(tx: &Transaction, archive: Option<&Archive>, rows: &[(i64, String)]) -> rusqlite::Result<()> {
    for (row, root) in rows {
        let Some((key, facts, _)) = session_facts(tx, *row, root)? else { continue };
        if let Some(archive) = archive {
            archive.forget(&key, facts.updated.unwrap_or(0))?;
        }
        read_again(tx, *row)?;
        clear_session_row(tx, *row)?;
    }
    Ok(())
}
