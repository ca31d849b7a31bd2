//! Every file of the session library is private (issue 28, item 8): the index, its search
//! file, the archive, their WALs, shared-memory indexes and lock files, an archive's
//! encrypted copy and a rebuilt index, under an open umask (`022`) so by how they are
//! created; and so is the folder the library makes for them.

#![cfg(unix)]

use memory_bank_private_files::testing::{not_private, open_umask};
use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{archive_path, DbKey, ForgetArgs, Library, Roots};

fn open(home: &std::path::Path, index: &std::path::Path, key: Option<DbKey>) -> Library {
    let lib = Library::open(Some(index), Roots::new(&kit::env_with_home(home), &[]), key).unwrap();
    lib.refresh().unwrap();
    lib
}

#[test]
fn the_index_its_search_file_the_archive_and_their_companions_are_private() {
    open_umask();
    for key in [None, Some(DbKey::generate())] {
        let (dir, home) = kit::full_home();
        let data = dir.path().join("data");
        let index = data.join("sessions-index.sqlite");
        let lib = open(&home, &index, key.clone());
        // A session archived (its file deleted) and one forgotten: the archive is written.
        std::fs::remove_dir_all(home.join(".gemini")).unwrap();
        assert!(lib.refresh().unwrap().sessions_archived > 0);
        let any = lib.list_sessions(Default::default()).unwrap().sessions.remove(0);
        lib.forget_session(ForgetArgs { session_id: Some(any.session_id), source: None }).unwrap();
        lib.wait_for_search_index().unwrap();
        for file in ["sessions-index.sqlite-wal", "sessions-index.search.sqlite", "sessions-archive.sqlite-wal"] {
            assert!(data.join(file).exists(), "{file} is among those checked");
        }
        assert_eq!(not_private(&data), vec![], "open, key: {}", key.is_some());
        drop(lib);
        assert_eq!(not_private(&data), vec![], "closed, key: {}", key.is_some());
    }
}

#[test]
fn an_archive_encrypted_on_a_keyed_open_and_an_index_rebuilt_under_it_stay_private() {
    open_umask();
    let (dir, home) = kit::claude_home();
    let data = dir.path().join("data");
    let index = data.join("sessions-index.sqlite");
    drop(open(&home, &index, None));
    // The plaintext archive is exported into its encrypted copy, which replaces it; the
    // plaintext index is deleted and made again under the key.
    let lib = open(&home, &index, Some(DbKey::generate()));
    assert_eq!(memory_bank_sqlcipher_file::file_state(&archive_path(&index)).unwrap(), memory_bank_sqlcipher_file::FileState::Encrypted);
    assert_eq!(not_private(&data), vec![]);
    drop(lib);
    assert_eq!(not_private(&data), vec![]);
}
