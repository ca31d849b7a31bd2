//! The test kit of the session history (feature `testing`): temporary homes holding the
//! checked-in fixtures or files written on the spot, an opencode database with opencode's
//! own schema ([`opencode`]), goose's and Crush's ([`goose`], [`crush`]), and the crate's internals that tests reach into.
//!
//! One place, so that the crate's tests, the workspace tests that run the real binaries
//! (CLI, MCP, desktop) and the sessions bench cannot drift apart. Everything here panics
//! on I/O errors: it is for tests and benches, never for the doors.

pub mod crush;
pub mod goose;
pub mod opencode;

use std::path::{Path, PathBuf};

use crate::{parse_time, Env, Library, Problem, Role, Roots, Source};

/// The internals the tests check directly; not part of the API the doors use.
pub use crate::events::{Event, Merge, MessageEvent, MetaEvent, TitleRank};
pub use crate::index::{search_path, FoundSession, Index, ListCursor, ListFilter, SearchCursor, SearchFilter};
pub use crate::jsonl::{parse_line, read_complete_lines, MAX_LINE_BYTES};
pub use crate::replay::{read_unit, ParsedMessage, ParsedSession, ParsedToolCall};
pub use crate::source::{LineParser, LinePos, SourceReader, Unit, UnitKind, WholeRead, WholeSession};
pub use crate::sources::{all, reader};

/// Where a plaintext archive's encrypted copy is written before it replaces it.
pub fn archive_staging_path(archive: &Path) -> PathBuf {
    crate::archive::staging_path(archive)
}

/// The variables that move the tools' folders; cleared so that only `HOME` decides.
pub const TOOL_VARS: [&str; 6] = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "GEMINI_CLI_HOME", "QWEN_HOME", "QWEN_RUNTIME_DIR"];

/// The checked-in fixtures (`crates/sessions/tests/fixtures`).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Copies the fixture folder `from` (under [`fixtures`]) into `to`.
pub fn copy_fixture(from: &str, to: &Path) {
    copy_dir(&fixtures().join(from), to);
}

/// Copies a folder recursively.
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

/// Fills `home` with the fixtures of every tool in its default place: Claude Code, Codex,
/// Gemini CLI and opencode (JSON tree), as the users' machines hold them.
pub fn populate_home(home: &Path) {
    copy_fixture("claude", &home.join(".claude"));
    copy_fixture("codex/home", &home.join(".codex"));
    copy_fixture("gemini/home/.gemini", &home.join(".gemini"));
    copy_fixture("opencode/json-tree/storage", &home.join(".local/share/opencode/storage"));
}

/// A temp home holding every tool's fixtures ([`populate_home`]).
pub fn full_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    populate_home(&home);
    (dir, home)
}

/// A temp home holding the Claude fixtures at `~/.claude`.
pub fn claude_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    copy_fixture("claude", &home.join(".claude"));
    (dir, home)
}

/// One Claude Code record line (no newline), in workspace `/work/live`.
pub fn claude_line(kind: &str, uuid: &str, text: &str, timestamp: &str) -> String {
    let message = if kind == "user" {
        serde_json::json!({"role": "user", "content": text})
    } else {
        serde_json::json!({"id": format!("msg_{uuid}"), "role": "assistant", "content": [{"type": "text", "text": text}]})
    };
    serde_json::json!({"type": kind, "uuid": uuid, "cwd": "/work/live", "timestamp": timestamp, "message": message})
        .to_string()
}

/// An environment whose home is `home`, with no tool variables set.
pub fn env_with_home(home: &Path) -> Env {
    Env { home: Some(home.to_path_buf()), vars: Default::default() }
}

/// The key the kit's libraries and indexes use: none, unless `MEMORY_BANK_SESSIONS_TEST_KEY`
/// is set (to anything), which runs the suite over encrypted indexes and archives (one
/// random key for the whole test process). Tests that read the files with plain SQLite,
/// or reopen them without a key on purpose, fail then.
pub fn suite_key() -> Option<crate::DbKey> {
    static KEY: std::sync::OnceLock<Option<crate::DbKey>> = std::sync::OnceLock::new();
    KEY.get_or_init(|| std::env::var_os("MEMORY_BANK_SESSIONS_TEST_KEY").filter(|v| !v.is_empty()).map(|_| crate::DbKey::generate()))
        .clone()
}

/// A connection to a file of the index or the archive, keyed with [`suite_key`] when there
/// is one, for tests that look inside them (or hold their locks).
pub fn connection(path: &Path) -> rusqlite::Connection {
    open_keyed(path, suite_key().as_ref()).unwrap()
}

/// A connection to a file of the index or the archive, keyed with `key` the way the
/// library keys its own (tests, benchmarks).
pub fn open_keyed(path: &Path, key: Option<&crate::DbKey>) -> Result<rusqlite::Connection, Box<dyn std::error::Error + Send + Sync>> {
    let conn = rusqlite::Connection::open(path)?;
    if let Some(key) = key {
        crate::keyed::apply(&conn, key)?;
    }
    Ok(conn)
}

/// A library over `home`'s default folders with its index at `index` (in memory when
/// `None`), refreshed.
pub fn library(home: &Path, index: Option<&Path>) -> Library {
    let lib = Library::open(index, Roots::new(&env_with_home(home), &[]), suite_key()).unwrap();
    lib.refresh().unwrap();
    lib
}

/// A temp home with an empty `~/.claude/projects`, and an index file beside it.
pub struct TempHome {
    _dir: tempfile::TempDir,
    /// The home folder.
    pub home: PathBuf,
    /// The index file (`data/sessions.sqlite`, not created until opened).
    pub index: PathBuf,
}

impl Default for TempHome {
    fn default() -> Self {
        Self::new()
    }
}

impl TempHome {
    /// A new, empty home.
    pub fn new() -> TempHome {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".claude/projects")).unwrap();
        let index = dir.path().join("data/sessions.sqlite");
        TempHome { _dir: dir, home, index }
    }

    /// The folder the home and the index are in.
    pub fn dir(&self) -> &Path {
        self._dir.path()
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

    /// Every tool's default folders in this home.
    pub fn roots(&self) -> Vec<(Source, PathBuf)> {
        Roots::new(&env_with_home(&self.home), &[]).0
    }

    /// The roots as the index names them (what its queries take).
    pub fn root_keys(&self) -> Vec<String> {
        self.roots().iter().map(|(_, p)| p.to_string_lossy().into_owned()).collect()
    }

    /// A library over this home with its index file, refreshed.
    pub fn library(&self) -> Library {
        library(&self.home, Some(&self.index))
    }

    /// The index file opened on its own (no search indexer), refreshed.
    pub fn index(&self) -> Index {
        let mut index = Index::open(&self.index, suite_key().as_ref()).unwrap();
        index.refresh(&self.roots()).unwrap();
        index
    }
}

/// The listing and every transcript an index answers for the roots `keys`.
pub fn index_answers(index: &Index, keys: &[String]) -> serde_json::Value {
    let filter = ListFilter { limit: 200, ..Default::default() };
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
