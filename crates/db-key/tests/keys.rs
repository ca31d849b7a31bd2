//! Key files and keyring entries in front of real SQLite files. The OS keyring is
//! keyring's mock store, the one boundary mocked (CI has no desktop keyring).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use memory_bank_db_key::{open_bank, read_key_file, rekey_bank, status, write_key_file, DbKey, FileState, KeyError, KeySource, KeyringEntry};
use memory_bank_store::MemoryStore as _;
use memory_bank_store_sqlite::encryption::{file_state, key_opens, rekey};

fn mock_keyring() {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
}

fn url(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

fn keyring_source(bank: &Path) -> (KeySource, KeyringEntry) {
    mock_keyring();
    let entry = KeyringEntry::with_service("memory-bank-test", bank);
    (KeySource::Keyring { entry: entry.clone(), plaintext_without_keyring: true }, entry)
}

/// The next call on this entry fails as a session without a Secret Service does.
fn fail_next(entry: &KeyringEntry) {
    let raw = entry.raw_entry().unwrap();
    let mock: &keyring::mock::MockCredential = raw.get_credential().downcast_ref().unwrap();
    mock.set_error(keyring::Error::NoStorageAccess("no Secret Service on this session bus".into()));
}

fn key_file(dir: &Path, mode: u32) -> (PathBuf, DbKey) {
    let path = dir.join("db.key");
    let key = DbKey::generate();
    std::fs::write(&path, format!("{}\n", key.to_hex())).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    (path, key)
}

/// A bank with one user in it, closed again.
async fn make_bank(path: &Path, source: &KeySource) {
    let store = open_bank(&url(path), source).await.unwrap();
    store.create_user("usr_1", "ada@example.com", memory_bank_contract::Timestamp::from_unix_ms(1)).await.unwrap();
    store.close().await;
}

async fn users(path: &Path, source: &KeySource) -> usize {
    open_bank(&url(path), source).await.unwrap().list_users().await.unwrap().len()
}

#[tokio::test]
async fn a_key_file_must_be_private_and_hold_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (path, key) = key_file(dir.path(), 0o644);
    let err = open_bank(&url(&bank), &KeySource::File(path.clone())).await.unwrap_err();
    assert!(matches!(err, KeyError::FileNotPrivate { mode: 0o644, .. }), "{err:?}");
    assert!(err.to_string().contains(&format!("chmod 600 {}", path.display())), "{err}");
    assert!(!bank.exists(), "nothing is created with a refused key");

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    make_bank(&bank, &KeySource::File(path.clone())).await;
    assert_eq!(file_state(&bank).unwrap(), FileState::Encrypted);
    assert!(key_opens(&bank, &key).await.unwrap());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
    assert_eq!(users(&bank, &KeySource::File(path.clone())).await, 1, "read-only for its owner is private too");

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(&path, "not a key").unwrap();
    let err = open_bank(&url(&bank), &KeySource::File(path.clone())).await.unwrap_err();
    assert!(matches!(err, KeyError::FileFormat { .. }), "{err:?}");
    assert!(err.to_string().contains("openssl rand -hex 32"), "{err}");
    let err = open_bank(&url(&bank), &KeySource::File(dir.path().join("absent.key"))).await.unwrap_err();
    assert!(matches!(err, KeyError::FileUnreadable { .. }), "{err:?}");
    assert!(err.to_string().contains("--db-key-file"), "{err}");

    write_key_file(&path, &key).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(read_key_file(&path).unwrap(), key);
}

#[tokio::test]
async fn the_keyring_gets_a_new_key_on_first_use_and_the_bank_reopens_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (source, entry) = keyring_source(&bank);
    assert_eq!(entry.get().unwrap(), None);
    make_bank(&bank, &source).await;
    let key = entry.get().unwrap().expect("a key was made");
    assert_eq!(file_state(&bank).unwrap(), FileState::Encrypted);
    assert!(key_opens(&bank, &key).await.unwrap());
    assert_eq!(users(&bank, &source).await, 1);
    assert_eq!(entry.get().unwrap(), Some(key), "the key is made once");
    let other = KeyringEntry::with_service("memory-bank-test", &dir.path().join("other.db"));
    assert_ne!(other, entry, "each bank file has an entry of its own");
}

#[tokio::test]
async fn a_missing_keyring_entry_is_an_error_naming_it_and_the_bank_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (source, entry) = keyring_source(&bank);
    make_bank(&bank, &source).await;
    let bytes = std::fs::read(&bank).unwrap();
    entry.delete().unwrap();

    let err = open_bank(&url(&bank), &source).await.unwrap_err();
    assert!(matches!(err, KeyError::KeyringEntryMissing { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(&entry.account) && message.contains("restore that entry") && message.contains("MEMORY_BANK_DB_KEY_FILE"), "{message}");
    assert_eq!(entry.get().unwrap(), None, "no new key is made for a bank that has one");
    assert_eq!(std::fs::read(&bank).unwrap(), bytes, "the bank is untouched");
    let without = open_bank(&url(&bank), &KeySource::None).await.unwrap_err();
    assert!(matches!(without, KeyError::NoKey { .. }), "{without:?}");
    assert!(without.to_string().contains("--db-key-file"), "{without}");
}

#[tokio::test]
async fn without_a_keyring_a_new_bank_stays_plaintext_but_an_encrypted_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (source, entry) = keyring_source(&bank);
    fail_next(&entry);
    make_bank(&bank, &source).await;
    assert_eq!(file_state(&bank).unwrap(), FileState::Plaintext, "works, unencrypted, where no keyring answers");
    // The keyring answers on the next start: the bank is encrypted then.
    assert_eq!(users(&bank, &source).await, 1);
    assert_eq!(file_state(&bank).unwrap(), FileState::Encrypted);

    fail_next(&entry);
    let err = open_bank(&url(&bank), &source).await.unwrap_err();
    assert!(matches!(err, KeyError::KeyringUnavailable { .. }), "{err:?}");
    assert!(err.to_string().contains("unlock or start it"), "{err}");
    // Asked for by name (`--db-key-keyring`), the keyring must answer.
    let plain = dir.path().join("plain.db");
    let strict = KeyringEntry::with_service("memory-bank-test", &plain);
    fail_next(&strict);
    let err = open_bank(&url(&plain), &KeySource::Keyring { entry: strict, plaintext_without_keyring: false }).await.unwrap_err();
    assert!(matches!(err, KeyError::KeyringUnavailable { .. }), "{err:?}");
    assert!(!plain.exists());
}

#[tokio::test]
async fn a_wrong_key_names_where_it_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (path, _) = key_file(dir.path(), 0o600);
    make_bank(&bank, &KeySource::File(path.clone())).await;
    write_key_file(&path, &DbKey::generate()).unwrap();
    let err = open_bank(&url(&bank), &KeySource::File(path.clone())).await.unwrap_err();
    assert!(matches!(err, KeyError::WrongKey { .. }), "{err:?}");
    assert!(err.to_string().contains(&format!("the key file {}", path.display())), "{err}");
}

#[tokio::test]
async fn rekey_stores_the_new_key_where_the_old_one_was() {
    let dir = tempfile::tempdir().unwrap();
    // A key file.
    let bank = dir.path().join("file.db");
    let (path, old) = key_file(dir.path(), 0o600);
    let source = KeySource::File(path.clone());
    make_bank(&bank, &source).await;
    rekey_bank(&bank, &source).await.unwrap();
    let new = read_key_file(&path).unwrap();
    assert_ne!(new, old);
    assert!(!key_opens(&bank, &old).await.unwrap() && key_opens(&bank, &new).await.unwrap());
    assert_eq!(users(&bank, &source).await, 1);
    assert!(!dir.path().join("db.key.next").exists());
    // The keyring.
    let bank = dir.path().join("keyring.db");
    let (source, entry) = keyring_source(&bank);
    make_bank(&bank, &source).await;
    let old = entry.get().unwrap().unwrap();
    rekey_bank(&bank, &source).await.unwrap();
    let new = entry.get().unwrap().unwrap();
    assert_ne!(new, old);
    assert!(key_opens(&bank, &new).await.unwrap());
    assert_eq!(users(&bank, &source).await, 1);
    // Not encrypted: nothing to rekey.
    let plain = dir.path().join("plain.db");
    make_bank(&plain, &KeySource::None).await;
    assert!(matches!(rekey_bank(&plain, &source).await, Err(KeyError::NotEncrypted { .. })));
}

#[tokio::test]
async fn a_rekey_cut_short_after_the_bank_changed_key_is_finished_on_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (path, old) = key_file(dir.path(), 0o600);
    let source = KeySource::File(path.clone());
    make_bank(&bank, &source).await;
    // What `rekey_bank` leaves when stopped between rekeying and storing the new key.
    let new = DbKey::generate();
    write_key_file(&dir.path().join("db.key.next"), &new).unwrap();
    rekey(&bank, &old, &new).await.unwrap();

    assert_eq!(users(&bank, &source).await, 1);
    assert_eq!(read_key_file(&path).unwrap(), new, "the new key took the old one's place");
    assert!(!dir.path().join("db.key.next").exists());
}

#[tokio::test]
async fn status_tells_encrypted_or_not_and_where_the_key_is_never_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (path, key) = key_file(dir.path(), 0o600);
    let source = KeySource::File(path.clone());
    let plain = status(&bank, &source).await.unwrap();
    assert_eq!((plain.state, plain.key_found, plain.key_opens), (FileState::Missing, Some(true), None));
    make_bank(&bank, &source).await;
    let report = status(&bank, &source).await.unwrap();
    assert_eq!(report.state, FileState::Encrypted);
    assert_eq!((report.key_found, report.key_opens), (Some(true), Some(true)));
    assert!(report.source.contains(&path.display().to_string()));
    assert!(report.cipher.as_deref().is_some_and(|c| c.starts_with('4')), "{:?}", report.cipher);
    assert!(!format!("{report:?}").contains(&key.to_hex()));
    let none = status(&bank, &KeySource::None).await.unwrap();
    assert_eq!((none.key_found, none.key_opens), (None, None));
}

/// Everything a key file's bank and a rekey leave in their folder is private (issue 28,
/// item 8), under an open umask: the new key file, the retired keys, the bank and its
/// companions.
#[tokio::test]
async fn every_file_a_rekey_leaves_is_private() {
    memory_bank_private_files::testing::open_umask();
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("data/memory.db");
    let (path, _) = key_file(dir.path(), 0o600);
    let source = KeySource::File(path.clone());
    make_bank(&bank, &source).await;
    rekey_bank(&bank, &source).await.unwrap();
    assert!(dir.path().join("db.key.retired").exists(), "the retired keys are among those checked");
    let exposed: Vec<_> = memory_bank_private_files::testing::not_private(dir.path()).into_iter().filter(|(p, _)| p != dir.path()).collect();
    assert_eq!(exposed, vec![], "(the test's own temporary folder aside)");
}

/// The warnings logged on this thread while `f` runs.
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn no_keyring_is_warned_about_once_per_bank_and_noted_until_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory.db");
    let (source, entry) = keyring_source(&bank);
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || Captured(writer.clone()))
        .finish();
    let _on_this_thread = tracing::subscriber::set_default(subscriber);
    let warnings = || String::from_utf8_lossy(&log.lock().unwrap()).matches("the OS keyring is not available").count();

    for start in 1..=3 {
        fail_next(&entry);
        let store = open_bank(&url(&bank), &source).await.unwrap();
        store.close().await;
        assert_eq!(warnings(), 1, "start {start}: said once, not on every start");
        assert!(memory_bank_db_key::keyring_unavailable_noted(&bank), "start {start}");
    }
    let note = memory_bank_db_key::keyring_unavailable_note(&bank);
    assert_eq!(std::fs::metadata(&note).unwrap().permissions().mode() & 0o777, 0o600);
    // The keyring answers: the bank is encrypted and the note goes.
    assert_eq!(users(&bank, &source).await, 0);
    assert_eq!(file_state(&bank).unwrap(), FileState::Encrypted);
    assert!(!memory_bank_db_key::keyring_unavailable_noted(&bank) && !note.exists());
}
