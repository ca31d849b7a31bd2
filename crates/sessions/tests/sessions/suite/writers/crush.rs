//! Crush: one project's `crush.db` in its `.crush` data folder (`~/work/app/.crush` here),
//! registered in `projects.json` in Crush's global data folder (the reader's default
//! root), as Crush registers a project when it starts in it. Rows as Crush's queries write
//! them (`internal/db/sql/`), parts as `internal/message/content.go` serializes them.
//!
//! What each promise is in the database (as for goose's and opencode's, rows are written
//! whole):
//! - a half-written record: a message row whose `parts` is cut, completed later (Crush
//!   rewrites a message's `parts` while it streams the answer into it);
//! - invalid UTF-8 or a lone surrogate escape: those bytes inside `parts`;
//! - a record that is not JSON: `parts` that is not JSON;
//! - unknown records: part types, roles and tables the reader does not know, and rows that
//!   are not messages (a tool message, a tool call or reasoning alone, a compaction
//!   summary);
//! - an empty file: a zero-byte `crush.db`;
//! - a deleted session: Crush's session delete (its messages, files and session row), kept
//!   aside to put back.
//!
//! Crush's triggers stamp `updated_at` with `strftime('%s','now')`; this schema keeps the
//! triggers that count messages and leaves out the three that stamp, and the writer stamps
//! with the suite's clock instead, so that two writes in the same second of a fast test
//! still differ as two writes a person makes do.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use rusqlite::{params, Connection};
use serde_json::json;

use crate::crush::{register, PROJECT, SCHEMA};
use super::sqlite_rows::{put_rows, take_rows, TableRows};
use crate::suite::{splice, uuid_for, Clock, SessionWriter, RAW};

/// Rows of one table, every column.
/// A message's parts as Crush stores them: its text, then (Crush adds one to every
/// message it creates whole) a finish part.
fn text_parts(role: Role, text: &str, secs: i64) -> String {
    let reason = if role == Role::User { "stop" } else { "end_turn" };
    json!([{"type": "text", "data": {"text": text}}, {"type": "finish", "data": {"reason": reason, "time": secs}}]).to_string()
}

/// Writes sessions into one project's `crush.db`, kept open as Crush keeps it (in WAL mode).
pub struct CrushWriter {
    home: PathBuf,
    path: PathBuf,
    conn: Option<Connection>,
    clock: Clock,
    written: HashMap<String, usize>,
    /// A message row written in half: its id, and its whole parts.
    half: Option<(String, String)>,
    deleted: HashMap<String, Vec<TableRows>>,
}

impl CrushWriter {
    fn register(&self) {
        let data_dir = self.path.parent().unwrap();
        std::fs::create_dir_all(data_dir).unwrap();
        register(&self.home, &self.home.join(PROJECT), data_dir);
    }

    fn conn(&mut self) -> &Connection {
        if self.conn.is_none() {
            self.register();
            let conn = Connection::open(&self.path).unwrap();
            conn.pragma_update(None, "journal_mode", "wal").unwrap();
            let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'", [], |r| r.get(0)).unwrap();
            if tables == 0 {
                conn.execute_batch(SCHEMA).unwrap();
            }
            self.conn = Some(conn);
        }
        self.conn.as_ref().unwrap()
    }

    /// Inserts the next message row of session `name` (`CreateMessage`), stamping the
    /// session; returns the message id.
    fn insert(&mut self, name: &str, role: &str, parts: &[u8], summary: bool) -> String {
        let id = uuid_for(name);
        let n = self.written.entry(id.clone()).or_default();
        *n += 1;
        let message_id = uuid_for(&format!("{id}/{n}"));
        let secs = self.clock.tick() / 1000;
        let conn = self.conn();
        conn.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, provider, is_summary_message, created_at, updated_at, finished_at)
             VALUES (?1, ?2, ?3, CAST(?4 AS TEXT), 'claude-sonnet-4-5', 'anthropic', ?5, ?6, ?6, ?6)",
            params![message_id, id, role, parts, summary, secs],
        )
        .unwrap();
        conn.execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![id, secs]).unwrap();
        message_id
    }
}

impl SessionWriter for CrushWriter {
    const SOURCE: Source = Source::Crush;

    fn new(home: &Path) -> Self {
        let path = home.join(PROJECT).join(".crush").join("crush.db");
        CrushWriter { home: home.to_path_buf(), path, conn: None, clock: Clock::default(), written: HashMap::new(), half: None, deleted: HashMap::new() }
    }

    fn session_id(&self, name: &str) -> String {
        uuid_for(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = uuid_for(name);
        self.written.remove(&id);
        let secs = self.clock.tick() / 1000;
        let conn = self.conn();
        for sql in ["DELETE FROM messages WHERE session_id = ?1", "DELETE FROM files WHERE session_id = ?1", "DELETE FROM sessions WHERE id = ?1"] {
            conn.execute(sql, [&id]).unwrap();
        }
        // The TUI's placeholder title: no title, so the list shows the first prompt.
        conn.execute(
            "INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost, summary_message_id, updated_at, created_at)
             VALUES (?1, NULL, 'New Session', 0, 0, 0, 0.0, NULL, ?2, ?2)",
            params![id, secs],
        )
        .unwrap();
        for (role, text) in messages {
            self.append_message(name, *role, text);
        }
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let parts = text_parts(role, text, self.clock.tick() / 1000);
        self.insert(name, role.as_str(), parts.as_bytes(), false);
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let parts = text_parts(role, RAW, self.clock.tick() / 1000);
        self.insert(name, role.as_str(), &splice(&parts, raw), false);
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let whole = text_parts(role, text, self.clock.tick() / 1000);
        let id = self.insert(name, role.as_str(), &whole.as_bytes()[..whole.len() / 2], false);
        self.half = Some((id, whole));
    }

    fn finish_half_message(&mut self, name: &str) {
        let (id, whole) = self.half.take().expect("a half-written message");
        let secs = self.clock.tick() / 1000;
        let conn = self.conn();
        conn.execute("UPDATE messages SET parts = ?2, updated_at = ?3 WHERE id = ?1", params![id, whole, secs]).unwrap();
        conn.execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![uuid_for(name), secs]).unwrap();
    }

    fn append_unknown_records(&mut self, name: &str) {
        let call = json!([{"type": "tool_call", "data": {"id": "toolu_01", "name": "bash", "input": "{\"command\":\"ls\"}",
                            "provider_executed": false, "finished": true}},
                          {"type": "finish", "data": {"reason": "tool_use", "time": 1}}]);
        let result = json!([{"type": "tool_result", "data": {"tool_call_id": "toolu_01", "name": "bash", "content": "Cargo.toml",
                              "data": "", "mime_type": "", "metadata": "", "is_error": false}}]);
        let rows = [
            // A tool call alone, its result in a tool message, reasoning alone: no messages.
            ("assistant", call.to_string(), false),
            ("tool", result.to_string(), false),
            ("assistant", json!([{"type": "reasoning", "data": {"thinking": "hmm", "signature": "x"}}]).to_string(), false),
            // A part type, a role, and a compaction summary.
            ("user", json!([{"type": "hologram", "data": {"frames": [1, 2]}}]).to_string(), false),
            ("narrator", text_parts(Role::User, "not a message", 1), false),
            ("assistant", text_parts(Role::Assistant, "a compaction summary", 1), true),
        ];
        for (role, parts, summary) in rows {
            self.insert(name, role, parts.as_bytes(), summary);
        }
        self.conn()
            .execute_batch("CREATE TABLE IF NOT EXISTS hologram (id TEXT PRIMARY KEY, data TEXT); INSERT INTO hologram VALUES ('h1', '{}');")
            .unwrap();
    }

    fn append_broken_record(&mut self, name: &str) {
        self.insert(name, "user", br#"[{"type": "text", "data": {"text": "not read"}, this is not JSON"#, false);
        self.insert(name, "assistant", b"\x00{{ garbage", false);
    }

    /// A zero-byte `crush.db` in a registered project, as a database just created is.
    fn write_empty(&mut self, _name: &str) {
        assert!(self.conn.is_none() && !self.path.exists(), "an empty database is the first thing written");
        self.register();
        std::fs::write(&self.path, b"").unwrap();
    }

    /// Crush's session delete: the session's messages, files and row.
    fn delete_session(&mut self, name: &str) {
        let id = uuid_for(name);
        let conn = self.conn();
        let saved = take_rows(conn, &[("sessions", "id"), ("messages", "session_id"), ("files", "session_id")], &id);
        self.deleted.insert(id, saved);
    }

    /// Puts the rows back as they were (the session row first, its messages after it).
    fn restore_session(&mut self, name: &str) {
        let saved = self.deleted.remove(&uuid_for(name)).expect("a deleted session");
        let conn = self.conn();
        put_rows(conn, saved);
    }
}
