//! Choosing and opening the database from `--database-url`.

use std::sync::Arc;

use anyhow::{bail, Context as _};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;

/// The URL to use: the flag/env value, or a SQLite file in the OS data folder.
pub fn resolve_url(given: Option<&str>) -> anyhow::Result<String> {
    if let Some(url) = given.map(str::trim).filter(|u| !u.is_empty()) {
        return Ok(url.to_owned());
    }
    let dirs = directories::ProjectDirs::from("", "", "memory-bank")
        .context("cannot find a data folder for this user; pass --database-url sqlite:///path/to/memory.db")?;
    Ok(format!("sqlite://{}", dirs.data_dir().join("memory.db").display()))
}

/// Opens the store the URL names and wraps it in a [`Bank`].
pub async fn open(url: &str) -> anyhow::Result<Bank> {
    let store = if url.starts_with("sqlite:") {
        SqliteStore::open(url).await.with_context(|| format!("cannot open the SQLite database {url}"))?
    } else if url.starts_with("mysql:") || url.starts_with("mariadb:") {
        bail!("this build does not include the MySQL/MariaDB backend yet; use sqlite:///path/to/memory.db")
    } else {
        bail!("unsupported database URL {url:?}; use sqlite:///path/to/memory.db")
    };
    Ok(Bank::new(Arc::new(store)))
}
