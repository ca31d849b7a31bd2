//! GitHub Copilot CLI (npm `@github/copilot`): `~/.copilot` on every OS (`%USERPROFILE%\.copilot`
//! on Windows, the home folder as Node's `os.homedir()` gives it). `$COPILOT_HOME` replaces
//! that folder, taken as written (the CLI expands no `~` in it); the deprecated
//! `--config-dir` flag moves it too, and such a folder is one the person adds. Releases
//! before 1.0.0 (0.0.423 the last) kept their state in `$XDG_STATE_HOME/.copilot` when
//! that variable was set; from 1.0.0 on the CLI moves `session-state` from there to
//! `~/.copilot` at startup and leaves a symbolic link behind, so that folder is a default
//! root only while it still holds a `session-state` folder of its own (not the link), and
//! is not the same folder as the main one.
//!
//! Learnt from the package itself: 1.0.102 (`schemas/session-events.schema.json`, the
//! event schema the CLI ships; `cli-main.js`; the native `runtime.node` it loads), the
//! JavaScript bundles of 0.0.340, 0.0.343, 0.0.354, 0.0.370, 0.0.380, 0.0.400, 0.0.423,
//! 1.0.0 and 1.0.6 for the older layouts and folders, and from sessions the real CLI
//! 1.0.102 wrote with no login against a loopback stub of the OpenAI API
//! (`COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL`): prompt mode, a resumed session,
//! a tool call, a sub-agent, `/rename`, `/compact`, `/rewind`, `/fork`, an `@file`
//! mention and a `!` shell command. wesm/agentsview `internal/parser/copilot.go`
//! (6ab63f7) reads the same two JSON Lines layouts.
//!
//! Three layouts, all read (a root is `~/.copilot`, or its `session-state` or
//! `history-session-state` folder):
//!
//! - Current (from about 0.0.380): `session-state/<sessionId>/events.jsonl`, append-only
//!   JSON Lines of events (`events.rs`), with `workspace.yaml` beside it (`workspace.rs`),
//!   whose `name` (or, in releases around 1.0.6, `summary`) is the session's title:
//!   the first prompt in prompt mode, a generated name in interactive mode, or what the
//!   person chose with `/rename` (`user_named: true`). No event holds the title
//!   (`session.title_changed` is never written to disk), so `workspace.yaml` is a unit
//!   of its own, read whole, whose only event is an
//!   [`ExternalTitle`](crate::events::Event::ExternalTitle). Also in the folder, not read:
//!   `checkpoints/` (compaction summaries as Markdown), `files/`, `research/`,
//!   `rewind-file-snapshots/`, `session.db` (the agent's SQL scratch database) and lock
//!   files. `/rewind` rewrites `events.jsonl` shorter (a new file), `/fork` copies the
//!   events into a new session folder under a new id.
//! - 0.0.343 … 0.0.37x: the same events in `session-state/<sessionId>.jsonl`. Later
//!   releases still append to such a file when it exists, so when both a file and a
//!   folder name one session, the file is read, as the CLI does.
//! - Up to 0.0.340 at least: `history-session-state/session_<sessionId>_<start ms>.json`,
//!   one JSON document rewritten as the session goes on (`legacy.rs`). The releases after
//!   it converted such a session into the JSON Lines layout when it was resumed (a
//!   `session.import_legacy` event holding it) and deleted the document; one left beside
//!   its converted session is not read twice.
//!
//! Not read: `session-store.db` (a search cache of turns and checkpoints, rebuilt from
//! the events), `logs/`, `command-history-state.json` (prompts without sessions),
//! `config.json`, `settings.json`.

mod events;
mod legacy;
mod workspace;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::model::Source;
use crate::source::{Env, LineParser, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession};

/// Reads GitHub Copilot CLI sessions.
pub struct CopilotCli;

/// The folder of the current layouts.
const SESSION_STATE: &str = "session-state";
/// The folder of the first layout.
const LEGACY_STATE: &str = "history-session-state";
/// A session's events in the current layout.
const EVENTS_FILE: &str = "events.jsonl";
/// A session's metadata (title, folder) in the current layout.
pub(crate) const WORKSPACE_FILE: &str = "workspace.yaml";
/// The folder name the CLI keeps under `$COPILOT_HOME`'s parent, `$HOME` or `$XDG_STATE_HOME`.
const DOT_COPILOT: &str = ".copilot";

impl SourceReader for CopilotCli {
    fn source(&self) -> Source {
        Source::CopilotCli
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        let main = match env.var("COPILOT_HOME") {
            Some(dir) => Some(PathBuf::from(dir)),
            None => env.home.as_ref().map(|h| h.join(DOT_COPILOT)),
        };
        let mut roots: Vec<PathBuf> = main.iter().cloned().collect();
        if let Some(state) = env.var("XDG_STATE_HOME") {
            let old = PathBuf::from(state).join(DOT_COPILOT);
            if main.as_ref().is_none_or(|main| !same_folder(&old, main)) && !migrated(&old) {
                roots.push(old);
            }
        }
        roots
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        let name = root.file_name().and_then(|n| n.to_str());
        let (current, legacy) = match name {
            Some(SESSION_STATE) => (Some(root.to_path_buf()), None),
            Some(LEGACY_STATE) => (None, Some(root.to_path_buf())),
            _ => (Some(root.join(SESSION_STATE)), Some(root.join(LEGACY_STATE))),
        };

        let mut found: Vec<Unit> = Vec::new();
        let mut ids: HashSet<String> = HashSet::new();
        if let Some(dir) = current {
            let entries = confined.read_dir(&dir, problems);
            // A bare `<id>.jsonl` is the one the CLI appends to when both exist.
            let bare: HashSet<String> = entries
                .iter()
                .filter(|e| e.is_file)
                .filter_map(|e| e.name().and_then(|n| n.strip_suffix(".jsonl")).filter(|id| is_session_id(id)))
                .map(str::to_owned)
                .collect();
            for entry in entries {
                let Some(name) = entry.name().map(str::to_owned) else { continue };
                if entry.is_file {
                    if let Some(id) = name.strip_suffix(".jsonl").filter(|id| bare.contains(*id)) {
                        found.push(jsonl_unit(entry.path.clone(), id));
                        ids.insert(id.to_owned());
                    }
                    continue;
                }
                // Lock folders (`.session-operation-locks`) and the like start with a dot.
                if !entry.is_dir || name.starts_with('.') {
                    continue;
                }
                let events = entry.path.join(EVENTS_FILE);
                if !bare.contains(&name) && confined.file(&events, problems) {
                    found.push(jsonl_unit(events, &name));
                    ids.insert(name.clone());
                }
                let yaml = entry.path.join(WORKSPACE_FILE);
                if confined.file(&yaml, problems) {
                    // No session hint: this unit names the session only through its title.
                    found.push(Unit::new(Source::CopilotCli, yaml, UnitKind::Whole));
                }
            }
        }
        if let Some(dir) = legacy {
            for entry in confined.read_dir(&dir, problems) {
                let Some(id) = entry.name().filter(|_| entry.is_file).and_then(legacy::file_session_id) else { continue };
                if ids.contains(id) {
                    continue; // converted to the JSON Lines layout, which holds it all
                }
                let mut unit = Unit::new(Source::CopilotCli, entry.path.clone(), UnitKind::Whole);
                unit.session_hint = Some(id.to_owned());
                found.push(unit);
            }
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        units.extend(found);
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(events::Parser)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(self.parse_whole_since(unit, None)?.sessions)
    }

    fn parse_whole_since(&self, unit: &Unit, _since: Option<i64>) -> std::io::Result<WholeRead> {
        if unit.path.file_name().is_some_and(|n| n == WORKSPACE_FILE) {
            let session_id = unit.path.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
            let sessions = workspace::read(&unit.path, session_id.unwrap_or_default())?;
            return Ok(WholeRead { sessions, present: None, mark: None });
        }
        let bytes = std::fs::read(&unit.path)?;
        Ok(match legacy::parse(&bytes) {
            Some(events) => WholeRead { sessions: vec![WholeSession { key: String::new(), events }], present: None, mark: None },
            // Cut short while the old CLI rewrote it in place (or not a session at all):
            // the index keeps what it read before, and reads it again when it changes.
            None => WholeRead { sessions: Vec::new(), present: Some(vec![String::new()]), mark: None },
        })
    }
}

/// A JSON Lines unit of session `id`.
fn jsonl_unit(path: PathBuf, id: &str) -> Unit {
    let mut unit = Unit::new(Source::CopilotCli, path, UnitKind::Jsonl);
    unit.session_hint = Some(id.to_owned());
    unit
}

/// Whether a file stem is a session id: the CLI's ids are UUIDs (32 to 36 hex digits and
/// dashes), which tells a session file from anything else that ends in `.jsonl`.
fn is_session_id(id: &str) -> bool {
    (32..=36).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// Whether two folders are one (the same path, or both existing and resolving alike).
fn same_folder(a: &Path, b: &Path) -> bool {
    a == b || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// Whether the old `$XDG_STATE_HOME/.copilot` was moved by the CLI: its `session-state`
/// is then the link the move leaves, and the sessions are read where it leads.
fn migrated(old: &Path) -> bool {
    std::fs::symlink_metadata(old.join(SESSION_STATE)).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_file_names() {
        assert!(is_session_id("14a5a8e3-1061-45ce-95a7-69f808702315"));
        assert!(!is_session_id("notes"));
        assert!(!is_session_id("14a5a8e3-1061-45ce-95a7-69f808702315.bak"));
    }
}
