//! What every encrypted SQLite file of Memory Bank shares (the bank, the session archive),
//! with no SQLite driver: the key type, the HMAC setting, telling an encrypted file from
//! a plaintext one by its first bytes, the lock under which one process at a time
//! encrypts a plaintext file, and flushing the folder after the encrypted copy replaced it.
//!
//! A crate of its own because the bank's code speaks sqlx and the session archive's
//! rusqlite: both take these from here, and the sessions crate links no sqlx for them.

mod key;
mod lock;
mod state;

pub use key::{DbKey, KeyFormatError, KEY_BYTES};
pub use lock::FileLock;
pub use state::{file_state, FileState};

/// Flushes the folder holding `path`, which makes a rename into it durable (POSIX: the
/// directory entry is written with the folder): the last step of replacing a plaintext
/// file by its encrypted copy. Does nothing where folders cannot be opened (Windows).
pub fn sync_parent_dir(path: &std::path::Path) -> std::io::Result<()> {
    #[cfg(unix)]
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::File::open(dir)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The HMAC every page of our encrypted files carries (`PRAGMA cipher_hmac_algorithm`,
/// given right after the key on every connection and for every encrypted copy). Part of
/// the file format: a reader must name it, SQLCipher's shell included. SHA-256 rather
/// than SQLCipher's default SHA-512 because processors hash it in hardware, which makes
/// reading a page about a third cheaper (BENCHMARKS.md, issue 17).
pub const HMAC_ALGORITHM: &str = "HMAC_SHA256";
