//! Planning: compute the exact new bytes of a config file, and a diff, without writing.
//!
//! Plans are pure values so that `--dry-run`, the desktop app's preview and the tests all see
//! precisely what [`apply`](crate::apply) would write.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::env::AgentEnv;
use crate::spec::ServerSpec;
use crate::{Agent, Error};

const BOM: &str = "\u{feff}";

/// What a plan does to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// The file does not exist; it will be created holding just our entry.
    Create,
    /// Our entry will be added to the existing file.
    Add,
    /// Our entry exists with other content and will be replaced.
    Update,
    /// Our entry will be removed.
    Remove,
    /// Our entry is already exactly as we would write it.
    AlreadyInstalled,
    /// There is no entry of ours to remove.
    NotInstalled,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Change::Create => "create the file with the memory-bank server",
            Change::Add => "add the memory-bank server",
            Change::Update => "update the memory-bank server",
            Change::Remove => "remove the memory-bank server",
            Change::AlreadyInstalled => "already installed; nothing to do",
            Change::NotInstalled => "not installed; nothing to do",
        })
    }
}

/// A computed edit of one agent's config file. Nothing is written until [`apply`](crate::apply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The agent whose file this is.
    pub agent: Agent,
    /// The config file.
    pub path: PathBuf,
    /// What the plan does.
    pub change: Change,
    /// The file's bytes now; `None` when it does not exist.
    pub before: Option<String>,
    /// The file's bytes after applying; `None` when there is no file and none is created,
    /// or when the file goes: install created it and removing our entry leaves nothing else.
    pub after: Option<String>,
    /// Whether applying would write anything (`before != after`).
    pub changed: bool,
    /// A unified diff of `before` → `after` (empty when unchanged).
    pub diff: String,
}

impl Plan {
    fn new(
        agent: Agent,
        path: PathBuf,
        change: Change,
        before: Option<String>,
        after: Option<String>,
    ) -> Plan {
        let changed = before != after;
        let diff =
            if changed { unified_diff(&path, before.as_deref(), after.as_deref()) } else { String::new() };
        Plan { agent, path, change, before, after, changed, diff }
    }
}

/// Plan registering `spec` as the `memory-bank` server of `agent`: create the file, add our
/// entry, or replace a stale one. Only our entry changes.
pub fn plan_install(agent: Agent, env: &AgentEnv, spec: &ServerSpec) -> Result<Plan, Error> {
    let adapter = agent.adapter();
    let path = adapter.config_path(env);
    let before = read_config(&path)?;
    let (bom, body) = split_bom(before.as_deref().unwrap_or(""));
    let mut doc = adapter.format().parse(&path, body, adapter.slot())?;
    let desired = adapter.entry(spec);
    let current = doc.entry();
    if current.as_ref().is_some_and(|c| desired.is_installed_as(c)) {
        return Ok(Plan::new(agent, path, Change::AlreadyInstalled, before.clone(), before));
    }
    doc.set_entry(&desired);
    let mut after = format!("{bom}{}", doc.render());
    if let Some(before) = &before {
        keep_final_newline(before, &mut after);
    }
    let change = match (&before, current) {
        (None, _) => {
            if !after.ends_with('\n') {
                after.push('\n');
            }
            Change::Create
        }
        (Some(_), None) => Change::Add,
        (Some(_), Some(_)) => Change::Update,
    };
    Ok(Plan::new(agent, path, change, before, Some(after)))
}

/// Plan removing our `memory-bank` entry from `agent`'s file. The server map goes too when
/// that leaves it empty and free of comments, so install followed by remove gives back the
/// original bytes. An absent file stays absent; a file install created (there was none) is
/// deleted again when our entry was all it held; any other file is never deleted.
pub fn plan_remove(agent: Agent, env: &AgentEnv) -> Result<Plan, Error> {
    let adapter = agent.adapter();
    let path = adapter.config_path(env);
    let before = read_config(&path)?;
    let Some(text) = before.as_deref() else {
        return Ok(Plan::new(agent, path, Change::NotInstalled, None, None));
    };
    let (bom, body) = split_bom(text);
    let mut doc = adapter.format().parse(&path, body, adapter.slot())?;
    if !doc.remove_entry() {
        return Ok(Plan::new(agent, path, Change::NotInstalled, before.clone(), before));
    }
    let mut rendered = doc.render();
    if !body.starts_with(['\n', '\r']) {
        // A table removed from the top must not leave the blank line that preceded the next.
        rendered = rendered.trim_start_matches(['\n', '\r']).to_string();
    }
    let mut after = format!("{bom}{rendered}");
    keep_final_newline(text, &mut after);
    // A file install created, holding nothing else now, goes again.
    if crate::write::created_path(&path).exists() && matches!(after.trim_start_matches(BOM).trim(), "" | "{}") {
        return Ok(Plan::new(agent, path, Change::Remove, before, None));
    }
    Ok(Plan::new(agent, path, Change::Remove, before, Some(after)))
}

/// Our entry as it is on disk now (as JSON, whatever the format); `None` when absent.
pub(crate) fn current_entry(agent: Agent, env: &AgentEnv) -> Result<Option<serde_json::Value>, Error> {
    let adapter = agent.adapter();
    let path = adapter.config_path(env);
    let Some(text) = read_config(&path)? else { return Ok(None) };
    Ok(adapter.format().parse(&path, split_bom(&text).1, adapter.slot())?.entry())
}

/// The file as text; `None` when it does not exist.
pub(crate) fn read_config(path: &Path) -> Result<Option<String>, Error> {
    match fs::read(path) {
        Ok(bytes) => {
            String::from_utf8(bytes).map(Some).map_err(|_| Error::NotUtf8 { path: path.to_path_buf() })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Read { path: path.to_path_buf(), source }),
    }
}

/// A file that did not end with a newline still does not (TOML rendering adds one after
/// every key), which keeps install → remove byte-exact for such files.
fn keep_final_newline(before: &str, after: &mut String) {
    if !before.is_empty() && !before.ends_with('\n') && after.ends_with('\n') {
        after.pop();
        if after.ends_with('\r') {
            after.pop();
        }
    }
}

/// A byte-order mark is kept but hidden from the parsers.
fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text),
    }
}

fn unified_diff(path: &Path, before: Option<&str>, after: Option<&str>) -> String {
    let shown = path.display().to_string();
    let old_name = if before.is_some() { shown.as_str() } else { "/dev/null" };
    similar::udiff::unified_diff(
        similar::Algorithm::Myers,
        before.unwrap_or(""),
        after.unwrap_or(""),
        3,
        Some((old_name, &shown)),
    )
}
