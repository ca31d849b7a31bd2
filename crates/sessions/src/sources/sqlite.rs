//! Reading another tool's live SQLite database without disturbing it: strictly read-only (no
//! write, no schema change, no checkpoint, no new files, no lock that would stop its
//! writer), and the helpers that read its columns whatever type the tool stored. One copy
//! for every reader of a database (opencode, goose, Crush, Cursor, Zed).
//!
//! The tools keep their databases in WAL mode while they run, so recent rows may sit only
//! in the `-wal` file: a unit's fingerprint follows it ([`wal_fingerprint`]), because the
//! main file does not change until a checkpoint.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row, Statement};

/// The `-wal` companion of a database.
pub(crate) fn wal_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// Follows the `-wal` file (size and mtime), where a live database's writes land first.
pub(crate) fn wal_fingerprint(db: &Path) -> u64 {
    let mut fp = Fingerprint::new();
    match std::fs::metadata(wal_path(db)) {
        Ok(meta) => {
            fp.mix(1);
            fp.mix(meta.len());
            fp.mix(mtime_ns(&meta));
        }
        Err(_) => fp.mix(0),
    }
    fp.0
}

/// Mixes numbers into a stable 64-bit fingerprint (FNV-1a over their bytes), so an index
/// written by one build agrees with the next.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fingerprint(pub(crate) u64);

impl Fingerprint {
    pub(crate) fn new() -> Fingerprint {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn mix(&mut self, n: u64) {
        for b in n.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Nanoseconds since the epoch of a file's mtime (0 when unknown).
pub(crate) fn mtime_ns(meta: &std::fs::Metadata) -> u64 {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as u64)
}

/// Opens strictly read-only.
///
/// While the tool runs, its `-wal` and `-shm` exist and `mode=ro` reads through them. When
/// it has exited cleanly they are gone, and a read-only connection would create both;
/// `immutable=1` reads the main file alone instead, without creating or locking anything.
/// Should the tool start writing during that read, the `-wal` it creates changes the
/// fingerprint and the unit is read again.
pub(crate) fn open(path: &Path) -> rusqlite::Result<Connection> {
    let query = if wal_path(path).exists() { "mode=ro" } else { "mode=ro&immutable=1" };
    let conn = Connection::open_with_flags(
        uri(path, query),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}

/// A SQLite `file:` URI for `path`, percent-encoding everything but unreserved characters,
/// `/` and `:` (Windows: backslashes become `/`, a drive letter gets a leading `/`).
pub(crate) fn uri(path: &Path, query: &str) -> String {
    #[cfg(unix)]
    let bytes: Vec<u8> = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes: Vec<u8> = {
        let s = path.to_string_lossy().replace('\\', "/");
        let s = if s.as_bytes().get(1) == Some(&b':') {
            format!("/{s}")
        } else if s.starts_with("//") {
            format!("//{s}")
        } else {
            s
        };
        s.into_bytes()
    };
    let mut out = String::with_capacity(bytes.len() + 16);
    out.push_str("file:");
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push('?');
    out.push_str(query);
    out
}

pub(crate) fn io_err(e: rusqlite::Error) -> std::io::Error {
    std::io::Error::other(e)
}

/// The names of the database's tables.
pub(crate) fn tables(conn: &Connection) -> rusqlite::Result<HashSet<String>> {
    conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?
        .query_map([], |r| r.get::<_, String>(0))?
        .collect()
}

/// The columns of a table, lower-cased (older schemas lack some).
pub(crate) fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let stmt = conn.prepare(&format!("SELECT * FROM \"{table}\" LIMIT 0"))?;
    Ok(stmt.column_names().iter().map(|n| n.to_ascii_lowercase()).collect())
}

/// Column positions of a statement, by lower-cased name.
pub(crate) struct Columns(HashMap<String, usize>);

impl Columns {
    pub(crate) fn of(stmt: &Statement<'_>) -> Columns {
        Columns(stmt.column_names().iter().enumerate().map(|(i, n)| (n.to_ascii_lowercase(), i)).collect())
    }

    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }

    /// The first of `names` the statement has (a column renamed across versions).
    pub(crate) fn find_any(&self, names: &[&str]) -> Option<usize> {
        names.iter().find_map(|n| self.find(n))
    }
}

/// A text or blob value's bytes, borrowed from the row (a big JSON column is never copied).
pub(crate) fn bytes_at<'r>(row: &'r Row<'_>, i: Option<usize>) -> Option<&'r [u8]> {
    match row.get_ref(i?).ok()? {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(b),
        _ => None,
    }
}

/// A value as text: text and blobs lossily (they may hold any bytes), numbers written out.
pub(crate) fn text_at(row: &Row<'_>, i: Option<usize>) -> Option<String> {
    match row.get_ref(i?).ok()? {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        ValueRef::Integer(n) => Some(n.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
        ValueRef::Null => None,
    }
}

/// A value as an integer: integers, reals (truncated), and numeric text.
pub(crate) fn int_at(row: &Row<'_>, i: Option<usize>) -> Option<i64> {
    match row.get_ref(i?).ok()? {
        ValueRef::Integer(n) => Some(n),
        ValueRef::Real(f) if f.is_finite() => Some(f as i64),
        ValueRef::Text(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// A time as stored: a number (kept as it is) or text, in RFC 3339 or a number written out.
pub(crate) fn time_at(row: &Row<'_>, i: Option<usize>) -> Option<i64> {
    match row.get_ref(i?).ok()? {
        ValueRef::Text(b) => {
            let text = String::from_utf8_lossy(b);
            crate::model::parse_time(text.trim()).or_else(|| text.trim().parse().ok())
        }
        _ => int_at(row, i),
    }
}

/// A value as a boolean: a non-zero number, or the text `true`/`1`.
pub(crate) fn bool_at(row: &Row<'_>, i: Option<usize>) -> bool {
    match i.and_then(|i| row.get_ref(i).ok()) {
        Some(ValueRef::Integer(n)) => n != 0,
        Some(ValueRef::Real(f)) => f != 0.0,
        Some(ValueRef::Text(b)) => matches!(b.trim_ascii(), b"1" | b"true" | b"TRUE" | b"True"),
        _ => false,
    }
}

/// Seconds or milliseconds since the epoch as milliseconds: the tools write seconds, and a
/// value past [`MS_THRESHOLD`] can only be milliseconds (as goose itself reads them).
pub(crate) fn epoch_ms(n: i64) -> i64 {
    if n.abs() > MS_THRESHOLD { n } else { n.saturating_mul(1000) }
}

/// Past this, an epoch number is milliseconds (10^10 seconds is the year 2286).
const MS_THRESHOLD: i64 = 10_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn uri_escapes_what_sqlite_would_misread() {
        assert_eq!(uri(Path::new("/home/a b/x?y#z%/sessions.db"), "mode=ro"), "file:/home/a%20b/x%3Fy%23z%25/sessions.db?mode=ro");
        use std::os::unix::ffi::OsStrExt;
        let odd = std::ffi::OsStr::from_bytes(b"/h/caf\xe9/opencode.db");
        assert_eq!(uri(Path::new(odd), "mode=ro"), "file:/h/caf%E9/opencode.db?mode=ro");
    }

    #[test]
    fn epoch_numbers_in_seconds_or_milliseconds() {
        assert_eq!(epoch_ms(1_772_359_200), 1_772_359_200_000);
        assert_eq!(epoch_ms(1_772_359_200_000), 1_772_359_200_000);
        assert_eq!(epoch_ms(0), 0);
    }
}
