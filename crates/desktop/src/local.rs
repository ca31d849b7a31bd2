//! The embedded local service: the real memory API on 127.0.0.1 over a SQLite file in
//! the app's data folder, so the app works with no account at all.

use std::path::Path;

use memory_bank_server::{HostCheck, ServeOptions};
use memory_bank_store::{Bank, TokenKind};
use tokio::sync::oneshot;

use crate::DesktopError;

use memory_bank_access::LocalAccess;
pub use memory_bank_access::{LOCAL_EMAIL, LOCAL_ORG};

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
        // The same bank, user and org agents reach through `memory-bank mcp` (it makes
        // the folder and the bank file private too).
        let local = LocalAccess::open(data_dir).await.map_err(|e| DesktopError::new(e.code.as_str(), e.message))?;
        let bank = local.bank().clone();
        let user_id = local.user_id().to_owned();
        // A run that ended without cleaning up (kill -9, power loss) left its token live.
        let leftover = bank
            .revoke_tokens_of_kind(&user_id, TokenKind::Local)
            .await?;
        if leftover > 0 {
            tracing::info!(leftover, "revoked the local tokens of an earlier run");
        }
        let token = bank.issue_token_of_kind(&user_id, TokenKind::Local).await?;
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
