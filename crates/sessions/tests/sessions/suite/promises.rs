//! The promises every reader keeps, written once (see `mod.rs` for what each means for
//! opencode's database and JSON tree).

use memory_bank_sessions::{SearchArgs, SearchHit};

use super::{SessionWriter, World};

fn search<W: SessionWriter>(w: &World<W>, name: &str, text: &str) -> Vec<SearchHit> {
    let id = w.id(name);
    let hits = w.lib.search_messages(SearchArgs { query: Some(text.into()), ..Default::default() }).unwrap().hits;
    hits.into_iter().filter(|h| h.session_id == id).collect()
}

pub fn a_session_reads_back_whole<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["plan the client migration", "here is the plan", "go ahead", "done"]);
    w.refresh();
    w.assert_reads_as_written("s1");
    assert_eq!(w.listed("s1")[0].title, "plan the client migration", "untitled: the first message");
    let hits = search(&w, "s1", "HERE IS");
    assert_eq!(hits.iter().map(|h| h.index).collect::<Vec<_>>(), [1]);
}

pub fn a_half_written_last_record_waits_until_it_is_complete<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["first question", "first answer"]);
    w.append_half("s1", "second question, still being written");
    w.refresh();
    w.assert_reads_as_written("s1");
    w.finish_half("s1");
    w.refresh();
    w.assert_reads_as_written("s1");
    w.append("s1", "second answer");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn invalid_utf8_becomes_replacement_characters<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["before"]);
    w.append_raw("s1", b"caf\xe9 au lait \xff\xfe end", "caf\u{fffd} au lait \u{fffd}\u{fffd} end");
    w.append("s1", "after");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn lone_surrogate_escapes_become_replacement_characters<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["before"]);
    w.append_raw(
        "s1",
        br"cut \ud800 here, a pair \ud83c\udf89 stays, a low \udc00 too",
        "cut \u{fffd} here, a pair \u{1f389} stays, a low \u{fffd} too",
    );
    w.append("s1", "after");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn a_record_over_1_mb_is_kept_whole<W: SessionWriter>() {
    let mut w = World::<W>::new();
    let long = format!("{} needle-at-the-end", "abcdefgh ".repeat(1536 * 1024 / 9));
    assert!(long.len() > 1 << 20);
    w.write("s1", &["short question"]);
    w.append("s1", &long);
    w.append("s1", "after the long one");
    w.refresh();
    w.assert_reads_as_written("s1");
    assert_eq!(search(&w, "s1", "needle-at-the-end").iter().map(|h| h.index).collect::<Vec<_>>(), [1]);
}

pub fn unknown_records_are_skipped<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["known one"]);
    w.writer.append_unknown_records("s1");
    w.append("s1", "known two");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn a_record_that_is_not_json_loses_nothing_else<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["before"]);
    w.writer.append_broken_record("s1");
    w.append("s1", "after");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn an_empty_file_lists_nothing_until_it_is_written<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.writer.write_empty("s1");
    w.refresh();
    assert!(w.listed("s1").is_empty(), "{:?}", w.listed("s1"));
    assert!(w.read_alone("s1").is_empty());
    w.write("s1", &["now written", "and answered"]);
    w.write("s2", &["a second session"]);
    w.refresh();
    w.assert_reads_as_written("s1");
    w.assert_reads_as_written("s2");
}

pub fn messages_added_between_two_reads_are_read<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["one", "two"]);
    w.refresh();
    w.assert_reads_as_written("s1");
    w.append("s1", "three");
    w.append("s1", "four");
    w.refresh();
    w.assert_reads_as_written("s1");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn a_file_replaced_by_a_shorter_one_holds_only_the_new_messages<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["old question that is long enough", "old answer", "old follow-up", "old end"]);
    w.refresh();
    w.assert_reads_as_written("s1");
    w.write("s1", &["new question"]);
    w.refresh();
    w.assert_reads_as_written("s1");
    assert!(search(&w, "s1", "old answer").is_empty());
}
