//! Shared helpers for the session tests: a temporary home with fixture folders copied in.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use memory_bank_sessions::replay::{read_unit, ParsedSession};
use memory_bank_sessions::{parse_time, Env, Library, Problem, Role, Roots, SourceReader, Unit};

/// Copies the folder `from` (under tests/fixtures) into `to`, recursively.
pub fn copy_fixture(from: &str, to: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(from);
    copy_dir(&src, to);
}

pub fn copy_dir(src: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// An environment whose home is `home` and with no tool variables set.
pub fn env_with_home(home: &Path) -> Env {
    Env { home: Some(home.to_path_buf()), vars: Default::default() }
}

/// A library over `home`'s default folders, with its index in `index` (or in memory).
pub fn library(home: &Path, index: Option<&Path>) -> Library {
    let lib = Library::open(index, Roots::new(&env_with_home(home), &[])).unwrap();
    lib.refresh().unwrap();
    lib
}

/// A temp home with an empty `~/.claude/projects`, and an index file beside it.
pub struct TempHome {
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub index: PathBuf,
}

impl TempHome {
    pub fn new() -> TempHome {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".claude/projects")).unwrap();
        let index = dir.path().join("data/sessions.sqlite");
        TempHome { _dir: dir, home, index }
    }

    /// The file of Claude session `id` in `project` (the folder is created).
    pub fn session_path(&self, project: &str, id: &str) -> PathBuf {
        let p = self.home.join(".claude/projects").join(project);
        std::fs::create_dir_all(&p).unwrap();
        p.join(format!("{id}.jsonl"))
    }

    /// Writes Claude session `id` in `project`, one line per record.
    pub fn write(&self, project: &str, id: &str, lines: &[String]) -> PathBuf {
        let path = self.session_path(project, id);
        std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        path
    }

    /// A library over this home with its index file, refreshed.
    pub fn library(&self) -> Library {
        library(&self.home, Some(&self.index))
    }
}

/// A temp home holding the Claude fixtures at `~/.claude`.
pub fn claude_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    copy_fixture("claude", &home.join(".claude"));
    (dir, home)
}

/// A temp home holding every tool's fixtures, as the users' machines do.
pub fn full_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    copy_fixture("claude", &home.join(".claude"));
    copy_fixture("codex/home", &home.join(".codex"));
    copy_fixture("gemini/home/.gemini", &home.join(".gemini"));
    copy_fixture("opencode/json-tree/storage", &home.join(".local/share/opencode/storage"));
    (dir, home)
}

/// The listing and every transcript an index answers for the roots `keys`.
pub fn index_answers(index: &memory_bank_sessions::Index, keys: &[String]) -> serde_json::Value {
    let filter = memory_bank_sessions::index::ListFilter { limit: 200, ..Default::default() };
    let list = index.list(keys, &filter).unwrap();
    let transcripts: Vec<_> = list
        .sessions
        .iter()
        .map(|s| {
            let found = index.find(keys, &s.session_id, Some(s.source)).unwrap().unwrap();
            index.messages_before(found.row, s.message_count, 100_000).unwrap()
        })
        .collect();
    serde_json::json!({ "list": list, "transcripts": transcripts })
}

/// The units `reader` finds under `root`, and what it could not read.
pub fn discover(reader: &dyn SourceReader, root: &Path) -> (Vec<Unit>, Vec<Problem>) {
    let mut units = Vec::new();
    let mut problems = Vec::new();
    reader.discover(root, &mut units, &mut problems);
    (units, problems)
}

/// The unit whose path contains `needle`.
pub fn unit_named(units: &[Unit], needle: &str) -> Unit {
    units
        .iter()
        .find(|u| u.path.to_string_lossy().contains(needle))
        .unwrap_or_else(|| panic!("no unit for {needle}: {units:#?}"))
        .clone()
}

/// Reads a one-session unit without an index.
pub fn read_one(reader: &dyn SourceReader, unit: &Unit) -> ParsedSession {
    let mut sessions = read_unit(reader, unit).unwrap();
    assert_eq!(sessions.len(), 1);
    sessions.remove(0)
}

/// An RFC 3339 time as ms since the epoch.
pub fn ms(s: &str) -> Option<i64> {
    Some(parse_time(s).unwrap())
}

/// `(message_id, role, text)` of every message.
pub fn messages(s: &ParsedSession) -> Vec<(String, Role, String)> {
    s.messages.iter().map(|m| (m.message_id.clone(), m.role, m.text.clone())).collect()
}
