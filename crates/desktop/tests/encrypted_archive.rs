//! The app's session archive is encrypted with a key from the bank's key source: its own
//! keyring entry (keyring's mock store, the one boundary mocked), never the bank's; an
//! archive made by an earlier release is encrypted at the first start, sessions intact.
//! One test in this binary: it sets `HOME`, which the session history reads.

use std::path::Path;

use memory_bank_db_key::{KeySource, KeyringEntry};
use memory_bank_desktop::history::History;
use memory_bank_sessions::testing as kit;
use memory_bank_sessions::{archive_path, Library, ListArgs, ReadArgs, Roots};
use memory_bank_store::suite::{files_holding, files_under};

const MARKER: &str = "zqxdesktoparchivemarker";

fn archived(lib: &Library) -> Vec<String> {
    let list = lib.list_sessions(ListArgs { status: Some("archived".into()), ..Default::default() }).unwrap();
    list.sessions.into_iter().map(|s| s.session_id).collect()
}

fn is_plaintext(path: &Path) -> bool {
    std::fs::read(path).unwrap().starts_with(b"SQLite format 3\0")
}

#[test]
fn the_archive_of_an_earlier_release_is_encrypted_with_a_keyring_entry_of_its_own() {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    let h = kit::TempHome::new();
    // SAFETY: set before any thread of this test binary reads the environment.
    unsafe {
        std::env::set_var("HOME", &h.home);
        for var in kit::TOOL_VARS {
            std::env::remove_var(var);
        }
    }
    let data = h.dir().join("data");
    let index = data.join("sessions-index.sqlite");
    let archive = archive_path(&index);
    // The earlier release: no key, so a plaintext archive holding a deleted session.
    let file = h.write("-work-app", "s1", &[kit::claude_line("user", "u1", &format!("the {MARKER} plan"), "2026-11-01T10:00:00.000Z")]);
    let lib = Library::open(Some(&index), Roots::new(&kit::env_with_home(&h.home), &[]), None).unwrap();
    lib.refresh().unwrap();
    std::fs::remove_file(file).unwrap();
    lib.refresh().unwrap();
    drop(lib);
    assert!(is_plaintext(&archive));

    let bank_entry = KeyringEntry::with_service("memory-bank-test", &memory_bank_access::bank_file(&data));
    let bank_key = KeySource::Keyring { entry: bank_entry.clone(), plaintext_without_keyring: true };
    let history = History::start(&data, &[], &bank_key, || {}).unwrap();
    drop(history);
    assert!(!is_plaintext(&archive), "encrypted at the first start");
    let archive_entry = KeyringEntry::with_service("memory-bank-test", &archive);
    let key = archive_entry.get().unwrap().expect("the archive's key is in its own entry");
    assert_eq!(bank_entry.get().unwrap(), None, "and not in the bank's");
    let archive_files: Vec<_> = files_under(&data).into_iter().filter(|f| f.to_string_lossy().contains("sessions-archive")).collect();
    assert!(!archive_files.is_empty());
    assert!(files_holding(archive_files, MARKER.as_bytes()).is_empty(), "no archive file holds the marker in plain bytes");
    // The earlier release's plaintext index, which held the archived session's messages
    // too, was rebuilt encrypted with the archive's key.
    assert!(!is_plaintext(&index) && !is_plaintext(&memory_bank_sessions::search_path(&index)));
    let index_files: Vec<_> = files_under(&data).into_iter().filter(|f| f.to_string_lossy().contains("sessions-index")).collect();
    assert!(files_holding(index_files, MARKER.as_bytes()).is_empty(), "no index file holds the marker in plain bytes");

    // The session is all there, from the archive alone (a new index imports it).
    let fresh = h.dir().join("fresh/sessions-index.sqlite");
    std::fs::create_dir_all(fresh.parent().unwrap()).unwrap();
    std::fs::copy(&archive, archive_path(&fresh)).unwrap();
    let lib = Library::open(Some(&fresh), Roots::new(&kit::env_with_home(&h.home), &[]), Some(key)).unwrap();
    lib.refresh().unwrap();
    assert_eq!(archived(&lib), ["s1"]);
    let transcript = lib.read_transcript(ReadArgs { session_id: Some("s1".into()), ..Default::default() }).unwrap();
    assert_eq!(transcript.messages[0].text, format!("the {MARKER} plan"));

    // The next start finds the same entry and opens it.
    drop(History::start(&data, &[], &bank_key, || {}).unwrap());
    // Its entry gone, the app does not start over it: the error names the entry.
    archive_entry.delete().unwrap();
    let err = History::start(&data, &[], &bank_key, || {}).err().expect("refused");
    assert!(err.message.contains("database-key:") && err.message.contains("restore that entry"), "{}", err.message);
    assert_eq!(archive_entry.get().unwrap(), None, "no new key was made over the lost one");

    // And the app still starts: memories work, and the Sessions view answers that error.
    let config = memory_bank_desktop::CoreConfig {
        data_dir: data.clone(),
        env_server: None,
        env_org: None,
        delete_timing: Default::default(),
        agent_env: None,
        cli_binary: None,
        db_key: bank_key.clone(),
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let desktop = memory_bank_desktop::Desktop::start(
            config,
            Box::new(memory_bank_desktop::prefs::MemoryPrefs::default()),
            Box::new(memory_bank_desktop::secrets::Keyring::new("memory-bank-test")),
            |_| {},
            || {},
        )
        .await
        .expect("the app starts without its session history");
        let state = desktop.core().state().await;
        assert_eq!(state.account, Some(memory_bank_desktop::Account::Local));
        let org = state.active_org_id.unwrap();
        let saved = desktop.core().save(&org, memory_bank_contract::wire::SaveMemoryRequest { content: "still remembered".into(), ..Default::default() }).await;
        assert!(saved.is_ok(), "{saved:?}");
        let sessions = desktop.history().err().expect("no session history");
        assert_eq!(sessions.message, err.message);
        desktop.shutdown().await;
    });
}
