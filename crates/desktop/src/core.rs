//! [`Core`]: the app's state and every action the UI can take.

use std::path::PathBuf;

use memory_bank_contract::ErrorCode;
use memory_bank_client::Client;
use memory_bank_contract::edit::{validate_edit, EditMemoryRequest, RevisionListResponse};
use memory_bank_contract::gate::Refused;
use memory_bank_contract::teams::BankScope;
use memory_bank_contract::wire::{CitingResponse, FindSimilarRequest, ListResponse, Memory, SaveMemoryRequest, SearchResponse, SimilarResponse};
use serde::Serialize;
use tokio::sync::RwLock;

use crate::deletes::journal::{AccountKey, Journal, JournalEntry};
use crate::deletes::{DeleteScheduler, DeleteTiming, PendingDelete, Settled};
use crate::local::{start_local_service, LocalService};
use crate::prefs::{AccountKind, Language, Prefs, PrefsPatch, PrefsStore, SessionRoot};
use crate::secrets::SecretStore;
use crate::DesktopError;

/// Start-up settings, mostly from the environment.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Where the local database (and other app data) lives.
    pub data_dir: PathBuf,
    /// `MEMORY_BANK_URL` + `MEMORY_BANK_TOKEN`: a team server without the keyring.
    pub env_server: Option<(String, String)>,
    /// `MEMORY_BANK_ORG`: the active org to start with.
    pub env_org: Option<String>,
    /// When a confirmed delete is sent, and how one that cannot reach the server is retried.
    pub delete_timing: DeleteTiming,
    /// Where Settings → Agents looks for the agents' config files; `None` = this
    /// process's home folder and environment, read at each look.
    pub agent_env: Option<memory_bank_agent_install::AgentEnv>,
    /// The `memory-bank` binary Install registers; `None` = [`crate::agents::find_cli_binary`].
    pub cli_binary: Option<PathBuf>,
    /// Where the local bank's key lives: `MEMORY_BANK_DB_KEY_FILE`, else the OS keyring.
    pub db_key: memory_bank_db_key::KeySource,
}

impl CoreConfig {
    /// Reads `MEMORY_BANK_DATA_DIR`, `MEMORY_BANK_URL`, `MEMORY_BANK_TOKEN`,
    /// `MEMORY_BANK_ORG` and `MEMORY_BANK_DB_KEY_FILE`; `default_data_dir` is the OS
    /// app-data folder.
    pub fn from_env(default_data_dir: PathBuf) -> Self {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let env_server = var("MEMORY_BANK_URL").zip(var("MEMORY_BANK_TOKEN"));
        let data_dir = var("MEMORY_BANK_DATA_DIR").map(PathBuf::from).unwrap_or(default_data_dir);
        let db_key = memory_bank_access::default_key_source(&data_dir, var("MEMORY_BANK_DB_KEY_FILE").map(PathBuf::from));
        Self {
            data_dir,
            env_server,
            env_org: var("MEMORY_BANK_ORG"),
            delete_timing: DeleteTiming::default(),
            agent_env: None,
            cli_binary: None,
            db_key,
        }
    }
}

/// The account in use, as the UI sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Account {
    /// The embedded service.
    Local,
    /// A team server.
    #[serde(rename_all = "camelCase")]
    Team {
        /// Server URL.
        url: String,
        /// Chosen by env variables (not the keyring).
        from_env: bool,
    },
}

/// The signed-in user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UserInfo {
    /// `usr_…`
    pub id: String,
    /// Email.
    pub email: String,
}

/// An org the user can act in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OrgInfo {
    /// `org_…`
    pub id: String,
    /// Name.
    pub name: String,
}

/// The preferences the UI reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UiPrefs {
    /// Shows the memory panel.
    pub memory_enabled: bool,
    /// Null to follow the OS.
    pub language: Option<Language>,
    /// Session folders read besides the tools' default ones.
    pub session_roots: Vec<SessionRoot>,
    /// Keep a session in the history after its tool deletes it.
    pub keep_archived_sessions: bool,
    /// Search by words only, never by meaning.
    pub words_only: bool,
    /// The memory panel's filter: `mine`, `team` or `all`.
    pub memory_scope: BankScope,
}

/// Everything the UI needs to pick a screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AppState {
    /// Null when not signed in.
    pub account: Option<Account>,
    /// Null when not signed in.
    pub user: Option<UserInfo>,
    /// Orgs of the user.
    pub orgs: Vec<OrgInfo>,
    /// Null when no org is active.
    pub active_org_id: Option<String>,
    /// UI preferences.
    pub prefs: UiPrefs,
    /// Why the app is not signed in when connecting failed (a local bank whose key is
    /// missing or does not open it, a team server that refused the token), its message
    /// saying what to do; null when signed in, or signed out on purpose.
    pub connect_error: Option<DesktopError>,
    /// The local bank is in use and not encrypted, because no OS keyring answered when
    /// it was opened (it is encrypted on the first start where one does). Settings says
    /// so; the log says it once.
    pub local_bank_unencrypted: bool,
}

/// A scheduled delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScheduledDelete {
    /// Memory id.
    pub id: String,
    /// When it will be sent, ms since the epoch.
    pub commit_at: i64,
}

#[derive(Default)]
struct Session {
    account: Option<Account>,
    client: Option<Client>,
    user: Option<UserInfo>,
    orgs: Vec<OrgInfo>,
    active_org: Option<String>,
    local: Option<LocalService>,
}

/// The desktop app without a window.
pub struct Core {
    config: CoreConfig,
    prefs_store: Box<dyn PrefsStore>,
    secrets: Box<dyn SecretStore>,
    prefs: std::sync::Mutex<Prefs>,
    session: RwLock<Session>,
    deletes: DeleteScheduler,
    /// The last connection attempt's error (see [`AppState::connect_error`]).
    connect_error: std::sync::Mutex<Option<DesktopError>>,
}

impl Core {
    /// Loads preferences and connects the chosen account (starting the local service
    /// when that is the account). Never fails: problems leave the app signed out.
    pub async fn start(
        config: CoreConfig,
        prefs_store: Box<dyn PrefsStore>,
        secrets: Box<dyn SecretStore>,
        on_settled: impl Fn(Settled) + Send + Sync + 'static,
    ) -> Self {
        let prefs = prefs_store.load();
        // The data folder is made private when the bank opens; the journal only needs it to exist.
        if let Err(e) = crate::private_files::create_dir_all(&config.data_dir) {
            tracing::warn!(error = %e, "cannot create the data folder {}", config.data_dir.display());
        }
        let journal = Journal::open(&config.data_dir);
        let deletes = DeleteScheduler::new(journal, config.delete_timing, on_settled);
        let core = Self {
            config,
            prefs_store,
            secrets,
            prefs: std::sync::Mutex::new(prefs),
            session: RwLock::default(),
            deletes,
            connect_error: std::sync::Mutex::default(),
        };
        // A team server's deletes left by the last run need no sign-in: its token is enough.
        core.deletes.restore(|account| match account {
            AccountKey::Team { url } => core.token_for(url).and_then(|token| Client::new(url, &token).ok()),
            AccountKey::Local => None,
        });
        if let Err(err) = core.connect().await {
            tracing::warn!(code = %err.code, "starting signed out: {}", err.message);
        }
        core
    }

    /// The token this app holds for the team server at `url`: the environment's, or the
    /// keyring's.
    fn token_for(&self, url: &str) -> Option<String> {
        match &self.config.env_server {
            Some((env_url, token)) if env_url.trim_end_matches('/') == url.trim_end_matches('/') => Some(token.clone()),
            _ => self.secrets.get(url).ok().flatten(),
        }
    }

    pub(crate) fn config(&self) -> &CoreConfig {
        &self.config
    }

    pub(crate) fn prefs(&self) -> Prefs {
        self.prefs.lock().map(|p| p.clone()).unwrap_or_default()
    }

    pub(crate) fn update_prefs(&self, change: impl FnOnce(&mut Prefs)) {
        let snapshot = {
            let mut prefs = self.prefs.lock().unwrap_or_else(|poison| poison.into_inner());
            change(&mut prefs);
            prefs.clone()
        };
        if let Err(err) = self.prefs_store.save(&snapshot) {
            tracing::warn!("could not save preferences: {err}");
        }
    }

    /// (Re)connects the account the environment or preferences choose; a failure is
    /// kept for the UI to show (a missing bank key otherwise looks like being signed out).
    async fn connect(&self) -> Result<(), DesktopError> {
        let outcome = self.connect_chosen().await;
        self.set_connect_error(outcome.as_ref().err().cloned());
        outcome
    }

    fn set_connect_error(&self, error: Option<DesktopError>) {
        *self.connect_error.lock().unwrap_or_else(|poison| poison.into_inner()) = error;
    }

    async fn connect_chosen(&self) -> Result<(), DesktopError> {
        self.disconnect().await;
        let prefs = self.prefs();
        let (account, client, local) = if let Some((url, token)) = &self.config.env_server {
            (Account::Team { url: url.clone(), from_env: true }, Client::new(url, token)?, None)
        } else if prefs.account == AccountKind::Team {
            let url = prefs
                .team_url
                .clone()
                .ok_or_else(|| DesktopError::new(ErrorCode::NoAccount, "no team server is set up"))?;
            let token = self
                .secrets
                .get(&url)
                .map_err(|e| DesktopError::new(ErrorCode::Keyring, e))?;
            let token = token.ok_or_else(|| {
                DesktopError::new(ErrorCode::NoAccount, format!("no token for {url}; sign in again"))
            })?;
            (
                Account::Team {
                    url: url.clone(),
                    from_env: false,
                },
                Client::new(&url, &token)?,
                None,
            )
        } else {
            let local = start_local_service(&self.config.data_dir, &self.config.db_key, prefs.words_only).await?;
            (Account::Local, Client::new(&local.url, &local.token)?, Some(local))
        };
        self.attach(account, client, local).await
    }

    /// Checks the client with `GET /v1/me` and makes it the session.
    async fn attach(&self, account: Account, client: Client, local: Option<LocalService>) -> Result<(), DesktopError> {
        let me = client.me().await?;
        let orgs: Vec<OrgInfo> = me.orgs.into_iter().map(|o| OrgInfo { id: o.id, name: o.name }).collect();
        let wanted = self.config.env_org.clone().filter(|_| matches!(account, Account::Team { from_env: true, .. }));
        let wanted = wanted.or(self.prefs().active_org);
        let active_org = match wanted.filter(|w| orgs.iter().any(|o| &o.id == w)) {
            Some(org) => Some(org),
            None if orgs.len() == 1 => Some(orgs[0].id.clone()),
            None => None,
        };
        let mut session = self.session.write().await;
        // Deletes confirmed in this account by this user (in an earlier run, or while
        // its server was unreachable) go out now.
        self.deletes.adopt(&account_key(&account), &me.user.id, &client);
        *session = Session {
            account: Some(account),
            client: Some(client),
            user: Some(UserInfo { id: me.user.id, email: me.user.email }),
            orgs,
            active_org,
            local,
        };
        Ok(())
    }

    /// Sends pending deletes (their captured clients may point at the service being
    /// left), then drops the session and stops the local service.
    async fn disconnect(&self) {
        self.deletes.flush().await;
        let old = std::mem::take(&mut *self.session.write().await);
        if let Some(local) = old.local {
            local.stop().await;
        }
    }

    /// What the UI shows.
    pub async fn state(&self) -> AppState {
        let session = self.session.read().await;
        let prefs = self.prefs();
        AppState {
            account: session.account.clone(),
            user: session.user.clone(),
            orgs: session.orgs.clone(),
            active_org_id: session.active_org.clone(),
            prefs: UiPrefs {
                memory_enabled: prefs.memory_enabled,
                language: prefs.language.as_deref().and_then(Language::parse),
                session_roots: prefs.session_roots,
                keep_archived_sessions: prefs.keep_archived_sessions,
                words_only: prefs.words_only,
                memory_scope: prefs.memory_scope,
            },
            connect_error: self.connect_error.lock().map(|e| e.clone()).unwrap_or_default(),
            local_bank_unencrypted: session.account == Some(Account::Local)
                && memory_bank_db_key::keyring_unavailable_noted(&memory_bank_access::bank_file(&self.config.data_dir)),
        }
    }

    /// The language the person chose (`en`, `zh-CN`); `None` follows the OS.
    pub fn language(&self) -> Option<String> {
        self.prefs().language
    }

    /// Makes `org_id` the active org (it must be one of the user's).
    pub async fn set_active_org(&self, org_id: &str) -> Result<AppState, DesktopError> {
        {
            let mut session = self.session.write().await;
            if !session.orgs.iter().any(|o| o.id == org_id) {
                return Err(DesktopError::new(ErrorCode::OrganizationNotFound, "that organization is not one of yours"));
            }
            session.active_org = Some(org_id.to_owned());
        }
        self.update_prefs(|p| p.active_org = Some(org_id.to_owned()));
        Ok(self.state().await)
    }

    /// Changes UI preferences. `language: Some(None)` means follow the OS. Only
    /// [`crate::Desktop::set_prefs`] calls it: the session history must follow.
    pub(crate) async fn set_prefs(&self, patch: PrefsPatch) -> Result<AppState, DesktopError> {
        let PrefsPatch { memory_enabled, language, keep_archived_sessions, words_only, memory_scope } = patch;
        let was_words_only = self.prefs().words_only;
        self.update_prefs(|p| {
            if let Some(words_only) = words_only {
                p.words_only = words_only;
            }
            if let Some(enabled) = memory_enabled {
                p.memory_enabled = enabled;
            }
            if let Some(scope) = memory_scope {
                p.memory_scope = scope;
            }
            if let Some(keep) = keep_archived_sessions {
                p.keep_archived_sessions = keep;
            }
            if let Some(language) = language {
                p.language = language.map(|l| l.as_str().to_owned());
            }
        });
        // The local bank is opened again with or without its model, so turning search
        // by meaning off also stops making vectors and lets the model go.
        let local = matches!(self.session.read().await.account, Some(Account::Local));
        if local && self.prefs().words_only != was_words_only {
            let _ = self.connect().await;
        }
        Ok(self.state().await)
    }

    /// Replaces the extra session folders (each an absolute path; at most 20). Only
    /// [`crate::Desktop::set_session_roots`] calls it: the session history must follow.
    pub(crate) async fn set_session_roots(&self, roots: Vec<SessionRoot>) -> Result<AppState, DesktopError> {
        const MAX_ROOTS: usize = 20;
        if roots.len() > MAX_ROOTS {
            return Err(DesktopError::new(ErrorCode::InvalidRequest, format!("at most {MAX_ROOTS} session folders can be added")));
        }
        let mut clean: Vec<SessionRoot> = Vec::new();
        for root in roots {
            let path = root.path.trim().to_owned();
            if !std::path::Path::new(&path).is_absolute() {
                return Err(DesktopError::new(
                    ErrorCode::InvalidRequest,
                    format!("{path:?} is not an absolute path; give the full path of the tool's folder"),
                ));
            }
            if is_too_broad(std::path::Path::new(&path)) {
                return Err(DesktopError::new(
                    ErrorCode::InvalidRequest,
                    format!("{path:?} is the whole disk or your home folder; choose the tool's own folder inside it (e.g. ~/.claude/projects)"),
                ));
            }
            let root = SessionRoot {
                source: root.source,
                path,
            };
            if !clean.contains(&root) {
                clean.push(root);
            }
        }
        self.update_prefs(|p| p.session_roots = clean);
        Ok(self.state().await)
    }

    /// Whether sessions are kept after their tool deletes them.
    pub fn keeps_archived_sessions(&self) -> bool {
        self.prefs().keep_archived_sessions
    }

    /// The extra session folders, as the session library takes them.
    pub fn session_roots(&self) -> Vec<(memory_bank_sessions::Source, PathBuf)> {
        self.prefs().session_roots.into_iter().map(|r| (r.source, PathBuf::from(r.path))).collect()
    }

    /// Signs in to a team server: checks URL and token with `GET /v1/me` first, then
    /// keeps the token in the OS keyring. A failed check changes nothing.
    pub async fn sign_in_team(&self, url: &str, token: &str) -> Result<AppState, DesktopError> {
        let url = url.trim().trim_end_matches('/').to_owned();
        let client = Client::new(&url, token)?;
        client.me().await?;
        self.secrets.set(&url, token.trim()).map_err(|e| DesktopError::new(ErrorCode::Keyring, e))?;
        self.update_prefs(|p| {
            p.account = AccountKind::Team;
            p.team_url = Some(url.clone());
            p.active_org = None;
        });
        self.disconnect().await;
        self.attach(Account::Team { url, from_env: false }, client, None).await?;
        self.set_connect_error(None);
        Ok(self.state().await)
    }

    /// Switches to the embedded local service.
    pub async fn use_local(&self) -> Result<AppState, DesktopError> {
        self.update_prefs(|p| {
            p.account = AccountKind::Local;
            p.active_org = None;
        });
        self.connect().await?;
        Ok(self.state().await)
    }

    /// Signs out of the team server: deletes its token from the keyring.
    pub async fn sign_out(&self) -> Result<AppState, DesktopError> {
        if let Some(url) = self.prefs().team_url {
            self.secrets.delete(&url).map_err(|e| DesktopError::new(ErrorCode::Keyring, e))?;
        }
        self.update_prefs(|p| {
            p.account = AccountKind::Team;
            p.active_org = None;
        });
        self.set_connect_error(None);
        self.disconnect().await;
        Ok(self.state().await)
    }

    pub(crate) async fn client(&self) -> Result<Client, DesktopError> {
        self.session.read().await.client.clone().ok_or_else(|| DesktopError::new(ErrorCode::NoAccount, "not signed in"))
    }

    /// One page of memories in `org_id`: the person's own and the org's team bank.
    pub async fn list(&self, org_id: &str, limit: Option<u32>, cursor: Option<&str>) -> Result<ListResponse, DesktopError> {
        self.list_scoped(org_id, limit, cursor, None).await
    }

    /// One page of memories in `org_id` from the banks `scope` names (`None`: both),
    /// the panel's Mine / Team / All.
    pub async fn list_scoped(
        &self,
        org_id: &str,
        limit: Option<u32>,
        cursor: Option<&str>,
        scope: Option<BankScope>,
    ) -> Result<ListResponse, DesktopError> {
        Ok(self.client().await?.list(org_id, limit, cursor, scope).await?)
    }

    /// Whether search reads meaning, and how far the person's vectors are made.
    pub async fn search_status(&self, org_id: &str) -> Result<memory_bank_contract::wire::SearchStatus, DesktopError> {
        Ok(self.client().await?.search_status(org_id).await?)
    }

    /// Searches memories in `org_id`, by words only when the person chose it.
    pub async fn search(&self, org_id: &str, query: &str, limit: Option<u32>) -> Result<SearchResponse, DesktopError> {
        self.search_scoped(org_id, query, limit, None).await
    }

    /// Searches the banks `scope` names in `org_id` (`None`: both, ranked together).
    pub async fn search_scoped(
        &self,
        org_id: &str,
        query: &str,
        limit: Option<u32>,
        scope: Option<BankScope>,
    ) -> Result<SearchResponse, DesktopError> {
        Ok(self.client().await?.search(org_id, query, limit, self.prefs().words_only, scope).await?)
    }

    /// Saves a memory in `org_id` (the org active when the person pressed Save), as
    /// confirmed in the app (`confirmedVia: app`, whatever the caller said). Refuses
    /// what the service's gate refuses (a stored field that looks like a secret, a
    /// control character, the limits) before it leaves the app, even if the UI let it
    /// through.
    pub async fn save(
        &self,
        org_id: &str,
        mut request: SaveMemoryRequest,
    ) -> Result<Memory, DesktopError> {
        request.confirmed_via = Some(memory_bank_contract::wire::ConfirmedVia::App);
        through_the_gate(&request)?;
        Ok(self.client().await?.save(org_id, &request).await?.memory)
    }

    /// Schedules a delete with the account, user, client and org of this moment, on
    /// disk before it answers (so before the Undo toast shows).
    pub async fn schedule_delete(&self, org_id: &str, id: &str) -> Result<ScheduledDelete, DesktopError> {
        let (client, account, user_id) = {
            let session = self.session.read().await;
            let no_account = || DesktopError::new(ErrorCode::NoAccount, "not signed in");
            let client = session.client.clone().ok_or_else(no_account)?;
            let account = session.account.as_ref().map(account_key).ok_or_else(no_account)?;
            let user_id = session.user.as_ref().map(|u| u.id.clone()).ok_or_else(no_account)?;
            (client, account, user_id)
        };
        let commit_at = memory_bank_contract::Timestamp::now().unix_ms() + self.config.delete_timing.delay.as_millis() as i64;
        let record = JournalEntry { id: id.to_owned(), org_id: org_id.to_owned(), account, user_id, due_at: commit_at };
        self.deletes.schedule(record, client).map_err(|e| {
            DesktopError::new(ErrorCode::Internal, format!("{e}; nothing was deleted. Check that the app's data folder is writable."))
        })?;
        Ok(ScheduledDelete { id: id.to_owned(), commit_at })
    }

    /// Cancels a pending delete, in its undo window or waiting offline; false once it
    /// is being sent (its outcome is reported as usual).
    pub fn undo_delete(&self, id: &str) -> Result<bool, DesktopError> {
        self.deletes.undo(id).map_err(|e| DesktopError::new(ErrorCode::Internal, format!("{e}; the delete was not undone")))
    }

    /// Deletes not settled yet (in their undo window, being sent, or waiting offline),
    /// so the UI keeps their rows hidden, across restarts too.
    pub fn pending_deletes(&self) -> Vec<PendingDelete> {
        self.deletes.pending()
    }

    /// Sends every pending delete now and waits for them.
    pub async fn flush_deletes(&self) {
        self.deletes.flush().await;
    }

    /// Before the process exits: sends pending deletes and stops the local service.
    pub async fn shutdown(&self) {
        self.disconnect().await;
        self.deletes.stop();
    }
}

/// The journal's name for an account: its kind and, for a team server, its URL.
fn account_key(account: &Account) -> AccountKey {
    match account {
        Account::Local => AccountKey::Local,
        Account::Team { url, .. } => AccountKey::Team { url: url.clone() },
    }
}

impl Core {
    /// The person's memories worded much like `request.content` (see the service's
    /// `POST /v1/memory/similar`): the Remember dialog shows them before a save.
    pub async fn find_similar(&self, org_id: &str, request: FindSimilarRequest) -> Result<SimilarResponse, DesktopError> {
        Ok(self.client().await?.similar(org_id, &request).await?)
    }

    /// The person's memories that cite the session `session_id` (at most 100, newest
    /// first): the Sessions view marks them on the session and on the messages they cite.
    pub async fn memories_citing(&self, org_id: &str, session_id: &str) -> Result<CitingResponse, DesktopError> {
        Ok(self.client().await?.citing(org_id, session_id).await?)
    }

    /// Edits a memory in `org_id` as confirmed in the app, after the same checks the
    /// service makes (limits, secrets), so nothing that would be refused leaves the app.
    pub async fn edit_memory(&self, org_id: &str, id: &str, mut request: EditMemoryRequest) -> Result<Memory, DesktopError> {
        request.confirmed_via = Some(memory_bank_contract::wire::ConfirmedVia::App);
        validate_edit(request.clone()).map_err(refused)?;
        Ok(self.client().await?.edit(org_id, id, &request).await?)
    }

    /// A memory's earlier versions, most recently replaced first.
    pub async fn memory_revisions(&self, org_id: &str, id: &str) -> Result<RevisionListResponse, DesktopError> {
        Ok(self.client().await?.revisions(org_id, id).await?)
    }

    /// Makes an earlier version current again.
    pub async fn restore_revision(&self, org_id: &str, id: &str, revision_id: &str) -> Result<Memory, DesktopError> {
        Ok(self.client().await?.restore_revision(org_id, id, revision_id).await?)
    }
}

/// The service's gate, run in the app before anything is sent: what it refuses never
/// leaves the machine (a secret typed by mistake is not sent to a team server to be
/// refused there). The one check behind Save and Accept.
pub(crate) fn through_the_gate(request: &SaveMemoryRequest) -> Result<(), DesktopError> {
    memory_bank_contract::validate::validate_save(request.clone()).map(|_| ()).map_err(refused)
}

/// What the gate refused, as the UI shows it.
fn refused(refusal: Refused) -> DesktopError {
    match refusal {
        Refused::Invalid(details) => {
            let first = details.first().map(|d| d.message.clone()).unwrap_or_else(|| "nothing to change".into());
            DesktopError::invalid(first)
        }
        Refused::LooksLikeSecret(found) => secret_error(&found),
    }
}

/// The one message for text that looks like a secret, whatever was being saved.
fn secret_error(findings: &[memory_bank_contract::secrets::SecretFinding]) -> DesktopError {
    DesktopError::new(
        ErrorCode::LooksLikeSecret,
        format!(
            "This looks like a secret ({}). Remove it before saving: agents read memories as plain text.",
            memory_bank_contract::secrets::describe(findings)
        ),
    )
}

/// `/` (or a drive root) and the home folder itself hold far more than sessions: reading
/// them as a session folder would index the person's whole disk.
fn is_too_broad(path: &std::path::Path) -> bool {
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let is_root = resolved.parent().is_none();
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(std::path::PathBuf::from);
    let is_home = home.is_some_and(|home| std::fs::canonicalize(&home).unwrap_or(home) == resolved);
    is_root || is_home
}
