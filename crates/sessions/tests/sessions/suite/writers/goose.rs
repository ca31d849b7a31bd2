//! goose's two layouts, in the reader's first default root (`~/.local/share/goose/sessions`
//! here): `sessions.db` as goose 1.10+ writes it ([`GooseWriter`]), and the `<id>.jsonl`
//! files of the releases before ([`GooseJsonlWriter`]).
//!
//! What each promise is in the database (rows are written whole, so as for opencode's):
//! - a half-written record: a message row whose `content_json` is cut, completed later
//!   (goose itself rewrites a row's JSON in place when it records a tool's title);
//! - invalid UTF-8 or a lone surrogate escape: those bytes inside `content_json`;
//! - a record that is not JSON: `content_json` that is not JSON;
//! - unknown records: content items, roles and tables the reader does not know, and known
//!   rows that are not messages (tool requests and responses alone, thinking, a compaction
//!   summary goose hides from the person);
//! - an empty file: a zero-byte `sessions.db`;
//! - a deleted session: goose's `delete_session` (its message, usage and session rows),
//!   kept aside to put back.
//!
//! goose stamps `sessions.updated_at` with SQLite's `datetime('now')`; the writer stamps it
//! with the suite's clock in the same format instead, so that two writes in the same
//! second of a fast test still differ as two writes a person makes do.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use rusqlite::{params, Connection};
use serde_json::json;

use crate::goose::{session_id, sessions_dir, sqlite_time, SCHEMA};
use super::sqlite_rows::{put_rows, take_rows, TableRows};
use crate::suite::{splice, Clock, SessionWriter, RAW};

/// Rows of one table, every column.
/// A message's content: one text item.
fn text_content(text: &str) -> String {
    json!([{"type": "text", "text": text}]).to_string()
}

const VISIBLE: &str = r#"{"userVisible":true,"agentVisible":true}"#;

/// Writes sessions into `sessions.db`, kept open as goose keeps it (so it is in WAL mode
/// with its `-wal`).
pub struct GooseWriter {
    path: PathBuf,
    conn: Option<Connection>,
    clock: Clock,
    /// Messages written per session id.
    written: HashMap<String, usize>,
    /// A message row written in half: its row id, and its whole content.
    half: Option<(i64, String)>,
    /// The rows of deleted sessions, to put back.
    deleted: HashMap<String, Vec<TableRows>>,
}

impl GooseWriter {
    /// The open database, created with goose's schema when it has none (a zero-byte file
    /// included).
    fn conn(&mut self) -> &Connection {
        if self.conn.is_none() {
            std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
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

    /// Inserts the next message row of session `name` as goose's `add_message` does (the
    /// session stamped in the same transaction); returns its row id.
    fn insert(&mut self, name: &str, role: &str, content: &[u8], metadata: &str) -> i64 {
        let id = session_id(name);
        let n = self.written.entry(id.clone()).or_default();
        *n += 1;
        let message_id = format!("msg_{id}_{}", crate::suite::uuid_for(&format!("{id}/{n}")));
        let ts = self.clock.tick();
        let conn = self.conn();
        let tx = conn.unchecked_transaction().unwrap();
        tx.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json)
             VALUES (?1, ?2, ?3, CAST(?4 AS TEXT), ?5, ?6)",
            params![message_id, id, role, content, ts / 1000, metadata],
        )
        .unwrap();
        let row = tx.last_insert_rowid();
        tx.execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![id, sqlite_time(ts)]).unwrap();
        tx.commit().unwrap();
        row
    }
}

impl SessionWriter for GooseWriter {
    const SOURCE: Source = Source::Goose;

    fn new(home: &Path) -> Self {
        let path = sessions_dir(home).join("sessions.db");
        GooseWriter { path, conn: None, clock: Clock::default(), written: HashMap::new(), half: None, deleted: HashMap::new() }
    }

    fn session_id(&self, name: &str) -> String {
        session_id(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = session_id(name);
        self.written.remove(&id);
        let now = sqlite_time(self.clock.tick());
        let conn = self.conn();
        for sql in ["DELETE FROM messages WHERE session_id = ?1", "DELETE FROM usage_ledger WHERE session_id = ?1", "DELETE FROM sessions WHERE id = ?1"] {
            conn.execute(sql, [&id]).unwrap();
        }
        // The CLI's placeholder name: no title, so the list shows the first prompt.
        conn.execute(
            "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at, extension_data, goose_mode)
             VALUES (?1, 'CLI Session', FALSE, 'user', '/work/suite', ?2, ?2, '{}', 'auto')",
            params![id, now],
        )
        .unwrap();
        for (role, text) in messages {
            self.append_message(name, *role, text);
        }
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        self.insert(name, role.as_str(), text_content(text).as_bytes(), VISIBLE);
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        self.insert(name, role.as_str(), &splice(&text_content(RAW), raw), VISIBLE);
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let whole = text_content(text);
        let row = self.insert(name, role.as_str(), &whole.as_bytes()[..whole.len() / 2], VISIBLE);
        self.half = Some((row, whole));
    }

    fn finish_half_message(&mut self, name: &str) {
        let (row, whole) = self.half.take().expect("a half-written message");
        let now = sqlite_time(self.clock.tick());
        let conn = self.conn();
        conn.execute("UPDATE messages SET content_json = ?2 WHERE id = ?1", params![row, whole]).unwrap();
        conn.execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![session_id(name), now]).unwrap();
    }

    fn append_unknown_records(&mut self, name: &str) {
        let tool = json!([{"type": "toolRequest", "id": "toolu_01", "toolCall": {"status": "success",
                           "value": {"name": "developer__shell", "arguments": {"command": "ls"}}}}]);
        let result = json!([{"type": "toolResponse", "id": "toolu_01", "toolResult": {"status": "success",
                             "value": {"content": [{"type": "text", "text": "Cargo.toml"}], "isError": false}}}]);
        let rows = [
            // A tool call alone, its result alone, reasoning alone: no messages.
            ("assistant", tool.to_string(), VISIBLE),
            ("user", result.to_string(), VISIBLE),
            ("assistant", json!([{"type": "thinking", "thinking": "hmm", "signature": "x"}]).to_string(), VISIBLE),
            // An item type, a role, and a summary goose shows the model only.
            ("user", json!([{"type": "hologram", "frames": [1, 2]}]).to_string(), VISIBLE),
            ("narrator", text_content("not a message"), VISIBLE),
            ("user", text_content("a compaction summary"), r#"{"userVisible":false,"agentVisible":true}"#),
        ];
        for (role, content, metadata) in rows {
            self.insert(name, role, content.as_bytes(), metadata);
        }
        self.conn()
            .execute_batch("CREATE TABLE IF NOT EXISTS hologram (id TEXT PRIMARY KEY, data TEXT); INSERT INTO hologram VALUES ('h1', '{}');")
            .unwrap();
    }

    fn append_broken_record(&mut self, name: &str) {
        self.insert(name, "user", br#"[{"type": "text", "text": "not read", this is not JSON"#, VISIBLE);
        self.insert(name, "assistant", b"\x00{{ garbage", "garbage too");
    }

    /// A zero-byte `sessions.db`, as a database just created and not yet written is.
    fn write_empty(&mut self, _name: &str) {
        assert!(self.conn.is_none() && !self.path.exists(), "an empty database is the first thing written");
        std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
        std::fs::write(&self.path, b"").unwrap();
    }

    /// goose's `delete_session`: the session's message, usage and session rows.
    fn delete_session(&mut self, name: &str) {
        let id = session_id(name);
        let conn = self.conn();
        let saved = take_rows(conn, &[("sessions", "id"), ("messages", "session_id"), ("usage_ledger", "session_id")], &id);
        self.deleted.insert(id, saved);
    }

    /// Puts the rows back as they were.
    fn restore_session(&mut self, name: &str) {
        let saved = self.deleted.remove(&session_id(name)).expect("a deleted session");
        let conn = self.conn();
        put_rows(conn, saved);
    }
}

/// The `<id>.jsonl` files of goose before 1.10: a metadata line, then one message per line,
/// the whole file rewritten on every save (goose's `save_messages_with_metadata`, which
/// truncates the file and writes it again). So every change here rewrites the file:
/// - a half-written record: the file rewritten and cut inside its last line, as a write
///   stopped halfway leaves it;
/// - a record that is not JSON, unknown records: such lines among the messages;
/// - an empty file: a zero-byte file, as goose's reader created it for a new session;
/// - a deleted session: the file moved aside (`goose session remove` deleted it).
pub struct GooseJsonlWriter {
    dir: PathBuf,
    trash: PathBuf,
    clock: Clock,
    files: HashMap<String, LegacyFile>,
}

/// One session file's content.
#[derive(Default)]
struct LegacyFile {
    /// The message lines, already serialized (so raw bytes stay as written).
    lines: Vec<Vec<u8>>,
    /// The line of a half-written message.
    half: Option<Vec<u8>>,
}

impl GooseJsonlWriter {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{}.jsonl", session_id(name)))
    }

    fn line(&mut self, role: &str, content: &str) -> String {
        json!({"id": null, "role": role, "created": self.clock.tick() / 1000, "content": RAW, "metadata": {"userVisible": true, "agentVisible": true}})
            .to_string()
            .replace(&format!("\"{RAW}\""), content)
    }

    /// Rewrites session `name`'s file from what it holds.
    fn rewrite(&self, name: &str) {
        let (lines, half) = self.files.get(name).map(|f| (f.lines.as_slice(), f.half.as_ref())).unwrap_or((&[], None));
        let meta = json!({"working_dir": "/work/suite", "description": "", "schedule_id": null, "message_count": lines.len(),
                          "total_tokens": null, "input_tokens": null, "output_tokens": null,
                          "accumulated_total_tokens": null, "accumulated_input_tokens": null, "accumulated_output_tokens": null});
        let mut bytes = meta.to_string().into_bytes();
        bytes.push(b'\n');
        for line in lines {
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
        }
        if let Some(half) = half {
            bytes.extend_from_slice(&half[..half.len() / 2]);
        }
        std::fs::create_dir_all(&self.dir).unwrap();
        std::fs::write(self.path(name), bytes).unwrap();
    }

    fn push(&mut self, name: &str, line: Vec<u8>) {
        self.files.entry(name.to_string()).or_default().lines.push(line);
        self.rewrite(name);
    }
}

impl SessionWriter for GooseJsonlWriter {
    const SOURCE: Source = Source::Goose;

    fn new(home: &Path) -> Self {
        let trash = home.parent().unwrap().join("trash").join("goose");
        GooseJsonlWriter { dir: sessions_dir(home), trash, clock: Clock::default(), files: HashMap::new() }
    }

    fn session_id(&self, name: &str) -> String {
        session_id(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let lines = messages.iter().map(|(role, text)| self.line(role.as_str(), &text_content(text)).into_bytes()).collect();
        self.files.insert(name.to_string(), LegacyFile { lines, half: None });
        self.rewrite(name);
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let line = self.line(role.as_str(), &text_content(text));
        self.push(name, line.into_bytes());
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let line = self.line(role.as_str(), &text_content(RAW));
        self.push(name, splice(&line, raw));
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let line = self.line(role.as_str(), &text_content(text));
        self.files.entry(name.to_string()).or_default().half = Some(line.into_bytes());
        self.rewrite(name);
    }

    fn finish_half_message(&mut self, name: &str) {
        let file = self.files.get_mut(name).expect("a session");
        let line = file.half.take().expect("a half-written message");
        file.lines.push(line);
        self.rewrite(name);
    }

    fn append_unknown_records(&mut self, name: &str) {
        let tool = json!([{"type": "toolRequest", "id": "toolu_01", "toolCall": {"status": "success",
                           "value": {"name": "developer__shell", "arguments": {"command": "ls"}}}}]);
        let lines = [
            self.line("assistant", &tool.to_string()),
            self.line("user", &json!([{"type": "toolResponse", "id": "toolu_01", "toolResult": {"status": "success", "value": []}}]).to_string()),
            self.line("assistant", &json!([{"type": "summarizationRequested", "msg": "…"}]).to_string()),
            self.line("narrator", &text_content("not a message")),
            json!({"hologram": {"frames": [1, 2]}}).to_string(),
        ];
        for line in lines {
            self.push(name, line.into_bytes());
        }
    }

    fn append_broken_record(&mut self, name: &str) {
        self.push(name, br#"{"role": "user", "content": this is not JSON"#.to_vec());
        self.push(name, b"\x00\x00 garbage {{".to_vec());
    }

    fn write_empty(&mut self, name: &str) {
        std::fs::create_dir_all(&self.dir).unwrap();
        std::fs::write(self.path(name), b"").unwrap();
    }

    fn delete_session(&mut self, name: &str) {
        std::fs::create_dir_all(&self.trash).unwrap();
        std::fs::rename(self.path(name), self.trash.join(session_id(name))).unwrap();
    }

    fn restore_session(&mut self, name: &str) {
        std::fs::rename(self.trash.join(session_id(name)), self.path(name)).unwrap();
    }
}
