//! Zed's agent threads as Zed writes them: `~/.local/share/zed/threads/threads.db`, one
//! connection kept open in WAL mode, each thread saved whole (its JSON, `"version":
//! "0.3.0"`, zstd-compressed) into its row by `INSERT … ON CONFLICT(id) DO UPDATE` with a
//! new `updated_at`, as `ThreadsDatabase::save_thread_sync` does.
//!
//! A thread is one document, so each promise is its closest equivalent: raw bytes inside a
//! message's text (compressed with the rest), a message over 1 MB, unknown message and
//! content variants, a row whose data is not JSON at all beside the thread, a zero-byte
//! `threads.db`, messages added by later saves, a thread saved with fewer messages, and a
//! thread deleted (its row) and put back. A half-written message: Zed saves a thread
//! whole in one transaction, so no row is ever half-written; what a reader can meet is a
//! turn still streaming, which lives in Zed's memory (`pending_message`) until the save at
//! its end. So the half message is held back and written by the next save.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use rusqlite::types::Value;
use rusqlite::{params, Connection};
use serde_json::json;

use super::sqlite_rows::{insert_row, rows_where};
use crate::suite::{splice, uuid_for, Clock, SessionWriter, RAW};

/// `threads` as Zed creates it and then alters it.
const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL,
        data_type TEXT NOT NULL, data BLOB NOT NULL);
    ALTER TABLE threads ADD COLUMN parent_id TEXT;
    ALTER TABLE threads ADD COLUMN folder_paths TEXT;
    ALTER TABLE threads ADD COLUMN folder_paths_order TEXT;
    ALTER TABLE threads ADD COLUMN created_at TEXT;
";

/// Compresses as Zed does (a zstd frame; Zed uses level 3, any level reads the same).
fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

/// One message as the thread's JSON holds it, with [`RAW`] standing for raw text bytes.
fn message(role: Role, id: &str, text: &str) -> serde_json::Value {
    match role {
        Role::User => json!({"User": {"id": id, "content": [{"Text": text}]}}),
        Role::Assistant => json!({"Agent": {"content": [{"Text": text}], "tool_results": {}, "reasoning_details": null}}),
    }
}

/// Writes threads into `threads.db`.
pub struct ZedWriter {
    path: PathBuf,
    conn: Option<Connection>,
    clock: Clock,
    /// Each thread's messages (JSON text, possibly holding raw bytes) and creation time.
    threads: HashMap<String, (Vec<Vec<u8>>, String)>,
    /// A message held back until its turn ends.
    pending: Option<(String, Vec<u8>)>,
    deleted: HashMap<String, Vec<Value>>,
}

impl ZedWriter {
    fn conn(&mut self) -> &Connection {
        if self.conn.is_none() {
            std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
            let conn = Connection::open(&self.path).unwrap();
            conn.pragma_update(None, "journal_mode", "wal").unwrap();
            let exists: i64 = conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'threads'", [], |r| r.get(0)).unwrap();
            if exists == 0 {
                conn.execute_batch(SCHEMA).unwrap();
            }
            self.conn = Some(conn);
        }
        self.conn.as_ref().unwrap()
    }

    /// Saves thread `id` whole, as Zed does after each change.
    fn save(&mut self, id: &str) {
        let updated = self.clock.tick_iso();
        let (messages, created) = self.threads.get(id).cloned().unwrap_or_default();
        let mut json = b"{\"title\":\"New Thread\",\"messages\":[".to_vec();
        for (i, m) in messages.iter().enumerate() {
            if i > 0 {
                json.push(b',');
            }
            json.extend_from_slice(m);
        }
        let rest = json!({"updated_at": updated, "detailed_summary": null,
            "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": "/work/suite", "git_state": null}], "unsaved_buffer_paths": [], "timestamp": updated},
            "cumulative_token_usage": {"input_tokens": 0, "output_tokens": 0}, "request_token_usage": {},
            "model": {"provider": "zed.dev", "model": "claude-sonnet-4"}, "profile": "write", "imported": false,
            "subagent_context": null, "speed": null, "thinking_enabled": false, "thinking_effort": null,
            "draft_prompt": null, "ui_scroll_position": null, "version": "0.3.0"});
        let rest = rest.to_string();
        json.extend_from_slice(b"],");
        json.extend_from_slice(&rest.as_bytes()[1..]);
        let data = zstd(&json);
        self.conn()
            .execute(
                "INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, updated_at, data_type, data, created_at)
                 VALUES (?1, NULL, '/work/suite', '0', 'New Thread', ?2, 'zstd', ?3, ?4)
                 ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id, folder_paths = excluded.folder_paths,
                   folder_paths_order = excluded.folder_paths_order, summary = excluded.summary,
                   updated_at = excluded.updated_at, data_type = excluded.data_type, data = excluded.data",
                params![id, updated, data, if created.is_empty() { updated.clone() } else { created }],
            )
            .unwrap();
    }

    fn push(&mut self, name: &str, json: Vec<u8>) {
        let id = self.session_id(name);
        self.threads.entry(id.clone()).or_default().0.push(json);
        self.save(&id);
    }

    fn next_id(&self, name: &str) -> String {
        let id = self.session_id(name);
        uuid_for(&format!("{id}/{}", self.threads.get(&id).map_or(0, |t| t.0.len())))
    }
}

impl SessionWriter for ZedWriter {
    const SOURCE: Source = Source::Zed;

    fn new(home: &Path) -> Self {
        ZedWriter {
            path: home.join(".local/share/zed/threads/threads.db"),
            conn: None,
            clock: Clock::default(),
            threads: HashMap::new(),
            pending: None,
            deleted: HashMap::new(),
        }
    }

    fn session_id(&self, name: &str) -> String {
        uuid_for(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = self.session_id(name);
        let created = self.clock.tick_iso();
        self.threads.insert(id.clone(), (Vec::new(), created));
        for (role, text) in messages {
            let mid = self.next_id(name);
            self.threads.entry(id.clone()).or_default().0.push(message(*role, &mid, text).to_string().into_bytes());
        }
        self.save(&id);
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let mid = self.next_id(name);
        self.push(name, message(role, &mid, text).to_string().into_bytes());
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let mid = self.next_id(name);
        self.push(name, splice(&message(role, &mid, RAW).to_string(), raw));
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let mid = self.next_id(name);
        self.pending = Some((name.to_string(), message(role, &mid, text).to_string().into_bytes()));
    }

    fn finish_half_message(&mut self, _name: &str) {
        let (name, json) = self.pending.take().expect("a message held back");
        self.push(&name, json);
    }

    fn append_unknown_records(&mut self, name: &str) {
        let id = self.session_id(name);
        let odd = [
            json!("Resume"),
            json!({"Hologram": {"frames": [1, 2]}}),
            json!({"User": {"id": uuid_for(&format!("{id}/image")), "content": [{"Image": {"source": "", "size": {"width": 1, "height": 1}}},
                                                                              {"Mention": {"uri": {"File": {"abs_path": "/work/suite/a.rs"}}, "content": "fn a() {}"}}]}}),
            json!({"Agent": {"content": [{"Thinking": {"text": "hmm", "signature": null}},
                                          {"ToolUse": {"id": "toolu_01", "name": "read_file", "raw_input": "{}", "input": {"path": "a.rs"}, "is_input_complete": true, "thought_signature": null}},
                                          {"Sparkle": "?"}],
                              "tool_results": {"toolu_01": {"tool_use_id": "toolu_01", "tool_name": "read_file", "is_error": false, "content": {"Text": "fn a() {}"}, "output": null}},
                              "reasoning_details": null}}),
            json!(42),
        ];
        let thread = self.threads.entry(id.clone()).or_default();
        thread.0.extend(odd.iter().map(|v| v.to_string().into_bytes()));
        self.save(&id);
        self.conn()
            .execute_batch("CREATE TABLE IF NOT EXISTS thread_holograms (id TEXT PRIMARY KEY, data BLOB);")
            .unwrap();
    }

    fn append_broken_record(&mut self, _name: &str) {
        // A row whose data is neither a zstd frame nor JSON, beside the thread.
        let updated = self.clock.tick_iso();
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO threads (id, summary, updated_at, data_type, data) VALUES ('broken', 'Broken', ?1, 'zstd', x'00ff00ff7b7b')",
                [updated],
            )
            .unwrap();
    }

    /// Deletes the thread's row, as Zed's history does, keeping it to put back.
    fn delete_session(&mut self, name: &str) {
        let id = self.session_id(name);
        let conn = self.conn();
        let row: Vec<Value> = rows_where(conn, "threads", "id", &id).into_iter().next().expect("the thread's row");
        conn.execute("DELETE FROM threads WHERE id = ?1", [&id]).unwrap();
        self.deleted.insert(id, row);
    }

    /// Puts the row back as it was, its old `updated_at` included.
    fn restore_session(&mut self, name: &str) {
        let row = self.deleted.remove(&self.session_id(name)).expect("a deleted thread");
        insert_row(self.conn(), "threads", row);
    }

    /// A zero-byte `threads.db`, as a database just created and not yet written is.
    fn write_empty(&mut self, _name: &str) {
        assert!(self.conn.is_none() && !self.path.exists(), "an empty database is the first thing written");
        std::fs::create_dir_all(self.path.parent().unwrap()).unwrap();
        std::fs::write(&self.path, b"").unwrap();
    }
}
