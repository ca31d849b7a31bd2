//! The session archive's key, found by the bank's rules from the bank's key source: the
//! same key file, or a keyring entry of its own (keyring's mock store, the one boundary
//! mocked).

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use memory_bank_db_key::{resolve_key, DbKey, KeyError, KeySource, KeyringEntry};

fn keyring_source(bank: &Path) -> KeySource {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    KeySource::Keyring { entry: KeyringEntry::with_service("memory-bank-test", bank), plaintext_without_keyring: true }
}

#[test]
fn the_archive_takes_the_bank_key_file_or_a_keyring_entry_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (bank, archive) = (dir.path().join("memory.db"), dir.path().join("sessions-archive.sqlite"));
    assert_eq!(KeySource::None.for_archive(&archive), KeySource::None);
    let file = KeySource::File(dir.path().join("db.key"));
    assert_eq!(file.for_archive(&archive), file, "the same key file, so the same key");

    let source = keyring_source(&bank).for_archive(&archive);
    let KeySource::Keyring { entry, plaintext_without_keyring } = &source else { panic!("{source:?}") };
    assert!(*plaintext_without_keyring);
    assert_eq!(entry.service, "memory-bank-test");
    let absolute = std::fs::canonicalize(dir.path()).unwrap().join("sessions-archive.sqlite");
    assert_eq!(entry.account, format!("database-key:{}", absolute.display()), "its own entry, never the bank's");
}

#[test]
fn a_new_archive_gets_a_key_in_its_entry_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let (bank, archive) = (dir.path().join("memory.db"), dir.path().join("sessions-archive.sqlite"));
    let bank_source = keyring_source(&bank);
    let source = bank_source.for_archive(&archive);
    let made = resolve_key(&archive, &source).unwrap().expect("a key is made for a new archive");
    assert_eq!(resolve_key(&archive, &source).unwrap(), Some(made.clone()), "and found again");
    let KeySource::Keyring { entry, .. } = &source else { unreachable!() };
    assert_eq!(entry.get().unwrap(), Some(made.clone()));
    let KeySource::Keyring { entry: bank_entry, .. } = &bank_source else { unreachable!() };
    assert_eq!(bank_entry.get().unwrap(), None, "the bank's entry is not touched");
}

#[test]
fn an_encrypted_archive_without_its_entry_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("sessions-archive.sqlite");
    // An encrypted file starts with its random salt, not SQLite's header.
    std::fs::write(&archive, [7u8; 4096]).unwrap();
    let source = keyring_source(&dir.path().join("memory.db")).for_archive(&archive);
    let err = resolve_key(&archive, &source).unwrap_err();
    assert!(matches!(err, KeyError::KeyringEntryMissing { .. }), "{err:?}");
    let text = err.to_string();
    for needed in ["sessions-archive.sqlite", "database-key:", "restore that entry", "MEMORY_BANK_DB_KEY_FILE", "not changed"] {
        assert!(text.contains(needed), "{needed:?} in {text}");
    }
    assert_eq!(std::fs::read(&archive).unwrap(), [7u8; 4096], "untouched");
    let err = resolve_key(&archive, &KeySource::None).unwrap_err();
    assert!(matches!(err, KeyError::NoKey { .. }), "{err:?}");
}

#[test]
fn without_a_keyring_a_plaintext_archive_stays_plaintext_and_an_encrypted_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("sessions-archive.sqlite");
    let source = keyring_source(&dir.path().join("memory.db")).for_archive(&archive);
    let KeySource::Keyring { entry, .. } = &source else { unreachable!() };
    let fail_next = || {
        let raw = entry.raw_entry().unwrap();
        let mock: &keyring::mock::MockCredential = raw.get_credential().downcast_ref().unwrap();
        mock.set_error(keyring::Error::NoStorageAccess("no Secret Service on this session bus".into()));
    };
    fail_next();
    assert_eq!(resolve_key(&archive, &source).unwrap(), None, "a new archive goes on unencrypted");
    std::fs::write(&archive, [7u8; 4096]).unwrap();
    fail_next();
    let err = resolve_key(&archive, &source).unwrap_err();
    assert!(matches!(err, KeyError::KeyringUnavailable { .. }), "an encrypted one needs its key: {err:?}");
}

#[test]
fn a_key_file_gives_its_key_and_must_be_private() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("sessions-archive.sqlite");
    let path = dir.path().join("db.key");
    let key = DbKey::generate();
    std::fs::write(&path, format!("{}\n", key.to_hex())).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let source = KeySource::File(path.clone()).for_archive(&archive);
    assert_eq!(resolve_key(&archive, &source).unwrap(), Some(key));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(matches!(resolve_key(&archive, &source).unwrap_err(), KeyError::FileNotPrivate { .. }));
}

#[tokio::test]
async fn a_rekey_keeps_the_replaced_key_file_keys_for_the_archives_that_share_it() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let path = dir.path().join("db.key");
    let first = DbKey::generate();
    std::fs::write(&path, format!("{}\n", first.to_hex())).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let source = KeySource::File(path.clone());
    memory_bank_db_key::open_bank(&format!("sqlite://{}", bank.display()), &source).await.unwrap().close().await;
    assert_eq!(source.retired_keys().unwrap(), Vec::<DbKey>::new());
    memory_bank_db_key::rekey_bank(&bank, &source).await.unwrap();
    let second = memory_bank_db_key::read_key_file(&path).unwrap();
    assert_ne!(second, first);
    assert_eq!(source.retired_keys().unwrap(), std::slice::from_ref(&first));
    let retired = dir.path().join("db.key.retired");
    assert_eq!(std::fs::metadata(&retired).unwrap().permissions().mode() & 0o777, 0o600);
    memory_bank_db_key::rekey_bank(&bank, &source).await.unwrap();
    assert_eq!(source.retired_keys().unwrap(), [first, second], "oldest first");
    assert_eq!(KeySource::None.retired_keys().unwrap(), Vec::<DbKey>::new());
    std::fs::set_permissions(&retired, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(matches!(source.retired_keys().unwrap_err(), KeyError::FileNotPrivate { .. }));
}
