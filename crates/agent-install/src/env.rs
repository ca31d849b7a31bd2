//! The environment the config paths are resolved from.
//!
//! Every path decision reads this struct instead of the process environment, so tests (and
//! the desktop app, which may run with a different environment than the user's shell) can
//! point every agent at a temporary home folder.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::Error;

/// The variables that move an agent's config file, plus those needed to find its binary.
pub const RELEVANT_VARS: [&str; 8] = [
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "XDG_CONFIG_HOME",
    "GEMINI_CLI_HOME",
    "GOOSE_PATH_ROOT",
    "APPDATA",
    "PATH",
    "PATHEXT",
];

/// A home folder and the environment variables that matter for agent config paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEnv {
    /// The user's home folder (`~`).
    pub home: PathBuf,
    /// Environment variables by name; only [`RELEVANT_VARS`] are consulted.
    pub vars: BTreeMap<String, String>,
}

impl AgentEnv {
    /// A home folder with no variables set: every agent uses its default location and no
    /// binary is found on `PATH`.
    pub fn new(home: impl Into<PathBuf>) -> AgentEnv {
        AgentEnv { home: home.into(), vars: BTreeMap::new() }
    }

    /// The current process's home folder and [`RELEVANT_VARS`].
    ///
    /// The home folder is `$HOME` (`%USERPROFILE%` on Windows), which is what the agents
    /// themselves use, else the platform's notion of it.
    pub fn from_process() -> Result<AgentEnv, Error> {
        let home_var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
        let home = std::env::var_os(home_var)
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))
            .ok_or(Error::NoHome)?;
        let vars = RELEVANT_VARS
            .iter()
            .filter_map(|name| std::env::var(name).ok().map(|v| (name.to_string(), v)))
            .collect();
        Ok(AgentEnv { home, vars })
    }

    /// The same environment with `name` set to `value` (builder style, for tests and callers
    /// that know better than the process environment).
    pub fn with_var(mut self, name: &str, value: impl Into<String>) -> AgentEnv {
        self.vars.insert(name.to_string(), value.into());
        self
    }

    /// A variable that is set and not blank.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str).filter(|v| !v.trim().is_empty())
    }

    /// `$name` as a folder when set, else `home` joined with `default`.
    pub(crate) fn dir_or_home(&self, name: &str, default: &[&str]) -> PathBuf {
        match self.var(name) {
            Some(dir) => PathBuf::from(dir),
            None => default.iter().fold(self.home.clone(), |p, part| p.join(part)),
        }
    }

    /// Where desktop apps keep their settings: `~/Library/Application Support` on macOS,
    /// `%APPDATA%` on Windows (else `~\AppData\Roaming`), `$XDG_CONFIG_HOME` (else
    /// `~/.config`) elsewhere.
    pub(crate) fn app_config_dir(&self) -> PathBuf {
        if cfg!(target_os = "macos") {
            self.home.join("Library").join("Application Support")
        } else if cfg!(windows) {
            self.dir_or_home("APPDATA", &["AppData", "Roaming"])
        } else {
            self.dir_or_home("XDG_CONFIG_HOME", &[".config"])
        }
    }

    /// Whether an executable named `program` is in one of the `PATH` folders (on Windows also
    /// with each `PATHEXT` extension, as npm installs `claude.cmd`). Only existence is checked.
    pub(crate) fn on_path(&self, program: &str) -> bool {
        let Some(path) = self.var("PATH") else { return false };
        let exts: Vec<String> = if cfg!(windows) {
            let list = self.var("PATHEXT").unwrap_or(".COM;.EXE;.BAT;.CMD");
            std::iter::once(String::new()).chain(list.split(';').map(str::to_string)).collect()
        } else {
            vec![String::new()]
        };
        std::env::split_paths(path)
            .any(|dir| exts.iter().any(|ext| dir.join(format!("{program}{ext}")).is_file()))
    }
}
