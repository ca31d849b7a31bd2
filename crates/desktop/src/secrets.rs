//! Team-server tokens in the OS keyring (Keychain, Credential Manager, Secret Service).
//! Never in the preferences file, never in logs.

/// Where tokens are kept, keyed by server URL.
pub trait SecretStore: Send + Sync {
    /// The token for `url`, if one is stored.
    fn get(&self, url: &str) -> Result<Option<String>, String>;
    /// Stores the token for `url`.
    fn set(&self, url: &str, token: &str) -> Result<(), String>;
    /// Deletes the token for `url` (no error if there was none).
    fn delete(&self, url: &str) -> Result<(), String>;
}

/// The OS keyring through the `keyring` crate.
pub struct Keyring {
    service: String,
    // One Entry per URL for the process's life: cheap, and it is what lets keyring's
    // mock store (headless tests) see its own writes.
    entries: std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<keyring::Entry>>>,
}

impl Keyring {
    /// Entries are stored under this service name.
    pub fn new(service: &str) -> Self {
        Self { service: service.into(), entries: Default::default() }
    }

    fn entry(&self, url: &str) -> Result<std::sync::Arc<keyring::Entry>, String> {
        let mut entries = self.entries.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some(entry) = entries.get(url) {
            return Ok(entry.clone());
        }
        let entry = keyring::Entry::new(&self.service, url).map_err(|e| format!("the OS keyring is not available: {e}"))?;
        let entry = std::sync::Arc::new(entry);
        entries.insert(url.to_owned(), entry.clone());
        Ok(entry)
    }
}

impl SecretStore for Keyring {
    fn get(&self, url: &str) -> Result<Option<String>, String> {
        match self.entry(url)?.get_password() {
            Ok(token) => Ok(Some(token)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(format!("cannot read the token from the OS keyring: {e}")),
        }
    }

    fn set(&self, url: &str, token: &str) -> Result<(), String> {
        self.entry(url)?.set_password(token).map_err(|e| format!("cannot store the token in the OS keyring: {e}"))
    }

    fn delete(&self, url: &str) -> Result<(), String> {
        match self.entry(url)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(format!("cannot delete the token from the OS keyring: {e}")),
        }
    }
}
