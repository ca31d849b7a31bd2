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
use crate::{hooks, Agent, Error};

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

/// What of ours a plan changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Part {
    /// The `memory-bank` MCP server entry.
    Server,
    /// The recall hook ([`crate::hooks`]).
    RecallHook,
}

impl Part {
    /// What it is, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Part::Server => "the memory-bank server",
            Part::RecallHook => "the recall hook",
        }
    }
}

/// A computed edit of one agent's config file. Nothing is written until [`apply`](crate::apply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The agent whose file this is.
    pub agent: Agent,
    /// What of ours it changes.
    pub part: Part,
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
        Plan { agent, part: Part::Server, path, change, before, after, changed, diff }
    }

    fn of(mut self, part: Part) -> Plan {
        self.part = part;
        self
    }

    /// What the plan does, in words ("add the recall hook").
    pub fn summary(&self) -> String {
        match self.change {
            Change::Create => format!("create the file with {}", self.part.noun()),
            Change::Add => format!("add {}", self.part.noun()),
            Change::Update => format!("update {}", self.part.noun()),
            Change::Remove => format!("remove {}", self.part.noun()),
            Change::AlreadyInstalled => format!("{} is already installed; nothing to do", self.part.noun()),
            Change::NotInstalled => format!("{} is not installed; nothing to do", self.part.noun()),
        }
    }
}

/// Plan registering `spec` as the `memory-bank` server of `agent`: create the file, add our
/// entry, or replace a stale one. Only our entry changes.
pub fn plan_install(agent: Agent, env: &AgentEnv, spec: &ServerSpec) -> Result<Plan, Error> {
    let path = agent.adapter().config_path(env);
    let before = read_config(&path)?;
    server_install(agent, path, before, spec)
}

fn server_install(agent: Agent, path: PathBuf, before: Option<String>, spec: &ServerSpec) -> Result<Plan, Error> {
    let adapter = agent.adapter();
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
    let path = agent.adapter().config_path(env);
    let before = read_config(&path)?;
    server_remove(agent, path, before)
}

fn server_remove(agent: Agent, path: PathBuf, before: Option<String>) -> Result<Plan, Error> {
    let adapter = agent.adapter();
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
    Ok(removal(agent, path, before, after))
}

/// A removal's plan: the file deleted when install created it and nothing else is left.
fn removal(agent: Agent, path: PathBuf, before: Option<String>, after: String) -> Plan {
    if crate::write::created_path(&path).exists() && matches!(after.trim_start_matches(BOM).trim(), "" | "{}") {
        return Plan::new(agent, path, Change::Remove, before, None);
    }
    Plan::new(agent, path, Change::Remove, before, Some(after))
}

/// Every change that brings `agent` to `spec`: its server entry, then its recall hook
/// (for an agent that has one), present when `spec` has recall on and taken out when it
/// is off. One plan per part, in the order to [`apply`](crate::apply) them; a later plan
/// of the same file (Gemini CLI keeps both in `settings.json`) starts from the earlier
/// one's result, so apply them in order and stop at the first error.
pub fn plan_install_all(agent: Agent, env: &AgentEnv, spec: &ServerSpec) -> Result<Vec<Plan>, Error> {
    let server = plan_install(agent, env, spec)?;
    let mut plans = vec![server];
    if let Some(file) = agent.hook_file(env) {
        let before = latest(&plans, &file.path)?;
        let hook = if spec.recall() {
            Some(hook_install(agent, &file, before, spec)?)
        } else {
            Some(hook_remove(agent, &file, before)?).filter(|p| p.changed)
        };
        plans.extend(hook);
    }
    Ok(plans)
}

/// Every change that takes `agent`'s entries out: the recall hook first (when it has
/// one and it is there), then the server entry. Apply in order, as
/// [`plan_install_all`]'s.
pub fn plan_remove_all(agent: Agent, env: &AgentEnv) -> Result<Vec<Plan>, Error> {
    let mut plans = Vec::new();
    if let Some(file) = agent.hook_file(env) {
        let hook = hook_remove(agent, &file, read_config(&file.path)?)?;
        if hook.changed {
            plans.push(hook);
        }
    }
    let path = agent.adapter().config_path(env);
    let before = latest(&plans, &path)?;
    plans.push(server_remove(agent, path, before)?);
    Ok(plans)
}

/// The file's text once `plans` are applied.
fn latest(plans: &[Plan], path: &Path) -> Result<Option<String>, Error> {
    match plans.iter().rev().find(|p| p.path == path) {
        Some(plan) => Ok(plan.after.clone()),
        None => read_config(path),
    }
}

fn hook_install(agent: Agent, file: &hooks::HookFile, before: Option<String>, spec: &ServerSpec) -> Result<Plan, Error> {
    let path = file.path.clone();
    let (bom, body) = split_bom(before.as_deref().unwrap_or(""));
    let want = hooks::our_hook(file, agent, spec);
    let (rendered, was) = hooks::edit(file, agent, body, Some(&want))?;
    if was == hooks::Presence::Exact {
        return Ok(Plan::new(agent, path, Change::AlreadyInstalled, before.clone(), before).of(Part::RecallHook));
    }
    let mut after = format!("{bom}{rendered}");
    let change = match (&before, was) {
        (None, _) => Change::Create,
        (Some(_), hooks::Presence::Absent) => Change::Add,
        (Some(_), _) => Change::Update,
    };
    match &before {
        Some(before) => keep_final_newline(before, &mut after),
        None if !after.ends_with('\n') => after.push('\n'),
        None => {}
    }
    Ok(Plan::new(agent, path, change, before, Some(after)).of(Part::RecallHook))
}

fn hook_remove(agent: Agent, file: &hooks::HookFile, before: Option<String>) -> Result<Plan, Error> {
    let path = file.path.clone();
    let Some(text) = before.as_deref() else {
        return Ok(Plan::new(agent, path, Change::NotInstalled, None, None).of(Part::RecallHook));
    };
    let (bom, body) = split_bom(text);
    let (rendered, was) = hooks::edit(file, agent, body, None)?;
    if was == hooks::Presence::Absent {
        return Ok(Plan::new(agent, path, Change::NotInstalled, before.clone(), before).of(Part::RecallHook));
    }
    let mut after = format!("{bom}{rendered}");
    keep_final_newline(text, &mut after);
    Ok(removal(agent, path, before, after).of(Part::RecallHook))
}

/// Whether `agent`'s recall hook is in place as `spec` would have it: `None` for an
/// agent without hooks.
pub(crate) fn hook_presence(agent: Agent, env: &AgentEnv, spec: &ServerSpec) -> Result<Option<hooks::Presence>, Error> {
    let Some(file) = agent.hook_file(env) else { return Ok(None) };
    let Some(text) = read_config(&file.path)? else { return Ok(Some(hooks::Presence::Absent)) };
    let want = hooks::our_hook(&file, agent, spec);
    hooks::read_presence(&file, agent, split_bom(&text).1, Some(&want)).map(Some)
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
