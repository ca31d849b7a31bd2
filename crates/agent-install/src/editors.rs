//! The desktop apps and editors that start MCP servers from a JSON file of their own:
//! Claude Desktop, Cursor, VS Code, Windsurf and Zed (reference: each one's MCP docs, as
//! of 2026-12; the per-OS paths are theirs).
//!
//! They differ from the CLI agents in where the file is (an app's settings folder, per
//! OS) and in small spellings: VS Code's map is `servers` and wants `type`, Zed's is
//! `context_servers`. What an entry of ours holds is the same everywhere: the binary's
//! path and `mcp`, no token.

use std::path::PathBuf;

use crate::adapter::Adapter;
use crate::env::AgentEnv;
use crate::format::{Format, JsonDialect};
use crate::spec::{Entry, Field, ServerSpec};

/// `command` + `args`: the entry most MCP hosts read.
fn command_and_args(spec: &ServerSpec) -> Vec<(&'static str, Field)> {
    vec![("command", Field::Str(spec.command().into())), ("args", Field::List(spec.args()))]
}

/// Anthropic's Claude Desktop: `claude_desktop_config.json` in its settings folder
/// (`~/Library/Application Support/Claude` on macOS, `%APPDATA%\Claude` on Windows; on
/// Linux, where only community builds exist, `$XDG_CONFIG_HOME/Claude`).
pub(crate) struct ClaudeDesktop;

impl Adapter for ClaudeDesktop {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("claude_desktop_config.json")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.app_config_dir().join("Claude")
    }
    fn binary(&self) -> Option<&'static str> {
        None // an app, not a command: found by its settings folder
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::STRICT)
    }
    fn container(&self) -> &'static str {
        "mcpServers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        Entry::owned(command_and_args(spec))
    }
}

/// Anysphere's Cursor: `~/.cursor/mcp.json` on every OS (the editor and its `agent` CLI).
pub(crate) struct Cursor;

impl Adapter for Cursor {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("mcp.json")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.home.join(".cursor")
    }
    fn binary(&self) -> Option<&'static str> {
        Some("cursor")
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::JSONC)
    }
    fn container(&self) -> &'static str {
        "mcpServers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        Entry::owned(command_and_args(spec))
    }
}

/// Microsoft's VS Code: the user profile's `mcp.json` (`Code/User/mcp.json` in the app
/// settings folder), map `servers`, each entry with its `type`.
pub(crate) struct VsCode;

impl Adapter for VsCode {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("User").join("mcp.json")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.app_config_dir().join("Code")
    }
    fn binary(&self) -> Option<&'static str> {
        Some("code")
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::JSONC)
    }
    fn container(&self) -> &'static str {
        "servers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        let mut owned = vec![("type", Field::Str("stdio".into()))];
        owned.extend(command_and_args(spec));
        Entry::owned(owned)
    }
}

/// Windsurf (Cascade): `~/.codeium/windsurf/mcp_config.json` on every OS.
pub(crate) struct Windsurf;

impl Adapter for Windsurf {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("mcp_config.json")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.home.join(".codeium").join("windsurf")
    }
    fn binary(&self) -> Option<&'static str> {
        Some("windsurf")
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::STRICT)
    }
    fn container(&self) -> &'static str {
        "mcpServers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        Entry::owned(command_and_args(spec))
    }
}

/// Zed: its `settings.json` (`~/.config/zed` on Linux and macOS, `%APPDATA%\Zed` on
/// Windows), map `context_servers`. The file holds all of Zed's settings, so only our
/// entry is touched, as everywhere.
pub(crate) struct Zed;

impl Adapter for Zed {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("settings.json")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        if cfg!(windows) {
            env.app_config_dir().join("Zed")
        } else {
            env.dir_or_home("XDG_CONFIG_HOME", &[".config"]).join("zed")
        }
    }
    fn binary(&self) -> Option<&'static str> {
        Some("zed")
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::JSONC)
    }
    fn container(&self) -> &'static str {
        "context_servers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        Entry::owned(command_and_args(spec))
    }
}
