//! Paging with cursors (listings and searches, on every search path), the search filters
//! and the per-message character cap: pages follow each other exactly, add up to the
//! whole answer, and a page shortened by a door (`keep_first`) goes on right after the
//! last item it kept.

use memory_bank_sessions::testing as common;

use std::path::PathBuf;

use memory_bank_sessions::testing::SearchFilter;
use memory_bank_sessions::{ErrorCode, LatestArgs, ListArgs, ReadArgs, Roots, SearchArgs, SearchHit, Source};
use memory_bank_sessions::testing::Index;
use serde_json::json;

use common::TempHome as Home;

/// A Claude record in `cwd` at 2026-11-01 10:`minute`:`second`.
fn line(kind: &str, cwd: &str, uuid: &str, text: &str, minute: u32, second: u32) -> String {
    let message = if kind == "user" {
        json!({"role":"user","content":text})
    } else {
        json!({"id":format!("msg_{uuid}"),"role":"assistant","content":[{"type":"text","text":text}]})
    };
    json!({"type":kind,"uuid":uuid,"cwd":cwd,
           "timestamp":format!("2026-11-01T10:{minute:02}:{second:02}.000Z"),"message":message})
    .to_string()
}

fn ids(list: &memory_bank_sessions::SessionList) -> Vec<String> {
    list.sessions.iter().map(|s| s.session_id.clone()).collect()
}

/// 57 sessions in two workspaces, many of them ending at the same time (ties are
/// ordered by creation, then by index row).
fn many_sessions() -> Home {
    let h = Home::new();
    for i in 0..57u32 {
        let cwd = if i % 3 == 0 { "/work/alpha" } else { "/work/beta" };
        let lines = [
            line("user", cwd, &format!("u{i}"), &format!("task number {i}"), i % 4, 0),
            line("assistant", cwd, &format!("a{i}"), "done", 10 + i % 7, 0),
        ];
        h.write(&format!("-p{}", i % 5), &format!("s{i:02}"), &lines);
    }
    h
}

#[test]
fn list_pages_follow_each_other_and_add_up_to_total() {
    let h = many_sessions();
    let lib = h.library();
    let filters = [
        ListArgs::default(),
        ListArgs { workspace: Some("alpha".into()), ..Default::default() },
        // The text filter is ordered in Rust, not by SQLite: the same order and cursors.
        ListArgs { query: Some("task".into()), ..Default::default() },
        ListArgs { query: Some("number 1".into()), ..Default::default() },
        ListArgs { source: Some("codex".into()), ..Default::default() },
    ];
    for filter in filters {
        let all = lib.list_sessions(ListArgs { limit: Some(json!(200)), ..filter.clone() }).unwrap();
        assert_eq!(all.total as usize, all.sessions.len());
        assert_eq!(all.next_cursor, None, "one page holds all");
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = lib.list_sessions(ListArgs { limit: Some(json!(7)), cursor: cursor.clone(), ..filter.clone() }).unwrap();
            assert_eq!(page.total, all.total, "every page says how many there are in all");
            seen.extend(ids(&page));
            match page.next_cursor {
                Some(next) => {
                    assert_eq!(page.sessions.len(), 7, "only the last page is short");
                    cursor = Some(next);
                }
                None => break,
            }
        }
        assert_eq!(seen, ids(&all), "{filter:?}");
    }
    let all = lib.list_sessions(ListArgs { limit: Some(json!(200)), ..Default::default() }).unwrap();
    assert_eq!(all.total, 57);
    assert_eq!(lib.list_sessions(ListArgs { limit: Some(json!(57)), ..Default::default() }).unwrap().next_cursor, None);
    // The JSON shape gains `nextCursor` only when there is a next page.
    let page = lib.list_sessions(ListArgs { limit: Some(json!(2)), ..Default::default() }).unwrap();
    let wire = serde_json::to_value(&page).unwrap();
    assert_eq!(wire["nextCursor"], json!(page.next_cursor.clone().unwrap()));
    assert!(serde_json::to_value(&all).unwrap().get("nextCursor").is_none());
}

#[test]
fn a_page_kept_short_goes_on_after_its_last_session() {
    let h = many_sessions();
    let lib = h.library();
    let all = ids(&lib.list_sessions(ListArgs { limit: Some(json!(200)), ..Default::default() }).unwrap());
    let next =
        |cursor: Option<String>| lib.list_sessions(ListArgs { limit: Some(json!(5)), cursor, ..Default::default() }).unwrap();
    let mut page = lib.list_sessions(ListArgs { limit: Some(json!(10)), ..Default::default() }).unwrap();
    page.keep_first(3);
    assert_eq!(ids(&page), all[..3]);
    assert_eq!(ids(&next(page.next_cursor.clone())), all[3..8]);
    // Keeping none skips the first one, so paging never stalls on it.
    let mut page = lib.list_sessions(ListArgs { limit: Some(json!(10)), ..Default::default() }).unwrap();
    page.keep_first(0);
    assert!(page.sessions.is_empty());
    assert_eq!(ids(&next(page.next_cursor.clone())), all[1..6]);
    // Keeping at least as many changes nothing.
    let mut last = next(None);
    let before = last.clone();
    last.keep_first(5);
    assert_eq!(last, before);
}

#[test]
fn bad_cursors_are_clear_errors() {
    let h = many_sessions();
    let lib = h.library();
    let page = lib.list_sessions(ListArgs { limit: Some(json!(2)), ..Default::default() }).unwrap();
    let search = |cursor: &str| {
        lib.search_messages(SearchArgs { query: Some("task".into()), cursor: Some(cursor.into()), ..Default::default() })
    };
    let list = |cursor: &str| lib.list_sessions(ListArgs { cursor: Some(cursor.into()), ..Default::default() });
    for err in [list("page-2").unwrap_err(), search("3").unwrap_err(), search(page.next_cursor.as_deref().unwrap()).unwrap_err()]
    {
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(err.message.contains("nextCursor"), "{}", err.message);
    }
    // An empty cursor is the first page.
    assert_eq!(list("  ").unwrap().total, 57);
    let err = lib.search_messages(SearchArgs { query: Some("x".into()), source: Some("vim".into()), ..Default::default() });
    assert_eq!(err.unwrap_err().code, ErrorCode::InvalidRequest);
}

/// A home whose sessions hold 2 300 messages containing "wombat" (more than the search
/// sorts whole, so it walks) in two workspaces, 15 holding "quokka" (few: sorted whole),
/// and times shared across sessions.
fn search_home() -> (Home, Vec<(Source, PathBuf)>) {
    let h = Home::new();
    for (id, cwd, n) in [("alpha", "/work/alpha", 1300u32), ("beta", "/work/beta", 1000)] {
        let lines: Vec<String> = (0..n)
            .map(|i| {
                let kind = if i % 2 == 0 { "user" } else { "assistant" };
                let text = if i % 100 == 7 { format!("wombat and quokka {i}") } else { format!("wombat {i}") };
                line(kind, cwd, &format!("{id}-{i}"), &text, (i / 60) % 60, i % 60)
            })
            .chain((0..50).map(|i| line("user", cwd, &format!("{id}-other-{i}"), "nothing to see", 59, i % 60)))
            .collect();
        h.write(&format!("-work-{id}"), id, &lines);
    }
    let roots = Roots::new(&common::env_with_home(&h.home), &[]).0;
    (h, roots)
}

fn hit_ids(hits: &[SearchHit]) -> Vec<String> {
    hits.iter().map(|h| format!("{}/{}", h.session_id, h.message_id)).collect()
}

/// Every hit of `query` under `filter`, one page of `limit` at a time.
fn all_pages(index: &Index, keys: &[String], query: &str, filter: &SearchFilter, limit: u32) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    let mut filter = filter.clone();
    loop {
        let page = index.search_page(keys, query, &filter, limit).unwrap();
        assert!(page.hits.len() <= limit as usize);
        hits.extend(page.hits.iter().cloned());
        match page.next_cursor.as_deref() {
            Some(next) => {
                assert_eq!(page.hits.len(), limit as usize, "only the last page is short");
                filter.after = Some(memory_bank_sessions::testing::SearchCursor::decode(next).unwrap());
            }
            None => return hits,
        }
    }
}

#[test]
fn search_pages_follow_each_other_on_every_search_path() {
    let (h, roots) = search_home();
    let keys: Vec<String> = roots.iter().map(|(_, p)| p.to_string_lossy().into_owned()).collect();
    let mut index = Index::open(&h.index, memory_bank_sessions::testing::suite_key().as_ref()).unwrap();
    index.refresh(&roots).unwrap();
    let filters = [
        SearchFilter::default(),
        SearchFilter { workspace: Some("alpha".into()), ..Default::default() },
        SearchFilter { workspace: Some("/work/beta/".into()), source: Some(Source::ClaudeCode), ..Default::default() },
        SearchFilter { source: Some(Source::Gemini), ..Default::default() },
    ];
    let expected_counts = [(2300, 23), (1300, 13), (1000, 10), (0, 0)];
    let mut answers = Vec::new();
    // First by scanning the stored texts, then through the trigram index.
    for indexed in [false, true] {
        if indexed {
            index.index_for_search(&|| false).unwrap();
            assert!(index.search_is_caught_up().unwrap());
        }
        let mut answer = Vec::new();
        for (filter, (wombats, quokkas)) in filters.iter().zip(expected_counts) {
            for (query, count) in [("wombat", wombats), ("QUOKKA", quokkas)] {
                let whole = index.search_page(&keys, query, filter, 10_000).unwrap();
                assert_eq!(whole.hits.len(), count, "{query} {filter:?} indexed={indexed}");
                assert_eq!(whole.next_cursor, None);
                for limit in [1, 97, 2300] {
                    if limit == 1 && count > 100 {
                        continue;
                    }
                    let paged = all_pages(&index, &keys, query, filter, limit);
                    assert_eq!(hit_ids(&paged), hit_ids(&whole.hits), "{query} by {limit} {filter:?} indexed={indexed}");
                }
                answer.push(hit_ids(&whole.hits));
            }
        }
        answers.push(answer);
    }
    assert_eq!(answers[0], answers[1], "both paths give the same answers");
    // The workspace filter keeps only that session's messages.
    assert!(answers[0][2].iter().all(|id| id.starts_with("alpha/")));
    assert!(answers[0][4].iter().all(|id| id.starts_with("beta/")));
}

#[test]
fn search_through_the_library_pages_and_filters() {
    let (h, _) = search_home();
    let lib = h.library();
    lib.wait_for_search_index().unwrap();
    let args = |cursor: Option<String>| SearchArgs {
        query: Some("quokka".into()),
        limit: Some(json!(4)),
        workspace: Some("beta".into()),
        source: Some("claude".into()),
        cursor,
    };
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = lib.search_messages(args(cursor)).unwrap();
        seen.extend(hit_ids(&page.hits));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), 10);
    assert!(seen.iter().all(|id| id.starts_with("beta/")));
    let mut page = lib.search_messages(args(None)).unwrap();
    page.keep_first(1);
    let rest = lib.search_messages(args(page.next_cursor.clone())).unwrap();
    assert_eq!(hit_ids(&rest.hits), seen[1..5]);
    let wire = serde_json::to_value(&page).unwrap();
    assert_eq!(wire["nextCursor"], json!(page.next_cursor));
    let last = lib.search_messages(SearchArgs { limit: Some(json!(200)), ..args(None) }).unwrap();
    assert!(serde_json::to_value(&last).unwrap().get("nextCursor").is_none());
}

#[test]
fn texts_are_cut_to_the_requested_characters() {
    let h = Home::new();
    let long = "é".repeat(1000);
    h.write(
        "-work-app",
        "s1",
        &[line("user", "/work/app", "u1", &long, 1, 0), line("assistant", "/work/app", "a1", "short answer", 1, 1)],
    );
    let lib = h.library();
    let read = |cap: serde_json::Value| {
        lib.read_transcript(ReadArgs { session_id: Some("s1".into()), max_chars_per_message: Some(cap), ..Default::default() })
    };
    let t = read(json!(200)).unwrap();
    assert_eq!(t.messages[0].text, "é".repeat(200));
    assert!(t.messages[0].truncated);
    assert_eq!((t.messages[1].text.as_str(), t.messages[1].truncated), ("short answer", false));
    let wire = serde_json::to_value(&t).unwrap();
    assert_eq!(wire["messages"][0]["truncated"], true);
    assert!(wire["messages"][1].get("truncated").is_none(), "the flag appears only when set");
    assert!(!read(json!(1000)).unwrap().messages[0].truncated, "exactly the cap is whole");
    assert!(read(json!(999)).unwrap().messages[0].truncated);
    // No cap: whole texts, as before.
    let whole = lib.read_transcript(ReadArgs { session_id: Some("s1".into()), ..Default::default() }).unwrap();
    assert_eq!(whole.messages[0].text, long);
    for bad in [json!(199), json!(20_001), json!("lots")] {
        assert_eq!(read(bad).unwrap_err().code, ErrorCode::InvalidRequest);
    }
    let latest = |cap| lib.latest_message(LatestArgs { session_id: Some("s1".into()), max_chars: cap }).unwrap();
    assert_eq!((latest(Some(json!(200))).text.as_str(), latest(Some(json!(200))).truncated), ("short answer", false));
    assert_eq!(latest(None).text, "short answer");
}
