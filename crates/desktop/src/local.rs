//! The embedded local service: the real memory API on 127.0.0.1 over the person's own
//! bank in the app's data folder, so the app works with no account at all. The service
//! and the local account are the server crate's ([`memory_bank_server::local`]).

use std::path::Path;

use memory_bank_access::LocalAccess;
use memory_bank_db_key::KeySource;
pub use memory_bank_server::local::{LocalService, LOCAL_EMAIL, LOCAL_ORG};

use crate::DesktopError;

/// Opens (creating if needed) `data_dir/memory.db`, private to this user and encrypted
/// with the key from `key` (the OS keyring by default), with the local user and org
/// provisioned: the same bank, user and org agents reach through `memory-bank mcp`.
/// Then serves it on a free loopback port.
/// `words_only`: the person's "Search by words only" (no model, no vectors made).
pub async fn start_local_service(data_dir: &Path, key: &KeySource, words_only: bool) -> Result<LocalService, DesktopError> {
    let local = LocalAccess::open_searching(data_dir, key, words_only).await.map_err(|e| DesktopError::new(e.code, e.message))?;
    LocalService::start(local.bank().clone(), local.user_id())
        .await
        .map_err(|e| DesktopError::internal(e.to_string()))
}
