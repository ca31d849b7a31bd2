//! Every file a run of the app's core makes in its data folder is private, and so is an
//! export (issue 28, item 8): the local bank and its WAL, the session index, its search
//! file and the archive with theirs, lock files and the pending-delete journal, all under
//! an open umask (`022`), so by how each is made and not by the app's umask. One test in
//! this binary: it sets `HOME`, which the session history reads.

#![cfg(unix)]

use std::time::Duration;

use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_desktop::deletes::journal::JOURNAL_FILE;
use memory_bank_desktop::deletes::DeleteTiming;
use memory_bank_desktop::prefs::MemoryPrefs;
use memory_bank_desktop::secrets::Keyring;
use memory_bank_desktop::{CoreConfig, Desktop};
use memory_bank_private_files::testing::{mode, not_private, open_umask};
use memory_bank_sessions::testing as kit;

#[tokio::test(flavor = "multi_thread")]
async fn every_file_of_a_run_in_the_data_folder_and_an_export_are_private() {
    open_umask();
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    let h = kit::TempHome::new();
    // SAFETY: set before any thread of this test binary reads the environment.
    unsafe {
        std::env::set_var("HOME", &h.home);
        for var in kit::TOOL_VARS {
            std::env::remove_var(var);
        }
    }
    let session = h.write("-work-app", "s1", &[kit::claude_line("user", "u1", "a session to archive", "2026-11-01T10:00:00.000Z")]);
    h.write("-work-app", "s2", &[kit::claude_line("user", "u2", "a session that stays", "2026-11-01T11:00:00.000Z")]);
    let data = h.dir().join("data");
    let config = CoreConfig {
        data_dir: data.clone(),
        env_server: None,
        env_org: None,
        delete_timing: DeleteTiming { delay: Duration::from_secs(3600), ..Default::default() },
        agent_env: None,
        cli_binary: None,
        db_key: memory_bank_db_key::KeySource::None,
    };
    let desktop = Desktop::start(config, Box::new(MemoryPrefs::default()), Box::new(Keyring::new("memory-bank-test")), |_| {}, || {})
        .await
        .unwrap();
    let core = desktop.core().clone();
    let org = core.state().await.active_org_id.expect("the local account");
    let memory = core.save(&org, SaveMemoryRequest { content: "Ada prefers tea".into(), ..Default::default() }).await.unwrap();
    core.save(&org, SaveMemoryRequest { content: "Ada reads at night".into(), ..Default::default() }).await.unwrap();
    core.schedule_delete(&org, &memory.id).await.unwrap();

    let library = desktop.history().unwrap().library();
    library.refresh().unwrap();
    std::fs::remove_file(session).unwrap();
    assert_eq!(library.refresh().unwrap().sessions_archived, 1);
    library.wait_for_search_index().unwrap();

    let exports = h.dir().join("exports");
    std::fs::create_dir(&exports).unwrap();
    let export = exports.join("memories.jsonl");
    core.export_to_file(&org, &export, &|_| {}).await.unwrap();
    assert_eq!(mode(&export), 0o600, "an export holds every memory");

    for file in ["memory.db", "memory.db-wal", JOURNAL_FILE, "sessions-index.sqlite", "sessions-index.search.sqlite", "sessions-archive.sqlite"] {
        assert!(data.join(file).exists(), "{file} is among those checked");
    }
    assert_eq!(not_private(&data), vec![], "while running");
    desktop.shutdown().await;
    drop(library);
    drop(desktop);
    assert_eq!(not_private(&data), vec![], "after the exit");
}
