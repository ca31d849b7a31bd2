//! Cline's and Roo Code's task folders: `tasks/<taskId>/ui_messages.json` (the rows the
//! extension shows), `api_conversation_history.json` (what the model gets) and
//! `task_metadata.json`, with the task's history entry in Cline's `state/taskHistory.json`
//! or Roo Code's `tasks/<taskId>/history_item.json` (and its `tasks/_index.json` cache),
//! in VS Code's global storage (the reader's first default root). Every change rewrites
//! the whole documents, compact JSON as `JSON.stringify` writes them.
//!
//! What each promise is in a folder of whole documents:
//! - a message appended: the documents rewritten with one more row (the person's follow-up
//!   is a `user_feedback` row, the agent's text an `api_req_started` row then a `text` row);
//! - a half-written record: `ui_messages.json` rewritten in place and cut inside the new
//!   row, as older versions' `fs.writeFile` (and a crash mid-write) leave it; current
//!   versions write a temporary file and rename it, so they never show a cut document;
//! - a record that is not JSON: a document has no records outside JSON (one stray byte
//!   breaks the whole file, which `JSON.parse` and the extension then reject), so this is
//!   rows that are not message objects (a string, a number, `null`, an array, an object of
//!   the wrong field types) and, beside the document, the temporary file a crash between
//!   writing and renaming leaves, cut short;
//! - unknown records: rows of kinds the reader does not know, and known rows that are not
//!   messages (reasoning, API requests, checkpoints, empty text);
//! - an empty file: a task folder whose `ui_messages.json` has zero bytes;
//! - a deleted session: the extension's "delete task" (the folder removed and the history
//!   entry dropped), moved aside here so that it can be put back.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{Role, Source};
use serde_json::{json, Value};

use crate::suite::{splice, uuid_for, Clock, SessionWriter, RAW};

/// What differs between the two extensions' folders.
pub trait Extension {
    /// The extension.
    const SOURCE: Source;
    /// The id the extension gives task `name`.
    fn task_id(name: &str) -> String;
    /// The row that opens a task: Cline `say: task`, Roo Code `say: text`.
    const TASK_SAY: &'static str;
    /// How the first request wraps the task (`<task>` or `<user_message>`).
    const TASK_TAG: &'static str;
    /// The heading of the workspace in the environment details.
    const WORKSPACE_HEADING: &'static str;
    /// The name of the temporary file a write leaves when the extension stops before
    /// renaming it.
    fn temporary_file(ts: i64) -> String;
    /// Writes the history entry of a task (`None`: drops it).
    fn write_history(storage: &Path, id: &str, entry: Option<Value>);
}

/// The workspace every suite task runs in.
const WORKSPACE: &str = "/work/suite";

/// Writes the task folders of extension `E`.
pub struct TaskWriter<E> {
    /// The extension's global storage folder.
    storage: PathBuf,
    /// Where deleted task folders wait (outside the home).
    trash: PathBuf,
    clock: Clock,
    tasks: HashMap<String, Task>,
    /// The row of a half-written message, not yet in its task.
    half: Option<Message>,
    extension: PhantomData<E>,
}

/// One task's documents, each element already serialized (so raw bytes stay as written).
#[derive(Default)]
struct Task {
    rows: Vec<Vec<u8>>,
    api: Vec<Vec<u8>>,
    created: i64,
    updated: i64,
    /// The task as typed (the history entry's `task`).
    text: String,
}

/// The elements one message adds to the two documents.
struct Message {
    id: String,
    rows: Vec<Vec<u8>>,
    api: Vec<u8>,
    ts: i64,
    text: String,
}

impl<E: Extension> TaskWriter<E> {
    fn dir(&self, id: &str) -> PathBuf {
        self.storage.join("tasks").join(id)
    }

    /// The rows and request of the next message of task `name`, its text placed by `place`
    /// into the serialized JSON (the text itself, or [`RAW`] to splice raw bytes in).
    fn message(&mut self, name: &str, role: Role, text: &str, place: impl Fn(&str) -> Vec<u8>) -> Message {
        let id = E::task_id(name);
        let first = self.tasks.get(&id).is_none_or(|t| t.rows.is_empty());
        let ts = self.clock.tick();
        let mut rows = Vec::new();
        let api = match role {
            Role::User if first => {
                let row = json!({"ts": ts, "type": "say", "say": E::TASK_SAY, "text": text, "images": [], "files": []});
                rows.push(place(&row.to_string()));
                let details = format!(
                    "<environment_details>\n# Current Time\n2026-03-01T10:00:00Z\n\n{} ({WORKSPACE}) Files\nREADME.md\n</environment_details>",
                    E::WORKSPACE_HEADING
                );
                let tag = E::TASK_TAG;
                json!({"role": "user", "ts": ts, "content": [
                    {"type": "text", "text": format!("<{tag}>\n{text}\n</{tag}>")},
                    {"type": "text", "text": details}]})
            }
            Role::User => {
                let row = json!({"ts": ts, "type": "say", "say": "user_feedback", "text": text, "images": [], "files": []});
                rows.push(place(&row.to_string()));
                json!({"role": "user", "ts": ts, "content": [{"type": "text", "text": format!("<feedback>\n{text}\n</feedback>")}]})
            }
            Role::Assistant => {
                let request = json!({"request": "<feedback>…</feedback>", "tokensIn": 1200, "tokensOut": 80, "cacheWrites": 0, "cacheReads": 0, "cost": 0.0042});
                rows.push(json!({"ts": ts - 500, "type": "say", "say": "api_req_started", "text": request.to_string()}).to_string().into_bytes());
                let row = json!({"ts": ts, "type": "say", "say": "text", "text": text, "partial": false});
                rows.push(place(&row.to_string()));
                json!({"role": "assistant", "ts": ts, "content": [{"type": "text", "text": text}]})
            }
        };
        Message { id, rows, api: place(&api.to_string()), ts, text: text.to_owned() }
    }

    /// Adds `message` to its task and rewrites the task's files.
    fn add(&mut self, message: Message) {
        let task = self.tasks.entry(message.id.clone()).or_default();
        if task.rows.is_empty() {
            task.created = message.ts;
            task.text = message.text.clone();
        }
        task.updated = message.ts;
        task.rows.extend(message.rows);
        task.api.push(message.api);
        self.save(&message.id);
    }

    /// Writes task `id`'s documents and history entry, in place.
    fn save(&self, id: &str) {
        let task = &self.tasks[id];
        let dir = self.dir(id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ui_messages.json"), array(&task.rows)).unwrap();
        std::fs::write(dir.join("api_conversation_history.json"), array(&task.api)).unwrap();
        let metadata = dir.join("task_metadata.json");
        if !metadata.exists() {
            let empty = json!({"files_in_context": [], "model_usage": [], "environment_history": []});
            std::fs::write(metadata, serde_json::to_string_pretty(&empty).unwrap()).unwrap();
        }
        E::write_history(&self.storage, id, Some(self.entry(id)));
    }

    /// Task `id`'s history entry (both extensions' `HistoryItem`).
    fn entry(&self, id: &str) -> Value {
        let task = &self.tasks[id];
        json!({"id": id, "number": 1, "ts": task.updated, "task": task.text, "tokensIn": 1200, "tokensOut": 80,
               "cacheWrites": 0, "cacheReads": 0, "totalCost": 0.0042, "size": 4096,
               "cwdOnTaskInitialization": WORKSPACE, "workspace": WORKSPACE, "mode": "code", "isFavorited": false})
    }

    /// Adds raw rows to task `name` (no message).
    fn add_rows(&mut self, name: &str, rows: Vec<Vec<u8>>) {
        let id = E::task_id(name);
        self.tasks.entry(id.clone()).or_default().rows.extend(rows);
        self.save(&id);
    }
}

/// `elements` as one compact JSON array.
fn array(elements: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"[".to_vec();
    for (i, element) in elements.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(element);
    }
    out.push(b']');
    out
}

impl<E: Extension> SessionWriter for TaskWriter<E> {
    const SOURCE: Source = E::SOURCE;

    fn new(home: &Path) -> Self {
        let roots = kit::reader(E::SOURCE).default_roots(&kit::env_with_home(home));
        TaskWriter {
            storage: roots[0].clone(),
            trash: home.parent().unwrap().join("trash"),
            clock: Clock::default(),
            tasks: HashMap::new(),
            half: None,
            extension: PhantomData,
        }
    }

    fn session_id(&self, name: &str) -> String {
        E::task_id(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        self.tasks.remove(&E::task_id(name));
        for (role, text) in messages {
            let message = self.message(name, *role, text, |json| json.as_bytes().to_vec());
            self.add(message);
        }
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let message = self.message(name, role, text, |json| json.as_bytes().to_vec());
        self.add(message);
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let message = self.message(name, role, RAW, |json| splice(json, raw));
        self.add(message);
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let message = self.message(name, role, text, |json| json.as_bytes().to_vec());
        let id = message.id.clone();
        let mut rows = self.tasks[&id].rows.clone();
        rows.extend(message.rows.iter().cloned());
        let whole = array(&rows);
        // Cut inside the new message's last row.
        let cut = whole.len() - 1 - message.rows.last().unwrap().len() / 2;
        std::fs::write(self.dir(&id).join("ui_messages.json"), &whole[..cut]).unwrap();
        self.half = Some(message);
    }

    fn finish_half_message(&mut self, _name: &str) {
        let message = self.half.take().expect("a half-written message");
        self.add(message);
    }

    fn append_unknown_records(&mut self, name: &str) {
        let ts = self.clock.tick();
        let rows = [
            json!({"ts": ts, "type": "say", "say": "hologram", "text": "not a message"}),
            json!({"ts": ts + 1, "type": "ask", "ask": "hologram_prompt", "text": "not a message either"}),
            json!({"ts": ts + 2, "type": "narrate", "text": "no such row type"}),
            json!({"ts": ts + 3, "type": "say", "say": "reasoning", "text": "thinking, not a message", "partial": false}),
            json!({"ts": ts + 4, "type": "say", "say": "api_req_started", "text": "{\"request\":\"x\",\"cost\":0}"}),
            json!({"ts": ts + 5, "type": "say", "say": "checkpoint_created", "lastCheckpointHash": "3f2a9c1e"}),
            json!({"ts": ts + 6, "type": "say", "say": "text", "text": "  ", "hologram": {"frames": [1, 2]}}),
        ];
        self.add_rows(name, rows.iter().map(|r| r.to_string().into_bytes()).collect());
    }

    fn append_broken_record(&mut self, name: &str) {
        let rows = [
            br#""this is not a row""#.to_vec(),
            b"42".to_vec(),
            b"null".to_vec(),
            b"[1, 2]".to_vec(),
            br#"{"ts": "soon", "type": 7, "say": ["task"], "text": {"not": "text"}}"#.to_vec(),
        ];
        self.add_rows(name, rows.to_vec());
        let ts = self.clock.tick();
        let temporary = self.dir(&E::task_id(name)).join(E::temporary_file(ts));
        std::fs::write(temporary, b"[{\"ts\": this is not JSON \x00\xff").unwrap();
    }

    fn write_empty(&mut self, name: &str) {
        let dir = self.dir(&E::task_id(name));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ui_messages.json"), b"").unwrap();
    }

    fn delete_session(&mut self, name: &str) {
        let id = E::task_id(name);
        std::fs::create_dir_all(&self.trash).unwrap();
        std::fs::rename(self.dir(&id), self.trash.join(&id)).unwrap();
        E::write_history(&self.storage, &id, None);
    }

    fn restore_session(&mut self, name: &str) {
        let id = E::task_id(name);
        std::fs::rename(self.trash.join(&id), self.dir(&id)).unwrap();
        E::write_history(&self.storage, &id, Some(self.entry(&id)));
    }
}

/// Cline: task ids are `Date.now()` strings; the history is `state/taskHistory.json`.
pub struct Cline;

impl Extension for Cline {
    const SOURCE: Source = Source::Cline;
    const TASK_SAY: &'static str = "task";
    const TASK_TAG: &'static str = "task";
    const WORKSPACE_HEADING: &'static str = "# Current Working Directory";

    fn task_id(name: &str) -> String {
        let hash = u64::from_str_radix(&uuid_for(name)[..8], 16).unwrap();
        (1_772_000_000_000 + hash % 1_000_000_000).to_string()
    }

    fn temporary_file(ts: i64) -> String {
        format!("ui_messages.json.tmp.{ts}.k3j9x2.json")
    }

    fn write_history(storage: &Path, id: &str, entry: Option<Value>) {
        let path = storage.join("state/taskHistory.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut entries: Vec<Value> =
            std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        entries.retain(|e| e["id"] != id);
        entries.extend(entry);
        std::fs::write(path, serde_json::to_vec(&entries).unwrap()).unwrap();
    }
}

/// Roo Code: task ids are UUIDs; each task folder holds its `history_item.json`, and
/// `tasks/_index.json` caches them all.
pub struct RooCode;

impl Extension for RooCode {
    const SOURCE: Source = Source::RooCode;
    const TASK_SAY: &'static str = "text";
    const TASK_TAG: &'static str = "user_message";
    const WORKSPACE_HEADING: &'static str = "# Current Workspace Directory";

    fn task_id(name: &str) -> String {
        uuid_for(name)
    }

    fn temporary_file(ts: i64) -> String {
        format!(".ui_messages.json.new_{ts}_k3j9x2.tmp")
    }

    fn write_history(storage: &Path, id: &str, entry: Option<Value>) {
        let tasks = storage.join("tasks");
        let index = tasks.join("_index.json");
        let mut entries: Vec<Value> = std::fs::read(&index)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|v| serde_json::from_value(v["entries"].clone()).ok())
            .unwrap_or_default();
        entries.retain(|e| e["id"] != id);
        if let Some(entry) = entry {
            std::fs::write(tasks.join(id).join("history_item.json"), entry.to_string()).unwrap();
            entries.push(entry);
        }
        let index_doc = json!({"version": 1, "updatedAt": 1_772_359_200_000_i64, "entries": entries});
        std::fs::write(index, index_doc.to_string()).unwrap();
    }
}

/// Writes Cline sessions.
pub type ClineWriter = TaskWriter<Cline>;

/// Writes Roo Code sessions.
pub type RooCodeWriter = TaskWriter<RooCode>;
