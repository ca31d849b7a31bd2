//! The index and its search file encrypted with the archive's key (SQLCipher, real files):
//! an archived session's messages, whose only other copy is the encrypted archive, never
//! reach the index files in plain bytes; a plaintext index (the earlier release's) or one
//! under another key is rebuilt encrypted, with every archived and live session back.

use std::path::PathBuf;

use memory_bank_sessions::testing::{self as kit, search_path, Index};
use memory_bank_sessions::{archive_path, rekey_archive, DbKey, Library, ListArgs, ReadArgs, SearchArgs};
use memory_bank_sqlcipher_file::HMAC_ALGORITHM;
use serde_json::json;

use super::archive_encryption::{archived_home, archived_home_open, holding, is_plaintext, open, opens_with_hmac, MARKER};

/// Every file of the index: the index, the search file, and their WALs and WAL indexes.
fn index_files(h: &kit::TempHome) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for file in [h.index.clone(), search_path(&h.index)] {
        for suffix in ["", "-wal", "-shm"] {
            let path = PathBuf::from(format!("{}{suffix}", file.display()));
            if path.exists() {
                files.push(path);
            }
        }
    }
    files
}

/// Adds a live Claude session `s2` holding [`MARKER`] beside the archived one.
fn add_live_session(h: &kit::TempHome) {
    h.write(
        "-work-app",
        "s2",
        &[kit::claude_line("user", "u2", &format!("a live {MARKER} question"), "2026-11-02T10:00:00.000Z")],
    );
}

/// The listing (id, whether archived), the transcripts of `s1` and `s2`, and the sessions
/// a search for the marker finds.
type Answers = (Vec<(String, bool)>, Vec<Vec<String>>, Vec<String>);

/// What the library answers for the archived `s1` and the live `s2`.
fn answers(lib: &Library) -> Answers {
    lib.refresh().unwrap();
    lib.wait_for_search_index().unwrap();
    let list = lib.list_sessions(ListArgs { status: Some("all".into()), limit: Some(json!(200)), ..Default::default() }).unwrap();
    let listed = list.sessions.iter().map(|s| (s.session_id.clone(), s.archived)).collect();
    let read = |id: &str| {
        let t = lib.read_transcript(ReadArgs { session_id: Some(id.into()), ..Default::default() }).unwrap();
        t.messages.into_iter().map(|m| m.text).collect::<Vec<_>>()
    };
    let found = lib.search_messages(SearchArgs { query: Some(MARKER.into()), limit: Some(json!(50)), ..Default::default() }).unwrap();
    let mut found: Vec<String> = found.hits.into_iter().map(|hit| hit.session_id).collect();
    found.sort();
    found.dedup();
    (listed, vec![read("s1"), read("s2")], found)
}

fn expected() -> Answers {
    (
        vec![("s2".into(), false), ("s1".into(), true)],
        vec![vec![format!("the {MARKER} plan"), format!("noted {MARKER} again")], vec![format!("a live {MARKER} question")]],
        vec!["s1".into(), "s2".into()],
    )
}

#[test]
fn nothing_archived_reaches_the_index_files_in_plain_bytes() {
    let key = DbKey::generate();
    let (h, lib) = archived_home_open(Some(&key));
    lib.wait_for_search_index().unwrap();
    let files = index_files(&h);
    assert_eq!(files.len(), 6, "both databases, their WALs and WAL indexes: {files:?}");
    for file in [&h.index, &search_path(&h.index)] {
        assert!(!is_plaintext(file), "{} is encrypted", file.display());
    }
    assert_eq!(holding(&files, MARKER), Vec::<PathBuf>::new());
    drop(lib);
    assert_eq!(holding(&index_files(&h), MARKER), Vec::<PathBuf>::new(), "nor once closed");
    // Still read, listed and searched from the encrypted files.
    let lib = open(&h, Some(&key)).unwrap();
    lib.wait_for_search_index().unwrap();
    let found = lib.search_messages(SearchArgs { query: Some(MARKER.into()), ..Default::default() }).unwrap();
    assert_eq!(found.hits.len(), 2);
    assert!(found.hits.iter().all(|hit| hit.session_id == "s1" && hit.archived));

    // The control: without a key the index holds the archived session's text in plain bytes.
    let (plain, lib) = archived_home_open(None);
    lib.wait_for_search_index().unwrap();
    assert!(is_plaintext(&plain.index) && is_plaintext(&search_path(&plain.index)));
    assert!(!holding(&index_files(&plain), MARKER).is_empty());
    drop(lib);
    assert!(!holding(&index_files(&plain), MARKER).is_empty());
}

#[test]
fn a_plaintext_index_opened_with_a_key_is_rebuilt_encrypted_with_every_session() {
    // The earlier release: archive and index plaintext, the archived session in both.
    let h = archived_home(None);
    add_live_session(&h);
    assert_eq!(answers(&open(&h, None).unwrap()), expected());
    assert!(!holding(&index_files(&h), MARKER).is_empty(), "plaintext so far");

    let key = DbKey::generate();
    let lib = open(&h, Some(&key)).unwrap();
    assert_eq!(answers(&lib), expected(), "the archived session back from the archive, the live one from its file");
    drop(lib);
    for file in [h.index.clone(), search_path(&h.index), archive_path(&h.index)] {
        assert!(!is_plaintext(&file), "{} is encrypted", file.display());
    }
    assert_eq!(holding(&index_files(&h), MARKER), Vec::<PathBuf>::new(), "the plaintext index is gone, WAL and all");
    // And it stays: the next keyed open does not rebuild it again.
    let lib = open(&h, Some(&key)).unwrap();
    assert_eq!(lib.refresh().unwrap().sessions_archived, 0);
    assert_eq!(answers(&lib), expected());
}

#[test]
fn an_index_under_another_key_is_rebuilt_and_the_archive_is_kept() {
    // The archive moved to the key file's new key (`db rekey`); the index is still under the old one.
    let old = DbKey::generate();
    let h = archived_home(Some(&old));
    add_live_session(&h);
    assert_eq!(answers(&open(&h, Some(&old)).unwrap()), expected());
    let new = DbKey::generate();
    assert!(rekey_archive(&archive_path(&h.index), &new, std::slice::from_ref(&old)).unwrap());
    let lib = open(&h, Some(&new)).expect("a rebuilt index, not an error");
    assert_eq!(answers(&lib), expected());
    drop(lib);
    assert_eq!(holding(&index_files(&h), MARKER), Vec::<PathBuf>::new());
    assert!(Index::open(&h.index, Some(&new)).is_ok());
    for file in [h.index.clone(), search_path(&h.index)] {
        assert!(opens_with_hmac(&file, &new, HMAC_ALGORITHM), "{}: the new key and our HMAC", file.display());
        assert!(!opens_with_hmac(&file, &old, HMAC_ALGORITHM));
        assert!(!opens_with_hmac(&file, &new, "HMAC_SHA512"), "the HMAC setting is in the file");
    }
}

#[test]
fn an_index_opened_on_its_own_under_another_key_is_rebuilt_not_an_error() {
    let h = kit::TempHome::new();
    add_live_session(&h);
    let (a, b) = (DbKey::generate(), DbKey::generate());
    let mut index = Index::open(&h.index, Some(&a)).unwrap();
    index.refresh(&h.roots()).unwrap();
    drop(index);
    let mut index = Index::open(&h.index, Some(&b)).expect("rebuilt");
    assert_eq!(index.refresh(&h.roots()).unwrap().units_read, 1, "read again from the start");
    drop(index);
    // Without a key (no keyring) it is a plaintext index again, as before.
    let mut index = Index::open(&h.index, None).expect("rebuilt");
    assert_eq!(index.refresh(&h.roots()).unwrap().units_read, 1);
    drop(index);
    assert!(is_plaintext(&h.index));
}

#[test]
fn a_plaintext_archive_another_process_has_open_keeps_the_index_plaintext_too() {
    // An earlier release still running has both open: the keyed open leaves both for now
    // rather than deleting the index under it.
    let h = archived_home(None);
    let other = open(&h, None).unwrap();
    let key = DbKey::generate();
    let lib = open(&h, Some(&key)).unwrap();
    assert!(is_plaintext(&archive_path(&h.index)) && is_plaintext(&h.index));
    drop((lib, other));
    drop(open(&h, Some(&key)).unwrap());
    assert!(!is_plaintext(&archive_path(&h.index)) && !is_plaintext(&h.index), "both once nothing else has them open");
}

#[test]
fn a_plaintext_index_another_process_has_open_is_not_deleted_under_it() {
    // The archive is encrypted already (the earlier release did that); its index is not,
    // and an agent's `memory-bank mcp` of that release still has it open.
    let key = DbKey::generate();
    let h = archived_home(Some(&key));
    add_live_session(&h);
    for file in index_files(&h) {
        std::fs::remove_file(file).unwrap();
    }
    let mut other = Index::open(&h.index, None).unwrap();
    other.refresh(&h.roots()).unwrap();
    assert!(is_plaintext(&h.index));
    let lib = open(&h, Some(&key)).unwrap();
    assert!(is_plaintext(&h.index), "used as it is while the other process has it");
    assert_eq!(answers(&lib), expected());
    drop((lib, other));
    let lib = open(&h, Some(&key)).unwrap();
    assert_eq!(answers(&lib), expected());
    drop(lib);
    assert!(!is_plaintext(&h.index) && !is_plaintext(&search_path(&h.index)), "encrypted once nothing else has it open");
    assert_eq!(holding(&index_files(&h), MARKER), Vec::<PathBuf>::new());
}
