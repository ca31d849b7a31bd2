//! Zed's agent threads (the Agent Panel's native agent, and the first agent panel before it).
//!
//! Read from zed-industries/zed: `crates/agent/src/db.rs` (at 0642ec7: `ThreadsDatabase`,
//! `DbThread`, `DataType`), `crates/agent/src/legacy_thread.rs` (at 4410b97),
//! `crates/agent/src/thread.rs` (`Message`, `UserMessageContent`, `AgentMessageContent`),
//! `crates/paths/src/paths.rs` (at 010c9b6) and `crates/util/src/path_list.rs`.
//!
//! **Where.** `threads/threads.db` in Zed's data folder: `$FLATPAK_XDG_DATA_HOME/zed`,
//! else `$XDG_DATA_HOME/zed`, else `~/.local/share/zed` (Linux), `~/Library/Application
//! Support/Zed` (macOS), `%LOCALAPPDATA%\Zed` (Windows). (`--user-data-dir` moves it; that
//! folder can be added by hand.)
//!
//! **Format.** One SQLite database, live and in WAL mode, opened read-only (`sources::sqlite`):
//! `threads(id TEXT PRIMARY KEY, summary TEXT, updated_at TEXT (RFC 3339), data_type TEXT,
//! data BLOB, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at
//! TEXT)`, the last four added over time. `data_type` is `zstd` (every current write: JSON
//! compressed at level 3) or `json`; the JSON is one of the two thread shapes in
//! [`thread`]. `folder_paths` is the project's folders sorted and joined by newlines,
//! `folder_paths_order` the original position of each (comma-separated); the workspace is
//! the first folder in the original order, else the thread's first worktree in
//! `initial_project_snapshot`. `parent_id` (or `subagent_context` in the JSON) marks a
//! sub-agent's thread, a hidden session.
//!
//! One unit per database; each thread a session keyed by its id. The mark is the latest
//! `updated_at` (Zed sets it on every save), so a later read decompresses only the threads
//! saved since (the boundary millisecond again); `present` lists every id, so a deleted
//! thread is archived.
//!
//! **Not read.** `threads-db.1.mdb`, the LMDB store of Zed before May 2025 (Zed itself
//! moved those threads into `threads.db`); text threads (`conversations/*.zed.json`, the
//! older assistant's documents, not agent threads); threads of external agents (Claude
//! Code, Gemini CLI through ACP), which those agents keep in their own folders.

mod thread;

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::jsonl::parse_line_as;
use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession};
use crate::text::join_text;

use crate::sources::sqlite::{self, bytes_at, text_at, time_at};

/// Reads Zed's agent threads.
pub struct Zed;

const DB: &str = "threads.db";

/// A decompressed thread larger than this is not read (a corrupt frame could claim any
/// size); real threads are far smaller.
const MAX_THREAD_BYTES: u64 = 512 << 20;

/// The operating systems whose folder conventions differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Os {
    Mac,
    Windows,
    Linux,
}

impl Os {
    fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::Mac
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

fn roots_on(env: &Env, os: Os) -> Vec<PathBuf> {
    let data = match os {
        Os::Mac => env.home.as_ref().map(|h| h.join("Library").join("Application Support").join("Zed")),
        Os::Windows => env.path_or_home("LOCALAPPDATA", &["AppData", "Local"]).map(|d| d.join("Zed")),
        Os::Linux => env
            .var("FLATPAK_XDG_DATA_HOME")
            .map(PathBuf::from)
            .or_else(|| env.path_or_home("XDG_DATA_HOME", &[".local", "share"]))
            .map(|d| d.join("zed")),
    };
    data.map(|d| vec![d.join("threads")]).unwrap_or_default()
}

impl SourceReader for Zed {
    fn source(&self) -> Source {
        Source::Zed
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        roots_on(env, Os::current())
    }

    /// A root is the `threads` folder, or Zed's data folder holding it.
    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        for db in [root.join(DB), root.join("threads").join(DB)] {
            if confined.file(&db, problems) {
                let mut unit = Unit::new(Source::Zed, db.clone(), UnitKind::Whole);
                unit.fingerprint = sqlite::wal_fingerprint(&db);
                units.push(unit);
                return;
            }
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(self.parse_whole_since(unit, None)?.sessions)
    }

    fn parse_whole_since(&self, unit: &Unit, since: Option<i64>) -> std::io::Result<WholeRead> {
        read_db(&unit.path, since).map_err(sqlite::io_err)
    }
}

fn read_db(path: &Path, since: Option<i64>) -> rusqlite::Result<WholeRead> {
    let conn = sqlite::open(path)?;
    let _snapshot = conn.unchecked_transaction()?;
    if !sqlite::tables(&conn)?.contains("threads") {
        return Ok(WholeRead { sessions: Vec::new(), present: Some(Vec::new()), mark: None });
    }
    // Ids and stamps first (no data): which threads there are, and which changed.
    let mut present = Vec::new();
    let mut changed = Vec::new();
    let mut mark: Option<i64> = None;
    {
        let mut stmt = conn.prepare("SELECT id, updated_at FROM threads")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let Some(id) = text_at(row, Some(0)).filter(|s| !s.is_empty()) else { continue };
            let updated = time_at(row, Some(1));
            mark = mark.max(updated);
            if since.is_none_or(|since| updated.is_none_or(|u| u >= since)) {
                changed.push(id.clone());
            }
            present.push(id);
        }
    }
    let sessions = read_threads(&conn, since.map(|_| changed))?;
    Ok(WholeRead { sessions, present: Some(present), mark: mark.map(|m| m.max(since.unwrap_or(m))) })
}

/// Reads the threads `only` names (every thread when `None`).
fn read_threads(conn: &Connection, only: Option<Vec<String>>) -> rusqlite::Result<Vec<WholeSession>> {
    if only.as_ref().is_some_and(Vec::is_empty) {
        return Ok(Vec::new());
    }
    let only_json = only.map(|ids| serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into()));
    let sql = if only_json.is_some() {
        "SELECT * FROM threads WHERE id IN (SELECT value FROM json_each(?1))"
    } else {
        "SELECT * FROM threads"
    };
    let mut stmt = conn.prepare(sql)?;
    let cols: std::collections::HashMap<String, usize> =
        stmt.column_names().iter().enumerate().map(|(i, n)| (n.to_ascii_lowercase(), i)).collect();
    let col = |n: &str| cols.get(n).copied();
    let args: Vec<&str> = only_json.as_deref().into_iter().collect();
    let mut rows = stmt.query(rusqlite::params_from_iter(&args))?;
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    while let Some(row) = rows.next()? {
        let Some(id) = text_at(row, col("id")).filter(|s| !s.is_empty()) else { continue };
        if !seen.insert(id.clone()) {
            continue;
        }
        let get = |n: &str| text_at(row, col(n)).filter(|s| !s.trim().is_empty());
        let thread = bytes_at(row, col("data")).and_then(|data| decode(get("data_type").as_deref(), data));
        let thread = thread.as_deref().and_then(parse_line_as::<thread::Thread>).unwrap_or_default();
        let columns = Columns {
            summary: get("summary"),
            updated: time_at(row, col("updated_at")),
            created: time_at(row, col("created_at")),
            parent: get("parent_id"),
            folders: get("folder_paths"),
            order: get("folder_paths_order"),
        };
        out.push(session(id, columns, thread));
    }
    Ok(out)
}

/// The columns of a thread row besides its data.
struct Columns {
    summary: Option<String>,
    updated: Option<i64>,
    created: Option<i64>,
    parent: Option<String>,
    folders: Option<String>,
    order: Option<String>,
}

/// The thread's JSON: zstd frames decompressed, JSON as it is; `None` when it cannot be
/// read (a cut or corrupt frame), so the thread reads as empty until Zed saves it again.
fn decode(data_type: Option<&str>, data: &[u8]) -> Option<Vec<u8>> {
    match data_type {
        Some("json") => Some(data.to_vec()),
        // "zstd", and the zstd frame magic whatever the column says.
        _ if data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) => {
            // The decoder is pure Rust over untrusted bytes: a panic in it must not take
            // the index down with it.
            std::panic::catch_unwind(|| {
                let decoder = ruzstd::decoding::StreamingDecoder::new(data).ok()?;
                let mut out = Vec::new();
                decoder.take(MAX_THREAD_BYTES).read_to_end(&mut out).ok()?;
                Some(out)
            })
            .ok()
            .flatten()
        }
        _ => data.first().is_some_and(|b| *b == b'{').then(|| data.to_vec()),
    }
}

/// The first folder in the order the project had them.
fn first_folder(paths: &str, order: Option<&str>) -> Option<String> {
    let paths: Vec<&str> = paths.split('\n').filter(|p| !p.is_empty()).collect();
    let order: Vec<usize> = order.unwrap_or("").split(',').filter_map(|s| s.trim().parse().ok()).collect();
    let at = if order.len() == paths.len() { order.iter().position(|o| *o == 0).unwrap_or(0) } else { 0 };
    paths.get(at).map(|p| p.to_string())
}

/// Zed's title before one is generated.
fn real_title(title: Option<String>) -> Option<String> {
    title.map(|t| t.trim().to_string()).filter(|t| !t.is_empty() && t != "New Thread")
}

fn session(id: String, columns: Columns, thread: thread::Thread) -> WholeSession {
    let title = real_title(columns.summary).or_else(|| real_title(thread.title.string())).or_else(|| real_title(thread.summary.string()));
    let workspace = columns.folders.as_deref().and_then(|f| first_folder(f, columns.order.as_deref())).or_else(|| {
        let snapshot = thread.initial_project_snapshot.0.as_ref()?;
        snapshot.worktree_snapshots.0.iter().filter_map(|w| w.0.as_ref()?.worktree_path.as_str()).find(|p| !p.is_empty()).map(str::to_owned)
    });
    let updated = columns.updated.or_else(|| thread.updated_at.time());
    let mut events = vec![Event::Meta(MetaEvent {
        session_id: Some(id.clone()),
        title: title.map(|t| (TitleRank::Generated, t)),
        workspace,
        created: columns.created.or(updated),
        updated,
        hidden: columns.parent.is_some() || thread.subagent_context.0.is_some(),
    })];
    for (i, message) in thread.messages.0.into_iter().enumerate() {
        let Some(user) = message.user else { continue };
        let role = if user { crate::model::Role::User } else { crate::model::Role::Assistant };
        // Agent messages have no id of their own: their place in the thread names them
        // (a thread is read whole whenever it changes).
        let key = message.id.clone().unwrap_or_else(|| format!("{id}#{i}"));
        if let Some(text) = join_text(message.texts.iter().map(String::as_str)) {
            events.push(Event::message(key.clone(), key.clone(), role, text, None, Merge::Replace));
        }
        for (n, (call, name)) in message.tools.into_iter().enumerate() {
            let call = if call.is_empty() { format!("{key}:{n}") } else { call };
            events.push(Event::ToolCall { key: call, name: if name.is_empty() { "tool".into() } else { name } });
        }
    }
    WholeSession { key: id, events }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env { home: Some(PathBuf::from("/h")), vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
    }

    #[test]
    fn roots_per_os_and_variable() {
        let p = |s: &str| vec![PathBuf::from(s)];
        assert_eq!(roots_on(&env(&[]), Os::Linux), p("/h/.local/share/zed/threads"));
        assert_eq!(roots_on(&env(&[("XDG_DATA_HOME", "/x")]), Os::Linux), p("/x/zed/threads"));
        assert_eq!(roots_on(&env(&[("XDG_DATA_HOME", "/x"), ("FLATPAK_XDG_DATA_HOME", "/f")]), Os::Linux), p("/f/zed/threads"));
        assert_eq!(roots_on(&env(&[]), Os::Mac), p("/h/Library/Application Support/Zed/threads"));
        assert_eq!(roots_on(&env(&[]), Os::Windows), p("/h/AppData/Local/Zed/threads"));
        assert_eq!(roots_on(&env(&[("LOCALAPPDATA", "/l")]), Os::Windows), p("/l/Zed/threads"));
    }

    #[test]
    fn the_first_folder_is_the_first_the_project_had() {
        assert_eq!(first_folder("/a\n/b", Some("1,0")).as_deref(), Some("/b"));
        assert_eq!(first_folder("/a\n/b", Some("0,1")).as_deref(), Some("/a"));
        assert_eq!(first_folder("/a\n/b", Some("junk")).as_deref(), Some("/a"));
        assert_eq!(first_folder("", None), None);
    }

    #[test]
    fn corrupt_frames_are_nothing() {
        assert_eq!(decode(Some("zstd"), &[0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]), None);
        assert_eq!(decode(Some("zstd"), b"not zstd"), None);
        assert_eq!(decode(Some("json"), b"{}").as_deref(), Some(&b"{}"[..]));
        let frame = ruzstd::encoding::compress_to_vec(&b"{\"title\":\"x\"}"[..], ruzstd::encoding::CompressionLevel::Fastest);
        assert_eq!(decode(Some("zstd"), &frame).as_deref(), Some(&b"{\"title\":\"x\"}"[..]));
    }
}
