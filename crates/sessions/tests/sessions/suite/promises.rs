//! The promises every reader keeps, written once (see `mod.rs` for what each means for
//! opencode's database and JSON tree).

use memory_bank_sessions::{ErrorCode, ForgetArgs, ReadArgs, SearchArgs, SearchHit};

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

pub fn a_deleted_session_is_archived_with_all_its_messages<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["plan the archive", "the archived answer", "one more"]);
    w.write("s2", &["stays live"]);
    w.refresh();
    w.writer.delete_session("s1");
    w.refresh();
    w.assert_listed_as_written("s1", true);
    assert!(w.read_alone("s1").is_empty(), "its source is gone");
    w.assert_reads_as_written("s2");
    let hits = search(&w, "s1", "archived answer");
    assert_eq!(hits.iter().map(|h| (h.index, h.archived)).collect::<Vec<_>>(), [(1, true)]);
    assert!(search(&w, "s2", "stays live").iter().all(|h| !h.archived));
    let read = w.lib.read_transcript(ReadArgs { session_id: Some(w.id("s1")), ..Default::default() }).unwrap();
    assert!(read.archived);
    assert_eq!(w.listed_with_status("archived", &["s1", "s2"]), ["s1"]);
    assert_eq!(w.listed_with_status("live", &["s1", "s2"]), ["s2"]);
    assert_eq!(w.listed_with_status("all", &["s1", "s2"]), ["s1", "s2"]);
    // Still there on the next refreshes.
    w.refresh();
    w.assert_listed_as_written("s1", true);
}

pub fn a_session_back_unchanged_is_live_again_once<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["kept question", "kept answer"]);
    // Written later: the database's rows of s1, put back, are older than what was read last.
    w.write("s2", &["a later session"]);
    w.refresh();
    w.writer.delete_session("s1");
    w.refresh();
    w.assert_listed_as_written("s1", true);
    w.writer.restore_session("s1");
    w.refresh();
    w.assert_reads_as_written("s1");
    assert_eq!(search(&w, "s1", "kept answer").len(), 1, "one copy");
    assert!(w.listed_with_status("archived", &["s1"]).is_empty());
}

pub fn a_session_back_with_other_messages_is_live_again_once<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["first version", "first answer", "first end"]);
    w.refresh();
    w.writer.delete_session("s1");
    w.refresh();
    w.assert_listed_as_written("s1", true);
    w.write("s1", &["second version", "second answer"]);
    w.refresh();
    w.assert_reads_as_written("s1");
    assert!(search(&w, "s1", "first answer").is_empty(), "the archived copy is gone");
}

pub fn forgetting_a_live_session_hides_it_until_it_has_new_activity<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["forget this question", "and this answer"]);
    w.write("s2", &["keep this one"]);
    w.refresh();
    let forgotten = w.forget("s1");
    assert_eq!((forgotten.session_id, forgotten.archived), (w.id("s1"), false));
    w.assert_gone("s1");
    assert!(search(&w, "s1", "this answer").is_empty());
    w.refresh();
    w.assert_gone("s1");
    w.restart(|_| {});
    w.refresh();
    w.assert_gone("s1");
    // A rebuilt index reads the unchanged file again, and leaves it out again.
    w.restart(delete_index_files);
    w.refresh();
    w.assert_gone("s1");
    w.assert_reads_as_written("s2");
    // The agent goes on with it: it is back, whole.
    w.append("s1", "a new question");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn forgetting_an_archived_session_is_for_good<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["archived then forgotten", "its answer"]);
    w.refresh();
    w.writer.delete_session("s1");
    w.refresh();
    assert!(w.forget("s1").archived);
    w.assert_gone("s1");
    assert!(search(&w, "s1", "its answer").is_empty());
    // Not back from the archive after a rebuilt index, nor from its file put back unchanged.
    w.restart(delete_index_files);
    w.refresh();
    w.assert_gone("s1");
    w.writer.restore_session("s1");
    w.refresh();
    w.assert_gone("s1");
    let err = w.lib.forget_session(ForgetArgs { session_id: Some(w.id("s1")), source: None }).unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotFound);
}

pub fn with_keep_archived_off_a_deleted_session_vanishes<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.lib.set_keep_archived(false);
    w.write("s1", &["gone with its file"]);
    w.write("s2", &["stays"]);
    w.refresh();
    w.writer.delete_session("s1");
    w.refresh();
    w.assert_gone("s1");
    w.assert_reads_as_written("s2");
    // Back, it is read again.
    w.writer.restore_session("s1");
    w.refresh();
    w.assert_reads_as_written("s1");
}

pub fn archived_sessions_survive_a_deleted_index<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["kept through a deleted index", "its answer"]);
    w.write("s2", &["live"]);
    w.refresh();
    w.writer.delete_session("s1");
    w.refresh();
    w.restart(delete_index_files);
    w.assert_listed_as_written("s1", true);
    w.refresh();
    w.assert_listed_as_written("s1", true);
    w.assert_reads_as_written("s2");
    assert_eq!(search(&w, "s1", "its answer").len(), 1);
}

pub fn archived_sessions_survive_a_schema_change_of_the_index<W: SessionWriter>() {
    let mut w = World::<W>::new();
    w.write("s1", &["kept through a schema change", "its answer"]);
    w.write("s2", &["live"]);
    w.refresh();
    w.writer.delete_session("s1");
    w.refresh();
    // An index of another schema version is rebuilt when opened.
    w.restart(|index| {
        let conn = memory_bank_sessions::testing::connection(index);
        conn.execute_batch("PRAGMA user_version = 1;").unwrap();
    });
    w.assert_listed_as_written("s1", true);
    w.refresh();
    w.assert_listed_as_written("s1", true);
    w.assert_reads_as_written("s2");
}

/// Deletes the index and its search file (they are caches), not the archive.
fn delete_index_files(index: &std::path::Path) {
    for file in [index.to_path_buf(), memory_bank_sessions::search_path(index)] {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
        }
    }
    assert!(memory_bank_sessions::archive_path(index).exists());
}
