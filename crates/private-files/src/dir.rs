//! The app's data folder, tightened at start: a folder made by a release before files
//! were private (or by hand) has its readable files and folders made private, so the
//! person's data does not stay readable by others after an update.

use std::path::Path;

/// Creates `dir` if needed and makes it and everything in it private: folders `0700`,
/// files `0600` (symlinks are left alone and not followed). Only for a folder that is
/// ours alone (the app's data folder), never one the person shares.
pub fn secure_data_dir(dir: &Path) -> std::io::Result<()> {
    crate::create_dir_all(dir)?;
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
    gone_is_fine(std::fs::set_permissions(dir, std::fs::Permissions::from_mode(crate::DIR_MODE)))?;
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
            gone_is_fine(std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(crate::FILE_MODE)))?;
        }
    }
    Ok(())
}
