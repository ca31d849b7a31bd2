//! The Zed reader on `threads.db` files shaped as Zed's `ThreadsDatabase` writes them (Zed
//! is a desktop app with no headless mode that saves threads, so no real run here): the
//! agent's zstd-compressed threads with mentions, thinking, tool calls and a sub-agent; the
//! first agent panel's JSON threads; the schema before its added columns; reads of changes
//! only; corrupt rows; nothing written; links out of the root.

use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as common, read_unit, reader, SourceReader, TitleRank};
use memory_bank_sessions::{Env, Role, Source};
use rusqlite::{params, Connection};
use serde_json::json;

/// `threads` as Zed creates and then alters it (`crates/agent/src/db.rs`).
const ZED_SCHEMA: &str = "
    CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL);
    ALTER TABLE threads ADD COLUMN parent_id TEXT;
    ALTER TABLE threads ADD COLUMN folder_paths TEXT;
    ALTER TABLE threads ADD COLUMN folder_paths_order TEXT;
    ALTER TABLE threads ADD COLUMN created_at TEXT;
";

/// A zstd frame, as Zed writes each thread.
fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

fn zed() -> &'static dyn SourceReader {
    reader(Source::Zed)
}

fn threads_db(home: &Path) -> PathBuf {
    home.join(".local/share/zed/threads/threads.db")
}

fn open(path: &Path, schema: &str) -> Connection {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(schema).unwrap();
    conn
}

#[allow(clippy::too_many_arguments)]
fn insert(conn: &Connection, id: &str, summary: &str, updated: &str, kind: &str, data: Vec<u8>, parent: Option<&str>, folders: Option<(&str, &str)>) {
    conn.execute(
        "INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, updated_at, data_type, data, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?6)",
        params![id, parent, folders.map(|f| f.0), folders.map(|f| f.1), summary, updated, kind, data],
    )
    .unwrap();
}

fn agent_thread() -> serde_json::Value {
    json!({"version": "0.3.0", "title": "Speed up the build", "updated_at": "2026-03-01T10:05:00Z", "messages": [
        {"User": {"id": "6a1f-user-1", "content": [
            {"Text": "why is [@build.rs](file:///home/ana/atlas/build.rs) slow?"},
            {"Mention": {"uri": {"File": {"abs_path": "/home/ana/atlas/build.rs"}}, "content": "fn main() { /* 4000 lines */ }"}}]}},
        {"Agent": {"content": [
            {"Thinking": {"text": "look at the file", "signature": "sig"}},
            {"ToolUse": {"id": "toolu_a", "name": "grep", "raw_input": "{}", "input": {"regex": "cc::Build"}, "is_input_complete": true, "thought_signature": null}},
            {"Text": "It compiles C code on every build."}],
            "tool_results": {"toolu_a": {"tool_use_id": "toolu_a", "tool_name": "grep", "is_error": false, "content": {"Text": "build.rs:3"}, "output": null}},
            "reasoning_details": null}},
        "Resume",
        {"Agent": {"content": [{"RedactedThinking": "xx"}, {"Text": "Cache it with `rerun-if-changed`."}], "tool_results": {}}},
        {"User": {"id": "6a1f-user-2", "content": [{"Image": {"source": "iVBOR", "size": {"width": 1, "height": 1}}}]}}],
        "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": "/snapshot/path", "git_state": null}], "timestamp": "2026-03-01T10:00:00Z"},
        "cumulative_token_usage": {"input_tokens": 10}, "model": {"provider": "anthropic", "model": "claude-sonnet-4"}})
}

fn legacy_thread() -> serde_json::Value {
    json!({"version": "0.1.0", "summary": "Old panel thread", "updated_at": "2025-04-01T09:00:00Z", "messages": [
        {"id": 0, "role": "user", "segments": [{"type": "text", "text": "list the crates"}], "tool_uses": [], "tool_results": [], "context": "<files>…</files>", "creases": [], "is_hidden": false},
        {"id": 1, "role": "assistant", "segments": [{"type": "thinking", "text": "hm"}, {"type": "text", "text": "Let me look."}],
         "tool_uses": [{"id": "tu1", "name": "list_directory", "input": {"path": "crates"}}], "tool_results": [], "context": "", "creases": [], "is_hidden": false},
        {"id": 2, "role": "user", "segments": [], "tool_uses": [], "tool_results": [{"tool_use_id": "tu1", "is_error": false, "content": "a\nb", "output": null}], "context": "", "creases": [], "is_hidden": false},
        {"id": 3, "role": "assistant", "segments": [{"type": "text", "text": "Two crates: a and b."}], "tool_uses": [], "tool_results": []},
        {"id": 4, "role": "user", "segments": [{"type": "text", "text": "auto-continue"}], "is_hidden": true},
        {"id": 5, "role": "system", "segments": [{"type": "text", "text": "system prompt"}]}],
        "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": "/home/ana/old", "git_state": null}], "unsaved_buffer_paths": [], "timestamp": "2025-04-01T08:00:00Z"}})
}

fn read_all(home: &Path) -> Vec<common::ParsedSession> {
    let env = common::env_with_home(home);
    let mut out = Vec::new();
    for root in zed().default_roots(&env) {
        let (units, problems) = common::discover(zed(), &root);
        assert!(problems.is_empty(), "{problems:?}");
        for unit in units {
            out.extend(read_unit(zed(), &unit).unwrap());
        }
    }
    out.sort_by(|a, b| a.session_id.cmp(&b.session_id));
    out
}

fn texts(s: &common::ParsedSession) -> Vec<(Role, String)> {
    s.messages.iter().map(|m| (m.role, m.text.clone())).collect()
}

fn store(home: &Path) -> PathBuf {
    let path = threads_db(home);
    let conn = open(&path, ZED_SCHEMA);
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    insert(&conn, "a-agent", "Speed up the build", "2026-03-01T10:05:00+00:00", "zstd", zstd(agent_thread().to_string().as_bytes()), None,
        Some(("/home/ana/atlas\n/home/ana/zeta", "1,0")));
    insert(&conn, "b-legacy", "Old panel thread", "2025-04-01T09:00:00+00:00", "json", legacy_thread().to_string().into_bytes(), None, None);
    let sub = json!({"version": "0.3.0", "title": "New Thread", "updated_at": "2026-03-01T10:03:00Z", "messages": [
        {"User": {"id": "s1", "content": [{"Text": "find the slow step"}]}}, {"Agent": {"content": [{"Text": "the cc step"}], "tool_results": {}}}],
        "subagent_context": {"parent_thread_id": "a-agent", "depth": 1}});
    insert(&conn, "c-sub", "New Thread", "2026-03-01T10:03:00+00:00", "zstd", zstd(sub.to_string().as_bytes()), Some("a-agent"), None);
    path
}

#[test]
fn agent_and_first_panel_threads_read_with_their_facts() {
    let home = tempfile::tempdir().unwrap();
    store(home.path());
    let sessions = read_all(home.path());
    assert_eq!(sessions.len(), 3);
    let agent = &sessions[0];
    assert_eq!(agent.session_id.as_deref(), Some("a-agent"));
    assert_eq!(agent.title_candidate, Some((TitleRank::Generated, "Speed up the build".into())));
    assert_eq!(agent.workspace.as_deref(), Some("/home/ana/zeta"), "the first folder in the project's order");
    assert_eq!(agent.updated, common::ms("2026-03-01T10:05:00Z"));
    assert_eq!(
        common::messages(agent),
        [
            ("6a1f-user-1".to_string(), Role::User, "why is [@build.rs](file:///home/ana/atlas/build.rs) slow?".to_string()),
            ("a-agent#1".to_string(), Role::Assistant, "It compiles C code on every build.".to_string()),
            ("a-agent#3".to_string(), Role::Assistant, "Cache it with `rerun-if-changed`.".to_string()),
        ]
    );
    assert_eq!(agent.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect::<Vec<_>>(), [("toolu_a", "grep", 1)]);
    assert!(!agent.hidden);

    let legacy = &sessions[1];
    assert_eq!(legacy.title_candidate, Some((TitleRank::Generated, "Old panel thread".into())));
    assert_eq!(legacy.workspace.as_deref(), Some("/home/ana/old"), "from the project snapshot");
    assert_eq!(
        texts(legacy),
        [
            (Role::User, "list the crates".to_string()),
            (Role::Assistant, "Let me look.".to_string()),
            (Role::Assistant, "Two crates: a and b.".to_string()),
        ]
    );
    assert_eq!(legacy.tool_calls.len(), 1);

    let sub = &sessions[2];
    assert!(sub.hidden);
    assert_eq!(sub.title_candidate, None, "Zed's placeholder is no title");
    assert_eq!(texts(sub).len(), 2);
}

#[test]
fn a_read_of_changes_decompresses_only_the_threads_saved_since() {
    let home = tempfile::tempdir().unwrap();
    let path = store(home.path());
    let (units, _) = common::discover(zed(), threads_db(home.path()).parent().unwrap());
    assert_eq!(units.len(), 1);
    let all = zed().parse_whole_since(&units[0], None).unwrap();
    assert_eq!(all.sessions.len(), 3);
    assert_eq!(all.mark, common::ms("2026-03-01T10:05:00Z"));
    assert!(zed().parse_whole_since(&units[0], all.mark).unwrap().sessions.len() == 1, "the boundary millisecond is read again");
    let conn = Connection::open(&path).unwrap();
    conn.execute("UPDATE threads SET updated_at = '2026-03-01T11:00:00+00:00' WHERE id = 'b-legacy'", []).unwrap();
    let later = common::ms("2026-03-01T10:06:00Z");
    let changed = zed().parse_whole_since(&units[0], later).unwrap();
    assert_eq!(changed.sessions.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), ["b-legacy"]);
    assert_eq!(changed.present.unwrap().len(), 3);
}

#[test]
fn the_schema_before_its_added_columns_and_corrupt_rows_read() {
    let home = tempfile::tempdir().unwrap();
    let conn = open(
        &threads_db(home.path()),
        "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL);",
    );
    let put = |id: &str, kind: &str, data: Vec<u8>| {
        conn.execute("INSERT INTO threads VALUES (?1, 'T', '2025-05-01T00:00:00Z', ?2, ?3)", params![id, kind, data]).unwrap();
    };
    put("good", "json", legacy_thread().to_string().into_bytes());
    let frame = zstd(agent_thread().to_string().as_bytes());
    put("cut", "zstd", frame[..frame.len() / 2].to_vec());
    put("garbage", "zstd", b"\x00\x01 not a frame".to_vec());
    put("unknown-type", "brotli", b"\x8b\x00".to_vec());
    let sessions = read_all(home.path());
    let by_id = |id: &str| sessions.iter().find(|s| s.session_id.as_deref() == Some(id)).unwrap();
    assert_eq!(by_id("good").messages.len(), 3);
    for id in ["cut", "garbage", "unknown-type"] {
        assert!(by_id(id).messages.is_empty(), "{id}");
    }
}

#[test]
fn reading_leaves_the_database_byte_for_byte_and_creates_nothing() {
    let home = tempfile::tempdir().unwrap();
    let path = store(home.path());
    Connection::open(&path).unwrap().pragma_update(None, "journal_mode", "delete").unwrap();
    let dir = path.parent().unwrap();
    let snapshot = || {
        let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let before = snapshot();
    assert_eq!(before.len(), 1);
    assert_eq!(read_all(home.path()).len(), 3);
    assert_eq!(snapshot(), before);
}

#[test]
fn roots_on_this_os_follow_the_variables() {
    let with = |vars: &[(&str, &str)]| Env {
        home: Some("/h".into()),
        vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    let roots = zed().default_roots(&with(&[]));
    if cfg!(target_os = "linux") {
        assert_eq!(roots, [PathBuf::from("/h/.local/share/zed/threads")]);
        assert_eq!(zed().default_roots(&with(&[("XDG_DATA_HOME", "/x")])), [PathBuf::from("/x/zed/threads")]);
        assert_eq!(
            zed().default_roots(&with(&[("XDG_DATA_HOME", "/x"), ("FLATPAK_XDG_DATA_HOME", "/f")])),
            [PathBuf::from("/f/zed/threads")]
        );
    }
    assert_eq!(roots.len(), 1);
}

#[test]
fn the_data_folder_itself_is_a_root_too() {
    let home = tempfile::tempdir().unwrap();
    store(home.path());
    let (units, problems) = common::discover(zed(), &home.path().join(".local/share/zed"));
    assert!(problems.is_empty());
    assert_eq!(units.len(), 1);
}

#[cfg(unix)]
#[test]
fn a_database_linked_from_outside_the_root_is_reported_not_read() {
    let home = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = store(outside.path());
    let root = home.path().join("threads");
    std::fs::create_dir_all(&root).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("threads.db")).unwrap();
    let (units, problems) = common::discover(zed(), &root);
    assert!(units.is_empty());
    assert_eq!(problems.len(), 1, "{problems:?}");
}
