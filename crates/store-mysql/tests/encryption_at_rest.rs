//! InnoDB data-at-rest encryption with `file_key_management`, on a real throwaway MariaDB:
//! with it on, `db migrate` makes every memory table encrypted (the search index's
//! table included) and no file of the server's data folder holds a saved
//! word in plain bytes; with it off (the control), the same words are found there.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use memory_bank_contract::validate::validate_save;
use memory_bank_contract::wire::{ContextInput, SaveMemoryRequest};
use memory_bank_store::suite::{files_holding, files_under};
use memory_bank_store::{Bank, MemoryStore as _};
use memory_bank_store_mysql::testing::{MariaDb, TestDatabase};
use memory_bank_store_mysql::{MySqlStore, TableEncryption};

const MARKER: &str = "zqxinnodbmarker";


/// The server options of README's "Encryption at rest" (the key file in `keys`).
fn encryption_args(keys: &tempfile::TempDir) -> Vec<String> {
    let key_file = keys.path().join("keys.txt");
    let hex: String = (0..32).map(|i| format!("{:02x}", (i * 53 + 7) % 256)).collect();
    std::fs::write(&key_file, format!("1;{hex}\n")).unwrap();
    vec![
        "--plugin-load-add=file_key_management".to_owned(),
        format!("--file-key-management-filename={}", key_file.display()),
        "--innodb-encrypt-tables=ON".to_owned(),
        "--innodb-encrypt-log=ON".to_owned(),
        "--innodb-encrypt-temporary-tables=ON".to_owned(),
        "--encrypt-tmp-files=ON".to_owned(),
        "--innodb-encryption-threads=2".to_owned(),
    ]
}

/// Starts a server (encrypting or not), saves marked memories, lets InnoDB write its
/// pages out, and returns the files holding the marker and the encryption report.
async fn run(encrypt: bool) -> (Vec<PathBuf>, memory_bank_store_mysql::EncryptionReport) {
    let keys = tempfile::tempdir().unwrap();
    let args = if encrypt { encryption_args(&keys) } else { Vec::new() };
    let server = MariaDb::start_with(&args).expect("the throwaway MariaDB starts");
    let db = TestDatabase::create_on(&server.server_url()).await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    let report = store.encryption_report().await.unwrap();
    save_marked(&store).await;
    let holding = files_holding(files_under(&server.data_dir()), MARKER.as_bytes());
    (holding, report)
}

/// Saves 50 memories holding [`MARKER`] (content and snippet), then waits until InnoDB
/// has written every dirty page out.
async fn save_marked(store: &MySqlStore) {
    let bank = Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Engines").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    for i in 0..50 {
        let input = validate_save(SaveMemoryRequest {
            content: format!("Ada hides the {MARKER} under tile {i}"),
            tags: None,
            contexts: Some(vec![ContextInput { snippet: format!("the {MARKER} snippet"), conversation_id: None, message_id: None, origin: None }]),
            confirmed_via: None,
            scope: None,
        })
        .unwrap();
        bank.save(&user, &org, input).await.unwrap();
    }
    // The rows are in the redo log at commit; make InnoDB write the pages out too.
    sqlx::query("SET GLOBAL innodb_max_dirty_pages_pct = 0").execute(store.pool()).await.unwrap();
    sqlx::query("OPTIMIZE TABLE memory").execute(store.pool()).await.unwrap();
    // Until the buffer pool holds no dirty page, not a fixed wait: on a loaded machine
    // 3 s was once too short and the control found nothing.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, dirty): (String, String) = sqlx::query_as("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
            .fetch_one(store.pool())
            .await
            .unwrap();
        if dirty == "0" || std::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn with_innodb_encryption_on_no_data_file_holds_a_saved_word() {
    let (holding, report) = run(true).await;
    assert!(report.all_encrypted(), "every table, the search index's included: {:?}", report.tables);
    assert!(report.tables.iter().any(|(t, _)| t == "memory_term"), "the report covers the search index: {:?}", report.tables);
    assert!(holding.is_empty(), "plain bytes found in {holding:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn control_without_encryption_the_saved_word_is_in_the_data_files() {
    let (holding, report) = run(false).await;
    assert!(!report.all_encrypted(), "{:?}", report.tables);
    assert!(report.plaintext_tables().contains(&"memory"), "{:?}", report.tables);
    assert!(!holding.is_empty(), "the control must find the marker, or the other test proves nothing");
}

/// Tables made before encryption was turned on (a server that ran without it, then
/// restarted with README's options): `db migrate` rebuilds every one the server has not
/// encrypted (InnoDB's background threads alone left some for minutes), after which the
/// report, which `serve` warns from and `db status` prints, calls none of them not
/// encrypted, and the memory table's own file holds no saved word.
#[tokio::test(flavor = "multi_thread")]
async fn db_migrate_encrypts_the_tables_made_before_encryption_was_turned_on() {
    let keys = tempfile::tempdir().unwrap();
    let mut server = MariaDb::start().expect("the throwaway MariaDB starts");
    let db = TestDatabase::create_on(&server.server_url()).await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    save_marked(&store).await;
    assert!(store.encryption_report().await.unwrap().plaintext_tables().contains(&"memory"));
    store.pool().close().await;

    server.restart_with(&encryption_args(&keys)).expect("the server starts again with encryption on");
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    let report = store.encryption_report().await.unwrap();
    assert!(report.plaintext_tables().is_empty(), "after db migrate: {:?}", report.tables);
    for (table, state) in &report.tables {
        // A FULLTEXT table InnoDB has not opened since the restart is "not known yet".
        if !table.starts_with("FTS_") {
            assert_eq!(*state, TableEncryption::Encrypted, "{table} after db migrate");
        }
    }
    assert!(report.tables.iter().any(|(t, e)| t == "memory_term" && *e == TableEncryption::Encrypted), "{:?}", report.tables);
    // Migrating again finds nothing to rebuild.
    assert!(store.rebuild_unencrypted_tables().await.unwrap().is_empty());
    sqlx::query("SET GLOBAL innodb_max_dirty_pages_pct = 0").execute(store.pool()).await.unwrap();
    let memory_file: Vec<PathBuf> =
        files_under(&server.data_dir()).into_iter().filter(|f| f.ends_with(format!("{}/memory.ibd", db.name()))).collect();
    assert_eq!(memory_file.len(), 1, "the memory table's file");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !files_holding(memory_file.clone(), MARKER.as_bytes()).is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(files_holding(memory_file, MARKER.as_bytes()).is_empty(), "the rebuilt memory table holds the word in plain bytes");
}
