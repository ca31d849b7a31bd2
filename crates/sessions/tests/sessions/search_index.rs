//! The message search index, which lives in a file of its own and is built beside the
//! refresh: search answers the same before it is built (by scanning) and after; changed
//! and deleted messages leave it; a rebuilt index starts it over; big files read in
//! parts index exactly like whole reads.

use memory_bank_sessions::testing as common;

use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::search_path;
use memory_bank_sessions::{Library, Roots, SearchHit};
use memory_bank_sessions::testing::Index;
use serde_json::json;

fn line(kind: &str, uuid: &str, text: &str, minute: u32) -> String {
    let message = if kind == "user" {
        json!({"role":"user","content":text})
    } else {
        json!({"id":format!("msg_{uuid}"),"role":"assistant","content":[{"type":"text","text":text}]})
    };
    json!({"type":kind,"uuid":uuid,"cwd":"/work/app","timestamp":format!("2026-11-01T10:{minute:02}:00.000Z"),
           "message":message})
    .to_string()
        + "\n"
}

use common::TempHome as Home;

fn session(h: &Home, id: &str) -> PathBuf {
    h.session_path("-work-app", id)
}

fn search(h: &Home, index: &Index, query: &str, limit: u32) -> Vec<(String, String)> {
    let hits: Vec<SearchHit> = index.search(&h.root_keys(), query, limit).unwrap();
    hits.into_iter().map(|h| (h.message_id, h.snippet)).collect()
}

fn index_for_search(index: &Index) {
    index.index_for_search(&|| false).unwrap();
    assert!(index.search_is_caught_up().unwrap());
}

#[test]
fn search_answers_the_same_before_and_after_the_search_index_is_built() {
    let h = Home::new();
    let mut lines = String::new();
    lines += &line("user", "u-old", "The real one: xxABCDxx, then the client migration plan", 1);
    // Newer messages holding every trigram of "abcd" but never "abcd" itself: the search
    // index finds them, containment rules them out, and the older real match still shows.
    for i in 0..30 {
        lines += &line("assistant", &format!("a-decoy{i}"), "abc then bcd, apart", 2 + i);
    }
    lines += &line("user", "u-cjk", "我们讨论了客户迁移的计划", 40);
    lines += &line("user", "u-only", "只有迁移", 41);
    // Case beyond ASCII (SQLite's lower() folds ASCII only): both ways must find it.
    lines += &line("user", "u-ru", "ПЛАН МИГРАЦИИ готов", 42);
    std::fs::write(session(&h, "s1"), lines).unwrap();

    let index = h.index();
    assert!(!index.search_is_caught_up().unwrap(), "nothing indexed for search yet");
    let queries = ["abcd", "ABCD", "client migration", "客户迁移", "迁移", "abc", "nothing like this", "миграции", "ии", "c then bcd", "n b"];
    let scanned: Vec<_> = queries.iter().map(|q| search(&h, &index, q, 5)).collect();
    index_for_search(&index);
    let indexed: Vec<_> = queries.iter().map(|q| search(&h, &index, q, 5)).collect();
    assert_eq!(scanned, indexed);

    let ids = |hits: &[(String, String)]| hits.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&indexed[0]), ["u-old"]);
    assert_eq!(ids(&indexed[1]), ["u-old"]);
    assert_eq!(ids(&indexed[2]), ["u-old"]);
    assert_eq!(ids(&indexed[3]), ["u-cjk"]);
    assert_eq!(ids(&indexed[4]), ["u-only", "u-cjk"]);
    assert_eq!(indexed[5].len(), 5, "a common term fills the limit");
    assert!(indexed[6].is_empty());
    assert_eq!(ids(&indexed[7]), ["u-ru"]);
    assert_eq!(ids(&indexed[8]), ["u-ru"], "two characters: scanned, also case-insensitively");
    // Across a space: the words' trigrams narrow it down, containment decides.
    assert_eq!(indexed[9].len(), 5);
    assert_eq!(indexed[10].len(), 5, "only whitespace trigrams: scanned");
}

#[test]
fn changed_and_deleted_messages_leave_the_search_index() {
    let h = Home::new();
    let path = session(&h, "s1");
    let block = |text: &str, minute: u32| {
        // Two blocks of one streamed assistant message (same message.id) are one message.
        json!({"type":"assistant","uuid":format!("a-{minute}"),"cwd":"/work/app",
               "timestamp":format!("2026-11-01T10:{minute:02}:00.000Z"),
               "message":{"id":"msg_stream","role":"assistant","content":[{"type":"text","text":text}]}})
        .to_string()
            + "\n"
    };
    std::fs::write(&path, line("user", "u1", "please plan the quokka census", 1) + &block("alpha half", 2)).unwrap();
    let mut index = h.index();
    index_for_search(&index);
    assert_eq!(search(&h, &index, "omega half", 5).len(), 0);

    // The second block arrives: the stored message's text changes.
    std::fs::write(
        &path,
        line("user", "u1", "please plan the quokka census", 1) + &block("alpha half", 2) + &block("omega half", 3),
    )
    .unwrap();
    index.refresh(&h.roots()).unwrap();
    assert!(!index.search_is_caught_up().unwrap(), "the changed text is logged for the search index");
    index_for_search(&index);
    let hits = search(&h, &index, "omega half", 5);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(search(&h, &index, "alpha half", 5).len(), 1);

    // The file is rewritten: its old messages are deleted.
    std::fs::write(&path, line("user", "u9", "an unrelated question about wombats", 9)).unwrap();
    index.refresh(&h.roots()).unwrap();
    index_for_search(&index);
    assert!(search(&h, &index, "quokka", 5).is_empty());
    assert!(search(&h, &index, "omega half", 5).is_empty());
    assert_eq!(search(&h, &index, "wombats", 5).len(), 1);

    // Applied changes are forgotten by the next refresh.
    index.refresh(&h.roots()).unwrap();
    let conn = common::connection(&h.index);
    let logged: i64 = conn.query_row("SELECT count(*) FROM search_dirty", [], |r| r.get(0)).unwrap();
    assert_eq!(logged, 0);
}

#[test]
fn a_rebuilt_index_starts_the_search_index_over() {
    let h = Home::new();
    let mut lines = String::new();
    for i in 0..20 {
        lines += &line("user", &format!("u{i}"), &format!("first index message number {i}"), i);
    }
    std::fs::write(session(&h, "s1"), lines).unwrap();
    index_for_search(&h.index());
    assert!(search_path(&h.index).exists());

    // The index is deleted (it is a cache), the search file stays, and new ids mean other
    // messages: if the search file kept its watermark, these would be taken as indexed.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", h.index.display()));
    }
    std::fs::write(session(&h, "s1"), line("user", "n1", "a kangaroo appears", 1)).unwrap();
    std::fs::write(session(&h, "s2"), line("user", "n2", "another kangaroo", 2)).unwrap();
    let index = h.index();
    assert!(!index.search_is_caught_up().unwrap());
    index_for_search(&index);
    assert_eq!(search(&h, &index, "kangaroo", 5).len(), 2);
    assert!(search(&h, &index, "first index", 5).is_empty());
}

/// Everything an index answers about `home`: the listing, every transcript, searches.
fn everything(index: &Index, home: &Path) -> serde_json::Value {
    let roots = Roots::new(&common::env_with_home(home), &[]).0;
    let keys: Vec<String> = roots.iter().map(|(_, p)| p.to_string_lossy().into_owned()).collect();
    let mut answers = common::index_answers(index, &keys);
    let searches: Vec<_> = ["the", "migration", "迁移", "error", "ok"]
        .iter()
        .map(|q| index.search(&keys, q, 50).unwrap())
        .collect();
    answers["searches"] = json!(searches);
    answers
}

#[test]
fn files_read_in_parts_index_exactly_like_whole_reads() {
    let (dir, home) = common::full_home();
    let roots = Roots::new(&common::env_with_home(&home), &[]).0;
    let mut whole = Index::open(&dir.path().join("whole.sqlite"), None).unwrap();
    whole.refresh(&roots).unwrap();
    index_for_search(&whole);
    let expected = everything(&whole, &home);
    assert!(expected["list"]["total"].as_u64().unwrap() >= 8, "{}", expected["list"]);
    // Down to one line per part: every fixture file is read in many parts, each its own
    // commit, as a 1 GB session is read in 64 MB parts.
    for part_bytes in [1, 97, 300, 4096] {
        let mut parts = Index::open(&dir.path().join(format!("parts-{part_bytes}.sqlite")), None).unwrap();
        parts.set_commit_every(part_bytes);
        parts.refresh(&roots).unwrap();
        index_for_search(&parts);
        assert_eq!(everything(&parts, &home), expected, "parts of {part_bytes} bytes");
    }
}

#[test]
fn a_file_backed_library_builds_its_search_index_in_the_background() {
    let h = Home::new();
    std::fs::write(session(&h, "s1"), line("user", "u1", "where is the platypus config", 1)).unwrap();
    let lib: Library = common::library(&h.home, Some(&h.index));
    lib.wait_for_search_index().unwrap();
    assert!(Index::open(&h.index, common::suite_key().as_ref()).unwrap().search_is_caught_up().unwrap());
    let hits = lib
        .search_messages(memory_bank_sessions::SearchArgs { query: Some("platypus".into()), limit: None, ..Default::default() })
        .unwrap()
        .hits;
    assert_eq!(hits.len(), 1);

    // An appended message is indexed for search after the refresh that reads it.
    let path = session(&h, "s1");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text += &line("assistant", "a2", "the platypus config lives in /etc", 2);
    std::fs::write(&path, text).unwrap();
    lib.refresh().unwrap();
    lib.wait_for_search_index().unwrap();
    assert!(Index::open(&h.index, common::suite_key().as_ref()).unwrap().search_is_caught_up().unwrap());
}

#[test]
fn two_libraries_on_one_index_share_the_search_index() {
    two_libraries_share_the_search_index(None);
}

#[test]
fn two_keyed_libraries_on_one_encrypted_index_share_the_search_index() {
    two_libraries_share_the_search_index(Some(memory_bank_sessions::DbKey::generate()));
}

fn two_libraries_share_the_search_index(key: Option<memory_bank_sessions::DbKey>) {
    // The app and a CLI run (each with its own indexer) on the same index files.
    let h = Home::new();
    for s in 0..20 {
        let mut lines = String::new();
        for i in 0..30 {
            lines += &line("user", &format!("u{s}-{i}"), &format!("session {s} message {i} about wombat number {i}"), i);
        }
        std::fs::write(session(&h, &format!("s{s}")), lines).unwrap();
    }
    let open = || Library::open(Some(&h.index), Roots::new(&common::env_with_home(&h.home), &[]), key.clone()).unwrap();
    // Opened at once too: neither may rebuild the index the other has just made.
    let (a, b) = std::thread::scope(|scope| {
        let (a, b) = (scope.spawn(open), scope.spawn(open));
        (a.join().unwrap(), b.join().unwrap())
    });
    std::thread::scope(|scope| {
        scope.spawn(|| a.refresh().unwrap());
        scope.spawn(|| b.refresh().unwrap());
    });
    a.wait_for_search_index().unwrap();
    b.wait_for_search_index().unwrap();
    assert!(Index::open(&h.index, key.as_ref()).unwrap().search_is_caught_up().unwrap());
    let search = |lib: &Library| {
        lib.search_messages(memory_bank_sessions::SearchArgs { query: Some("wombat number 7".into()), limit: Some(json!(50)), ..Default::default() })
            .unwrap()
            .hits
            .len()
    };
    assert_eq!(search(&a), 20);
    assert_eq!(search(&b), 20);
}

#[test]
fn a_refresh_blocked_by_another_process_answers_from_what_is_committed() {
    let h = Home::new();
    std::fs::write(session(&h, "s1"), line("user", "u1", "the first question", 1)).unwrap();
    let lib = common::library(&h.home, Some(&h.index));
    std::fs::write(session(&h, "s2"), line("user", "u2", "a second session", 2)).unwrap();

    // Another process holds the index's write lock for longer than the busy timeout.
    let other = common::connection(&h.index);
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let report = lib.refresh().unwrap();
    assert!(
        report.problems.iter().any(|p| p.message.contains("another Memory Bank process")),
        "{:?}",
        report.problems
    );
    let listed = lib.list_sessions(memory_bank_sessions::ListArgs::default()).unwrap();
    assert_eq!(listed.total, 1, "what was committed before is still answered");
    // A transcript read does not wait for it either.
    let t = lib.read_transcript(memory_bank_sessions::ReadArgs { session_id: Some("s1".into()), ..Default::default() });
    assert_eq!(t.unwrap().messages[0].text, "the first question");
    // Nor does a library opened meanwhile (another CLI run): it has no archive to import.
    let roots = Roots::new(&common::env_with_home(&h.home), &[]);
    Library::open(Some(&h.index), roots, common::suite_key()).expect("opens without the write lock");

    other.execute_batch("ROLLBACK").unwrap();
    lib.refresh().unwrap();
    assert_eq!(lib.list_sessions(memory_bank_sessions::ListArgs::default()).unwrap().total, 2);
}

#[test]
fn a_long_refresh_reports_progress_and_what_it_committed_is_listed_at_once() {
    let h = Home::new();
    for s in 0..12 {
        std::fs::write(session(&h, &format!("s{s:02}")), line("user", &format!("u{s}"), &format!("question {s}"), s)).unwrap();
    }
    let lib = std::sync::Arc::new(
        Library::open(Some(&h.index), Roots::new(&common::env_with_home(&h.home), &[]), common::suite_key()).unwrap(),
    );
    // A few hundred bytes per commit: a dozen sessions take several commits, as 2 GB take
    // several 64 MB ones.
    lib.set_commit_every(600);
    let shared = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    lib.on_progress({
        let (lib, seen) = (std::sync::Arc::downgrade(&lib), shared.clone());
        move || {
            // Lookups answer while the refresh goes on (the reader is its own connection).
            if let Some(lib) = lib.upgrade() {
                let total = lib.list_sessions(memory_bank_sessions::ListArgs::default()).unwrap().total;
                seen.lock().unwrap().push(total);
            }
        }
    });
    lib.refresh().unwrap();
    let seen = shared.lock().unwrap().clone();
    assert!(seen.len() >= 3, "{seen:?}");
    assert!(seen[0] < 12, "the first commit held only part of the sessions: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(*seen.last().unwrap(), 12);

    // Reading a transcript catches up on appends and commits, but reports no progress.
    let path = session(&h, "s00");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text += &line("assistant", "a0", "an appended answer", 30);
    std::fs::write(&path, text).unwrap();
    let t = lib.read_transcript(memory_bank_sessions::ReadArgs { session_id: Some("s00".into()), ..Default::default() });
    assert_eq!(t.unwrap().messages.last().unwrap().text, "an appended answer");
    assert_eq!(shared.lock().unwrap().len(), seen.len());
}

fn search_file_value(h: &Home, sql: &str) -> i64 {
    let conn = common::connection(&search_path(&h.index));
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn small_updates_are_merged_and_a_mostly_stale_search_index_starts_over() {
    let h = Home::new();
    let path = session(&h, "s1");
    let mut lines = String::new();
    let mut index = h.index();
    // Twenty refreshes of one new message each: twenty small segments, merged as they
    // accumulate, so a query reads a bounded number of them.
    for round in 0..20 {
        lines += &line("user", &format!("m{round}"), &format!("marmot sighting number {round}"), round);
        std::fs::write(&path, &lines).unwrap();
        index.refresh(&h.roots()).unwrap();
        index_for_search(&index);
    }
    let segments = search_file_value(&h, "SELECT count(*) FROM segment");
    assert!(segments < 8, "{segments} segments");
    assert_eq!(search(&h, &index, "marmot", 50).len(), 20);
    assert_eq!(search(&h, &index, "NUMBER 13", 50).len(), 1);

    // 1 200 more, then the file rewritten with one message: 1 220 stale postings, more
    // than a quarter of what was indexed, so the search index is built again.
    let more: String = (0..1200).map(|i| line("assistant", &format!("b{i}"), &format!("badger report {i}"), 30)).collect();
    std::fs::write(&path, lines.clone() + &more).unwrap();
    index.refresh(&h.roots()).unwrap();
    index_for_search(&index);
    assert_eq!(search(&h, &index, "badger report 1199", 5).len(), 1);
    std::fs::write(&path, line("user", "w1", "only a wombat is left", 1)).unwrap();
    index.refresh(&h.roots()).unwrap();
    index_for_search(&index);
    assert_eq!(search_file_value(&h, "SELECT stale FROM progress"), 0);
    assert_eq!(search_file_value(&h, "SELECT indexed FROM progress"), 1);
    assert!(search(&h, &index, "badger", 5).is_empty());
    assert!(search(&h, &index, "marmot", 5).is_empty());
    assert_eq!(search(&h, &index, "WOMBAT", 5).len(), 1);
}
