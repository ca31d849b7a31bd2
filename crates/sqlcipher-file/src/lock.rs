//! A lock file that lets one process at a time encrypt a plaintext file: two processes
//! opening it with its new key at once (the app and an agent's `memory-bank mcp`) would
//! otherwise write the same encrypted copy together. Shared, it lets openers keep one
//! that deletes and remakes a file (the session index's rebuild) from running under them.
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
        Self::take(path, Mode::Exclusive)
    }

    /// Waits for and takes `path`'s lock shared: any number of holders at once, none while
    /// [`FileLock::acquire`]'s holder has it. A holder must drop this before it asks for
    /// the exclusive lock, which would otherwise wait for itself.
    pub fn acquire_shared(path: &Path) -> std::io::Result<Self> {
        Self::take(path, Mode::Shared)
    }

    fn take(path: &Path, mode: Mode) -> std::io::Result<Self> {
        let with_path = |what: &str, e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot {what} {}: {e}", path.display()));
        // Private like every file beside the databases it guards (it holds nothing, but
        // a readable one would say which files are ours).
        let file = memory_bank_private_files::open_options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| with_path("create the lock file", e))?;
        lock(&file, mode).map_err(|e| with_path("lock", e))?;
        Ok(Self { _file: file })
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Exclusive,
    Shared,
}

#[cfg(unix)]
fn lock(file: &std::fs::File, mode: Mode) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    let operation = match mode {
        Mode::Exclusive => libc::LOCK_EX,
        Mode::Shared => libc::LOCK_SH,
    };
    loop {
        // SAFETY: flock on a descriptor this process owns; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
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
fn lock(file: &std::fs::File, mode: Mode) -> std::io::Result<()> {
    match mode {
        Mode::Exclusive => file.lock(),
        Mode::Shared => file.lock_shared(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Whether `take` gets the lock while `held` is held, waiting up to `wait` for it.
    fn gets_it_beside(held: FileLock, wait: Duration, take: impl FnOnce() -> FileLock + Send + 'static) -> bool {
        let (sent, got) = mpsc::channel();
        let taker = std::thread::spawn(move || {
            let lock = take();
            let _ = sent.send(());
            lock
        });
        let beside = got.recv_timeout(wait).is_ok();
        drop(held);
        drop(taker.join().unwrap());
        beside
    }

    #[test]
    fn shared_holders_share_and_the_exclusive_one_waits_for_them_and_they_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        // Generous where it must get the lock (a loaded machine), short where it must not.
        let (got_it, held_off) = (Duration::from_secs(10), Duration::from_millis(300));
        let p = path.clone();
        assert!(gets_it_beside(FileLock::acquire_shared(&path).unwrap(), got_it, move || FileLock::acquire_shared(&p).unwrap()));
        let p = path.clone();
        assert!(!gets_it_beside(FileLock::acquire_shared(&path).unwrap(), held_off, move || FileLock::acquire(&p).unwrap()));
        let p = path.clone();
        assert!(!gets_it_beside(FileLock::acquire(&path).unwrap(), held_off, move || FileLock::acquire_shared(&p).unwrap()));
    }
}
