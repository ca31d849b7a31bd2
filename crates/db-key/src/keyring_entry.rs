//! The bank's key in the OS keyring, under the app's service name and an entry per bank
//! file, stored as 64 hexadecimal characters.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use memory_bank_store_sqlite::DbKey;

use crate::KeyError;

/// The entries made so far, by service and account.
type Entries = Mutex<HashMap<(String, String), Arc<keyring::Entry>>>;

/// The keyring service the desktop app keeps its secrets under (its team-server tokens too).
pub const KEYRING_SERVICE: &str = "memory-bank";

/// One keyring entry holding one bank's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyringEntry {
    /// The keyring's service name.
    pub service: String,
    /// The entry's user name: `database-key:` and the bank file's absolute path, so two
    /// banks never share (or rekey each other's) key.
    pub account: String,
}

impl KeyringEntry {
    /// The entry of the bank file at `bank` under [`KEYRING_SERVICE`].
    pub fn for_bank(bank: &Path) -> Self {
        Self::with_service(KEYRING_SERVICE, bank)
    }

    /// The entry of `bank` under another service name (tests keep theirs apart).
    pub fn with_service(service: &str, bank: &Path) -> Self {
        let absolute = bank
            .parent()
            .and_then(|dir| std::fs::canonicalize(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }).ok())
            .map(|dir| dir.join(bank.file_name().unwrap_or_default()))
            .or_else(|| std::path::absolute(bank).ok())
            .unwrap_or_else(|| bank.to_owned());
        Self { service: service.to_owned(), account: format!("database-key:{}", absolute.display()) }
    }

    /// The entry that holds a new key while a rekey is under way.
    pub(crate) fn next(&self) -> Self {
        Self { service: self.service.clone(), account: format!("{}.next", self.account) }
    }

    /// How the entry is shown to the person (never the key).
    pub fn describe(&self) -> String {
        format!("service \"{}\", entry \"{}\"", self.service, self.account)
    }

    /// The stored key; `None` when there is no entry.
    pub fn get(&self) -> Result<Option<DbKey>, KeyError> {
        match self.entry()?.get_password() {
            Ok(text) => DbKey::from_hex(&text).map(Some).map_err(|_| KeyError::KeyringUnavailable {
                detail: format!("the keyring entry {} does not hold a database key", self.describe()),
            }),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(KeyError::KeyringUnavailable { detail: e.to_string() }),
        }
    }

    /// Stores `key`, then reads it back: a keyring that accepts a write it does not keep
    /// must not leave a bank encrypted under a key nobody has.
    pub fn set(&self, key: &DbKey) -> Result<(), KeyError> {
        self.entry()?.set_password(&key.to_hex()).map_err(|e| KeyError::KeyringUnavailable { detail: e.to_string() })?;
        match self.get()? {
            Some(stored) if &stored == key => Ok(()),
            _ => Err(KeyError::KeyringUnavailable { detail: "the keyring did not keep the key it was given".into() }),
        }
    }

    /// Deletes the entry (nothing happens when there is none).
    pub fn delete(&self) -> Result<(), KeyError> {
        match self.entry()?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(KeyError::KeyringUnavailable { detail: e.to_string() }),
        }
    }

    /// One `Entry` per service and account for the process's life: cheap, and what lets
    /// keyring's mock store (the tests' keyring) see its own writes.
    fn entry(&self) -> Result<Arc<keyring::Entry>, KeyError> {
        static ENTRIES: OnceLock<Entries> = OnceLock::new();
        let mut entries = ENTRIES.get_or_init(Mutex::default).lock().unwrap_or_else(|poison| poison.into_inner());
        let id = (self.service.clone(), self.account.clone());
        if let Some(entry) = entries.get(&id) {
            return Ok(entry.clone());
        }
        let entry = keyring::Entry::new(&self.service, &self.account)
            .map_err(|e| KeyError::KeyringUnavailable { detail: e.to_string() })?;
        let entry = Arc::new(entry);
        entries.insert(id, entry.clone());
        Ok(entry)
    }

    /// The keyring's own entry object, for tests that make the mock keyring fail.
    #[doc(hidden)]
    pub fn raw_entry(&self) -> Result<Arc<keyring::Entry>, KeyError> {
        self.entry()
    }
}
