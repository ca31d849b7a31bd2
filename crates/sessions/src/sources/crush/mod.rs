//! Crush, Charm's agent (learnt from charmbracelet/crush at 37f36e9, v0.90:
//! `internal/config/load.go`, `internal/projects/projects.go`, `internal/db/`,
//! `internal/message/`, `internal/session/`).
//!
//! **Where.** Crush keeps one SQLite database per project, `crush.db` in the project's data
//! folder: `options.data_directory` of its configuration (`crush.json`/`.crush.json`;
//! relative to the working folder), else the `.crush` folder nearest the working folder up
//! to the git work tree's root, else `<working folder>/.crush`; `--data-dir` moves it for
//! one run. So most databases sit in the person's projects. Since December 2025 Crush also
//! lists every project it ran in, with its data folder, in `projects.json` in its global
//! data folder: `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush` (on every OS), else
//! `%LOCALAPPDATA%\crush` on Windows (`~\AppData\Local` when unset) and
//! `~/.local/share/crush` on Linux and macOS.
//!
//! The default root is that global data folder (the one place Crush keeps for itself).
//! Discovering it reads `projects.json` and takes each listed project's `<data_dir>/crush.db`
//! (a file Crush itself recorded, each confined to its own data folder: a link out of it
//! is reported, not followed), with the project folder as its workspace; read at every
//! discovery, so a project Crush opens later is found without a restart. Projects from
//! before that list, or whose entry is gone, are found in folders the person adds: any
//! root is walked (breadth first, [`MAX_DEPTH`] folders deep, at most [`MAX_FOLDERS`]
//! folders, into `.crush` but no other hidden folder, skipping dependency and build
//! folders) for files named `crush.db`; one in a folder named `.crush` has that folder's
//! parent as its workspace. A root may also be a data folder or a `crush.db` itself.
//!
//! Each database is one [`UnitKind::Whole`] unit read through [`db`], opened read-only and
//! never locked or written, one session per `sessions` row.
//!
//! **Left out.** The `files` table (file versions Crush kept), `read_files`, logs, and the
//! databases of opencode's Go version (`.opencode/opencode.db`, Crush's ancestor) are not
//! read.

mod db;

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession};
use crate::sources::goose::Os;
use crate::sources::sqlite;
use crate::sources::lenient::{List, Scalar};

/// Reads Crush's sessions.
pub struct Crush;

/// A project's database.
pub const DB_FILE: &str = "crush.db";
/// The default name of a project's data folder.
pub const DATA_FOLDER: &str = ".crush";
/// Crush's list of projects, in its global data folder.
pub const PROJECTS_FILE: &str = "projects.json";
/// How many folders deep below a root a database is looked for.
pub const MAX_DEPTH: usize = 6;
/// How many folders one discovery lists at most; the rest of a bigger root is reported.
pub const MAX_FOLDERS: usize = 10_000;
/// Folders that hold dependencies or build output, never a project's data folder.
const SKIPPED_FOLDERS: [&str; 6] = ["node_modules", "target", "venv", "__pycache__", "dist", "build"];
/// The biggest `projects.json` read.
const MAX_PROJECTS_BYTES: u64 = 4 << 20;

/// Crush's global data folder in `env` on `os` (the default root there).
fn roots_on(env: &Env, os: Os) -> Vec<PathBuf> {
    let dir = if let Some(dir) = env.var("CRUSH_GLOBAL_DATA") {
        Some(PathBuf::from(dir.trim()))
    } else if let Some(xdg) = env.var("XDG_DATA_HOME") {
        Some(PathBuf::from(xdg.trim()).join("crush"))
    } else if os == Os::Windows {
        env.path_or_home("LOCALAPPDATA", &["AppData", "Local"]).map(|d| d.join("crush"))
    } else {
        env.home.as_ref().map(|h| h.join(".local").join("share").join("crush"))
    };
    dir.into_iter().collect()
}

impl SourceReader for Crush {
    fn source(&self) -> Source {
        Source::Crush
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        roots_on(env, Os::current())
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        let mut seen: HashSet<PathBuf> = HashSet::new();
        match std::fs::metadata(root) {
            // A database given as the root itself.
            Ok(meta) if meta.is_file() && root.file_name().is_some_and(|n| n == DB_FILE) && confined.file(root, problems) => {
                push_unit(units, &mut seen, root.to_path_buf(), workspace_of(root));
            }
            Ok(meta) if meta.is_dir() => {
                listed_projects(&confined, root, units, &mut seen, problems);
                walk(&confined, root, units, &mut seen, problems);
            }
            _ => {}
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(db::read(&unit.path, None)?.sessions)
    }

    fn parse_whole_since(&self, unit: &Unit, since: Option<i64>) -> std::io::Result<WholeRead> {
        db::read(&unit.path, since)
    }
}

/// Adds the unit of the database at `path`, once.
fn push_unit(units: &mut Vec<Unit>, seen: &mut HashSet<PathBuf>, path: PathBuf, workspace: Option<String>) {
    if !seen.insert(path.clone()) {
        return;
    }
    let mut unit = Unit::new(Source::Crush, path, UnitKind::Whole);
    unit.fingerprint = sqlite::wal_fingerprint(&unit.path);
    unit.workspace_hint = workspace;
    units.push(unit);
}

/// The project of a database in a data folder named `.crush`: the folder holding it.
fn workspace_of(db: &Path) -> Option<String> {
    let data = db.parent()?;
    (data.file_name()? == DATA_FOLDER).then(|| data.parent().map(|p| p.to_string_lossy().into_owned())).flatten()
}

/// `projects.json`: `{projects: [{path, data_dir, last_accessed}]}`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ProjectList {
    projects: List<Project>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Project {
    path: Scalar,
    data_dir: Scalar,
}

/// The databases of the projects `root/projects.json` lists, when the root holds one.
fn listed_projects(confined: &Root, root: &Path, units: &mut Vec<Unit>, seen: &mut HashSet<PathBuf>, problems: &mut Vec<Problem>) {
    let file = root.join(PROJECTS_FILE);
    if !confined.file(&file, problems) {
        return;
    }
    let fits = std::fs::metadata(&file).is_ok_and(|m| m.len() <= MAX_PROJECTS_BYTES);
    let Some(list) = fits.then(|| std::fs::read(&file).ok()).flatten().and_then(|b| crate::jsonl::parse_line_as::<ProjectList>(&b)) else {
        return;
    };
    for project in list.projects.0.into_iter().filter_map(|p| p.0) {
        let Some(data_dir) = project.data_dir.string().filter(|d| Path::new(d).is_absolute()) else { continue };
        let data_dir = PathBuf::from(data_dir);
        let db = data_dir.join(DB_FILE);
        // Each database is confined to its own data folder.
        if Root::new(&data_dir).file(&db, problems) {
            let workspace = project.path.string().filter(|p| !p.trim().is_empty()).or_else(|| workspace_of(&db));
            push_unit(units, seen, db, workspace);
        }
    }
}

/// Lists `root` breadth first (shallow projects are found before a deep tree uses up the
/// folder budget) for Crush's databases.
fn walk(confined: &Root, root: &Path, units: &mut Vec<Unit>, seen: &mut HashSet<PathBuf>, problems: &mut Vec<Problem>) {
    let mut queue = VecDeque::from([(root.to_path_buf(), 0usize)]);
    let mut listed = 0usize;
    while let Some((dir, depth)) = queue.pop_front() {
        if listed == MAX_FOLDERS {
            problems.push(Problem {
                path: root.to_path_buf(),
                message: format!(
                    "stopped looking for Crush databases after {MAX_FOLDERS} folders; \
                     add the project folders themselves to read the rest"
                ),
            });
            return;
        }
        listed += 1;
        let mut entries = confined.read_dir(&dir, problems);
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in entries {
            let name = entry.name.to_string_lossy();
            if entry.is_file && name == DB_FILE {
                let workspace = workspace_of(&entry.path);
                push_unit(units, seen, entry.path, workspace);
            } else if entry.is_dir
                && depth < MAX_DEPTH
                && (name == DATA_FOLDER || !name.starts_with('.'))
                && !SKIPPED_FOLDERS.contains(&&*name)
            {
                queue.push_back((entry.path, depth + 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env { home: Some(PathBuf::from("/home/ana")), vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
    }

    #[test]
    fn roots_follow_each_os_convention() {
        let unix = [PathBuf::from("/home/ana/.local/share/crush")];
        assert_eq!(roots_on(&env(&[]), Os::Linux), unix);
        assert_eq!(roots_on(&env(&[]), Os::Mac), unix, "not ~/Library: Crush uses ~/.local/share on macOS too");
        assert_eq!(roots_on(&env(&[("XDG_DATA_HOME", "/data")]), Os::Mac), [PathBuf::from("/data/crush")]);
        assert_eq!(
            roots_on(&env(&[("LOCALAPPDATA", r"C:\Users\ana\AppData\Local")]), Os::Windows),
            [PathBuf::from(r"C:\Users\ana\AppData\Local").join("crush")]
        );
        assert_eq!(roots_on(&env(&[]), Os::Windows), [PathBuf::from("/home/ana/AppData/Local/crush")]);
        // XDG_DATA_HOME wins on Windows too, and CRUSH_GLOBAL_DATA over both.
        assert_eq!(roots_on(&env(&[("XDG_DATA_HOME", r"D:\xdg")]), Os::Windows), [PathBuf::from(r"D:\xdg").join("crush")]);
        for os in [Os::Linux, Os::Mac, Os::Windows] {
            assert_eq!(
                roots_on(&env(&[("CRUSH_GLOBAL_DATA", "/g"), ("XDG_DATA_HOME", "/data")]), os),
                [PathBuf::from("/g")]
            );
        }
        assert!(roots_on(&Env::default(), Os::Linux).is_empty());
    }

    #[test]
    fn the_workspace_is_the_folder_holding_dot_crush() {
        assert_eq!(workspace_of(Path::new("/code/app/.crush/crush.db")).as_deref(), Some("/code/app"));
        assert_eq!(workspace_of(Path::new("/data/elsewhere/crush.db")), None);
    }
}
