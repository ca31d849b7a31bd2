//! `crush.db`, one project's sessions (schema of `internal/db/migrations/` and queries of
//! `internal/db/sql/` at charmbracelet/crush 37f36e9, v0.90; the same tables since its
//! first release, columns added since are looked up by name).
//!
//! * `sessions(id, parent_session_id, title, message_count, …, summary_message_id,
//!   updated_at, created_at, todos)`: ids are UUIDs; a session with a parent is a child the
//!   person did not start (a sub-agent run, keyed by its tool call; the title run
//!   `title-<parent>`) and is read as hidden. The title is Crush's generated one (the
//!   person may rename it; nothing tells which); `Untitled Session` and `New Session` are
//!   placeholders, not titles. Times are epoch seconds (`strftime('%s','now')`; the schema's
//!   comments say milliseconds, so both are accepted).
//! * `messages(id, session_id, role, parts, model, created_at, updated_at, finished_at,
//!   provider, is_summary_message)`: `parts` is a JSON array of `{type, data}` (`internal/
//!   message/content.go`): `text {text}`, `reasoning {thinking}`, `tool_call {id, name,
//!   input}`, `tool_result {tool_call_id, content}`, `binary {Path, MIMEType, Data}` (an
//!   attachment), `image_url`, `finish {reason, time}`, `shell_command {command, output,
//!   exit_code}`. Roles: `user`, `assistant`, `tool` (tool results), `system`.
//!
//! Messages read: the person's (`user`: its text parts, and a bang-mode shell command as
//! `!<command>`, which is how Crush's own prompt history recalls it) and the agent's
//! (`assistant`: its text parts; each tool call is an [`Event::ToolCall`]). Not read:
//! reasoning, tool results (`tool` messages), attachments' bytes, and the summary a
//! compaction writes (`is_summary_message`, or the session's `summary_message_id` in
//! versions before that column): the messages before it stay in the database and are
//! read as the person saw them. Messages are ordered by `created_at`, then row order, as
//! Crush lists them. A session without any message is not listed.
//!
//! **Changes only.** Every write to a session row stamps its `updated_at` (a trigger), and
//! adding or deleting a message updates the session's `message_count`, so each new or
//! deleted message stamps its session. Crush then streams an answer into its message row
//! (`UpdateMessage`) without stamping the session, and stamps the session again when a step
//! ends (usage and cost) just before the last update of the message. So a read after a mark
//! (the latest session stamp, in ms) takes the sessions stamped up to [`SLACK_MS`] before
//! it: a streamed answer is read whole once its step ends, the moments it is streaming
//! may be missed.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rusqlite::Connection;
use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::jsonl::parse_line_as;
use crate::model::Role;
use crate::source::{WholeRead, WholeSession};
use crate::sources::sqlite::{self, bool_at, bytes_at, epoch_ms, int_at, text_at, Columns};
use crate::sources::lenient::{List, Obj, Scalar};

/// How far before the last read's latest stamp a session is read again (see the module docs).
const SLACK_MS: i64 = 10_000;

/// The titles Crush gives a session until it has one.
const PLACEHOLDER_TITLES: [&str; 2] = ["Untitled Session", "New Session"];

/// Reads the sessions changed since `since` (every session when `None`).
pub(super) fn read(path: &Path, since: Option<i64>) -> std::io::Result<WholeRead> {
    read_db(path, since).map_err(sqlite::io_err)
}

/// One `sessions` row.
struct SessionRow {
    id: String,
    parent: Option<String>,
    title: Option<String>,
    summary_message_id: Option<String>,
    created: Option<i64>,
    updated: Option<i64>,
}

/// One message part; tool input and output, file bytes and reasoning are skipped unbuilt.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Part {
    #[serde(rename = "type")]
    ty: Scalar,
    data: Obj<PartData>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PartData {
    text: Scalar,
    id: Scalar,
    name: Scalar,
    command: Scalar,
}

/// One message, before ordering.
struct Msg {
    id: String,
    role: Role,
    created: Option<i64>,
    row: i64,
    text: Option<String>,
    tools: Vec<(String, String)>,
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
    let mut with_messages = HashSet::new();
    {
        let mut stmt = conn.prepare("SELECT DISTINCT session_id FROM messages")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            with_messages.extend(text_at(row, Some(0)));
        }
    }
    let mark = sessions.iter().filter_map(|s| s.updated).max().or(Some(0));
    let sessions: Vec<SessionRow> = sessions.into_iter().filter(|s| with_messages.contains(&s.id)).collect();
    let present = Some(sessions.iter().map(|s| s.id.clone()).collect());
    let sessions: Vec<SessionRow> = match since {
        Some(since) => sessions.into_iter().filter(|s| s.updated.is_some_and(|u| u >= since - SLACK_MS)).collect(),
        None => sessions,
    };
    if sessions.is_empty() {
        return Ok(WholeRead { sessions: Vec::new(), present, mark });
    }
    let only: Option<Vec<&str>> = since.map(|_| sessions.iter().map(|s| s.id.as_str()).collect());
    let summaries: HashSet<&str> = sessions.iter().filter_map(|s| s.summary_message_id.as_deref()).collect();
    let mut messages = read_messages(&conn, only.as_deref(), &summaries)?;
    let sessions = sessions
        .into_iter()
        .map(|s| {
            let msgs = messages.remove(&s.id).unwrap_or_default();
            session_events(s, msgs)
        })
        .collect();
    Ok(WholeRead { sessions, present, mark })
}

/// Every session row, by column name.
fn read_sessions(conn: &Connection) -> rusqlite::Result<Vec<SessionRow>> {
    let mut stmt = conn.prepare("SELECT * FROM sessions")?;
    let cols = Columns::of(&stmt);
    let (id, parent, title, summary, created, updated) = (
        cols.find("id"),
        cols.find("parent_session_id"),
        cols.find("title"),
        cols.find("summary_message_id"),
        cols.find("created_at"),
        cols.find("updated_at"),
    );
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let Some(session_id) = text_at(row, id).filter(|s| !s.is_empty()) else { continue };
        out.push(SessionRow {
            id: session_id,
            parent: text_at(row, parent).filter(|p| !p.trim().is_empty()),
            title: text_at(row, title),
            summary_message_id: text_at(row, summary).filter(|s| !s.is_empty()),
            created: int_at(row, created).map(epoch_ms),
            updated: int_at(row, updated).map(epoch_ms),
        });
    }
    Ok(out)
}

/// The messages of the sessions `only` (every session when `None`), by session, in order.
fn read_messages(conn: &Connection, only: Option<&[&str]>, summaries: &HashSet<&str>) -> rusqlite::Result<HashMap<String, Vec<Msg>>> {
    let have = sqlite::columns(conn, "messages")?;
    let summary_column = if have.iter().any(|c| c == "is_summary_message") { "is_summary_message" } else { "0" };
    let filter = if only.is_some() { " WHERE session_id IN (SELECT value FROM json_each(?1))" } else { "" };
    let sql = format!("SELECT rowid, id, session_id, role, parts, created_at, {summary_column} FROM messages{filter}");
    let mut stmt = conn.prepare(&sql)?;
    let args: Vec<String> = only.map(|ids| serde_json::to_string(ids).unwrap_or_default()).into_iter().collect();
    let mut rows = stmt.query(rusqlite::params_from_iter(&args))?;
    let mut out: HashMap<String, Vec<Msg>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let (Some(row_id), Some(id), Some(session_id)) = (int_at(row, Some(0)), text_at(row, Some(1)), text_at(row, Some(2))) else {
            continue;
        };
        if bool_at(row, Some(6)) || summaries.contains(id.as_str()) {
            continue;
        }
        let role = match text_at(row, Some(3)).as_deref() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => continue,
        };
        // Parts that are not JSON (cut, or garbage) are no message; the rest still are.
        let Some(parts) = bytes_at(row, Some(4)).and_then(parse_line_as::<List<Part>>) else { continue };
        let mut texts: Vec<String> = Vec::new();
        let mut tools = Vec::new();
        for part in parts.0.iter().filter_map(|p| p.0.as_ref()) {
            let Some(data) = part.data.0.as_ref() else { continue };
            match (part.ty.as_str(), role) {
                (Some("text"), _) => texts.extend(data.text.as_str().map(str::to_owned)),
                (Some("shell_command"), Role::User) => {
                    texts.extend(data.command.as_str().filter(|c| !c.trim().is_empty()).map(|c| format!("!{c}")));
                }
                (Some("tool_call"), Role::Assistant) => {
                    let key = data.id.as_str().filter(|s| !s.is_empty()).map_or_else(|| format!("{id}#{}", tools.len()), str::to_owned);
                    let name = data.name.as_str().filter(|n| !n.is_empty()).unwrap_or("tool").to_owned();
                    tools.push((key, name));
                }
                _ => {}
            }
        }
        let text = texts.join("\n").trim().to_owned();
        let text = (!text.is_empty()).then_some(text);
        if text.is_none() && tools.is_empty() {
            continue;
        }
        let created = int_at(row, Some(5)).map(epoch_ms);
        out.entry(session_id).or_default().push(Msg { id, role, created, row: row_id, text, tools });
    }
    for msgs in out.values_mut() {
        msgs.sort_by_key(|m| (m.created, m.row));
    }
    Ok(out)
}

/// The events of one session: its facts, then its messages in order.
fn session_events(s: SessionRow, msgs: Vec<Msg>) -> WholeSession {
    let title = s
        .title
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty() && !PLACEHOLDER_TITLES.iter().any(|p| p.eq_ignore_ascii_case(t)));
    let mut events = Vec::with_capacity(msgs.len() + 1);
    events.push(Event::Meta(MetaEvent {
        session_id: Some(s.id.clone()),
        title: title.map(|t| (TitleRank::Generated, t)),
        workspace: None,
        created: s.created,
        updated: s.updated,
        hidden: s.parent.is_some(),
    }));
    for m in msgs {
        if let Some(text) = m.text {
            events.push(Event::message(m.id.clone(), m.id, m.role, text, m.created, Merge::Replace));
        }
        events.extend(m.tools.into_iter().map(|(key, name)| Event::ToolCall { key, name }));
    }
    WholeSession { key: s.id, events }
}
