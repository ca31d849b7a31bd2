//! Applying a plan: atomic replace, backup, permissions kept.
//!
//! What we create is private (files `0600`, folders `0700`: a config may hold the
//! person's API keys); a config file that exists keeps its own mode when we rewrite it.
//!
//! Agents read these files at startup and some (Claude Code) rewrite them while running, so a
//! half-written file must never be visible: we write a temporary file in the same folder,
//! fsync it and rename it over the original. Before that we check that the file still holds
//! the bytes the plan was computed from, so a concurrent rewrite is reported rather than lost.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::plan::{read_config, Plan};
use crate::Error;

/// The suffix of the backup written beside the config file.
pub const BACKUP_SUFFIX: &str = ".memory-bank.bak";

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    /// Whether the config file was written (false when the plan changed nothing).
    pub written: bool,
    /// The backup of the previous bytes, when there was a previous file.
    pub backup: Option<PathBuf>,
}

/// Write `plan.after` to `plan.path`. A no-op when `plan.changed` is false (or `after` is
/// `None`: files are never deleted).
///
/// Creates missing parent folders (private, 0700 on Unix); keeps the previous bytes in
/// `<file>.memory-bank.bak` (overwritten by each apply, always private: 0600, ours);
/// gives the new file the old one's permissions (a new file gets 0600 on Unix); writes
/// through a symlink to its target.
/// Fails with [`Error::ChangedSincePlan`] when the file no longer holds `plan.before`.
pub fn apply(plan: &Plan) -> Result<Applied, Error> {
    let unchanged = Applied { written: false, backup: None };
    let Some(after) = plan.after.as_deref().filter(|_| plan.changed) else { return Ok(unchanged) };
    if read_config(&plan.path)? != plan.before {
        return Err(Error::ChangedSincePlan { path: plan.path.clone() });
    }
    let target = fs::canonicalize(&plan.path).unwrap_or_else(|_| plan.path.clone());
    let folder = parent(&target);
    memory_bank_private_files::create_dir_all(folder).map_err(|source| Error::Write { path: folder.to_path_buf(), source })?;
    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let backup = match &plan.before {
        Some(before) => {
            let backup = backup_path(&plan.path);
            // Ours, whatever the original's mode: never readable by others.
            write_atomic(&backup, before.as_bytes(), None)?;
            Some(backup)
        }
        None => None,
    };
    write_atomic(&target, after.as_bytes(), permissions)?;
    Ok(Applied { written: true, backup })
}

/// `<path>.memory-bank.bak`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(BACKUP_SUFFIX);
    PathBuf::from(name)
}

fn parent(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

fn write_atomic(path: &Path, bytes: &[u8], permissions: Option<fs::Permissions>) -> Result<(), Error> {
    let error = |source| Error::Write { path: path.to_path_buf(), source };
    let folder = parent(path);
    let mut tmp = memory_bank_private_files::temp_file_in(folder, ".memory-bank-", ".tmp").map_err(error)?;
    tmp.write_all(bytes).map_err(error)?;
    if let Some(permissions) = permissions {
        tmp.as_file().set_permissions(permissions).map_err(error)?;
    }
    tmp.as_file().sync_all().map_err(error)?;
    tmp.persist(path).map_err(|e| error(e.error))?;
    // Make the rename itself durable.
    #[cfg(unix)]
    if let Ok(dir) = fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}
