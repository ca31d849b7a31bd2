//! The JSON Lines tools: one file per session, one record per line, appended to as the
//! session goes on. A [`JsonlFormat`] says what a tool's lines look like; [`JsonlWriter`]
//! writes them the way the tools do.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use serde_json::json;

use crate::suite::{append_bytes, splice, uuid_for, Clock, SessionWriter, RAW};

/// One tool's JSON Lines records.
pub trait JsonlFormat {
    /// The tool.
    const SOURCE: Source;
    /// The file of session `id` under `home`.
    fn path(home: &Path, id: &str) -> PathBuf;
    /// Files the tool keeps beside its sessions (made once, before the first session).
    fn prepare(_home: &Path) {}
    /// The line a session file starts with, if the tool writes one.
    fn header(id: &str, ts: &str) -> Option<String>;
    /// Message `n` (from 1) of session `id`.
    fn message(id: &str, n: usize, role: Role, text: &str, ts: &str) -> String;
    /// Records of kinds the reader does not know.
    fn unknown_records(id: &str, ts: &str) -> Vec<String>;
}

/// Writes sessions of format `F` into a home.
pub struct JsonlWriter<F> {
    home: PathBuf,
    clock: Clock,
    /// Messages written per session id (numbers their records).
    written: HashMap<String, usize>,
    /// The unwritten rest of a half-written line, per session id.
    rest: HashMap<String, Vec<u8>>,
    format: PhantomData<F>,
}

impl<F: JsonlFormat> JsonlWriter<F> {
    fn path(&self, name: &str) -> PathBuf {
        let path = F::path(&self.home, &uuid_for(name));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        path
    }

    fn next_message(&mut self, name: &str, role: Role, text: &str) -> String {
        let id = uuid_for(name);
        let n = self.written.entry(id.clone()).or_default();
        *n += 1;
        let n = *n;
        F::message(&id, n, role, text, &self.clock.tick_iso())
    }

    fn append_line(&mut self, name: &str, line: &[u8]) {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        append_bytes(&self.path(name), &bytes);
    }
}

impl<F: JsonlFormat> SessionWriter for JsonlWriter<F> {
    const SOURCE: Source = F::SOURCE;

    fn new(home: &Path) -> Self {
        F::prepare(home);
        JsonlWriter { home: home.to_path_buf(), clock: Clock::default(), written: HashMap::new(), rest: HashMap::new(), format: PhantomData }
    }

    fn session_id(&self, name: &str) -> String {
        uuid_for(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = uuid_for(name);
        self.written.remove(&id);
        let mut text = F::header(&id, &self.clock.tick_iso()).map(|h| h + "\n").unwrap_or_default();
        for (role, message) in messages {
            text += &(self.next_message(name, *role, message) + "\n");
        }
        // In place, as a tool rewriting its file does: same file, cut to the new content.
        std::fs::write(self.path(name), text).unwrap();
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let line = self.next_message(name, role, text);
        self.append_line(name, line.as_bytes());
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let line = self.next_message(name, role, RAW);
        self.append_line(name, &splice(&line, raw));
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let line = self.next_message(name, role, text).into_bytes();
        let (head, rest) = line.split_at(line.len() / 2);
        append_bytes(&self.path(name), head);
        let mut rest = rest.to_vec();
        rest.push(b'\n');
        self.rest.insert(uuid_for(name), rest);
    }

    fn finish_half_message(&mut self, name: &str) {
        let rest = self.rest.remove(&uuid_for(name)).expect("a half-written line");
        append_bytes(&self.path(name), &rest);
    }

    fn append_unknown_records(&mut self, name: &str) {
        for line in F::unknown_records(&uuid_for(name), &self.clock.tick_iso()) {
            self.append_line(name, line.as_bytes());
        }
    }

    fn append_broken_record(&mut self, name: &str) {
        self.append_line(name, b"{\"type\": \"user\", \"message\": this is not JSON");
        self.append_line(name, b"\x00\x00 garbage {{");
    }

    fn write_empty(&mut self, name: &str) {
        std::fs::write(self.path(name), b"").unwrap();
    }

    fn delete_session(&mut self, name: &str) {
        let trash = self.trash(name);
        std::fs::create_dir_all(trash.parent().unwrap()).unwrap();
        std::fs::rename(self.path(name), trash).unwrap();
    }

    fn restore_session(&mut self, name: &str) {
        std::fs::rename(self.trash(name), self.path(name)).unwrap();
    }
}

impl<F: JsonlFormat> JsonlWriter<F> {
    /// Where a deleted session file waits to be put back (outside the home).
    fn trash(&self, name: &str) -> PathBuf {
        self.home.parent().unwrap().join("trash").join(uuid_for(name))
    }
}

/// Claude Code: `~/.claude/projects/<enc(cwd)>/<sessionId>.jsonl`, no header line.
pub struct Claude;

impl JsonlFormat for Claude {
    const SOURCE: Source = Source::ClaudeCode;

    fn path(home: &Path, id: &str) -> PathBuf {
        home.join(".claude/projects/-work-suite").join(format!("{id}.jsonl"))
    }

    fn header(_id: &str, _ts: &str) -> Option<String> {
        None
    }

    fn message(id: &str, n: usize, role: Role, text: &str, ts: &str) -> String {
        let uuid = format!("{id}-{n}");
        let message = match role {
            Role::User => json!({"role": "user", "content": text}),
            Role::Assistant => {
                json!({"id": format!("msg_{n}_{id}"), "role": "assistant", "content": [{"type": "text", "text": text}]})
            }
        };
        json!({"type": role.as_str(), "uuid": uuid, "sessionId": id, "cwd": "/work/suite", "timestamp": ts, "message": message})
            .to_string()
    }

    fn unknown_records(id: &str, ts: &str) -> Vec<String> {
        vec![
            json!({"type": "hologram-snapshot", "uuid": format!("{id}-h"), "timestamp": ts, "data": {"frames": [1, 2]}}).to_string(),
            // A known record holding only a block of an unknown type.
            json!({"type": "assistant", "uuid": format!("{id}-b"), "timestamp": ts,
                   "message": {"id": format!("msg_b_{id}"), "role": "assistant", "content": [{"type": "hologram", "data": "x"}]}})
            .to_string(),
        ]
    }
}

/// Claude Code sessions.
pub type ClaudeWriter = JsonlWriter<Claude>;

/// Codex: `~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl`, opened by a
/// `session_meta` line.
pub struct Codex;

impl JsonlFormat for Codex {
    const SOURCE: Source = Source::Codex;

    fn path(home: &Path, id: &str) -> PathBuf {
        home.join(".codex/sessions/2026/03/01").join(format!("rollout-2026-03-01T10-00-00-{id}.jsonl"))
    }

    fn header(id: &str, ts: &str) -> Option<String> {
        let meta = json!({"id": id, "timestamp": ts, "cwd": "/work/suite", "originator": "codex_cli_rs", "cli_version": "0.50.0"});
        Some(json!({"timestamp": ts, "type": "session_meta", "payload": meta}).to_string())
    }

    fn message(_id: &str, _n: usize, role: Role, text: &str, ts: &str) -> String {
        let part = if role == Role::User { "input_text" } else { "output_text" };
        let payload = json!({"type": "message", "role": role.as_str(), "content": [{"type": part, "text": text}]});
        json!({"timestamp": ts, "type": "response_item", "payload": payload}).to_string()
    }

    fn unknown_records(_id: &str, ts: &str) -> Vec<String> {
        vec![
            json!({"timestamp": ts, "type": "hologram", "payload": {"frames": [1, 2]}}).to_string(),
            json!({"timestamp": ts, "type": "response_item", "payload": {"type": "hologram_call", "data": "x"}}).to_string(),
            json!({"timestamp": ts, "type": "response_item", "payload": {"type": "message", "role": "narrator",
                   "content": [{"type": "output_text", "text": "not a message"}]}})
            .to_string(),
        ]
    }
}

/// Codex sessions.
pub type CodexWriter = JsonlWriter<Codex>;

/// Gemini CLI: `~/.gemini/tmp/<slug>/chats/session-<time>-<id8>.jsonl`, opened by a
/// metadata line; the workspace is in the project's `.project_root`.
pub struct Gemini;

impl JsonlFormat for Gemini {
    const SOURCE: Source = Source::Gemini;

    fn path(home: &Path, id: &str) -> PathBuf {
        home.join(".gemini/tmp/suite/chats").join(format!("session-2026-03-01T10-00-{}.jsonl", &id[..8]))
    }

    fn prepare(home: &Path) {
        let project = home.join(".gemini/tmp/suite");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join(".project_root"), "/work/suite").unwrap();
    }

    fn header(id: &str, ts: &str) -> Option<String> {
        Some(json!({"sessionId": id, "projectHash": "5e55", "startTime": ts, "lastUpdated": ts, "kind": "main"}).to_string())
    }

    fn message(id: &str, n: usize, role: Role, text: &str, ts: &str) -> String {
        let kind = if role == Role::User { "user" } else { "gemini" };
        json!({"id": format!("{}-{n}", &id[..8]), "timestamp": ts, "type": kind, "content": [{"text": text}]}).to_string()
    }

    fn unknown_records(id: &str, ts: &str) -> Vec<String> {
        vec![
            json!({"id": format!("{}-h", &id[..8]), "timestamp": ts, "type": "hologram", "content": "not a message"}).to_string(),
            json!({"$hologram": {"frames": [1, 2]}}).to_string(),
        ]
    }
}

/// Gemini CLI sessions.
pub type GeminiWriter = JsonlWriter<Gemini>;
