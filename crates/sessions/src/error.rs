//! The one error of the session files (the index, its search file and the archive).
//! Below both: the archive reports its failures as the index does, since the library
//! shows them the same way, and neither module has to reach into the other for it.

use std::path::PathBuf;

use crate::keyed::CipherError;

/// A failure of the index itself (not of a source file, which is a [`crate::Problem`]).
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// SQLite failed.
    #[error("the session index failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The message search index could not be brought up to date (search still works,
    /// by scanning the stored texts).
    #[error("the message search index could not be updated: {0}")]
    Search(String),
    /// The archive file (`sessions-archive.sqlite`) could not be opened or written.
    #[error("the session archive at {path} cannot be used: {message}")]
    Archive {
        /// The archive file.
        path: PathBuf,
        /// What is wrong, and what to do.
        message: String,
    },
    /// The index could not be keyed (SQLCipher missing or not set up).
    #[error("the session index cannot be encrypted: {0}")]
    Cipher(String),
    /// The index file or its folder could not be created.
    #[error("could not open the session index at {path}: {source}")]
    Io {
        /// The index file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl From<CipherError> for IndexError {
    fn from(e: CipherError) -> Self {
        match e {
            CipherError::Sqlite(e) => IndexError::Sqlite(e),
            other => IndexError::Cipher(other.to_string()),
        }
    }
}
