//! Errors, each worded to tell the user what to do next.
//!
//! Every error that concerns a config file names it; a syntax error also gives the line and
//! column. Whenever an error is returned, the file on disk has not been touched.

use std::io;
use std::path::PathBuf;

/// Why a status, plan or apply failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The agent name is not one of ours.
    #[error("unknown agent `{0}`; use one of: claude-code, codex, opencode, gemini, claude-desktop, cursor, vscode, windsurf, zed, goose")]
    UnknownAgent(String),

    /// No home folder could be determined.
    #[error("cannot find your home folder; set HOME (USERPROFILE on Windows) and try again")]
    NoHome,

    /// The binary path given for the server is relative.
    #[error("the memory-bank binary path `{}` is not absolute; pass the full path", .0.display())]
    BinaryNotAbsolute(PathBuf),

    /// The binary path cannot be written into a text config file.
    #[error("the memory-bank binary path `{}` is not valid UTF-8; install memory-bank under a UTF-8 path", .0.display())]
    BinaryNotUtf8(PathBuf),

    /// The running executable's path is unknown.
    #[error("cannot determine the path of the running memory-bank binary: {0}; pass the path explicitly")]
    CurrentExe(#[source] io::Error),

    /// The config file exists but could not be read.
    #[error("cannot read {}: {source}; check that the file is readable by you", path.display())]
    Read {
        /// The config file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },

    /// The config file is not UTF-8 text.
    #[error("{} is not UTF-8 text; fix or move the file away, then try again (it was not changed)", path.display())]
    NotUtf8 {
        /// The config file.
        path: PathBuf,
    },

    /// The config file does not parse as the agent's format.
    #[error("{}{}: {message}; fix the syntax by hand (or move the file away), then try again (it was not changed)", path.display(), location(*line, *column))]
    Syntax {
        /// The config file.
        path: PathBuf,
        /// 1-based line, when known.
        line: Option<usize>,
        /// 1-based column, when known.
        column: Option<usize>,
        /// What the parser objected to.
        message: String,
    },

    /// The file parses but a key we must edit holds the wrong kind of value.
    #[error("{}: {key} must be {expected} but is {found}; fix it by hand, then try again (the file was not changed)", path.display())]
    Shape {
        /// The config file.
        path: PathBuf,
        /// The offending key (`top level` for the document itself).
        key: String,
        /// What the agent expects there.
        expected: &'static str,
        /// What the file holds instead.
        found: &'static str,
    },

    /// The file was modified between planning and applying (e.g. by the running agent).
    #[error("{} changed since the change was planned (is the agent running and rewriting it?); plan again and apply", path.display())]
    ChangedSincePlan {
        /// The config file.
        path: PathBuf,
    },

    /// Writing the file, its backup or its folder failed.
    #[error("cannot write {}: {source}; check the folder's permissions and free space (the original file was not changed)", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(" line {l} column {c}"),
        (Some(l), None) => format!(" line {l}"),
        _ => String::new(),
    }
}

/// 1-based line and column of a byte offset, for parsers that report only offsets.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
