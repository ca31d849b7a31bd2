//! Registers (or removes) the Memory Bank stdio MCP server in each agent's own config file.
//!
//! Why a crate of its own: the CLI (`memory-bank mcp install --agent …`), the desktop app's
//! Settings → Agents and the tests must all make the same edit, and every agent's file differs
//! in small, breaking ways. So there is one adapter per agent ([`Agent`]) that says where the
//! file is and how our entry is spelled, and shared code that does the editing:
//!
//! | agent | file | our entry |
//! |---|---|---|
//! | Claude Code | `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when set) | `mcpServers.memory-bank = {type: "stdio", command, args: ["mcp"], env: {}}` |
//! | Codex CLI | `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`) | `[mcp_servers.memory-bank]` with `command` and `args` only |
//! | opencode | `$XDG_CONFIG_HOME/opencode/opencode.json` (default `~/.config/…`; `opencode.jsonc` when only that exists) | `mcp.memory-bank = {type: "local", command: [binary, "mcp"], enabled: true}` |
//! | Gemini CLI | `~/.gemini/settings.json` (`$GEMINI_CLI_HOME/.gemini/settings.json` when set) | `mcpServers.memory-bank = {command, args: ["mcp"]}` |
//! | Claude Desktop | `claude_desktop_config.json` in `~/Library/Application Support/Claude` (macOS), `%APPDATA%\Claude` (Windows), `$XDG_CONFIG_HOME/Claude` (Linux community builds) | `mcpServers.memory-bank = {command, args}` |
//! | Cursor | `~/.cursor/mcp.json` | `mcpServers.memory-bank = {command, args}` |
//! | VS Code | the user profile's `mcp.json`: `Code/User/mcp.json` in the same app-settings folder | `servers.memory-bank = {type: "stdio", command, args}` |
//! | Windsurf | `~/.codeium/windsurf/mcp_config.json` | `mcpServers.memory-bank = {command, args}` |
//! | Zed | `settings.json` in `$XDG_CONFIG_HOME/zed` (default `~/.config/zed`; `%APPDATA%\Zed` on Windows) | `context_servers.memory-bank = {command, args}` |
//! | goose | `config.yaml` in `$XDG_CONFIG_HOME/goose` (default `~/.config/goose`, macOS too; `%APPDATA%\Block\goose\config` on Windows; `$GOOSE_PATH_ROOT/config` when set) | `extensions.memory-bank = {type: stdio, cmd, args: [mcp], name: memory-bank, enabled: true, description, timeout: 300, envs: {}, env_keys: []}` |
//!
//! Rules every edit follows:
//! - Only our entry is touched. Comments, key order, indentation, other servers and the
//!   trailing newline survive byte for byte (a CST for JSON/JSONC, `toml_edit` for TOML,
//!   `yaml-edit`'s lossless tree for YAML).
//! - Each agent's file is parsed as leniently as that agent reads it, no more: Claude Code's is
//!   plain JSON (so are Claude Desktop's and Windsurf's), Gemini's allows comments, opencode's,
//!   Cursor's, VS Code's and Zed's are JSONC (comments, trailing commas); goose's is YAML read
//!   strictly (a tab, a key out of line, a duplicate key or a second document is an error).
//! - Install is idempotent (a second plan is [`Change::AlreadyInstalled`]). Re-installing over
//!   an existing entry changes only the keys we own (`command`, `args`, `type`; goose's `cmd`
//!   and `name`) and takes out a remote server's `url`/`uri`/headers, which would clash; every
//!   other key the person wrote in our entry (Claude's `env`, Gemini's `trust`, opencode's
//!   `enabled`, Codex's `startup_timeout_sec` or `env` table, goose's `enabled`, `timeout` or
//!   `envs`, and the layout of goose's `args` list) is kept. Removing after installing gives
//!   back the original bytes: the server map is dropped again when it ends up empty and
//!   holds no comment (an originally empty `"mcpServers": {}` therefore disappears, which
//!   means the same to every agent). A file install created is deleted again by remove when
//!   nothing else is in it (a `<file>.memory-bank.created` note beside it says so); no other
//!   file is ever deleted.
//! - Known exceptions to byte-exactness: a JSON object written on one line is reflowed to one
//!   key per line when our (multi-line) entry goes into it; an empty or comment-only JSON file
//!   is read as `{}`. In YAML nothing is reflowed: into an `extensions` map written flow style
//!   (`extensions: {}`) our entry goes flow style, on that line, and the map stays on remove
//!   as the person wrote it; an empty or comment-only file is read as an empty map and given
//!   back as it was; an `extensions` map the person wrote a comment in stays on remove, as
//!   `{}` under the comment (YAML has no block form of an empty map).
//!   Line endings (LF/CRLF), a UTF-8 BOM and a missing final newline are kept.
//! - A file we cannot parse, or whose server map is not a map, is an [`Error`] naming the file
//!   (and line/column when known); it is left untouched.
//! - Writes are atomic, and the file as it was before our first change is kept beside it
//!   ([`apply`]).
//! - No secret is ever written: [`ServerSpec`] has no token, URL or env field at all.
//!
//! Claude Code rewrites `~/.claude.json` while it runs; [`apply`] refuses to write if the file
//! changed since it was planned, but a rewrite racing the final rename can still drop our edit,
//! so doors should suggest installing while Claude Code is not running.
//!
//! ```no_run
//! use memory_bank_agent_install::{apply, plan_install, Agent, AgentEnv, ServerSpec};
//! let env = AgentEnv::from_process()?;
//! let spec = ServerSpec::new("/usr/local/bin/memory-bank")?;
//! let plan = plan_install(Agent::Codex, &env, &spec)?;
//! print!("{}", plan.diff); // --dry-run stops here
//! apply(&plan)?;
//! # Ok::<(), memory_bank_agent_install::Error>(())
//! ```

#![warn(missing_docs)]

mod adapter;
mod agent;
mod editors;
mod env;
mod error;
mod format;
mod hooks;
mod plan;
mod spec;
mod write;

use std::path::PathBuf;

use serde::Serialize;

pub use agent::{recall_hook_notice, Agent, AgentNotice};
pub use env::{AgentEnv, RELEVANT_VARS};
pub use error::Error;
pub use hooks::hook_command;
pub use plan::{plan_install, plan_install_all, plan_remove, plan_remove_all, Change, Part, Plan};
pub use spec::{invoked_path, ServerSpec, RECALL_FLAG, SERVER_ARGS, SERVER_NAME};
pub use write::{apply, backup_path, created_path, Applied, BACKUP_SUFFIX, CREATED_SUFFIX};

/// What is known about one agent on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentStatus {
    /// The agent.
    pub agent: Agent,
    /// Its human name ([`Agent::display_name`]).
    pub display_name: &'static str,
    /// The config file we would edit.
    pub config_path: PathBuf,
    /// The agent seems set up here: its config file or config folder exists, or its
    /// executable is on `PATH` (existence only; it is not run).
    pub detected: bool,
    /// The file has an entry named `memory-bank`.
    pub installed: bool,
    /// That entry starts the server as [`plan_install`] would write it for the given spec
    /// (the keys we own; the person's own keys beside them do not matter).
    pub entry_matches: bool,
    /// Why the file could not be read or parsed, if so (then `installed` is false).
    pub problem: Option<String>,
    /// What the person must also do for the agent to start our server ([`Agent::notice`]).
    pub notice: Option<AgentNotice>,
    /// Our entry starts the server with recall on (`mcp --recall`).
    pub recall: bool,
    /// For an agent with hooks ([`Agent::has_recall_hook`]): whether our recall hook is in
    /// its file (as we would write it or not); `None` for an agent without hooks.
    pub recall_hook: Option<bool>,
    /// What the person must also do for the agent to run our recall hook ([`Agent::recall_notice`]).
    pub recall_notice: Option<AgentNotice>,
    /// Everything of ours is as the given spec would have it: the server entry, and the
    /// recall hook present exactly as we write it when the spec has recall on, absent
    /// when off. Install then changes nothing.
    pub up_to_date: bool,
}

/// The state of `agent` against `spec`. Never fails: an unreadable or malformed file is
/// reported in [`AgentStatus::problem`], so a list of all agents can always be shown.
pub fn status(agent: Agent, env: &AgentEnv, spec: &ServerSpec) -> AgentStatus {
    let adapter = agent.adapter();
    let config_path = adapter.config_path(env);
    let detected =
        config_path.exists() || adapter.marker_dir(env).is_dir() || adapter.binary().is_some_and(|b| env.on_path(b));
    let mut status = AgentStatus {
        agent,
        display_name: agent.display_name(),
        config_path,
        detected,
        installed: false,
        entry_matches: false,
        problem: None,
        notice: agent.notice(),
        recall: false,
        recall_hook: None,
        recall_notice: agent.recall_notice(),
        up_to_date: false,
    };
    match plan::current_entry(agent, env) {
        Ok(entry) => {
            status.installed = entry.is_some();
            status.recall = entry.as_ref().is_some_and(|e| adapter.entry_has_recall(e));
            status.entry_matches = entry.is_some_and(|e| adapter.entry(spec).is_installed_as(&e));
        }
        Err(e) => status.problem = Some(e.to_string()),
    }
    let hook_as_wanted = match plan::hook_presence(agent, env, spec) {
        Ok(presence) => {
            status.recall_hook = presence.map(|p| p != hooks::Presence::Absent);
            match presence {
                None => true,
                Some(hooks::Presence::Exact) => spec.recall(),
                Some(hooks::Presence::Absent) => !spec.recall(),
                Some(hooks::Presence::Stale) => false,
            }
        }
        Err(e) => {
            status.problem = status.problem.or(Some(e.to_string()));
            false
        }
    };
    status.up_to_date = status.installed && status.entry_matches && hook_as_wanted;
    status
}
