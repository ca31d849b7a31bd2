//! The app's local bank is encrypted with a key it keeps in the OS keyring (keyring's mock
//! store here, the one boundary mocked): nothing saved reaches the data folder in plain
//! bytes, and a bank whose key went missing is left alone, never replaced.

use std::path::{Path, PathBuf};
use std::time::Duration;

use memory_bank_contract::wire::{ContextInput, SaveMemoryRequest};
use memory_bank_db_key::{KeySource, KeyringEntry};
use memory_bank_desktop::deletes::DeleteTiming;
use memory_bank_desktop::prefs::MemoryPrefs;
use memory_bank_store::suite::{files_holding, files_under};
use memory_bank_desktop::secrets::Keyring;
use memory_bank_desktop::{Account, Core, CoreConfig};
use memory_bank_store::terms;
use memory_bank_store_sqlite::FileState;

fn keyring_config(dir: &Path) -> (CoreConfig, KeyringEntry) {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    let entry = KeyringEntry::with_service("memory-bank-test", &memory_bank_access::bank_file(dir));
    let config = CoreConfig {
        data_dir: dir.to_owned(),
        env_server: None,
        env_org: None,
        delete_timing: DeleteTiming { delay: Duration::from_millis(50), ..Default::default() },
        agent_env: None,
        cli_binary: None,
        db_key: KeySource::Keyring { entry: entry.clone(), plaintext_without_keyring: true },
    };
    (config, entry)
}

async fn start(config: CoreConfig) -> Core {
    Core::start(config, Box::new(MemoryPrefs::default()), Box::new(Keyring::new("memory-bank-test")), |_| {}).await
}

fn holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    files_holding(files_under(dir), needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_the_app_saves_reaches_its_data_folder_in_plain_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (config, entry) = keyring_config(dir.path());
    let core = start(config).await;
    let state = core.state().await;
    assert_eq!(state.account, Some(Account::Local));
    let (org, user) = (state.active_org_id.unwrap(), state.user.unwrap().id);
    let content = "Ada keeps the zqxdesktopmarker recipe for 乌龙茶 in the blue tin";
    for i in 0..20 {
        let request = SaveMemoryRequest {
            content: format!("{content} {i}"),
            tags: Some(vec!["zqxtagmarker".into()]),
            contexts: Some(vec![ContextInput { snippet: "said zqxsnippetmarker".into(), conversation_id: Some("sess-zqx".into()), message_id: None, origin: None }]),
            confirmed_via: None,
            scope: None,
        };
        core.save(&org, request).await.unwrap();
    }
    assert_eq!(core.search(&org, "zqxdesktopmarker", None).await.unwrap().results.len(), 20);
    let indexed = terms::index_text(&user, [content, "said zqxsnippetmarker", "zqxtagmarker"]);
    let mut needles: Vec<String> = indexed.split(' ').map(str::to_owned).collect();
    needles.extend(["zqxdesktopmarker", "zqxsnippetmarker", "zqxtagmarker", "乌龙茶", "sess-zqx"].map(String::from));
    // While the app runs (rows in the WAL), and after it quit.
    for phase in ["running", "quit"] {
        if phase == "quit" {
            core.shutdown().await;
        }
        for needle in &needles {
            assert!(holding(dir.path(), needle).is_empty(), "{phase}: {needle:?} is in {:?}", holding(dir.path(), needle));
        }
    }
    let bank = memory_bank_access::bank_file(dir.path());
    assert_eq!(memory_bank_store_sqlite::encryption::file_state(&bank).unwrap(), FileState::Encrypted);
    assert!(entry.get().unwrap().is_some(), "the key lives in the keyring");
    // The control: the same folder, decrypted with that key, holds every memory.
    let again = start(keyring_config(dir.path()).0).await;
    assert_eq!(again.search(&org, "zqxdesktopmarker", None).await.unwrap().results.len(), 20);
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bank_whose_keyring_entry_is_gone_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (config, entry) = keyring_config(dir.path());
    let core = start(config).await;
    let org = core.state().await.active_org_id.unwrap();
    core.save(&org, SaveMemoryRequest { content: "kept safe".into(), ..Default::default() }).await.unwrap();
    core.shutdown().await;
    let bank = memory_bank_access::bank_file(dir.path());
    let bytes = std::fs::read(&bank).unwrap();
    let key = entry.get().unwrap().unwrap();
    entry.delete().unwrap();

    let (config, _) = keyring_config(dir.path());
    let core = start(config).await;
    let state = core.state().await;
    assert_eq!(state.account, None, "starts signed out instead of on an empty bank");
    // And says why, with the fix, for the UI to show.
    let why = state.connect_error.expect("the reason it is signed out");
    assert!(why.message.contains("keyring") && why.message.contains("MEMORY_BANK_DB_KEY_FILE"), "{why:?}");
    core.shutdown().await;
    assert_eq!(std::fs::read(&bank).unwrap(), bytes, "the bank is untouched");
    assert_eq!(entry.get().unwrap(), None, "no new key was made over the lost one");

    // Restoring the entry is the fix.
    entry.set(&key).unwrap();
    let (config, _) = keyring_config(dir.path());
    let core = start(config).await;
    assert_eq!(core.state().await.connect_error, None);
    let org = core.state().await.active_org_id.unwrap();
    assert_eq!(core.list(&org, None, None).await.unwrap().memories[0].content, "kept safe");
    core.shutdown().await;
}

/// Where no keyring answers, the local bank opens unencrypted and the app's state says so
/// (Settings shows it); a bank with its key (here a key file) does not.
#[tokio::test(flavor = "multi_thread")]
async fn the_state_says_when_no_keyring_left_the_local_bank_unencrypted() {
    let dir = tempfile::tempdir().unwrap();
    let (config, entry) = keyring_config(dir.path());
    let raw = entry.raw_entry().unwrap();
    let mock: &keyring::mock::MockCredential = raw.get_credential().downcast_ref().unwrap();
    mock.set_error(keyring::Error::NoStorageAccess("no Secret Service on this session bus".into()));
    let core = start(config).await;
    let state = core.state().await;
    assert_eq!(state.account, Some(Account::Local));
    assert!(state.local_bank_unencrypted, "{state:?}");
    core.shutdown().await;
    let bank = memory_bank_access::bank_file(dir.path());
    assert_eq!(memory_bank_store_sqlite::encryption::file_state(&bank).unwrap(), FileState::Plaintext);

    let other = tempfile::tempdir().unwrap();
    let key_file = other.path().join("bank.key");
    memory_bank_db_key::write_key_file(&key_file, &memory_bank_store_sqlite::DbKey::generate()).unwrap();
    let (mut config, _) = keyring_config(other.path());
    config.db_key = KeySource::File(key_file);
    let keyed = start(config).await;
    let state = keyed.state().await;
    assert_eq!(state.account, Some(Account::Local));
    assert!(!state.local_bank_unencrypted, "{state:?}");
    keyed.shutdown().await;
}
