//! The archive encrypted at rest (SQLCipher, real files): nothing archived reaches its
//! files in plain bytes, a plaintext archive is encrypted on the first keyed open without
//! losing a session (also after an interrupted attempt), and a wrong or missing key is an
//! error that leaves the file exactly as it was.

use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit};
use memory_bank_sessions::{archive_path, rekey_archive, DbKey, ErrorCode, Library, ListArgs, ReadArgs, Roots};
use serde_json::json;

pub(crate) const MARKER: &str = "zqxarchivemarker";

pub(crate) fn open(h: &kit::TempHome, key: Option<&DbKey>) -> Result<Library, memory_bank_sessions::ActionError> {
    Library::open(Some(&h.index), Roots::new(&kit::env_with_home(&h.home), &[]), key.cloned())
}

/// A home whose one Claude session, holding [`MARKER`], was deleted by its tool and so
/// lives on in the archive, made with `key` (closed again).
pub(crate) fn archived_home(key: Option<&DbKey>) -> kit::TempHome {
    archived_home_open(key).0
}

/// [`archived_home`] with its library still open (the archive's WAL is there).
pub(crate) fn archived_home_open(key: Option<&DbKey>) -> (kit::TempHome, Library) {
    let h = kit::TempHome::new();
    let file = h.write(
        "-work-app",
        "s1",
        &[
            kit::claude_line("user", "u1", &format!("the {MARKER} plan"), "2026-11-01T10:00:00.000Z"),
            kit::claude_line("assistant", "a1", &format!("noted {MARKER} again"), "2026-11-01T10:00:01.000Z"),
        ],
    );
    let lib = open(&h, key).unwrap();
    lib.refresh().unwrap();
    std::fs::remove_file(file).unwrap();
    assert_eq!(lib.refresh().unwrap().sessions_archived, 1);
    (h, lib)
}

/// The archive's files: the database, its WAL and its WAL index.
pub(crate) fn archive_files(h: &kit::TempHome) -> Vec<PathBuf> {
    let archive = archive_path(&h.index);
    ["", "-wal", "-shm"].iter().map(|s| PathBuf::from(format!("{}{s}", archive.display()))).filter(|p| p.exists()).collect()
}

pub(crate) fn holding(files: &[PathBuf], needle: &str) -> Vec<PathBuf> {
    files.iter().filter(|f| std::fs::read(f).unwrap().windows(needle.len()).any(|w| w == needle.as_bytes())).cloned().collect()
}

pub(crate) fn is_plaintext(path: &Path) -> bool {
    std::fs::read(path).unwrap().starts_with(b"SQLite format 3\0")
}

fn bytes(files: &[PathBuf]) -> Vec<(PathBuf, Vec<u8>)> {
    files.iter().map(|f| (f.clone(), std::fs::read(f).unwrap())).collect()
}

/// The archived session as a fresh index sees it: the index files are removed first, so
/// everything comes from the archive.
fn archived_from_the_archive_alone(h: &kit::TempHome, key: Option<&DbKey>) -> Vec<String> {
    for entry in std::fs::read_dir(h.index.parent().unwrap()).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap().to_string_lossy().starts_with("sessions.") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let lib = open(h, key).unwrap();
    lib.refresh().unwrap();
    let list = lib.list_sessions(ListArgs { status: Some("archived".into()), limit: Some(json!(200)), ..Default::default() }).unwrap();
    assert_eq!(list.sessions.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["s1"]);
    let transcript = lib.read_transcript(ReadArgs { session_id: Some("s1".into()), ..Default::default() }).unwrap();
    transcript.messages.into_iter().map(|m| m.text).collect()
}

#[test]
fn nothing_archived_reaches_the_archive_files_in_plain_bytes() {
    let key = DbKey::generate();
    let (h, lib) = archived_home_open(Some(&key));
    let files = archive_files(&h);
    assert_eq!(files.len(), 3, "the database, its WAL and WAL index: {files:?}");
    assert!(!is_plaintext(&files[0]));
    assert_eq!(holding(&files, MARKER), Vec::<PathBuf>::new());
    drop(lib);
    assert_eq!(holding(&archive_files(&h), MARKER), Vec::<PathBuf>::new(), "nor once closed");
    assert_eq!(archived_from_the_archive_alone(&h, Some(&key)), [format!("the {MARKER} plan"), format!("noted {MARKER} again")]);
    assert_eq!(holding(&archive_files(&h), MARKER), Vec::<PathBuf>::new(), "nor after a rebuild");

    // The control: the same steps without a key leave the marker readable, so the check can fail.
    let (plain, lib) = archived_home_open(None);
    assert!(is_plaintext(&archive_files(&plain)[0]));
    assert!(!holding(&archive_files(&plain), MARKER).is_empty());
    drop(lib);
    assert!(!holding(&archive_files(&plain), MARKER).is_empty());
}

#[test]
fn a_plaintext_archive_is_encrypted_on_the_first_keyed_open_with_every_session_kept() {
    let h = archived_home(None);
    let archive = archive_path(&h.index);
    assert!(is_plaintext(&archive));
    let key = DbKey::generate();
    drop(open(&h, Some(&key)).unwrap());
    assert!(!is_plaintext(&archive), "encrypted in place");
    assert!(!kit::archive_staging_path(&archive).exists(), "no copy left beside it");
    assert_eq!(holding(&archive_files(&h), MARKER), Vec::<PathBuf>::new());
    assert_eq!(archived_from_the_archive_alone(&h, Some(&key)), [format!("the {MARKER} plan"), format!("noted {MARKER} again")]);
}

#[test]
fn an_interrupted_encryption_leaves_the_plaintext_archive_and_the_next_open_finishes() {
    let h = archived_home(None);
    let archive = archive_path(&h.index);
    let original = std::fs::read(&archive).unwrap();
    let key = DbKey::generate();
    // What a crash leaves beside the archive: its copy written half way, or garbage.
    for leftover in [original[..original.len() / 2].to_vec(), b"garbage, not a database at all".repeat(100)] {
        std::fs::write(kit::archive_staging_path(&archive), &leftover).unwrap();
        assert!(is_plaintext(&archive), "the plaintext archive is still there");
        assert_eq!(archived_from_the_archive_alone(&h, None), [format!("the {MARKER} plan"), format!("noted {MARKER} again")]);
    }
    assert_eq!(archived_from_the_archive_alone(&h, Some(&key)), [format!("the {MARKER} plan"), format!("noted {MARKER} again")]);
    assert!(!is_plaintext(&archive));
    assert!(!kit::archive_staging_path(&archive).exists());
}

#[test]
fn a_plaintext_archive_in_use_elsewhere_stays_plaintext_until_it_is_not() {
    let h = archived_home(None);
    let archive = archive_path(&h.index);
    let key = DbKey::generate();
    let other = open(&h, None).unwrap();
    drop(open(&h, Some(&key)).unwrap());
    assert!(is_plaintext(&archive), "not encrypted under another connection");
    drop(other);
    drop(open(&h, Some(&key)).unwrap());
    assert!(!is_plaintext(&archive));
}

#[test]
fn a_wrong_key_is_an_error_that_says_what_to_do_and_changes_nothing() {
    let key = DbKey::generate();
    let h = archived_home(Some(&key));
    let before = bytes(&archive_files(&h));
    let err = open(&h, Some(&DbKey::generate())).err().expect("refused");
    assert_eq!(err.code, ErrorCode::Index);
    let archive = archive_path(&h.index).display().to_string();
    for needed in [archive.as_str(), "does not open it", "keyring", "MEMORY_BANK_DB_KEY_FILE", "not changed"] {
        assert!(err.message.contains(needed), "{needed:?} in {}", err.message);
    }
    assert!(!err.message.contains(&key.to_hex()), "never the key");
    assert_eq!(bytes(&archive_files(&h)), before, "byte for byte");
    assert!(open(&h, Some(&key)).is_ok(), "its own key still opens it");
}

#[test]
fn an_encrypted_archive_without_a_key_is_an_error_that_says_what_to_do_and_changes_nothing() {
    let key = DbKey::generate();
    let h = archived_home(Some(&key));
    let before = bytes(&archive_files(&h));
    let err = open(&h, None).err().expect("refused");
    assert_eq!(err.code, ErrorCode::Index);
    for needed in ["encrypted", "without a key", "--db-key-file", "not changed"] {
        assert!(err.message.contains(needed), "{needed:?} in {}", err.message);
    }
    assert_eq!(bytes(&archive_files(&h)), before, "byte for byte");
    assert!(!kit::archive_staging_path(&archive_path(&h.index)).exists());
}

#[test]
fn an_archive_under_a_retired_key_moves_to_the_new_one_with_every_session_kept() {
    let old = DbKey::generate();
    let h = archived_home(Some(&old));
    let archive = archive_path(&h.index);
    let new = DbKey::generate();
    assert!(open(&h, Some(&new)).is_err(), "the new key alone does not open it");
    assert!(!rekey_archive(&archive, &new, &[]).unwrap(), "no retired key: left alone");
    assert!(!rekey_archive(&archive, &new, &[DbKey::generate()]).unwrap(), "no retired key opens it: left alone");
    assert!(rekey_archive(&archive, &new, &[DbKey::generate(), old.clone()]).unwrap());
    assert!(!rekey_archive(&archive, &new, std::slice::from_ref(&old)).unwrap(), "done once");
    assert!(open(&h, Some(&old)).is_err(), "the old key no longer opens it");
    assert_eq!(archived_from_the_archive_alone(&h, Some(&new)), [format!("the {MARKER} plan"), format!("noted {MARKER} again")]);
    assert_eq!(holding(&archive_files(&h), MARKER), Vec::<PathBuf>::new());
}

#[test]
fn keyed_opens_at_once_encrypt_it_once_and_all_work() {
    // Rounds, because the opens collide only now and then (all of them switching the
    // just-encrypted file to WAL mode at once): this found SQLite's "database is locked".
    for round in 0..12 {
        let h = archived_home(None);
        let key = DbKey::generate();
        let gate = std::sync::Barrier::new(6);
        let libraries: Vec<_> = std::thread::scope(|s| {
            let opens: Vec<_> = (0..6)
                .map(|_| {
                    s.spawn(|| {
                        gate.wait();
                        open(&h, Some(&key)).map(drop)
                    })
                })
                .collect();
            opens.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(libraries.iter().all(Result::is_ok), "round {round}: {libraries:?}");
        assert!(!is_plaintext(&archive_path(&h.index)));
        assert_eq!(archived_from_the_archive_alone(&h, Some(&key)), [format!("the {MARKER} plan"), format!("noted {MARKER} again")]);
    }
}

/// Whether a connection keyed with `key` and naming `hmac` reads the archive at `path`.
pub(crate) fn opens_with_hmac(path: &Path, key: &DbKey, hmac: &str) -> bool {
    let conn = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.execute_batch(&format!("PRAGMA key = {}; PRAGMA cipher_hmac_algorithm = {hmac};", key.pragma_value())).unwrap();
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(())).is_ok()
}

#[test]
fn new_and_migrated_archives_carry_the_banks_hmac() {
    let key = DbKey::generate();
    let (new, lib) = archived_home_open(Some(&key));
    drop(lib);
    let migrated = archived_home(None);
    drop(open(&migrated, Some(&key)).unwrap());
    for h in [&new, &migrated] {
        let archive = archive_path(&h.index);
        assert!(opens_with_hmac(&archive, &key, memory_bank_sqlcipher_file::HMAC_ALGORITHM));
        // SQLCipher's default would not read it: the setting really is in the file.
        assert!(!opens_with_hmac(&archive, &key, "HMAC_SHA512"));
    }
}
