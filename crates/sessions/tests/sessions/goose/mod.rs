//! The goose reader against stores built here the way goose writes them: `sessions.db`
//! with goose's schema (`db.rs`, also older schemas), and the `<id>.jsonl` files of the
//! releases before 1.10 (`legacy.rs`). The shared suite's writers use the schema and
//! helpers below.

mod db;
mod legacy;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit, read_unit, ParsedSession, SourceReader, Unit};
use memory_bank_sessions::{Env, Problem, Role, Source};

/// goose's schema: one copy for the tests and the bench.
pub use memory_bank_sessions::testing::goose::SCHEMA;


/// The sessions folder of goose in `home` (the reader's first default root).
pub fn sessions_dir(home: &Path) -> PathBuf {
    kit::reader(Source::Goose).default_roots(&kit::env_with_home(home)).remove(0)
}

/// goose's session id for a suite name: `YYYYMMDD_<n>`, as goose numbers a day's sessions.
pub fn session_id(name: &str) -> String {
    let n = name.trim_start_matches('s').parse::<u32>().unwrap_or_else(|_| name.bytes().map(u32::from).sum::<u32>() + 100);
    format!("20260301_{n}")
}

/// SQLite's `datetime('now')` format, for a time in ms.
pub fn sqlite_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).unwrap().format("%Y-%m-%d %H:%M:%S").to_string()
}

fn reader() -> &'static dyn SourceReader {
    kit::reader(Source::Goose)
}

fn discover(root: &Path) -> (Vec<Unit>, Vec<Problem>) {
    kit::discover(reader(), root)
}

/// Every session under `root`, by session id (each read once).
fn read_root(root: &Path) -> HashMap<String, ParsedSession> {
    let (units, problems) = discover(root);
    assert!(problems.is_empty(), "{problems:?}");
    let mut out = HashMap::new();
    for unit in &units {
        for s in read_unit(reader(), unit).unwrap() {
            let id = s.session_id.clone().expect("session id");
            assert!(out.insert(id, s).is_none(), "a session was read twice");
        }
    }
    out
}

fn texts(s: &ParsedSession) -> Vec<(Role, &str)> {
    s.messages.iter().map(|m| (m.role, m.text.as_str())).collect()
}

fn tools(s: &ParsedSession) -> Vec<(&str, &str, i64)> {
    s.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect()
}

fn env(home: &Path, vars: &[(&str, &str)]) -> Env {
    Env { home: Some(home.to_path_buf()), vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
}

#[cfg(not(windows))]
#[test]
fn default_root_follows_goose_path_root_then_xdg_data_home_then_home() {
    let home = Path::new("/home/ana");
    let roots = |vars: &[(&str, &str)]| reader().default_roots(&env(home, vars));
    assert_eq!(roots(&[]), [home.join(".local/share/goose/sessions")]);
    assert_eq!(roots(&[("XDG_DATA_HOME", "/xdg")]), [PathBuf::from("/xdg/goose/sessions")]);
    assert_eq!(roots(&[("XDG_DATA_HOME", "relative")]), [home.join(".local/share/goose/sessions")]);
    assert_eq!(roots(&[("GOOSE_PATH_ROOT", "/srv/goose"), ("XDG_DATA_HOME", "/xdg")]), [PathBuf::from("/srv/goose/data/sessions")]);
    assert_eq!(roots(&[("GOOSE_PATH_ROOT", "goose-root")]), [home.join(".local/share/goose/sessions")]);
    assert!(reader().default_roots(&Env::default()).is_empty());
}

#[test]
fn a_missing_root_is_empty_not_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (units, problems) = discover(&dir.path().join("nowhere"));
    assert!(units.is_empty() && problems.is_empty());
}
