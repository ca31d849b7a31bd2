//! Opening, inspecting and rekeying a SQLite bank with the key from its [`KeySource`].

use std::path::{Path, PathBuf};

use memory_bank_store::StoreError;
use memory_bank_store_sqlite::encryption::{self, file_state};
use memory_bank_store_sqlite::{DbKey, FileState, SqliteStore};

use crate::file::{read_key_file, read_retired, write_key_file, write_retired};
use crate::{KeyError, KeyringEntry};

/// Where a bank's key lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// No key: the bank is plaintext (an encrypted one is refused).
    None,
    /// A key file (`--db-key-file`, `MEMORY_BANK_DB_KEY_FILE`).
    File(PathBuf),
    /// An OS keyring entry; a key is made there for a bank that has none yet.
    Keyring {
        /// The entry.
        entry: KeyringEntry,
        /// When no keyring answers and the bank is not encrypted yet, go on without a
        /// key (with a warning) instead of failing: the default of the desktop app and
        /// `memory-bank mcp`, which must work on machines without a keyring. An encrypted
        /// bank always needs its key.
        plaintext_without_keyring: bool,
    },
}

impl KeySource {
    /// The desktop app's and `memory-bank mcp`'s default for the bank at `bank`: the key
    /// file when one is given, else the OS keyring (plaintext where no keyring answers).
    pub fn local_default(bank: &Path, key_file: Option<PathBuf>) -> Self {
        match key_file {
            Some(path) => Self::File(path),
            None => Self::Keyring { entry: KeyringEntry::for_bank(bank), plaintext_without_keyring: true },
        }
    }

    /// The key source of the session archive at `archive`, which is encrypted by the same
    /// rules as the bank this source is for: the same key file (so the same key), or a
    /// keyring entry of its own under the same service (`database-key:` and the archive's
    /// path, with the same fallback where no keyring answers), or none.
    pub fn for_archive(&self, archive: &Path) -> Self {
        match self {
            Self::None => Self::None,
            Self::File(path) => Self::File(path.clone()),
            Self::Keyring { entry, plaintext_without_keyring } => Self::Keyring {
                entry: KeyringEntry::with_service(&entry.service, archive),
                plaintext_without_keyring: *plaintext_without_keyring,
            },
        }
    }

    /// How the source is shown to the person (never the key).
    pub fn describe(&self) -> String {
        match self {
            Self::None => "no key".into(),
            Self::File(path) => format!("the key file {}", path.display()),
            Self::Keyring { entry, .. } => format!("the OS keyring ({})", entry.describe()),
        }
    }

    /// The key kept there; `None` when there is none (no source, or no keyring entry).
    fn stored(&self) -> Result<Option<DbKey>, KeyError> {
        match self {
            Self::None => Ok(None),
            Self::File(path) => read_key_file(path).map(Some),
            Self::Keyring { entry, .. } => entry.get(),
        }
    }

    /// The keys `db rekey` replaced in this key file (`<key file>.retired`, oldest first):
    /// the session archive shares the bank's key file, and one still under an old key is
    /// moved to the current one when it is next opened (`memory_bank_sessions::rekey_archive`).
    /// Empty for other sources (a keyring entry is the archive's own, and no rekey of the
    /// bank changes it).
    pub fn retired_keys(&self) -> Result<Vec<DbKey>, KeyError> {
        match self {
            Self::File(path) => read_retired(&with_suffix(path, ".retired")),
            _ => Ok(Vec::new()),
        }
    }

    /// Keeps `key` among [`Self::retired_keys`] (a key file only).
    fn retire(&self, key: &DbKey) -> Result<(), KeyError> {
        let Self::File(path) = self else { return Ok(()) };
        let retired = with_suffix(path, ".retired");
        let mut keys = read_retired(&retired)?;
        if !keys.contains(key) {
            keys.push(key.clone());
        }
        write_retired(&retired, &keys)
    }

    /// Where a new key waits while the bank is rekeyed to it: if the rekey is cut
    /// short, the next open finds it there.
    fn next_slot(&self) -> Option<KeySource> {
        match self {
            Self::None => None,
            Self::File(path) => Some(Self::File(with_suffix(path, ".next"))),
            Self::Keyring { entry, .. } => Some(Self::Keyring { entry: entry.next(), plaintext_without_keyring: false }),
        }
    }

    fn store(&self, key: &DbKey) -> Result<(), KeyError> {
        match self {
            Self::None => Ok(()),
            Self::File(path) => write_key_file(path, key),
            Self::Keyring { entry, .. } => entry.set(key),
        }
    }

    fn forget(&self) {
        let outcome = match self {
            Self::None => Ok(()),
            Self::File(path) => std::fs::remove_file(path).or_else(|e| if e.kind() == std::io::ErrorKind::NotFound { Ok(()) } else { Err(e) }).map_err(|e| KeyError::FileWrite { path: path.display().to_string(), detail: e.to_string() }),
            Self::Keyring { entry, .. } => entry.delete(),
        };
        if let Err(e) = outcome {
            tracing::warn!("cannot remove the spare key of a finished rekey: {e}");
        }
    }
}

/// The note beside a file left unencrypted because no OS keyring answered: it exists from
/// the first such open until the keyring gives (or takes) the file's key.
pub fn keyring_unavailable_note(path: &Path) -> PathBuf {
    with_suffix(path, ".keyring-unavailable")
}

/// Whether the file at `path` was last opened unencrypted because no OS keyring answered
/// (for `db status` and Settings).
pub fn keyring_unavailable_noted(path: &Path) -> bool {
    keyring_unavailable_note(path).exists()
}

/// Notes that no keyring answered for `path`; true the first time (the warning is due).
fn note_keyring_unavailable(path: &Path) -> bool {
    let note = keyring_unavailable_note(path);
    if note.exists() {
        return false;
    }
    let text = "No OS keyring answered when Memory Bank opened the file beside this note, so it is not encrypted yet. \
                It is encrypted, and this note removed, on the first open where the keyring answers.\n";
    let written = memory_bank_private_files::create_parent_dir(&note)
        .and_then(|()| memory_bank_private_files::create_file(&note))
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
    if let Err(e) = written {
        tracing::debug!("cannot write {}: {e}", note.display());
    }
    true
}

fn forget_keyring_unavailable(path: &Path) {
    let _ = std::fs::remove_file(keyring_unavailable_note(path));
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(suffix);
    path.with_file_name(name)
}

/// The key that opens (or will encrypt) the SQLite file at `path`, by the rules every
/// encrypted file here follows (the bank, the session archive):
///
/// - a key stored in `source` is used;
/// - a keyring source with no entry yet makes one, with a new random key, for a file that
///   is missing or still plaintext (it is then encrypted with it);
/// - an encrypted file with no key found is an error that names the fix, never a new file;
/// - where no keyring answers and the source allows it (`plaintext_without_keyring`), a
///   file not encrypted yet goes on unencrypted (`None`), with a warning.
///
/// `None` means: open it as plain SQLite. Nothing is opened or written here except the
/// keyring entry a new key goes into.
pub fn resolve_key(path: &Path, source: &KeySource) -> Result<Option<DbKey>, KeyError> {
    resolve_in_state(path, source, file_state(path)?)
}

fn resolve_in_state(path: &Path, source: &KeySource, state: FileState) -> Result<Option<DbKey>, KeyError> {
    let shown = || path.display().to_string();
    match (source.stored(), source, state) {
        (Ok(Some(key)), _, _) => {
            forget_keyring_unavailable(path);
            Ok(Some(key))
        }
        (Ok(None), KeySource::None, FileState::Encrypted) => Err(KeyError::NoKey { path: shown() }),
        (Ok(None), KeySource::None, _) => Ok(None),
        (Ok(None), KeySource::Keyring { entry, .. }, FileState::Encrypted) => {
            Err(KeyError::KeyringEntryMissing { path: shown(), entry: entry.describe() })
        }
        (Ok(None), KeySource::Keyring { entry, .. }, _) => {
            let key = DbKey::generate();
            entry.set(&key)?;
            tracing::info!(file = %shown(), "made a new database key in the OS keyring");
            forget_keyring_unavailable(path);
            Ok(Some(key))
        }
        (Ok(None), KeySource::File(_), _) => unreachable!("a key file either holds a key or fails to read"),
        (Err(KeyError::KeyringUnavailable { detail }), KeySource::Keyring { plaintext_without_keyring: true, .. }, FileState::Missing | FileState::Plaintext) => {
            // Once per bank, not on every start of every agent's server: the note beside
            // the bank remembers it was said (and `db status` and Settings say it again).
            if note_keyring_unavailable(path) {
                tracing::warn!(
                    "the OS keyring is not available ({detail}): {} stays unencrypted for now; \
                     it is encrypted on the first start where the keyring answers, or set MEMORY_BANK_DB_KEY_FILE \
                     (said once; `memory-bank db status` shows it)",
                    shown()
                );
            } else {
                tracing::debug!(%detail, file = %shown(), "the OS keyring is still not available; the file stays unencrypted");
            }
            Ok(None)
        }
        (Err(e), _, _) => Err(e),
    }
}

/// Opens the SQLite bank at `url` with the key from `source` (see
/// [`SqliteStore::open_with_key`]): the key is found by [`resolve_key`]'s rules, a
/// plaintext bank is encrypted, and an encrypted bank needs its key.
pub async fn open_bank(url: &str, source: &KeySource) -> Result<SqliteStore, KeyError> {
    let Some(path) = memory_bank_store_sqlite::bank_path(url)? else {
        // An in-memory bank never reaches a disk: nothing to encrypt.
        return Ok(SqliteStore::open(url).await?);
    };
    let shown = path.display().to_string();
    let state = file_state(&path)?;
    let key = match resolve_in_state(&path, source, state) {
        // A rekey cut short may have left the bank under the waiting key.
        Err(missing @ KeyError::KeyringEntryMissing { .. }) => match recover_interrupted_rekey(&path, source).await? {
            Some(key) => Some(key),
            None => return Err(missing),
        },
        other => other?,
    };
    match SqliteStore::open_with_key(url, key.as_ref()).await {
        Ok(store) => Ok(store),
        Err(StoreError::KeyRejected { .. }) => match recover_interrupted_rekey(&path, source).await? {
            Some(key) => Ok(SqliteStore::open_with_key(url, Some(&key)).await?),
            None => Err(KeyError::WrongKey { path: shown, source_: source.describe() }),
        },
        Err(StoreError::KeyMissing { .. }) => Err(KeyError::NoKey { path: shown }),
        Err(StoreError::InUse { .. })
            if matches!(source, KeySource::Keyring { plaintext_without_keyring: true, .. }) && state == FileState::Plaintext =>
        {
            tracing::warn!(
                "the bank {shown} is open in another process, so it cannot be encrypted now; \
                 it stays unencrypted until a start where nothing else has it open"
            );
            Ok(SqliteStore::open(url).await?)
        }
        Err(e) => Err(e.into()),
    }
}

/// The key waiting in `source`'s rekey slot, when it is the one that opens the bank: it
/// is then made the bank's key where the old one was.
async fn recover_interrupted_rekey(path: &Path, source: &KeySource) -> Result<Option<DbKey>, KeyError> {
    let Some(next) = source.next_slot() else { return Ok(None) };
    let Ok(Some(key)) = next.stored() else { return Ok(None) };
    if !encryption::key_opens(path, &key).await? {
        return Ok(None);
    }
    tracing::warn!("a rekey of the bank was interrupted after the bank changed key; keeping its new key");
    source.store(&key)?;
    next.forget();
    Ok(Some(key))
}

/// Gives the encrypted bank at `path` a new random key, stored where its key is now.
/// The new key is stored in a spare slot first (`<key file>.next`, or the keyring entry
/// `….next`), the bank is rekeyed, and the new key then replaces the old one: however it
/// is interrupted, one of the two keys kept opens the bank.
pub async fn rekey_bank(path: &Path, source: &KeySource) -> Result<(), KeyError> {
    let shown = path.display().to_string();
    if file_state(path)? != FileState::Encrypted {
        return Err(KeyError::NotEncrypted { path: shown });
    }
    let old = match (source.stored()?, source) {
        (Some(key), _) => key,
        (None, KeySource::Keyring { entry, .. }) => return Err(KeyError::KeyringEntryMissing { path: shown, entry: entry.describe() }),
        (None, _) => return Err(KeyError::NoKey { path: shown }),
    };
    if !encryption::key_opens(path, &old).await? {
        return Err(KeyError::WrongKey { path: shown, source_: source.describe() });
    }
    // Before anything can replace it: archives sharing this key file may still be under it.
    source.retire(&old)?;
    let next = source.next_slot().expect("a source with a key has a spare slot");
    let new = DbKey::generate();
    next.store(&new)?;
    if let Err(e) = encryption::rekey(path, &old, &new).await {
        next.forget();
        return Err(e.into());
    }
    source.store(&new)?;
    next.forget();
    tracing::info!("the bank has a new key");
    Ok(())
}

/// What `memory-bank db status` reports about a SQLite bank. Never the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankStatus {
    /// The bank file.
    pub path: PathBuf,
    /// Encrypted or not, from its first bytes.
    pub state: FileState,
    /// Where its key is looked for, described.
    pub source: String,
    /// A key is stored there (`None`: no source).
    pub key_found: Option<bool>,
    /// The stored key opens the bank (`None`: no key, or the bank is not encrypted).
    pub key_opens: Option<bool>,
    /// The SQLCipher version linked in.
    pub cipher: Option<String>,
}

/// Looks at the bank at `path` and its key without changing either (no key is made, no
/// plaintext bank is encrypted).
pub async fn status(path: &Path, source: &KeySource) -> Result<BankStatus, KeyError> {
    let state = file_state(path)?;
    let key = match source {
        KeySource::None => None,
        _ => Some(source.stored()?),
    };
    let key_opens = match (&key, state) {
        (Some(Some(key)), FileState::Encrypted) => Some(encryption::key_opens(path, key).await?),
        _ => None,
    };
    Ok(BankStatus {
        path: path.to_owned(),
        state,
        source: source.describe(),
        key_found: key.as_ref().map(Option::is_some),
        key_opens,
        cipher: encryption::cipher_version().await?,
    })
}
