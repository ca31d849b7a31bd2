//! Which tools' sessions this machine has, the folders each is read from, and which ones the
//! person turned off: what the Sessions view says ("found on this machine", "reads these
//! folders"), what Settings lists with a switch per source, and `memory-bank sessions
//! sources`.
//!
//! Why a file of its own beside the index (`session-sources.json`, private): turning a
//! source off is the person's choice for this machine, so every door that reads sessions
//! (the app, `memory-bank sessions`, and `memory-bank mcp` for their agents) must honour it,
//! and they share only the data folder. It is not in the index, which is a cache that may
//! be deleted and rebuilt. A source turned off is simply not read: its sessions are not
//! listed, read or searched, nor archived as deleted; turned on again, they are back.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::Source;
use crate::source::Env;
use crate::sources;

/// The settings file's name, in the data folder.
pub const SOURCE_SETTINGS_FILE: &str = "session-sources.json";

/// The person's choices about sources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceSettings {
    /// Sources not read at all.
    #[serde(default)]
    pub disabled: Vec<Source>,
}

impl SourceSettings {
    /// The settings kept in `dir`; none (every source on) when there is no file. A file that
    /// cannot be read or parsed is an error naming it: a choice the person made is never
    /// silently forgotten.
    pub fn load(dir: &Path) -> Result<SourceSettings, String> {
        let path = dir.join(SOURCE_SETTINGS_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<SettingsFile>(&bytes)
                .map(SourceSettings::from)
                .map_err(|e| format!("{} is not a session sources file ({e}); fix or delete it", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SourceSettings::default()),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes the settings into `dir` (atomically, private to the person).
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(SOURCE_SETTINGS_FILE);
        let failed = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        memory_bank_private_files::create_dir_all(dir).map_err(failed)?;
        let mut file = memory_bank_private_files::temp_file_in(dir, ".session-sources-", ".tmp").map_err(failed)?;
        let text = serde_json::to_string_pretty(&SettingsFile::from(self)).map_err(|e| e.to_string())?;
        std::io::Write::write_all(&mut file, format!("{text}\n").as_bytes()).map_err(failed)?;
        file.as_file().sync_all().map_err(failed)?;
        file.persist(&path).map_err(|e| failed(e.error))?;
        Ok(())
    }

    /// Whether `source` is read.
    pub fn enabled(&self, source: Source) -> bool {
        !self.disabled.contains(&source)
    }

    /// The same settings with `source` turned on or off.
    pub fn with(mut self, source: Source, enabled: bool) -> SourceSettings {
        self.disabled.retain(|s| *s != source);
        if !enabled {
            self.disabled.push(source);
            self.disabled.sort();
        }
        self
    }
}

/// The file as written: names, so a name this release does not know (a source of a newer
/// one) is kept rather than failing the file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SettingsFile {
    #[serde(default)]
    disabled: Vec<String>,
}

impl From<SettingsFile> for SourceSettings {
    fn from(file: SettingsFile) -> Self {
        SourceSettings { disabled: file.disabled.iter().filter_map(|name| Source::parse(name)).collect() }
    }
}

impl From<&SourceSettings> for SettingsFile {
    fn from(settings: &SourceSettings) -> Self {
        SettingsFile { disabled: settings.disabled.iter().map(|s| s.as_str().to_owned()).collect() }
    }
}

/// One source on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SourceFolders {
    /// The tool.
    pub source: Source,
    /// Whether its sessions are read (Settings → Session history).
    pub enabled: bool,
    /// Whether any of its folders exists here.
    pub found: bool,
    /// Where its sessions are looked for: its default folders on this system, then the
    /// folders added in settings.
    pub folders: Vec<SourceFolder>,
    /// Why its sessions cannot be read, when they cannot (English; the app translates it
    /// by source).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub unreadable: Option<String>,
}

/// One folder a source is read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SourceFolder {
    /// The folder.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// Added in settings (else one of the tool's default folders).
    pub added: bool,
}

/// Every source, in display order, with its folders in `env` and those `added`, and whether
/// `settings` reads it.
pub fn source_folders(env: &Env, added: &[(Source, PathBuf)], settings: &SourceSettings) -> Vec<SourceFolders> {
    Source::ALL
        .iter()
        .map(|&source| {
            let reader = sources::reader(source);
            let defaults = reader.default_roots(env).into_iter().map(|path| (path, false));
            let extra = added.iter().filter(|(s, _)| *s == source).map(|(_, path)| (path.clone(), true));
            let mut folders: Vec<SourceFolder> = Vec::new();
            for (path, added) in defaults.chain(extra) {
                if !folders.iter().any(|f| f.path == path) {
                    folders.push(SourceFolder { exists: path.exists(), path, added });
                }
            }
            SourceFolders {
                source,
                enabled: settings.enabled(source),
                found: folders.iter().any(|f| f.exists),
                folders,
                unreadable: reader.unreadable().map(str::to_owned),
            }
        })
        .collect()
}
