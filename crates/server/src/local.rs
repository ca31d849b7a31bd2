//! The local account and the embedded local service: one person's bank, served on
//! 127.0.0.1 only. The desktop app serves it this way, `memory-bank mcp` opens the same
//! bank directly, and `scripts/serve.sh` provisions the same account, so all of them act
//! as one local user in one org.

use memory_bank_store::{Bank, StoreError, TokenKind};
use tokio::sync::oneshot;

use crate::{HostCheck, ServeOptions};

/// Email of the one local user (the desktop app's, its agents' and `scripts/serve.sh`'s).
pub const LOCAL_EMAIL: &str = "me@local.memory-bank";
/// Name of the local user's org.
pub const LOCAL_ORG: &str = "Personal";

/// The local user and their org (ids), created on first use. Two processes starting at
/// once may race: the loser of the unique email finds the winner's user.
pub async fn provision_local_account(bank: &Bank) -> Result<(String, String), StoreError> {
    let find = || async { Ok::<_, StoreError>(bank.list_users().await?.into_iter().find(|u| u.email == LOCAL_EMAIL)) };
    let user = match find().await? {
        Some(user) => user,
        None => match bank.add_user(LOCAL_EMAIL).await {
            Ok(user) => user,
            Err(StoreError::Conflict(_)) => find().await?.ok_or_else(|| StoreError::NotFound("local user".into()))?,
            Err(other) => return Err(other),
        },
    };
    let org = match bank.user_orgs(&user.id).await?.into_iter().next() {
        Some(org) => org,
        None => {
            let org = bank.add_org(LOCAL_ORG).await?;
            bank.add_member(&org.id, &user.id).await?;
            org
        }
    };
    Ok((user.id, org.id))
}

/// Why the local service did not start.
#[derive(Debug, thiserror::Error)]
pub enum LocalServiceError {
    /// Its bank refused to issue or revoke the run's token.
    #[error("the local memory bank failed: {0}")]
    Store(#[from] StoreError),
    /// No loopback port could be opened.
    #[error("cannot start the local memory service: {0}")]
    Listen(#[from] std::io::Error),
}

/// A running local service. Dropping it stops the server; [`LocalService::stop`] also
/// revokes its token.
pub struct LocalService {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// A token issued for this run only (kept in memory, never written out).
    pub token: String,
    bank: Bank,
    shutdown: Option<oneshot::Sender<()>>,
}

impl LocalService {
    /// Serves `bank` on a free loopback port with a fresh token of `user_id`'s, after
    /// revoking the tokens an earlier run left live (kill -9, power loss).
    pub async fn start(bank: Bank, user_id: &str) -> Result<Self, LocalServiceError> {
        let leftover = bank.revoke_tokens_of_kind(user_id, TokenKind::Local).await?;
        if leftover > 0 {
            tracing::info!(leftover, "revoked the local tokens of an earlier run");
        }
        let token = bank.issue_token_of_kind(user_id, TokenKind::Local).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (tx, rx) = oneshot::channel::<()>();
        // Only this service's own loopback names: a web page rebound to 127.0.0.1 sends
        // its own host name and is refused.
        let options = ServeOptions { host_check: HostCheck::loopback(address.port()), ..Default::default() };
        let served = bank.clone();
        tokio::spawn(async move {
            let stop = async move {
                let _ = rx.await;
            };
            if let Err(err) = crate::serve(listener, served, options, stop).await {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `scripts/serve.sh` reads the account from this file's source lines, so a rewording
    /// here must not leave it provisioning another user.
    #[test]
    fn serve_sh_reads_these_constants_from_this_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let source = std::fs::read_to_string(root.join("crates/server/src/local.rs")).unwrap();
        let script = std::fs::read_to_string(root.join("scripts/serve.sh")).unwrap();
        for (name, value) in [("LOCAL_EMAIL", LOCAL_EMAIL), ("LOCAL_ORG", LOCAL_ORG)] {
            assert!(source.lines().any(|l| l == format!("pub const {name}: &str = \"{value}\";")), "{name}");
            assert!(script.contains(&format!("local_const {name}")), "serve.sh does not read {name}");
        }
    }
}
