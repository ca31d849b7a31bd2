//! For tests of the crates that create files: each file's mode, every file under a folder
//! that is not private, and an open umask under which only construction makes files private.

use std::path::{Path, PathBuf};

/// Sets the process's umask to the common `022`, under which a file created without an
/// explicit mode is `0644`: a test that then finds its files `0600` proves they were made
/// private, not just masked. Returns the previous mask.
#[cfg(unix)]
pub fn open_umask() -> u32 {
    // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
    unsafe { libc::umask(0o022) as u32 }
}

/// The permission bits of `path` (not following a symlink).
#[cfg(unix)]
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode() & 0o7777
}

/// Every file under `dir` that is not `0600` and every folder (`dir` included) that is
/// not `0700`, with its mode; empty when all are private. Symlinks are not followed.
#[cfg(unix)]
pub fn not_private(dir: &Path) -> Vec<(PathBuf, u32)> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        if mode(&dir) != crate::DIR_MODE {
            found.push((dir.clone(), mode(&dir)));
        }
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else { continue };
            let path = entry.path();
            if kind.is_dir() {
                todo.push(path);
            } else if kind.is_file() {
                // Gone since the listing (a WAL index removed at close) is not a finding.
                if let Ok(meta) = std::fs::symlink_metadata(&path) {
                    use std::os::unix::fs::PermissionsExt as _;
                    let bits = meta.permissions().mode() & 0o7777;
                    if bits != crate::FILE_MODE {
                        found.push((path, bits));
                    }
                }
            }
        }
    }
    found.sort();
    found
}
