//! opencode ≤ 1.1's JSON tree: a session file, a file per message and one per part, in
//! `~/.local/share/opencode/storage`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use serde_json::json;

use crate::suite::{splice, uuid_for, Clock, SessionWriter, RAW};

/// opencode's id of session `name`.
pub fn session_id(name: &str) -> String {
    format!("ses_{}", &uuid_for(name).replace('-', "")[..26])
}

/// Writes JSON-tree sessions.
pub struct OpencodeTreeWriter {
    storage: PathBuf,
    clock: Clock,
    /// Messages written per session id, and the session's creation time.
    sessions: HashMap<String, (usize, i64)>,
    /// A part file written in half, and its whole content.
    half: Option<(PathBuf, Vec<u8>)>,
}

impl OpencodeTreeWriter {
    fn session_file(&self, id: &str) -> PathBuf {
        self.storage.join("session/global").join(format!("{id}.json"))
    }

    fn write_file(path: &Path, bytes: &[u8]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Rewrites the session file with `updated` as its activity time.
    fn touch_session(&mut self, id: &str, updated: i64) {
        let created = self.sessions.get(id).map_or(updated, |s| s.1);
        let session = json!({"id": id, "slug": "brave-otter", "version": "1.1.10", "projectID": "global",
            "directory": "/work/suite", "title": "New session - 2026-03-01T10:00:00.000Z",
            "time": {"created": created, "updated": updated}});
        Self::write_file(&self.session_file(id), session.to_string().as_bytes());
    }

    /// Writes the next message file of session `name` (of `role`) and returns its id and time.
    fn next_message(&mut self, name: &str, role: &str) -> (String, String, i64) {
        let id = session_id(name);
        let ts = self.clock.tick();
        let entry = self.sessions.entry(id.clone()).or_insert((0, ts));
        entry.0 += 1;
        let message_id = format!("msg_{:012x}{}", entry.0, &id[4..18]);
        let mut message = json!({"id": message_id, "sessionID": id, "role": role, "time": {"created": ts}});
        if role == "assistant" {
            message["time"]["completed"] = json!(ts + 900);
            message["modelID"] = json!("claude-sonnet-4");
            message["providerID"] = json!("anthropic");
            message["mode"] = json!("build");
        }
        let path = self.storage.join("message").join(&id).join(format!("{message_id}.json"));
        Self::write_file(&path, message.to_string().as_bytes());
        self.touch_session(&id, ts);
        (id, message_id, ts)
    }

    fn part_path(&self, message_id: &str) -> PathBuf {
        self.storage.join("part").join(message_id).join(format!("prt_{}.json", &message_id[4..]))
    }

    fn text_part(id: &str, message_id: &str, text: &str, ts: i64) -> String {
        json!({"id": format!("prt_{}", &message_id[4..]), "sessionID": id, "messageID": message_id,
               "type": "text", "text": text, "time": {"start": ts, "end": ts}})
        .to_string()
    }
}

impl SessionWriter for OpencodeTreeWriter {
    const SOURCE: Source = Source::Opencode;

    fn new(home: &Path) -> Self {
        let storage = home.join(".local/share/opencode/storage");
        OpencodeTreeWriter { storage, clock: Clock::default(), sessions: HashMap::new(), half: None }
    }

    fn session_id(&self, name: &str) -> String {
        session_id(name)
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        let id = session_id(name);
        // Gone with the old content: its message files and their parts.
        let folder = self.storage.join("message").join(&id);
        for entry in std::fs::read_dir(&folder).into_iter().flatten() {
            let stem = entry.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
            let _ = std::fs::remove_dir_all(self.storage.join("part").join(stem));
        }
        let _ = std::fs::remove_dir_all(&folder);
        self.sessions.remove(&id);
        let ts = self.clock.tick();
        self.sessions.insert(id.clone(), (0, ts));
        self.touch_session(&id, ts);
        for (role, text) in messages {
            self.append_message(name, *role, text);
        }
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        let (id, message_id, ts) = self.next_message(name, role.as_str());
        Self::write_file(&self.part_path(&message_id), Self::text_part(&id, &message_id, text, ts).as_bytes());
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        let (id, message_id, ts) = self.next_message(name, role.as_str());
        Self::write_file(&self.part_path(&message_id), &splice(&Self::text_part(&id, &message_id, RAW, ts), raw));
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let (id, message_id, ts) = self.next_message(name, role.as_str());
        let whole = Self::text_part(&id, &message_id, text, ts).into_bytes();
        let path = self.part_path(&message_id);
        Self::write_file(&path, &whole[..whole.len() / 2]);
        self.half = Some((path, whole));
    }

    fn finish_half_message(&mut self, _name: &str) {
        let (path, whole) = self.half.take().expect("a half-written part");
        Self::write_file(&path, &whole);
    }

    fn append_unknown_records(&mut self, name: &str) {
        // A role the reader does not know, with text.
        let (id, message_id, ts) = self.next_message(name, "narrator");
        Self::write_file(&self.part_path(&message_id), Self::text_part(&id, &message_id, "not a message", ts).as_bytes());
        // A user message whose only part is of an unknown type.
        let (id, message_id, _) = self.next_message(name, "user");
        let part = json!({"id": "prt_hologram", "sessionID": id, "messageID": message_id, "type": "hologram", "frames": [1, 2]});
        Self::write_file(&self.part_path(&message_id), part.to_string().as_bytes());
        // A file that is not a message at all.
        Self::write_file(&self.storage.join("message").join(&id).join("notes.txt"), b"not JSON");
    }

    fn append_broken_record(&mut self, name: &str) {
        let (_, message_id, _) = self.next_message(name, "user");
        Self::write_file(&self.part_path(&message_id), b"{\"type\": \"text\", \"text\": this is not JSON");
        let id = session_id(name);
        Self::write_file(&self.storage.join("message").join(&id).join("msg_ffffffffffffBroken.json"), b"\x00{{ garbage");
    }

    fn write_empty(&mut self, name: &str) {
        Self::write_file(&self.session_file(&session_id(name)), b"");
    }

    /// Moves the session file, its message folder and its messages' part folders aside.
    fn delete_session(&mut self, name: &str) {
        for (path, trash) in self.session_files(name) {
            std::fs::create_dir_all(trash.parent().unwrap()).unwrap();
            std::fs::rename(path, trash).unwrap();
        }
    }

    fn restore_session(&mut self, name: &str) {
        let trash_root = self.trash_root();
        for dir in ["session/global", "message", "part"] {
            for entry in std::fs::read_dir(trash_root.join(dir)).into_iter().flatten() {
                let entry = entry.unwrap();
                let back = self.storage.join(dir).join(entry.file_name());
                std::fs::create_dir_all(back.parent().unwrap()).unwrap();
                std::fs::rename(entry.path(), back).unwrap();
            }
        }
        let _ = name;
    }
}

impl OpencodeTreeWriter {
    fn trash_root(&self) -> PathBuf {
        self.storage.parent().unwrap().join("trash")
    }

    /// Session `name`'s files and folders, each with where it waits while deleted.
    fn session_files(&self, name: &str) -> Vec<(PathBuf, PathBuf)> {
        let id = session_id(name);
        let trash = self.trash_root();
        let mut files = vec![(self.session_file(&id), trash.join("session/global").join(format!("{id}.json")))];
        let messages = self.storage.join("message").join(&id);
        for entry in std::fs::read_dir(&messages).into_iter().flatten() {
            let stem = entry.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned();
            let parts = self.storage.join("part").join(&stem);
            if parts.exists() {
                files.push((parts, trash.join("part").join(&stem)));
            }
        }
        files.push((messages, trash.join("message").join(&id)));
        files
    }
}
