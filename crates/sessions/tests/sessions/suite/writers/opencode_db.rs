//! opencode 1.2+'s SQLite store, written while "opencode runs": one connection kept open
//! (so the database is in WAL mode with its `-wal`), every row stamped with the time it
//! was written, as opencode stamps `time_updated`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::opencode::SCHEMA;
use memory_bank_sessions::{Role, Source};
use rusqlite::{params, Connection};
use serde_json::json;

use super::opencode_tree::session_id;
use super::sqlite_rows::{put_rows, take_rows, TableRows};
use crate::suite::{splice, Clock, SessionWriter, RAW};

/// Writes sessions into `opencode.db`.
pub struct OpencodeDbWriter {
    path: PathBuf,
    conn: Option<Connection>,
    clock: Clock,
    /// Messages written per session id.
    written: HashMap<String, usize>,
    /// A part row written in half: its id, and its whole JSON.
    half: Option<(String, String)>,
    /// The rows of deleted sessions, to put back.
    deleted: HashMap<String, Vec<TableRows>>,
}

/// Rows of one table, every column.
impl OpencodeDbWriter {
    /// The open database, created with opencode's schema when it has none yet (a zero-byte
    /// file included).
    fn conn(&mut self) -> &Connection {
        if self.conn.is_none() {
            std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
            let conn = Connection::open(&self.path).unwrap();
            conn.pragma_update(None, "journal_mode", "wal").unwrap();
            let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'session'", [], |r| r.get(0)).unwrap();
            if tables == 0 {
                conn.execute_batch(SCHEMA).unwrap();
            }
            self.conn = Some(conn);
        }
        self.conn.as_ref().unwrap()
    }

    /// Inserts the next message row of session `name`; returns the session and message ids
    /// and the row's stamp (the session's `time_updated` moves with it).
    fn next_message(&mut self, name: &str, role: &str, data: Option<&str>) -> (String, String, i64) {
        let id = session_id(name);
        let n = self.written.entry(id.clone()).or_default();
        *n += 1;
        let message_id = format!("msg_{:012x}{}", *n, &id[4..18]);
        let ts = self.clock.tick();
        let json = json!({"role": role, "time": {"created": ts}, "agent": "build"}).to_string();
        let conn = self.conn();
        conn.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
            params![message_id, id, ts, data.unwrap_or(&json)],
        )
        .unwrap();
        conn.execute("UPDATE session SET time_updated = ?2 WHERE id = ?1", params![id, ts]).unwrap();
        (id, message_id, ts)
    }

    /// Inserts a part row whose `data` is `bytes` (stored as text, whatever the bytes).
    fn add_part(&mut self, id: &str, message_id: &str, part_id: &str, ts: i64, bytes: &[u8]) {
        self.conn()
            .execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
                 VALUES (?1, ?2, ?3, ?4, ?4, CAST(?5 AS TEXT))",
                params![part_id, message_id, id, ts, bytes],
            )
            .unwrap();
    }

    fn text_part(text: &str, ts: i64) -> String {
        json!({"type": "text", "text": text, "time": {"start": ts, "end": ts}}).to_string()
    }
}

impl SessionWriter for OpencodeDbWriter {
    const SOURCE: Source = Source::Opencode;

    fn new(home: &Path) -> Self {
        let path = home.join(".local/share/opencode/opencode.db");
        OpencodeDbWriter { path, conn: None, clock: Clock::default(), written: HashMap::new(), half: None, deleted: HashMap::new() }
    }

    fn session_id(&self, name: &str) -> String {
        session_id(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = session_id(name);
        self.written.remove(&id);
        let ts = self.clock.tick();
        let conn = self.conn();
        for sql in ["DELETE FROM part WHERE session_id = ?1", "DELETE FROM message WHERE session_id = ?1", "DELETE FROM session WHERE id = ?1"] {
            conn.execute(sql, [&id]).unwrap();
        }
        conn.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
             VALUES (?1, 'global', 'brave-otter', '/work/suite', 'New session - 2026-03-01T10:00:00.000Z', '1.3.2', ?2, ?2)",
            params![id, ts],
        )
        .unwrap();
        for (role, text) in messages {
            self.append_message(name, *role, text);
        }
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let (id, message_id, ts) = self.next_message(name, role.as_str(), None);
        let part_id = format!("prt_{}", &message_id[4..]);
        self.add_part(&id, &message_id, &part_id, ts, Self::text_part(text, ts).as_bytes());
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let (id, message_id, ts) = self.next_message(name, role.as_str(), None);
        let part_id = format!("prt_{}", &message_id[4..]);
        self.add_part(&id, &message_id, &part_id, ts, &splice(&Self::text_part(RAW, ts), raw));
    }

    /// A part row whose JSON is cut; [`OpencodeDbWriter::finish_half_message`] writes it whole.
    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let (id, message_id, ts) = self.next_message(name, role.as_str(), None);
        let part_id = format!("prt_{}", &message_id[4..]);
        let whole = Self::text_part(text, ts);
        self.add_part(&id, &message_id, &part_id, ts, &whole.as_bytes()[..whole.len() / 2]);
        self.half = Some((part_id, whole));
    }

    fn finish_half_message(&mut self, name: &str) {
        let (part_id, whole) = self.half.take().expect("a half-written part");
        let ts = self.clock.tick();
        let conn = self.conn();
        conn.execute("UPDATE part SET data = ?2, time_updated = ?3 WHERE id = ?1", params![part_id, whole, ts]).unwrap();
        conn.execute("UPDATE session SET time_updated = ?2 WHERE id = ?1", params![session_id(name), ts]).unwrap();
    }

    fn append_unknown_records(&mut self, name: &str) {
        // A role the reader does not know, with text.
        let (id, message_id, ts) = self.next_message(name, "narrator", None);
        self.add_part(&id, &message_id, "prt_narrator", ts, Self::text_part("not a message", ts).as_bytes());
        // A user message whose only part is of an unknown type.
        let (id, message_id, ts) = self.next_message(name, "user", None);
        self.add_part(&id, &message_id, "prt_hologram", ts, br#"{"type":"hologram","frames":[1,2]}"#);
        // A table the reader does not know.
        self.conn()
            .execute_batch("CREATE TABLE IF NOT EXISTS session_hologram (id text PRIMARY KEY, data text);
                            INSERT INTO session_hologram VALUES ('h1', '{\"frames\":[1]}');")
            .unwrap();
    }

    fn append_broken_record(&mut self, name: &str) {
        // A message whose JSON is not JSON, with a text part; a part that is not JSON.
        let (id, message_id, ts) = self.next_message(name, "user", Some("{\"role\": \"user\", this is not JSON"));
        self.add_part(&id, &message_id, "prt_broken_message", ts, Self::text_part("not read", ts).as_bytes());
        let (id, message_id, ts) = self.next_message(name, "user", None);
        self.add_part(&id, &message_id, "prt_broken_part", ts, b"\x00{{ garbage");
    }

    /// Deletes the session's rows, as opencode deletes a session, keeping them to put back.
    fn delete_session(&mut self, name: &str) {
        let id = session_id(name);
        let conn = self.conn();
        let saved = take_rows(conn, &[("session", "id"), ("message", "session_id"), ("part", "session_id")], &id);
        self.deleted.insert(id, saved);
    }

    /// Puts the rows back as they were, their old stamps included.
    fn restore_session(&mut self, name: &str) {
        let saved = self.deleted.remove(&session_id(name)).expect("a deleted session");
        let conn = self.conn();
        put_rows(conn, saved);
    }

    /// A zero-byte `opencode.db`, as a database just created and not yet written is.
    fn write_empty(&mut self, _name: &str) {
        assert!(self.conn.is_none() && !self.path.exists(), "an empty database is the first thing written");
        std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
        std::fs::write(&self.path, b"").unwrap();
    }
}
