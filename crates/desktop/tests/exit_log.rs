//! A delete that cannot reach the server when pending deletes are sent at exit (nobody
//! may be there to see the toast) is logged at `warn`, the default level, with the
//! memory's id, and stays in the journal for the next start.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memory_bank_desktop::prefs::MemoryPrefs;
use memory_bank_desktop::secrets::Keyring;
use memory_bank_desktop::deletes::DeleteTiming;
use memory_bank_desktop::{Core, CoreConfig};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delete_that_cannot_be_sent_at_exit_is_logged_at_warn_and_kept() {
    let captured = Captured::default();
    let writer = captured.clone();
    // The app's default filter.
    tracing_subscriber::fmt().with_env_filter("warn").with_ansi(false).with_writer(move || writer.clone()).init();
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());

    // A team server that is up when the delete is scheduled and gone when it is sent.
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("team.db").display())).await.unwrap();
    let bank = Bank::new(Arc::new(store));
    let user = bank.add_user("ada@team.example").await.unwrap().id;
    let org = bank.add_org("Alpha").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    let token = bank.issue_token(&user).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(memory_bank_server::serve(listener, bank, Default::default(), async move {
        let _ = stopped.await;
    }));
    let config = CoreConfig {
        data_dir: dir.path().join("app"),
        env_server: Some((format!("http://{address}"), token)),
        env_org: Some(org.clone()),
        delete_timing: DeleteTiming { delay: Duration::from_secs(3600), ..Default::default() },
        agent_env: None,
        cli_binary: None,
        db_key: memory_bank_db_key::KeySource::None,
    };
    let core = Core::start(config, Box::new(MemoryPrefs::default()), Box::new(Keyring::new("memory-bank-test")), |_| {}).await;
    let id = "mem_01jdq0000000000000000042";
    core.schedule_delete(&org, id).await.unwrap();
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
    core.shutdown().await;

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = log.lines().find(|l| l.contains(id)).unwrap_or_else(|| panic!("no log line names {id}:\n{log}"));
    assert!(line.contains("WARN"), "{line}");
    assert!(line.contains("kept"), "{line}");
    let journal = std::fs::read_to_string(dir.path().join("app/pending-deletes.json")).unwrap();
    assert!(journal.contains(id), "the delete is kept for the next start: {journal}");
}
