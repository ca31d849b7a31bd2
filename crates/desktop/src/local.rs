//! The embedded local service: the real memory API on 127.0.0.1 over a SQLite file in
//! the app's data folder, so the app works with no account at all.

use std::path::Path;
use std::sync::Arc;

use memory_bank_server::{HostCheck, ServeOptions};
use memory_bank_store::{Bank, TokenKind};
use memory_bank_store_sqlite::SqliteStore;
use tokio::sync::oneshot;

use crate::DesktopError;

/// Email of the one local user the app provisions on first run.
pub const LOCAL_EMAIL: &str = "me@local.memory-bank";
/// Name of the local user's org.
pub const LOCAL_ORG: &str = "Personal";

/// A running embedded service. Dropping it stops the server and revokes its token.
pub struct LocalService {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// A token issued for this run only (kept in memory, never written out).
    pub token: String,
    bank: Bank,
    shutdown: Option<oneshot::Sender<()>>,
}

impl LocalService {
    /// Opens (creating if needed) `data_dir/memory.db`, provisions the local user and
    /// org on first run, and serves the API on a free loopback port.
    pub async fn start(data_dir: &Path) -> Result<Self, DesktopError> {
        crate::private_files::secure_data_dir(data_dir)?;
        let url = format!("sqlite://{}", data_dir.join("memory.db").display());
        let store = SqliteStore::open(&url).await?;
        // A bank created just now has the process's umask; the app sets it private,
        // but this service may run in other processes too.
        crate::private_files::secure_data_dir(data_dir)?;
        let bank = Bank::new(Arc::new(store));
        bank.assert_search_index().await?;
        let user = match bank.list_users().await?.into_iter().find(|u| u.email == LOCAL_EMAIL) {
            Some(user) => user,
            None => bank.add_user(LOCAL_EMAIL).await?,
        };
        if bank.user_orgs(&user.id).await?.is_empty() {
            let org = bank.add_org(LOCAL_ORG).await?;
            bank.add_member(&org.id, &user.id).await?;
        }
        // A run that ended without cleaning up (kill -9, power loss) left its token live.
        let leftover = bank
            .revoke_tokens_of_kind(&user.id, TokenKind::Local)
            .await?;
        if leftover > 0 {
            tracing::info!(leftover, "revoked the local tokens of an earlier run");
        }
        let token = bank.issue_token_of_kind(&user.id, TokenKind::Local).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| {
                DesktopError::new(
                    "internal",
                    format!("cannot start the local memory service: {e}"),
                )
            })?;
        let address = listener
            .local_addr()
            .map_err(|e| DesktopError::new("internal", e.to_string()))?;
        let (tx, rx) = oneshot::channel::<()>();
        let served = bank.clone();
        // Only this service's own loopback names: a web page rebound to 127.0.0.1
        // sends its own host name and is refused.
        let options = ServeOptions {
            host_check: HostCheck::Loopback {
                port: address.port(),
            },
            ..Default::default()
        };
        tokio::spawn(async move {
            let stop = async move {
                let _ = rx.await;
            };
            if let Err(err) = memory_bank_server::serve(listener, served, options, stop).await {
                tracing::error!(error = %err, "local memory service stopped");
            }
        });
        tracing::info!(%address, "local memory service started");
        Ok(Self { url: format!("http://{address}"), token, bank, shutdown: Some(tx) })
    }

    /// Stops serving and revokes this run's token.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Err(err) = self.bank.revoke_token(&self.token).await {
            tracing::warn!(error = %err, "could not revoke the local token");
        }
    }
}

impl Drop for LocalService {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
