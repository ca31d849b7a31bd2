//! Where the CLI keeps things. The person's data (the local bank `memory-bank mcp` uses,
//! and the session index and archive of `sessions` and `mcp`) is in the app's data
//! folder, shared with the desktop app, so one index and one archive serve all three. The
//! service's default SQLite bank (`serve`, `admin`, `db` without `--database-url`) is a
//! different bank, with its own users and tokens, in the CLI's own folder (`memory-bank`);
//! the session data that releases before kept there too is taken into the app's folder
//! ([`earlier_session_index`], `sessions.rs`).

use std::path::PathBuf;

/// The session index's file name.
const INDEX_FILE: &str = "sessions-index.sqlite";

/// The CLI's own data folder: the service's default bank.
pub(crate) fn service_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "memory-bank").map(|d| d.data_dir().to_path_buf())
}

/// The default session index: in `$MEMORY_BANK_DATA_DIR`, else the app's data folder.
pub(crate) fn session_index() -> Option<PathBuf> {
    memory_bank_access::app_data_dir().map(|d| d.join(INDEX_FILE))
}

/// Where releases before kept the default session index (and the archive beside it): the
/// CLI's own folder, unless `$MEMORY_BANK_DATA_DIR` chose one folder for everything (then
/// nothing moved).
pub(crate) fn earlier_session_index() -> Option<PathBuf> {
    if std::env::var_os("MEMORY_BANK_DATA_DIR").is_some_and(|d| !d.is_empty()) {
        return None;
    }
    service_data_dir().map(|d| d.join(INDEX_FILE)).filter(|earlier| Some(earlier) != session_index().as_ref())
}
