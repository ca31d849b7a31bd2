//! The `memory-bank` binary's files on disk (issue 28, items 8 and 9): every file and
//! folder a run makes is private, whichever command made it; and after `admin user
//! delete` none of the deleted user's text is left in the bytes of an unencrypted bank
//! or its WAL, with `serve` running on the same bank.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use memory_bank_contract::validate::validate_save;
use memory_bank_contract::wire::{ContextInput, SaveMemoryRequest};
use memory_bank_store::suite::{files_holding, files_under};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

/// Runs the binary with `HOME` at `home` and none of the variables that would move
/// its folders or reach a service or keyring.
fn run(home: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("HOME", home);
    for var in [
        "MEMORY_BANK_DATA_DIR", "MEMORY_BANK_DATABASE_URL", "MEMORY_BANK_DB_KEY_FILE", "MEMORY_BANK_DB_KEY_KEYRING",
        "MEMORY_BANK_SESSIONS_INDEX", "MEMORY_BANK_URL", "MEMORY_BANK_TOKEN", "MEMORY_BANK_ORG", "XDG_DATA_HOME",
        "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
    ] {
        cmd.env_remove(var);
    }
    cmd.output().unwrap()
}

fn ok(home: &Path, args: &[&str]) -> String {
    let out = run(home, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[cfg(unix)]
#[test]
fn every_file_and_folder_a_run_makes_is_private() {
    use memory_bank_private_files::testing::{mode, not_private};
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    memory_bank_sessions::testing::populate_home(&home);
    // The CLI's folder as an earlier release left it: readable by everyone.
    let service_dir = home.join(".local/share/memory-bank");
    std::fs::create_dir_all(&service_dir).unwrap();
    std::fs::set_permissions(&service_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(service_dir.join("notes.txt"), "an earlier file").unwrap();
    std::fs::set_permissions(service_dir.join("notes.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();

    // The service's default bank, and a bank `db bootstrap` makes where it is told to.
    ok(&home, &["db", "bootstrap"]);
    ok(&home, &["admin", "user", "add", "ada@example.com"]);
    let elsewhere = dir.path().join("srv");
    std::fs::create_dir(&elsewhere).unwrap();
    let bootstrapped = elsewhere.join("new/memory.db");
    ok(&home, &["--database-url", &format!("sqlite://{}", bootstrapped.display()), "db", "bootstrap"]);
    // A bank with a key file, rekeyed: the new key file and the retired keys beside it.
    let keys = dir.path().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let key_file = keys.join("db.key");
    std::fs::write(&key_file, format!("{}\n", memory_bank_sessions::DbKey::generate().to_hex())).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let keyed = format!("sqlite://{}", elsewhere.join("keyed/memory.db").display());
    let key_arg = key_file.display().to_string();
    ok(&home, &["--database-url", &keyed, "--db-key-file", &key_arg, "db", "bootstrap"]);
    ok(&home, &["--database-url", &keyed, "--db-key-file", &key_arg, "db", "rekey"]);
    // The session index, its search file and the archive (the app's data folder).
    ok(&home, &["--db-key-file", &key_arg, "sessions", "list"]);
    // An agent's config written for the first time (its folders made, the note that
    // install created it beside it), removed again (which deletes it), then the person's
    // own file rewritten with a backup; another's in the folder its tool made.
    ok(&home, &["mcp", "install", "--agent", "opencode"]);
    let opencode = home.join(".config/opencode/opencode.json");
    assert_eq!(mode(&PathBuf::from(format!("{}.memory-bank.created", opencode.display()))), 0o600);
    ok(&home, &["mcp", "install", "--agent", "opencode", "--remove"]);
    assert!(!opencode.exists());
    std::fs::write(&opencode, "{\n  \"theme\": \"opencode\"\n}\n").unwrap();
    std::fs::set_permissions(&opencode, std::fs::Permissions::from_mode(0o600)).unwrap();
    ok(&home, &["mcp", "install", "--agent", "opencode"]);
    ok(&home, &["mcp", "install", "--agent", "codex"]);

    for (folder, must_hold) in [
        (service_dir.clone(), "memory.db"),
        (elsewhere.join("new"), "memory.db"),
        (elsewhere.join("keyed"), "memory.db"),
        (home.join(".local/share/dev.memorybank.app"), "sessions-archive.sqlite"),
        (home.join(".config"), "opencode/opencode.json.memory-bank.bak"),
    ] {
        assert!(folder.join(must_hold).exists(), "{} holds {must_hold}", folder.display());
        assert_eq!(not_private(&folder), vec![], "{}", folder.display());
    }
    for file in ["db.key", "db.key.retired"] {
        assert_eq!(mode(&keys.join(file)), 0o600, "{file}");
    }
    assert_eq!(mode(&home.join(".codex/config.toml")), 0o600, "a new config in the tool's own folder");
    assert_eq!(mode(&home.join(".local/share/memory-bank/notes.txt")), 0o600, "an earlier release's file is tightened");
}

fn save_request(content: &str, snippet: &str) -> SaveMemoryRequest {
    SaveMemoryRequest {
        content: content.into(),
        tags: Some(vec!["zqcliwipetag".into()]),
        contexts: Some(vec![ContextInput { snippet: snippet.into(), ..Default::default() }]),
        confirmed_via: None,
        scope: None,
    }
}

/// Every file of the bank at `bank` (the database, its WAL and index) holding `needle`.
fn holding(bank: &Path, needle: &str) -> Vec<PathBuf> {
    files_holding(files_under(bank.parent().unwrap()), needle.as_bytes())
}

#[test]
fn admin_user_delete_leaves_none_of_their_text_in_the_bank_or_its_wal() {
    let dir = tempfile::tempdir().unwrap();
    let bank_path = dir.path().join("data/memory.db");
    let url = format!("sqlite://{}", bank_path.display());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (ada, sentences, kept) = runtime.block_on(async {
        let store = SqliteStore::open(&url).await.unwrap();
        let bank = Bank::new(Arc::new(store.clone()));
        let ada = bank.add_user("ada.cli@example.com").await.unwrap().id;
        let bob = bank.add_user("bob.cli@example.com").await.unwrap().id;
        let org = bank.add_org("Engines").await.unwrap().id;
        for user in [&ada, &bob] {
            bank.add_member(&org, user).await.unwrap();
        }
        let mut sentences = Vec::new();
        for i in 0..25 {
            let content = format!("Ada's private note {i}: the zqcliwipe{i}word plan is due on day {i}");
            let snippet = format!("she said zqclisnippet{i}word");
            bank.save(&ada, &org, validate_save(save_request(&content, &snippet)).unwrap()).await.unwrap();
            sentences.extend([content, snippet, format!("zqcliwipe{i}word")]);
        }
        let kept = "Bob's zqclikeptword stays".to_owned();
        bank.save(&bob, &org, validate_save(save_request(&kept, "bob's snippet")).unwrap()).await.unwrap();
        store.close().await;
        (ada, sentences, kept)
    });
    // `serve` has the bank open meanwhile, as on a team server.
    let serving = serve_process::start(BIN, &url, &[]).expect("serve starts");
    let found = |what: &[String]| what.iter().filter(|s| !holding(&bank_path, s).is_empty()).count();
    assert_eq!(found(&sentences), sentences.len(), "the control: all of Ada's text is on disk before");

    let out = Command::new(BIN).args(["--database-url", &url, "admin", "user", "delete", &ada, "--yes"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(found(&sentences), 0, "left on disk while serve runs: {:?}", sentences.iter().filter(|s| !holding(&bank_path, s).is_empty()).take(3).collect::<Vec<_>>());
    assert_eq!(found(std::slice::from_ref(&kept)), 1, "the scan finds what stays");
    let mut child = serving.child;
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    child.wait().unwrap();
    assert_eq!(found(&sentences), 0, "after serve stopped");
}
