//! Choosing and opening the database from `--database-url`.
//!
//! SQLite is embedded: opening a file creates and migrates it. A MySQL/MariaDB
//! database is shared by many processes and changed only by an operator, so opening
//! one never migrates it: commands that use it require the schema to be current and
//! name the `memory-bank db …` command that makes it so.

use std::sync::Arc;

use std::path::PathBuf;

use anyhow::{bail, Context as _};
use memory_bank_db_key::{KeySource, KeyringEntry};
use memory_bank_store::Bank;
use memory_bank_store_mysql::{MySqlStore, SchemaState};

/// The URL to use: the flag/env value, or a SQLite file in the CLI's data folder, which
/// is made private (`0700`, its files `0600`: a folder an earlier release made readable is
/// tightened).
pub fn resolve_url(given: Option<&str>) -> anyhow::Result<String> {
    if let Some(url) = given.map(str::trim).filter(|u| !u.is_empty()) {
        return Ok(url.to_owned());
    }
    let dir = crate::folders::service_data_dir()
        .context("cannot find a data folder for this user; pass --database-url sqlite:///path/to/memory.db")?;
    memory_bank_private_files::secure_data_dir(&dir)
        .with_context(|| format!("cannot prepare the data folder {}; pass --database-url to use another", dir.display()))?;
    Ok(format!("sqlite://{}", dir.join("memory.db").display()))
}

/// How the global key options say to find a SQLite bank's key: `--db-key-file` (or
/// `MEMORY_BANK_DB_KEY_FILE`), `--db-key-keyring` (the OS keyring entry of that bank
/// file, the one the desktop app makes for its bank), or no key.
pub fn key_source(url: &str, key_file: Option<PathBuf>, keyring: bool) -> anyhow::Result<KeySource> {
    if is_mysql(url) {
        if key_file.is_some() || keyring {
            tracing::warn!(
                "--db-key-file and --db-key-keyring apply to SQLite banks; a MySQL/MariaDB server encrypts its \
                 tables itself (see the README, \"Encryption at rest\")"
            );
        }
        return Ok(KeySource::None);
    }
    Ok(match (key_file, keyring) {
        (Some(_), true) => bail!("give the database key one way: --db-key-file (MEMORY_BANK_DB_KEY_FILE) or --db-key-keyring, not both"),
        (Some(path), false) => KeySource::File(path),
        (None, true) => {
            let path = sqlite_path(url)?;
            KeySource::Keyring { entry: KeyringEntry::for_bank(&path), plaintext_without_keyring: false }
        }
        (None, false) => KeySource::None,
    })
}

/// The file of a SQLite URL.
pub fn sqlite_path(url: &str) -> anyhow::Result<PathBuf> {
    memory_bank_store_sqlite::bank_path(url)?
        .with_context(|| format!("{url} is an in-memory database; there is no file to encrypt or look at"))
}

pub fn is_mysql(url: &str) -> bool {
    url.starts_with("mysql:") || url.starts_with("mariadb:")
}

/// Opens the store the URL names for everyday use (`serve`, `admin`). A MySQL
/// database must already be bootstrapped and migrated.
pub async fn open(url: &str, key: &KeySource) -> anyhow::Result<Bank> {
    if !is_mysql(url) {
        return open_sqlite(url, key).await;
    }
    let store = open_mysql(url).await?;
    let shown = redact(url);
    match store.schema_state().await? {
        SchemaState::Current => {}
        SchemaState::Empty => bail!(
            "the database {shown} has no Memory Bank tables yet; run `memory-bank db bootstrap` \
             (with the same --database-url) once to create them"
        ),
        SchemaState::Untracked | SchemaState::Behind { .. } => bail!(
            "the database {shown} has an older Memory Bank schema; run `memory-bank db migrate` \
             (with the same --database-url) to upgrade it"
        ),
        SchemaState::Ahead => bail!(
            "the database {shown} was migrated by a newer memory-bank than this one; upgrade memory-bank \
             before using it"
        ),
    }
    Ok(with_search(Bank::new(Arc::new(store))))
}

/// Opens the store for `db bootstrap` / `db migrate`, whatever state its schema is in.
pub async fn open_for_maintenance(url: &str, key: &KeySource) -> anyhow::Result<Bank> {
    if !is_mysql(url) {
        return open_sqlite(url, key).await;
    }
    Ok(with_search(Bank::new(Arc::new(open_mysql(url).await?))))
}

async fn open_sqlite(url: &str, key: &KeySource) -> anyhow::Result<Bank> {
    let store = if url.starts_with("sqlite:") {
        memory_bank_db_key::open_bank(url, key).await.with_context(|| format!("cannot open the SQLite database {url}"))?
    } else {
        bail!("unsupported database URL {url:?}; use sqlite:///path/to/memory.db or mysql://user:password@host:3306/memory_bank")
    };
    Ok(with_search(Bank::new(Arc::new(store))))
}

pub async fn open_mysql(url: &str) -> anyhow::Result<MySqlStore> {
    MySqlStore::open(url).await.with_context(|| format!("cannot open the MySQL database {}", redact(url)))
}

/// The URL with its password replaced, for messages.
fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else { return url.to_owned() };
    let authority_end = url[scheme_end..].find(['/', '?']).map_or(url.len(), |i| scheme_end + i);
    let authority = &url[scheme_end..authority_end];
    match authority.rfind('@').and_then(|at| authority[..at].find(':').map(|colon| (colon, at))) {
        Some((colon, at)) => format!("{}{}:***{}{}", &url[..scheme_end], &authority[..colon], &authority[at..], &url[authority_end..]),
        None => url.to_owned(),
    }
}

/// The bank searching by meaning too, unless `--words-only` / `MEMORY_BANK_WORDS_ONLY`.
fn with_search(bank: Bank) -> Bank {
    memory_bank_meaning::attach(bank, memory_bank_meaning::words_only_from_env())
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_never_reach_messages() {
        assert_eq!(redact("mysql://app:s3cret@db:3306/memory"), "mysql://app:***@db:3306/memory");
        assert_eq!(redact("mysql://app:p@ss@db/memory"), "mysql://app:***@db/memory");
        assert_eq!(redact("mysql://root@127.0.0.1:3306/memory"), "mysql://root@127.0.0.1:3306/memory");
        assert_eq!(redact("sqlite:///tmp/x.db"), "sqlite:///tmp/x.db");
    }
}
