//! What we register: one stdio server named `memory-bank` that runs `<binary> mcp`.
//!
//! There is deliberately no token, URL or environment field: the stdio server authenticates
//! by being started by the user's own agent on the user's own machine, so a config file
//! written by this crate can never leak a secret, by construction.

use std::path::{Path, PathBuf};

use crate::Error;

/// The key of our entry in every agent's server map.
pub const SERVER_NAME: &str = "memory-bank";

/// The arguments that start the MCP server over stdio.
pub const SERVER_ARGS: [&str; 1] = ["mcp"];

/// The server to register: the absolute path of the `memory-bank` binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSpec {
    command: String,
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
            Some(command) => Ok(ServerSpec { command: command.to_string() }),
            None => Err(Error::BinaryNotUtf8(binary)),
        }
    }

    /// A spec for the running executable (the CLI door registers itself).
    pub fn current_exe() -> Result<ServerSpec, Error> {
        let exe = std::env::current_exe().map_err(Error::CurrentExe)?;
        ServerSpec::new(exe)
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

/// One value inside an entry; only the shapes our entries need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Field {
    Str(String),
    List(Vec<String>),
    Bool(bool),
    EmptyMap,
}

/// An entry as an ordered list of keys (the order we write them in; comparison with what is
/// on disk ignores order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry(pub Vec<(&'static str, Field)>);

impl Entry {
    /// The entry as a JSON value, the common form existing entries are compared in.
    pub fn to_json(&self) -> serde_json::Value {
        let map = self.0.iter().map(|(k, f)| (k.to_string(), f.to_json())).collect();
        serde_json::Value::Object(map)
    }
}

impl Field {
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Field::Str(s) => Value::String(s.clone()),
            Field::List(items) => Value::Array(items.iter().cloned().map(Value::String).collect()),
            Field::Bool(b) => Value::Bool(*b),
            Field::EmptyMap => Value::Object(serde_json::Map::new()),
        }
    }
}

/// [`SERVER_ARGS`] as owned strings.
pub(crate) fn args() -> Vec<String> {
    SERVER_ARGS.iter().map(|a| a.to_string()).collect()
}
