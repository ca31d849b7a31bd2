//! What every source reader provides: where its files are, how to find session files
//! under a root, and how to turn a file into [`Event`]s.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::model::{Event, Source};

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
    /// For a read of changes only: the key of every session the unit still holds (the
    /// index keeps the others as they are and drops those not listed). `None`: `sessions`
    /// is everything.
    pub present: Option<Vec<String>>,
    /// Where the next read of changes starts (the reader's own high-water mark); `None`
    /// when the reader cannot read changes only.
    pub mark: Option<i64>,
}

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

/// Lists a directory, reporting (not failing on) an unreadable one. A missing directory
/// is simply empty.
pub fn read_dir_entries(dir: &Path, problems: &mut Vec<Problem>) -> Vec<std::fs::DirEntry> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(Result::ok).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            problems.push(Problem { path: dir.to_path_buf(), message: e.to_string() });
            Vec::new()
        }
    }
}
