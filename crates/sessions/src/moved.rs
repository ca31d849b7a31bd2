//! The session data of an earlier default place taken into a library's: the archive is
//! merged into the library's archive ([`crate::archive::adopt_archive`]: it may hold the
//! only copy of a session), and the index there, a cache, is removed with its search file.
//! The CLI calls it when it opens its default library, which moved into the app's data
//! folder, so the app, `memory-bank sessions` and `memory-bank mcp` share one.

use std::path::{Path, PathBuf};

use memory_bank_sqlcipher_file::DbKey;

use crate::archive::{adopt_archive, archive_path, Adoption};
use crate::error::IndexError;
use crate::index::search_path;

/// Takes the session data kept beside the index at `from` into the library whose index is
/// at `into`: the archive beside `from` (under `from_key`) merged into the one beside
/// `into` (under `into_key`), then `from`'s index files removed. While another process
/// has the old archive open ([`Adoption::InUse`]) nothing is touched. A call after a
/// complete one finds nothing ([`Adoption::Absent`]) and only clears what is left of the
/// old index.
pub fn adopt_library(from: &Path, from_key: Option<&DbKey>, into: &Path, into_key: Option<&DbKey>) -> Result<Adoption, IndexError> {
    let adoption = adopt_archive(&archive_path(from), from_key, &archive_path(into), into_key)?;
    if adoption == Adoption::InUse {
        return Ok(adoption);
    }
    // A cache: a process of an earlier release that still has it open goes on with its
    // files (unlinked, they stay its own until it closes them).
    let mut lock = from.as_os_str().to_owned();
    lock.push(".rebuild-lock");
    for file in [from.to_path_buf(), search_path(from)] {
        for suffix in ["", "-wal", "-shm"] {
            let mut name = file.as_os_str().to_owned();
            name.push(suffix);
            remove(PathBuf::from(name))?;
        }
    }
    remove(PathBuf::from(lock))?;
    Ok(adoption)
}

fn remove(path: PathBuf) -> Result<(), IndexError> {
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(IndexError::Io { path, source: e }),
        _ => Ok(()),
    }
}
