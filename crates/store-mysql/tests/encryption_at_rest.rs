//! InnoDB data-at-rest encryption with `file_key_management`, on a real throwaway MariaDB:
//! with it on, `db migrate` makes every memory table encrypted (the FULLTEXT index's
//! auxiliary tables included) and no file of the server's data folder holds a saved
//! word in plain bytes; with it off (the control), the same words are found there.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use memory_bank_contract::validate::validate_save;
use memory_bank_contract::wire::{ContextInput, SaveMemoryRequest};
use memory_bank_store::suite::{files_holding, files_under};
use memory_bank_store::{Bank, MemoryStore as _};
use memory_bank_store_mysql::testing::{MariaDb, TestDatabase};
use memory_bank_store_mysql::MySqlStore;

const MARKER: &str = "zqxinnodbmarker";


/// Starts a server (encrypting or not), saves marked memories, lets InnoDB write its
/// pages out, and returns the files holding the marker and the encryption report.
async fn run(encrypt: bool) -> (Vec<PathBuf>, memory_bank_store_mysql::EncryptionReport) {
    let keys = tempfile::tempdir().unwrap();
    let key_file = keys.path().join("keys.txt");
    let hex: String = (0..32).map(|i| format!("{:02x}", (i * 53 + 7) % 256)).collect();
    std::fs::write(&key_file, format!("1;{hex}\n")).unwrap();
    let args: Vec<String> = if encrypt {
        [
            "--plugin-load-add=file_key_management".to_owned(),
            format!("--file-key-management-filename={}", key_file.display()),
            "--innodb-encrypt-tables=ON".to_owned(),
            "--innodb-encrypt-log=ON".to_owned(),
            "--innodb-encrypt-temporary-tables=ON".to_owned(),
            "--encrypt-tmp-files=ON".to_owned(),
            "--innodb-encryption-threads=2".to_owned(),
        ]
        .to_vec()
    } else {
        Vec::new()
    };
    let server = MariaDb::start_with(&args).expect("the throwaway MariaDB starts");
    let db = TestDatabase::create_on(&server.server_url()).await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    let report = store.encryption_report().await.unwrap();
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
    let holding = files_holding(files_under(&server.data_dir()), MARKER.as_bytes());
    (holding, report)
}

#[tokio::test(flavor = "multi_thread")]
async fn with_innodb_encryption_on_no_data_file_holds_a_saved_word() {
    let (holding, report) = run(true).await;
    assert!(report.all_encrypted(), "every table, FULLTEXT auxiliary tables included: {:?}", report.tables);
    assert!(report.tables.iter().any(|(t, _)| t.starts_with("FTS_")), "the report covers the FULLTEXT tables: {:?}", report.tables);
    assert!(holding.is_empty(), "plain bytes found in {holding:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn control_without_encryption_the_saved_word_is_in_the_data_files() {
    let (holding, report) = run(false).await;
    assert!(!report.all_encrypted(), "{:?}", report.tables);
    assert!(report.plaintext_tables().contains(&"memory"), "{:?}", report.tables);
    assert!(!holding.is_empty(), "the control must find the marker, or the other test proves nothing");
}
