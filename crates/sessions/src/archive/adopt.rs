//! Taking in an archive kept at another place: before this release the CLI (`memory-bank
//! sessions`, `memory-bank mcp`) kept its session index and archive in a folder of its
//! own, beside the app's. The index is a cache, but the archive may hold the only copy of
//! a session, so it is never just dropped: its sessions and forgotten marks are copied
//! into the archive that takes its place, durably, and only then is it removed.
//!
//! Done only with the old archive to ourselves (another process of an earlier release
//! may still have it open, and would go on writing into it): it is taken out of WAL mode,
//! which SQLite allows only to the one connection that has it open, and held under an
//! exclusive lock while it is copied and removed. Otherwise it is left for a later open.
//! Interrupted, it is still there whole and the next call copies what is missing.

use std::path::Path;

use memory_bank_sqlcipher_file::DbKey;

use super::Archive;
use crate::error::IndexError;
use crate::stamp::new_generation;

/// What [`adopt_archive`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adoption {
    /// There was no archive to take in.
    Absent,
    /// Another process has the old archive open: it is left as it is, for a later call.
    InUse,
    /// Its sessions not in the new archive and its forgotten marks were copied there,
    /// and the old archive was removed.
    Merged {
        /// Archived sessions copied.
        sessions: u64,
        /// Forgotten marks copied (each also forgets the new archive's copy of it).
        forgotten: u64,
    },
}

/// Takes the archive at `from` (opened with `from_key`, `None` for a plaintext one) into
/// the archive at `into` (opened, or made, with `into_key`), then removes it: see the
/// module docs. A session the new archive holds already, or has forgotten, is kept as the
/// new archive has it. When anything was copied, the new archive gets a new id, so every
/// index over it imports its sessions again. An old archive that cannot be opened (a
/// wrong or missing key, a newer release's) is an error that leaves both as they are.
pub fn adopt_archive(from: &Path, from_key: Option<&DbKey>, into: &Path, into_key: Option<&DbKey>) -> Result<Adoption, IndexError> {
    if !from.exists() {
        return Ok(Adoption::Absent);
    }
    if let (Ok(a), Ok(b)) = (std::fs::canonicalize(from), std::fs::canonicalize(into)) {
        if a == b {
            return Ok(Adoption::Absent);
        }
    }
    let old = Archive::open(from, from_key)?;
    let busy = |e: &rusqlite::Error| {
        matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
    };
    // Leaving WAL mode needs the file to itself: success proves nobody else has it open.
    match old.conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get::<_, String>(0)) {
        Ok(mode) if mode.eq_ignore_ascii_case("delete") => {}
        Ok(_) => return Ok(Adoption::InUse),
        Err(e) if busy(&e) => return Ok(Adoption::InUse),
        Err(e) => return Err(e.into()),
    }
    // Held until it is removed: an opener that comes now waits, then finds no file.
    match old.conn.execute_batch("BEGIN EXCLUSIVE;") {
        Ok(()) => {}
        Err(e) if busy(&e) => return Ok(Adoption::InUse),
        Err(e) => return Err(e.into()),
    }
    let new = Archive::open(into, into_key)?;
    let mut forgotten = 0;
    let ours = new.forgotten()?;
    for (key, until) in old.forgotten()? {
        if ours.get(&key).is_none_or(|&mine| mine < until) {
            new.forget(&key, until)?;
            forgotten += 1;
        }
    }
    let hidden = new.forgotten()?;
    let mut sessions = 0;
    old.for_each(&mut |key, facts, messages, calls| {
        if hidden.contains_key(key) || new.holds(key)? {
            return Ok(());
        }
        let mut feed = |put: &mut dyn FnMut(super::MessageRow) -> rusqlite::Result<()>| messages.iter().cloned().try_for_each(put);
        new.store(key, facts, &mut feed, &calls)?;
        sessions += 1;
        Ok(())
    })?;
    if sessions + forgotten > 0 {
        // Indexes that imported the new archive before import it again, with these.
        new.conn.execute("UPDATE archive_meta SET archive_id = ?1", [new_generation()])?;
    }
    drop(new);
    for suffix in ["", "-journal", "-wal", "-shm", ".encrypt-lock"] {
        let mut file = from.as_os_str().to_owned();
        file.push(suffix);
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(IndexError::Io { path: file.into(), source: e });
            }
            _ => {}
        }
    }
    drop(old);
    tracing::info!(sessions, forgotten, "took in the session archive kept at the earlier place");
    Ok(Adoption::Merged { sessions, forgotten })
}
