//! What we register: one stdio server named `memory-bank` that runs `<binary> mcp`.
//!
//! There is deliberately no token, URL or environment field: the stdio server authenticates
//! by being started by the user's own agent on the user's own machine, so a config file
//! written by this crate can never leak a secret, by construction. The server's own options
//! (`--root`, `--index`, a key *file*'s path…) are plain arguments after `mcp`.

use std::path::{Path, PathBuf};

use crate::Error;

/// The key of our entry in every agent's server map.
pub const SERVER_NAME: &str = "memory-bank";

/// The arguments that start the MCP server over stdio.
pub const SERVER_ARGS: [&str; 1] = ["mcp"];

/// The server's option that turns recall on (`memory-bank mcp --recall`).
pub const RECALL_FLAG: &str = "--recall";

/// The server to register: the absolute path of the `memory-bank` binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    command: String,
    options: Vec<String>,
    recall: bool,
}

impl ServerSpec {
    /// A spec running `binary mcp`. The path must be absolute (agents start servers from
    /// arbitrary working folders and with a reduced `PATH`) and valid UTF-8 (config files are
    /// text).
    pub fn new(binary: impl Into<PathBuf>) -> Result<ServerSpec, Error> {
        let binary = binary.into();
        if !binary.is_absolute() {
            return Err(Error::BinaryNotAbsolute(binary));
        }
        match binary.to_str() {
            Some(command) => Ok(ServerSpec { command: command.to_string(), options: Vec::new(), recall: false }),
            None => Err(Error::BinaryNotUtf8(binary)),
        }
    }

    /// A spec for the running executable (the CLI door registers itself).
    pub fn current_exe() -> Result<ServerSpec, Error> {
        let exe = std::env::current_exe().map_err(Error::CurrentExe)?;
        ServerSpec::new(exe)
    }

    /// A spec for the running executable by the path the person ran it as (the CLI door
    /// registers itself). A binary run through a symlink, such as a package manager's
    /// `/opt/homebrew/bin/memory-bank` → `…/Cellar/memory-bank/1.2/bin/memory-bank`, is
    /// written as the link, which survives an upgrade; the resolved path would break with
    /// it. Falls back to the resolved path when the path run cannot be found again or is
    /// not this executable.
    pub fn as_invoked() -> Result<ServerSpec, Error> {
        let exe = std::env::current_exe().map_err(Error::CurrentExe)?;
        let cwd = std::env::current_dir().ok();
        let invoked = std::env::args_os()
            .next()
            .and_then(|arg0| invoked_path(Path::new(&arg0), cwd.as_deref(), std::env::var_os("PATH").as_deref()));
        let resolved = std::fs::canonicalize(&exe).ok();
        let same = |p: &PathBuf| resolved.is_some() && std::fs::canonicalize(p).ok() == resolved;
        ServerSpec::new(invoked.filter(same).unwrap_or(exe))
    }

    /// The same server started with these options after `mcp` (`--root`, `--index`,
    /// `--words-only`…): what the person gave `mcp install`, so the agent starts the server
    /// they meant. Never a secret: the doors refuse tokens and database URLs.
    pub fn with_options(mut self, options: Vec<String>) -> ServerSpec {
        self.options = options;
        self
    }

    /// The same server with recall on or off: on, the server tells the agent to look up
    /// memories by itself when a task touches the person's preferences, projects or
    /// earlier decisions (`mcp --recall`), and agents with hooks get the recall hook
    /// (see [`crate::hooks`]); off (the default), it searches only when asked.
    pub fn with_recall(mut self, on: bool) -> ServerSpec {
        self.recall = on;
        self
    }

    /// Whether recall is on.
    pub fn recall(&self) -> bool {
        self.recall
    }

    /// The arguments that start the server: `mcp`, the options, and `--recall` when on.
    pub fn args(&self) -> Vec<String> {
        let recall = self.recall.then(|| RECALL_FLAG.to_owned());
        SERVER_ARGS.iter().map(|a| a.to_string()).chain(self.options.iter().cloned()).chain(recall).collect()
    }

    /// The option the hook needs too: where the bank's key is, when a file holds it.
    pub(crate) fn key_file(&self) -> Option<&str> {
        let at = self.options.iter().position(|o| o == "--db-key-file")?;
        self.options.get(at + 1).map(String::as_str)
    }

    /// The binary path as written into config files.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The binary path.
    pub fn binary(&self) -> &Path {
        Path::new(&self.command)
    }
}

/// Where `arg0` (the program name as run) is, without resolving links: a path with a
/// folder in it is taken as it is (made absolute from `cwd`), a bare name is looked up on
/// `path` as the shell did.
pub fn invoked_path(arg0: &Path, cwd: Option<&Path>, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    if arg0.as_os_str().is_empty() {
        return None;
    }
    if arg0.components().count() > 1 || arg0.is_absolute() {
        let absolute = if arg0.is_absolute() { arg0.to_path_buf() } else { cwd?.join(arg0) };
        // `./memory-bank` from /usr/local/bin: `/usr/local/bin/memory-bank`, not `…/./…`.
        return Some(absolute.components().collect());
    }
    std::env::split_paths(path?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(arg0))
        .find(|candidate| candidate.is_file())
}

/// One value inside an entry; only the shapes our entries need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Field {
    Str(String),
    List(Vec<String>),
    Bool(bool),
    Int(i64),
    EmptyMap,
}

/// Keys of the other transport (a remote server's address and headers): an entry that
/// holds them beside our `command` would be refused by the agents (Codex rejects the
/// mix), so installing the stdio server takes them out. Every other key of the person's
/// stays. goose spells a remote extension's address `uri`, and `socket` routes it
/// through a Unix socket.
pub(crate) const OTHER_TRANSPORT: [&str; 8] =
    ["url", "httpUrl", "uri", "headers", "http_headers", "env_http_headers", "bearer_token_env_var", "socket"];

/// Our entry, as ordered lists of keys (the order we write them in; comparison with what
/// is on disk ignores order).
///
/// Re-installing changes only the keys we own; whatever else the person put in the
/// entry (Claude's `env`, Gemini's `trust` or `timeout`, opencode's `enabled: false`,
/// Codex's `startup_timeout_sec` or `[…env]`) is theirs and stays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Written every time: how the agent starts our server.
    pub owned: Vec<(&'static str, Field)>,
    /// Written only into a new entry, the person's to change afterwards.
    pub initial: Vec<(&'static str, Field)>,
}

impl Entry {
    /// An entry with only keys we own.
    pub fn owned(owned: Vec<(&'static str, Field)>) -> Entry {
        Entry { owned, initial: Vec::new() }
    }

    /// Every key of a new entry, in the order written.
    pub fn fields(&self) -> impl Iterator<Item = &(&'static str, Field)> {
        self.owned.iter().chain(&self.initial)
    }

    /// Whether the entry on disk (as JSON) starts our server as this one would: every
    /// key we own as we would write it, and nothing of the other transport.
    pub fn is_installed_as(&self, existing: &serde_json::Value) -> bool {
        let Some(map) = existing.as_object() else { return false };
        self.owned.iter().all(|(key, field)| map.get(*key) == Some(&field.to_json()))
            && OTHER_TRANSPORT.iter().all(|key| !map.contains_key(*key))
    }
}

impl Field {
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Field::Str(s) => Value::String(s.clone()),
            Field::List(items) => Value::Array(items.iter().cloned().map(Value::String).collect()),
            Field::Bool(b) => Value::Bool(*b),
            Field::Int(i) => Value::from(*i),
            Field::EmptyMap => Value::Object(serde_json::Map::new()),
        }
    }
}

