//! Bringing the index up to date with the source folders: new files are read, grown
//! JSONL files are read from where the last pass stopped, changed files are read again,
//! and files that are gone are dropped.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rusqlite::{OptionalExtension, Transaction};

use super::apply::clear_unit;
use super::read::{
    apply_jsonl, apply_whole, continues, parse_jobs, parse_jsonl, parse_whole, Identity, Job, Parsed, ParsedJob,
    ReadError, Stored,
};
use super::{Index, IndexError};
use crate::model::Source;
use crate::source::{Problem, Unit, UnitKind};
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
    ///
    /// With more than one unit to read, a thread of its own parses them (`read.rs`) while
    /// this one writes what it parsed.
    fn sync(
        &mut self,
        found: Vec<(String, Unit)>,
        only: Option<&Path>,
        scanned_roots: &HashSet<String>,
        report: &mut RefreshReport,
    ) -> Result<(), IndexError> {
        let Index { conn, on_commit, commit_every, .. } = self;
        let commit_every = *commit_every;
        let mut tx = begin_write(&mut *conn)?;
        // Loaded under the write lock: another process's refresh may have just added units.
        let mut stored = load_units(&tx, only)?;
        super::search::prune_applied_changes(&tx)?;
        let mut present: HashSet<PathBuf> = HashSet::new();
        let mut jobs = Vec::new();
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
            let planned_from = stored.get(&unit.path).cloned();
            if planned_from.as_ref().is_some_and(|p| p.identity == identity) {
                continue;
            }
            jobs.push(Job { root, unit, identity, planned_from });
        }

        let jobs = std::sync::Arc::new(jobs);
        let (send, received) = std::sync::mpsc::sync_channel::<ParsedJob>(PARSED_AHEAD);
        let parser = if jobs.len() > 1 {
            let jobs = std::sync::Arc::clone(&jobs);
            let spawned = std::thread::Builder::new()
                .name("session-parse".into())
                .spawn(move || parse_jobs(&jobs, commit_every, send));
            // Without a thread (none to be had) every unit is read here.
            spawned.ok()
        } else {
            drop(send); // one unit: read here, no thread needed
            None
        };
        {
            let mut received = received.into_iter().peekable();
            let mut since_commit = 0u64;
            for (i, job) in jobs.iter().enumerate() {
                let mut previous = stored.remove(&job.unit.path);
                // Another process may have read it since the plan.
                if previous.as_ref().is_some_and(|p| p.identity == job.identity) {
                    continue;
                }
                let mut read: Option<Result<u64, ReadError>> = None;
                let mut bytes = 0;
                // The parser thread's parts for this job, while they continue what is stored.
                while read.is_none() {
                    while received.next_if(|(job_no, _)| *job_no < i).is_some() {} // a job read here instead
                    let Some((_, parsed)) = received.next_if(|(job_no, _)| *job_no == i) else { break };
                    match parsed {
                        Err(e) => read = Some(Err(ReadError::Io(e))),
                        Ok(Parsed::Jsonl(part)) if continues(&part, previous.as_ref(), job.identity) => {
                            let more = part.more;
                            bytes += apply_jsonl(&tx, job, previous.as_ref(), part)?;
                            if !more {
                                read = Some(Ok(bytes));
                                break;
                            }
                            tx.commit()?;
                            super::committed(on_commit);
                            tx = begin_write(&mut *conn)?;
                            since_commit = 0;
                            // Another process may have read units between the two.
                            stored = load_units(&tx, only)?;
                            previous = stored.remove(&job.unit.path);
                        }
                        Ok(Parsed::Whole(part)) => {
                            if apply_whole(&tx, job, previous.as_ref(), part)? {
                                read = Some(Ok(job.identity.size.max(0) as u64));
                            }
                            break;
                        }
                        Ok(Parsed::Jsonl(_)) => break,
                    }
                }
                let read = match read {
                    Some(read) => read,
                    // Not parsed ahead (one unit), or what was parsed no longer applies.
                    None => match job.unit.kind {
                        UnitKind::Jsonl => loop {
                            let part = match parse_jsonl(&job.unit, job.identity, previous.as_ref(), commit_every) {
                                Ok(part) => part,
                                Err(e) => break Err(ReadError::Io(e)),
                            };
                            let more = part.more;
                            bytes += apply_jsonl(&tx, job, previous.as_ref(), part)?;
                            if !more {
                                break Ok(bytes);
                            }
                            tx.commit()?;
                            super::committed(on_commit);
                            tx = begin_write(&mut *conn)?;
                            since_commit = 0;
                            stored = load_units(&tx, only)?;
                            previous = stored.remove(&job.unit.path);
                        },
                        UnitKind::Whole => match parse_whole(&job.unit, job.identity, previous.as_ref()) {
                            Ok(part) => {
                                apply_whole(&tx, job, previous.as_ref(), part)?;
                                Ok(job.identity.size.max(0) as u64)
                            }
                            Err(e) => Err(ReadError::Io(e)),
                        },
                    },
                };
                match read {
                    Ok(bytes) => {
                        report.units_read += 1;
                        report.bytes_read += bytes;
                        since_commit += bytes;
                    }
                    Err(ReadError::Io(e)) => {
                        report.problems.push(Problem { path: job.unit.path.clone(), message: e.to_string() })
                    }
                    Err(ReadError::Sqlite(e)) => return Err(e.into()),
                }
                if since_commit >= commit_every {
                    tx.commit()?;
                    super::committed(on_commit);
                    tx = begin_write(&mut *conn)?;
                    since_commit = 0;
                    // Between the two transactions another process may have read units too.
                    stored = load_units(&tx, only)?;
                }
            }
        } // the receiver is gone: a parser still running stops at its next send
        if let Some(parser) = parser {
            let _ = parser.join();
        }

        if scanned_roots.is_empty() {
            tx.commit()?;
            super::committed(on_commit);
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
                tx.prepare_cached("DELETE FROM unit WHERE id = ?1")?.execute([id])?;
                report.units_removed += 1;
            }
        }
        tx.commit()?;
        super::committed(on_commit);
        Ok(())
    }
}

/// Parsed units (or parts of a big file) the parser thread may run ahead of the writer.
const PARSED_AHEAD: usize = 2;

/// A transaction that holds the index file's write lock from its first statement, so
/// what it reads (the stored units) cannot change under it. Not `BEGIN IMMEDIATE`, which
/// would also lock the attached search file that the search indexer writes meanwhile.
fn begin_write(conn: &mut rusqlite::Connection) -> rusqlite::Result<Transaction<'_>> {
    let tx = conn.transaction()?;
    tx.prepare_cached("UPDATE main.index_meta SET generation = generation")?.execute([])?;
    Ok(tx)
}

/// The index file is locked by another process for longer than the busy timeout.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
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
            }))
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

