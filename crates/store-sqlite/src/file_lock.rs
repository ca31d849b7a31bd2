//! A lock file that lets one process at a time encrypt a bank: two processes opening a
//! plaintext bank with its new key at once (the app and an agent's `memory-bank mcp`)
//! would otherwise write the same encrypted copy together.
//!
//! `flock` on Unix (released by the kernel if the process dies, so a crash never leaves
//! the bank locked); the standard library's file lock elsewhere.

use std::path::Path;

use memory_bank_store::StoreError;

/// Held until dropped.
pub(crate) struct FileLock {
    _file: std::fs::File,
}

impl FileLock {
    /// Waits for and takes the lock on `path`, creating the (empty) file if needed.
    pub(crate) fn acquire(path: &Path) -> Result<Self, StoreError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| StoreError::Invalid(format!("cannot create the lock file {}: {e}", path.display())))?;
        lock(&file).map_err(|e| StoreError::Invalid(format!("cannot lock {}: {e}", path.display())))?;
        Ok(Self { _file: file })
    }
}

#[cfg(unix)]
fn lock(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    loop {
        // SAFETY: flock on a descriptor this process owns; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

#[cfg(not(unix))]
#[allow(clippy::incompatible_msrv)]
fn lock(file: &std::fs::File) -> std::io::Result<()> {
    file.lock()
}
