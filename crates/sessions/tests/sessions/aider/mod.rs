//! The Aider reader against chat histories shaped like the ones Aider 0.86 writes (several
//! runs in one file, commands and their output, edits and commits, `/ask` questions, a
//! reasoning model's thinking, a run cut mid-reply, CRLF), the input history beside them,
//! and the folders a person adds (nested projects, folders skipped, links out refused).

mod discovery;
mod fixtures;
mod reading;

use std::path::{Path, PathBuf};

use chrono::{Local, NaiveDateTime, TimeZone};
use memory_bank_sessions::testing::{self as common, read_unit, reader, ParsedSession, SourceReader, WholeSession};
use memory_bank_sessions::{Role, Source};

/// `␣␣` marks Aider's two-space line break (invisible, and lost to editors, in source).
pub(crate) fn md(text: &str) -> String {
    text.replace('␣', " ")
}

pub(crate) fn aider() -> &'static dyn SourceReader {
    reader(Source::Aider)
}

/// A local time as Aider writes it, in ms (read as this machine's local time).
pub(crate) fn local(stamp: &str) -> i64 {
    let naive = NaiveDateTime::parse_from_str(stamp, "%Y-%m-%d %H:%M:%S%.f").unwrap();
    Local.from_local_datetime(&naive).earliest().unwrap().timestamp_millis()
}

pub(crate) fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// The sessions of the history at `path`, found as the reader finds it.
pub(crate) fn read(path: &Path) -> Vec<ParsedSession> {
    let (units, problems) = common::discover(aider(), path);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(units.len(), 1, "{units:?}");
    read_unit(aider(), &units[0]).unwrap()
}

pub(crate) fn append(path: &Path, text: &str) {
    crate::suite::append_bytes(path, md(text).as_bytes());
}

pub(crate) fn texts(s: &ParsedSession) -> Vec<(String, Role, String)> {
    common::messages(s)
}

pub(crate) fn calls(s: &ParsedSession) -> Vec<(String, i64)> {
    s.tool_calls.iter().map(|c| (c.name.clone(), c.after)).collect()
}

pub(crate) fn m(id: &str, role: Role, text: &str) -> (String, Role, String) {
    (id.to_string(), role, text.to_string())
}

/// The id tag of the history at `path` (as the reader derives it).
pub(crate) fn tag(path: &Path) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.to_string_lossy().bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:012x}", hash & 0xffff_ffff_ffff)
}


/// One whole session's events applied, as a read without an index does.
pub(crate) fn parsed(session: &WholeSession) -> ParsedSession {
    let mut parsed = ParsedSession::default();
    for event in session.events.clone() {
        parsed.apply(event);
    }
    parsed
}
