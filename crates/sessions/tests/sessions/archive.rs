//! The archive beyond the per-reader promises (`suite/`): a file a tool moves is one live
//! session, a whole opencode database deleted archives all its sessions, and the errors of
//! forgetting and of the status filter.

use std::path::Path;

use memory_bank_sessions::testing::{self as kit, opencode};
use memory_bank_sessions::{archive_path, ErrorCode, ForgetArgs, Library, ListArgs, ReadArgs, Roots};
use serde_json::json;

fn library(home: &Path, index: &Path) -> Library {
    let lib = Library::open(Some(index), Roots::new(&kit::env_with_home(home), &[]), kit::suite_key()).unwrap();
    lib.refresh().unwrap();
    lib
}

fn listed(lib: &Library, status: &str) -> Vec<(String, bool)> {
    let list = lib.list_sessions(ListArgs { status: Some(status.into()), limit: Some(json!(200)), ..Default::default() });
    list.unwrap().sessions.into_iter().map(|s| (s.session_id, s.archived)).collect()
}

#[test]
fn a_codex_rollout_moved_to_archived_sessions_stays_one_live_session() {
    let (dir, home) = kit::full_home();
    let lib = library(&home, &dir.path().join("index.sqlite"));
    let id = "019cb900-1111-7222-8333-944455566677";
    let name = format!("rollout-2026-03-06T08-00-00-{id}.jsonl");
    let before = lib.read_transcript(ReadArgs { session_id: Some(id.into()), ..Default::default() }).unwrap();
    // Codex's own "archive": the rollout moves to archived_sessions/.
    std::fs::rename(
        home.join(".codex/sessions/2026/03/06").join(&name),
        home.join(".codex/archived_sessions").join(&name),
    )
    .unwrap();
    let report = lib.refresh().unwrap();
    assert_eq!((report.units_removed, report.sessions_archived), (1, 0), "moved, not deleted");
    let found: Vec<_> = listed(&lib, "all").into_iter().filter(|(s, _)| s == id).collect();
    assert_eq!(found, [(id.to_string(), false)]);
    let after = lib.read_transcript(ReadArgs { session_id: Some(id.into()), ..Default::default() }).unwrap();
    assert_eq!(after.messages, before.messages);
}

#[test]
fn deleting_opencode_db_archives_every_session_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let root = home.join(".local/share/opencode");
    std::fs::create_dir_all(&root).unwrap();
    let conn = opencode::create_db(&root.join("opencode.db"));
    for (n, id) in ["ses_3f1c9a2b7ffeKq2Lw8Xn4Vb6Tz", "ses_3f1c9a2b6ffeHh7Jk3Mn5Pq9Rs"].iter().enumerate() {
        let t = 1_780_000_000_000 + n as i64 * 1000;
        opencode::add_session(
            &conn,
            opencode::Session { id, parent: None, directory: "/home/dev/app", title: "A title", created: t, updated: t, archived: None },
        );
        let message = format!("msg_00000000000{n}Aa11Bb22Cc33Dd");
        opencode::add_message(&conn, &message, id, "user", t, json!({}));
        opencode::add_part(&conn, &format!("prt_00000000000{n}Aa11Bb22Cc33Dd"), &message, id, opencode::text("kept text"));
    }
    drop(conn);
    let index = dir.path().join("data/sessions-index.sqlite");
    let lib = library(&home, &index);
    assert_eq!(listed(&lib, "live").len(), 2);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", root.join("opencode.db").display()));
    }
    let report = lib.refresh().unwrap();
    assert_eq!(report.sessions_archived, 2);
    assert!(listed(&lib, "live").is_empty());
    assert_eq!(listed(&lib, "archived").len(), 2);
    assert!(archive_path(&index).exists());
    let hits = lib.search_messages(memory_bank_sessions::SearchArgs { query: Some("kept text".into()), ..Default::default() });
    assert!(hits.unwrap().hits.iter().all(|h| h.archived));
}

#[test]
fn forgetting_needs_a_known_id_and_the_status_filter_a_known_status() {
    let h = kit::TempHome::new();
    h.write("-work-app", "s1", &[kit::claude_line("user", "u1", "hello", "2026-11-01T10:00:00.000Z")]);
    let lib = h.library();
    let forget = |id: &str, source: Option<&str>| {
        lib.forget_session(ForgetArgs { session_id: Some(id.into()), source: source.map(String::from) })
    };
    let err = forget("no-such-session", None).unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotFound);
    assert!(err.message.contains("no-such-session") && err.message.contains("list_sessions"), "{}", err.message);
    assert_eq!(forget("  ", None).unwrap_err().code, ErrorCode::InvalidRequest);
    assert_eq!(forget("s1", Some("vim")).unwrap_err().code, ErrorCode::InvalidRequest);
    assert_eq!(forget("s1", Some("codex")).unwrap_err().code, ErrorCode::SessionNotFound, "not a Codex session");
    assert_eq!(forget("s1", Some("claude")).unwrap().session_id, "s1");
    let err = lib.list_sessions(ListArgs { status: Some("deleted".into()), ..Default::default() }).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    assert!(err.message.contains("all, live"), "{}", err.message);
}

#[test]
fn an_archive_from_a_newer_memory_bank_is_an_error_that_says_what_to_do() {
    let h = kit::TempHome::new();
    drop(h.library());
    let archive = archive_path(&h.index);
    kit::connection(&archive).execute_batch("PRAGMA user_version = 99;").unwrap();
    let err = Library::open(Some(&h.index), Roots::new(&kit::env_with_home(&h.home), &[]), kit::suite_key()).err().expect("refused");
    assert_eq!(err.code, ErrorCode::Index);
    assert!(err.message.contains("newer Memory Bank") && err.message.contains(&archive.display().to_string()), "{}", err.message);
    assert!(!err.message.contains("Deleting the index"), "the archive is no cache: {}", err.message);
}
