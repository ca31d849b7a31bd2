//! The agents we can register with, and their stable names.
//!
//! The names (`claude-code`, `codex`, `opencode`, `gemini`, `claude-desktop`, `cursor`,
//! `vscode`, `windsurf`, `zed`, `goose`) are a public contract: they are
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
    /// Anthropic's Claude Desktop (`claude_desktop_config.json`).
    ClaudeDesktop,
    /// Anysphere's Cursor (`~/.cursor/mcp.json`).
    Cursor,
    /// Microsoft's VS Code (the user profile's `mcp.json`).
    #[serde(rename = "vscode")]
    VsCode,
    /// Windsurf (`~/.codeium/windsurf/mcp_config.json`).
    Windsurf,
    /// Zed (`~/.config/zed/settings.json`).
    Zed,
    /// Block's goose (`~/.config/goose/config.yaml`).
    Goose,
}

impl Agent {
    /// Every agent, in the order the doors list them.
    pub const ALL: [Agent; 10] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Opencode,
        Agent::Gemini,
        Agent::ClaudeDesktop,
        Agent::Cursor,
        Agent::VsCode,
        Agent::Windsurf,
        Agent::Zed,
        Agent::Goose,
    ];

    /// The stable machine name (`claude-code`, `codex`, `vscode`…).
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Opencode => "opencode",
            Agent::Gemini => "gemini",
            Agent::ClaudeDesktop => "claude-desktop",
            Agent::Cursor => "cursor",
            Agent::VsCode => "vscode",
            Agent::Windsurf => "windsurf",
            Agent::Zed => "zed",
            Agent::Goose => "goose",
        }
    }

    /// The name people know the agent by, for messages and the desktop app.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Opencode => "opencode",
            Agent::Gemini => "Gemini CLI",
            Agent::ClaudeDesktop => "Claude Desktop",
            Agent::Cursor => "Cursor",
            Agent::VsCode => "VS Code",
            Agent::Windsurf => "Windsurf",
            Agent::Zed => "Zed",
            Agent::Goose => "goose",
        }
    }
}

/// Something a person must know to have an agent use our server, beyond installing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum AgentNotice {
    /// Gemini CLI starts MCP servers only in folders the person trusts.
    TrustTheFolder,
    /// Codex runs a new or changed hook only once the person trusts it (`/hooks`).
    TrustTheHook,
}

impl AgentNotice {
    /// The notice in English, for the CLI (the desktop app has it in every UI language).
    pub fn text(self) -> &'static str {
        match self {
            AgentNotice::TrustTheFolder => {
                "Gemini CLI starts MCP servers only in folders you trust: in an untrusted folder `gemini mcp list` \
                 shows memory-bank as Disabled. Gemini CLI asks whether to trust a folder when you first open it \
                 there; the folders you trust are listed in ~/.gemini/trustedFolders.json (a folder as key, \
                 \"TRUST_FOLDER\" as value)."
            }
            AgentNotice::TrustTheHook => {
                "Codex runs a new or changed hook only once you trust it, and skips it without a word until then: \
                 start Codex, open /hooks, and trust memory-bank's recall hook (again after each change to it, such as \
                 a new path of the memory-bank binary)."
            }
        }
    }
}

impl Agent {
    /// What the person must also do for this agent to start our server, if anything.
    pub fn notice(self) -> Option<AgentNotice> {
        match self {
            Agent::Gemini => Some(AgentNotice::TrustTheFolder),
            _ => None,
        }
    }

    /// What the person must also do for this agent to run our recall hook, if anything.
    pub fn recall_notice(self) -> Option<AgentNotice> {
        match self {
            Agent::Codex => Some(AgentNotice::TrustTheHook),
            _ => None,
        }
    }
}

/// What the recall hook does in `agent` (one with hooks), and what the person must do
/// for it to run, in English for the CLI.
pub fn recall_hook_notice(agent: Agent) -> String {
    let events = match agent {
        Agent::Gemini => "before each prompt (BeforeAgent) and when a session starts",
        _ => "on each prompt and when a session starts",
    };
    let mut text = format!(
        "{} runs the recall hook (`memory-bank recall`) {events}: it adds the few memories that clearly bear on it (at \
         most 5, 2 KB), or nothing. It takes effect in sessions started from now on.",
        agent.display_name()
    );
    if let Some(notice) = agent.recall_notice() {
        text.push(' ');
        text.push_str(notice.text());
    }
    text
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
