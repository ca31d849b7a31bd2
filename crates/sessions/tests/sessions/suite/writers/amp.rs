//! Amp: `~/.local/share/amp/threads/T-<uuid>.json`, one pretty-printed JSON document per
//! thread (`JSON.stringify(thread, null, 2)`), rewritten whole on every change: written to
//! `<file>.amptmp`, then renamed over the thread (shapes as Amp's CLI 0.0.1773432280
//! wrote them).
//!
//! What each promise is for a document Amp renames into place:
//! - a message appended: the document written again with one more message;
//! - a half-written record: Amp never writes a thread in place, so a write cut short (or
//!   not yet done) is its `.amptmp` file holding the first half of the new document,
//!   beside the previous, whole thread; finishing it renames the complete file over the
//!   thread;
//! - a record that is not JSON: a document has no records outside JSON (one stray byte
//!   breaks the whole file, which Amp then refuses as corrupted), so this is elements of
//!   `messages` that are not messages (a string, a number, `null`, an array, an object
//!   of the wrong field types) and, beside the thread, a temporary file a crash left cut
//!   short;
//! - unknown records: messages of roles and block types the reader does not know, and
//!   known ones that are not messages (a compaction summary, a shell command the person
//!   ran, reasoning only, a tool result, a hook's message, a sub-agent's);
//! - an empty file: a thread file of zero bytes;
//! - a deleted session: `amp threads delete`, which deletes the file (moved aside here,
//!   to put back).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use serde_json::{json, Value};

use crate::suite::{splice, uuid_for, Clock, SessionWriter, RAW};

/// The workspace every suite thread runs in.
const WORKSPACE: &str = "/work/suite";

/// One thread: its messages already serialized (raw bytes stay as written).
#[derive(Default)]
struct Thread {
    created: i64,
    version: u64,
    elements: Vec<Vec<u8>>,
    next_id: u64,
}

/// Writes Amp threads.
pub struct AmpWriter {
    threads_dir: PathBuf,
    trash: PathBuf,
    clock: Clock,
    threads: HashMap<String, Thread>,
    /// A message written only into the temporary file so far, per thread id.
    pending: HashMap<String, Vec<u8>>,
}

fn thread_id(name: &str) -> String {
    format!("T-{}", uuid_for(name))
}

/// `value` pretty-printed as `JSON.stringify` does, indented to sit in `messages`, with
/// [`RAW`] replaced by `raw` when given.
fn element(value: &Value, raw: Option<&[u8]>) -> Vec<u8> {
    let pretty = serde_json::to_string_pretty(value).unwrap();
    let indented = pretty.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n");
    match raw {
        Some(raw) => splice(&indented, raw),
        None => indented.into_bytes(),
    }
}

impl AmpWriter {
    fn path(&self, id: &str) -> PathBuf {
        self.threads_dir.join(format!("{id}.json"))
    }

    /// Thread `id`'s document with `elements` as its messages.
    fn document(&self, id: &str, thread: &Thread, elements: &[Vec<u8>]) -> Vec<u8> {
        let head = format!("{{\n  \"v\": {},\n  \"id\": \"{id}\",\n  \"created\": {},\n  \"messages\": [", thread.version, thread.created);
        let mut out = head.into_bytes();
        for (i, e) in elements.iter().enumerate() {
            out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
            out.extend_from_slice(e);
        }
        out.extend_from_slice(if elements.is_empty() { b"]" } else { b"\n  ]" });
        let env = json!({"initial": {"trees": [{"displayName": "suite", "uri": format!("file://{WORKSPACE}")}],
            "platform": {"os": "linux", "client": "CLI Execute Mode", "clientVersion": "0.0.1773432280-gcd86a7", "clientType": "cli"},
            "tags": ["model:claude-opus-4-6"]}});
        let env = serde_json::to_string_pretty(&env).unwrap().replace('\n', "\n  ");
        let tail = format!(",\n  \"agentMode\": \"smart\",\n  \"nextMessageId\": {},\n  \"meta\": {{\n    \"traces\": []\n  }},\n  \"env\": {env}\n}}", thread.next_id);
        out.extend_from_slice(tail.as_bytes());
        out
    }

    /// Writes thread `id` as Amp does: the temporary file, renamed over the thread.
    fn save(&mut self, id: &str) {
        let thread = self.threads.get_mut(id).unwrap();
        thread.version += 1;
        let thread = &self.threads[id];
        let bytes = self.document(id, thread, &thread.elements);
        let path = self.path(id);
        let temporary = path.with_extension("json.amptmp");
        std::fs::create_dir_all(&self.threads_dir).unwrap();
        std::fs::write(&temporary, bytes).unwrap();
        std::fs::rename(temporary, path).unwrap();
    }

    /// The next message of thread `id` (its text placed as `raw`, when given).
    fn message(&mut self, id: &str, role: Role, text: &str, raw: Option<&[u8]>) -> Vec<u8> {
        let ts = self.clock.tick();
        let thread = self.threads.entry(id.to_string()).or_insert_with(|| Thread { created: ts - 1000, ..Default::default() });
        let n = thread.next_id;
        thread.next_id += 1;
        let text = if raw.is_some() { RAW } else { text };
        let value = match role {
            Role::User => json!({"role": "user", "messageId": n, "content": [{"type": "text", "text": text}],
                "userState": {"currentlyVisibleFiles": []}, "agentMode": "smart", "meta": {"sentAt": ts}}),
            Role::Assistant => json!({"role": "assistant", "messageId": n, "content": [{"type": "text", "text": text}],
                "state": {"type": "complete", "stopReason": "end_turn"},
                "usage": {"model": "claude-opus-4-6", "maxInputTokens": 168000, "inputTokens": 100, "outputTokens": 10,
                    "cacheCreationInputTokens": null, "cacheReadInputTokens": null, "totalInputTokens": 100,
                    "timestamp": memory_bank_sessions::format_ms(ts).unwrap()},
                "turnElapsedMs": 42}),
        };
        element(&value, raw)
    }

    fn add(&mut self, id: &str, elements: Vec<Vec<u8>>) {
        self.threads.entry(id.to_string()).or_default().elements.extend(elements);
        self.save(id);
    }

    /// The next message id of thread `id`, taken.
    fn take_id(&mut self, id: &str) -> u64 {
        let thread = self.threads.entry(id.to_string()).or_default();
        thread.next_id += 1;
        thread.next_id - 1
    }
}

impl SessionWriter for AmpWriter {
    const SOURCE: Source = Source::Amp;

    fn new(home: &Path) -> Self {
        AmpWriter {
            threads_dir: home.join(".local/share/amp/threads"),
            trash: home.parent().unwrap().join("trash"),
            clock: Clock::default(),
            threads: HashMap::new(),
            pending: HashMap::new(),
        }
    }

    fn session_id(&self, name: &str) -> String {
        thread_id(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = thread_id(name);
        let version = self.threads.get(&id).map_or(0, |t| t.version);
        self.threads.insert(id.clone(), Thread { created: self.clock.tick(), version, ..Default::default() });
        let elements: Vec<Vec<u8>> = messages.iter().map(|(role, text)| self.message(&id, *role, text, None)).collect();
        self.add(&id, elements);
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let id = thread_id(name);
        let element = self.message(&id, role, text, None);
        self.add(&id, vec![element]);
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let id = thread_id(name);
        let element = self.message(&id, role, "", Some(raw));
        self.add(&id, vec![element]);
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let id = thread_id(name);
        let element = self.message(&id, role, text, None);
        let thread = &self.threads[&id];
        let mut elements = thread.elements.clone();
        elements.push(element.clone());
        let whole = self.document(&id, thread, &elements);
        std::fs::write(self.path(&id).with_extension("json.amptmp"), &whole[..whole.len() / 2]).unwrap();
        self.pending.insert(id, element);
    }

    fn finish_half_message(&mut self, name: &str) {
        let id = thread_id(name);
        let element = self.pending.remove(&id).expect("a half-written message");
        self.add(&id, vec![element]);
    }

    fn append_unknown_records(&mut self, name: &str) {
        let id = thread_id(name);
        let ids: Vec<u64> = (0..8).map(|_| self.take_id(&id)).collect();
        let values = [
            json!({"role": "narrator", "messageId": ids[0], "content": [{"type": "text", "text": "no such role"}]}),
            json!({"role": "info", "messageId": ids[1], "content": [{"type": "summary",
                "summary": {"type": "message", "summary": "Compacted: the plan so far."}}]}),
            json!({"role": "info", "messageId": ids[2], "content": [{"type": "manual_bash_invocation",
                "args": {"cmd": "ls"}, "toolRun": {"status": "done", "result": {"output": "a\n", "exitCode": 0}}, "hidden": false}]}),
            json!({"role": "assistant", "messageId": ids[3], "content": [
                {"type": "thinking", "thinking": "reasoning, not a reply", "signature": "sig"},
                {"type": "hologram", "frames": [1, 2]}], "state": {"type": "complete", "stopReason": "end_turn"}}),
            json!({"role": "user", "messageId": ids[4], "content": [{"type": "tool_result", "toolUseID": "toolu_suite",
                "run": {"status": "done", "result": {"output": "tool output, not a message", "exitCode": 0}}}]}),
            json!({"role": "user", "messageId": ids[5], "content": [{"type": "text", "text": "sent by a hook"}],
                "source": {"type": "hook", "hook": "on-start"}}),
            json!({"role": "assistant", "messageId": ids[6], "content": [{"type": "text", "text": "a sub-agent's reply"}],
                "state": {"type": "complete", "stopReason": "end_turn"}, "parentToolUseId": "toolu_task"}),
            json!({"role": "user", "messageId": ids[7], "content": [{"type": "hologram", "text": "not a text block"}]}),
        ];
        let elements = values.iter().map(|v| element(v, None)).collect();
        self.add(&id, elements);
    }

    fn append_broken_record(&mut self, name: &str) {
        let id = thread_id(name);
        let elements = [
            br#"    "this is not a message""#.to_vec(),
            b"    42".to_vec(),
            b"    null".to_vec(),
            b"    [1, 2]".to_vec(),
            br#"    {"role": 7, "messageId": {"not": "an id"}, "content": "text", "meta": [1]}"#.to_vec(),
        ];
        self.add(&id, elements.to_vec());
        let temporary = self.threads_dir.join(format!("{id}.json.amptmp"));
        std::fs::write(temporary, b"{\n  \"v\": this is not JSON \x00\xff").unwrap();
    }

    fn write_empty(&mut self, name: &str) {
        std::fs::create_dir_all(&self.threads_dir).unwrap();
        std::fs::write(self.path(&thread_id(name)), b"").unwrap();
    }

    fn delete_session(&mut self, name: &str) {
        let id = thread_id(name);
        std::fs::create_dir_all(&self.trash).unwrap();
        std::fs::rename(self.path(&id), self.trash.join(&id)).unwrap();
    }

    fn restore_session(&mut self, name: &str) {
        let id = thread_id(name);
        std::fs::rename(self.trash.join(&id), self.path(&id)).unwrap();
    }
}
