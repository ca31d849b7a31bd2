//! The session data of an earlier default place taken into the library's (the CLI's own
//! folder into the app's, issue 28 item 8): archived sessions and forgotten marks are
//! merged into the library's archive and survive there, the old files go, an old
//! archive another process has open is left alone, and a second call finds nothing.

use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{adopt_library, archive_path, search_path, Adoption, DbKey, ForgetArgs, Library, ListArgs, ReadArgs, Roots};
use serde_json::json;

fn write(h: &kit::TempHome, id: &str, day: u32) -> PathBuf {
    let text = format!("the {id} session's text");
    h.write("-work-app", id, &[kit::claude_line("user", &format!("u-{id}"), &text, &format!("2026-11-0{day}T10:00:00.000Z"))])
}

fn open(h: &kit::TempHome, index: &Path, key: Option<DbKey>) -> Library {
    let lib = Library::open(Some(index), Roots::new(&kit::env_with_home(&h.home), &[]), key).unwrap();
    lib.refresh().unwrap();
    lib
}

fn archived(lib: &Library) -> Vec<String> {
    let list = lib.list_sessions(ListArgs { status: Some("archived".into()), limit: Some(json!(200)), ..Default::default() });
    let mut ids: Vec<String> = list.unwrap().sessions.into_iter().map(|s| s.session_id).collect();
    ids.sort();
    ids
}

/// The earlier place archived `s-old` and forgot `s-gone`; the library, which never saw
/// `s-old`, archived `s-new`. Returns the home, the old index and the new one.
fn two_places(old_key: Option<DbKey>, new_key: Option<DbKey>) -> (kit::TempHome, PathBuf, PathBuf) {
    let h = kit::TempHome::new();
    let old_index = h.dir().join("memory-bank/sessions-index.sqlite");
    let new_index = h.dir().join("dev.memorybank.app/sessions-index.sqlite");
    let s_old = write(&h, "s-old", 1);
    write(&h, "s-gone", 2);
    let old = open(&h, &old_index, old_key);
    std::fs::remove_file(s_old).unwrap();
    old.refresh().unwrap();
    old.forget_session(ForgetArgs { session_id: Some("s-gone".into()), source: None }).unwrap();
    let s_new = write(&h, "s-new", 3);
    let new = open(&h, &new_index, new_key);
    std::fs::remove_file(s_new).unwrap();
    new.refresh().unwrap();
    assert_eq!((archived(&old), archived(&new)), (vec!["s-old".to_string()], vec!["s-new".to_string()]));
    (h, old_index, new_index)
}

#[test]
fn an_earlier_places_archive_is_merged_in_and_its_files_go() {
    for keys in [(None, None), (Some(DbKey::generate()), Some(DbKey::generate()))] {
        let (h, old_index, new_index) = two_places(keys.0.clone(), keys.1.clone());
        // The app's library was open before: its index imported its archive already.
        let running = open(&h, &new_index, keys.1.clone());
        drop(running);

        let adoption = adopt_library(&old_index, keys.0.as_ref(), &new_index, keys.1.as_ref()).unwrap();
        assert_eq!(adoption, Adoption::Merged { sessions: 1, forgotten: 1 });
        let old_dir = old_index.parent().unwrap();
        let left: Vec<_> = std::fs::read_dir(old_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "the earlier place's files are gone: {left:?}");

        let lib = open(&h, &new_index, keys.1.clone());
        assert_eq!(archived(&lib), ["s-new", "s-old"], "the index imported the merged archive");
        let t = lib.read_transcript(ReadArgs { session_id: Some("s-old".into()), ..Default::default() }).unwrap();
        assert_eq!(t.messages[0].text, "the s-old session's text");
        assert!(lib.list_sessions(Default::default()).unwrap().sessions.iter().all(|s| s.session_id != "s-gone"), "forgotten there, forgotten here");
        drop(lib);
        assert_eq!(adopt_library(&old_index, keys.0.as_ref(), &new_index, keys.1.as_ref()).unwrap(), Adoption::Absent);
        // From the new archive alone (a rebuilt index), all there.
        for file in [new_index.clone(), search_path(&new_index)] {
            std::fs::remove_file(file).unwrap();
        }
        assert_eq!(archived(&open(&h, &new_index, keys.1.clone())), ["s-new", "s-old"]);
    }
}

#[test]
fn an_earlier_archive_another_process_has_open_is_left_alone() {
    let (h, old_index, new_index) = two_places(None, None);
    let elsewhere = open(&h, &old_index, None);
    let archive = std::fs::read(archive_path(&old_index)).unwrap();
    assert_eq!(adopt_library(&old_index, None, &new_index, None).unwrap(), Adoption::InUse);
    assert!(old_index.exists(), "its index stays too");
    drop(elsewhere);
    assert_eq!(std::fs::read(archive_path(&old_index)).unwrap().len(), archive.len());
    assert_eq!(adopt_library(&old_index, None, &new_index, None).unwrap(), Adoption::Merged { sessions: 1, forgotten: 1 });
}

#[test]
fn an_earlier_archive_the_key_does_not_open_is_an_error_and_both_stay() {
    let (h, old_index, new_index) = two_places(Some(DbKey::generate()), None);
    let before = std::fs::read(archive_path(&old_index)).unwrap();
    let err = adopt_library(&old_index, Some(&DbKey::generate()), &new_index, None).unwrap_err();
    assert!(err.to_string().contains("does not open it"), "{err}");
    assert_eq!(std::fs::read(archive_path(&old_index)).unwrap(), before);
    assert_eq!(archived(&open(&h, &new_index, None)), ["s-new"]);
}
