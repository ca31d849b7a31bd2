//! Several agents start `memory-bank mcp` at once, and each opens the same session index:
//! none may fail, and none may delete the files another has just created.

use memory_bank_sessions::testing::Index;

#[test]
fn openers_racing_on_a_new_index_all_succeed() {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions-index.sqlite");
        let openers: Vec<_> = (0..4)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || Index::open(&path).map(drop).map_err(|e| e.to_string()))
            })
            .collect();
        for opener in openers {
            opener.join().unwrap().expect("every opener succeeds");
        }
        // And the index they made is whole.
        Index::open(&path).expect("the index opens afterwards");
    }
}
