//! Every file of a SQLite bank is private (issue 28, item 8): the database, its WAL and
//! shared-memory index, the encryption lock and the encrypted copy that replaces a
//! plaintext bank, under an open umask (`022`), so by how they are created. The folder
//! the store makes for a bank is private too.

#![cfg(unix)]

use std::path::Path;
use std::sync::Arc;

use memory_bank_contract::validate::validate_save;
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_private_files::testing::{mode, not_private, open_umask};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::encryption::rekey;
use memory_bank_store_sqlite::{DbKey, SqliteStore};

fn url(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

async fn save_some(store: &SqliteStore) {
    let bank = Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Engines").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    for i in 0..20 {
        let input = validate_save(SaveMemoryRequest { content: format!("memory {i}"), ..Default::default() }).unwrap();
        bank.save(&user, &org, input).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_bank_and_everything_beside_it_are_private() {
    open_umask();
    for key in [None, Some(DbKey::generate())] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("memory-bank");
        let path = data.join("memory.db");
        let store = SqliteStore::open_with_key(&url(&path), key.as_ref()).await.unwrap();
        save_some(&store).await;
        assert!(data.join("memory.db-wal").exists() && data.join("memory.db-shm").exists(), "open: the WAL is there");
        assert_eq!(not_private(&data), vec![], "open, key: {}", key.is_some());
        store.close().await;
        assert_eq!(not_private(&data), vec![], "closed");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plaintext_bank_encrypted_in_place_and_rekeyed_stays_private() {
    open_umask();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let path = data.join("memory.db");
    let store = SqliteStore::open(&url(&path)).await.unwrap();
    save_some(&store).await;
    store.close().await;

    let key = DbKey::generate();
    let store = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap();
    assert!(data.join("memory.db.encrypt-lock").exists(), "the lock file is among those checked");
    assert_eq!(not_private(&data), vec![], "the encrypted copy took the bank's place");
    store.close().await;

    rekey(&path, &key, &DbKey::generate()).await.unwrap();
    assert_eq!(not_private(&data), vec![]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bank_that_exists_keeps_its_mode() {
    open_umask();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    let store = SqliteStore::open(&url(&path)).await.unwrap();
    store.close().await;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    let store = SqliteStore::open(&url(&path)).await.unwrap();
    save_some(&store).await;
    assert_eq!(mode(&path), 0o640, "an operator's choice for a bank they made is theirs");
    store.close().await;
}

/// A bank from before team banks (0.1): each org's first member owns it, the others are
/// members, and opening it again changes nothing more.
#[tokio::test(flavor = "multi_thread")]
async fn an_older_bank_opens_with_each_org_s_first_member_as_its_owner() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/plaintext-0.1.db"), &path).unwrap();
    let url = format!("sqlite://{}", path.display());
    for _ in 0..2 {
        let store = memory_bank_store_sqlite::SqliteStore::open(&url).await.unwrap();
        let bank = memory_bank_store::Bank::new(std::sync::Arc::new(store.clone()));
        let users = bank.list_users().await.unwrap();
        let id = |email: &str| users.iter().find(|u| u.email == email).unwrap().id.clone();
        let org = bank.user_orgs(&id("ada@example.com")).await.unwrap().remove(0).id;
        let roles: Vec<(String, memory_bank_contract::teams::Role)> =
            bank.org_members(&org).await.unwrap().into_iter().map(|m| (m.email, m.role)).collect();
        use memory_bank_contract::teams::Role;
        assert_eq!(roles, [("ada@example.com".to_owned(), Role::Owner), ("grace@example.com".to_owned(), Role::Member)]);
        store.close().await;
    }
}
