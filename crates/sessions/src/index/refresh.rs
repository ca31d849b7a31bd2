//! Bringing the index up to date with the source folders: new files are read, grown
//! JSONL files are read from where the last pass stopped, changed files are read again,
//! and files that are gone are dropped. Parsing runs on threads of its own (`read.rs`);
//! this thread writes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use rusqlite::{Connection, OptionalExtension, Transaction};

use super::keep::Keeper;
use super::read::{
    apply_jsonl, apply_whole, continues, parse_jobs, parse_jsonl, parse_whole, Identity, Job, Parsed, ParsedJob,
    ReadError, Stored, WholeApplied,
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
    /// Sessions archived because their source is gone (their file, or their rows).
    pub sessions_archived: u64,
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
                 FROM session s JOIN unit u ON u.id = s.unit_id WHERE s.id = ?1 AND u.archive = 0",
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
        // Found by an earlier discovery; the rule against links out of the folder holds now too.
        if !crate::source::Root::new(Path::new(&root)).file(&unit.path, &mut Vec::new()) {
            return Ok(());
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
    /// With more than one unit to read, [`PARSE_THREADS`] threads parse them (`read.rs`),
    /// biggest first, while this one writes what they parsed, in the order it arrives
    /// (units are independent of each other).
    fn sync(
        &mut self,
        found: Vec<(String, Unit)>,
        only: Option<&Path>,
        scanned_roots: &HashSet<String>,
        report: &mut RefreshReport,
    ) -> Result<(), IndexError> {
        let archive = self.archive.as_ref();
        let mut writer = Writer::begin(&self.conn, &self.on_commit, only, self.commit_every, archive, self.keep_archived)?;
        super::search::prune_applied_changes(writer.tx())?;
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
            let planned_from = writer.stored.get(&unit.path).cloned();
            if planned_from.as_ref().is_some_and(|p| p.identity == identity) {
                continue;
            }
            jobs.push(Job { root, unit, identity, planned_from });
        }
        // Biggest first: a big file started last would leave one parser working alone.
        jobs.sort_by_key(|job| std::cmp::Reverse(job.identity.size));
        let jobs = Arc::new(jobs);

        let (send, received) = std::sync::mpsc::sync_channel::<ParsedJob>(PARSED_AHEAD);
        let mut parsers = Vec::new();
        if jobs.len() > 1 {
            let next = Arc::new(AtomicUsize::new(0));
            for _ in 0..PARSE_THREADS.min(jobs.len()) {
                let (jobs, next, send) = (Arc::clone(&jobs), Arc::clone(&next), send.clone());
                let budget = self.commit_every;
                // Without a thread (none to be had) the units are read below instead.
                if let Ok(parser) = std::thread::Builder::new()
                    .name("session-parse".into())
                    .spawn(move || parse_jobs(&jobs, &next, budget, send))
                {
                    parsers.push(parser);
                }
            }
        }
        drop(send);
        let mut done = vec![false; jobs.len()];
        let mut started = vec![false; jobs.len()];
        let mut bytes = vec![0u64; jobs.len()];
        for (i, parsed) in received.iter() {
            if done[i] {
                continue; // read here already (what was parsed no longer applied)
            }
            let job = &jobs[i];
            let previous = writer.stored.get(&job.unit.path).cloned();
            if !started[i] {
                started[i] = true;
                // Another process may have read it since the plan.
                if previous.as_ref().is_some_and(|p| p.identity == job.identity) {
                    done[i] = true;
                    continue;
                }
            }
            let outcome = match parsed {
                Err(e) => Some(Err(ReadError::Io(e))),
                Ok(Parsed::Jsonl(part)) if continues(&part, previous.as_ref(), job.identity) => {
                    let more = part.more;
                    let (tx, keeper) = writer.parts();
                    bytes[i] += apply_jsonl(tx, keeper, job, previous.as_ref(), part, &mut report.problems)?;
                    if more {
                        // A part of a big file: committed, so search indexes it meanwhile.
                        writer.commit()?;
                        None
                    } else {
                        Some(Ok(bytes[i]))
                    }
                }
                Ok(Parsed::Whole(part)) => {
                    let (tx, keeper) = writer.parts();
                    match apply_whole(tx, keeper, job, previous.as_ref(), part)? {
                        WholeApplied::Done => Some(Ok(job.identity.size.max(0) as u64)),
                        WholeApplied::Stale => Some(writer.read_whole(job, false)?),
                        WholeApplied::ReadAll => Some(writer.read_whole(job, true)?),
                    }
                }
                // Parsed from a state the index no longer holds: read it here.
                Ok(Parsed::Jsonl(_)) => Some(writer.read_here(job, bytes[i], &mut report.problems)?),
            };
            if let Some(outcome) = outcome {
                done[i] = true;
                writer.account(job, outcome, report)?;
            }
        }
        for parser in parsers {
            let _ = parser.join();
        }
        // Units no parser delivered (a single unit is read here directly).
        for (i, job) in jobs.iter().enumerate().filter(|(i, _)| !done[*i]) {
            let previous = writer.stored.get(&job.unit.path);
            if !started[i] && previous.is_some_and(|p| p.identity == job.identity) {
                continue;
            }
            let outcome = writer.read_here(job, bytes[i], &mut report.problems)?;
            writer.account(job, outcome, report)?;
        }

        if !scanned_roots.is_empty() {
            // Files gone from a scanned root: their sessions are archived (or dropped).
            let (tx, keeper) = writer.parts();
            let mut gone = tx.prepare("SELECT id, path, root FROM unit WHERE archive = 0")?;
            let rows: Vec<(i64, String, String)> =
                gone.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
            drop(gone);
            for (id, path, root) in rows {
                if scanned_roots.contains(&root) && !present.contains(Path::new(&path)) {
                    report.sessions_archived += keeper.unit_gone(tx, id, &root)?;
                    tx.prepare_cached("DELETE FROM unit WHERE id = ?1")?.execute([id])?;
                    report.units_removed += 1;
                }
            }
        }
        writer.finish()
    }
}

/// Threads that parse units while the refresh writes.
const PARSE_THREADS: usize = 2;

/// Parsed units (or parts of a big file) the parsers may run ahead of the writer.
const PARSED_AHEAD: usize = 2;

/// The refresh's side of the index file: its open transaction, committed every
/// `commit_every` bytes read (and after each part of a big file), and what the index
/// holds for each unit as of the transaction's start.
struct Writer<'c> {
    conn: &'c Connection,
    tx: Option<Transaction<'c>>,
    keeper: Keeper<'c>,
    on_commit: &'c Option<Box<dyn Fn() + Send>>,
    only: Option<&'c Path>,
    commit_every: u64,
    since_commit: u64,
    stored: HashMap<PathBuf, Stored>,
}

impl<'c> Writer<'c> {
    fn begin(
        conn: &'c Connection,
        on_commit: &'c Option<Box<dyn Fn() + Send>>,
        only: Option<&'c Path>,
        commit_every: u64,
        archive: Option<&'c crate::archive::Archive>,
        keep_archived: bool,
    ) -> rusqlite::Result<Writer<'c>> {
        let tx = begin_write(conn)?;
        // Loaded under the write lock: another process's refresh may have just added units.
        let stored = load_units(&tx, only)?;
        let keeper = Keeper::new(&tx, archive, keep_archived)?;
        Ok(Writer { conn, tx: Some(tx), keeper, on_commit, only, commit_every, since_commit: 0, stored })
    }

    fn tx(&self) -> &Transaction<'c> {
        self.tx.as_ref().expect("a writer always holds a transaction until finished")
    }

    /// The transaction, and the archive's side of what it writes.
    fn parts(&mut self) -> (&Transaction<'c>, &mut Keeper<'c>) {
        (self.tx.as_ref().expect("a writer always holds a transaction until finished"), &mut self.keeper)
    }

    /// Commits, tells the search indexer, and starts the next transaction.
    fn commit(&mut self) -> rusqlite::Result<()> {
        if let Some(tx) = self.tx.take() {
            tx.commit()?;
        }
        super::committed(self.on_commit);
        self.tx = Some(begin_write(self.conn)?);
        self.since_commit = 0;
        // Between the two transactions another process may have read units too.
        self.stored = load_units(self.tx(), self.only)?;
        Ok(())
    }

    fn finish(mut self) -> Result<(), IndexError> {
        if let Some(tx) = self.tx.take() {
            tx.commit()?;
        }
        super::committed(self.on_commit);
        Ok(())
    }

    /// Reads (the rest of) a unit on this thread; `bytes` already read from it count too.
    fn read_here(
        &mut self,
        job: &Job,
        mut bytes: u64,
        problems: &mut Vec<Problem>,
    ) -> rusqlite::Result<Result<u64, ReadError>> {
        match job.unit.kind {
            UnitKind::Jsonl => loop {
                let previous = self.stored.get(&job.unit.path).cloned();
                let part = match parse_jsonl(&job.unit, job.identity, previous.as_ref(), self.commit_every) {
                    Ok(part) => part,
                    Err(e) => return Ok(Err(ReadError::Io(e))),
                };
                let more = part.more;
                let (tx, keeper) = self.parts();
                bytes += apply_jsonl(tx, keeper, job, previous.as_ref(), part, problems)?;
                if !more {
                    return Ok(Ok(bytes));
                }
                self.commit()?;
            },
            UnitKind::Whole => self.read_whole(job, false),
        }
    }

    /// Reads a whole unit on this thread: only its changes when it can, everything when
    /// `all` is set or the changes alone cannot bring back what the unit holds.
    fn read_whole(&mut self, job: &Job, mut all: bool) -> rusqlite::Result<Result<u64, ReadError>> {
        let previous = self.stored.get(&job.unit.path).cloned();
        loop {
            let since = if all { None } else { previous.as_ref() };
            let part = match parse_whole(&job.unit, job.identity, since) {
                Ok(part) => part,
                Err(e) => return Ok(Err(ReadError::Io(e))),
            };
            let (tx, keeper) = self.parts();
            match apply_whole(tx, keeper, job, previous.as_ref(), part)? {
                WholeApplied::ReadAll if !all => all = true,
                _ => return Ok(Ok(job.identity.size.max(0) as u64)),
            }
        }
    }

    /// Records a unit's outcome, committing once enough was read.
    fn account(&mut self, job: &Job, outcome: Result<u64, ReadError>, report: &mut RefreshReport) -> rusqlite::Result<()> {
        match outcome {
            Ok(bytes) => {
                report.units_read += 1;
                report.bytes_read += bytes;
                self.since_commit += bytes;
            }
            Err(ReadError::Io(e)) => {
                report.problems.push(Problem { path: job.unit.path.clone(), message: e.to_string() })
            }
            Err(ReadError::Sqlite(e)) => return Err(e),
        }
        if self.since_commit >= self.commit_every {
            self.commit()?;
        }
        Ok(())
    }
}

/// A transaction that holds the index file's write lock from its first statement, so
/// what it reads (the stored units) cannot change under it. Not `BEGIN IMMEDIATE`, which
/// would also lock the attached search file that the search indexer writes meanwhile.
pub(super) fn begin_write(conn: &Connection) -> rusqlite::Result<Transaction<'_>> {
    let tx = conn.unchecked_transaction()?;
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
    // Archive units have no file: nothing to read.
    let mut stmt = match only {
        Some(_) => conn.prepare_cached(&format!("{COLUMNS} WHERE path = ?1 AND archive = 0"))?,
        None => conn.prepare_cached(&format!("{COLUMNS} WHERE archive = 0"))?,
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

