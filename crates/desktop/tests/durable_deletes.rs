//! Deletes the person did not undo are never lost and never sent twice: across a crash
//! inside the undo window, a server that is down when the delete is due (and comes back
//! later, with or without a restart of the app in between), a revoked token, and a
//! corrupt journal. Real team servers on loopback, restarted on the same port; the
//! "crash" is a `Core` abandoned without its exit path (its timers would only fire after
//! an hour), the restart a new `Core` over the same data folder.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use memory_bank_contract::validate::{parse_list, validate_save};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_desktop::deletes::journal::JOURNAL_FILE;
use memory_bank_desktop::deletes::{DeleteTiming, Outcome, Settled};
use memory_bank_desktop::prefs::MemoryPrefs;
use memory_bank_desktop::secrets::Keyring;
use memory_bank_desktop::{Core, CoreConfig};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;

/// A team server whose process can go away and come back on the same address.
struct Team {
    dir: tempfile::TempDir,
    address: std::net::SocketAddr,
    bank: Bank,
    user: String,
    org: String,
    token: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
}

impl Team {
    async fn start() -> Team {
        let dir = tempfile::tempdir().unwrap();
        let bank = Self::open(dir.path()).await;
        let user = bank.add_user("ada@team.example").await.unwrap().id;
        let org = bank.add_org("Alpha").await.unwrap().id;
        bank.add_member(&org, &user).await.unwrap();
        let token = bank.issue_token(&user).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut team = Team { dir, address, bank, user, org, token, stop: None, server: None };
        team.serve(listener);
        team
    }

    async fn open(dir: &std::path::Path) -> Bank {
        let store = SqliteStore::open(&format!("sqlite://{}", dir.join("team.db").display())).await.unwrap();
        Bank::new(Arc::new(store))
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn serve(&mut self, listener: tokio::net::TcpListener) {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let bank = self.bank.clone();
        self.server = Some(tokio::spawn(async move {
            memory_bank_server::serve(listener, bank, Default::default(), async move {
                let _ = rx.await;
            })
            .await
            .unwrap()
        }));
        self.stop = Some(tx);
    }

    async fn down(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.unwrap();
        }
    }

    async fn up(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.address).await.unwrap();
        self.serve(listener);
    }

    async fn save(&self, content: &str) -> String {
        let input = validate_save(SaveMemoryRequest { content: content.into(), ..Default::default() }).unwrap();
        self.bank.save(&self.user, &self.org, input).await.unwrap().id
    }

    async fn contents(&self) -> Vec<String> {
        let page = self.bank.list(&self.user, &parse_list(Some("100"), None).unwrap()).await.unwrap();
        page.memories.into_iter().map(|m| m.content).collect()
    }
}

type Log = Arc<Mutex<Vec<Settled>>>;

/// The app over `data_dir`, signed in to `team` with `token` (the env variables).
async fn app(data_dir: &std::path::Path, team: &Team, token: &str, delay: Duration) -> (Core, Log) {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    let config = CoreConfig {
        data_dir: data_dir.to_owned(),
        env_server: Some((team.url(), token.to_owned())),
        env_org: Some(team.org.clone()),
        delete_timing: DeleteTiming { delay, retry_first: Duration::from_millis(100), retry_max: Duration::from_millis(400) },
        agent_env: None,
        cli_binary: None,
        db_key: memory_bank_db_key::KeySource::None,
    };
    let log: Log = Arc::default();
    let sink = log.clone();
    let core = Core::start(config, Box::new(MemoryPrefs::default()), Box::new(Keyring::new("memory-bank-test")), move |s| {
        sink.lock().unwrap().push(s)
    })
    .await;
    (core, log)
}

/// Abandons `core` the way a crash does: no exit path, nothing flushed.
fn crash(core: Core) {
    std::mem::forget(core);
}

async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    for _ in 0..200 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

fn outcomes(log: &Log) -> Vec<(String, Outcome)> {
    log.lock().unwrap().iter().map(|s| (s.id.clone(), s.outcome)).collect()
}

const HOUR: Duration = Duration::from_secs(3600);

#[tokio::test(flavor = "multi_thread")]
async fn a_crash_inside_the_undo_window_loses_no_delete_and_both_overlapping_ones_go_out_at_restart() {
    let team = Team::start().await;
    let data = tempfile::tempdir().unwrap();
    let (first, second, kept) = (team.save("first").await, team.save("second").await, team.save("kept").await);
    let (before, _) = app(data.path(), &team, &team.token, HOUR).await;
    before.schedule_delete(&team.org, &first).await.unwrap();
    before.schedule_delete(&team.org, &second).await.unwrap();
    before.schedule_delete(&team.org, &kept).await.unwrap();
    assert!(before.undo_delete(&kept).unwrap());
    crash(before);
    assert_eq!(team.contents().await.len(), 3, "nothing was sent before the crash");

    let (after, log) = app(data.path(), &team, &team.token, HOUR).await;
    eventually("both deletes", async || team.contents().await == ["kept"]).await;
    eventually("both reports", async || log.lock().unwrap().len() == 2).await;
    let mut reported = outcomes(&log);
    reported.sort_by(|a, b| a.0.cmp(&b.0));
    let mut expected = vec![(first.clone(), Outcome::Deleted), (second.clone(), Outcome::Deleted)];
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(reported, expected, "each sent once; the undone one never");
    assert!(after.pending_deletes().is_empty());
    after.shutdown().await;

    // Sent once: a third start has nothing left to send.
    let (again, log) = app(data.path(), &team, &team.token, HOUR).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(log.lock().unwrap().is_empty(), "{:?}", outcomes(&log));
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_down_at_commit_gets_the_delete_when_it_comes_back_without_a_restart() {
    let mut team = Team::start().await;
    let data = tempfile::tempdir().unwrap();
    let (gone, undone) = (team.save("gone").await, team.save("undone while offline").await);
    let (core, log) = app(data.path(), &team, &team.token, Duration::from_millis(200)).await;
    team.down().await;
    core.schedule_delete(&team.org, &gone).await.unwrap();
    core.schedule_delete(&team.org, &undone).await.unwrap();
    eventually("both waiting", async || outcomes(&log).iter().filter(|(_, o)| *o == Outcome::Waiting).count() >= 2).await;
    let pending = core.pending_deletes();
    assert_eq!(pending.len(), 2);
    assert!(pending.iter().all(|p| p.waiting && p.message.as_deref().is_some_and(|m| m.contains("cannot reach"))), "{pending:?}");
    // Undo still works while it waits.
    assert!(core.undo_delete(&undone).unwrap());
    tokio::time::sleep(Duration::from_secs(2)).await; // several retries, all failing
    team.up().await;
    eventually("the delete after the server came back", async || team.contents().await == ["undone while offline"]).await;
    eventually("its report", async || outcomes(&log).contains(&(gone.clone(), Outcome::Deleted))).await;
    assert!(core.pending_deletes().is_empty());
    assert!(!outcomes(&log).iter().any(|(id, o)| id == &undone && *o != Outcome::Waiting), "the undone delete was sent");
    core.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delete_waiting_offline_survives_a_restart_and_goes_out_when_the_server_is_back() {
    let mut team = Team::start().await;
    let data = tempfile::tempdir().unwrap();
    let id = team.save("offline across a restart").await;
    let (first_run, log) = app(data.path(), &team, &team.token, HOUR).await;
    team.down().await;
    first_run.schedule_delete(&team.org, &id).await.unwrap();
    first_run.shutdown().await; // quitting sends it: the server is unreachable, so it waits
    assert_eq!(outcomes(&log), [(id.clone(), Outcome::Waiting)]);

    // The app starts again while the server is still down: signed out, the delete waits.
    let (second_run, log) = app(data.path(), &team, &team.token, HOUR).await;
    assert!(second_run.state().await.account.is_none(), "the server is down: signed out");
    let pending = second_run.pending_deletes();
    assert_eq!(pending.len(), 1);
    assert!(pending[0].waiting);
    tokio::time::sleep(Duration::from_millis(500)).await;
    team.up().await;
    eventually("the delete", async || team.contents().await.is_empty()).await;
    eventually("its report", async || outcomes(&log).contains(&(id.clone(), Outcome::Deleted))).await;
    second_run.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn undo_after_a_restart_while_offline_cancels_it_for_good() {
    let mut team = Team::start().await;
    let data = tempfile::tempdir().unwrap();
    let id = team.save("kept after all").await;
    let (first_run, _) = app(data.path(), &team, &team.token, HOUR).await;
    team.down().await;
    first_run.schedule_delete(&team.org, &id).await.unwrap();
    first_run.shutdown().await;
    let (second_run, log) = app(data.path(), &team, &team.token, HOUR).await;
    assert!(second_run.undo_delete(&id).unwrap());
    team.up().await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(team.contents().await, ["kept after all"]);
    assert!(!outcomes(&log).iter().any(|(_, o)| *o == Outcome::Deleted));
    second_run.shutdown().await;
    let (third_run, log) = app(data.path(), &team, &team.token, HOUR).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(log.lock().unwrap().is_empty());
    assert_eq!(team.contents().await, ["kept after all"]);
    third_run.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_token_stops_the_retries_and_says_so() {
    let team = Team::start().await;
    let data = tempfile::tempdir().unwrap();
    let id = team.save("not deletable any more").await;
    let (core, log) = app(data.path(), &team, &team.token, Duration::from_millis(100)).await;
    team.bank.revoke_token(&team.token).await.unwrap();
    core.schedule_delete(&team.org, &id).await.unwrap();
    eventually("the refusal", async || !log.lock().unwrap().is_empty()).await;
    tokio::time::sleep(Duration::from_millis(800)).await; // time for retries, if any
    let log = log.lock().unwrap().clone();
    assert_eq!(log.len(), 1, "no retry after a 401: {log:?}");
    assert_eq!(log[0].outcome, Outcome::Failed);
    assert!(log[0].message.as_deref().is_some_and(|m| m.to_lowercase().contains("token")), "{log:?}");
    assert!(core.pending_deletes().is_empty());
    let journal = std::fs::read_to_string(data.path().join(JOURNAL_FILE)).unwrap();
    assert!(!journal.contains(&id), "a refused delete is not kept: {journal}");
    assert_eq!(team.contents().await, ["not deletable any more"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delete_is_never_sent_as_another_user() {
    let team = Team::start().await;
    let data = tempfile::tempdir().unwrap();
    let id = team.save("Ada's").await;
    let other = team.bank.add_user("bob@team.example").await.unwrap().id;
    team.bank.add_member(&team.org, &other).await.unwrap();
    let bobs_token = team.bank.issue_token(&other).await.unwrap();
    let (ada, _) = app(data.path(), &team, &team.token, HOUR).await;
    ada.schedule_delete(&team.org, &id).await.unwrap();
    crash(ada);
    // The same folder, now signed in to the same server as Bob.
    let (bob, log) = app(data.path(), &team, &bobs_token, HOUR).await;
    eventually("the check of the token's user", async || !log.lock().unwrap().is_empty()).await;
    assert_eq!(outcomes(&log), [(id.clone(), Outcome::Waiting)]);
    assert!(log.lock().unwrap()[0].message.as_deref().unwrap().contains("bob@team.example"));
    assert_eq!(team.contents().await, ["Ada's"]);
    assert_eq!(bob.pending_deletes().len(), 1, "kept for Ada");
    crash(bob);
    // Ada again: it goes out.
    let (ada, log) = app(data.path(), &team, &team.token, HOUR).await;
    eventually("Ada's delete", async || team.contents().await.is_empty()).await;
    eventually("its report", async || outcomes(&log).contains(&(id.clone(), Outcome::Deleted))).await;
    ada.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_journal_is_set_aside_and_the_app_starts_with_a_fresh_one() {
    let team = Team::start().await;
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join(JOURNAL_FILE), b"{\"version\":1,\"deletes\":[{\"id\":\"mem_").unwrap();
    let id = team.save("deletable").await;
    let (core, log) = app(data.path(), &team, &team.token, Duration::from_millis(100)).await;
    assert!(core.state().await.account.is_some(), "the app started normally");
    core.schedule_delete(&team.org, &id).await.unwrap();
    eventually("the delete", async || outcomes(&log).contains(&(id.clone(), Outcome::Deleted))).await;
    let names: Vec<String> = std::fs::read_dir(data.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(names.iter().any(|n| n.starts_with("pending-deletes.json.corrupt-")), "{names:?}");
    core.shutdown().await;
    let _ = &team.dir;
}
