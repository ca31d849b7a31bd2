//! Integration tests: every agent's file edited in a temporary home folder.

mod fixtures;
mod general;
mod goose;
mod per_agent;
mod recall_hooks;

use std::fs;
use std::path::{Path, PathBuf};

use memory_bank_agent_install::{Agent, AgentEnv, ServerSpec};
use tempfile::TempDir;

/// The binary path written into configs (absolute on every OS, no characters needing escapes).
pub fn bin() -> &'static str {
    if cfg!(windows) {
        "C:/Program Files/Memory Bank/memory-bank.exe"
    } else {
        "/opt/memory-bank/bin/memory-bank"
    }
}

pub fn spec() -> ServerSpec {
    ServerSpec::new(bin()).unwrap()
}

/// Fixture text with `{BIN}` filled in.
pub fn expand(text: &str) -> String {
    text.replace("{BIN}", bin())
}

/// A temporary home folder with no env vars set.
pub struct Home {
    pub dir: TempDir,
    pub env: AgentEnv,
}

impl Home {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let env = AgentEnv::new(dir.path());
        Home { dir, env }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Write `text` at `rel`, creating folders.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// The agent's config file, written with `text`.
    pub fn config(&self, agent: Agent, text: &str) -> PathBuf {
        self.write(fixtures::fixture(agent).rel_path, text)
    }

    pub fn config_path(&self, agent: Agent) -> PathBuf {
        self.path(fixtures::fixture(agent).rel_path)
    }
}

pub fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// Every file under `dir`, relative, sorted (to prove nothing was written).
pub fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path.strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    out.sort();
    out
}
