//! Bringing the index up to date with the source folders: new files are read, grown
//! JSONL files are read from where the last pass stopped, changed files are read again,
//! and files that are gone are dropped.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rusqlite::{params, OptionalExtension, Transaction};

use super::apply::{apply_session, clear_session, clear_unit};
use super::{Index, IndexError};
use crate::jsonl::read_complete_lines_upto;
use crate::model::Source;
use crate::source::{LinePos, Problem, Unit, UnitKind};
use crate::sources;

/// What a refresh did.
#[derive(Debug, Default, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshReport {
    /// Units found under the roots.
    pub units_seen: u64,
    /// Units read in this pass (new, grown or changed).
    pub units_read: u64,
    /// Bytes read from source files.
    pub bytes_read: u64,
    /// Units dropped because their file is gone.
    pub units_removed: u64,
    /// Files and folders that could not be read.
    pub problems: Vec<Problem>,
}

/// A file's identity as far as the index cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: i64,
    ino: i64,
    size: i64,
    mtime_ns: i64,
    fingerprint: i64,
}

struct Stored {
    id: i64,
    identity: Identity,
    offset: i64,
    lines: i64,
    tail_sum: i64,
    mark: Option<i64>,
}


impl Index {
    /// Reads whatever changed under `roots` (each a folder of one source). Source files
    /// that cannot be read are reported in the result; they never fail the refresh.
    pub fn refresh(&mut self, roots: &[(Source, PathBuf)]) -> Result<RefreshReport, IndexError> {
        let mut report = RefreshReport::default();
        let mut found: Vec<(String, Unit)> = Vec::new();
        for (source, root) in roots {
            let mut units = Vec::new();
            sources::reader(*source).discover(root, &mut units, &mut report.problems);
            let root_key = root.to_string_lossy().into_owned();
            found.extend(units.into_iter().map(|u| (root_key.clone(), u)));
        }
        report.units_seen = found.len() as u64;
        let scanned: HashSet<String> = roots.iter().map(|(_, r)| r.to_string_lossy().into_owned()).collect();
        match self.sync(found, None, &scanned, &mut report) {
            Err(IndexError::Sqlite(e)) if is_busy(&e) => {
                // Another process (the app, or another CLI run) holds the index for a long
                // first read: answer from what it has committed so far.
                report.problems.push(Problem {
                    path: PathBuf::from(self.conn.path().unwrap_or_default()),
                    message: "another Memory Bank process is updating the session index; \
                              answers come from what it has written so far"
                        .into(),
                });
                return Ok(report);
            }
            other => other?,
        }
        if self.inline_search {
            self.index_for_search(&|| false)?;
        }
        Ok(report)
    }

    /// Re-reads one unit if it changed (used before reading a transcript, so the answer
    /// includes what was appended since the last refresh).
    pub fn refresh_unit_of(&mut self, session_row: i64) -> Result<(), IndexError> {
        let found = self
            .conn
            .query_row(
                "SELECT u.root, u.path, u.source, u.session_hint, u.workspace_hint
                 FROM session s JOIN unit u ON u.id = s.unit_id WHERE s.id = ?1",
                [session_row],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, Option<String>>(4)?,
                    ))
                },
            )
            .optional()?;
        let Some((root, path, source, session_hint, workspace_hint)) = found else { return Ok(()) };
        let Some(source) = Source::parse(&source) else { return Ok(()) };
        let mut unit = Unit::new(source, PathBuf::from(path), UnitKind::Jsonl);
        if unit.path.extension().is_none_or(|e| e != "jsonl") {
            return Ok(()); // whole units change identity in ways only discovery can see
        }
        unit.session_hint = session_hint;
        unit.workspace_hint = workspace_hint;
        // Only this unit's stored state: loading every unit costs milliseconds per read.
        let only = unit.path.clone();
        let units = vec![(root, unit)];
        let mut report = RefreshReport::default();
        // A lookup does not wait long for another process's refresh (which reads this
        // file too): it answers from what is committed.
        self.conn.busy_timeout(std::time::Duration::from_millis(250))?;
        let synced = self.sync(units, Some(&only), &HashSet::new(), &mut report);
        self.conn.busy_timeout(super::BUSY_TIMEOUT)?;
        match synced {
            Err(IndexError::Sqlite(e)) if is_busy(&e) => return Ok(()),
            other => other?,
        }
        if self.inline_search {
            self.index_for_search(&|| false)?;
        }
        Ok(())
    }

    /// Reads the units in `found` that changed (`only`: the stored state of that one unit
    /// suffices) and, with `scanned_roots`, drops the units gone from those roots.
    fn sync(
        &mut self,
        found: Vec<(String, Unit)>,
        only: Option<&Path>,
        scanned_roots: &HashSet<String>,
        report: &mut RefreshReport,
    ) -> Result<(), IndexError> {
        let mut tx = begin_write(&mut self.conn)?;
        // Loaded under the write lock: another process's refresh may have just added units.
        let mut stored = load_units(&tx, only)?;
        super::search::prune_applied_changes(&tx)?;
        let mut since_commit = 0u64;
        let mut present: HashSet<PathBuf> = HashSet::new();
        for (root, unit) in found {
            present.insert(unit.path.clone());
            let meta = match std::fs::metadata(&unit.path) {
                Ok(m) => m,
                Err(e) => {
                    report.problems.push(Problem { path: unit.path.clone(), message: e.to_string() });
                    continue;
                }
            };
            let identity = identity_of(&meta, unit.fingerprint);
            let previous = stored.remove(&unit.path);
            if previous.as_ref().is_some_and(|p| p.identity == identity) {
                continue;
            }
            let mtime_ms = identity.mtime_ns / 1_000_000;
            let read = match unit.kind {
                UnitKind::Jsonl => {
                    // A big file is read and committed in parts, so the search indexer
                    // (woken by each commit) works alongside and memory stays bounded.
                    let mut previous = previous;
                    let mut total = 0;
                    loop {
                        match read_jsonl(&tx, &root, &unit, identity, previous, mtime_ms, self.commit_every) {
                            Ok((bytes, true)) => {
                                total += bytes;
                                tx.commit()?;
                                super::committed(&self.on_commit);
                                tx = begin_write(&mut self.conn)?;
                                since_commit = 0;
                                // Another process may have read units between the two.
                                stored = load_units(&tx, only)?;
                                previous = stored.remove(&unit.path);
                            }
                            Ok((bytes, false)) => break Ok(total + bytes),
                            Err(e) => break Err(e),
                        }
                    }
                }
                UnitKind::Whole => read_whole(&tx, &root, &unit, identity, previous, mtime_ms),
            };
            match read {
                Ok(bytes) => {
                    report.units_read += 1;
                    report.bytes_read += bytes;
                    since_commit += bytes;
                }
                Err(ReadError::Io(e)) => {
                    report.problems.push(Problem { path: unit.path.clone(), message: e.to_string() })
                }
                Err(ReadError::Sqlite(e)) => return Err(e.into()),
            }
            if since_commit >= self.commit_every {
                tx.commit()?;
                super::committed(&self.on_commit);
                tx = begin_write(&mut self.conn)?;
                since_commit = 0;
                // Between the two transactions another process may have read units too.
                stored = load_units(&tx, only)?;
            }
        }
        if scanned_roots.is_empty() {
            tx.commit()?;
            super::committed(&self.on_commit);
            return Ok(());
        }
        // Files gone from a scanned root.
        let mut gone = tx.prepare("SELECT id, path, root FROM unit")?;
        let rows: Vec<(i64, String, String)> =
            gone.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
        drop(gone);
        for (id, path, root) in rows {
            if scanned_roots.contains(&root) && !present.contains(Path::new(&path)) {
                clear_unit(&tx, id)?;
                tx.execute("DELETE FROM unit WHERE id = ?1", [id])?;
                report.units_removed += 1;
            }
        }
        tx.commit()?;
        super::committed(&self.on_commit);
        Ok(())
    }
}

/// A transaction that holds the index file's write lock from its first statement, so
/// what it reads (the stored units) cannot change under it. Not `BEGIN IMMEDIATE`, which
/// would also lock the attached search file that the search indexer writes meanwhile.
fn begin_write(conn: &mut rusqlite::Connection) -> rusqlite::Result<Transaction<'_>> {
    let tx = conn.transaction()?;
    tx.execute("UPDATE main.index_meta SET generation = generation", [])?;
    Ok(tx)
}

/// The index file is locked by another process for longer than the busy timeout.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

enum ReadError {
    Io(std::io::Error),
    Sqlite(rusqlite::Error),
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

impl From<rusqlite::Error> for ReadError {
    fn from(e: rusqlite::Error) -> Self {
        ReadError::Sqlite(e)
    }
}

/// The stored state of every unit, or of the one at `only`.
fn load_units(conn: &rusqlite::Connection, only: Option<&Path>) -> rusqlite::Result<HashMap<PathBuf, Stored>> {
    const COLUMNS: &str =
        "SELECT id, path, dev, ino, size, mtime_ns, fingerprint, offset, lines, tail_sum, mark FROM unit";
    let mut stmt = match only {
        Some(_) => conn.prepare_cached(&format!("{COLUMNS} WHERE path = ?1"))?,
        None => conn.prepare_cached(COLUMNS)?,
    };
    let only: Vec<String> = only.map(|p| p.to_string_lossy().into_owned()).into_iter().collect();
    let rows = stmt.query_map(rusqlite::params_from_iter(only.iter()), |r| {
        Ok((
            PathBuf::from(r.get::<_, String>(1)?),
            Stored {
                id: r.get(0)?,
                identity: Identity {
                    dev: r.get(2)?,
                    ino: r.get(3)?,
                    size: r.get(4)?,
                    mtime_ns: r.get(5)?,
                    fingerprint: r.get(6)?,
                },
                offset: r.get(7)?,
                lines: r.get(8)?,
                tail_sum: r.get(9)?,
                mark: r.get(10)?,
            },
        ))
    })?;
    rows.collect()
}

fn identity_of(meta: &std::fs::Metadata, fingerprint: u64) -> Identity {
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev() as i64, meta.ino() as i64)
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0i64, 0i64);
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64);
    Identity { dev, ino, size: meta.len() as i64, mtime_ns, fingerprint: fingerprint as i64 }
}

/// Bytes checked at the start of the file and before the resume offset, to notice a
/// file rewritten in place (JSONL files are append-only, so this is rare and cheap).
const HEAD_CHECK: u64 = 4096;
const TAIL_CHECK: u64 = 64;

fn tail_sum(file: &mut File, offset: u64) -> std::io::Result<i64> {
    let head = read_range(file, 0, offset.min(HEAD_CHECK))?;
    let tail_start = offset.saturating_sub(TAIL_CHECK).max(offset.min(HEAD_CHECK));
    let tail = read_range(file, tail_start, offset)?;
    // FNV-1a: a cheap checksum, not a security boundary.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in head.into_iter().chain(tail) {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    Ok(hash as i64)
}

fn read_range(file: &mut File, start: u64, end: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; end.saturating_sub(start) as usize];
    file.seek(SeekFrom::Start(start))?;
    file.read_exact(&mut buf)?;
    Ok(buf)
}

fn upsert_unit(
    tx: &Transaction,
    previous: Option<&Stored>,
    root: &str,
    unit: &Unit,
    identity: Identity,
    (offset, lines, sum): (i64, i64, i64),
) -> rusqlite::Result<i64> {
    if let Some(p) = previous {
        tx.execute(
            "UPDATE unit SET root = ?2, dev = ?3, ino = ?4, size = ?5, mtime_ns = ?6, fingerprint = ?7,
                 offset = ?8, lines = ?9, tail_sum = ?10 WHERE id = ?1",
            params![p.id, root, identity.dev, identity.ino, identity.size, identity.mtime_ns,
                identity.fingerprint, offset, lines, sum],
        )?;
        return Ok(p.id);
    }
    tx.execute(
        "INSERT INTO unit (path, root, source, session_hint, workspace_hint, dev, ino, size, mtime_ns,
             fingerprint, offset, lines, tail_sum)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![unit.path.to_string_lossy(), root, unit.source.as_str(), unit.session_hint,
            unit.workspace_hint, identity.dev, identity.ino, identity.size, identity.mtime_ns,
            identity.fingerprint, offset, lines, sum],
    )?;
    Ok(tx.last_insert_rowid())
}

fn read_jsonl(
    tx: &Transaction,
    root: &str,
    unit: &Unit,
    identity: Identity,
    previous: Option<Stored>,
    mtime_ms: i64,
    budget: u64,
) -> Result<(u64, bool), ReadError> {
    let mut file = File::open(&unit.path)?;
    // Resume only when it is the same file, it grew (or stayed), and the bytes before the
    // resume point are the ones read last time.
    let resume = match &previous {
        Some(p)
            if p.identity.dev == identity.dev
                && p.identity.ino == identity.ino
                && identity.size >= p.offset
                && p.offset > 0 =>
        {
            tail_sum(&mut file, p.offset as u64).ok() == Some(p.tail_sum)
        }
        _ => false,
    };
    let (start, mut line_no) = match (&previous, resume) {
        (Some(p), true) => (p.offset as u64, p.lines as u64),
        _ => (0, 0),
    };
    if let (Some(p), false) = (&previous, resume) {
        clear_unit(tx, p.id)?;
    }
    let mut parser = sources::reader(unit.source).line_parser(unit);
    let mut events = Vec::new();
    let (end, more) = read_complete_lines_upto(&mut file, start, budget, |line| {
        line_no += 1;
        parser.line(&line.bytes, LinePos { offset: line.offset, line_no }, &mut events);
    })?;
    let sum = if end > 0 { tail_sum(&mut file, end)? } else { 0 };
    // Part of a big file: an identity no file has, so if the rest is never read (the app
    // quit), the next refresh resumes from `end` instead of taking the file as read.
    let identity = if more { Identity { size: -1, ..identity } } else { identity };
    let unit_id = upsert_unit(tx, previous.as_ref(), root, unit, identity, (end as i64, line_no as i64, sum))?;
    apply_session(tx, unit_id, unit, "", events, !resume, mtime_ms)?;
    Ok((end - start, more))
}

fn read_whole(
    tx: &Transaction,
    root: &str,
    unit: &Unit,
    identity: Identity,
    previous: Option<Stored>,
    mtime_ms: i64,
) -> Result<u64, ReadError> {
    // Changes only, when the reader can and it is the same file as last time.
    let since = previous
        .as_ref()
        .filter(|p| p.identity.dev == identity.dev && p.identity.ino == identity.ino)
        .and_then(|p| p.mark);
    let read = sources::reader(unit.source).parse_whole_since(unit, since)?;
    let unit_id = match (&previous, &read.present) {
        (Some(p), Some(present)) => {
            let unit_id = upsert_unit(tx, previous.as_ref(), root, unit, identity, (0, 0, 0))?;
            // Sessions the unit no longer holds, then the changed ones read again.
            let present: HashSet<&str> = present.iter().map(String::as_str).collect();
            let keys: Vec<String> = tx
                .prepare_cached("SELECT key FROM session WHERE unit_id = ?1")?
                .query_map([p.id], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            for key in keys.iter().filter(|k| !present.contains(k.as_str())) {
                clear_session(tx, unit_id, key)?;
            }
            for session in &read.sessions {
                clear_session(tx, unit_id, &session.key)?;
            }
            unit_id
        }
        _ => {
            if let Some(p) = &previous {
                clear_unit(tx, p.id)?;
            }
            upsert_unit(tx, previous.as_ref(), root, unit, identity, (0, 0, 0))?
        }
    };
    tx.execute("UPDATE unit SET mark = ?2 WHERE id = ?1", params![unit_id, read.mark])?;
    for session in read.sessions {
        apply_session(tx, unit_id, unit, &session.key, session.events, true, mtime_ms)?;
    }
    Ok(identity.size.max(0) as u64)
}
