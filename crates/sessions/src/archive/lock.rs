//! A lock file that lets one process at a time encrypt the archive (the app and an agent's
//! `memory-bank mcp` may open it with its new key at the same moment, and would otherwise
//! write the same encrypted copy together). `flock`, released by the kernel if the process
//! dies, so a crash never leaves it locked; the standard library's file lock elsewhere.

use std::path::Path;

/// Held until dropped.
pub(super) struct FileLock {
    _file: std::fs::File,
}

impl FileLock {
    /// Waits for and takes the lock on `path`, creating the (empty) file if needed.
    pub(super) fn acquire(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
        lock(&file).map_err(|e| std::io::Error::new(e.kind(), format!("cannot lock {}: {e}", path.display())))?;
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
