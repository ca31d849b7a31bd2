//! The index and the lookup actions, on Claude-format files written by the tests:
//! incremental reads, paging, search semantics, filters and errors.

use memory_bank_sessions::testing as common;

use std::io::Write;
use std::path::Path;

use memory_bank_sessions::{ErrorCode, LatestArgs, Library, ListArgs, OpenArgs, ReadArgs, Roots, SearchArgs, Source};
use serde_json::json;

fn user(uuid: &str, text: &str, minute: u32) -> String {
    json!({"type":"user","uuid":uuid,"cwd":"/work/app","timestamp":format!("2026-11-01T10:{minute:02}:00.000Z"),
           "message":{"role":"user","content":text}})
    .to_string()
}

fn assistant(uuid: &str, text: &str, minute: u32) -> String {
    json!({"type":"assistant","uuid":uuid,"cwd":"/work/app","timestamp":format!("2026-11-01T10:{minute:02}:30.000Z"),
           "message":{"id":format!("msg_{uuid}"),"role":"assistant","content":[{"type":"text","text":text}]}})
    .to_string()
}

use common::TempHome as Home;

fn append(path: &Path, text: &str) {
    std::fs::OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

fn read(lib: &Library, id: &str, count: serde_json::Value, before: Option<serde_json::Value>) -> memory_bank_sessions::Transcript {
    lib.read_transcript(ReadArgs { session_id: Some(id.into()), count: Some(count), before, ..Default::default() }).unwrap()
}

#[test]
fn paging_backwards_reaches_the_first_of_500_messages() {
    let h = Home::new();
    let lines: Vec<String> = (0..500).map(|i| user(&format!("u{i}"), &format!("message {i}"), (i % 60) as u32)).collect();
    h.write("-work-app", "long", &lines);
    let lib = h.library();
    let last = read(&lib, "long", json!("not a number"), None);
    assert_eq!((last.message_count, last.returned), (500, 10));
    assert_eq!(last.messages.first().unwrap().index, 490);
    assert_eq!(last.messages.last().unwrap().text, "message 499");
    let mut before = 500;
    let mut seen: Vec<u64> = Vec::new();
    while before > 0 {
        let page = read(&lib, "long", json!(30), Some(json!(before)));
        assert!(page.returned <= 30);
        let indexes: Vec<u64> = page.messages.iter().map(|m| m.index).collect();
        assert!(indexes.windows(2).all(|w| w[1] == w[0] + 1), "oldest first, contiguous");
        assert_eq!(*indexes.last().unwrap(), before - 1);
        seen.extend(indexes.iter().rev());
        before = indexes[0];
    }
    assert_eq!(seen.len(), 500);
    assert_eq!(read(&lib, "long", json!(1), Some(json!(1))).messages[0].text, "message 0");
    assert_eq!(read(&lib, "long", json!(500), None).returned, 30, "count is clamped to 30");
    assert_eq!(read(&lib, "long", json!(0), None).returned, 1, "count is clamped to 1");
    let latest = lib.latest_message(LatestArgs { session_id: Some("long".into()), ..Default::default() }).unwrap();
    assert_eq!((latest.index, latest.text.as_str(), latest.message_id.as_str()), (499, "message 499", "u499"));
}

#[test]
fn appended_messages_and_new_files_are_read_incrementally() {
    let h = Home::new();
    let path = h.write("-work-app", "s1", &[user("u1", "first", 1), assistant("a1", "reply", 1)]);
    let lib = h.library();
    let size_before = std::fs::metadata(&path).unwrap().len();
    // Nothing changed: nothing is read.
    let report = lib.refresh().unwrap();
    assert_eq!((report.units_read, report.bytes_read), (0, 0));
    // A message is appended, half a line first (a writer that has not flushed).
    let next = user("u2", "second question", 2);
    let (head, tail) = next.split_at(20);
    append(&path, head);
    lib.refresh().unwrap();
    assert_eq!(lib.list_sessions(ListArgs::default()).unwrap().sessions[0].message_count, 2);
    append(&path, &format!("{tail}\n"));
    let report = lib.refresh().unwrap();
    assert_eq!(report.bytes_read, next.len() as u64 + 1, "only the appended bytes are read");
    let t = read(&lib, "s1", json!(10), None);
    assert_eq!(t.messages.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["first", "reply", "second question"]);
    assert!(std::fs::metadata(&path).unwrap().len() > size_before);
    // Reading a transcript catches up on its own, without a refresh.
    append(&path, &format!("{}\n", assistant("a2", "second answer", 3)));
    assert_eq!(lib.latest_message(LatestArgs { session_id: Some("s1".into()), ..Default::default() }).unwrap().text, "second answer");
    // A new file appears on the next refresh.
    h.write("-work-other", "s2", &[user("x1", "brand new", 9)]);
    lib.refresh().unwrap();
    let list = lib.list_sessions(ListArgs::default()).unwrap();
    assert_eq!(list.total, 2);
    assert_eq!(list.sessions[0].session_id, "s2");
}

#[test]
fn rewritten_and_deleted_files_are_handled() {
    let h = Home::new();
    let path = h.write("-work-app", "s1", &[user("u1", "old text that is long enough", 1), user("u2", "more", 2)]);
    let lib = h.library();
    // Same size or larger, but different bytes before the resume point: read again.
    h.write("-work-app", "s1", &[user("u1", "new text that is long enough", 1), user("u2", "more", 2), user("u3", "x", 3)]);
    lib.refresh().unwrap();
    let t = read(&lib, "s1", json!(10), None);
    assert_eq!(t.messages.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["new text that is long enough", "more", "x"]);
    // Deleted, it is kept (archived), as the setting is by default; with the setting off,
    // a deleted file's session is dropped.
    std::fs::remove_file(&path).unwrap();
    let report = lib.refresh().unwrap();
    assert_eq!((report.units_removed, report.sessions_archived), (1, 1));
    let list = lib.list_sessions(ListArgs::default()).unwrap();
    assert_eq!((list.total, list.sessions[0].archived), (1, true));
    assert_eq!(read(&lib, "s1", json!(10), None).messages.len(), 3);
    lib.set_keep_archived(false);
    let path = h.write("-work-app", "s2", &[user("v1", "dropped when deleted", 4)]);
    lib.refresh().unwrap();
    std::fs::remove_file(&path).unwrap();
    let report = lib.refresh().unwrap();
    assert_eq!((report.units_removed, report.sessions_archived), (1, 0));
    assert_eq!(lib.list_sessions(ListArgs::default()).unwrap().total, 1, "only the one archived before");
    let err = lib.open_session(OpenArgs { session_id: Some("s2".into()), source: None }).unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotFound);
}

#[test]
fn the_index_survives_a_restart() {
    let h = Home::new();
    h.write("-work-app", "s1", &[user("u1", "persisted", 1)]);
    drop(h.library());
    let lib = Library::open(Some(&h.index), Roots::new(&common::env_with_home(&h.home), &[]), common::suite_key()).unwrap();
    // Before any refresh, the index already answers from disk.
    assert_eq!(lib.list_sessions(ListArgs::default()).unwrap().total, 1);
    assert_eq!(lib.refresh().unwrap().units_read, 0);
}

#[test]
fn search_matches_substrings_case_insensitively_newest_first() {
    let h = Home::new();
    h.write("-work-app", "s1", &[
        user("u1", "Plan the CLIENT MIGRATION for Friday", 1),
        assistant("a1", "只说迁移也不行", 2),
        assistant("a2", "这是客户迁移计划的第一步", 3),
    ]);
    h.write("-work-b", "s2", &[user("v1", "another client migration, later", 30)]);
    let lib = h.library();
    let search = |q: &str| lib.search_messages(SearchArgs { query: Some(q.into()), limit: None, ..Default::default() }).unwrap().hits;
    let hits = search("client migration");
    assert_eq!(hits.iter().map(|h| h.message_id.as_str()).collect::<Vec<_>>(), ["v1", "u1"], "newest first");
    assert_eq!(hits[1].snippet, "Plan the CLIENT MIGRATION for Friday");
    assert_eq!(hits[1].index, 0);
    let hits = search("客户迁移");
    assert_eq!(hits.iter().map(|h| h.message_id.as_str()).collect::<Vec<_>>(), ["a2"], "迁移 alone is not a hit");
    // Two characters: shorter than a trigram, still exact.
    let hits = search("迁移");
    assert_eq!(hits.len(), 2);
    assert!(search("Go").is_empty());
    assert!(search("zzz not there").is_empty());
    let hits = lib.search_messages(SearchArgs { query: Some("a".into()), limit: Some(json!(1)), ..Default::default() }).unwrap().hits;
    assert_eq!(hits.len(), 1);
    // Quotes and FTS syntax are text, not operators.
    assert!(search("\"client\" OR migration*").is_empty());
    for bad in [json!(0), json!(201), json!("x")] {
        let err = lib.search_messages(SearchArgs { query: Some("client".into()), limit: Some(bad), ..Default::default() }).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
    }
    let err = lib.search_messages(SearchArgs { query: Some("  ".into()), limit: None, ..Default::default() }).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
}

#[test]
fn list_filters_and_total_never_hide_a_cap() {
    let h = Home::new();
    for i in 0..5 {
        h.write("-work-app", &format!("a{i}"), &[user(&format!("u{i}"), &format!("app task {i}"), i)]);
    }
    let mut other = user("o", "other task", 50);
    other = other.replace("/work/app", "/srv/other-repo");
    h.write("-srv-other-repo", "b0", &[other]);
    let lib = h.library();
    let list = lib.list_sessions(ListArgs { limit: Some(json!(2)), ..Default::default() }).unwrap();
    assert_eq!((list.total, list.sessions.len()), (6, 2));
    let by_ws = |w: &str| lib.list_sessions(ListArgs { workspace: Some(w.into()), ..Default::default() }).unwrap().total;
    assert_eq!(by_ws("/work/app"), 5);
    assert_eq!(by_ws("app"), 5, "the last folder name matches");
    assert_eq!(by_ws("other-repo"), 1);
    assert_eq!(by_ws("nothing"), 0);
    let q = lib.list_sessions(ListArgs { query: Some("TASK 3".into()), ..Default::default() }).unwrap();
    assert_eq!(q.sessions.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["a3"]);
    let src = |s: &str| lib.list_sessions(ListArgs { source: Some(s.into()), ..Default::default() });
    assert_eq!(src("claude").unwrap().total, 6);
    assert_eq!(src("codex").unwrap().total, 0);
    assert_eq!(src("vim").unwrap_err().code, ErrorCode::InvalidRequest);
    assert_eq!(lib.list_sessions(ListArgs { limit: Some(json!(201)), ..Default::default() }).unwrap_err().code, ErrorCode::InvalidRequest);
    let facets = lib.facets().unwrap();
    assert_eq!(facets.sources[0].source, Source::ClaudeCode);
    assert_eq!(facets.workspaces[0].workspace, "/work/app");
    assert_eq!(facets.workspaces[0].count, 5);
    // Case folding is Unicode, not ASCII only; the workspace and the id match too.
    h.write("-work-app", "umlaut", &[user("z", "Über die Migration", 40)]);
    lib.refresh().unwrap();
    let q = |text: &str| lib.list_sessions(ListArgs { query: Some(text.into()), ..Default::default() }).unwrap();
    assert_eq!(q("über").sessions, q("ÜBER").sessions);
    assert_eq!(q("über").sessions[0].session_id, "umlaut");
    assert_eq!(q("OTHER-REPO").total, 1);
    assert_eq!(q("umlaut").total, 1);
    // A text filter counts every match and pages newest first, like the plain listing.
    let some = lib.list_sessions(ListArgs { query: Some("task".into()), limit: Some(json!(2)), ..Default::default() }).unwrap();
    let all = lib.list_sessions(ListArgs::default()).unwrap();
    let newest_tasks: Vec<_> = all.sessions.iter().filter(|s| s.title.contains("task")).take(2).cloned().collect();
    assert_eq!((some.total, some.sessions), (6, newest_tasks));
}

#[test]
fn the_text_filter_matches_titles_kept_outside_the_session_file() {
    let (_dir, home) = common::full_home();
    let lib = common::library(&home, None);
    // Codex `session_index.jsonl` names 019cb900… "Windows cache path"; its file does not.
    let found = lib.list_sessions(ListArgs { query: Some("WINDOWS CACHE".into()), ..Default::default() }).unwrap();
    let ids: Vec<&str> = found.sessions.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, ["019cb900-1111-7222-8333-944455566677"]);
    assert_eq!(found.total, 1);
}

#[test]
fn errors_are_clear_and_the_open_session_is_the_default() {
    let h = Home::new();
    h.write("-work-app", "s1", &[user("u1", "hello", 1)]);
    h.write("-work-app", "empty", &[json!({"type":"system","cwd":"/work/app","timestamp":"2026-11-01T09:00:00Z"}).to_string()]);
    let lib = h.library();
    let err = lib.read_transcript(ReadArgs::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::NoOpenSession);
    let err = lib.open_session(OpenArgs { session_id: Some("nope".into()), source: None }).unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotFound);
    assert!(err.message.contains("nope"));
    let err = lib.open_session(OpenArgs { session_id: Some(" ".into()), source: None }).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidRequest);
    let err = lib.read_transcript(ReadArgs { session_id: Some("empty".into()), ..Default::default() }).unwrap_err();
    assert_eq!(err.code, ErrorCode::NoMessages);
    assert!(err.message.contains("no messages"));
    let err = lib.latest_message(LatestArgs { session_id: Some("empty".into()), ..Default::default() }).unwrap_err();
    assert_eq!(err.code, ErrorCode::NoMessages);
    let info = lib.open_session(OpenArgs { session_id: Some("s1".into()), source: Some("claude-code".into()) }).unwrap();
    assert_eq!(info.title, "hello");
    assert_eq!(lib.read_transcript(ReadArgs::default()).unwrap().session_id, "s1");
    assert_eq!(lib.latest_message(LatestArgs::default()).unwrap().text, "hello");
    let json = serde_json::to_value(&err).unwrap();
    assert_eq!(json["error"], "no_messages");
}

#[test]
fn an_unreadable_root_is_reported_not_fatal() {
    let h = Home::new();
    h.write("-work-app", "s1", &[user("u1", "still listed", 1)]);
    let not_a_folder = h.home.join("file.txt");
    std::fs::write(&not_a_folder, "x").unwrap();
    let roots = Roots::new(&common::env_with_home(&h.home), &[(Source::ClaudeCode, not_a_folder.clone())]);
    let lib = Library::open(None, roots, None).unwrap();
    let report = lib.refresh().unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert_eq!(report.problems[0].path, not_a_folder);
    assert_eq!(lib.list_sessions(ListArgs::default()).unwrap().total, 1);
}
