//! The recall hook (`memory-bank recall`) in the agents whose documented hooks can add
//! context to what the model reads, installed only when the person turns recall on.
//!
//! | agent | file | events | our hook |
//! |---|---|---|---|
//! | Claude Code | `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`) | `SessionStart`, `UserPromptSubmit` | `{type: "command", command, timeout: 10}` (seconds) |
//! | Gemini CLI | `~/.gemini/settings.json` | `SessionStart`, `BeforeAgent` | `{type: "command", command, name, timeout: 10000}` (milliseconds) |
//! | Codex CLI | `$CODEX_HOME/hooks.json` | `SessionStart`, `UserPromptSubmit` | `{type: "command", command, timeout: 10}` (seconds) |
//!
//! Each file holds `hooks.<event>`: a list of groups (`{matcher?, hooks: [...]}`), each a
//! list of hooks. Ours is a group of its own holding one hook whose command is
//! `<binary> recall [--db-key-file <path>] --agent <name>`; it is recognised by that
//! command (a binary named `memory-bank…` running `recall` and ending in our `--agent`),
//! wherever the person may have moved it. Install adds our group to each event, or
//! brings our hook's command and timeout up to date in place; remove takes our hooks
//! out, and a group, an event or the `hooks` map that is left empty by that. The
//! person's own hooks, and every other byte, stay as they are (the same CST editing as
//! the server entry, [`crate::format`]).

use std::path::{Path, PathBuf};

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};

use crate::env::AgentEnv;
use crate::format::{json_kind, JsonDialect};
use crate::{Agent, Error, ServerSpec};

/// The key of the hook map in each agent's file.
const HOOKS: &str = "hooks";

/// Where and how one agent keeps its hooks.
pub(crate) struct HookFile {
    /// The file.
    pub path: PathBuf,
    /// How it is parsed.
    pub dialect: JsonDialect,
    /// The events our hook answers.
    pub events: &'static [&'static str],
    /// Our hook's `timeout` value, in the agent's unit.
    pub timeout: u32,
    /// Our hook's `name`, for an agent that shows one.
    pub name: Option<&'static str>,
}

impl Agent {
    /// Whether this agent has a documented hook that adds context, so turning recall on
    /// installs ours there.
    pub fn has_recall_hook(self) -> bool {
        matches!(self, Agent::ClaudeCode | Agent::Gemini | Agent::Codex)
    }

    /// Where this agent's hooks are, for the agents that have them.
    pub(crate) fn hook_file(self, env: &AgentEnv) -> Option<HookFile> {
        let file = match self {
            Agent::ClaudeCode => HookFile {
                path: env.dir_or_home("CLAUDE_CONFIG_DIR", &[".claude"]).join("settings.json"),
                dialect: JsonDialect::STRICT,
                events: &["SessionStart", "UserPromptSubmit"],
                timeout: 10,
                name: None,
            },
            Agent::Gemini => HookFile {
                path: self.adapter().config_path(env),
                dialect: JsonDialect::COMMENTS,
                events: &["SessionStart", "BeforeAgent"],
                timeout: 10_000,
                name: Some("memory-bank-recall"),
            },
            Agent::Codex => HookFile {
                path: env.dir_or_home("CODEX_HOME", &[".codex"]).join("hooks.json"),
                dialect: JsonDialect::STRICT,
                events: &["SessionStart", "UserPromptSubmit"],
                timeout: 10,
                name: None,
            },
            _ => return None,
        };
        Some(file)
    }
}

/// The command our hook runs: the binary (quoted for the shell the agent runs it with
/// when it needs to be), `recall`, the key file when the server has one, and the agent.
pub fn hook_command(agent: Agent, spec: &ServerSpec) -> String {
    let mut command = format!("{} recall", shell_word(spec.command()));
    if let Some(key_file) = spec.key_file() {
        command.push_str(" --db-key-file ");
        command.push_str(&shell_word(key_file));
    }
    command.push_str(" --agent ");
    command.push_str(agent.name());
    command
}

/// `word` as one word for a POSIX shell: as it is when it has nothing the shell reads,
/// else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Whether `command` is our recall hook for `agent` (whatever binary path it names).
fn is_ours(command: &str, agent: Agent) -> bool {
    let command = command.trim();
    // The first word: a quoted one runs to its closing quote.
    let program = match command.chars().next() {
        Some(quote @ ('\'' | '"')) => command[1..].split(quote).next().unwrap_or_default(),
        _ => command.split_whitespace().next().unwrap_or_default(),
    };
    let file = program.rsplit(['/', '\\']).next().unwrap_or(program);
    file.starts_with("memory-bank")
        && command.contains(" recall ")
        && command.ends_with(&format!("--agent {}", agent.name()))
}

/// Whether the hooks in `text` hold ours for every event, exactly as `want` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// None of ours.
    Absent,
    /// Ours on every event, as we would write it.
    Exact,
    /// Some of ours, or ours spelled otherwise (an older binary path, another timeout).
    Stale,
}

/// The file's hooks edited: ours set to `want` on every event (`Some`: install) or
/// taken out (`None`: remove). Returns the new text and what was there before.
pub(crate) fn edit(file: &HookFile, agent: Agent, text: &str, want: Option<&OurHook>) -> Result<(String, Presence), Error> {
    let root = parse(&file.path, text, file.dialect)?;
    let before = presence(&root, file, agent, want);
    let top = root.object_value_or_set();
    match want {
        Some(hook) => {
            let hooks = top.object_value_or_set(HOOKS);
            for event in file.events {
                install_one(&hooks, event, agent, hook);
            }
        }
        None => {
            if let Some(hooks) = top.object_value(HOOKS) {
                for event in file.events {
                    remove_ours(&hooks, event, agent);
                }
                let keep = !hooks.properties().is_empty() || hooks.children().iter().any(|c| c.is_comment());
                if !keep {
                    if let Some(prop) = top.get(HOOKS) {
                        prop.remove();
                    }
                }
            }
        }
    }
    Ok((root.to_string(), before))
}

/// Our hook as the agent spells it, its keys in the order written.
pub(crate) struct OurHook(Vec<(&'static str, serde_json::Value)>);

impl OurHook {
    /// Whether `hook` holds each of our keys as we write it (keys the person added beside
    /// them do not matter).
    fn is_in(&self, hook: &CstObject) -> bool {
        self.0.iter().all(|(key, value)| hook.get(key).and_then(|p| p.value()).and_then(|v| v.to_serde_value()).as_ref() == Some(value))
    }

    fn input(&self) -> CstInputValue {
        CstInputValue::Object(self.0.iter().map(|(k, v)| ((*k).to_owned(), to_input(v))).collect())
    }
}

/// Our hook for `agent` and `spec`.
pub(crate) fn our_hook(file: &HookFile, agent: Agent, spec: &ServerSpec) -> OurHook {
    let mut keys = vec![("type", "command".into()), ("command", hook_command(agent, spec).into())];
    if let Some(name) = file.name {
        keys.push(("name", name.into()));
    }
    keys.push(("timeout", file.timeout.into()));
    OurHook(keys)
}

/// Whether `text` holds our hook on every event as `want` (used for the agent's status).
pub(crate) fn read_presence(file: &HookFile, agent: Agent, text: &str, want: Option<&OurHook>) -> Result<Presence, Error> {
    Ok(presence(&parse(&file.path, text, file.dialect)?, file, agent, want))
}

fn parse(path: &Path, text: &str, dialect: JsonDialect) -> Result<CstRootNode, Error> {
    let root = crate::format::parse_json_root(path, text, dialect)?;
    let shape = |key: String, found: Option<serde_json::Value>, expected: &'static str| Error::Shape {
        path: path.to_path_buf(),
        key,
        expected,
        found: found.as_ref().map_or("not a value", json_kind),
    };
    if let Some(value) = root.value() {
        let top = value.as_object().ok_or_else(|| shape("the top level".into(), value.to_serde_value(), "an object"))?;
        if let Some(hooks) = top.get(HOOKS).and_then(|p| p.value()) {
            let hooks = hooks.as_object().ok_or_else(|| shape(format!("\"{HOOKS}\""), hooks.to_serde_value(), "an object"))?;
            for prop in hooks.properties() {
                let (Some(name), Some(value)) = (prop.name(), prop.value()) else { continue };
                let name = name.decoded_value().unwrap_or_default();
                if value.as_array().is_none() {
                    return Err(shape(format!("\"{HOOKS}.{name}\""), value.to_serde_value(), "a list"));
                }
            }
        }
    }
    Ok(root)
}

/// Our hooks under `event`: each group holding one, and the hook objects themselves.
fn ours_in(hooks: &CstObject, event: &str, agent: Agent) -> Vec<(CstObject, CstObject)> {
    let Some(groups) = hooks.array_value(event) else { return Vec::new() };
    let mut found = Vec::new();
    for group in groups.elements().iter().filter_map(|g| g.as_object()) {
        let Some(inner) = group.array_value(HOOKS) else { continue };
        for hook in inner.elements().iter().filter_map(|h| h.as_object()) {
            let command = hook.get("command").and_then(|p| p.value()).and_then(|v| v.to_serde_value());
            if command.as_ref().and_then(|c| c.as_str()).is_some_and(|c| is_ours(c, agent)) {
                found.push((group.clone(), hook));
            }
        }
    }
    found
}

fn presence(root: &CstRootNode, file: &HookFile, agent: Agent, want: Option<&OurHook>) -> Presence {
    let Some(hooks) = root.object_value().and_then(|o| o.object_value(HOOKS)) else { return Presence::Absent };
    let per_event: Vec<Vec<(CstObject, CstObject)>> = file.events.iter().map(|e| ours_in(&hooks, e, agent)).collect();
    if per_event.iter().all(Vec::is_empty) {
        return Presence::Absent;
    }
    let exact = per_event.iter().all(|ours| ours.len() == 1 && want.is_some_and(|w| w.is_in(&ours[0].1)));
    if exact {
        Presence::Exact
    } else {
        Presence::Stale
    }
}

fn to_input(value: &serde_json::Value) -> CstInputValue {
    match value {
        serde_json::Value::Null => CstInputValue::Null,
        serde_json::Value::Bool(b) => CstInputValue::Bool(*b),
        serde_json::Value::Number(n) => CstInputValue::Number(n.to_string()),
        serde_json::Value::String(s) => CstInputValue::String(s.clone()),
        serde_json::Value::Array(items) => CstInputValue::Array(items.iter().map(to_input).collect()),
        serde_json::Value::Object(map) => CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), to_input(v))).collect()),
    }
}

/// Our hook on `event`: the first one of ours brought up to date in place (any other of
/// ours there removed), or a group of our own appended.
fn install_one(hooks: &CstObject, event: &str, agent: Agent, hook: &OurHook) {
    let mut ours = ours_in(hooks, event, agent).into_iter();
    match ours.next() {
        Some((_, first)) => {
            if !hook.is_in(&first) {
                set_keys(&first, hook);
            }
            for (group, extra) in ours {
                remove_hook(&group, extra);
            }
        }
        None => {
            let group = CstInputValue::Object(vec![(HOOKS.to_owned(), CstInputValue::Array(vec![hook.input()]))]);
            hooks.array_value_or_set(event).append(group);
        }
    }
}

/// Our keys of the hook set to ours; any other key the person added stays.
fn set_keys(existing: &CstObject, hook: &OurHook) {
    for (key, value) in &hook.0 {
        match existing.get(key) {
            Some(prop) if prop.value().and_then(|v| v.to_serde_value()).as_ref() == Some(value) => {}
            Some(prop) => prop.set_value(to_input(value)),
            None => {
                existing.append(key, to_input(value));
            }
        }
    }
}

fn remove_ours(hooks: &CstObject, event: &str, agent: Agent) {
    for (group, hook) in ours_in(hooks, event, agent) {
        remove_hook(&group, hook);
    }
    let empty = hooks.array_value(event).is_some_and(|groups| groups.elements().is_empty());
    if empty {
        if let Some(prop) = hooks.get(event) {
            prop.remove();
        }
    }
}

/// Takes `hook` out of `group`, and the group too when that leaves it with no hook.
fn remove_hook(group: &CstObject, hook: CstObject) {
    hook.remove();
    if group.array_value(HOOKS).is_none_or(|inner| inner.elements().is_empty()) {
        group.clone().remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_with_spaces_or_quotes_is_one_shell_word() {
        assert_eq!(shell_word("/usr/local/bin/memory-bank"), "/usr/local/bin/memory-bank");
        assert_eq!(shell_word("/Applications/Memory Bank.app/bin/memory-bank"), "'/Applications/Memory Bank.app/bin/memory-bank'");
        assert_eq!(shell_word("/tmp/it's/memory-bank"), r"'/tmp/it'\''s/memory-bank'");
    }

    #[test]
    fn our_hook_is_known_by_its_command_whatever_the_binary_path() {
        assert!(is_ours("/opt/mb/memory-bank recall --agent claude-code", Agent::ClaudeCode));
        assert!(is_ours("'/My Apps/memory-bank' recall --db-key-file /k --agent claude-code", Agent::ClaudeCode));
        assert!(is_ours("C:\\mb\\memory-bank.exe recall --agent codex", Agent::Codex));
        assert!(!is_ours("/opt/mb/memory-bank recall --agent gemini", Agent::ClaudeCode));
        assert!(!is_ours("/usr/bin/other-tool recall --agent claude-code", Agent::ClaudeCode));
        assert!(!is_ours("/opt/mb/memory-bank mcp --agent claude-code", Agent::ClaudeCode));
    }
}
