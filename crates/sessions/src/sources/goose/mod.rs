//! goose, Block's agent (its CLI, its desktop app and its ACP server share one store).
//!
//! **Where** (`crates/goose/src/config/paths.rs` at block/goose 0780e22, and goose's
//! "Logging System" guide): the `sessions` folder of goose's data folder, which the `etcetera`
//! crate's default app strategy places at `$XDG_DATA_HOME/goose` (an absolute
//! `XDG_DATA_HOME` only), else `~/.local/share/goose`, on Linux **and macOS**, and at
//! `%APPDATA%\Block\goose\data` on Windows (`~\AppData\Roaming` when `APPDATA` is unset).
//! `GOOSE_PATH_ROOT` (an absolute path; goose ignores a relative one) moves every goose
//! folder under it: the data folder is then `$GOOSE_PATH_ROOT/data` (as `crates/agent-install`
//! finds goose's `config.yaml` in `$GOOSE_PATH_ROOT/config`).
//!
//! **What.** Two layouts, both read, one at a time:
//!
//! * `sessions.db` (goose 1.10 and later; see [`db`]): every session in one SQLite
//!   database, opened read-only and never locked or written. One [`UnitKind::Whole`] unit
//!   whose sessions are keyed by id, read by its changes after the first read.
//! * `<session id>.jsonl` (before 1.10; see [`legacy`]): one file per session, rewritten
//!   whole on every save, one unit each. goose 1.10 imports them into the new database the
//!   first time it runs and leaves them on disk, no longer managed: once `sessions.db`
//!   exists beside them they are stale copies (sessions since deleted in goose among them)
//!   and are not read.
//!
//! Both hold the same messages (`content.rs`): the person's and the agent's text, tool
//! calls as tool-call events, and nothing goose hides from the person (compaction
//! summaries, reasoning, tool output). A folder the person adds may be the `sessions`
//! folder, goose's data folder, or a `GOOSE_PATH_ROOT` folder (or `sessions.db` itself).
//!
//! **Left out.** goose's 2024 Python generation (`~/.config/goose/sessions`, another message
//! format) is not read; nor are goose's logs (`~/.local/state/goose`), its prompt history
//! (`history.txt`) or its recipes.

mod content;
mod db;
mod legacy;

use std::path::{Path, PathBuf};

use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession};
use crate::sources::sqlite;

/// Reads goose's sessions.
pub struct Goose;

/// goose's database.
pub const DB_FILE: &str = "sessions.db";

/// The operating systems whose folder conventions differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Os {
    Mac,
    Windows,
    Linux,
}

impl Os {
    pub(crate) fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::Mac
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }

    /// Whether `path` is absolute on this OS (worked out the same on any OS, so that the
    /// roots of each can be tested anywhere).
    pub(crate) fn is_absolute(self, path: &str) -> bool {
        let b = path.as_bytes();
        match self {
            Os::Windows => {
                (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/'))
                    || path.starts_with("\\\\")
            }
            Os::Mac | Os::Linux => path.starts_with('/'),
        }
    }
}

/// The sessions folder in `env` on `os` (the default root there).
fn roots_on(env: &Env, os: Os) -> Vec<PathBuf> {
    let absolute = |v: &&str| os.is_absolute(v);
    if let Some(root) = env.var("GOOSE_PATH_ROOT").map(str::trim).filter(absolute) {
        return vec![PathBuf::from(root).join("data").join("sessions")];
    }
    let data = match os {
        Os::Windows => env.path_or_home("APPDATA", &["AppData", "Roaming"]).map(|d| d.join("Block").join("goose").join("data")),
        Os::Mac | Os::Linux => match env.var("XDG_DATA_HOME").map(str::trim).filter(absolute) {
            Some(xdg) => Some(PathBuf::from(xdg).join("goose")),
            None => env.home.as_ref().map(|h| h.join(".local").join("share").join("goose")),
        },
    };
    data.map(|d| vec![d.join("sessions")]).unwrap_or_default()
}

impl SourceReader for Goose {
    fn source(&self) -> Source {
        Source::Goose
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        roots_on(env, Os::current())
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        if std::fs::metadata(root).is_ok_and(|m| m.is_file()) {
            // The database, or one session file, given as the root itself.
            if confined.file(root, problems) {
                units.extend(root.file_name().and_then(|n| n.to_str()).and_then(|n| unit_for(root, n)));
            }
            return;
        }
        // The sessions folder, goose's data folder, or a `GOOSE_PATH_ROOT` folder.
        let dir = [root.join("sessions"), root.join("data").join("sessions")]
            .into_iter()
            .find(|d| d.is_dir())
            .unwrap_or_else(|| root.to_path_buf());
        let mut found: Vec<Unit> = confined
            .read_dir(&dir, problems)
            .into_iter()
            .filter(|e| e.is_file)
            .filter_map(|e| unit_for(&e.path, e.name()?))
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        // Beside the database, session files are the import's stale leftovers.
        match found.iter().position(|u| u.path.file_name().is_some_and(|n| n == DB_FILE)) {
            Some(db) => units.push(found.swap_remove(db)),
            None => units.extend(found),
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(self.parse_whole_since(unit, None)?.sessions)
    }

    fn parse_whole_since(&self, unit: &Unit, since: Option<i64>) -> std::io::Result<WholeRead> {
        if unit.path.file_name().is_some_and(|n| n == DB_FILE) {
            db::read(&unit.path, since)
        } else {
            Ok(WholeRead { sessions: legacy::read(&unit.path, unit.session_hint.clone())?, present: None, mark: None })
        }
    }
}

/// The unit of a file named `name` at `path`: the database, or a session file (named by its
/// session id); `None` for any other file.
fn unit_for(path: &Path, name: &str) -> Option<Unit> {
    let mut unit = Unit::new(Source::Goose, path.to_path_buf(), UnitKind::Whole);
    if name == DB_FILE {
        unit.fingerprint = sqlite::wal_fingerprint(path);
    } else {
        let stem = name.strip_suffix(".jsonl").filter(|s| !s.is_empty())?;
        unit.session_hint = Some(stem.to_owned());
    }
    Some(unit)
}

/// A time column: SQLite `TIMESTAMP` text in UTC (`2026-03-01 10:00:00[.fff]`), RFC 3339
/// text, or epoch seconds or milliseconds; ms since the epoch.
fn parse_stamp(row: &rusqlite::Row<'_>, i: Option<usize>) -> Option<i64> {
    use rusqlite::types::ValueRef;
    match row.get_ref(i?).ok()? {
        ValueRef::Integer(n) => Some(sqlite::epoch_ms(n)),
        ValueRef::Real(f) if f.is_finite() => Some(sqlite::epoch_ms(f as i64)),
        ValueRef::Text(b) => stamp_text(std::str::from_utf8(b).ok()?),
        _ => None,
    }
}

fn stamp_text(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(ms) = crate::model::parse_time(s) {
        return Some(ms);
    }
    if let Ok(n) = s.parse::<i64>() {
        return Some(sqlite::epoch_ms(n));
    }
    let s = s.replacen('T', " ", 1);
    if let Ok(t) = chrono::DateTime::parse_from_str(&s, "%Y-%m-%d %H:%M:%S%.f%#z") {
        return Some(t.timestamp_millis());
    }
    let naive = s.trim_end_matches('Z');
    chrono::NaiveDateTime::parse_from_str(naive, "%Y-%m-%d %H:%M:%S%.f").ok().map(|t| t.and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_in_every_shape_goose_writes() {
        let at = 1_772_359_200_000; // 2026-03-01T10:00:00Z
        assert_eq!(stamp_text("2026-03-01 10:00:00"), Some(at));
        assert_eq!(stamp_text("2026-03-01 10:00:00.250"), Some(at + 250));
        assert_eq!(stamp_text("2026-03-01T10:00:00Z"), Some(at));
        assert_eq!(stamp_text("2026-03-01T10:00:00+00:00"), Some(at));
        assert_eq!(stamp_text("2026-03-01 12:00:00+02:00"), Some(at));
        assert_eq!(stamp_text("1772359200"), Some(at));
        assert_eq!(stamp_text("yesterday"), None);
    }

    #[test]
    fn absolute_paths_per_os() {
        assert!(Os::Windows.is_absolute(r"C:\Users\ana\goose"));
        assert!(Os::Windows.is_absolute(r"\\server\share"));
        assert!(!Os::Windows.is_absolute("relative/goose"));
        assert!(!Os::Linux.is_absolute(r"C:\Users\ana"));
        assert!(Os::Mac.is_absolute("/Users/ana"));
    }

    fn env(vars: &[(&str, &str)]) -> Env {
        Env { home: Some(PathBuf::from("/home/ana")), vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
    }

    #[test]
    fn roots_follow_each_os_convention() {
        let linux = roots_on(&env(&[]), Os::Linux);
        assert_eq!(linux, [PathBuf::from("/home/ana/.local/share/goose/sessions")]);
        // goose uses the XDG layout on macOS too, not ~/Library.
        assert_eq!(roots_on(&env(&[]), Os::Mac), linux);
        assert_eq!(roots_on(&env(&[("XDG_DATA_HOME", "/data")]), Os::Mac), [PathBuf::from("/data/goose/sessions")]);
        // A relative XDG_DATA_HOME is ignored, as the XDG specification says.
        assert_eq!(roots_on(&env(&[("XDG_DATA_HOME", "data")]), Os::Linux), linux);
        assert_eq!(
            roots_on(&env(&[("APPDATA", r"C:\Users\ana\AppData\Roaming")]), Os::Windows),
            [PathBuf::from(r"C:\Users\ana\AppData\Roaming").join("Block").join("goose").join("data").join("sessions")]
        );
        assert_eq!(roots_on(&env(&[]), Os::Windows), [PathBuf::from("/home/ana/AppData/Roaming/Block/goose/data/sessions")]);
        for os in [Os::Linux, Os::Mac] {
            assert_eq!(roots_on(&env(&[("GOOSE_PATH_ROOT", "/opt/goose")]), os), [PathBuf::from("/opt/goose/data/sessions")]);
            assert_eq!(roots_on(&env(&[("GOOSE_PATH_ROOT", "rel")]), os), linux, "goose ignores a relative root");
        }
        assert_eq!(
            roots_on(&env(&[("GOOSE_PATH_ROOT", r"D:\goose")]), Os::Windows),
            [PathBuf::from(r"D:\goose").join("data").join("sessions")]
        );
        assert!(roots_on(&Env::default(), Os::Linux).is_empty());
    }
}
