//! The three file formats behind the agents, as one editing interface.
//!
//! An adapter says *where* our entry lives (container key, entry name) and *what* it holds;
//! a format knows how to find, replace and delete it while leaving every other byte alone.
//! The JSON agents share one implementation and differ only in their [`JsonDialect`];
//! Codex's file is TOML, goose's YAML.

mod json;
mod toml;
mod yaml;

use std::path::Path;

pub(crate) use json::{parse_root as parse_json_root, JsonDialect};

use crate::spec::Entry;
use crate::Error;

/// A config file format.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Format {
    /// JSON with the given leniency.
    Json(JsonDialect),
    /// TOML (Codex).
    Toml,
    /// YAML (goose).
    Yaml,
}

/// Where our entry lives: `<container>.<name>` from the top level.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    pub container: &'static str,
    pub name: &'static str,
}

/// A parsed config file that can be edited in place and written back.
pub(crate) trait Document {
    /// Our entry as JSON, if present.
    fn entry(&self) -> Option<serde_json::Value>;
    /// Make our entry exactly `entry`, creating the container if needed.
    fn set_entry(&mut self, entry: &Entry);
    /// Delete our entry, and the container too if that leaves it empty with nothing the user
    /// wrote in it. Returns whether anything was removed.
    fn remove_entry(&mut self) -> bool;
    /// The whole file.
    fn render(&self) -> String;
}

impl Format {
    /// Parse `text` (the file at `path`, for messages) and check that the container, if
    /// present, is a map.
    pub fn parse(self, path: &Path, text: &str, slot: Slot) -> Result<Box<dyn Document>, Error> {
        match self {
            Format::Json(dialect) => Ok(Box::new(json::JsonDoc::parse(path, text, dialect, slot)?)),
            Format::Toml => Ok(Box::new(toml::TomlDoc::parse(path, text, slot)?)),
            Format::Yaml => Ok(Box::new(yaml::YamlDoc::parse(path, text, slot)?)),
        }
    }
}

/// The name of a JSON value's kind, for [`Error::Shape`].
pub(crate) fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
