//! One adapter per agent: where its file is, how it is written, and what our entry looks like
//! there (reference: docs on each agent's MCP config, summarised in the crate docs).

use std::path::PathBuf;

use crate::env::AgentEnv;
use crate::format::{Format, JsonDialect, Slot};
use crate::spec::{Entry, Field, ServerSpec, RECALL_FLAG, SERVER_NAME};
use crate::{editors, Agent};

/// What differs between agents; everything else (planning, diffing, writing) is shared.
pub(crate) trait Adapter: Sync {
    /// The config file we edit.
    fn config_path(&self, env: &AgentEnv) -> PathBuf;
    /// A folder whose existence shows the agent has been used on this machine.
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf;
    /// The agent's executable name, looked up on `PATH` for detection (`None` for an app
    /// that puts none there).
    fn binary(&self) -> Option<&'static str>;
    /// The file format.
    fn format(&self) -> Format;
    /// The top-level key holding the server map.
    fn container(&self) -> &'static str;
    /// Our entry, as this agent spells it.
    fn entry(&self, spec: &ServerSpec) -> Entry;

    /// Whether an entry on disk (as JSON) starts the server with recall on: `--recall` among
    /// its arguments (`args`, or opencode's one `command` list).
    fn entry_has_recall(&self, existing: &serde_json::Value) -> bool {
        ["args", "command"].iter().any(|key| {
            existing.get(key).and_then(|v| v.as_array()).is_some_and(|items| items.iter().any(|i| i == RECALL_FLAG))
        })
    }

    /// Where our entry lives.
    fn slot(&self) -> Slot {
        Slot { container: self.container(), name: SERVER_NAME }
    }
}

impl Agent {
    pub(crate) fn adapter(self) -> &'static dyn Adapter {
        match self {
            Agent::ClaudeCode => &ClaudeCode,
            Agent::Codex => &Codex,
            Agent::Opencode => &Opencode,
            Agent::Gemini => &Gemini,
            Agent::ClaudeDesktop => &editors::ClaudeDesktop,
            Agent::Cursor => &editors::Cursor,
            Agent::VsCode => &editors::VsCode,
            Agent::Windsurf => &editors::Windsurf,
            Agent::Zed => &editors::Zed,
            Agent::Goose => &Goose,
        }
    }
}

/// `~/.claude.json` (user scope); `$CLAUDE_CONFIG_DIR/.claude.json` when that is set.
struct ClaudeCode;

impl Adapter for ClaudeCode {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        match env.var("CLAUDE_CONFIG_DIR") {
            Some(dir) => PathBuf::from(dir).join(".claude.json"),
            None => env.home.join(".claude.json"),
        }
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.dir_or_home("CLAUDE_CONFIG_DIR", &[".claude"])
    }
    fn binary(&self) -> Option<&'static str> {
        Some("claude")
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::STRICT)
    }
    fn container(&self) -> &'static str {
        "mcpServers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        Entry {
            owned: vec![
                ("type", Field::Str("stdio".into())),
                ("command", Field::Str(spec.command().into())),
                ("args", Field::List(spec.args())),
            ],
            initial: vec![("env", Field::EmptyMap)],
        }
    }
}

/// `$CODEX_HOME/config.toml`, default `~/.codex/config.toml`.
struct Codex;

impl Adapter for Codex {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("config.toml")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.dir_or_home("CODEX_HOME", &[".codex"])
    }
    fn binary(&self) -> Option<&'static str> {
        Some("codex")
    }
    fn format(&self) -> Format {
        Format::Toml
    }
    fn container(&self) -> &'static str {
        "mcp_servers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        // Codex rejects unknown keys and stdio/HTTP mixes: a new entry holds these two only.
        Entry::owned(vec![("command", Field::Str(spec.command().into())), ("args", Field::List(spec.args()))])
    }
}

/// `$XDG_CONFIG_HOME/opencode/opencode.json` (default `~/.config`, on every OS), or the
/// `opencode.jsonc` beside it when only that one exists.
struct Opencode;

impl Adapter for Opencode {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        let dir = self.marker_dir(env);
        let json = dir.join("opencode.json");
        let jsonc = dir.join("opencode.jsonc");
        if !json.exists() && jsonc.exists() {
            jsonc
        } else {
            json
        }
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.dir_or_home("XDG_CONFIG_HOME", &[".config"]).join("opencode")
    }
    fn binary(&self) -> Option<&'static str> {
        Some("opencode")
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::JSONC)
    }
    fn container(&self) -> &'static str {
        "mcp"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        let mut command = vec![spec.command().to_string()];
        command.extend(spec.args());
        Entry {
            owned: vec![("type", Field::Str("local".into())), ("command", Field::List(command))],
            initial: vec![("enabled", Field::Bool(true))],
        }
    }
}

/// `~/.gemini/settings.json`; `$GEMINI_CLI_HOME` replaces the home folder, so the file is
/// then `$GEMINI_CLI_HOME/.gemini/settings.json`.
struct Gemini;

impl Adapter for Gemini {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("settings.json")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        env.dir_or_home("GEMINI_CLI_HOME", &[]).join(".gemini")
    }
    fn binary(&self) -> Option<&'static str> {
        Some("gemini")
    }
    fn format(&self) -> Format {
        Format::Json(JsonDialect::COMMENTS)
    }
    fn container(&self) -> &'static str {
        "mcpServers"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        Entry::owned(vec![("command", Field::Str(spec.command().into())), ("args", Field::List(spec.args()))])
    }
}

/// Block's goose: `config.yaml` in its config folder, `$XDG_CONFIG_HOME/goose` (default
/// `~/.config/goose`, macOS included) or `%APPDATA%\Block\goose\config` on Windows;
/// `$GOOSE_PATH_ROOT/config` when that is set. Extensions are the `extensions` map, keyed
/// by name, each a flat map with its `type`.
struct Goose;

impl Adapter for Goose {
    fn config_path(&self, env: &AgentEnv) -> PathBuf {
        self.marker_dir(env).join("config.yaml")
    }
    fn marker_dir(&self, env: &AgentEnv) -> PathBuf {
        if let Some(root) = env.var("GOOSE_PATH_ROOT") {
            PathBuf::from(root).join("config")
        } else if cfg!(windows) {
            env.app_config_dir().join("Block").join("goose").join("config")
        } else {
            env.dir_or_home("XDG_CONFIG_HOME", &[".config"]).join("goose")
        }
    }
    fn binary(&self) -> Option<&'static str> {
        Some("goose")
    }
    fn format(&self) -> Format {
        Format::Yaml
    }
    fn container(&self) -> &'static str {
        "extensions"
    }
    fn entry(&self, spec: &ServerSpec) -> Entry {
        // goose finds an extension by its `name` (then by its key), so ours names itself; it
        // skips one without `enabled`. The rest of a new entry is what goose writes for one.
        Entry {
            owned: vec![
                ("type", Field::Str("stdio".into())),
                ("cmd", Field::Str(spec.command().into())),
                ("args", Field::List(spec.args())),
                ("name", Field::Str(SERVER_NAME.into())),
            ],
            initial: vec![
                ("enabled", Field::Bool(true)),
                ("description", Field::Str(GOOSE_DESCRIPTION.into())),
                ("timeout", Field::Int(300)),
                ("envs", Field::EmptyMap),
                ("env_keys", Field::List(Vec::new())),
            ],
        }
    }
}

/// What goose shows for our extension.
const GOOSE_DESCRIPTION: &str = "Memory Bank: the person's plaintext memory and their past agent sessions.";
