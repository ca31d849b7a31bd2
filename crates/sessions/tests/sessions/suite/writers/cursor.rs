//! Cursor's global store as the editor writes it while it runs (2025 on): one connection
//! kept open in WAL mode on `~/.config/Cursor/User/globalStorage/state.vscdb`, with
//! `cursorDiskKV` (`composerData:<id>` and `bubbleId:<id>:<bubbleId>` JSON rows, tables
//! declared `UNIQUE ON CONFLICT REPLACE` as VS Code's are) and the `composerHeaders`
//! catalog, whose `lastUpdatedAt` moves with every message.
//!
//! The database has no lines; each promise is its closest equivalent: a bubble row whose
//! JSON is cut (listed in the headers, written whole later), raw bytes inside a bubble's
//! `text`, a bubble over 1 MB, unknown bubble types, key prefixes and tables, a bubble that
//! is not JSON, a zero-byte `state.vscdb`, bubbles added between two reads, a composer's
//! rows replaced by fewer, and a composer deleted (its rows) and put back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use rusqlite::types::Value;
use rusqlite::{params, Connection};
use serde_json::json;

use super::sqlite_rows::{insert_row, rows_where};
use crate::suite::{splice, uuid_for, Clock, SessionWriter, RAW};

/// The tables of Cursor's global `state.vscdb`.
const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE IF NOT EXISTS cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE IF NOT EXISTS composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER,
        lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER, checkpointAt INTEGER,
        value TEXT, subagentTypeName TEXT);
";

/// A deleted composer's `cursorDiskKV` rows and its head row.
type DeletedRows = (Vec<(String, Value)>, Vec<Value>);

/// Writes composers into the global store.
pub struct CursorWriter {
    path: PathBuf,
    conn: Option<Connection>,
    clock: Clock,
    /// Each composer's bubble ids, in order, and its creation time.
    composers: HashMap<String, (Vec<String>, i64)>,
    /// A bubble written in half: its key and whole JSON.
    half: Option<(String, String)>,
    /// The rows of deleted composers, to put back.
    deleted: HashMap<String, DeletedRows>,
}

/// A bubble's JSON, shaped as Cursor writes one (`_v` 3, the fields readers meet).
fn bubble(id: &str, role: Role, text: &str, created: &str) -> serde_json::Value {
    let kind = if role == Role::User { 1 } else { 2 };
    json!({"_v": 3, "type": kind, "bubbleId": id, "text": text, "richText": "", "createdAt": created,
           "requestId": "", "codeBlocks": [], "toolResults": [], "isAgentic": true, "unifiedMode": 2,
           "tokenCount": {"inputTokens": 0, "outputTokens": 0}, "context": {"fileSelections": []}})
}

impl CursorWriter {
    fn conn(&mut self) -> &Connection {
        if self.conn.is_none() {
            std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
            let conn = Connection::open(&self.path).unwrap();
            conn.pragma_update(None, "journal_mode", "wal").unwrap();
            conn.execute_batch(SCHEMA).unwrap();
            self.conn = Some(conn);
        }
        self.conn.as_ref().unwrap()
    }

    /// Rewrites `composerData:<id>` and its head, as Cursor does after each message.
    fn save_composer(&mut self, id: &str) {
        let (bubbles, created) = self.composers.get(id).cloned().unwrap_or_default();
        let now = self.clock.tick();
        let headers: Vec<_> = bubbles.iter().map(|b| json!({"bubbleId": b, "type": 1})).collect();
        let data = json!({"_v": 10, "composerId": id, "richText": "", "text": "", "status": "completed",
            "createdAt": created, "lastUpdatedAt": now, "fullConversationHeadersOnly": headers, "conversationMap": {},
            "context": {"fileSelections": [], "mentions": {}}, "isAgentic": true, "unifiedMode": "agent",
            "originalFileStates": {}, "codeBlockData": {}});
        let head = json!({"type": "head", "composerId": id, "createdAt": created, "lastUpdatedAt": now, "unifiedMode": "agent"});
        let conn = self.conn();
        conn.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![format!("composerData:{id}"), data.to_string()]).unwrap();
        conn.execute(
            "INSERT OR REPLACE INTO composerHeaders (composerId, workspaceId, createdAt, lastUpdatedAt, isArchived, isSubagent, recency, value)
             VALUES (?1, NULL, ?2, ?3, 0, 0, ?3, ?4)",
            params![id, created, now, head.to_string()],
        )
        .unwrap();
    }

    /// Adds a bubble whose value is `bytes` (stored as text, whatever the bytes), listed
    /// last in the composer's headers.
    fn add_bubble(&mut self, name: &str, bytes: &[u8]) -> String {
        let id = self.session_id(name);
        let entry = self.composers.entry(id.clone()).or_insert_with(|| (Vec::new(), 0));
        let bubble_id = uuid_for(&format!("{id}/{}", entry.0.len()));
        entry.0.push(bubble_id.clone());
        let key = format!("bubbleId:{id}:{bubble_id}");
        self.conn().execute("INSERT INTO cursorDiskKV VALUES (?1, CAST(?2 AS TEXT))", params![key, bytes]).unwrap();
        self.save_composer(&id);
        bubble_id
    }

    fn next_bubble(&mut self, name: &str, role: Role, text: &str) -> (String, String) {
        let id = self.session_id(name);
        let n = self.composers.get(&id).map_or(0, |c| c.0.len());
        let bubble_id = uuid_for(&format!("{id}/{n}"));
        let created = self.clock.tick_iso();
        (bubble_id.clone(), bubble(&bubble_id, role, text, &created).to_string())
    }

    fn delete_rows(&mut self, id: &str) -> DeletedRows {
        let conn = self.conn();
        let kv: Vec<(String, Value)> = conn
            .prepare("SELECT key, value FROM cursorDiskKV WHERE key = ?1 OR key LIKE ?2")
            .unwrap()
            .query_map(params![format!("composerData:{id}"), format!("bubbleId:{id}:%")], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let head: Vec<Value> = rows_where(conn, "composerHeaders", "composerId", id).into_iter().next().unwrap_or_default();
        conn.execute("DELETE FROM cursorDiskKV WHERE key = ?1 OR key LIKE ?2", params![format!("composerData:{id}"), format!("bubbleId:{id}:%")])
            .unwrap();
        conn.execute("DELETE FROM composerHeaders WHERE composerId = ?1", [id]).unwrap();
        (kv, head)
    }
}

impl SessionWriter for CursorWriter {
    const SOURCE: Source = Source::Cursor;

    fn new(home: &Path) -> Self {
        CursorWriter {
            path: home.join(".config/Cursor/User/globalStorage/state.vscdb"),
            conn: None,
            clock: Clock::default(),
            composers: HashMap::new(),
            half: None,
            deleted: HashMap::new(),
        }
    }

    fn session_id(&self, name: &str) -> String {
        uuid_for(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = self.session_id(name);
        self.delete_rows(&id);
        let created = self.clock.tick();
        self.composers.insert(id.clone(), (Vec::new(), created));
        self.save_composer(&id);
        for (role, text) in messages {
            self.append_message(name, *role, text);
        }
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let (_, json) = self.next_bubble(name, role, text);
        self.add_bubble(name, json.as_bytes());
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let (_, json) = self.next_bubble(name, role, RAW);
        self.add_bubble(name, &splice(&json, raw));
    }

    /// A bubble row whose JSON is cut, already listed in the headers.
    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let (_, json) = self.next_bubble(name, role, text);
        let bubble_id = self.add_bubble(name, &json.as_bytes()[..json.len() / 2]);
        self.half = Some((format!("bubbleId:{}:{bubble_id}", self.session_id(name)), json));
    }

    fn finish_half_message(&mut self, name: &str) {
        let (key, json) = self.half.take().expect("a half-written bubble");
        self.conn().execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![key, json]).unwrap();
        let id = self.session_id(name);
        self.save_composer(&id);
    }

    fn append_unknown_records(&mut self, name: &str) {
        let id = self.session_id(name);
        // A bubble of a type the reader does not know, with text.
        let (bubble_id, _) = self.next_bubble(name, Role::User, "");
        let mut odd = bubble(&bubble_id, Role::User, "not a message", "2026-03-01T10:00:00.000Z");
        odd["type"] = json!(30);
        self.add_bubble(name, odd.to_string().as_bytes());
        // An agent bubble that only ran a tool: a tool call, not a message.
        let (bubble_id, _) = self.next_bubble(name, Role::Assistant, "");
        let mut tool = bubble(&bubble_id, Role::Assistant, "", "2026-03-01T10:00:00.000Z");
        tool["toolFormerData"] = json!({"tool": 5, "name": "read_file_v2", "toolCallId": "toolu_01", "status": "completed",
                                        "params": "{\"targetFile\":\"src/main.rs\"}", "result": "{\"contents\":\"fn main() {}\"}"});
        self.add_bubble(name, tool.to_string().as_bytes());
        // Keys and a table the reader does not know.
        self.conn()
            .execute_batch(&format!(
                "INSERT INTO cursorDiskKV VALUES ('agentKv:blob:00ff', x'00ff10');
                 INSERT INTO cursorDiskKV VALUES ('checkpointId:{id}:c1', '{{\"files\":[]}}');
                 INSERT INTO cursorDiskKV VALUES ('messageRequestContext:{id}:r1', '{{\"terminalFiles\":[]}}');
                 CREATE TABLE IF NOT EXISTS composerHologram (id TEXT PRIMARY KEY, value TEXT);
                 INSERT OR REPLACE INTO composerHologram VALUES ('h1', '{{}}');"
            ))
            .unwrap();
    }

    fn append_broken_record(&mut self, name: &str) {
        self.add_bubble(name, b"\x00{{ not json");
    }

    /// Deletes the composer's rows, as Cursor deletes a chat, keeping them to put back.
    fn delete_session(&mut self, name: &str) {
        let id = self.session_id(name);
        let rows = self.delete_rows(&id);
        self.deleted.insert(id, rows);
    }

    /// Puts the rows back as they were, the head's old `lastUpdatedAt` included.
    fn restore_session(&mut self, name: &str) {
        let (kv, head) = self.deleted.remove(&self.session_id(name)).expect("a deleted composer");
        let conn = self.conn();
        for (key, value) in kv {
            conn.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![key, value]).unwrap();
        }
        if !head.is_empty() {
            insert_row(conn, "composerHeaders", head);
        }
    }

    /// A zero-byte `state.vscdb`, as a store just created and not yet written is.
    fn write_empty(&mut self, _name: &str) {
        assert!(self.conn.is_none() && !self.path.exists(), "an empty database is the first thing written");
        std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
        std::fs::write(&self.path, b"").unwrap();
    }
}
