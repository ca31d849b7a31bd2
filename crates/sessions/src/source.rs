//! What every source reader provides: where its files are, how to find session files
//! under a root (without leaving it: [`Root`]), and how to turn a file into [`Event`]s.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::events::Event;
use crate::model::Source;

/// How a unit is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// Append-only JSON Lines: after the first pass only appended bytes are read, through
    /// [`SourceReader::line_parser`].
    Jsonl,
    /// Anything else (a JSON document, a folder of JSON files, a SQLite database): read
    /// again as a whole by [`SourceReader::parse_whole`] when its identity changes.
    Whole,
}

/// One thing to index: usually one session file.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The tool.
    pub source: Source,
    /// The file whose identity (device, inode, size, mtime) decides whether to read again.
    pub path: PathBuf,
    /// How to read it.
    pub kind: UnitKind,
    /// Changes the unit's identity when files other than `path` changed (e.g. the message
    /// folder of an opencode JSON session, or a database's `-wal` file); 0 when unused.
    pub fingerprint: u64,
    /// A workspace known from outside the file (Gemini's `.project_root`); used when the
    /// file names none.
    pub workspace_hint: Option<String>,
    /// A session id known from outside the file (Claude's file stem); used when the file
    /// names none.
    pub session_hint: Option<String>,
}

impl Unit {
    /// A unit with no fingerprint or hints.
    pub fn new(source: Source, path: PathBuf, kind: UnitKind) -> Unit {
        Unit { source, path, kind, fingerprint: 0, workspace_hint: None, session_hint: None }
    }
}

/// Where a line sits in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinePos {
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// 1-based line number.
    pub line_no: u64,
}

/// Turns the lines of one JSONL unit into events. A parser is created for each pass and
/// may be fed from the middle of a file (after an append), so any state it keeps is a
/// cache only: every fact that must survive between passes goes out as an event.
pub trait LineParser {
    /// Handles one complete line. Lines that are not JSON, unknown record types and
    /// records without text produce nothing; they never fail the file.
    fn line(&mut self, line: &[u8], pos: LinePos, out: &mut Vec<Event>);
}

/// The line parser of a reader whose units are all [`UnitKind::Whole`]: never asked for,
/// and harmless if it were.
pub struct NoLines;

impl LineParser for NoLines {
    fn line(&mut self, _line: &[u8], _pos: LinePos, _out: &mut Vec<crate::events::Event>) {}
}

/// The events of one session read from a [`UnitKind::Whole`] unit.
#[derive(Debug, Clone, PartialEq)]
pub struct WholeSession {
    /// Distinguishes sessions inside one unit (a database holds many); `""` when the
    /// unit is one session.
    pub key: String,
    /// Everything known about the session, in order.
    pub events: Vec<Event>,
}

/// What [`SourceReader::parse_whole_since`] read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WholeRead {
    /// The sessions read: all of the unit's, or with `present` only those that changed.
    pub sessions: Vec<WholeSession>,
    /// For a unit of many sessions (a database): the key of every session it holds. The
    /// index keeps those not read as they are, and takes those not listed as deleted
    /// (archived). `None`: the unit is one document, and `sessions` is everything in it.
    pub present: Option<Vec<String>>,
    /// Where the next read of changes starts (the reader's own high-water mark); `None`
    /// when the reader cannot read changes only.
    pub mark: Option<i64>,
}

/// The desktop app's identifier, its data folder's name (as `memory_bank_access::APP_IDENTIFIER`).
pub const APP_IDENTIFIER: &str = "dev.memorybank.app";

/// The environment a reader resolves its default locations from. Built from the process
/// environment, so `HOME=/some/home memory-bank sessions list` reads that home.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// The home directory.
    pub home: Option<PathBuf>,
    /// Environment variables (only the ones readers ask for matter).
    pub vars: HashMap<String, String>,
}

impl Env {
    /// The current process's environment.
    pub fn from_process() -> Env {
        let vars: HashMap<String, String> = std::env::vars().collect();
        let home = vars
            .get(if cfg!(windows) { "USERPROFILE" } else { "HOME" })
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()));
        Env { home, vars }
    }

    /// A non-empty variable.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str).filter(|v| !v.trim().is_empty())
    }

    /// The Memory Bank app's data folder in this environment, as the app and `memory-bank`
    /// find it (`memory_bank_access::app_data_dir` for the process): `$MEMORY_BANK_DATA_DIR`,
    /// else the system's data folder's [`APP_IDENTIFIER`] (`~/Library/Application Support`
    /// on macOS, `%APPDATA%` on Windows, `$XDG_DATA_HOME` or `~/.local/share` elsewhere).
    pub fn app_data_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = self.var("MEMORY_BANK_DATA_DIR") {
            return Some(PathBuf::from(dir));
        }
        let base = if cfg!(target_os = "macos") {
            self.home.as_ref()?.join("Library").join("Application Support")
        } else if cfg!(windows) {
            self.path_or_home("APPDATA", &["AppData", "Roaming"])?
        } else {
            self.path_or_home("XDG_DATA_HOME", &[".local", "share"])?
        };
        Some(base.join(APP_IDENTIFIER))
    }

    /// `$name` as a path when set, else `home/rest`.
    pub fn path_or_home(&self, name: &str, rest: &[&str]) -> Option<PathBuf> {
        if let Some(v) = self.var(name) {
            return Some(PathBuf::from(v));
        }
        let mut p = self.home.clone()?;
        for part in rest {
            p.push(part);
        }
        Some(p)
    }
}

/// A file or folder that could not be read; reported, never fatal.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// The path.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// One tool's reader.
pub trait SourceReader: Send + Sync {
    /// The tool.
    fn source(&self) -> Source;

    /// The tool's default data folder(s) in `env`, honouring the tool's own variables.
    /// They need not exist.
    fn default_roots(&self, env: &Env) -> Vec<PathBuf>;

    /// Why this tool's sessions cannot be read, when they cannot (kept encrypted with a key
    /// the tool does not share): said in Settings, `sessions sources` and the README rather
    /// than showing nothing. Its folders are still looked for, so the person learns they are
    /// there.
    fn unreadable(&self) -> Option<&'static str> {
        None
    }

    /// Finds the units under `root` (a folder as returned by `default_roots`, or one the
    /// person added). Unreadable folders go to `problems`.
    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>);

    /// A parser for a [`UnitKind::Jsonl`] unit.
    fn line_parser(&self, unit: &Unit) -> Box<dyn LineParser>;

    /// Reads a [`UnitKind::Whole`] unit.
    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>>;

    /// Reads what changed in a [`UnitKind::Whole`] unit since `since`, a mark this reader
    /// returned before for the same file (`None`: read everything). By default every
    /// session is read.
    fn parse_whole_since(&self, unit: &Unit, since: Option<i64>) -> std::io::Result<WholeRead> {
        let _ = since;
        Ok(WholeRead { sessions: self.parse_whole(unit)?, present: None, mark: None })
    }
}

/// A folder a reader was given (a root), which discovery does not leave: the folders and
/// files under it are untrusted, and a symbolic link there must not make the index read
/// (and show) a file elsewhere. A link whose target stays inside the root is followed;
/// one leading out is skipped and reported as a [`Problem`], so the person can add its
/// target as a folder of its own. Every reader lists folders through [`Root::read_dir`]
/// and opens side files through [`Root::file`].
#[derive(Debug, Clone)]
pub struct Root {
    path: PathBuf,
    /// The root with every link resolved; `None` when it does not exist (then nothing
    /// under it does either).
    real: Option<PathBuf>,
}

/// One entry of a folder under a [`Root`], a link inside the root seen as its target.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its path under the root (not the link's target).
    pub path: PathBuf,
    /// Its name.
    pub name: OsString,
    /// A folder, or a link to one.
    pub is_dir: bool,
    /// A regular file, or a link to one.
    pub is_file: bool,
}

impl Entry {
    /// The name, when it is valid Unicode.
    pub fn name(&self) -> Option<&str> {
        self.name.to_str()
    }
}

/// Where a path leads, every link followed: inside the root, out of it (reported), or
/// nowhere.
enum Resolved {
    Inside(PathBuf),
    Outside,
    Missing,
}

impl Root {
    /// The root at `path`.
    pub fn new(path: &Path) -> Root {
        Root { path: path.to_path_buf(), real: std::fs::canonicalize(path).ok() }
    }

    fn resolve(&self, path: &Path, problems: &mut Vec<Problem>) -> Resolved {
        match (std::fs::canonicalize(path), &self.real) {
            (Ok(real), Some(root)) if real.starts_with(root) => Resolved::Inside(real),
            (Ok(_), _) => {
                problems.push(Problem {
                    path: path.to_path_buf(),
                    message: format!("not followed: it leads out of the session folder {}", self.path.display()),
                });
                Resolved::Outside
            }
            // Missing, or a dangling link: nothing to read.
            (Err(e), _) if e.kind() == std::io::ErrorKind::NotFound => Resolved::Missing,
            (Err(e), _) => {
                problems.push(Problem { path: path.to_path_buf(), message: e.to_string() });
                Resolved::Missing
            }
        }
    }

    /// Lists `dir`, a folder under the root, reporting (not failing on) an unreadable
    /// one; a missing one is simply empty. `dir` itself must resolve inside the root (it
    /// may be built from names found in files), and entries that are links leading out
    /// of it are left out.
    pub fn read_dir(&self, dir: &Path, problems: &mut Vec<Problem>) -> Vec<Entry> {
        if !matches!(self.resolve(dir, problems), Resolved::Inside(_)) {
            return Vec::new();
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                problems.push(Problem { path: dir.to_path_buf(), message: e.to_string() });
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for entry in entries.filter_map(Result::ok) {
            let Ok(kind) = entry.file_type() else { continue };
            let path = entry.path();
            let (is_dir, is_file) = if kind.is_symlink() {
                let Resolved::Inside(real) = self.resolve(&path, problems) else { continue };
                let Ok(meta) = std::fs::metadata(real) else { continue };
                (meta.is_dir(), meta.is_file())
            } else {
                (kind.is_dir(), kind.is_file())
            };
            out.push(Entry { path, name: entry.file_name(), is_dir, is_file });
        }
        out
    }

    /// Whether `path`, a file under the root (whose folder was listed through
    /// [`Root::read_dir`]), may be read: it is a regular file, or a link to one inside
    /// the root. A link out of the root is reported.
    pub fn file(&self, path: &Path, problems: &mut Vec<Problem>) -> bool {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => match self.resolve(path, problems) {
                Resolved::Inside(real) => real.is_file(),
                _ => false,
            },
            Ok(meta) => meta.is_file(),
            Err(_) => false,
        }
    }
}
