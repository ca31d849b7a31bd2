//! [`Desktop`]: the one state every command acts on. It owns the memory [`Core`] and the
//! session [`History`], so an action that touches both (the session folders) is one call
//! here, never two calls a command has to coordinate.

use std::path::PathBuf;
use std::sync::Arc;

use memory_bank_contract::ErrorCode;

use crate::deletes::Settled;
use crate::transfer::{ExportOutcome, FilePicker, ImportOutcome, TransferProgress};
use crate::history::History;
use crate::prefs::{PrefsStore, SessionRoot};
use crate::secrets::SecretStore;
use crate::{AppState, Core, CoreConfig, DesktopError};

/// The desktop app without a window: memories, accounts and deletes ([`Core`]) plus the
/// agent sessions on this machine ([`History`]).
pub struct Desktop {
    core: Arc<Core>,
    /// The session history, or why it could not start (its archive's key missing, say):
    /// memories work without it, and every session command answers that error.
    history: Result<History, DesktopError>,
    files: Arc<dyn FilePicker>,
    on_transfer_progress: Arc<dyn Fn(TransferProgress) + Send + Sync>,
}

/// Without a window there is no file dialog: exports and imports are cancelled.
struct NoFileDialog;

impl FilePicker for NoFileDialog {
    fn export_path(&self, _suggested_name: &str) -> Option<PathBuf> {
        None
    }
    fn import_path(&self) -> Option<PathBuf> {
        None
    }
    fn chat_export_path(&self) -> Option<PathBuf> {
        None
    }
}

impl Desktop {
    /// Starts the core (see [`Core::start`]), then the session history over the folders
    /// its preferences add, in `data_dir`. `on_settled` runs after every delete attempt,
    /// `on_sessions_changed` after a refresh of the session index that changed something.
    pub async fn start(
        config: CoreConfig,
        prefs_store: Box<dyn PrefsStore>,
        secrets: Box<dyn SecretStore>,
        on_settled: impl Fn(Settled) + Send + Sync + 'static,
        on_sessions_changed: impl Fn() + Send + Sync + 'static,
    ) -> Result<Desktop, DesktopError> {
        let (data_dir, bank_key) = (config.data_dir.clone(), config.db_key.clone());
        let core = Core::start(config, prefs_store, secrets, on_settled).await;
        let history = History::start(&data_dir, &core.session_roots(), &bank_key, on_sessions_changed);
        match &history {
            Ok(history) => history.set_keep_archived(core.keeps_archived_sessions()),
            Err(err) => tracing::warn!(code = %err.code, "the session history is unavailable: {}", err.message),
        }
        Ok(Desktop { core: Arc::new(core), history, files: Arc::new(NoFileDialog), on_transfer_progress: Arc::new(|_| {}) })
    }

    /// This desktop with the system's file dialog for Settings → Data, and where their
    /// progress goes (the `transfer-progress` event).
    pub fn with_files(
        mut self,
        picker: impl FilePicker,
        on_progress: impl Fn(TransferProgress) + Send + Sync + 'static,
    ) -> Self {
        self.files = Arc::new(picker);
        self.on_transfer_progress = Arc::new(on_progress);
        self
    }

    /// Asks where to export, then writes every memory there (see [`crate::transfer`]).
    pub async fn export_memories(&self, org_id: &str) -> Result<ExportOutcome, DesktopError> {
        let picker = self.files.clone();
        let day = &memory_bank_contract::Timestamp::now().to_string()[..10];
        let name = format!("memory-bank-export-{day}.jsonl");
        let chosen = tokio::task::spawn_blocking(move || picker.export_path(&name)).await;
        let Some(path) = chosen.map_err(|e| DesktopError::internal(e.to_string()))? else {
            return Ok(ExportOutcome { path: None, memories: 0 });
        };
        let memories = self.core.export_to_file(org_id, &path, self.on_transfer_progress.as_ref()).await?;
        Ok(ExportOutcome { path: Some(path.display().to_string()), memories })
    }

    /// Asks which export to import, then imports it (see [`crate::transfer`]).
    pub async fn import_memories(&self, args: crate::transfer::ImportArgs) -> Result<ImportOutcome, DesktopError> {
        let picker = self.files.clone();
        let chosen = tokio::task::spawn_blocking(move || picker.import_path()).await;
        let Some(path) = chosen.map_err(|e| DesktopError::internal(e.to_string()))? else {
            return Ok(ImportOutcome { path: None, report: Default::default() });
        };
        let on_conflict = args.on_conflict.unwrap_or_default();
        let report = self.core.import_from_file(&args.org_id, &path, on_conflict, self.on_transfer_progress.as_ref()).await?;
        Ok(ImportOutcome { path: Some(path.display().to_string()), report })
    }

    /// Settings → Data → Import chats: a ChatGPT or Claude.ai export, picked in the system's
    /// dialog, kept in the data folder and read into the session history from now on (see
    /// `memory_bank_sessions::import_chats`).
    pub async fn import_chats(&self) -> Result<crate::transfer::ImportChatsOutcome, DesktopError> {
        let picker = self.files.clone();
        let chosen = tokio::task::spawn_blocking(move || picker.chat_export_path()).await;
        let Some(path) = chosen.map_err(|e| DesktopError::internal(e.to_string()))? else {
            return Ok(crate::transfer::ImportChatsOutcome { path: None, imported: None });
        };
        let data_dir = self.data_dir();
        let file = path.clone();
        let imported = tokio::task::spawn_blocking(move || memory_bank_sessions::import_chats(&file, &data_dir))
            .await
            .map_err(|e| DesktopError::internal(e.to_string()))?
            .map_err(|e| {
                let code = match e {
                    memory_bank_sessions::ImportError::NotAnExport { .. } => ErrorCode::InvalidRequest,
                    _ => ErrorCode::File,
                };
                DesktopError::new(code, e.to_string())
            })?;
        // Read again now: the imports' folder may be new, and so not watched yet.
        if let Ok(history) = &self.history {
            history.set_extra_roots(&self.core.session_roots())?;
        }
        Ok(crate::transfer::ImportChatsOutcome { path: Some(path.display().to_string()), imported: Some(imported) })
    }

    /// Memories, accounts, preferences, deletes, the Inbox and Settings → Agents.
    pub fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// The agent sessions on this machine, or why they cannot be read.
    pub fn history(&self) -> Result<&History, DesktopError> {
        self.history.as_ref().map_err(Clone::clone)
    }

    /// The data folder.
    pub fn data_dir(&self) -> PathBuf {
        self.core.config().data_dir.clone()
    }

    /// Replaces the extra session folders and reads them from now on.
    pub async fn set_session_roots(&self, roots: Vec<SessionRoot>) -> Result<AppState, DesktopError> {
        let state = self.core.set_session_roots(roots).await?;
        if let Ok(history) = &self.history {
            history.set_extra_roots(&self.core.session_roots())?;
        }
        Ok(state)
    }

    /// Every session source: found here or not, its folders, and whether it is read.
    pub fn session_sources(&self) -> Result<Vec<memory_bank_sessions::SourceFolders>, DesktopError> {
        self.history()?.sources(&self.core.session_roots())
    }

    /// Turns a session source on or off (for the app, `memory-bank sessions` and `mcp`).
    pub fn set_source_enabled(
        &self,
        source: memory_bank_sessions::Source,
        enabled: bool,
    ) -> Result<Vec<memory_bank_sessions::SourceFolders>, DesktopError> {
        let history = self.history()?;
        history.set_source_enabled(source, enabled, &self.core.session_roots())?;
        history.sources(&self.core.session_roots())
    }

    /// Changes UI preferences; "keep archived sessions" also tells the session history.
    pub async fn set_prefs(&self, patch: crate::prefs::PrefsPatch) -> Result<AppState, DesktopError> {
        let state = self.core.set_prefs(patch).await?;
        if let Ok(history) = &self.history {
            history.set_keep_archived(state.prefs.keep_archived_sessions);
        }
        Ok(state)
    }

    /// Before the process exits: sends pending deletes and stops the local service.
    pub async fn shutdown(&self) {
        self.core.shutdown().await;
    }
}
