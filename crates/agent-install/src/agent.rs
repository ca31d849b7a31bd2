//! The agents we can register with, and their stable names.
//!
//! The names (`claude-code`, `codex`, `opencode`, `gemini`) are a public contract: they are
//! the CLI's `--agent` values, the desktop app's identifiers and the serde form, so they are
//! spelled once here and every door parses them through [`Agent::from_str`](std::str::FromStr).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::Error;

/// An agent whose own config file can hold our MCP server entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// Anthropic's Claude Code (`~/.claude.json`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`~/.codex/config.toml`).
    Codex,
    /// sst's opencode (`~/.config/opencode/opencode.json`).
    Opencode,
    /// Google's Gemini CLI (`~/.gemini/settings.json`).
    Gemini,
}

impl Agent {
    /// Every agent, in the order the doors list them.
    pub const ALL: [Agent; 4] = [Agent::ClaudeCode, Agent::Codex, Agent::Opencode, Agent::Gemini];

    /// The stable machine name (`claude-code`, `codex`, `opencode`, `gemini`).
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Opencode => "opencode",
            Agent::Gemini => "gemini",
        }
    }

    /// The name people know the agent by, for messages and the desktop app.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Opencode => "opencode",
            Agent::Gemini => "Gemini CLI",
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Agent {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Agent::ALL.into_iter().find(|a| a.name() == s).ok_or_else(|| Error::UnknownAgent(s.to_string()))
    }
}
