//! Several agents start `memory-bank mcp` at once, and each opens the same session index:
//! none may fail, and none may delete the files another has just created.

use memory_bank_sessions::testing::Index;
use memory_bank_sessions::DbKey;

#[test]
fn openers_racing_on_a_new_index_all_succeed() {
    openers_race(None, false);
}

#[test]
fn keyed_openers_racing_on_a_new_encrypted_index_all_succeed() {
    openers_race(Some(DbKey::generate()), false);
}

/// The first keyed opens after an update find the earlier release's plaintext index:
/// they rebuild it once between them, and every one succeeds.
#[test]
fn keyed_openers_racing_on_a_plaintext_index_all_succeed() {
    openers_race(Some(DbKey::generate()), true);
}

fn openers_race(key: Option<DbKey>, plaintext_first: bool) {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions-index.sqlite");
        if plaintext_first {
            drop(Index::open(&path, None).unwrap());
        }
        let openers: Vec<_> = (0..4)
            .map(|_| {
                let (path, key) = (path.clone(), key.clone());
                std::thread::spawn(move || Index::open(&path, key.as_ref()).map(drop).map_err(|e| e.to_string()))
            })
            .collect();
        for opener in openers {
            opener.join().unwrap().expect("every opener succeeds");
        }
        // And the index they made is whole.
        Index::open(&path, key.as_ref()).expect("the index opens afterwards");
        if key.is_some() {
            assert!(!std::fs::read(&path).unwrap().starts_with(b"SQLite format 3\0"), "encrypted");
        }
    }
}
