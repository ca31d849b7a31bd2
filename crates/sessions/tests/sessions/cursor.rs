//! The Cursor reader on generated stores shaped as the editor and the CLI write them (no
//! Cursor can run here: it is a closed-source desktop app and the CLI downloads its binary
//! from Cursor's servers): the 2025 global store with its `composerHeaders` catalog, tool
//! calls and a sub-agent; the store before the catalog, with workspaces found through the
//! workspace databases; inline conversations; the old chat panel's tabs; the CLI's
//! content-addressed `store.db`; reads of changes only; nothing written to any store;
//! links out of the root.

use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as common, read_unit, reader, SourceReader, TitleRank};
use memory_bank_sessions::{Env, Role, Source};
use rusqlite::{params, Connection};
use serde_json::{json, Value};

/// The tables of Cursor's global `state.vscdb` (2025 on).
const SCHEMA: &str = "
    CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER, lastUpdatedAt INTEGER,
        isArchived INTEGER, isSubagent INTEGER, recency INTEGER, checkpointAt INTEGER, value TEXT, subagentTypeName TEXT);
";

fn cursor() -> &'static dyn SourceReader {
    reader(Source::Cursor)
}

fn user_dir(home: &Path) -> PathBuf {
    home.join(".config/Cursor/User")
}

fn db(path: &Path, schema: &str) -> Connection {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(schema).unwrap();
    conn
}

fn kv(conn: &Connection, key: &str, value: &Value) {
    conn.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![key, value.to_string()]).unwrap();
}

fn bubble(id: &str, kind: i64, text: &str, created: &str) -> Value {
    json!({"_v": 3, "type": kind, "bubbleId": id, "text": text, "createdAt": created, "codeBlocks": []})
}

/// Every session under the default roots of `home`, by session id.
fn read_all(home: &Path) -> Vec<common::ParsedSession> {
    let env = common::env_with_home(home);
    let mut out = Vec::new();
    for root in cursor().default_roots(&env) {
        let (units, problems) = common::discover(cursor(), &root);
        assert!(problems.is_empty(), "{problems:?}");
        for unit in units {
            out.extend(read_unit(cursor(), &unit).unwrap());
        }
    }
    out.sort_by(|a, b| a.session_id.cmp(&b.session_id));
    out
}

fn texts(s: &common::ParsedSession) -> Vec<(Role, String)> {
    s.messages.iter().map(|m| (m.role, m.text.clone())).collect()
}

/// A composer of the 2025 layout: its data, head row, and bubbles.
fn modern_store(home: &Path) -> PathBuf {
    let path = user_dir(home).join("globalStorage/state.vscdb");
    let conn = db(&path, SCHEMA);
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    let id = "0b7c9a8e-1111-4aaa-8bbb-000000000001";
    let identity = json!({"id": "ws-atlas", "uri": {"$mid": 1, "fsPath": "/home/ana/atlas", "external": "file:///home/ana/atlas", "path": "/home/ana/atlas", "scheme": "file"}});
    let headers = json!([{"bubbleId": "b1", "type": 1}, {"bubbleId": "b2", "type": 2, "serverBubbleId": "s2"},
                         {"bubbleId": "b3", "type": 2}, {"bubbleId": "b4", "type": 2}, {"bubbleId": "b5", "type": 1}]);
    kv(&conn, &format!("composerData:{id}"), &json!({"_v": 10, "composerId": id, "name": "Fix the flaky deploy test",
        "createdAt": 1_772_359_200_000_i64, "lastUpdatedAt": 1_772_359_500_000_i64, "fullConversationHeadersOnly": headers,
        "conversationMap": {}, "workspaceIdentifier": identity, "originalFileStates": {"/home/ana/atlas/a.rs": {"content": "HUGE"}}}));
    kv(&conn, &format!("bubbleId:{id}:b1"), &bubble("b1", 1, "why does the deploy test flake?", "2026-03-01T10:00:00.000Z"));
    let mut thinking = bubble("b2", 2, "", "2026-03-01T10:00:05.000Z");
    thinking["thinking"] = json!({"text": "let me look", "signature": "x"});
    thinking["toolFormerData"] = json!({"tool": 5, "name": "read_file_v2", "toolCallId": "toolu_01", "status": "completed",
                                        "params": "{\"targetFile\":\"deploy_test.rs\"}", "result": "{\"contents\":\"...\"}"});
    kv(&conn, &format!("bubbleId:{id}:b2"), &thinking);
    let mut task = bubble("b3", 2, "", "2026-03-01T10:00:06.000Z");
    task["toolFormerData"] = json!({"name": "task_v2", "toolCallId": "toolu_02", "params": {"prompt": "search"}});
    kv(&conn, &format!("bubbleId:{id}:b3"), &task);
    kv(&conn, &format!("bubbleId:{id}:b4"), &bubble("b4", 2, "It races the **migration**; wait for it.", "2026-03-01T10:00:09.000Z"));
    kv(&conn, &format!("bubbleId:{id}:b5"), &bubble("b5", 1, "thanks", "2026-03-01T10:01:00.000Z"));
    // A bubble no header names (an edited turn's old branch).
    kv(&conn, &format!("bubbleId:{id}:old"), &bubble("old", 1, "the question before the edit", "2026-03-01T09:59:00.000Z"));
    conn.execute(
        "INSERT INTO composerHeaders (composerId, workspaceId, createdAt, lastUpdatedAt, isArchived, isSubagent, value)
         VALUES (?1, 'ws-atlas', 1772359200000, 1772359500000, 0, 0, ?2)",
        params![id, json!({"composerId": id, "name": "Fix the flaky deploy test", "workspaceIdentifier": identity}).to_string()],
    )
    .unwrap();
    // The sub-agent the task tool started.
    let sub = "task-toolu_02";
    kv(&conn, &format!("composerData:{sub}"), &json!({"composerId": sub, "fullConversationHeadersOnly": [{"bubbleId": "t1", "type": 1}, {"bubbleId": "t2", "type": 2}]}));
    kv(&conn, &format!("bubbleId:{sub}:t1"), &bubble("t1", 1, "search the repo", "2026-03-01T10:00:06.500Z"));
    kv(&conn, &format!("bubbleId:{sub}:t2"), &bubble("t2", 2, "found it", "2026-03-01T10:00:08.000Z"));
    conn.execute(
        "INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, isSubagent, value) VALUES (?1, 1772359206000, 1772359208000, 1, '{}')",
        [sub],
    )
    .unwrap();
    // Rows of other kinds.
    conn.execute("INSERT INTO cursorDiskKV VALUES ('agentKv:blob:ab', x'0a0b0c')", []).unwrap();
    conn.execute("INSERT INTO ItemTable VALUES ('cursorAuth/cachedEmail', 'ana@example.com')", []).unwrap();
    path
}

#[test]
fn a_composer_reads_with_title_workspace_tool_calls_and_its_sub_agent_hidden() {
    let home = tempfile::tempdir().unwrap();
    modern_store(home.path());
    let sessions = read_all(home.path());
    assert_eq!(sessions.len(), 2);
    let main = &sessions[0];
    assert_eq!(main.session_id.as_deref(), Some("0b7c9a8e-1111-4aaa-8bbb-000000000001"));
    assert_eq!(main.title_candidate, Some((TitleRank::Generated, "Fix the flaky deploy test".into())));
    assert_eq!(main.workspace.as_deref(), Some("/home/ana/atlas"));
    assert_eq!((main.created, main.updated), (Some(1_772_359_200_000), Some(1_772_359_500_000)));
    assert!(!main.hidden);
    assert_eq!(
        common::messages(main),
        [
            ("b1".to_string(), Role::User, "why does the deploy test flake?".to_string()),
            ("b4".to_string(), Role::Assistant, "It races the **migration**; wait for it.".to_string()),
            ("b5".to_string(), Role::User, "thanks".to_string()),
        ]
    );
    assert_eq!(main.messages[0].timestamp, common::ms("2026-03-01T10:00:00.000Z"));
    let calls: Vec<_> = main.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect();
    assert_eq!(calls, [("toolu_01", "read_file_v2", 0), ("toolu_02", "task_v2", 0)]);
    let sub = &sessions[1];
    assert_eq!(sub.session_id.as_deref(), Some("task-toolu_02"));
    assert!(sub.hidden);
    assert_eq!(texts(sub), [(Role::User, "search the repo".to_string()), (Role::Assistant, "found it".to_string())]);
}

#[test]
fn a_read_of_changes_takes_only_the_composers_updated_since() {
    let home = tempfile::tempdir().unwrap();
    let path = modern_store(home.path());
    let env = common::env_with_home(home.path());
    let root = cursor().default_roots(&env).remove(0);
    let (units, _) = common::discover(cursor(), &root);
    let unit = units.iter().find(|u| u.path == path).unwrap();
    let all = cursor().parse_whole_since(unit, None).unwrap();
    assert_eq!(all.sessions.len(), 2);
    assert_eq!(all.mark, Some(1_772_359_500_000));
    let mut present = all.present.clone().unwrap();
    present.sort();
    assert_eq!(present, ["0b7c9a8e-1111-4aaa-8bbb-000000000001", "task-toolu_02"]);
    // Nothing newer: only the composer stamped at the mark's millisecond is read again,
    // and everything is still present.
    let none = cursor().parse_whole_since(unit, all.mark).unwrap();
    assert_eq!(none.sessions.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), ["0b7c9a8e-1111-4aaa-8bbb-000000000001"]);
    assert_eq!(none.present.as_ref().map(Vec::len), Some(2));
    // The sub-agent goes on: it is read (with the boundary composer), and the mark moves.
    let conn = Connection::open(&path).unwrap();
    conn.execute("UPDATE composerHeaders SET lastUpdatedAt = 1772359600000 WHERE composerId = 'task-toolu_02'", []).unwrap();
    let changed = cursor().parse_whole_since(unit, all.mark).unwrap();
    let mut keys: Vec<_> = changed.sessions.iter().map(|s| s.key.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["0b7c9a8e-1111-4aaa-8bbb-000000000001", "task-toolu_02"]);
    assert_eq!(changed.mark, Some(1_772_359_600_000));
    let next = cursor().parse_whole_since(unit, changed.mark).unwrap();
    assert_eq!(next.sessions.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), ["task-toolu_02"]);
}

#[test]
fn reading_leaves_every_store_byte_for_byte_and_creates_nothing() {
    let home = tempfile::tempdir().unwrap();
    let path = modern_store(home.path());
    // Cursor has quit: its WAL was checkpointed away.
    Connection::open(&path).unwrap().pragma_update(None, "journal_mode", "delete").unwrap();
    let snapshot = || {
        let mut files: Vec<(PathBuf, Vec<u8>)> = walk(home.path()).into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect();
        files.sort();
        files
    };
    let before = snapshot();
    assert_eq!(read_all(home.path()).len(), 2);
    assert_eq!(snapshot(), before, "no -wal, -shm or journal created, nothing changed");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn before_the_catalog_workspaces_come_from_the_workspace_databases() {
    let home = tempfile::tempdir().unwrap();
    let user = user_dir(home.path());
    let global = db(&user.join("globalStorage/state.vscdb"), SCHEMA);
    // 0.4x-era composers: no catalog table, no workspaceIdentifier.
    kv(&global, "composerData:c-old", &json!({"composerId": "c-old", "name": "Old chat", "createdAt": 1_730_000_000_000_i64,
        "fullConversationHeadersOnly": [{"bubbleId": "x1", "type": 1}, {"bubbleId": "x2", "type": 2}]}));
    kv(&global, "bubbleId:c-old:x1", &json!({"type": 1, "bubbleId": "x1", "text": "rename the module"}));
    kv(&global, "bubbleId:c-old:x2", &json!({"type": 2, "bubbleId": "x2", "text": "Renamed."}));
    // The composer with its conversation inline (before bubbles had rows of their own).
    kv(&global, "composerData:c-inline", &json!({"composerId": "c-inline", "conversation": [
        {"type": 1, "bubbleId": "i1", "text": "inline question"}, {"type": 2, "bubbleId": "i2", "text": "inline answer"}]}));
    global.execute("DROP TABLE composerHeaders", []).unwrap();
    let ws = user.join("workspaceStorage/9f1e2d");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("workspace.json"), r#"{"folder": "file:///home/ana/My%20Notes"}"#).unwrap();
    let wsdb = db(&ws.join("state.vscdb"), "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);");
    wsdb.execute("INSERT INTO ItemTable VALUES ('composer.composerData', ?1)",
        [json!({"allComposers": [{"composerId": "c-old", "name": "Old chat", "lastUpdatedAt": 1_730_000_100_000_i64}], "selectedComposerIds": ["c-old"]}).to_string()])
        .unwrap();
    let sessions = read_all(home.path());
    let by_id = |id: &str| sessions.iter().find(|s| s.session_id.as_deref() == Some(id)).unwrap();
    let old = by_id("c-old");
    assert_eq!(old.workspace.as_deref(), Some("/home/ana/My Notes"));
    assert_eq!(texts(old), [(Role::User, "rename the module".to_string()), (Role::Assistant, "Renamed.".to_string())]);
    let inline = by_id("c-inline");
    assert_eq!(texts(inline), [(Role::User, "inline question".to_string()), (Role::Assistant, "inline answer".to_string())]);
    assert_eq!(sessions.len(), 2, "the workspace database holds no conversation of its own");
}

#[test]
fn the_old_chat_panel_and_inline_composers_of_a_workspace_are_read_once() {
    let home = tempfile::tempdir().unwrap();
    let user = user_dir(home.path());
    let global = db(&user.join("globalStorage/state.vscdb"), SCHEMA);
    kv(&global, "composerData:moved", &json!({"composerId": "moved", "fullConversationHeadersOnly": []}));
    let ws = user.join("workspaceStorage/abc123");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("workspace.json"), r#"{"folder": "file:///home/ana/atlas"}"#).unwrap();
    let wsdb = db(&ws.join("state.vscdb"), "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);");
    let tabs = json!({"tabs": [
        {"tabId": "tab-1", "chatTitle": "Regex help", "lastSendTime": 1_700_000_000_000_i64, "bubbles": [
            {"type": "user", "id": "u1", "text": "a regex for dates?", "selections": [{"text": "code"}]},
            {"type": "ai", "id": "a1", "text": "Use `\\d{4}-\\d{2}-\\d{2}`.", "modelType": "gpt-4"}]},
        {"tabId": "tab-empty", "chatTitle": "", "bubbles": []},
        "not a tab"]});
    wsdb.execute("INSERT INTO ItemTable VALUES ('workbench.panel.aichat.view.aichat.chatdata', ?1)", [tabs.to_string()]).unwrap();
    let composers = json!({"allComposers": [
        {"composerId": "inline-1", "name": "Inline composer", "createdAt": 1_710_000_000_000_i64, "conversation": [
            {"type": 1, "bubbleId": "q", "text": "add a test"}, {"type": 2, "bubbleId": "r", "text": "Added."}]},
        {"composerId": "moved", "conversation": [{"type": 1, "bubbleId": "m", "text": "read in the global store"}]}]});
    wsdb.execute("INSERT INTO ItemTable VALUES ('composer.composerData', ?1)", [composers.to_string()]).unwrap();
    let sessions = read_all(home.path());
    let ids: Vec<_> = sessions.iter().map(|s| s.session_id.clone().unwrap()).collect();
    assert_eq!(ids, ["inline-1", "moved", "tab-1", "tab-empty"]);
    let tab = &sessions[2];
    assert_eq!(tab.title_candidate, Some((TitleRank::Generated, "Regex help".into())));
    assert_eq!(tab.workspace.as_deref(), Some("/home/ana/atlas"));
    assert_eq!(common::messages(tab)[1], ("a1".to_string(), Role::Assistant, "Use `\\d{4}-\\d{2}-\\d{2}`.".to_string()));
    assert_eq!(texts(&sessions[0]), [(Role::User, "add a test".to_string()), (Role::Assistant, "Added.".to_string())]);
    assert_eq!(sessions[0].workspace.as_deref(), Some("/home/ana/atlas"));
    assert!(sessions[1].messages.is_empty(), "the global copy wins, and it is empty");
}

/// A CLI chat: `meta` row `0` (hex JSON), message blobs, and a protobuf root naming them.
fn cli_store(dir: &Path, messages: &[Value]) {
    use sha2::{Digest, Sha256};
    let conn = db(&dir.join("store.db"), "CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);");
    let mut root = Vec::new();
    for m in messages {
        let data = m.to_string().into_bytes();
        let hash = Sha256::digest(&data);
        // Content-addressed: a message sent twice is one blob the root names twice.
        conn.execute("INSERT OR IGNORE INTO blobs VALUES (?1, ?2)", params![hex(&hash), data]).unwrap();
        root.extend([0x0a, 32]);
        root.extend_from_slice(&hash);
    }
    let uri = b"file:///home/ana/cli%20app";
    root.extend([0x4a, uri.len() as u8]);
    root.extend_from_slice(uri);
    root.extend([0x10, 0x05]);
    let root_id = hex(&Sha256::digest(&root));
    conn.execute("INSERT INTO blobs VALUES (?1, ?2)", params![root_id, root]).unwrap();
    let meta = json!({"agentId": "7d3e", "latestRootBlobId": root_id, "name": "Deploy script", "mode": "default",
                      "createdAt": 1_772_000_000_000_i64, "lastUsedModel": "auto"});
    conn.execute("INSERT INTO meta VALUES ('0', ?1)", [hex(meta.to_string().as_bytes())]).unwrap();
    // A blob no root names (an earlier state of the chat).
    conn.execute("INSERT INTO blobs VALUES ('orphan', ?1)", [json!({"role": "user", "content": "stale"}).to_string()]).unwrap();
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_cli_chat_reads_in_root_order_without_injected_context() {
    let home = tempfile::tempdir().unwrap();
    let chat = home.path().join(".cursor/chats/5e1a0c6b2f/0198a1b2-chat");
    cli_store(&chat, &[
        json!({"role": "system", "content": "You are an agent."}),
        json!({"role": "user", "content": "<user_info>OS: linux</user_info>"}),
        json!({"role": "user", "content": [{"type": "text", "text": "<user_info>cwd</user_info>\n<user_query>\nwrite the deploy script\n</user_query>"}]}),
        json!({"id": "m3", "role": "assistant", "content": [{"type": "text", "text": "<think>plan</think>On it."},
            {"type": "tool-call", "toolCallId": "call_1", "toolName": "Write", "args": {"path": "deploy.sh"}}]}),
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_1", "toolName": "Write", "result": "ok"}]}),
        json!({"role": "assistant", "content": "Done: `deploy.sh`."}),
        json!({"role": "user", "content": [{"type": "text", "text": "<user_query>again</user_query>"}]}),
        json!({"role": "user", "content": [{"type": "text", "text": "<user_query>again</user_query>"}]}),
    ]);
    let sessions = read_all(home.path());
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.session_id.as_deref(), Some("0198a1b2-chat"), "the folder's name, as the CLI resumes it");
    assert_eq!(s.title_candidate, Some((TitleRank::Generated, "Deploy script".into())));
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/cli app"));
    assert_eq!(s.created, Some(1_772_000_000_000));
    assert_eq!(
        texts(s),
        [
            (Role::User, "write the deploy script".to_string()),
            (Role::Assistant, "On it.".to_string()),
            (Role::Assistant, "Done: `deploy.sh`.".to_string()),
            (Role::User, "again".to_string()),
            (Role::User, "again".to_string()),
        ]
    );
    assert_eq!(s.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect::<Vec<_>>(), [("call_1", "Write", 1)]);
}

#[test]
fn roots_on_this_os_follow_the_variables() {
    let env = Env { home: Some("/h".into()), vars: Default::default() };
    let roots = cursor().default_roots(&env);
    if cfg!(target_os = "linux") {
        assert_eq!(roots, [PathBuf::from("/h/.config/Cursor/User"), PathBuf::from("/h/.cursor/chats")]);
        let env = Env {
            home: Some("/h".into()),
            vars: [("XDG_CONFIG_HOME", "/x"), ("CURSOR_CONFIG_DIR", "/c")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        };
        assert_eq!(cursor().default_roots(&env), [PathBuf::from("/x/Cursor/User"), PathBuf::from("/c/chats")]);
    }
    assert_eq!(roots.len(), 2);
}

#[cfg(unix)]
#[test]
fn stores_linked_from_outside_the_root_are_reported_not_read() {
    let home = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = modern_store(outside.path());
    let user = user_dir(home.path());
    std::fs::create_dir_all(user.join("globalStorage")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, user.join("globalStorage/state.vscdb")).unwrap();
    let chats = home.path().join(".cursor/chats/hash");
    std::fs::create_dir_all(&chats).unwrap();
    std::os::unix::fs::symlink(outside.path(), chats.join("linked-chat")).unwrap();
    let (units, problems) = common::discover(cursor(), &user);
    assert!(units.is_empty());
    assert_eq!(problems.len(), 1, "{problems:?}");
    let (units, problems) = common::discover(cursor(), &home.path().join(".cursor/chats"));
    assert!(units.is_empty());
    assert_eq!(problems.len(), 1, "{problems:?}");
}
