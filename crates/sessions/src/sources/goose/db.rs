//! `sessions.db`, goose's store since 1.10 (read from `crates/goose/src/session/session_manager.rs`
//! at aaif-goose/goose 017176d, schema version 17, and its migrations back to version 1).
//!
//! * `sessions(id, name, description, user_set_name, session_type, working_dir, created_at,
//!   updated_at, parent_session_id, …)`: `id` is `YYYYMMDD_<n>` (the legacy import keeps the
//!   old file names); `name` is the title (`description` before schema 4); the times are
//!   SQLite `TIMESTAMP` text in UTC (`2026-03-01 10:00:00`, or RFC 3339 from the legacy
//!   import). `session_type` is `user`, `scheduled`, `sub_agent`, `hidden`, `terminal`,
//!   `gateway` or `acp`: sub-agents (which also name their `parent_session_id`) and hidden
//!   sessions (`goose run --no-session`, internal runs) are read as hidden; the others are
//!   the person's conversations, whichever door they came through.
//! * `messages(id INTEGER PRIMARY KEY AUTOINCREMENT, message_id, session_id, role,
//!   content_json, created_timestamp, metadata_json, …)`: one row per message in the
//!   layout of `content.rs`; `created_timestamp` in seconds; `message_id` (since schema 7;
//!   goose then named old rows `msg_<session>_<id>`, which is the id cited for rows without
//!   one) is the id to cite. goose orders a conversation by `(created_timestamp, id)`.
//!
//! Read in one read transaction (one snapshot), one query per table. A session without any
//! message row (just started) is not listed. Not read: `usage_ledger`, the provider
//! inventory, and the `threads`/`thread_messages` tables of an experimental desktop mode
//! (their messages are copies of the sessions' own).
//!
//! **Changes only.** goose adds each message in one transaction that also stamps its
//! session's `updated_at`, and stamps it again on a rename or a usage update; message row
//! ids only grow. The mark packs the largest message row id and the latest `updated_at`
//! (whole seconds): a read after it takes the sessions stamped in or after that second and
//! those with a newer message row. Rows goose deletes without a new row or a new stamp
//! (rewinding a conversation without sending anything after it) stay until the next full
//! read.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rusqlite::Connection;

use crate::events::{Event, MetaEvent};
use crate::jsonl::parse_line_as;
use crate::source::{WholeRead, WholeSession};
use crate::sources::lenient::List;

use super::content::{title, Item, Msg, Visibility};
use crate::sources::sqlite::{self, bool_at, bytes_at, epoch_ms, int_at, text_at, Columns};
use super::parse_stamp;

/// Reads the sessions changed since `since` (every session when `None`).
pub(super) fn read(path: &Path, since: Option<i64>) -> std::io::Result<WholeRead> {
    read_db(path, since).map_err(sqlite::io_err)
}

/// One `sessions` row.
#[derive(Debug)]
struct SessionRow {
    id: String,
    name: Option<String>,
    user_set_name: bool,
    session_type: Option<String>,
    working_dir: Option<String>,
    created: Option<i64>,
    updated: Option<i64>,
    parent: Option<String>,
}

impl SessionRow {
    fn hidden(&self) -> bool {
        matches!(self.session_type.as_deref(), Some("sub_agent" | "hidden"))
            || self.parent.as_deref().is_some_and(|p| !p.trim().is_empty())
    }
}

/// `(largest message row id, latest session stamp in seconds)` as one mark.
fn pack(max_id: i64, secs: i64) -> Option<i64> {
    ((0..1 << 31).contains(&max_id) && (0..1 << 32).contains(&secs)).then_some((max_id << 32) | secs)
}

fn unpack(mark: i64) -> Option<(i64, i64)> {
    (mark >= 0).then_some((mark >> 32, mark & 0xFFFF_FFFF))
}

fn read_db(path: &Path, since: Option<i64>) -> rusqlite::Result<WholeRead> {
    let conn = sqlite::open(path)?;
    // One snapshot for all queries; dropped (rolled back) at the end, nothing was written.
    let _snapshot = conn.unchecked_transaction()?;
    let tables = sqlite::tables(&conn)?;
    if !["sessions", "messages"].iter().all(|t| tables.iter().any(|n| n == t)) {
        // A database being created (or a zero-byte file): no sessions yet.
        return Ok(WholeRead { present: Some(Vec::new()), ..WholeRead::default() });
    }
    let sessions = read_sessions(&conn)?;
    let with_messages = session_ids(&conn, "SELECT DISTINCT session_id FROM messages", None)?;
    let max_id: i64 = conn.query_row("SELECT coalesce(max(id), 0) FROM messages", [], |r| r.get(0))?;
    let latest = sessions.iter().filter_map(|s| s.updated).max().unwrap_or(0).div_euclid(1000);
    let mark = pack(max_id, latest);

    let sessions: Vec<SessionRow> = sessions.into_iter().filter(|s| with_messages.contains(&s.id)).collect();
    let present = Some(sessions.iter().map(|s| s.id.clone()).collect());
    let changed: Option<HashSet<String>> = match since.and_then(unpack) {
        Some((since_id, since_secs)) => {
            let mut changed = session_ids(&conn, "SELECT DISTINCT session_id FROM messages WHERE id > ?1", Some(since_id))?;
            changed.extend(
                sessions
                    .iter()
                    .filter(|s| s.updated.is_some_and(|u| u.div_euclid(1000) >= since_secs))
                    .map(|s| s.id.clone()),
            );
            Some(changed)
        }
        None => None,
    };
    let sessions: Vec<SessionRow> = match &changed {
        Some(changed) => sessions.into_iter().filter(|s| changed.contains(&s.id)).collect(),
        None => sessions,
    };
    if sessions.is_empty() {
        return Ok(WholeRead { sessions: Vec::new(), present, mark });
    }
    let only: Option<Vec<&str>> = changed.as_ref().map(|_| sessions.iter().map(|s| s.id.as_str()).collect());
    let mut messages = read_messages(&conn, only.as_deref())?;
    let sessions = sessions
        .into_iter()
        .map(|s| {
            let msgs = messages.remove(&s.id).unwrap_or_default();
            session_events(s, msgs)
        })
        .collect();
    Ok(WholeRead { sessions, present, mark })
}

/// The first column of a query's rows, as text.
fn session_ids(conn: &Connection, sql: &str, arg: Option<i64>) -> rusqlite::Result<HashSet<String>> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(arg))?;
    let mut out = HashSet::new();
    while let Some(row) = rows.next()? {
        out.extend(text_at(row, Some(0)));
    }
    Ok(out)
}

/// Every session row, by column name (older schemas lack some columns).
fn read_sessions(conn: &Connection) -> rusqlite::Result<Vec<SessionRow>> {
    let mut stmt = conn.prepare("SELECT * FROM sessions")?;
    let cols = Columns::of(&stmt);
    let (id, name, description, user_set, kind, dir, created, updated, parent) = (
        cols.find("id"),
        cols.find("name"),
        cols.find("description"),
        cols.find("user_set_name"),
        cols.find("session_type"),
        cols.find("working_dir"),
        cols.find("created_at"),
        cols.find("updated_at"),
        cols.find("parent_session_id"),
    );
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let Some(session_id) = text_at(row, id).filter(|s| !s.is_empty()) else { continue };
        let name = text_at(row, name).filter(|n| !n.trim().is_empty()).or_else(|| text_at(row, description));
        out.push(SessionRow {
            id: session_id,
            name,
            user_set_name: bool_at(row, user_set),
            session_type: text_at(row, kind),
            working_dir: text_at(row, dir).filter(|d| !d.trim().is_empty()),
            created: parse_stamp(row, created),
            updated: parse_stamp(row, updated),
            parent: text_at(row, parent),
        });
    }
    Ok(out)
}

/// The messages of the sessions `only` (every session when `None`), by session, each in
/// goose's order.
fn read_messages(conn: &Connection, only: Option<&[&str]>) -> rusqlite::Result<HashMap<String, Vec<Msg>>> {
    let have = sqlite::columns(conn, "messages")?;
    let optional = |c: &'static str| if have.iter().any(|h| h == c) { c } else { "NULL" };
    let filter = if only.is_some() { " WHERE session_id IN (SELECT value FROM json_each(?1))" } else { "" };
    let sql = format!(
        "SELECT id, {}, session_id, role, content_json, created_timestamp, {} FROM messages{filter}",
        optional("message_id"),
        optional("metadata_json"),
    );
    let mut stmt = conn.prepare(&sql)?;
    let args: Vec<String> = only.map(|ids| serde_json::to_string(ids).unwrap_or_default()).into_iter().collect();
    let mut rows = stmt.query(rusqlite::params_from_iter(&args))?;
    let mut out: HashMap<String, Vec<(i64, i64, Msg)>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let (Some(row_id), Some(session_id)) = (int_at(row, Some(0)), text_at(row, Some(2))) else { continue };
        let Some(role) = text_at(row, Some(3)) else { continue };
        // Content that is not JSON (cut, or garbage) is no message; the rest still is.
        let Some(content) = bytes_at(row, Some(4)).and_then(parse_line_as::<List<Item>>) else { continue };
        let visibility: Visibility = bytes_at(row, Some(6)).and_then(parse_line_as).unwrap_or_default();
        let created = int_at(row, Some(5));
        let message_id = text_at(row, Some(1))
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| format!("msg_{session_id}_{row_id}"));
        if let Some(msg) = Msg::new(row_id.to_string(), message_id, &role, created.map(epoch_ms), &content, &visibility) {
            out.entry(session_id).or_default().push((created.map_or(0, epoch_ms), row_id, msg));
        }
    }
    Ok(out
        .into_iter()
        .map(|(session, mut msgs)| {
            msgs.sort_by_key(|(created, row, _)| (*created, *row));
            (session, msgs.into_iter().map(|(_, _, m)| m).collect())
        })
        .collect())
}

/// The events of one session: its facts, then its messages in order.
fn session_events(s: SessionRow, msgs: Vec<Msg>) -> WholeSession {
    let mut events = Vec::with_capacity(msgs.len() + 1);
    events.push(Event::Meta(MetaEvent {
        session_id: Some(s.id.clone()),
        title: title(s.name.clone(), s.user_set_name),
        workspace: s.working_dir.clone(),
        created: s.created,
        updated: s.updated,
        hidden: s.hidden(),
    }));
    for msg in msgs {
        msg.events(&mut events);
    }
    WholeSession { key: s.id, events }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_pack_and_unpack() {
        let mark = pack(123_456, 1_772_359_260).unwrap();
        assert_eq!(unpack(mark), Some((123_456, 1_772_359_260)));
        assert_eq!(pack(0, 0), Some(0));
        assert_eq!(pack(1 << 31, 5), None);
        assert_eq!(pack(5, -1), None);
        assert_eq!(unpack(-1), None);
    }
}
