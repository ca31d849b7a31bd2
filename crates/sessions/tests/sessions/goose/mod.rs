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

/// goose's schema (version 17, `SessionStorage::create_schema` at aaif-goose/goose 017176d).
pub const SCHEMA: &str = r#"
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (17);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_cache_read_tokens INTEGER,
    accumulated_cache_write_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT,
    user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto',
    archived_at TIMESTAMP, project_id TEXT, parent_session_id TEXT, parent_delegation TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE TABLE usage_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_messages_message_id ON messages(message_id);
CREATE INDEX idx_messages_session_created ON messages(session_id, created_timestamp, id);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX idx_sessions_type ON sessions(session_type);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_usage_ledger_session ON usage_ledger(session_id);
"#;

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
