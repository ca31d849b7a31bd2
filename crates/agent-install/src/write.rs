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

use crate::plan::{read_config, Change, Plan};
use crate::Error;

/// The suffix of the backup written beside the config file.
pub const BACKUP_SUFFIX: &str = ".memory-bank.bak";

/// The suffix of the note beside a config file that install created (there was none):
/// removing our entry from such a file deletes it again when nothing else is in it.
pub const CREATED_SUFFIX: &str = ".memory-bank.created";

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    /// Whether the config file was written or deleted (false when the plan changed nothing).
    pub written: bool,
    /// The backup of the file as it was before we first changed it, when it existed.
    pub backup: Option<PathBuf>,
    /// Whether the file was deleted: install had created it and removing our entry left
    /// nothing else in it.
    pub deleted: bool,
}

/// Write `plan.after` to `plan.path`, or delete the file when `after` is `None` and it
/// existed (a removal from a file install created). A no-op when `plan.changed` is false.
///
/// Creates missing parent folders (private, 0700 on Unix); keeps the file as it was before
/// our first change in `<file>.memory-bank.bak` (written once, so install, re-install and
/// remove never replace the person's original with a version of ours; always private:
/// 0600); notes a file it creates in `<file>.memory-bank.created`; gives the new file the
/// old one's permissions (a new file gets 0600 on Unix); writes through a symlink to its
/// target. Fails with [`Error::ChangedSincePlan`] when the file no longer holds
/// `plan.before`.
pub fn apply(plan: &Plan) -> Result<Applied, Error> {
    let unchanged = Applied { written: false, backup: None, deleted: false };
    if !plan.changed {
        return Ok(unchanged);
    }
    if read_config(&plan.path)? != plan.before {
        return Err(Error::ChangedSincePlan { path: plan.path.clone() });
    }
    let created = created_path(&plan.path);
    let Some(after) = plan.after.as_deref() else {
        if plan.before.is_none() {
            return Ok(unchanged);
        }
        let target = fs::canonicalize(&plan.path).unwrap_or_else(|_| plan.path.clone());
        fs::remove_file(&target).map_err(|source| Error::Write { path: target.clone(), source })?;
        remove_if_there(&created, &plan.path)?;
        return Ok(Applied { written: true, backup: None, deleted: true });
    };
    let target = fs::canonicalize(&plan.path).unwrap_or_else(|_| plan.path.clone());
    let folder = parent(&target);
    memory_bank_private_files::create_dir_all(folder).map_err(|source| Error::Write { path: folder.to_path_buf(), source })?;
    let permissions = fs::metadata(&target).ok().map(|m| m.permissions());
    let backup = match &plan.before {
        Some(before) => {
            let backup = backup_path(&plan.path);
            // The original only: a backup already there is from before our first change.
            // Ours, whatever the original's mode: never readable by others.
            if !backup.exists() && !created.exists() {
                write_atomic(&backup, before.as_bytes(), None)?;
            }
            backup.exists().then_some(backup)
        }
        None => None,
    };
    write_atomic(&target, after.as_bytes(), permissions)?;
    if plan.before.is_none() {
        let note = format!(
            "Memory Bank created {} (it did not exist). Removing what Memory Bank added deletes it again \
             when nothing else is in it.\n",
            plan.path.display()
        );
        write_atomic(&created, note.as_bytes(), None)?;
    } else if plan.change == Change::Remove {
        // The person's file now, whoever created it.
        remove_if_there(&created, &plan.path)?;
    }
    Ok(Applied { written: true, backup, deleted: false })
}

/// `<path>.memory-bank.created`.
pub fn created_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(CREATED_SUFFIX);
    PathBuf::from(name)
}

fn remove_if_there(path: &Path, config: &Path) -> Result<(), Error> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Write { path: config.to_path_buf(), source: e }),
        _ => Ok(()),
    }
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
