//! The SQLite store of opencode 1.2+ (`opencode.db`, `opencode-<channel>.db`).
//!
//! The database is opened read-only (`mode=ro`, `query_only`; `immutable=1` when no `-wal`
//! exists, see [`open`]), never written, and read inside one read transaction so every
//! table comes from the same snapshot. It is live and in WAL mode: recent rows may sit only
//! in `-wal`, which SQLite reads through the `-shm` index that opencode keeps; the unit's
//! fingerprint follows the `-wal` file because the main file does not change until a
//! checkpoint.
//!
//! One query per table, never one per session or message:
//!
//! * sessions: `session` (1.x columns `id, parent_id, directory, title, time_created,
//!   time_updated, …`);
//! * 1.x messages: `message(id, session_id, time_created, time_updated, data)` with the
//!   message JSON (minus `id`/`sessionID`) in `data`, and `part(id, message_id, session_id,
//!   time_created, time_updated, data)` with the part JSON in `data`; only parts that can be
//!   text or compaction markers are fetched.
//!
//! **2.x (best effort, not source-verified).** opencode 2.x is reported to add event-sourced
//! tables `session_v2` and `session_message(id, session_id, type, [seq,] [time_created,]
//! data)` while the 1.x tables are frozen and may hold migrated copies. Assumptions:
//! sessions come from `session_v2` when it exists and has rows (columns named as in
//! `session`, or the same fields in a `data` JSON column), else from `session`; a session
//! with any `session_message` row is read only from `session_message` (never also from
//! `message`/`part`, so a migrated copy is never read twice), and a session without one from
//! `message`/`part`. A `session_message` row's type is its `type` column or `data.type`:
//! `user` carries `data.text`; `assistant` carries `data.content[]` whose non-synthetic,
//! non-ignored `{type:"text"}` items are its text; every other type (synthetic, shell,
//! compaction, agent/model switches) is not a message. Time is `data.time.created`, else
//! the `time_created` column; ties break on `seq`, then id.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row};
use serde::Deserialize;

use crate::jsonl::parse_line_as;
use crate::model::Role;
use crate::source::{WholeRead, WholeSession};
use crate::text::{join_text, time_value};

use crate::sources::sqlite::{bytes_at, io_err, open, text_at, Columns};

use super::{
    session_events, v1_message, MessageData, Msg, PartData, PartsSummary,
    SessionFacts,
};

/// Reads every session of one database.
pub(super) fn read(path: &Path) -> std::io::Result<Vec<WholeSession>> {
    Ok(read_db(path, None).map_err(io_err)?.sessions)
}

/// Reads the sessions with a row written at or after `since` (ms; every session when
/// `None`), the id of every session the database holds, and the mark to read from next
/// time.
///
/// opencode stamps `time_updated` on every session, message and part row it writes, so
/// a new or changed message shows in its rows; a session it deletes disappears from
/// `present`. Messages it deletes without touching their session (none known) would stay
/// until the next full read. The boundary millisecond is read again (`>=`), so rows written
/// in the same millisecond as the last read are never missed. 2.x databases are read
/// whole.
pub(super) fn read_since(path: &Path, since: Option<i64>) -> std::io::Result<WholeRead> {
    read_db(path, since).map_err(io_err)
}

/// Per stamped table: which session a row belongs to, and its latest stamp. Constant
/// statements (identifiers cannot be bound); the mark is bound.
const STAMPED: [(&str, &str, &str); 3] = [
    (
        "session",
        "SELECT id, max(time_updated) FROM session WHERE time_updated >= ?1 GROUP BY id",
        "SELECT max(time_updated) FROM session",
    ),
    (
        "message",
        "SELECT session_id, max(time_updated) FROM message WHERE time_updated >= ?1 GROUP BY session_id",
        "SELECT max(time_updated) FROM message",
    ),
    (
        "part",
        "SELECT session_id, max(time_updated) FROM part WHERE time_updated >= ?1 GROUP BY session_id",
        "SELECT max(time_updated) FROM part",
    ),
];

/// Sessions with a row stamped at or after `since`, and the latest stamp seen.
fn changed_since(conn: &Connection, tables: &HashSet<String>, since: i64) -> rusqlite::Result<(HashSet<String>, i64)> {
    let mut changed = HashSet::new();
    let mut mark = since;
    for (table, changed_sql, _) in STAMPED {
        if !tables.contains(table) {
            continue;
        }
        let mut stmt = conn.prepare(changed_sql)?;
        let mut rows = stmt.query([since])?;
        while let Some(row) = rows.next()? {
            if let Some(id) = text_at(row, Some(0)) {
                changed.insert(id);
            }
            mark = mark.max(int_at(row, Some(1)).unwrap_or(since));
        }
    }
    Ok((changed, mark))
}

/// The latest `time_updated` of any session, message or part row.
fn latest_stamp(conn: &Connection, tables: &HashSet<String>) -> rusqlite::Result<Option<i64>> {
    let mut latest: Option<i64> = None;
    for (table, _, latest_sql) in STAMPED {
        if tables.contains(table) {
            let stamp: Option<i64> = conn.query_row(latest_sql, [], |r| r.get(0))?;
            latest = latest.max(stamp);
        }
    }
    Ok(latest)
}

fn read_db(path: &Path, since: Option<i64>) -> rusqlite::Result<WholeRead> {
    let conn = open(path)?;
    // One snapshot for all queries; dropped (rolled back) at the end, nothing was written.
    let _snapshot = conn.unchecked_transaction()?;
    let tables: HashSet<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<_>>()?;
    let has_rows = |table: &str| -> rusqlite::Result<bool> {
        if !tables.contains(table) {
            return Ok(false);
        }
        conn.query_row(
            &format!("SELECT EXISTS (SELECT 1 FROM \"{table}\")"),
            [],
            |r| r.get(0),
        )
    };
    let session_table = if has_rows("session_v2")? {
        "session_v2"
    } else if tables.contains("session") {
        "session"
    } else {
        // No sessions yet (a database being created, or emptied).
        return Ok(WholeRead { present: Some(Vec::new()), ..WholeRead::default() });
    };
    let v2 = session_table == "session_v2" || has_rows("session_message")?;
    let sessions = read_sessions(&conn, session_table)?;
    // 1.x only: the rows' stamps say which sessions changed.
    let stamped = !v2 && ["session", "message", "part"].iter().all(|t| tables.contains(*t));
    let (only, mark) = match (since, stamped) {
        (Some(since), true) => {
            let (changed, mark) = changed_since(&conn, &tables, since)?;
            (Some(changed), Some(mark))
        }
        (None, true) => (None, latest_stamp(&conn, &tables)?),
        (_, false) => (None, None),
    };
    // Every session the database holds, read or not: one missing was deleted.
    let present = Some(sessions.iter().map(|s| s.id.clone()).collect());
    let sessions: Vec<SessionFacts> = match &only {
        Some(changed) => sessions.into_iter().filter(|s| changed.contains(&s.id)).collect(),
        None => sessions,
    };
    if sessions.is_empty() {
        return Ok(WholeRead { sessions: Vec::new(), present, mark });
    }

    let mut messages: HashMap<String, Vec<Msg>> = HashMap::new();
    let mut v2_sessions: HashSet<String> = HashSet::new();
    if has_rows("session_message")? {
        read_v2_messages(&conn, &mut messages, &mut v2_sessions)?;
    }
    if tables.contains("message")
        && tables.contains("part")
        && sessions.iter().any(|s| !v2_sessions.contains(&s.id))
    {
        let only: Option<Vec<&str>> = only.as_ref().map(|_| sessions.iter().map(|s| s.id.as_str()).collect());
        read_v1_messages(&conn, &v2_sessions, only.as_deref(), &mut messages)?;
    }

    let sessions = sessions
        .into_iter()
        .map(|facts| {
            let msgs = messages.remove(&facts.id).unwrap_or_default();
            session_events(facts, msgs)
        })
        .collect();
    Ok(WholeRead { sessions, present, mark })
}

fn int_at(row: &Row<'_>, i: Option<usize>) -> Option<i64> {
    match row.get_ref(i?).ok()? {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Real(f) => Some(f as i64),
        ValueRef::Text(b) => time_value(&serde_json::Value::String(
            String::from_utf8_lossy(b).into_owned(),
        )),
        _ => None,
    }
}

fn json_at<T: serde::de::DeserializeOwned>(row: &Row<'_>, i: Option<usize>) -> Option<T> {
    parse_line_as(bytes_at(row, i)?)
}

/// Reads sessions from `session` (or `session_v2`), by column name, falling back to a
/// `data` JSON column for fields that have no column.
fn read_sessions(conn: &Connection, table: &str) -> rusqlite::Result<Vec<SessionFacts>> {
    let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\""))?;
    let cols = Columns::of(&stmt);
    let id = cols.find("id");
    let title = cols.find("title");
    let directory = cols.find("directory");
    let parent = cols.find_any(&["parent_id", "parentid"]);
    let created = cols.find("time_created");
    let updated = cols.find("time_updated");
    let data = cols.find("data");
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let json: Option<serde_json::Value> = json_at(row, data);
        let j_str = |k: &str| {
            json.as_ref()
                .and_then(|j| j.get(k))
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        let j_time = |k: &str| {
            json.as_ref()
                .and_then(|j| j.get("time"))
                .and_then(|t| t.get(k))
                .and_then(time_value)
        };
        let Some(session_id) = text_at(row, id)
            .or_else(|| j_str("id"))
            .filter(|s| !s.is_empty())
        else {
            continue;
        };
        out.push(SessionFacts {
            id: session_id,
            title: text_at(row, title).or_else(|| j_str("title")),
            directory: text_at(row, directory).or_else(|| j_str("directory")),
            parent_id: text_at(row, parent).or_else(|| j_str("parentID")),
            created: j_time("created").or_else(|| int_at(row, created)),
            updated: j_time("updated").or_else(|| int_at(row, updated)),
        });
    }
    Ok(out)
}

/// 1.x: one query for messages, one for the parts that may hold text (of the sessions
/// `only` when given).
fn read_v1_messages(
    conn: &Connection,
    skip_sessions: &HashSet<String>,
    only: Option<&[&str]>,
    out: &mut HashMap<String, Vec<Msg>>,
) -> rusqlite::Result<()> {
    // The sessions as one bound JSON array (the connection is read-only: no temp table).
    let only_json = only.map(|ids| serde_json::to_string(ids).unwrap_or_else(|_| "[]".into()));
    let filter = if only_json.is_some() {
        " AND session_id IN (SELECT value FROM json_each(?1))"
    } else {
        ""
    };
    let args: Vec<&str> = only_json.as_deref().into_iter().collect();
    // `"text"` occurs in every text part (key and type), `"compaction"` in every compaction
    // part; the JSON decides, this only spares fetching tool output and file contents.
    let mut parts: HashMap<String, PartsSummary> = HashMap::new();
    let mut stmt = conn.prepare(&format!(
        "SELECT message_id, data FROM part \
         WHERE (instr(data, '\"text\"') > 0 OR instr(data, '\"compaction\"') > 0){filter} \
         ORDER BY message_id, id"
    ))?;
    let mut rows = stmt.query(rusqlite::params_from_iter(&args))?;
    while let Some(row) = rows.next()? {
        let (Some(message_id), Some(part)) =
            (text_at(row, Some(0)), json_at::<PartData>(row, Some(1)))
        else {
            continue;
        };
        parts.entry(message_id).or_default().add(&part);
    }

    // Tool parts: only the call id and the tool's name, extracted by SQLite, so their
    // (large) input and output never reach Rust.
    let mut stmt = conn.prepare(&format!(
        "SELECT message_id, json_extract(data, '$.callID'), json_extract(data, '$.tool') FROM part \
         WHERE instr(data, '\"tool\"') > 0 AND json_valid(data) AND json_extract(data, '$.type') = 'tool'{filter} \
         ORDER BY message_id, id"
    ))?;
    let mut rows = stmt.query(rusqlite::params_from_iter(&args))?;
    while let Some(row) = rows.next()? {
        let Some(message_id) = text_at(row, Some(0)) else { continue };
        parts.entry(message_id).or_default().add_tool(text_at(row, Some(1)), text_at(row, Some(2)));
    }

    let mut stmt = conn.prepare(if only_json.is_some() {
        "SELECT id, session_id, time_created, data FROM message WHERE session_id IN (SELECT value FROM json_each(?1))"
    } else {
        "SELECT id, session_id, time_created, data FROM message"
    })?;
    let mut rows = stmt.query(rusqlite::params_from_iter(&args))?;
    while let Some(row) = rows.next()? {
        let (Some(id), Some(session_id)) = (text_at(row, Some(0)), text_at(row, Some(1))) else {
            continue;
        };
        if skip_sessions.contains(&session_id) {
            continue;
        }
        let Some(data) = json_at::<MessageData>(row, Some(3)) else {
            continue;
        };
        if let Some(msg) = v1_message(id.clone(), &data, int_at(row, Some(2)), parts.get(&id)) {
            out.entry(session_id).or_default().push(msg);
        }
    }
    Ok(())
}

/// The fields of a 2.x `session_message.data` that matter here.
#[derive(Debug, Default, Deserialize)]
struct V2Data {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    text: Option<serde_json::Value>,
    #[serde(default)]
    content: Option<Vec<PartData>>,
    #[serde(default)]
    time: Option<super::Times>,
    #[serde(default)]
    seq: Option<serde_json::Value>,
}

/// 2.x (best effort): one query over `session_message`.
fn read_v2_messages(
    conn: &Connection,
    out: &mut HashMap<String, Vec<Msg>>,
    v2_sessions: &mut HashSet<String>,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare("SELECT * FROM session_message")?;
    let cols = Columns::of(&stmt);
    let (id, session, kind, seq, created, data) = (
        cols.find("id"),
        cols.find_any(&["session_id", "sessionid"]),
        cols.find("type"),
        cols.find("seq"),
        cols.find("time_created"),
        cols.find("data"),
    );
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let (Some(id), Some(session_id)) = (text_at(row, id), text_at(row, session)) else {
            continue;
        };
        v2_sessions.insert(session_id.clone());
        let data: V2Data = json_at(row, data).unwrap_or_default();
        let role = match text_at(row, kind).or(data.kind.clone()).as_deref() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => continue,
        };
        let text = match role {
            Role::User => match &data.text {
                Some(serde_json::Value::String(t)) => join_text([t.as_str()]),
                _ => None,
            },
            Role::Assistant => {
                let mut parts = PartsSummary::default();
                for item in data.content.iter().flatten() {
                    parts.add(item);
                }
                join_text(parts.texts.iter().map(String::as_str))
            }
        };
        let Some(text) = text else { continue };
        let text = Some(text);
        let msg_created = data
            .time
            .as_ref()
            .and_then(|t| t.created.as_ref())
            .and_then(time_value)
            .or_else(|| int_at(row, created));
        let msg_seq = int_at(row, seq)
            .or_else(|| data.seq.as_ref().and_then(time_value))
            .unwrap_or(0);
        out.entry(session_id).or_default().push(Msg {
            id,
            role,
            created: msg_created,
            seq: msg_seq,
            text,
            tools: Vec::new(),
        });
    }
    Ok(())
}
