//! Imported chat exports (ChatGPT's, Claude.ai's): one JSON document per conversation in
//! `<data folder>/imports/<source>/`, rewritten whole when it changes, as an import does.
//!
//! The suite's promises, for a document rather than a log: a "record" is a message of the
//! conversation. A half-written one is what the services export for a message still being
//! answered (ChatGPT: `status: in_progress` with no parts yet; Claude.ai: an empty reply),
//! which reads as nothing until its text is there. An unknown record is a message of a role
//! or content type the reader does not know; a record that is not JSON is an element of the
//! conversation that is not a message object (a string where a message should be). Invalid
//! UTF-8 and lone surrogate escapes go inside a message's JSON string, as the raw bytes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{Role, Source};

use crate::suite::{uuid_for, Clock, SessionWriter};

/// One message as the document holds it.
pub enum Item {
    /// A message: role, its text as a JSON string literal (quotes included), its time.
    Message(Role, Vec<u8>, i64),
    /// A message still being written: role, the text it will have, and its time.
    Pending(Role, Vec<u8>, i64),
    /// Records the reader does not know.
    Unknown(i64),
    /// An element that is not a message object.
    Broken,
}

/// How one service's document is spelled.
pub trait ExportFormat {
    const SOURCE: Source;
    /// The whole conversation `id`, its items in order, created at `created`.
    fn document(id: &str, created: i64, items: &[Item]) -> Vec<u8>;
}

fn literal(text: &str) -> Vec<u8> {
    serde_json::to_vec(text).unwrap()
}

fn raw_literal(raw: &[u8]) -> Vec<u8> {
    let mut out = b"\"".to_vec();
    out.extend_from_slice(raw);
    out.push(b'"');
    out
}

/// Writes imported conversations of format `F`.
pub struct ExportWriter<F> {
    folder: PathBuf,
    clock: Clock,
    sessions: HashMap<String, (i64, Vec<Item>)>,
    format: std::marker::PhantomData<F>,
}

impl<F: ExportFormat> ExportWriter<F> {
    fn path(&self, name: &str) -> PathBuf {
        self.folder.join(format!("{}.json", uuid_for(name)))
    }

    fn trash(&self, name: &str) -> PathBuf {
        self.folder.parent().unwrap().join(format!("{}.json.deleted", uuid_for(name)))
    }

    /// Rewrites session `name`'s document from its items.
    fn flush(&self, name: &str) {
        let (created, items) = &self.sessions[name];
        std::fs::create_dir_all(&self.folder).unwrap();
        std::fs::write(self.path(name), F::document(&uuid_for(name), *created, items)).unwrap();
    }

    fn push(&mut self, name: &str, item: Item) {
        let created = self.clock.tick();
        self.sessions.entry(name.to_owned()).or_insert_with(|| (created, Vec::new())).1.push(item);
        self.flush(name);
    }
}

impl<F: ExportFormat> SessionWriter for ExportWriter<F> {
    const SOURCE: Source = F::SOURCE;

    fn new(home: &Path) -> Self {
        let data = kit::env_with_home(home).app_data_dir().unwrap();
        let folder = data.join("imports").join(F::SOURCE.as_str());
        ExportWriter { folder, clock: Clock::default(), sessions: HashMap::new(), format: std::marker::PhantomData }
    }

    fn session_id(&self, name: &str) -> String {
        uuid_for(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let created = self.clock.tick();
        let items = messages.iter().map(|(role, text)| Item::Message(*role, literal(text), self.clock.tick())).collect();
        self.sessions.insert(name.to_owned(), (created, items));
        self.flush(name);
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let at = self.clock.tick();
        self.push(name, Item::Message(role, literal(text), at));
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let at = self.clock.tick();
        self.push(name, Item::Message(role, raw_literal(raw), at));
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let at = self.clock.tick();
        self.push(name, Item::Pending(role, literal(text), at));
    }

    fn finish_half_message(&mut self, name: &str) {
        let items = &mut self.sessions.get_mut(name).unwrap().1;
        if let Some(Item::Pending(role, text, at)) = items.pop() {
            items.push(Item::Message(role, text, at));
        }
        self.flush(name);
    }

    fn append_unknown_records(&mut self, name: &str) {
        let at = self.clock.tick();
        self.push(name, Item::Unknown(at));
    }

    fn append_broken_record(&mut self, name: &str) {
        self.push(name, Item::Broken);
    }

    fn write_empty(&mut self, name: &str) {
        std::fs::create_dir_all(&self.folder).unwrap();
        std::fs::write(self.path(name), b"").unwrap();
    }

    fn delete_session(&mut self, name: &str) {
        std::fs::rename(self.path(name), self.trash(name)).unwrap();
    }

    fn restore_session(&mut self, name: &str) {
        std::fs::rename(self.trash(name), self.path(name)).unwrap();
    }
}

/// ChatGPT's conversation: a tree of nodes from a root, the current node the last one.
pub struct ChatgptFormat;

impl ExportFormat for ChatgptFormat {
    const SOURCE: Source = Source::Chatgpt;

    fn document(id: &str, created: i64, items: &[Item]) -> Vec<u8> {
        let seconds = |ms: i64| ms as f64 / 1000.0;
        let mut nodes: Vec<(String, Vec<u8>)> = Vec::new();
        for (n, item) in items.iter().enumerate() {
            let message: Vec<u8> = match item {
                Item::Message(role, text, at) => chatgpt_message(n, *role, *at, "finished_successfully", &[b"[".as_slice(), text, b"]"].concat()),
                Item::Pending(role, _, at) => chatgpt_message(n, *role, *at, "in_progress", b"[]"),
                Item::Unknown(at) => format!(
                    r#"{{"id":"m{n}","author":{{"role":"critic"}},"create_time":{},"content":{{"content_type":"hologram","frames":[1,2]}},"recipient":"all"}}"#,
                    seconds(*at)
                )
                .into_bytes(),
                Item::Broken => br#""this is not a message""#.to_vec(),
            };
            nodes.push((format!("n{n}"), message));
        }
        let mut out = format!(
            r#"{{"title":null,"create_time":{},"update_time":{},"conversation_id":"{id}","id":"{id}","current_node":"{}","mapping":{{"root":{{"id":"root","message":null,"parent":null,"children":[{}]}}"#,
            seconds(created),
            seconds(created + items.len() as i64),
            nodes.last().map_or("root".to_owned(), |(n, _)| n.clone()),
            nodes.first().map_or(String::new(), |(n, _)| format!("\"{n}\"")),
        )
        .into_bytes();
        for (i, (node, message)) in nodes.iter().enumerate() {
            let parent = if i == 0 { "root".to_owned() } else { nodes[i - 1].0.clone() };
            let children = nodes.get(i + 1).map_or(String::new(), |(n, _)| format!("\"{n}\""));
            out.extend(format!(r#","{node}":{{"id":"{node}","parent":"{parent}","children":[{children}],"message":"#).into_bytes());
            out.extend(message);
            out.push(b'}');
        }
        out.extend(b"}}");
        out
    }
}

/// A ChatGPT message with its `parts` as they are given (a JSON list, raw).
fn chatgpt_message(n: usize, role: Role, at: i64, status: &str, parts: &[u8]) -> Vec<u8> {
    let role = if role == Role::User { "user" } else { "assistant" };
    [
        format!(
            r#"{{"id":"m{n}","author":{{"role":"{role}","name":null,"metadata":{{}}}},"create_time":{},"content":{{"content_type":"text","parts":"#,
            at as f64 / 1000.0
        )
        .into_bytes(),
        parts.to_vec(),
        format!(r#"}},"status":"{status}","end_turn":true,"weight":1.0,"metadata":{{}},"recipient":"all"}}"#).into_bytes(),
    ]
    .concat()
}

/// Claude.ai's conversation: its messages in order.
pub struct ClaudeAiFormat;

impl ExportFormat for ClaudeAiFormat {
    const SOURCE: Source = Source::ClaudeAi;

    fn document(id: &str, created: i64, items: &[Item]) -> Vec<u8> {
        let iso = |ms: i64| memory_bank_sessions::format_ms(ms).unwrap();
        let mut messages: Vec<Vec<u8>> = Vec::new();
        for (n, item) in items.iter().enumerate() {
            let message = match item {
                Item::Message(role, text, at) => {
                    let sender = if *role == Role::User { "human" } else { "assistant" };
                    [
                        format!(r#"{{"uuid":"c{n}","sender":"{sender}","created_at":"{}","text":"#, iso(*at)).into_bytes(),
                        text.clone(),
                        br#","content":[{"type":"text","text":"#.to_vec(),
                        text.clone(),
                        br#"}],"attachments":[],"files":[]}"#.to_vec(),
                    ]
                    .concat()
                }
                Item::Pending(role, _, at) => {
                    let sender = if *role == Role::User { "human" } else { "assistant" };
                    format!(r#"{{"uuid":"c{n}","sender":"{sender}","created_at":"{}","text":"","content":[],"attachments":[],"files":[]}}"#, iso(*at))
                        .into_bytes()
                }
                Item::Unknown(at) => format!(
                    r#"{{"uuid":"c{n}s","sender":"system","created_at":"{0}","text":"not a message","content":[]}},{{"uuid":"c{n}h","sender":"human","created_at":"{0}","text":"","content":[{{"type":"hologram","frames":[1,2]}}]}}"#,
                    iso(*at)
                )
                .into_bytes(),
                Item::Broken => br#""this is not a message""#.to_vec(),
            };
            messages.push(message);
        }
        let updated = created + items.len() as i64 * 1000;
        [
            format!(
                r#"{{"uuid":"{id}","name":"","summary":"","created_at":"{}","updated_at":"{}","account":{{"uuid":"acc"}},"chat_messages":["#,
                iso(created),
                iso(updated)
            )
            .into_bytes(),
            messages.join(b",".as_slice()),
            b"]}".to_vec(),
        ]
        .concat()
    }
}

/// Writes imported ChatGPT conversations.
pub type ChatgptWriter = ExportWriter<ChatgptFormat>;

/// Writes imported Claude.ai conversations.
pub type ClaudeAiWriter = ExportWriter<ClaudeAiFormat>;
