//! Encryption at rest of a SQLite bank, on real files: what reaches the disk, the
//! migration of a plaintext bank (one an older release wrote, and interrupted ones),
//! wrong and missing keys, a bank in use elsewhere, and rekeying.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memory_bank_contract::validate::{parse_list, parse_search, validate_save};
use memory_bank_contract::wire::{ContextInput, SaveMemoryRequest};
use memory_bank_store::{terms, Bank, MemoryStore as _, NewMemory, StoreError};
use memory_bank_store_sqlite::encryption::{file_state, key_opens, rekey, staging_path};
use memory_bank_store_sqlite::{DbKey, FileState, SqliteStore};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/plaintext-0.1.db");
/// The word every memory of the fixture holds.
const FIXTURE_MARKER: &str = "plaintextfixturemarker";

fn url(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

/// Every file of the bank at `path`: the database, its WAL, its index, journals, the
/// staging copy, and anything else SQLite left beside it.
fn bank_files(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&name))
        .collect()
}

/// The files of the bank (named) whose bytes contain `needle`.
fn files_containing(path: &Path, needle: &[u8]) -> Vec<PathBuf> {
    memory_bank_store::suite::files_holding(bank_files(path), needle)
}

struct Saved {
    bank: Bank,
    store: SqliteStore,
    user: String,
    org: String,
}

async fn provision(store: SqliteStore) -> Saved {
    let bank = Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Engines").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    Saved { bank, store, user, org }
}

impl Saved {
    async fn save(&self, content: &str, snippet: &str) {
        let input = validate_save(SaveMemoryRequest {
            content: content.into(),
            tags: Some(vec!["secretive".into()]),
            contexts: Some(vec![ContextInput { snippet: snippet.into(), conversation_id: Some("sess-9".into()), message_id: None, origin: None }]),
            confirmed_via: None,
            scope: None,
        })
        .unwrap();
        self.bank.save(&self.user, &self.org, input).await.unwrap();
    }
}

/// A memory whose words appear nowhere else, and the terms the index stores for it
/// (each with the owner's prefix, as FTS5 holds them).
fn marked_memory(user: &str) -> (String, Vec<String>) {
    let content = "Ada hides zqxmarkerwombat under the 绿茶罐 at quuxfloor".to_owned();
    let stored = terms::index_text(user, [content.as_str(), "the zqxsnippetmarker line"]);
    assert!(terms::stored_terms(&stored).any(|(_, t)| t == "zqxmarkerwombat"));
    let terms = stored.split(' ').map(str::to_owned).collect();
    (content, terms)
}

/// What a test can see of a bank's contents through the store, to compare two opens.
async fn snapshot(store: &SqliteStore) -> String {
    let bank = Bank::new(Arc::new(store.clone()));
    let mut out = Vec::new();
    for user in bank.list_users().await.unwrap() {
        let list = bank.list(&user.id, &parse_list(Some("100"), None).unwrap()).await.unwrap();
        out.push(serde_json::to_string(&list).unwrap());
        let hits = bank.search(&user.id, &parse_search(Some("tea 绿茶 cobol"), None, None).unwrap()).await.unwrap();
        out.push(serde_json::to_string(&hits.iter().map(|h| &h.memory.id).collect::<Vec<_>>()).unwrap());
        for memory in &list.memories {
            out.push(serde_json::to_string(&bank.revisions(&user.id, &memory.id).await.unwrap()).unwrap());
        }
        out.push(format!("{:?}", bank.user_orgs(&user.id).await.unwrap()));
    }
    out.join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_saved_in_an_encrypted_bank_reaches_its_files_in_plain_bytes() {
    for encrypted in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.db");
        let key = encrypted.then(DbKey::generate);
        let saved = provision(SqliteStore::open_with_key(&url(&path), key.as_ref()).await.unwrap()).await;
        let (content, stored_terms) = marked_memory(&saved.user);
        for _ in 0..50 {
            saved.save(&content, "the zqxsnippetmarker line").await;
        }
        assert!(stored_terms.len() > 5, "{stored_terms:?}");
        // While the bank is open, the rows sit in the WAL; after closing, in the file.
        for phase in ["open", "closed"] {
            if phase == "closed" {
                saved.store.close().await;
            }
            let mut needles: Vec<Vec<u8>> = stored_terms.iter().map(|t| t.as_bytes().to_vec()).collect();
            needles.extend(["zqxmarkerwombat", "zqxsnippetmarker", "绿茶罐", "secretive", "sess-9", "ada@example.com"].map(|s| s.as_bytes().to_vec()));
            let found: Vec<_> = needles.iter().filter(|n| !files_containing(&path, n).is_empty()).collect();
            if encrypted {
                assert!(found.is_empty(), "{phase}: plain bytes found on disk: {:?}", found.iter().map(|n| String::from_utf8_lossy(n)).collect::<Vec<_>>());
                assert_eq!(file_state(&path).unwrap(), FileState::Encrypted);
            } else {
                // The control: the same bytes are there in a plaintext bank, so the
                // search above would find them if encryption were off.
                assert_eq!(found.len(), needles.len(), "{phase}: the control bank should hold every needle");
            }
        }
        let files = bank_files(&path);
        assert!(files.iter().any(|f| f.ends_with("memory.db")), "{files:?}");
    }
}

/// The vectors meaning search makes are inside the bank's encryption too: their bytes,
/// read back through the store, are nowhere in the files of an encrypted bank, and all
/// of them are in a plaintext bank's (the control).
#[tokio::test(flavor = "multi_thread")]
async fn the_vectors_of_an_encrypted_bank_never_reach_its_files_in_plain_bytes() {
    for encrypted in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.db");
        let key = encrypted.then(DbKey::generate);
        let mut saved = provision(SqliteStore::open_with_key(&url(&path), key.as_ref()).await.unwrap()).await;
        saved.bank = memory_bank_meaning::attach(saved.bank.clone(), false);
        for i in 0..20 {
            saved.save(&format!("Ada keeps jar number {i} of green tea on the {i}th shelf"), "from the pantry").await;
        }
        let vectors: Vec<Vec<u8>> =
            sqlx::query_scalar("SELECT vector FROM memory_vector").fetch_all(saved.store.pool()).await.unwrap();
        assert_eq!(vectors.len(), 20, "each save made its vector");
        // 32 bytes of each vector's components: no accident of the ciphertext matches.
        let needles: Vec<&[u8]> = vectors.iter().map(|v| &v[100..132]).collect();
        for phase in ["open", "closed"] {
            if phase == "closed" {
                saved.store.close().await;
            }
            let found = needles.iter().filter(|n| !files_containing(&path, n).is_empty()).count();
            if encrypted {
                assert_eq!(found, 0, "{phase}: a vector's bytes are on disk in plain");
            } else {
                assert_eq!(found, needles.len(), "{phase}: the control bank should hold every vector");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_encrypted_bank_reopens_only_with_its_key_and_a_wrong_key_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let key = DbKey::generate();
    let saved = provision(SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap()).await;
    saved.save("Ada likes tea", "tea").await;
    let before = snapshot(&saved.store).await;
    saved.store.close().await;
    let bytes = std::fs::read(&path).unwrap();

    let wrong = SqliteStore::open_with_key(&url(&path), Some(&DbKey::generate())).await.unwrap_err();
    assert!(matches!(wrong, StoreError::KeyRejected { .. }), "{wrong:?}");
    assert!(wrong.to_string().contains("nothing was changed"), "{wrong}");
    let missing = SqliteStore::open(&url(&path)).await.unwrap_err();
    assert!(matches!(missing, StoreError::KeyMissing { .. }), "{missing:?}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "a refused open must not touch the file");
    assert_eq!(bank_files(&path), vec![path.clone()], "no new bank, WAL or copy beside it");
    assert!(!key_opens(&path, &DbKey::generate()).await.unwrap());
    assert!(key_opens(&path, &key).await.unwrap());

    // The key pragma runs first on every pooled connection: reopening an existing
    // encrypted bank (WAL switch, migrations check) only works if it does.
    let again = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap();
    assert_eq!(snapshot(&again).await, before);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plaintext_bank_of_the_previous_release_is_encrypted_on_its_first_keyed_open() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.db");
    let path = dir.path().join("memory.db");
    std::fs::copy(FIXTURE, &plain).unwrap();
    std::fs::copy(FIXTURE, &path).unwrap();
    assert_eq!(file_state(&path).unwrap(), FileState::Plaintext);
    assert!(!files_containing(&path, FIXTURE_MARKER.as_bytes()).is_empty());
    let expected = snapshot(&SqliteStore::open(&url(&plain)).await.unwrap()).await;
    assert!(expected.contains(FIXTURE_MARKER) && expected.contains("绿茶"), "{expected}");

    let key = DbKey::generate();
    let store = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap();
    assert_eq!(snapshot(&store).await, expected, "every memory, revision and org survives");
    assert_eq!(file_state(&path).unwrap(), FileState::Encrypted);
    assert!(!staging_path(&path).exists());
    store.close().await;
    assert!(files_containing(&path, FIXTURE_MARKER.as_bytes()).is_empty(), "the plaintext is gone");
    assert!(matches!(SqliteStore::open(&url(&path)).await, Err(StoreError::KeyMissing { .. })));
    let again = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap();
    assert_eq!(snapshot(&again).await, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_encryption_left_the_plaintext_and_the_next_open_finishes_it() {
    let key = DbKey::generate();
    let expected = {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(FIXTURE, dir.path().join("m.db")).unwrap();
        snapshot(&SqliteStore::open(&url(&dir.path().join("m.db"))).await.unwrap()).await
    };
    // A finished encrypted copy, as a run stopped just before the rename leaves it.
    let finished_copy = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.db");
        std::fs::copy(FIXTURE, &path).unwrap();
        SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap().close().await;
        std::fs::read(&path).unwrap()
    };
    let leftovers: [(&str, Vec<u8>); 3] = [
        ("a copy cut short while it was written", finished_copy[..finished_copy.len() / 2].to_vec()),
        ("a finished copy not yet renamed", finished_copy.clone()),
        ("garbage", b"not a database at all".to_vec()),
    ];
    for (what, staged) in leftovers {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.db");
        std::fs::copy(FIXTURE, &path).unwrap();
        std::fs::write(staging_path(&path), &staged).unwrap();
        std::fs::write(format!("{}-journal", staging_path(&path).display()), b"stale journal").unwrap();
        // Until then the plaintext bank is intact and opens as before.
        let plain = SqliteStore::open(&url(&path)).await.unwrap();
        assert_eq!(snapshot(&plain).await, expected, "{what}: the plaintext is intact");
        plain.close().await;

        let store = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap();
        assert_eq!(snapshot(&store).await, expected, "{what}");
        assert_eq!(file_state(&path).unwrap(), FileState::Encrypted, "{what}");
        assert!(!staging_path(&path).exists(), "{what}");
        store.close().await;
        assert!(files_containing(&path, FIXTURE_MARKER.as_bytes()).is_empty(), "{what}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rows_still_in_the_wal_of_a_crashed_process_are_encrypted_with_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.db");
    let saved = provision(SqliteStore::open(&url(&live)).await.unwrap()).await;
    saved.save("Ada keeps walmarkerotter in the log", "walmarkerotter").await;
    // The files as a process killed now leaves them: the row only in the WAL.
    let crashed = dir.path().join("crashed");
    std::fs::create_dir(&crashed).unwrap();
    for suffix in ["", "-wal", "-shm"] {
        std::fs::copy(format!("{}{suffix}", live.display()), format!("{}/memory.db{suffix}", crashed.display())).unwrap();
    }
    let path = crashed.join("memory.db");
    assert!(!files_containing(&path, b"walmarkerotter").is_empty());

    let store = SqliteStore::open_with_key(&url(&path), Some(&DbKey::generate())).await.unwrap();
    let list = Bank::new(Arc::new(store.clone())).list(&saved.user, &parse_list(Some("10"), None).unwrap()).await.unwrap();
    assert_eq!(list.memories.len(), 1);
    assert!(list.memories[0].content.contains("walmarkerotter"));
    store.close().await;
    assert!(files_containing(&path, b"walmarkerotter").is_empty(), "{:?}", files_containing(&path, b"walmarkerotter"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bank_another_connection_has_open_is_not_encrypted_under_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let other = provision(SqliteStore::open(&url(&path)).await.unwrap()).await;
    other.save("Ada likes tea", "tea").await;
    let key = DbKey::generate();
    let err = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap_err();
    assert!(matches!(err, StoreError::InUse { .. }), "{err:?}");
    assert!(err.to_string().contains("close them and try again"), "{err}");
    assert_eq!(file_state(&path).unwrap(), FileState::Plaintext);
    assert!(!staging_path(&path).exists());
    // The other process goes on as if nothing happened.
    other.save("Ada likes green tea", "green tea").await;
    other.store.close().await;

    let store = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap();
    let list = Bank::new(Arc::new(store)).list(&other.user, &parse_list(Some("10"), None).unwrap()).await.unwrap();
    assert_eq!(list.memories.len(), 2);
    assert_eq!(file_state(&path).unwrap(), FileState::Encrypted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn openers_racing_with_a_key_on_a_plaintext_bank_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    std::fs::copy(FIXTURE, &path).unwrap();
    let key = DbKey::generate();
    let opens: Vec<_> = (0..4)
        .map(|_| {
            let (url, key) = (url(&path), key.clone());
            tokio::spawn(async move { SqliteStore::open_with_key(&url, Some(&key)).await })
        })
        .collect();
    for open in opens {
        let store = open.await.unwrap().expect("every opener succeeds");
        assert!(snapshot(&store).await.contains(FIXTURE_MARKER));
    }
    assert_eq!(file_state(&path).unwrap(), FileState::Encrypted);
}

#[tokio::test(flavor = "multi_thread")]
async fn rekey_replaces_the_key_and_needs_the_bank_to_itself() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let (old, new) = (DbKey::generate(), DbKey::generate());
    let saved = provision(SqliteStore::open_with_key(&url(&path), Some(&old)).await.unwrap()).await;
    saved.save("Ada likes rekeyed tea", "tea").await;
    let before = snapshot(&saved.store).await;

    let busy = rekey(&path, &old, &new).await.unwrap_err();
    assert!(matches!(busy, StoreError::InUse { .. }), "{busy:?}");
    saved.store.close().await;
    assert!(key_opens(&path, &old).await.unwrap(), "a refused rekey keeps the old key");

    let wrong = rekey(&path, &DbKey::generate(), &new).await.unwrap_err();
    assert!(matches!(wrong, StoreError::KeyRejected { .. }), "{wrong:?}");

    rekey(&path, &old, &new).await.unwrap();
    assert!(!key_opens(&path, &old).await.unwrap());
    assert!(matches!(SqliteStore::open_with_key(&url(&path), Some(&old)).await, Err(StoreError::KeyRejected { .. })));
    let store = SqliteStore::open_with_key(&url(&path), Some(&new)).await.unwrap();
    assert_eq!(snapshot(&store).await, before);
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode").fetch_one(store.pool()).await.unwrap();
    assert_eq!(mode, "wal");
}

/// sqlx logs every statement at debug level, and slow ones at warn level: the `PRAGMA
/// key` must never be among them. (sqlx logs on its connection threads, so the capture
/// is the process's global subscriber.)
#[tokio::test(flavor = "multi_thread")]
async fn the_key_never_reaches_the_log() {
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt().with_max_level(tracing::Level::TRACE).with_writer(move || writer.clone()).finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    std::fs::copy(FIXTURE, &path).unwrap();
    let (key, next) = (DbKey::generate(), DbKey::generate());
    let store = SqliteStore::open_with_key(&url(&path), Some(&key)).await.unwrap();
    snapshot(&store).await;
    store.close().await;
    rekey(&path, &key, &next).await.unwrap();
    SqliteStore::open_with_key(&url(&path), Some(&next)).await.unwrap();
    // A plaintext bank's statements are logged as before: the capture sees sqlx's log.
    let plain = dir.path().join("plain.db");
    std::fs::copy(FIXTURE, &plain).unwrap();
    snapshot(&SqliteStore::open(&url(&plain)).await.unwrap()).await;

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("the bank was encrypted"), "the capture works: {log}");
    // (A search's and a list page's statements run on readers of the bank's own, which
    // log nothing, and whose key is given as sqlx's connections are: `readers.rs`.)
    assert!(log.contains("sqlx::query") && log.contains("FROM users"), "sqlx's statement log is captured");
    for secret in [key.to_hex(), next.to_hex()] {
        assert!(!log.to_lowercase().contains(&secret[..16]), "the key is in the log");
    }
}

/// A bank another process is creating this instant (empty, shorter than a header, or
/// zeros so far) is a new bank, never "encrypted": two `memory-bank mcp` starting together
/// on a new data folder both open it.
#[test]
fn a_bank_being_created_is_new_not_encrypted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    for partial in [&b""[..], b"SQLite", &[0u8; 16], &[0u8; 4096]] {
        std::fs::write(&path, partial).unwrap();
        assert_eq!(file_state(&path).unwrap(), FileState::Missing, "{} bytes", partial.len());
    }
    std::fs::write(&path, [7u8; 32]).unwrap();
    assert_eq!(file_state(&path).unwrap(), FileState::Encrypted, "anything else that is not SQLite's header");
}

/// Whether a connection keyed with `key` and naming `hmac` reads the bank at `path`.
async fn opens_with_hmac(path: &Path, key: &DbKey, hmac: &str) -> bool {
    use sqlx::{ConnectOptions as _, Connection as _};
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .pragma("key", key.pragma_value())
        .pragma("cipher_hmac_algorithm", hmac.to_owned())
        .disable_statement_logging();
    let Ok(mut conn) = options.connect().await else { return false };
    let read = sqlx::query("SELECT count(*) FROM sqlite_schema").execute(&mut conn).await.is_ok();
    let _ = conn.close().await;
    read
}

#[tokio::test(flavor = "multi_thread")]
async fn new_migrated_and_rekeyed_banks_carry_hmac_sha256() {
    use memory_bank_store_sqlite::encryption::HMAC_ALGORITHM;
    assert_eq!(HMAC_ALGORITHM, "HMAC_SHA256");
    let dir = tempfile::tempdir().unwrap();
    let key = DbKey::generate();
    let new = dir.path().join("new.db");
    provision(SqliteStore::open_with_key(&url(&new), Some(&key)).await.unwrap()).await;
    let migrated = dir.path().join("migrated.db");
    std::fs::copy(FIXTURE, &migrated).unwrap();
    SqliteStore::open_with_key(&url(&migrated), Some(&key)).await.unwrap().close().await;
    let rekeyed = dir.path().join("rekeyed.db");
    std::fs::copy(&migrated, &rekeyed).unwrap();
    let new_key = DbKey::generate();
    rekey(&rekeyed, &key, &new_key).await.unwrap();
    for (path, key) in [(&new, &key), (&migrated, &key), (&rekeyed, &new_key)] {
        assert!(opens_with_hmac(path, key, "HMAC_SHA256").await, "{}", path.display());
        // SQLCipher's default would not read it: the setting really is in the file.
        assert!(!opens_with_hmac(path, key, "HMAC_SHA512").await, "{}", path.display());
    }
}

/// The page cache every connection gets (BENCHMARKS.md: an encrypted bank's searches
/// took twice as long as a plaintext one's with SQLite's 2 MB), keyed or not; and the
/// writer is a connection of its own, so a save never waits for readers to finish.
#[tokio::test(flavor = "multi_thread")]
async fn every_connection_caches_64_mib_and_saves_do_not_wait_for_readers() {
    let dir = tempfile::tempdir().unwrap();
    let key = DbKey::generate();
    for (name, key) in [("plain.db", None), ("keyed.db", Some(&key))] {
        let store = SqliteStore::open_with_key(&url(&dir.path().join(name)), key).await.unwrap();
        let saved = provision(store.clone()).await;
        // Every reader the pool has, held at once: acquire until no more come.
        let mut readers = Vec::new();
        while let Ok(conn) = tokio::time::timeout(std::time::Duration::from_millis(300), store.pool().acquire()).await {
            let mut conn = conn.unwrap();
            let cache: i64 = sqlx::query_scalar("PRAGMA cache_size").fetch_one(&mut *conn).await.unwrap();
            assert_eq!(cache, -65536, "{name}");
            readers.push(conn);
        }
        assert!(!readers.is_empty(), "{name}");
        let memory = NewMemory::plain(&saved.user, &saved.org, "saved while every reader is busy".into(), 1_700_000_000_000);
        tokio::time::timeout(std::time::Duration::from_secs(10), store.insert_memory(&memory))
            .await
            .expect("the write does not wait for a reader")
            .unwrap();
        drop(readers);
        store.close().await;
    }
}
