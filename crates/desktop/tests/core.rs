//! The desktop core against real services on loopback: the embedded local service,
//! and a team server with real accounts. The OS keyring is keyring's mock store (the
//! one boundary mocked here, since CI has no desktop keyring).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use memory_bank_contract::ErrorCode;
use memory_bank_contract::validate::{parse_list, validate_save};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_desktop::deletes::{DeleteTiming, Outcome, Settled};
use memory_bank_desktop::prefs::{MemoryPrefs, PrefsStore};
use memory_bank_desktop::secrets::{Keyring, SecretStore};
use memory_bank_desktop::{Account, Core, CoreConfig};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;

#[path = "support/mod.rs"]
mod support;

/// A team server on loopback with one user (member of two orgs) and a token.
struct Team {
    /// Stops the server when the team is dropped (first: fields drop in order).
    _served: support::Served,
    _dir: tempfile::TempDir,
    url: String,
    token: String,
    bank: Bank,
    user: String,
    orgs: [String; 2],
}

impl Team {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("team.db").display())).await.unwrap();
        let bank = Bank::new(Arc::new(store));
        let user = bank.add_user("ada@team.example").await.unwrap().id;
        let a = bank.add_org("Alpha").await.unwrap().id;
        let b = bank.add_org("Beta").await.unwrap().id;
        bank.add_member(&a, &user).await.unwrap();
        bank.add_member(&b, &user).await.unwrap();
        let token = bank.issue_token(&user).await.unwrap();
        let served = support::Served::start(bank.clone()).await;
        Self { url: served.url.clone(), _served: served, _dir: dir, token, bank, user, orgs: [a, b] }
    }

    async fn save(&self, content: &str) -> String {
        let input = validate_save(SaveMemoryRequest { content: content.into(), ..Default::default() }).unwrap();
        self.bank.save(&self.user, &self.orgs[0], input).await.unwrap().id
    }

    async fn contents(&self) -> Vec<String> {
        let page = self.bank.list(&self.user, &parse_list(Some("100"), None).unwrap()).await.unwrap();
        page.memories.into_iter().map(|m| m.content).collect()
    }
}

fn mock_keyring() -> Box<dyn SecretStore> {
    Box::new(SharedKeyring::default())
}

/// The real `Keyring` type over keyring's mock store, shareable between "restarts"
/// (each mock entry only sees its own writes, so a restart must reuse the entries).
#[derive(Clone)]
struct SharedKeyring(Arc<Keyring>);

impl Default for SharedKeyring {
    fn default() -> Self {
        keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
        Self(Arc::new(Keyring::new("memory-bank-test")))
    }
}

impl SecretStore for SharedKeyring {
    fn get(&self, url: &str) -> Result<Option<String>, String> {
        self.0.get(url)
    }
    fn set(&self, url: &str, token: &str) -> Result<(), String> {
        self.0.set(url, token)
    }
    fn delete(&self, url: &str) -> Result<(), String> {
        self.0.delete(url)
    }
}

/// Shares one in-memory prefs store between Core instances ("restarts").
#[derive(Clone, Default)]
struct SharedPrefs(Arc<MemoryPrefs>);

impl PrefsStore for SharedPrefs {
    fn load(&self) -> memory_bank_desktop::prefs::Prefs {
        self.0.load()
    }
    fn save(&self, prefs: &memory_bank_desktop::prefs::Prefs) -> Result<(), String> {
        self.0.save(prefs)
    }
}

type Log = Arc<Mutex<Vec<Settled>>>;

fn config(dir: &std::path::Path, delay: Duration) -> CoreConfig {
    CoreConfig { data_dir: dir.to_owned(), env_server: None, env_org: None, delete_timing: DeleteTiming { delay, ..Default::default() }, agent_env: None, cli_binary: None, db_key: memory_bank_db_key::KeySource::None }
}

async fn core_with(config: CoreConfig, prefs: SharedPrefs, secrets: Box<dyn SecretStore>) -> (Core, Log) {
    let log: Log = Arc::default();
    let sink = log.clone();
    let core = Core::start(config, Box::new(prefs), secrets, move |s| {
        sink.lock().unwrap().push(s)
    })
    .await;
    (core, log)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_local_account_works_out_of_the_box_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let prefs = SharedPrefs::default();
    let (core, _) = core_with(config(dir.path(), Duration::from_millis(50)), prefs.clone(), mock_keyring()).await;
    let state = core.state().await;
    assert_eq!(state.account, Some(Account::Local));
    assert_eq!(state.orgs.len(), 1);
    assert_eq!(state.active_org_id.as_deref(), Some(state.orgs[0].id.as_str()));
    assert!(state.prefs.memory_enabled, "the memory panel is on by default");
    let org = state.active_org_id.clone().unwrap();
    assert!(core.list(&org, None, None).await.unwrap().memories.is_empty());

    // Write through the real database file the local service uses.
    let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
    let bank = Bank::new(Arc::new(store));
    let input = validate_save(SaveMemoryRequest { content: "kept across restarts".into(), ..Default::default() }).unwrap();
    bank.save(&state.user.as_ref().unwrap().id, &org, input).await.unwrap();
    assert_eq!(core.search(&org, "restarts", None).await.unwrap().results.len(), 1);
    core.shutdown().await;

    let (again, _) = core_with(config(dir.path(), Duration::from_millis(50)), prefs, mock_keyring()).await;
    let second = again.state().await;
    assert_eq!(second.user, state.user, "the local user is provisioned once");
    assert_eq!(second.orgs, state.orgs);
    assert_eq!(again.list(&org, None, None).await.unwrap().memories[0].content, "kept across restarts");
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn team_sign_in_checks_first_keeps_the_token_in_the_keyring_and_signs_out() {
    let team = Team::start().await;
    let dir = tempfile::tempdir().unwrap();
    let prefs = SharedPrefs::default();
    let keyring = SharedKeyring::default();
    let (core, _) = core_with(config(dir.path(), Duration::from_millis(50)), prefs.clone(), Box::new(keyring.clone())).await;

    let wrong = core.sign_in_team(&team.url, "mbk_wrong").await.unwrap_err();
    assert_eq!(wrong.code, ErrorCode::Unauthorized);
    assert_eq!(core.state().await.account, Some(Account::Local), "a failed check changes nothing");
    let unreachable = core.sign_in_team("http://127.0.0.1:9", &team.token).await.unwrap_err();
    assert_eq!(unreachable.code, ErrorCode::Unreachable);

    let state = core.sign_in_team(&format!("{}/", team.url), &team.token).await.unwrap();
    assert_eq!(state.account, Some(Account::Team { url: team.url.clone(), from_env: false }));
    assert_eq!(state.orgs.len(), 2);
    assert_eq!(state.active_org_id, None, "two orgs: the person picks");
    let picked = core.set_active_org(&team.orgs[1]).await.unwrap();
    assert_eq!(picked.active_org_id.as_deref(), Some(team.orgs[1].as_str()));
    assert_eq!(core.set_active_org("org_not_mine").await.unwrap_err().code, ErrorCode::OrganizationNotFound);
    let saved = serde_json::to_string(&prefs.load()).unwrap();
    assert!(!saved.contains(&team.token), "the token never reaches the preferences file");
    team.save("team memory").await;
    assert_eq!(core.list(&team.orgs[1], None, None).await.unwrap().memories.len(), 1);

    // A restart restores the team account from the keyring and the chosen org.
    assert_eq!(keyring.get(&team.url).unwrap().as_deref(), Some(team.token.as_str()));
    core.shutdown().await;
    let (again, _) = core_with(config(dir.path(), Duration::from_millis(50)), prefs.clone(), Box::new(keyring.clone())).await;
    let restored = again.state().await;
    assert!(matches!(restored.account, Some(Account::Team { .. })), "{restored:?}");
    assert_eq!(restored.active_org_id.as_deref(), Some(team.orgs[1].as_str()));

    let out = again.sign_out().await.unwrap();
    assert_eq!((out.account, out.user, out.orgs.len()), (None, None, 0));
    assert_eq!(again.list(&team.orgs[0], None, None).await.unwrap_err().code, ErrorCode::NoAccount);
    assert_eq!(keyring.get(&team.url).unwrap(), None, "sign out deletes the token");
    let (third, _) = core_with(config(dir.path(), Duration::from_millis(50)), prefs, Box::new(keyring)).await;
    assert_eq!(third.state().await.account, None, "signed out stays signed out: the token is gone");
}

#[tokio::test(flavor = "multi_thread")]
async fn env_variables_select_a_team_server_without_the_keyring() {
    let team = Team::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path(), Duration::from_millis(50));
    cfg.env_server = Some((team.url.clone(), team.token.clone()));
    cfg.env_org = Some(team.orgs[1].clone());
    let (core, _) = core_with(cfg, SharedPrefs::default(), mock_keyring()).await;
    let state = core.state().await;
    assert_eq!(state.account, Some(Account::Team { url: team.url.clone(), from_env: true }));
    assert_eq!(state.active_org_id.as_deref(), Some(team.orgs[1].as_str()));
    assert!(!dir.path().join("memory.db").exists(), "no local service was started");
}

#[tokio::test(flavor = "multi_thread")]
async fn deletes_wait_can_be_undone_and_keep_the_org_of_the_moment() {
    let team = Team::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path(), Duration::from_millis(400));
    cfg.env_server = Some((team.url.clone(), team.token.clone()));
    let (core, log) = core_with(cfg, SharedPrefs::default(), mock_keyring()).await;
    let (keep, first, second) = (team.save("undone").await, team.save("first").await, team.save("second").await);

    core.schedule_delete(&team.orgs[0], &keep).await.unwrap();
    core.schedule_delete(&team.orgs[0], &first).await.unwrap();
    core.set_active_org(&team.orgs[1]).await.unwrap(); // switching org later changes nothing
    tokio::time::sleep(Duration::from_millis(200)).await;
    core.schedule_delete(&team.orgs[1], &second).await.unwrap(); // a second delete does not delay the first
    assert!(core.undo_delete(&keep).unwrap());
    assert!(!core.undo_delete(&keep).unwrap(), "undo works once");
    assert_eq!(team.contents().await.len(), 3, "nothing is sent before the delay");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(team.contents().await, ["second", "undone"], "the first delete went at its own time");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(team.contents().await, ["undone"]);
    let log = log.lock().unwrap().clone();
    assert_eq!(log.len(), 2);
    assert_eq!((log[0].id.as_str(), log[0].org_id.as_str(), log[0].outcome), (first.as_str(), team.orgs[0].as_str(), Outcome::Deleted));
    assert_eq!((log[1].id.as_str(), log[1].org_id.as_str(), log[1].outcome), (second.as_str(), team.orgs[1].as_str(), Outcome::Deleted));
    assert!(!core.undo_delete(&first).unwrap(), "too late to undo");
}

#[tokio::test(flavor = "multi_thread")]
async fn flush_sends_pending_deletes_now_and_reports_not_found_and_failures() {
    let team = Team::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path(), Duration::from_secs(3600));
    cfg.env_server = Some((team.url.clone(), team.token.clone()));
    let (core, log) = core_with(cfg, SharedPrefs::default(), mock_keyring()).await;
    let real = team.save("flushed").await;
    core.schedule_delete(&team.orgs[0], &real).await.unwrap();
    core.schedule_delete(&team.orgs[0], "mem_01jdq0000000000000000000").await.unwrap();
    core.schedule_delete("org_01jdq0000000000000000000", &real).await.unwrap(); // same id again: replaces the first
    core.flush_deletes().await;
    let outcomes: Vec<(String, Outcome)> = log.lock().unwrap().iter().map(|s| (s.id.clone(), s.outcome)).collect();
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    assert!(outcomes.contains(&("mem_01jdq0000000000000000000".into(), Outcome::NotFound)), "404 counts as done");
    let failed = log.lock().unwrap().iter().find(|s| s.id == real).cloned().unwrap();
    assert_eq!(failed.outcome, Outcome::Failed, "an org the user is not in fails");
    assert!(failed.message.unwrap().contains("organization"));
    assert_eq!(team.contents().await, ["flushed"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn switching_accounts_first_sends_deletes_to_the_service_they_were_made_on() {
    let team = Team::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (core, log) = core_with(config(dir.path(), Duration::from_secs(3600)), SharedPrefs::default(), mock_keyring()).await;
    let local = core.state().await;
    let org = local.active_org_id.clone().unwrap();
    let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
    let bank = Bank::new(Arc::new(store));
    let input = validate_save(SaveMemoryRequest { content: "local one".into(), ..Default::default() }).unwrap();
    let id = bank.save(&local.user.unwrap().id, &org, input).await.unwrap().id;
    core.schedule_delete(&org, &id).await.unwrap();
    core.sign_in_team(&team.url, &team.token).await.unwrap();
    assert_eq!(log.lock().unwrap()[0].outcome, Outcome::Deleted);
    let left: i64 = sqlx_count(&bank).await;
    assert_eq!(left, 0);
}

async fn sqlx_count(bank: &Bank) -> i64 {
    let users = bank.list_users().await.unwrap();
    let page = bank.list(&users[0].id, &parse_list(Some("100"), None).unwrap()).await.unwrap();
    page.memories.len() as i64
}

/// The production timing: Undo at 4.9 s sends nothing; a delete not undone is sent at 6 s.
#[tokio::test(flavor = "multi_thread")]
async fn production_delay_undo_at_4_9_s_and_commit_at_6_s() {
    let team = Team::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = CoreConfig::from_env(dir.path().to_owned());
    cfg.env_server = Some((team.url.clone(), team.token.clone()));
    assert_eq!(cfg.delete_timing.delay, Duration::from_millis(6000));
    let (core, log) = core_with(cfg, SharedPrefs::default(), mock_keyring()).await;
    let (undone, committed) = (team.save("undone").await, team.save("committed").await);
    let start = tokio::time::Instant::now();
    let scheduled = core.schedule_delete(&team.orgs[0], &undone).await.unwrap();
    core.schedule_delete(&team.orgs[0], &committed).await.unwrap();
    assert!(scheduled.commit_at - memory_bank_contract::Timestamp::now().unix_ms() > 5900);
    tokio::time::sleep_until(start + Duration::from_millis(4900)).await;
    assert!(core.undo_delete(&undone).unwrap());
    tokio::time::sleep_until(start + Duration::from_millis(5700)).await;
    assert_eq!(team.contents().await.len(), 2, "nothing sent before 6 s");
    tokio::time::sleep_until(start + Duration::from_millis(6800)).await;
    assert_eq!(team.contents().await, ["undone"]);
    assert_eq!(log.lock().unwrap().len(), 1);
}

/// An export line of memory `n`, as `GET /v1/export` writes it.
fn export_line(n: i64) -> String {
    let at = memory_bank_contract::Timestamp::from_unix_ms(1_760_000_000_000 + n * 1000);
    let memory = memory_bank_contract::transfer::ExportedMemory {
        id: memory_bank_contract::ids::new_id_at(memory_bank_contract::ids::MEMORY_PREFIX, at.unix_ms()),
        content: format!("Imported memory number {n}"),
        tags: (n % 3 == 0).then(|| vec!["third".to_owned()]),
        created_at: at,
        updated_at: at,
        contexts: Vec::new(),
        revisions: Vec::new(),
        confirmed_via: None,
        proposed_by: None,
        imported_from: None,
        saved_by: None,
        confirmed_by: None,
    };
    serde_json::to_string(&memory).unwrap()
}

type Steps = Arc<Mutex<Vec<(memory_bank_desktop::transfer::TransferKind, u64, Option<u64>)>>>;

fn recorder() -> (Steps, impl Fn(memory_bank_desktop::transfer::TransferProgress) + Send + Sync) {
    let steps: Steps = Arc::default();
    let sink = steps.clone();
    (steps, move |p: memory_bank_desktop::transfer::TransferProgress| sink.lock().unwrap().push((p.kind, p.done, p.total)))
}

/// Settings → Data through the local account: an import file of 4 501 lines goes in
/// slices with progress, a bad line is reported by its number in the whole file, the
/// export written to the chosen file is the service's export byte for byte, and it
/// imports into a fresh bank that then exports exactly the same.
#[tokio::test(flavor = "multi_thread")]
async fn export_and_import_files_round_trip_with_progress_and_whole_file_line_numbers() {
    use memory_bank_contract::transfer::OnConflict;
    use memory_bank_desktop::transfer::{TransferKind, IMPORT_SLICE_LINES};
    let dir = tempfile::tempdir().unwrap();
    let (core, _) = core_with(config(&dir.path().join("a"), Duration::from_millis(50)), SharedPrefs::default(), mock_keyring()).await;
    let org = core.state().await.active_org_id.unwrap();
    let mut lines: Vec<String> = (1..=4500).map(export_line).collect();
    // Line 2 501: a secret, refused by the service's check and reported as line 2501.
    lines.insert(2500, export_line(9999).replace("Imported memory number 9999", "key ghp_0123456789abcdefghijABCDEFGHIJ0123"));
    let file = dir.path().join("in.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();

    let (steps, progress) = recorder();
    let report = core.import_from_file(&org, &file, OnConflict::Skip, &progress).await.unwrap();
    assert_eq!((report.imported, report.failed_count), (4500, 1), "{report:?}");
    assert_eq!((report.failed[0].line, report.failed[0].error.as_str()), (2501, "looks_like_secret"));
    let done: Vec<u64> = steps.lock().unwrap().iter().map(|s| s.1).collect();
    assert_eq!(done, [0, IMPORT_SLICE_LINES as u64, 2 * IMPORT_SLICE_LINES as u64, 4501], "one step per slice");
    assert!(steps.lock().unwrap().iter().all(|s| s.0 == TransferKind::Import && s.2 == Some(4501)));
    let again = core.import_from_file(&org, &file, OnConflict::Skip, &|_| {}).await.unwrap();
    assert_eq!((again.imported, again.skipped), (0, 4500), "importing the same file twice changes nothing");

    let exported = dir.path().join("out").join("memories.jsonl");
    std::fs::create_dir(exported.parent().unwrap()).unwrap();
    let (steps, progress) = recorder();
    assert_eq!(core.export_to_file(&org, &exported, &progress).await.unwrap(), 4500);
    assert_eq!(steps.lock().unwrap().last().map(|s| (s.0, s.1)), Some((TransferKind::Export, 4500)));
    let written = std::fs::read(&exported).unwrap();
    let mut ids: Vec<String> = String::from_utf8(written.clone()).unwrap().lines()
        .map(|line| serde_json::from_str::<memory_bank_contract::transfer::ExportedMemory>(line).unwrap().id)
        .collect();
    let mut wanted: Vec<String> = lines.iter().filter(|l| !l.contains("ghp_"))
        .map(|line| serde_json::from_str::<memory_bank_contract::transfer::ExportedMemory>(line).unwrap().id)
        .collect();
    ids.sort();
    wanted.sort();
    assert_eq!(ids, wanted, "every imported memory, once, as export lines");
    let leftovers: Vec<_> = std::fs::read_dir(exported.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers, [std::ffi::OsString::from("memories.jsonl")], "no temporary file left");

    let (fresh, _) = core_with(config(&dir.path().join("b"), Duration::from_millis(50)), SharedPrefs::default(), mock_keyring()).await;
    let fresh_org = fresh.state().await.active_org_id.unwrap();
    assert_eq!(fresh.import_from_file(&fresh_org, &exported, OnConflict::Skip, &|_| {}).await.unwrap().imported, 4500);
    let round_trip = dir.path().join("b.jsonl");
    fresh.export_to_file(&fresh_org, &round_trip, &|_| {}).await.unwrap();
    assert_eq!(std::fs::read(&round_trip).unwrap(), written, "an export imported into an empty bank exports the same");
    fresh.shutdown().await;
    core.shutdown().await;
}

/// Files the person cannot use are clear errors that change nothing.
#[tokio::test(flavor = "multi_thread")]
async fn unwritable_unreadable_and_oversized_files_are_clear_errors() {
    use memory_bank_contract::transfer::OnConflict;
    let dir = tempfile::tempdir().unwrap();
    let (core, _) = core_with(config(dir.path(), Duration::from_millis(50)), SharedPrefs::default(), mock_keyring()).await;
    let org = core.state().await.active_org_id.unwrap();
    let nowhere = dir.path().join("no-such-folder").join("out.jsonl");
    let refused = core.export_to_file(&org, &nowhere, &|_| {}).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::File);
    assert!(refused.message.contains("no-such-folder"), "{}", refused.message);
    let missing = core.import_from_file(&org, &nowhere, OnConflict::Skip, &|_| {}).await.unwrap_err();
    assert_eq!(missing.code, ErrorCode::File);
    let huge = dir.path().join("huge.jsonl");
    std::fs::File::create(&huge).unwrap().set_len(65 * 1024 * 1024).unwrap();
    let too_big = core.import_from_file(&org, &huge, OnConflict::Skip, &|_| {}).await.unwrap_err();
    assert_eq!(too_big.code, ErrorCode::PayloadTooLarge);
    assert!(too_big.message.contains("split it"), "{}", too_big.message);
    assert!(core.list(&org, None, None).await.unwrap().memories.is_empty());
    core.shutdown().await;
}
