//! The pending-delete journal: every delete the person confirmed and did not undo, on
//! disk (`pending-deletes.json` in the app's data folder) before the Undo toast shows,
//! so a crash, a SIGKILL or a power cut cannot bring the memory back. Written whole on
//! every change (it holds a handful of entries) to a temporary file that is fsynced and
//! renamed over the old one, then the folder is fsynced: a reader sees the old journal
//! or the new one, never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The journal's file name in the data folder.
pub const JOURNAL_FILE: &str = "pending-deletes.json";

/// The account a delete was confirmed in. No token: the token of that account is
/// looked up again (the keyring, or the embedded service of this run) when it is sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AccountKey {
    /// The embedded local service.
    Local,
    /// A team server.
    Team {
        /// Its URL, as signed in.
        url: String,
    },
}

/// One delete, as captured when the person confirmed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    /// Memory id.
    pub id: String,
    /// The org active when the person confirmed.
    pub org_id: String,
    /// The account it was confirmed in.
    pub account: AccountKey,
    /// The user signed in to that account then: a delete is never sent as anyone else.
    pub user_id: String,
    /// When the undo window ends, ms since the epoch.
    pub due_at: i64,
}

#[derive(Serialize, Deserialize)]
struct JournalFile {
    version: u32,
    deletes: Vec<JournalEntry>,
}

const VERSION: u32 = 1;

/// The journal file and the entries it holds.
pub struct Journal {
    path: PathBuf,
    entries: Vec<JournalEntry>,
}

impl Journal {
    /// Reads `dir/pending-deletes.json`. A missing file is an empty journal; an
    /// unreadable one is set aside (`….corrupt-<ms>`, kept for a post-mortem) with an
    /// error in the log, and a fresh journal starts: never a crash.
    pub fn open(dir: &Path) -> Journal {
        let path = dir.join(JOURNAL_FILE);
        let entries = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<JournalFile>(&bytes) {
                Ok(file) if file.version == VERSION => file.deletes,
                Ok(file) => set_aside(&path, &format!("version {} is not one this release reads", file.version)),
                Err(e) => set_aside(&path, &e.to_string()),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => set_aside(&path, &e.to_string()),
        };
        Journal { path, entries }
    }

    /// The entries, in the order they were confirmed.
    pub fn entries(&self) -> &[JournalEntry] {
        &self.entries
    }

    /// Records `entry` (replacing one with the same id) durably.
    pub fn put(&mut self, entry: JournalEntry) -> std::io::Result<()> {
        let mut next = self.entries.clone();
        next.retain(|e| e.id != entry.id);
        next.push(entry);
        self.write(next)
    }

    /// Forgets `id` durably; false when it was not there.
    pub fn remove(&mut self, id: &str) -> std::io::Result<bool> {
        if !self.entries.iter().any(|e| e.id == id) {
            return Ok(false);
        }
        let next = self.entries.iter().filter(|e| e.id != id).cloned().collect();
        self.write(next)?;
        Ok(true)
    }

    /// Writes `entries` atomically and durably, and only then makes them the journal's.
    fn write(&mut self, entries: Vec<JournalEntry>) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        crate::private_files::create_dir_all(dir)?;
        let temporary = self.path.with_extension("json.tmp");
        let body = serde_json::to_vec_pretty(&JournalFile { version: VERSION, deletes: entries.clone() })?;
        {
            // Made anew, private (what a crash left may have another mode, which the
            // rename would hand to the journal).
            match std::fs::remove_file(&temporary) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
            let mut file = crate::private_files::open_options().write(true).create_new(true).open(&temporary)?;
            file.write_all(&body)?;
            file.sync_all()?;
        }
        std::fs::rename(&temporary, &self.path)?;
        sync_dir(dir)?;
        self.entries = entries;
        Ok(())
    }
}

/// Moves an unreadable journal out of the way and says so.
fn set_aside(path: &Path, reason: &str) -> Vec<JournalEntry> {
    let aside = path.with_extension(format!("json.corrupt-{}", memory_bank_contract::Timestamp::now().unix_ms()));
    match std::fs::rename(path, &aside) {
        Ok(()) => tracing::error!(
            journal = %path.display(), kept_as = %aside.display(), %reason,
            "the pending-delete journal could not be read; it was set aside and a fresh one started \
             (deletes it held were not sent: delete those memories again if they came back)"
        ),
        Err(e) => tracing::error!(
            journal = %path.display(), %reason, error = %e,
            "the pending-delete journal could not be read nor set aside; starting a fresh one over it"
        ),
    }
    Vec::new()
}

/// Makes a rename in `dir` durable (POSIX: the directory entry is data of the folder).
#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Windows has no handle on folders to flush; NTFS journals the rename itself.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> JournalEntry {
        JournalEntry {
            id: id.into(),
            org_id: "org_1".into(),
            account: AccountKey::Team { url: "https://team.example".into() },
            user_id: "usr_1".into(),
            due_at: 42,
        }
    }

    #[test]
    fn entries_survive_a_reopen_and_removal_is_durable() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = Journal::open(dir.path());
        journal.put(entry("mem_a")).unwrap();
        journal.put(entry("mem_b")).unwrap();
        journal.put(entry("mem_a")).unwrap(); // again: replaced, not doubled
        assert_eq!(Journal::open(dir.path()).entries().iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["mem_b", "mem_a"]);
        assert!(journal.remove("mem_b").unwrap());
        assert!(!journal.remove("mem_b").unwrap());
        assert_eq!(Journal::open(dir.path()).entries(), [entry("mem_a")]);
        assert!(!dir.path().join("pending-deletes.json.tmp").exists());
    }

    #[test]
    fn a_corrupt_journal_is_set_aside_and_a_fresh_one_starts() {
        for garbage in [&b"{\"version\":1,\"deletes\":[{\"id\":"[..], b"\xff\xfe not json", b"{\"version\":99,\"deletes\":[]}"] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(JOURNAL_FILE), garbage).unwrap();
            let mut journal = Journal::open(dir.path());
            assert!(journal.entries().is_empty());
            let kept: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            assert!(kept.iter().any(|name| name.starts_with("pending-deletes.json.corrupt-")), "{kept:?}");
            journal.put(entry("mem_new")).unwrap();
            assert_eq!(Journal::open(dir.path()).entries(), [entry("mem_new")]);
        }
    }

    /// The journal and the folder it makes are private under an open umask, also when a
    /// crash left a readable temporary file behind (issue 28, item 8).
    #[cfg(unix)]
    #[test]
    fn the_journal_is_private_whatever_the_umask_and_whatever_a_crash_left() {
        use memory_bank_private_files::testing::{mode, open_umask};
        open_umask();
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let mut journal = Journal::open(&data);
        journal.put(entry("mem_a")).unwrap();
        assert_eq!((mode(&data), mode(&data.join(JOURNAL_FILE))), (0o700, 0o600));
        let leftover = data.join("pending-deletes.json.tmp");
        std::fs::write(&leftover, b"half").unwrap();
        assert_eq!(mode(&leftover), 0o644, "the control");
        journal.put(entry("mem_b")).unwrap();
        assert_eq!(mode(&data.join(JOURNAL_FILE)), 0o600);
        assert_eq!(Journal::open(&data).entries().len(), 2);
    }
}
