//! A rusqlite connection to files SQLCipher encrypts under one of Memory Bank's keys: the
//! archive (`archive/cipher.rs`) and the index with its search file (`index/mod.rs`) are
//! keyed the same way, here. The key is always the raw-key literal of a [`DbKey`]
//! (hexadecimal digits only, so it cannot change the statement it is put in), bound as a
//! parameter wherever SQL takes one, and never logged.

use std::sync::OnceLock;

use memory_bank_sqlcipher_file::{DbKey, HMAC_ALGORITHM};
use rusqlite::{params, Connection, ErrorCode};

/// Why a connection could not be keyed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CipherError {
    /// SQLite failed (a wrong key shows as "file is not a database": [`is_not_a_database`]).
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// Plain SQLite ignores `PRAGMA key`: nothing is written unencrypted while claiming a key.
    #[error("this build of Memory Bank has no SQLCipher, so it cannot encrypt it; report this")]
    NoCipher,
    /// SQLCipher's process-wide settings could not be made ours ([`prepare_process`]).
    #[error("SQLCipher could not be set up: {0}; report this")]
    Setup(String),
}

/// Keys a connection that has run nothing yet (`PRAGMA key` must come before anything
/// reads the file) with `key` and our HMAC. It does not check that the key opens the
/// file: the first read does ("file is not a database" when it does not).
pub(crate) fn apply(conn: &Connection, key: &DbKey) -> Result<(), CipherError> {
    prepare_process()?;
    conn.execute_batch(&format!("PRAGMA key = {}; PRAGMA cipher_hmac_algorithm = {HMAC_ALGORITHM};", key.pragma_value()))?;
    let cipher: Option<String> = conn.query_row("PRAGMA cipher_version", [], |r| r.get(0)).ok();
    if cipher.is_none() {
        return Err(CipherError::NoCipher);
    }
    Ok(())
}

/// Attaches the file at `path` as `schema` (one of this crate's fixed names), encrypted
/// under `key`, or plaintext without one (on a connection that has no key either).
pub(crate) fn attach(conn: &Connection, path: &str, schema: &'static str, key: Option<&DbKey>) -> Result<(), CipherError> {
    let Some(key) = key else {
        conn.execute(&format!("ATTACH DATABASE ?1 AS {schema}"), [path])?;
        return Ok(());
    };
    prepare_process()?;
    conn.execute(&format!("ATTACH DATABASE ?1 AS {schema} KEY ?2"), params![path, key.raw_literal()])?;
    // Named for the file too (ATTACH already read an existing file with the process
    // default, see `prepare_process`): the HMAC is part of the file's format.
    conn.execute_batch(&format!("PRAGMA {schema}.cipher_hmac_algorithm = {HMAC_ALGORITHM};"))?;
    Ok(())
}

/// Whether SQLite found no database it can read: a wrong key, a plaintext file opened
/// with a key, an encrypted one without, or no SQLite file at all.
pub(crate) fn is_not_a_database(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(ErrorCode::NotADatabase)
}

/// Once per process: SQLCipher's own log off (it prints "error decrypting page 1" for a
/// wrong key to stderr, which is the CLI's error channel and the MCP server's log), and
/// our HMAC as SQLCipher's default. ATTACH reads an existing file's first page before any
/// `PRAGMA schema.cipher_hmac_algorithm` could be given, so with SQLCipher's default
/// (SHA-512) an attached file of ours would never open. Every encrypted file of Memory
/// Bank uses [`HMAC_ALGORITHM`], and every connection still names it, so the default
/// changes nothing else.
fn prepare_process() -> Result<(), CipherError> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    let done = DONE.get_or_init(|| {
        let conn = Connection::open_in_memory().map_err(|e| e.to_string())?;
        if let Err(e) = conn.execute_batch("PRAGMA cipher_log_level = NONE;") {
            tracing::debug!(error = %e, "cannot turn SQLCipher's log off");
        }
        // A setting answers nothing; reading it back tells whether it took.
        let _ = conn.execute_batch(&format!("PRAGMA cipher_default_hmac_algorithm = {HMAC_ALGORITHM};"));
        let now: Option<String> = conn.query_row("PRAGMA cipher_default_hmac_algorithm", [], |r| r.get(0)).ok();
        match now {
            Some(now) if now.eq_ignore_ascii_case(HMAC_ALGORITHM) => Ok(()),
            // No SQLCipher at all: `apply` says so.
            None => Ok(()),
            Some(other) => Err(format!("its default HMAC is {other}, not {HMAC_ALGORITHM}")),
        }
    });
    done.clone().map_err(CipherError::Setup)
}
