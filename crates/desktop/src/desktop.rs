//! [`Desktop`]: the one state every command acts on. It owns the memory [`Core`] and the
//! session [`History`], so an action that touches both (the session folders) is one call
//! here, never two calls a command has to coordinate.

use std::path::PathBuf;
use std::sync::Arc;

use crate::deletes::Settled;
use crate::history::History;
use crate::prefs::{PrefsStore, SessionRoot};
use crate::secrets::SecretStore;
use crate::{AppState, Core, CoreConfig, DesktopError};

/// The desktop app without a window: memories, accounts and deletes ([`Core`]) plus the
/// agent sessions on this machine ([`History`]).
pub struct Desktop {
    core: Arc<Core>,
    history: History,
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
        let data_dir = config.data_dir.clone();
        let core = Core::start(config, prefs_store, secrets, on_settled).await;
        let history = History::start(&data_dir, &core.session_roots(), on_sessions_changed)?;
        Ok(Desktop { core: Arc::new(core), history })
    }

    /// Memories, accounts, preferences, deletes, the Inbox and Settings → Agents.
    pub fn core(&self) -> &Arc<Core> {
        &self.core
    }

    /// The agent sessions on this machine.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The data folder.
    pub fn data_dir(&self) -> PathBuf {
        self.core.config().data_dir.clone()
    }

    /// Replaces the extra session folders and reads them from now on.
    pub async fn set_session_roots(&self, roots: Vec<SessionRoot>) -> Result<AppState, DesktopError> {
        let state = self.core.set_session_roots(roots).await?;
        self.history.set_extra_roots(&self.core.session_roots())?;
        Ok(state)
    }

    /// Before the process exits: sends pending deletes and stops the local service.
    pub async fn shutdown(&self) {
        self.core.shutdown().await;
    }
}
