//! `sessions.db`: a store built with goose's schema and rows shaped as goose writes them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit, read_unit, Index, TitleRank};
use memory_bank_sessions::{Role, Source};
use rusqlite::{params, Connection};
use serde_json::{json, Value};

use super::{discover, read_root, reader, texts, tools, SCHEMA};

/// 2026-03-01T10:00:00Z in seconds, as goose's `created_timestamp`.
const T0: i64 = 1_772_359_200;

const A: &str = "20260301_1";
const B: &str = "20260301_2";
const C: &str = "20260301_3";
const SUB: &str = "20260301_4";
const HIDDEN: &str = "20260301_5";
const ACP: &str = "20260301_6";
const EMPTY: &str = "20260301_7";
/// A session imported from a pre-1.10 `.jsonl` file: the file's name, RFC 3339 times.
const IMPORTED: &str = "20250110_093000";

const SHOWN: &str = r#"{"userVisible":true,"agentVisible":true}"#;

struct S<'a> {
    id: &'a str,
    name: &'a str,
    user_set: bool,
    kind: &'a str,
    dir: &'a str,
    created: &'a str,
    updated: &'a str,
    parent: Option<&'a str>,
}

/// A database as goose creates it, kept open (WAL) as goose keeps it.
fn create_db(path: &Path) -> Connection {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "wal").unwrap();
    conn.execute_batch(SCHEMA).unwrap();
    conn
}

fn add_session(conn: &Connection, s: S) {
    conn.execute(
        "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at, extension_data, goose_mode, parent_session_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, '{}', 'auto', ?8)",
        params![s.id, s.name, s.user_set, s.kind, s.dir, s.created, s.updated, s.parent],
    )
    .unwrap();
}

/// Inserts a message row; returns its row id.
fn add_message(conn: &Connection, session: &str, id: Option<&str>, role: &str, created: i64, content: Value, metadata: &str) -> i64 {
    conn.execute(
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, session, role, content.to_string(), created, metadata],
    )
    .unwrap();
    conn.last_insert_rowid()
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool_request(id: &str, name: &str) -> Value {
    json!({"type": "toolRequest", "id": id, "toolCall": {"status": "success", "value": {"name": name, "arguments": {"path": "/home/dev/app"}}}})
}

fn tool_response(id: &str) -> Value {
    json!({"type": "toolResponse", "id": id, "toolResult": {"status": "success", "value": {"content": [{"type": "text", "text": "ok"}], "isError": false}}})
}

/// A realistic store: titles (generated, the person's, placeholders), a sub-agent and a
/// hidden session, an ACP one, one imported from a `.jsonl` file, one without messages;
/// tool calls and their results, reasoning, text for the model only, compaction (history
/// kept for the person, a summary for the model only), rows out of time order.
fn populate(conn: &Connection) {
    let sessions = [
        S { id: A, name: "Fix the flaky upload test", user_set: false, kind: "user", dir: "/home/dev/app", created: "2026-03-01 10:00:00", updated: "2026-03-01 10:09:00", parent: None },
        S { id: B, name: "CLI Session", user_set: false, kind: "user", dir: "/home/dev/app", created: "2026-03-01 10:10:00", updated: "2026-03-01 10:20:00", parent: None },
        S { id: C, name: "Release notes", user_set: true, kind: "scheduled", dir: "/home/dev/docs", created: "2026-03-01 11:00:00", updated: "2026-03-01 11:01:00", parent: None },
        S { id: SUB, name: "Find the retry logic", user_set: false, kind: "sub_agent", dir: "/home/dev/app", created: "2026-03-01 10:02:00", updated: "2026-03-01 10:03:00", parent: Some(A) },
        S { id: HIDDEN, name: "CLI Session", user_set: false, kind: "hidden", dir: "/home/dev/app", created: "2026-03-01 12:00:00", updated: "2026-03-01 12:00:30", parent: None },
        S { id: ACP, name: "New Chat", user_set: false, kind: "acp", dir: "/home/dev/zed-project", created: "2026-03-01 13:00:00", updated: "2026-03-01 13:05:00", parent: None },
        S { id: EMPTY, name: "CLI Session", user_set: false, kind: "user", dir: "/home/dev", created: "2026-03-01 14:00:00", updated: "2026-03-01 14:00:00", parent: None },
        S { id: IMPORTED, name: "Upgrade the parser", user_set: false, kind: "user", dir: "/home/dev/old", created: "2025-01-10T09:30:00+00:00", updated: "2025-01-10T09:45:12.500+00:00", parent: None },
    ];
    for s in sessions {
        add_session(conn, s);
    }

    add_message(conn, A, Some("msg_a1"), "user", T0, json!([text("Why does the upload test fail on CI?")]), SHOWN);
    add_message(
        conn,
        A,
        Some("msg_a2"),
        "assistant",
        T0 + 10,
        json!([{"type": "thinking", "thinking": "Probably timing.", "signature": "sig"}, text("Let me look at the test."), tool_request("toolu_01", "developer__shell")]),
        SHOWN,
    );
    add_message(conn, A, Some("msg_a3"), "user", T0 + 20, json!([tool_response("toolu_01")]), SHOWN);
    add_message(conn, A, Some("msg_a4"), "assistant", T0 + 30, json!([tool_request("toolu_02", "developer__text_editor")]), SHOWN);
    add_message(conn, A, Some("msg_a5"), "user", T0 + 40, json!([tool_response("toolu_02")]), SHOWN);
    add_message(
        conn,
        A,
        Some("msg_a6"),
        "assistant",
        T0 + 50,
        json!([text("The retry waits 10 ms; CI is slower."), {"type": "text", "text": "note to self", "annotations": {"audience": ["assistant"]}}]),
        SHOWN,
    );
    // Compacted away (the model no longer sees it), still shown to the person.
    add_message(conn, A, Some("msg_a7"), "user", T0 + 60, json!([text("Raise it to 100 ms.")]), r#"{"userVisible":true,"agentVisible":false}"#);
    // The summary that replaced it, for the model only.
    add_message(conn, A, Some("msg_a8"), "user", T0 + 70, json!([text("Summary: the user wants a longer retry.")]), r#"{"userVisible":false,"agentVisible":true}"#);
    add_message(conn, A, Some("msg_a9"), "assistant", T0 + 80, json!([{"type": "reasoning", "text": "old-style reasoning"}, text("Done: the wait is 100 ms now.")]), SHOWN);

    // Rows out of time order: goose lists by (created_timestamp, row id).
    add_message(conn, B, Some("msg_b1"), "user", T0 + 600, json!([text("first")]), SHOWN);
    add_message(conn, B, Some("msg_b3"), "assistant", T0 + 800, json!([text("third")]), SHOWN);
    add_message(conn, B, Some("msg_b2"), "user", T0 + 700, json!([text("second")]), SHOWN);
    add_message(conn, B, Some("msg_b4"), "assistant", T0 + 900, json!([text("fourth, same second")]), SHOWN);
    add_message(conn, B, Some("msg_b5"), "user", T0 + 900, json!([text("fifth, same second")]), SHOWN);

    add_message(conn, C, Some("msg_c1"), "user", T0 + 3600, json!([text("Draft the release notes.")]), SHOWN);
    add_message(conn, SUB, Some("msg_s1"), "user", T0 + 125, json!([text("Find the retry logic.")]), SHOWN);
    add_message(conn, HIDDEN, Some("msg_h1"), "user", T0 + 7200, json!([text("a run without a session")]), SHOWN);
    add_message(conn, ACP, Some("msg_z1"), "user", T0 + 10_800, json!([text("Rename the module.")]), SHOWN);
    // Imported rows: no message id, a time in milliseconds, no metadata.
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?1, 'user', ?2, 1736501400000)",
        params![IMPORTED, json!([text("Upgrade the parser to 2.0.")]).to_string()],
    )
    .unwrap();
}

/// A home whose goose sessions folder holds a populated `sessions.db`.
fn home_with_db() -> (tempfile::TempDir, PathBuf, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let root = super::sessions_dir(&dir.path().join("home"));
    let conn = create_db(&root.join("sessions.db"));
    populate(&conn);
    (dir, root, conn)
}

#[test]
fn the_database_is_one_unit_and_sessions_without_messages_are_not_listed() {
    let (_dir, root, _conn) = home_with_db();
    let (units, problems) = discover(&root);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(units.len(), 1);
    let all = read_root(&root);
    let mut ids: Vec<&str> = all.keys().map(String::as_str).collect();
    ids.sort();
    assert_eq!(ids, [IMPORTED, A, B, C, SUB, HIDDEN, ACP]);
    for (id, s) in &all {
        assert_eq!(&s.key, id);
    }
}

#[test]
fn session_titles_workspaces_times_and_hidden_ones() {
    let (_dir, root, _conn) = home_with_db();
    let all = read_root(&root);
    let ms = |s: &str| kit::ms(s).unwrap();

    let a = &all[A];
    assert_eq!(a.title_candidate, Some((TitleRank::Generated, "Fix the flaky upload test".into())));
    assert_eq!(a.workspace.as_deref(), Some("/home/dev/app"));
    assert_eq!(a.created, Some(ms("2026-03-01T10:00:00Z")));
    assert_eq!(a.updated, Some(ms("2026-03-01T10:09:00Z")));
    assert!(!a.hidden);

    assert_eq!(all[B].title_candidate, None, "goose's placeholder name is no title");
    assert_eq!(all[B].title(), "first");
    assert_eq!(all[C].title_candidate, Some((TitleRank::Custom, "Release notes".into())));
    assert_eq!(all[C].workspace.as_deref(), Some("/home/dev/docs"));
    assert_eq!(all[ACP].title_candidate, None);
    assert!(!all[ACP].hidden, "a conversation through an editor is the person's");
    assert!(all[SUB].hidden && all[HIDDEN].hidden);

    let imported = &all[IMPORTED];
    assert_eq!(imported.created, Some(ms("2025-01-10T09:30:00Z")));
    assert_eq!(imported.updated, Some(ms("2025-01-10T09:45:12.500Z")));
    assert_eq!(imported.messages[0].timestamp, Some(1_736_501_400_000), "milliseconds are taken as such");
}

#[test]
fn messages_are_what_goose_shows_the_person_and_tool_calls_are_events() {
    let (_dir, root, _conn) = home_with_db();
    let all = read_root(&root);
    let a = &all[A];
    assert_eq!(
        texts(a),
        [
            (Role::User, "Why does the upload test fail on CI?"),
            (Role::Assistant, "Let me look at the test."),
            (Role::Assistant, "The retry waits 10 ms; CI is slower."),
            (Role::User, "Raise it to 100 ms."),
            (Role::Assistant, "Done: the wait is 100 ms now."),
        ]
    );
    let ids: Vec<&str> = a.messages.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["msg_a1", "msg_a2", "msg_a6", "msg_a7", "msg_a9"]);
    assert_eq!(a.messages[1].timestamp, Some((T0 + 10) * 1000));
    assert_eq!(tools(a), [("toolu_01", "developer__shell", 1), ("toolu_02", "developer__text_editor", 1)]);

    let b: Vec<&str> = all[B].messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(b, ["first", "second", "third", "fourth, same second", "fifth, same second"]);
    // A row without a message id is cited as goose itself named such rows.
    let imported = &all[IMPORTED].messages[0];
    assert!(imported.message_id.starts_with(&format!("msg_{IMPORTED}_")), "{}", imported.message_id);
}

#[test]
fn the_library_lists_reads_and_shows_tool_calls() {
    let (dir, _root, _conn) = home_with_db();
    let lib = kit::library(&dir.path().join("home"), None);
    let list = lib.list_sessions(memory_bank_sessions::ListArgs { limit: Some(json!(50)), ..Default::default() }).unwrap();
    let goose: Vec<_> = list.sessions.iter().filter(|s| s.source == Source::Goose).collect();
    let ids: HashSet<&str> = goose.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, HashSet::from([A, B, C, ACP, IMPORTED]), "hidden sessions are not listed");
    let a = goose.iter().find(|s| s.session_id == A).unwrap();
    assert_eq!((a.title.as_str(), a.message_count, a.workspace.as_deref()), ("Fix the flaky upload test", 5, Some("/home/dev/app")));
    let activity = lib
        .session_activity(memory_bank_sessions::ActivityArgs { session_id: Some(A.into()), ..Default::default() })
        .unwrap();
    let calls: Vec<(i64, Vec<String>)> = activity.activity.into_iter().map(|e| (e.after_index, e.tools)).collect();
    assert_eq!(calls, [(1, vec!["developer__shell".to_string(), "developer__text_editor".to_string()])]);
}

#[test]
fn an_older_schema_is_read_too() {
    // goose 1.10's first schema: no `name` (the title was `description`), no session
    // types, no message ids, no visibility.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    std::fs::create_dir_all(&root).unwrap();
    let conn = Connection::open(root.join("sessions.db")).unwrap();
    conn.execute_batch(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
         INSERT INTO schema_version (version) VALUES (1);
         CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
             created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
             extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
             accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
             schedule_id TEXT, recipe_json TEXT);
         CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
             role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
             timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER);
         INSERT INTO sessions (id, description, working_dir, created_at, updated_at) VALUES ('20251020_1', 'Tidy the imports', '/w', '2025-10-20 08:00:00', '2025-10-20 08:01:00');
         INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES
             ('20251020_1', 'user', '[{\"type\":\"text\",\"text\":\"tidy up\"}]', 1760947200),
             ('20251020_1', 'assistant', '[{\"type\":\"text\",\"text\":\"tidied\"}]', 1760947201);",
    )
    .unwrap();
    let all = read_root(&root);
    let s = &all["20251020_1"];
    assert_eq!(s.title_candidate, Some((TitleRank::Generated, "Tidy the imports".into())));
    assert_eq!(texts(s), [(Role::User, "tidy up"), (Role::Assistant, "tidied")]);
    let ids: Vec<&str> = s.messages.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["msg_20251020_1_1", "msg_20251020_1_2"]);
}

fn file_state(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (std::fs::read(path).unwrap(), std::fs::metadata(path).unwrap().modified().unwrap())
}

#[test]
fn a_live_database_is_read_from_its_wal_without_touching_it() {
    let (_dir, root, conn) = home_with_db();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    let (db, wal) = (root.join("sessions.db"), root.join("sessions.db-wal"));
    let (units, _) = discover(&root);
    let before = (file_state(&db), file_state(&wal));
    assert_eq!(read_unit(reader(), &units[0]).unwrap().len(), 7);
    assert_eq!((file_state(&db), file_state(&wal)), before, "nothing written");

    // goose holds a write transaction open: reading neither waits nor fails, and sees what
    // was committed.
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    add_message(&conn, C, Some("msg_c2"), "assistant", T0 + 3700, json!([text("uncommitted")]), SHOWN);
    let all = read_unit(reader(), &units[0]).unwrap();
    assert_eq!(all.iter().find(|s| s.key == C).unwrap().messages.len(), 1);
    conn.execute_batch("COMMIT").unwrap();

    let (again, _) = discover(&root);
    assert_ne!(again[0].fingerprint, units[0].fingerprint, "the fingerprint follows the -wal");
    let all = read_unit(reader(), &again[0]).unwrap();
    assert_eq!(all.iter().find(|s| s.key == C).unwrap().messages.len(), 2);
    // goose can still checkpoint: nothing of ours holds a lock.
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0)).unwrap();
}

#[test]
fn a_closed_database_is_read_and_nothing_is_created_beside_it() {
    let (_dir, root, conn) = home_with_db();
    drop(conn); // goose exited: checkpointed, -wal and -shm removed
    let db = root.join("sessions.db");
    let before = file_state(&db);
    assert_eq!(read_root(&root).len(), 7);
    assert_eq!(file_state(&db), before);
    let names: Vec<String> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["sessions.db"]);
}

#[test]
fn a_damaged_or_empty_database_is_an_error_or_nothing_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sessions.db"), b"not a database at all, just text").unwrap();
    let (units, _) = discover(dir.path());
    assert!(reader().parse_whole(&units[0]).is_err());
    std::fs::write(dir.path().join("sessions.db"), b"").unwrap();
    assert!(reader().parse_whole(&units[0]).unwrap().is_empty());
    // Rows goose never writes: content that is not a list, a role it does not know, a
    // time that is not a number, a session row without an id.
    let conn = create_db(&dir.path().join("other/sessions.db"));
    add_session(&conn, S { id: A, name: "x", user_set: false, kind: "user", dir: "/w", created: "soon", updated: "later", parent: None });
    add_message(&conn, A, None, "user", T0, json!({"type": "text", "text": "an object, not a list"}), SHOWN);
    add_message(&conn, A, None, "tool", T0, json!([text("a role goose does not write")]), SHOWN);
    conn.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?1, 'user', ?2, 'noon')", params![A, json!([text("kept")]).to_string()]).unwrap();
    conn.execute("INSERT INTO sessions (id, working_dir) VALUES ('', '/w')", []).unwrap();
    let all = read_root(&dir.path().join("other"));
    assert_eq!(texts(&all[A]), [(Role::User, "kept")]);
    assert_eq!((all[A].created, all[A].messages[0].timestamp), (None, None));
}

#[test]
fn reads_after_a_mark_take_only_the_sessions_that_changed() {
    let (_dir, root, conn) = home_with_db();
    let (units, _) = discover(&root);
    let unit = &units[0];
    let first = reader().parse_whole_since(unit, None).unwrap();
    assert_eq!(first.sessions.len(), 7);
    let mut present = first.present.clone().unwrap();
    present.sort();
    assert_eq!(present, [IMPORTED, A, B, C, SUB, HIDDEN, ACP]);
    let keys = |read: &memory_bank_sessions::testing::WholeRead| {
        let mut keys: Vec<String> = read.sessions.iter().map(|s| s.key.clone()).collect();
        keys.sort();
        keys
    };
    // Nothing new. The sessions stamped in the second of the latest stamp are read again
    // (a write in that same second may have come after the read): that is the session
    // without messages here, which is not read at all.
    let again = reader().parse_whole_since(unit, first.mark).unwrap();
    assert!(keys(&again).is_empty());

    // A new message (goose stamps its session in the same transaction).
    add_message(&conn, B, Some("msg_b6"), "user", T0 + 20_000, json!([text("sixth")]), SHOWN);
    conn.execute("UPDATE sessions SET updated_at = '2026-03-01 15:00:00' WHERE id = ?1", [B]).unwrap();
    let read = reader().parse_whole_since(unit, again.mark).unwrap();
    assert_eq!(keys(&read), [B]);
    assert_eq!(read.present.as_ref().unwrap().len(), 7);

    // A rename stamps the session.
    conn.execute("UPDATE sessions SET name = 'Release notes 2.0', user_set_name = TRUE, updated_at = '2026-03-01 16:00:00' WHERE id = ?1", [C]).unwrap();
    let read = reader().parse_whole_since(unit, read.mark).unwrap();
    assert_eq!(keys(&read), [B, C], "B again: stamped in the second of the last read's latest stamp");

    // `replace_conversation` rewrites the rows without stamping the session: new row ids.
    conn.execute("DELETE FROM messages WHERE session_id = ?1", [ACP]).unwrap();
    add_message(&conn, ACP, Some("msg_z2"), "user", T0 + 10_900, json!([text("Rename it to core.")]), SHOWN);
    let read = reader().parse_whole_since(unit, read.mark).unwrap();
    assert_eq!(keys(&read), [C, ACP]);
    assert_eq!(texts(&kit_session(&read, ACP)), [(Role::User, "Rename it to core.")]);

    // A deleted session leaves `present`; one without messages never was in it.
    for sql in ["DELETE FROM messages WHERE session_id = ?1", "DELETE FROM sessions WHERE id = ?1"] {
        conn.execute(sql, [B]).unwrap();
    }
    let read = reader().parse_whole_since(unit, read.mark).unwrap();
    assert!(!read.present.as_ref().unwrap().iter().any(|k| k == B || k == EMPTY));
}

/// The session `key` of a read, applied as the index applies it.
fn kit_session(read: &memory_bank_sessions::testing::WholeRead, key: &str) -> memory_bank_sessions::testing::ParsedSession {
    let whole = read.sessions.iter().find(|s| s.key == key).unwrap();
    let mut session = memory_bank_sessions::testing::ParsedSession::default();
    for event in whole.events.clone() {
        session.apply(event);
    }
    session
}

#[test]
fn an_index_kept_up_to_date_answers_as_one_built_afresh() {
    let (dir, root, conn) = home_with_db();
    let roots = vec![(Source::Goose, root.clone())];
    let key = kit::suite_key();
    let mut index = Index::open(&dir.path().join("index.sqlite"), key.as_ref()).unwrap();
    index.refresh(&roots).unwrap();
    add_message(&conn, A, Some("msg_a10"), "user", T0 + 90, json!([text("And the other flaky test?")]), SHOWN);
    conn.execute("UPDATE sessions SET updated_at = '2026-03-01 17:00:00' WHERE id = ?1", [A]).unwrap();
    for sql in ["DELETE FROM messages WHERE session_id = ?1", "DELETE FROM sessions WHERE id = ?1"] {
        conn.execute(sql, [C]).unwrap();
    }
    index.refresh(&roots).unwrap();
    let mut fresh = Index::open(&dir.path().join("fresh.sqlite"), key.as_ref()).unwrap();
    fresh.refresh(&roots).unwrap();
    let keys = [root.to_string_lossy().into_owned()];
    let (kept, expected) = (kit::index_answers(&index, &keys), kit::index_answers(&fresh, &keys));
    // An index without an archive drops a deleted session, as one built afresh never saw it.
    let listed = |v: &serde_json::Value| -> Vec<String> {
        let mut ids: Vec<String> = v["list"]["sessions"].as_array().unwrap().iter().map(|s| s["sessionId"].as_str().unwrap().to_string()).collect();
        ids.sort();
        ids
    };
    assert_eq!(listed(&kept), listed(&expected));
    assert_eq!(kept, expected);
    assert!(expected.to_string().contains("And the other flaky test?"));
}

#[test]
fn jsonl_files_beside_the_database_are_the_import_leftovers_and_are_not_read() {
    let (_dir, root, _conn) = home_with_db();
    let line = json!({"role": "user", "created": T0, "content": [text("stale copy")], "metadata": {"userVisible": true}});
    std::fs::write(root.join(format!("{A}.jsonl")), format!("{{\"description\":\"x\",\"working_dir\":\"/w\"}}\n{line}\n")).unwrap();
    std::fs::write(root.join("20250101_120000.jsonl"), format!("{line}\n")).unwrap();
    let (units, _) = discover(&root);
    assert_eq!(units.len(), 1);
    assert!(units[0].path.ends_with("sessions.db"));
}

#[test]
fn goose_data_folders_and_path_roots_are_roots_too() {
    let (dir, root, _conn) = home_with_db();
    // The data folder (`~/.local/share/goose`) holding `sessions/`.
    let (units, _) = discover(root.parent().unwrap());
    assert_eq!(units.len(), 1);
    // A GOOSE_PATH_ROOT folder holding `data/sessions/`.
    let path_root = dir.path().join("goose-root");
    let conn = create_db(&path_root.join("data/sessions/sessions.db"));
    populate(&conn);
    let (units, _) = discover(&path_root);
    assert_eq!(units.len(), 1);
    assert_eq!(read_unit(reader(), &units[0]).unwrap().len(), 7);
    // The database itself.
    let (units, _) = discover(&root.join("sessions.db"));
    assert_eq!(units.len(), 1);
    assert!(discover(&root.join("sessions.db-wal")).0.is_empty());
}

#[cfg(unix)]
#[test]
fn a_database_linked_from_outside_the_folder_is_reported_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside/sessions.db");
    let conn = create_db(&outside);
    populate(&conn);
    let root = dir.path().join("sessions");
    std::fs::create_dir_all(&root).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("sessions.db")).unwrap();
    let (units, problems) = discover(&root);
    assert!(units.is_empty(), "{units:?}");
    assert!(problems.iter().any(|p| p.message.contains("not followed")), "{problems:?}");
}
