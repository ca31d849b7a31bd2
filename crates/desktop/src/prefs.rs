//! Per-device preferences (never synced). Where they live is the shell's business
//! (the Tauri store file); this module defines what they are.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// Which account the person chose.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountKind {
    /// The embedded service (default).
    #[default]
    Local,
    /// A team server; its token lives in the OS keyring.
    Team,
}

/// Everything remembered per device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Prefs {
    /// Local or team.
    pub account: AccountKind,
    /// The team server URL, when one was used.
    pub team_url: Option<String>,
    /// The org chosen last.
    pub active_org: Option<String>,
    /// `en`, `zh-CN`, or `None` to follow the OS.
    pub language: Option<String>,
    /// Shows the memory panel (UI only; the API stays callable).
    pub memory_enabled: bool,
    /// Session folders read besides each tool's default ones.
    pub session_roots: Vec<SessionRoot>,
    /// Keep a session in the history after its tool deletes it (archived).
    pub keep_archived_sessions: bool,
    /// Search by words only, never by meaning; the local bank then loads no model.
    pub words_only: bool,
    /// "Let agents look up relevant memories by themselves" (Settings → Agents): agents
    /// installed from the app get `mcp --recall` and, where they have hooks, the recall hook.
    pub agent_recall: bool,
    /// The memory panel's filter: the person's own memories, the org's team bank, or both.
    pub memory_scope: memory_bank_contract::teams::BankScope,
}

/// A folder of agent sessions added in settings (e.g. a copy from another machine).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionRoot {
    /// Which tool's format the folder holds.
    pub source: memory_bank_sessions::Source,
    /// An absolute path: the tool's data folder (e.g. `/mnt/old/.codex`).
    pub path: String,
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            account: AccountKind::Local,
            team_url: None,
            active_org: None,
            language: None,
            memory_enabled: true,
            session_roots: Vec::new(),
            keep_archived_sessions: true,
            words_only: false,
            agent_recall: false,
            memory_scope: memory_bank_contract::teams::BankScope::All,
        }
    }
}

/// A language the app is translated into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Language {
    /// English.
    #[serde(rename = "en")]
    En,
    /// Simplified Chinese.
    #[serde(rename = "zh-CN")]
    ZhCn,
}

impl Language {
    /// The tag stored and sent (`en`, `zh-CN`).
    pub fn as_str(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::ZhCn => "zh-CN",
        }
    }

    /// The language a stored tag names; `None` for one this build does not know.
    pub fn parse(tag: &str) -> Option<Language> {
        [Language::En, Language::ZhCn].into_iter().find(|l| l.as_str() == tag)
    }
}

/// A change to the UI preferences, as the UI sends it (`set_prefs`): an absent field is
/// left as it is; `"language": null` means "follow the OS again".
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PrefsPatch {
    /// Show or hide the memory panel.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub memory_enabled: Option<bool>,
    /// Keep sessions after their tool deletes them (Settings → Session history).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub keep_archived_sessions: Option<bool>,
    /// Search by words only (Settings → Search).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub words_only: Option<bool>,
    /// The memory panel's Mine / Team / All.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub memory_scope: Option<memory_bank_contract::teams::BankScope>,
    /// `Some(None)` = follow the OS; `Some(Some(Language::ZhCn))` = that language.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub language: Option<Option<Language>>,
}

/// Tells a field that is present (even as null) from one that is absent.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<Language>>, D::Error> {
    Option::<Language>::deserialize(d).map(Some)
}

/// Where preferences persist.
pub trait PrefsStore: Send + Sync {
    /// The saved preferences, or defaults.
    fn load(&self) -> Prefs;
    /// Saves them; errors are reported, not fatal.
    fn save(&self, prefs: &Prefs) -> Result<(), String>;
}

/// Preferences kept in memory only (tests, and a fallback when no store is available).
#[derive(Debug, Default)]
pub struct MemoryPrefs(Mutex<Prefs>);

impl PrefsStore for MemoryPrefs {
    fn load(&self) -> Prefs {
        self.0.lock().map(|p| p.clone()).unwrap_or_default()
    }

    fn save(&self, prefs: &Prefs) -> Result<(), String> {
        *self.0.lock().map_err(|e| e.to_string())? = prefs.clone();
        Ok(())
    }
}
