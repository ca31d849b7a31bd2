//! Preferences in tauri-plugin-store: a JSON file in the app's data folder, per device.

use std::path::Path;
use std::sync::Arc;

use memory_bank_desktop::prefs::{Prefs, PrefsStore};
use tauri::{AppHandle, Runtime};
use tauri_plugin_store::{Store, StoreExt};

const KEY: &str = "prefs";

/// The store file name inside the data folder.
pub const FILE: &str = "settings.json";

/// [`PrefsStore`] over a tauri-plugin-store file.
pub struct TauriPrefs<R: Runtime>(Arc<Store<R>>);

impl<R: Runtime> TauriPrefs<R> {
    /// Opens (or creates) `data_dir/settings.json`.
    pub fn open(app: &AppHandle<R>, data_dir: &Path) -> Result<Self, tauri_plugin_store::Error> {
        Ok(Self(app.store(data_dir.join(FILE))?))
    }
}

impl<R: Runtime> PrefsStore for TauriPrefs<R> {
    fn load(&self) -> Prefs {
        // An unreadable or older file falls back to defaults rather than failing start-up.
        self.0.get(KEY).and_then(|value| serde_json::from_value(value).ok()).unwrap_or_default()
    }

    fn save(&self, prefs: &Prefs) -> Result<(), String> {
        let value = serde_json::to_value(prefs).map_err(|e| e.to_string())?;
        self.0.set(KEY, value);
        self.0.save().map_err(|e| format!("cannot save preferences: {e}"))
    }
}
