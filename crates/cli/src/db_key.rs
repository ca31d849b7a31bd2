//! `memory-bank db status` and `memory-bank db rekey`: encryption at rest of the bank the
//! URL names, and where its key lives. Nothing here ever prints a key.

use std::path::Path;

use anyhow::bail;
use memory_bank_db_key::{FileState, KeySource};

use crate::database;

/// Prints whether the bank is encrypted and where its key is looked for.
/// `key_file`: the global `--db-key-file`, which the session archive's key comes from too.
pub async fn status(url: &str, key: &KeySource, key_file: Option<&Path>) -> anyhow::Result<()> {
    if database::is_mysql(url) {
        let store = database::open_mysql(url).await?;
        let report = store.encryption_report().await;
        println!("database: MySQL/MariaDB (encryption at rest is the server's: InnoDB tablespace encryption)");
        for line in report?.lines() {
            println!("{line}");
        }
        if let Ok(bank) = database::open(url, key).await {
            search_status(&bank).await?;
        }
        return Ok(());
    }
    let path = database::sqlite_path(url)?;
    let status = memory_bank_db_key::status(&path, key).await?;
    println!("bank: {}", status.path.display());
    let encrypted = match status.state {
        FileState::Encrypted => "yes",
        FileState::Plaintext => "no",
        FileState::Missing => "no (there is no bank there yet)",
    };
    println!("encrypted: {encrypted}");
    if memory_bank_db_key::keyring_unavailable_noted(&path) {
        println!(
            "note: no OS keyring answered when the bank was last opened, so it is not encrypted yet; it is on the first \
             open where the keyring answers (or give a key file with --db-key-file / MEMORY_BANK_DB_KEY_FILE)"
        );
    }
    let found = match (status.key_found, status.key_opens) {
        (None, _) => String::new(),
        (Some(false), _) => " (no key stored there yet)".into(),
        (Some(true), Some(true)) => " (found; it opens the bank)".into(),
        (Some(true), Some(false)) => " (found, but it does NOT open the bank)".into(),
        (Some(true), None) => " (found; the bank is encrypted with it on its next open)".into(),
    };
    println!("key: {}{found}", status.source);
    println!("cipher: {}", status.cipher.map_or("none (plain SQLite)".into(), |v| format!("SQLCipher {v}, AES-256")));
    let opens = match status.state {
        FileState::Plaintext => true,
        FileState::Encrypted => status.key_opens == Some(true),
        FileState::Missing => false,
    };
    if opens {
        search_status(&database::open(url, key).await?).await?;
    }
    archive_status(key_file).await
}

/// How search reads the bank: which terms, and how far an older bank's rewrite has come.
async fn search_status(bank: &memory_bank_store::Bank) -> anyhow::Result<()> {
    let terms = bank.terms_status().await?;
    if terms.done {
        println!("search: words and their forms (term scheme {})", terms.version);
    } else {
        let through = terms.done_through.map_or("not started".to_owned(), |id| format!("done through {id}"));
        println!(
            "search: words; older memories' terms are being rewritten for word forms (scheme {}, {through}); \
             search works meanwhile, and finds their exact words",
            terms.version
        );
    }
    println!("{}", bank.meaning_status().await?.line());
    Ok(())
}

/// The session archive of `memory-bank sessions` and `mcp` (the default index's), which
/// may hold the only copy of deleted sessions: whether it is encrypted, and its key.
async fn archive_status(key_file: Option<&Path>) -> anyhow::Result<()> {
    let Some(index) = crate::folders::session_index() else {
        return Ok(());
    };
    let archive = memory_bank_sessions::archive_path(&index);
    let source = crate::sessions::archive_key_source(&archive, key_file);
    let status = match memory_bank_db_key::status(&archive, &source).await {
        Ok(status) => status,
        Err(e) => {
            println!("session archive: {} (cannot check it: {e})", archive.display());
            index_status(&index);
            return Ok(());
        }
    };
    let encrypted = match (status.state, status.key_opens) {
        (FileState::Missing, _) => "no archive there yet",
        (FileState::Plaintext, _) => "not encrypted (it is on the next open with a key)",
        (FileState::Encrypted, Some(false)) => "encrypted; the key found does NOT open it",
        (FileState::Encrypted, Some(true)) => "encrypted; the key found opens it",
        (FileState::Encrypted, None) => "encrypted; no key found for it",
    };
    println!("session archive: {} ({encrypted}; key: {})", archive.display(), status.source);
    index_status(&index);
    Ok(())
}

/// The session index beside the archive: a cache that holds the archived sessions'
/// messages too, so it is encrypted with the archive's key whenever the archive is.
fn index_status(index: &Path) {
    let state = match memory_bank_sqlcipher_file::file_state(index) {
        Ok(FileState::Missing) => "no index there yet".to_string(),
        Ok(FileState::Encrypted) => "encrypted, with the session archive's key".to_string(),
        Ok(FileState::Plaintext) => {
            "not encrypted; it is rebuilt encrypted on the next open where the session archive is".to_string()
        }
        Err(e) => format!("cannot check it: {e}"),
    };
    println!("session index: {} ({state})", index.display());
}

/// Rekeys an encrypted SQLite bank.
pub async fn rekey(url: &str, key: &KeySource) -> anyhow::Result<()> {
    if database::is_mysql(url) {
        bail!("MySQL/MariaDB keys are the server's: rotate them in its key management plugin (see the README, \"Encryption at rest\")");
    }
    let path = database::sqlite_path(url)?;
    memory_bank_db_key::rekey_bank(&path, key).await?;
    println!("the bank {} has a new key, stored in {}", path.display(), key.describe());
    Ok(())
}
