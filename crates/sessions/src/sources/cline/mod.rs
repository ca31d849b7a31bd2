//! Cline and Roo Code: VS Code extensions (Roo Code is a fork of Cline) that keep each task
//! in a folder of JSON documents, rewritten whole as the task goes on. One reader type
//! serves both; they differ in where they keep the folders and in a few record kinds.
//!
//! Where (read from cline/cline `src/core/storage/disk.ts`, `src/utils/storage.ts`, the
//! CLI's `cli/src/vscode-context.ts` at 469752a, and `apps/vscode/src/sdk/legacy-state-reader.ts`
//! at 21cb8d2; RooCodeInc/Roo-Code `src/core/task-persistence/`, `src/utils/storage.ts` at
//! cb83656):
//!
//! - the editor's global storage, `<user dir>/User/globalStorage/<extension id>/`, with
//!   extension id `saoudrizwan.claude-dev` (Cline) or `rooveterinaryinc.roo-cline` (Roo
//!   Code), for each editor the extensions install in: VS Code (`Code`), VS Code Insiders
//!   (`Code - Insiders`), VSCodium, Cursor and Windsurf. The user dir is
//!   `~/Library/Application Support/<Editor>` on macOS, `%APPDATA%\<Editor>` on Windows
//!   (`~\AppData\Roaming` when `APPDATA` is unset) and `$XDG_CONFIG_HOME/<Editor>`, else
//!   `~/.config/<Editor>`, elsewhere;
//! - for Cline also `~/.cline/data` (`$CLINE_DATA_DIR`, else `$CLINE_DIR/data`): the data
//!   folder of the Cline CLI and of the standalone core the JetBrains plugin runs, which
//!   use the same task folders.
//!
//! A folder the person adds may be any of these, or a `tasks` folder itself (Roo Code's
//! `roo-cline.customStoragePath` setting moves `tasks/` elsewhere).
//!
//! Layout: `tasks/<taskId>/` holds `ui_messages.json` (what the extension showed: an array
//! of `{ts, type: "say"|"ask", say|ask: <kind>, text, images?, partial?}`, see
//! [`ui`]), `api_conversation_history.json` (the Anthropic-style messages sent to the
//! model), `task_metadata.json` (files in context, model usage) and, in Roo Code since
//! February 2026, `history_item.json` (the task's history entry: `id`, `ts`, `task`,
//! `workspace`, `parentTaskId`, …). Cline keeps all history entries in
//! `state/taskHistory.json` (`id`, `ts`, `task`, `cwdOnTaskInitialization`, …) since
//! August 2025; older versions of both kept them in the editor's own state database,
//! which is not read. Task ids are `Date.now()` as a
//! string (Cline) or UUIDs (Roo Code).
//!
//! One unit per task: its `ui_messages.json`, read whole ([`UnitKind::Whole`]), with a
//! fingerprint over the sibling files read (`history_item.json`,
//! `api_conversation_history.json`) and the workspace found in the history, so a change
//! to any of them reads the task again. The transcript is `ui_messages.json`: it holds
//! what the person typed and saw, with a time for every message, whereas the API file
//! holds the prompt as the model got it (wrapped in `<task>`/`<user_message>`, with
//! environment details, tool results as user text and, in older versions, tool calls as
//! XML inside the assistant's text). The API file is only read for the workspace when no
//! history entry names it: the first request's environment details say `# Current
//! Working Directory (<path>) Files` (Cline) or `# Current Workspace Directory (<path>)
//! Files` (Roo Code).
//!
//! Current versions write each document to a temporary file and rename it (Roo Code since
//! June 2025, Cline since December 2025); older ones (and Cline's `task_metadata.json`
//! still) wrote in place, so a document can be cut short while it is read. Its complete leading records are read (the rest waits for the next read), and a
//! document with none keeps what the index read before ([`doc`]).
//!
//! The session id is the task folder's name; the workspace comes from the history entry
//! (Cline `cwdOnTaskInitialization`, Roo `workspace`), else from the environment details;
//! no title is set, so the list shows the task as typed (the first message, which is also
//! what the extensions' history shows). Roo Code's subtasks (a `new_task` tool call starts
//! a child task with `parentTaskId`) are listed like any task: the person can open and
//! continue them from Roo Code's history, and a hidden session would be neither searched
//! nor archived.
//!
//! Checked against the folders the Cline CLI writes (npm `cline` 2.18.0 run against a
//! loopback model stub): `~/.cline/data/tasks/<id>/` and `state/taskHistory.json`, as above.
//!
//! Not read: the Cline SDK's session store (`~/.cline/data/sessions/<id>/<id>.json` and
//! `<id>.messages.json`, `db/sessions.db`), a different format written by Cline 4.x's SDK
//! bundle and npm `cline` 3.x, where a resumed legacy task continues under the same id;
//! `claude_messages.json` (Claude Dev 1.x, before the rename to `ui_messages.json`);
//! `context_history.json`; checkpoints.

mod doc;
mod ui;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::events::{Event, MetaEvent};
use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession};

use super::lenient::{Obj, Scalar};

/// Reads the tasks of one of the two extensions.
pub struct Cline {
    source: Source,
}

/// Cline.
pub static CLINE: Cline = Cline { source: Source::Cline };

/// Roo Code.
pub static ROO_CODE: Cline = Cline { source: Source::RooCode };

/// The editors both extensions install in, by the name of their user data folder.
const EDITORS: [&str; 5] = ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];

/// The transcript of a task.
const UI_MESSAGES: &str = "ui_messages.json";
/// The messages sent to the model (read for the workspace only).
const API_HISTORY: &str = "api_conversation_history.json";
/// Roo Code's history entry of a task.
const HISTORY_ITEM: &str = "history_item.json";

/// The operating systems whose folder conventions differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Os {
    Mac,
    Windows,
    Linux,
}

impl Os {
    fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::Mac
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

impl Cline {
    /// The folder VS Code names after the extension in every editor's global storage
    /// (extension ids are lower-cased there).
    fn extension_id(&self) -> &'static str {
        match self.source {
            Source::RooCode => "rooveterinaryinc.roo-cline",
            _ => "saoudrizwan.claude-dev",
        }
    }

    fn roots_on(&self, env: &Env, os: Os) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = EDITORS
            .iter()
            .filter_map(|editor| editor_user_dir(env, os, editor))
            .map(|dir| dir.join("User").join("globalStorage").join(self.extension_id()))
            .collect();
        if self.source == Source::Cline {
            roots.extend(cline_data_dir(env));
        }
        roots
    }

    /// Reads one task: what its documents hold, and whether the transcript was cut short
    /// before its first complete record.
    fn read_task(&self, unit: &Unit) -> std::io::Result<(Vec<WholeSession>, bool)> {
        let bytes = std::fs::read(&unit.path)?;
        let records = doc::array_elements::<Obj<ui::UiMessage>>(&bytes);
        let transcript = ui::Transcript::read(records.items.into_iter().filter_map(|r| r.0));
        if transcript.messages == 0 {
            return Ok((Vec::new(), !records.complete));
        }
        let dir = unit.path.parent().unwrap_or(Path::new(""));
        let workspace = if unit.workspace_hint.is_some() {
            None // the history entry found while discovering names it
        } else {
            doc::read_object::<HistoryEntry>(&dir.join(HISTORY_ITEM))
                .and_then(HistoryEntry::workspace)
                .or_else(|| doc::workspace_from_api_history(&dir.join(API_HISTORY)))
        };
        let session_id = unit
            .session_hint
            .clone()
            .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()));
        let mut events = vec![Event::Meta(MetaEvent {
            session_id,
            workspace,
            created: transcript.created,
            updated: transcript.updated,
            ..Default::default()
        })];
        events.extend(transcript.events);
        Ok((vec![WholeSession { key: String::new(), events }], false))
    }
}

impl SourceReader for Cline {
    fn source(&self) -> Source {
        self.source
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        self.roots_on(env, Os::current())
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        // The extension's folder (or `~/.cline/data`), else a `tasks` folder itself.
        let has_tasks = root.join("tasks").is_dir();
        let tasks = if has_tasks { root.join("tasks") } else { root.to_path_buf() };
        let mut folders: Vec<_> = confined.read_dir(&tasks, problems).into_iter().filter(|e| e.is_dir).collect();
        if folders.is_empty() {
            return;
        }
        folders.sort_by(|a, b| a.name.cmp(&b.name));
        let history = if has_tasks && self.source == Source::Cline {
            doc::task_history(&confined, &root.join("state").join("taskHistory.json"), problems)
        } else {
            Default::default()
        };
        for folder in folders {
            let Some(task_id) = folder.name().map(str::to_owned) else { continue };
            let path = folder.path.join(UI_MESSAGES);
            if !confined.file(&path, problems) {
                continue; // not a task folder (settings, cache, …), or a link out of the root
            }
            let mut unit = Unit::new(self.source, path, UnitKind::Whole);
            unit.workspace_hint = history.get(&task_id).cloned();
            unit.fingerprint = doc::fingerprint(&folder.path, &[HISTORY_ITEM, API_HISTORY], unit.workspace_hint.as_deref());
            unit.session_hint = Some(task_id);
            units.push(unit);
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(self.read_task(unit)?.0)
    }

    fn parse_whole_since(&self, unit: &Unit, _since: Option<i64>) -> std::io::Result<WholeRead> {
        let (sessions, cut_short) = self.read_task(unit)?;
        // A transcript cut short before its first record (being written in place): the
        // index keeps what it read before, and reads the file again when it changes.
        let present = cut_short.then(|| vec![String::new()]);
        Ok(WholeRead { sessions, present, mark: None })
    }
}

/// The user data folder of `editor` on `os`.
fn editor_user_dir(env: &Env, os: Os, editor: &str) -> Option<PathBuf> {
    let base = match os {
        Os::Mac => env.home.as_ref()?.join("Library").join("Application Support"),
        Os::Windows => env.path_or_home("APPDATA", &["AppData", "Roaming"])?,
        Os::Linux => env.path_or_home("XDG_CONFIG_HOME", &[".config"])?,
    };
    Some(base.join(editor))
}

/// The Cline CLI's data folder: `$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else
/// `~/.cline/data` (the SDK's `resolveDataDirFromEnv`).
fn cline_data_dir(env: &Env) -> Option<PathBuf> {
    if let Some(dir) = env.var("CLINE_DATA_DIR") {
        return Some(PathBuf::from(dir.trim()));
    }
    Some(env.path_or_home("CLINE_DIR", &[".cline"])?.join("data"))
}

/// A task's history entry (Cline `state/taskHistory.json`, Roo `history_item.json`).
#[derive(Deserialize, Default)]
#[serde(default)]
struct HistoryEntry {
    id: Scalar,
    /// Roo Code.
    workspace: Scalar,
    /// Cline.
    #[serde(rename = "cwdOnTaskInitialization")]
    cwd_on_task_initialization: Scalar,
    /// Cline: the work tree of the task's checkpoints, its workspace too.
    #[serde(rename = "shadowGitConfigWorkTree")]
    shadow_git_config_work_tree: Scalar,
}

impl HistoryEntry {
    fn workspace(self) -> Option<String> {
        [self.cwd_on_task_initialization, self.workspace, self.shadow_git_config_work_tree]
            .into_iter()
            .filter_map(Scalar::string)
            .map(|w| w.trim().to_owned())
            .find(|w| !w.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env {
            home: Some(PathBuf::from("/home/ana")),
            vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    #[test]
    fn roots_follow_each_os_convention() {
        let mac = CLINE.roots_on(&env(&[]), Os::Mac);
        assert_eq!(
            mac[0],
            Path::new("/home/ana/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev")
        );
        assert_eq!(mac.len(), EDITORS.len() + 1);
        assert_eq!(mac[EDITORS.len()], Path::new("/home/ana/.cline/data"));

        let win = ROO_CODE.roots_on(&env(&[("APPDATA", r"C:\Users\ana\AppData\Roaming")]), Os::Windows);
        assert_eq!(
            win[3],
            Path::new(r"C:\Users\ana\AppData\Roaming").join("Cursor/User/globalStorage/rooveterinaryinc.roo-cline")
        );
        assert_eq!(win.len(), EDITORS.len(), "Roo Code has no CLI folder");
        let win = ROO_CODE.roots_on(&env(&[]), Os::Windows);
        assert_eq!(win[0], Path::new("/home/ana/AppData/Roaming/Code/User/globalStorage/rooveterinaryinc.roo-cline"));

        let linux = CLINE.roots_on(&env(&[]), Os::Linux);
        assert_eq!(linux[1], Path::new("/home/ana/.config/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev"));
        let linux = CLINE.roots_on(&env(&[("XDG_CONFIG_HOME", "/cfg"), ("CLINE_DIR", "/opt/cline")]), Os::Linux);
        assert_eq!(linux[2], Path::new("/cfg/VSCodium/User/globalStorage/saoudrizwan.claude-dev"));
        assert_eq!(linux[EDITORS.len()], Path::new("/opt/cline/data"));
        let linux = CLINE.roots_on(&env(&[("CLINE_DATA_DIR", "/data/cline"), ("CLINE_DIR", "/opt/cline")]), Os::Linux);
        assert_eq!(linux[EDITORS.len()], Path::new("/data/cline"));

        assert!(CLINE.roots_on(&Env::default(), Os::Mac).is_empty());
    }
}
