//! A lock file that lets one process at a time encrypt a plaintext file: two processes
//! opening it with its new key at once (the app and an agent's `memory-bank mcp`) would
//! otherwise write the same encrypted copy together.
//!
//! `flock` on Unix (released by the kernel if the process dies, so a crash never leaves
//! the file locked); the standard library's file lock elsewhere.

use std::path::Path;

/// Held until dropped.
pub struct FileLock {
    _file: std::fs::File,
}

impl FileLock {
    /// Waits for and takes the lock on `path`, creating the (empty) file if needed.
    pub fn acquire(path: &Path) -> std::io::Result<Self> {
        let with_path = |what: &str, e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot {what} {}: {e}", path.display()));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| with_path("create the lock file", e))?;
        lock(&file).map_err(|e| with_path("lock", e))?;
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
