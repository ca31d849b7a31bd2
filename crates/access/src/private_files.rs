//! The app's data folder is the person's: memories, preferences and an index of their
//! agent sessions. On Unix it is made `0700` and its files `0600`, and the process
//! creates everything else private too (umask `077`), so another account on the same
//! machine can read none of it. A folder made by an older release is tightened at start.

use std::path::Path;


/// Makes new files and folders of this process private to its user (umask `077`).
/// Call first thing, before other threads start creating files.
pub fn restrict_new_files() {
    #[cfg(unix)]
    // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
    unsafe {
        libc::umask(0o077);
    }
}

/// Creates `dir` if needed and makes it and everything in it private: folders `0700`,
/// files `0600` (symlinks are left alone and not followed).
pub fn secure_data_dir(dir: &Path) -> Result<(), std::io::Error> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    tighten(dir)?;
    Ok(())
}

#[cfg(unix)]
fn tighten(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // Another process (SQLite's journal, the session index) may remove a file between
    // the listing and the chmod: what is gone needs no tightening.
    let gone_is_fine = |result: std::io::Result<()>| match result {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    };
    gone_is_fine(std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)))?;
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    };
    for entry in entries {
        let Ok(entry) = entry else { continue };
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            tighten(&entry.path())?;
        } else if kind.is_file() {
            gone_is_fine(std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o600)))?;
        }
    }
    Ok(())
}
