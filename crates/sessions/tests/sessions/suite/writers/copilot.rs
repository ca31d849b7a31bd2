//! GitHub Copilot CLI: `~/.copilot/session-state/<sessionId>/events.jsonl`, opened by a
//! `session.start` event, with `workspace.yaml` beside it naming the session (in prompt
//! mode, as here, its first prompt). Events are chained by `parentId`; a reply is written
//! between `assistant.turn_start` and `assistant.turn_end`, as Copilot CLI 1.0.102 writes
//! them. Deleting a session removes its whole folder (moved aside here, to put back).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use serde_json::{json, Value};

use super::jsonl::{JsonlFormat, JsonlWriter};
use crate::suite::{uuid_for, Clock, SessionWriter};

/// The workspace every suite session runs in.
const CWD: &str = "/work/suite";

/// Copilot CLI's events.
pub struct Copilot;

/// The id of event `what` of message `n` (from 1) of session `id`; message 0 is the start.
fn event_id(id: &str, n: usize, what: &str) -> String {
    uuid_for(&format!("{id}/{n}/{what}"))
}

/// The last event message `n` writes, which the next one continues from.
fn last_event(id: &str, n: usize) -> String {
    event_id(id, n, if n == 0 { "start" } else { "end" })
}

fn event(kind: &str, id: String, parent: String, ts: &str, data: Value) -> String {
    json!({"type": kind, "data": data, "id": id, "timestamp": ts, "parentId": parent}).to_string()
}

fn session_dir(home: &Path, id: &str) -> PathBuf {
    home.join(".copilot/session-state").join(id)
}

impl JsonlFormat for Copilot {
    const SOURCE: Source = Source::CopilotCli;

    fn path(home: &Path, id: &str) -> PathBuf {
        session_dir(home, id).join("events.jsonl")
    }

    fn header(id: &str, ts: &str) -> Option<String> {
        let data = json!({"sessionId": id, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.102",
            "startTime": ts, "selectedModel": "claude-sonnet-4.5", "contextTier": null,
            "context": {"cwd": CWD, "gitRoot": CWD, "branch": "main"}, "alreadyInUse": false, "remoteSteerable": false});
        Some(json!({"type": "session.start", "data": data, "id": last_event(id, 0), "timestamp": ts, "parentId": null}).to_string())
    }

    fn message(id: &str, n: usize, role: Role, text: &str, ts: &str) -> String {
        let parent = last_event(id, n - 1);
        match role {
            Role::User => {
                let data = json!({"content": text, "transformedContent": format!("<current_datetime>{ts}</current_datetime>\n\n{text}"),
                    "messageId": event_id(id, n, "logical"), "supportedNativeDocumentMimeTypes": [], "delivery": "idle",
                    "interactionId": event_id(id, n, "interaction"), "turnId": "0"});
                event("user.message", last_event(id, n), parent, ts, data)
            }
            Role::Assistant => {
                let start = event_id(id, n, "start");
                let reply = event_id(id, n, "reply");
                let data = json!({"messageId": event_id(id, n, "message"), "model": "claude-sonnet-4.5", "content": text,
                    "toolRequests": [], "interactionId": event_id(id, n, "interaction"), "turnId": "0", "apiCallId": "msg_suite"});
                [
                    event("assistant.turn_start", start.clone(), parent, ts, json!({"turnId": "0"})),
                    event("assistant.message", reply.clone(), start, ts, data),
                    event("assistant.turn_end", last_event(id, n), reply, ts, json!({"turnId": "0"})),
                ]
                .join("\n")
            }
        }
    }

    fn unknown_records(id: &str, ts: &str) -> Vec<String> {
        let e = |what: &str| event_id(id, 0, &format!("{ts}/{what}"));
        vec![
            // A new event type, events that are not messages, and messages that are not
            // the person's or the agent's words: a sub-agent's, a skill's hidden prompt.
            event("hologram.snapshot", e("a"), e("p"), ts, json!({"frames": [1, 2]})),
            event("system.message", e("b"), e("a"), ts, json!({"role": "system", "content": "You are the GitHub Copilot CLI."})),
            event("session.info", e("c"), e("b"), ts, json!({"infoType": "folder_trust", "message": "Folder trusted."})),
            event("assistant.reasoning", e("d"), e("c"), ts, json!({"reasoningId": "r1", "content": "thinking, not a reply"})),
            json!({"type": "user.message", "data": {"content": "a sub-agent's prompt"}, "agentId": e("agent"), "id": e("e"),
                "timestamp": ts, "parentId": e("d")})
            .to_string(),
            event("user.message", e("f"), e("e"), ts, json!({"content": "a skill's hidden prompt", "source": "skill-pdf"})),
            event("assistant.message", e("g"), e("f"), ts, json!({"messageId": "m", "content": {"not": "text"}, "hologram": true})),
        ]
    }
}

/// Writes Copilot CLI sessions: their events through [`JsonlWriter`], and each session's
/// `workspace.yaml` (named after its first prompt, as prompt mode names it).
pub struct CopilotCliWriter {
    events: JsonlWriter<Copilot>,
    home: PathBuf,
    clock: Clock,
    /// The first prompt of each session, its name.
    names: HashMap<String, String>,
}

impl CopilotCliWriter {
    /// Writes session `name`'s `workspace.yaml` as the CLI does (a `|-` block for a
    /// multi-line name).
    fn write_workspace(&mut self, name: &str) {
        let id = uuid_for(name);
        let dir = session_dir(&self.home, &id);
        std::fs::create_dir_all(&dir).unwrap();
        let title = match self.names.get(name) {
            Some(title) if title.contains('\n') => {
                format!("name: |-\n{}\n", title.lines().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"))
            }
            // Plain when nothing in it means something to YAML, else double-quoted.
            Some(title) if title.starts_with(|c: char| c.is_alphanumeric())
                && title.chars().all(|c| c.is_alphanumeric() || " ,.?-".contains(c)) =>
            {
                format!("name: {title}\n")
            }
            Some(title) => format!("name: {}\n", serde_json::to_string(title).unwrap()),
            None => String::new(),
        };
        let now = self.clock.tick_iso();
        let yaml = format!(
            "id: {id}\ncwd: {CWD}\ngit_root: {CWD}\nbranch: main\nclient_name: github/cli\n{title}user_named: false\nsummary_count: 0\nfork_count: 0\ncreated_at: 2026-03-01T10:00:00.000Z\nupdated_at: {now}\n"
        );
        std::fs::write(dir.join("workspace.yaml"), yaml).unwrap();
    }

    fn trash(&self, name: &str) -> PathBuf {
        self.home.parent().unwrap().join("trash").join(uuid_for(name))
    }
}

impl SessionWriter for CopilotCliWriter {
    const SOURCE: Source = Source::CopilotCli;

    fn new(home: &Path) -> Self {
        CopilotCliWriter { events: JsonlWriter::new(home), home: home.to_path_buf(), clock: Clock::default(), names: HashMap::new() }
    }

    fn session_id(&self, name: &str) -> String {
        uuid_for(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        self.events.write_session(name, messages);
        match messages.first() {
            Some((_, first)) => self.names.insert(name.to_string(), first.to_string()),
            None => self.names.remove(name),
        };
        self.write_workspace(name);
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        self.events.append_message(name, role, text);
        self.names.entry(name.to_string()).or_insert_with(|| text.to_string());
        self.write_workspace(name);
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        self.events.append_raw_message(name, role, raw);
        self.write_workspace(name);
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        self.events.append_half_message(name, role, text);
    }

    fn finish_half_message(&mut self, name: &str) {
        self.events.finish_half_message(name);
        self.write_workspace(name);
    }

    fn append_unknown_records(&mut self, name: &str) {
        self.events.append_unknown_records(name);
    }

    fn append_broken_record(&mut self, name: &str) {
        self.events.append_broken_record(name);
    }

    fn write_empty(&mut self, name: &str) {
        self.events.write_empty(name);
    }

    fn delete_session(&mut self, name: &str) {
        let trash = self.trash(name);
        std::fs::create_dir_all(trash.parent().unwrap()).unwrap();
        std::fs::rename(session_dir(&self.home, &uuid_for(name)), trash).unwrap();
    }

    fn restore_session(&mut self, name: &str) {
        std::fs::rename(self.trash(name), session_dir(&self.home, &uuid_for(name))).unwrap();
    }
}
