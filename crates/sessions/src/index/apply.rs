//! Writes the events of one pass over a unit into the index, folding them by the same
//! rules as a read without an index (`replay.rs`): messages by
//! [`MessageEvent::merge_into`](crate::events::MessageEvent::merge_into), the rest here and
//! there alike (the tests check that both agree).

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension, Transaction};

use super::keep::Keeper;
use crate::archive::SessionKey;
use crate::events::{Event, MetaEvent, TitleRank};
use crate::model::Role;
use crate::source::Unit;

/// The session row as read from, and written back to, the index.
#[derive(Debug, Default)]
struct SessionRow {
    id: Option<i64>,
    session_id: Option<String>,
    title: Option<String>,
    title_rank: i64,
    workspace: Option<String>,
    created: Option<i64>,
    updated: Option<i64>,
    hidden: bool,
    message_count: i64,
    first_user: Option<String>,
}

impl SessionRow {
    fn load(tx: &Transaction, unit_id: i64, key: &str) -> rusqlite::Result<Option<SessionRow>> {
        tx.prepare_cached("SELECT id, session_id, title, title_rank, workspace, created, updated, hidden,
                    message_count, first_user
             FROM session WHERE unit_id = ?1 AND key = ?2")?
            .query_row(params![unit_id, key],
            |r| {
                Ok(SessionRow {
                    id: Some(r.get(0)?),
                    session_id: Some(r.get(1)?),
                    title: r.get(2)?,
                    title_rank: r.get(3)?,
                    workspace: r.get(4)?,
                    created: r.get(5)?,
                    updated: r.get(6)?,
                    hidden: r.get(7)?,
                    message_count: r.get(8)?,
                    first_user: r.get(9)?,
                })
            })
        .optional()
    }

    fn apply_meta(&mut self, meta: MetaEvent) {
        if self.session_id.is_none() {
            self.session_id = meta.session_id.filter(|s| !s.is_empty());
        }
        if let Some((rank, title)) = meta.title {
            if rank as i64 >= self.title_rank && !title.trim().is_empty() {
                self.title_rank = rank as i64;
                self.title = Some(title);
            }
        }
        if self.workspace.is_none() {
            self.workspace = meta.workspace.filter(|w| !w.is_empty());
        }
        self.fold_time(meta.created, meta.updated);
        self.hidden |= meta.hidden;
    }

    fn fold_time(&mut self, created: Option<i64>, updated: Option<i64>) {
        if let Some(c) = created {
            self.created = Some(self.created.map_or(c, |x| x.min(c)));
        }
        if let Some(u) = updated {
            self.updated = Some(self.updated.map_or(u, |x| x.max(u)));
        }
    }
}

struct NewMessage {
    key: String,
    message_id: String,
    role: Role,
    text: String,
    ts: Option<i64>,
}

/// Where the events of a pass go: a unit's row, the unit, the root it was found under,
/// and its file's mtime (the activity time of a session whose records have none).
pub(super) struct Target<'a> {
    pub(super) unit_id: i64,
    pub(super) unit: &'a Unit,
    pub(super) root: &'a str,
    pub(super) file_mtime_ms: i64,
}

/// Applies one pass of events to the session `key` of the target unit. `fresh` means the
/// session has no rows yet (a first or full read), which skips lookups.
pub(super) fn apply_session(
    tx: &Transaction,
    keeper: &mut Keeper,
    target: &Target,
    key: &str,
    events: Vec<Event>,
    fresh: bool,
) -> rusqlite::Result<()> {
    let (unit_id, unit, file_mtime_ms) = (target.unit_id, target.unit, target.file_mtime_ms);
    let mut row = if fresh { None } else { SessionRow::load(tx, unit_id, key)? };
    let had_row = row.is_some();
    let mut new: Vec<NewMessage> = Vec::new();
    let mut new_at: HashMap<String, usize> = HashMap::new();
    let mut calls: Vec<(String, String, i64)> = Vec::new();
    let mut calls_at: HashMap<String, usize> = HashMap::new();
    let mut touched_stored = false;
    let mut touches_session = had_row;

    for event in events {
        match event {
            Event::ExternalTitle { session_id, title } => {
                tx.prepare_cached("INSERT INTO external_title (source, session_id, title) VALUES (?1, ?2, ?3)
                     ON CONFLICT (source, session_id) DO UPDATE SET title = excluded.title")?
                    .execute(params![unit.source.as_str(), session_id, title.trim()])?;
            }
            Event::Meta(meta) => {
                touches_session = true;
                row.get_or_insert_with(SessionRow::default).apply_meta(meta);
            }
            Event::LeafSummary { leaf, title } => {
                let Some(session) = row.as_mut() else { continue };
                let mut known = new.iter().any(|m| m.message_id == leaf);
                if let (false, Some(id), false) = (known, session.id, fresh) {
                    known = tx
                        .prepare_cached("SELECT 1 FROM message WHERE session = ?1 AND message_id = ?2 LIMIT 1")?
                        .exists(params![id, leaf])?;
                }
                if known {
                    touches_session = true;
                    session.apply_meta(MetaEvent { title: Some((TitleRank::Summary, title)), ..Default::default() });
                }
            }
            Event::Message(m) => {
                touches_session = true;
                let session = row.get_or_insert_with(SessionRow::default);
                session.fold_time(m.timestamp, m.timestamp);
                if let Some(&i) = new_at.get(&m.key) {
                    let existing = &mut new[i];
                    m.merge_into(&mut existing.role, &mut existing.text, &mut existing.ts);
                    continue;
                }
                if let Some(id) = session.id.filter(|_| !fresh) {
                    let stored: Option<(i64, String, String, Option<i64>)> = tx
                        .prepare_cached("SELECT id, role, text, ts FROM message WHERE session = ?1 AND key = ?2")?
                        .query_row(params![id, m.key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                        .optional()?;
                    if let Some((message_row, role, mut text, mut ts)) = stored {
                        touched_stored = true;
                        let mut role = Role::parse(&role).unwrap_or(Role::User);
                        m.merge_into(&mut role, &mut text, &mut ts);
                        // A message without a time keeps sorting by its session's.
                        tx.prepare_cached(
                            "UPDATE message SET role = ?2, text = ?3, ts = ?4, sort_ts = coalesce(?4, sort_ts) WHERE id = ?1",
                        )?
                        .execute(params![message_row, role.as_str(), text, ts])?;
                        continue;
                    }
                }
                new_at.insert(m.key.clone(), new.len());
                new.push(NewMessage {
                    key: m.key,
                    message_id: m.message_id,
                    role: m.role,
                    text: m.text,
                    ts: m.timestamp,
                });
            }
            Event::ToolCall { key, name } => {
                touches_session = true;
                let session = row.get_or_insert_with(SessionRow::default);
                if let Some(&i) = calls_at.get(&key) {
                    calls[i].1 = name;
                    continue;
                }
                if let Some(id) = session.id.filter(|_| !fresh) {
                    let renamed = tx.prepare_cached("UPDATE tool_call SET name = ?3 WHERE session = ?1 AND key = ?2")?
                        .execute(params![id, key, name])?;
                    if renamed > 0 {
                        continue;
                    }
                }
                let after = session.message_count + new.len() as i64 - 1;
                calls_at.insert(key.clone(), calls.len());
                calls.push((key, name, after));
            }
            Event::Rewind { key } => {
                touches_session = true;
                if let Some(&i) = new_at.get(&key) {
                    new.truncate(i);
                    new_at.retain(|_, at| *at < i);
                    let position = row.as_ref().map_or(0, |s| s.message_count) + i as i64;
                    forget_calls_from(&mut calls, &mut calls_at, position);
                    continue;
                }
                let Some(session) = row.as_mut() else { continue };
                let Some(id) = session.id.filter(|_| !fresh) else { continue };
                let position: Option<i64> = tx
                    .query_row(
                        "SELECT idx FROM message WHERE session = ?1 AND key = ?2",
                        params![id, key],
                        |r| r.get(0),
                    )
                    .optional()?;
                if let Some(position) = position {
                    tx.prepare_cached("DELETE FROM message WHERE session = ?1 AND idx >= ?2")?
                        .execute(params![id, position])?;
                    tx.prepare_cached("DELETE FROM tool_call WHERE session = ?1 AND after_idx >= ?2")?.execute(params![id, position])?;
                    forget_calls_from(&mut calls, &mut calls_at, position);
                    session.message_count = position;
                    new.clear();
                    new_at.clear();
                    touched_stored = true;
                }
            }
        }
    }

    if !touches_session {
        return Ok(());
    }
    let mut session = row.unwrap_or_default();
    if session.session_id.is_none() {
        session.session_id = unit
            .session_hint
            .clone()
            .or_else(|| (!key.is_empty()).then(|| key.to_string()))
            .or_else(|| unit.path.file_stem().map(|s| s.to_string_lossy().into_owned()));
    }
    if session.workspace.is_none() {
        session.workspace = unit.workspace_hint.clone();
    }
    if session.updated.is_none() {
        session.updated = Some(file_mtime_ms);
    }
    if session.first_user.is_none() {
        session.first_user = new.iter().find(|m| m.role == Role::User).map(|m| m.text.clone());
    }

    if session.id.is_none() {
        // A session read for the first time: an archived copy of it is live again.
        let session_id = session.session_id.clone().unwrap_or_default();
        keeper.revive(tx, &SessionKey { root: target.root.to_string(), source: unit.source.as_str().into(), session_id })?;
    }
    let session_row = upsert_session(tx, unit_id, unit, key, &session)?;
    if had_row {
        // Messages without a time sort by the session's activity time, which may have moved.
        tx.prepare_cached(
            "UPDATE message SET sort_ts = ?2 WHERE session = ?1 AND ts IS NULL AND sort_ts IS NOT ?2")?
        .execute(params![session_row, session.updated])?;
    }
    let base = session.message_count;
    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO message (session, idx, key, message_id, role, text, ts, sort_ts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, coalesce(?7, ?8))",
        )?;
        for (i, m) in new.iter().enumerate() {
            insert.execute(params![
                session_row,
                base + i as i64,
                m.key,
                m.message_id,
                m.role.as_str(),
                m.text,
                m.ts,
                session.updated
            ])?;
        }
    }
    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO tool_call (session, key, after_idx, name) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (key, name, after) in &calls {
            insert.execute(params![session_row, key, after, name])?;
        }
    }
    let count = base + new.len() as i64;
    if touched_stored {
        // A merge or rewind may have changed the first user message.
        let first_user: Option<String> = tx
            .query_row(
                "SELECT text FROM message WHERE session = ?1 AND role = 'user' ORDER BY idx LIMIT 1",
                [session_row],
                |r| r.get(0),
            )
            .optional()?;
        let key = filter_key(session.title.as_deref().or(first_user.as_deref()), session.workspace.as_deref());
        tx.prepare_cached("UPDATE session SET message_count = ?2, first_user = ?3, filter_key = ?4 WHERE id = ?1")?
            .execute(params![session_row, count, first_user, key])?;
    } else {
        tx.prepare_cached("UPDATE session SET message_count = ?2 WHERE id = ?1")?
            .execute(params![session_row, count])?;
    }
    Ok(())
}

/// What the list filter searches: the title (else the first user message) and the
/// workspace, folded as every search folds ([`crate::text::fold`]; Unicode, unlike
/// SQLite's `lower`).
pub(super) fn filter_key(title: Option<&str>, workspace: Option<&str>) -> String {
    crate::text::fold(&format!("{}\n{}", title.unwrap_or(""), workspace.unwrap_or(""))).into_owned()
}

fn upsert_session(
    tx: &Transaction,
    unit_id: i64,
    unit: &Unit,
    key: &str,
    s: &SessionRow) -> rusqlite::Result<i64> {
    let title_rank = if s.title.is_some() { s.title_rank } else { 0 };
    let filter = filter_key(s.title.as_deref().or(s.first_user.as_deref()), s.workspace.as_deref());
    debug_assert!(title_rank <= TitleRank::Custom as i64);
    match s.id {
        Some(id) => {
            tx.prepare_cached("UPDATE session SET session_id = ?2, title = ?3, title_rank = ?4, workspace = ?5,
                     created = ?6, updated = ?7, hidden = ?8, first_user = ?9, filter_key = ?10
                 WHERE id = ?1")?
                .execute(params![
                    id,
                    s.session_id,
                    s.title,
                    title_rank,
                    s.workspace,
                    s.created,
                    s.updated,
                    s.hidden,
                    s.first_user,
                    filter
                ])?;
            Ok(id)
        }
        None => {
            tx.prepare_cached("INSERT INTO session (unit_id, key, source, session_id, title, title_rank, workspace,
                     created, updated, hidden, first_user, filter_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)")?
                .execute(params![
                    unit_id,
                    key,
                    unit.source.as_str(),
                    s.session_id,
                    s.title,
                    title_rank,
                    s.workspace,
                    s.created,
                    s.updated,
                    s.hidden,
                    s.first_user,
                    filter
                ])?;
            Ok(tx.last_insert_rowid())
        }
    }
}

/// Drops the calls of this pass that followed message `position` or a later one.
fn forget_calls_from(calls: &mut Vec<(String, String, i64)>, at: &mut HashMap<String, usize>, position: i64) {
    calls.retain(|(_, _, after)| *after < position);
    *at = calls.iter().enumerate().map(|(i, (key, _, _))| (key.clone(), i)).collect();
}

/// Removes one session of a unit with its messages and tool calls (before it is read
/// again, or when its unit no longer holds it).
pub(super) fn clear_session(tx: &Transaction, unit_id: i64, key: &str) -> rusqlite::Result<()> {
    let Some(session) = tx
        .query_row("SELECT id FROM session WHERE unit_id = ?1 AND key = ?2", params![unit_id, key], |r| {
            r.get::<_, i64>(0)
        })
        .optional()?
    else {
        return Ok(());
    };
    tx.prepare_cached("DELETE FROM tool_call WHERE session = ?1")?
        .execute([session])?;
    tx.prepare_cached("DELETE FROM message WHERE session = ?1")?.execute([session])?;
    tx.prepare_cached("DELETE FROM session WHERE id = ?1")?.execute([session])?;
    Ok(())
}

/// Removes a unit's sessions and messages (before a full read, or when the file is gone).
pub(super) fn clear_unit(tx: &Transaction, unit_id: i64) -> rusqlite::Result<()> {
    tx.prepare_cached("DELETE FROM tool_call WHERE session IN (SELECT id FROM session WHERE unit_id = ?1)")?.execute([unit_id])?;
    tx.prepare_cached("DELETE FROM message WHERE session IN (SELECT id FROM session WHERE unit_id = ?1)")?
        .execute([unit_id])?;
    tx.prepare_cached("DELETE FROM session WHERE unit_id = ?1")?.execute([unit_id])?;
    Ok(())
}
