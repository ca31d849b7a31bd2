//! The `memory-bank` binary with an encrypted SQLite bank: `--db-key-file` /
//! `MEMORY_BANK_DB_KEY_FILE`, `db status`, `db rekey`, and the errors that name the fix.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn bank(dir: &Path) -> PathBuf {
    dir.join("data/memory.db")
}

fn run(dir: &Path, key_file: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command.args(["--database-url", &format!("sqlite://{}", bank(dir).display())]);
    command.env_remove("MEMORY_BANK_DB_KEY_FILE").env_remove("MEMORY_BANK_DB_KEY_KEYRING");
    // The session archive `db status` reports, and `sessions` opens, is this one's.
    command.env("MEMORY_BANK_DATA_DIR", dir.join("data")).env("HOME", dir.join("home")).env_remove("MEMORY_BANK_SESSIONS_INDEX");
    if let Some(key_file) = key_file {
        command.env("MEMORY_BANK_DB_KEY_FILE", key_file);
    }
    command.args(args).output().unwrap()
}

fn ok(dir: &Path, key_file: Option<&Path>, args: &[&str]) -> String {
    let out = run(dir, key_file, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn failure(dir: &Path, key_file: Option<&Path>, args: &[&str]) -> String {
    let out = run(dir, key_file, args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

fn key_file(dir: &Path, name: &str, mode: u32) -> (PathBuf, String) {
    let path = dir.join(name);
    let key: String = (0..32).map(|i| format!("{:02x}", (i * 37 + 11) % 256)).collect();
    std::fs::write(&path, format!("{key}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    (path, key)
}

fn header_is_plaintext(path: &Path) -> bool {
    std::fs::read(path).unwrap().starts_with(b"SQLite format 3\0")
}

#[test]
fn a_key_file_encrypts_the_bank_and_every_command_then_needs_it() {
    let dir = tempfile::tempdir().unwrap();
    let (key_path, key) = key_file(dir.path(), "db.key", 0o600);
    // Made without a key: plaintext, as before.
    let user = ok(dir.path(), None, &["admin", "user", "add", "ada@example.com"]).trim().to_owned();
    assert!(header_is_plaintext(&bank(dir.path())));
    let status = ok(dir.path(), None, &["db", "status"]);
    assert!(status.contains("encrypted: no") && status.contains("key: no key"), "{status}");

    // The first command with the key encrypts it; its rows are all there.
    let status = ok(dir.path(), Some(&key_path), &["db", "status"]);
    assert!(status.contains("encrypted: no") && status.contains("encrypted with it on its next open"), "{status}");
    assert!(ok(dir.path(), Some(&key_path), &["db", "migrate"]).contains("migrated"));
    assert!(!header_is_plaintext(&bank(dir.path())));
    assert!(ok(dir.path(), Some(&key_path), &["admin", "user", "list"]).contains(&user));
    let status = ok(dir.path(), Some(&key_path), &["db", "status"]);
    assert!(status.contains("encrypted: yes"), "{status}");
    assert!(status.contains(&format!("key: the key file {} (found; it opens the bank)", key_path.display())), "{status}");
    assert!(status.contains("cipher: SQLCipher 4"), "{status}");
    assert!(!status.contains(&key[..16]), "status never shows the key");

    // Without it, every command refuses, says how to give it, and changes nothing.
    let bytes = std::fs::read(bank(dir.path())).unwrap();
    for args in [&["admin", "user", "list"][..], &["db", "migrate"], &["serve", "--listen", "127.0.0.1:0"]] {
        let err = failure(dir.path(), None, args);
        assert!(err.contains("is encrypted") && err.contains("--db-key-file"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(bank(dir.path())).unwrap(), bytes);
    let status = ok(dir.path(), None, &["db", "status"]);
    assert!(status.contains("encrypted: yes") && status.contains("key: no key"), "{status}");
}

#[test]
fn a_key_file_others_can_read_or_that_holds_no_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (key_path, _) = key_file(dir.path(), "db.key", 0o640);
    let err = failure(dir.path(), Some(&key_path), &["admin", "user", "list"]);
    assert!(err.contains(&format!("chmod 600 {}", key_path.display())), "{err}");
    assert!(!bank(dir.path()).exists(), "no bank is made with a refused key");
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(&key_path, "hunter2").unwrap();
    let err = failure(dir.path(), Some(&key_path), &["admin", "user", "list"]);
    assert!(err.contains("64 hexadecimal characters") && !err.contains("hunter2"), "{err}");
}

#[test]
fn db_rekey_gives_the_bank_a_new_key_in_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let (key_path, old) = key_file(dir.path(), "db.key", 0o600);
    let user = ok(dir.path(), Some(&key_path), &["admin", "user", "add", "ada@example.com"]).trim().to_owned();
    let (old_copy, _) = key_file(dir.path(), "old.key", 0o600);
    let out = ok(dir.path(), Some(&key_path), &["db", "rekey"]);
    assert!(out.contains("has a new key") && !out.contains(&old[..16]), "{out}");
    let new = std::fs::read_to_string(&key_path).unwrap();
    assert_ne!(new.trim(), old);
    assert_eq!(std::fs::metadata(&key_path).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(ok(dir.path(), Some(&key_path), &["admin", "user", "list"]).contains(&user));
    let err = failure(dir.path(), Some(&old_copy), &["admin", "user", "list"]);
    assert!(err.contains("does not open the bank"), "{err}");

    let plain = tempfile::tempdir().unwrap();
    ok(plain.path(), None, &["admin", "user", "add", "bob@example.com"]);
    let err = failure(plain.path(), Some(&key_path), &["db", "rekey"]);
    assert!(err.contains("is not encrypted"), "{err}");
}

#[test]
fn the_session_archive_shares_the_key_file_and_follows_it_through_a_rekey() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    let (key_path, _) = key_file(dir.path(), "db.key", 0o600);
    let archive = dir.path().join("data/sessions-archive.sqlite");
    assert!(ok(dir.path(), Some(&key_path), &["db", "migrate"]).contains("migrated"));
    ok(dir.path(), Some(&key_path), &["sessions", "list"]);
    assert!(!header_is_plaintext(&archive), "encrypted with the key file");
    let status = ok(dir.path(), Some(&key_path), &["db", "status"]);
    assert!(status.contains(&format!("session archive: {} (encrypted; the key found opens it", archive.display())), "{status}");
    // The index holds the archived sessions' messages too: encrypted with the same key.
    let index = dir.path().join("data/sessions-index.sqlite");
    assert!(!header_is_plaintext(&index), "the index too");
    assert!(status.contains(&format!("session index: {} (encrypted, with the session archive's key)", index.display())), "{status}");

    // A rekey changes the key file; the archive moves to the new key at its next open.
    ok(dir.path(), Some(&key_path), &["db", "rekey"]);
    assert!(dir.path().join("db.key.retired").exists());
    let status = ok(dir.path(), Some(&key_path), &["db", "status"]);
    assert!(status.contains("the key found does NOT open it"), "not yet: {status}");
    ok(dir.path(), Some(&key_path), &["sessions", "list"]);
    let status = ok(dir.path(), Some(&key_path), &["db", "status"]);
    assert!(status.contains("encrypted; the key found opens it"), "{status}");
    assert!(status.contains("session index:") && status.contains("(encrypted, with the session archive's key)"), "rebuilt under the new key: {status}");

    // Another key file does not open it, and says what to do.
    let (other, _) = key_file(dir.path(), "other.key", 0o600);
    std::fs::write(&other, format!("{}\n", "ab".repeat(32))).unwrap();
    let err = failure(dir.path(), Some(&other), &["sessions", "list"]);
    assert!(err.contains("session archive") && err.contains("does not open it") && err.contains("not changed"), "{err}");
}
