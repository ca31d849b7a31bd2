//! Reading one unit, in two halves: parsing its file into events, which touches no
//! database and so can run on a thread of its own, and applying those events to the
//! index inside the refresh's transaction. A first index parses on one core while the
//! refresh writes on the other (and the search indexer fills the gaps).
//!
//! A parse is planned from what the index held for the unit when the refresh started. By
//! the time it is applied, another process may have read the same file; every parsed
//! part therefore says which stored state it continues, and the refresh reads the unit
//! again on its own thread when that is no longer what the index holds.

use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::SyncSender;

use rusqlite::{params, Transaction};

use super::apply::{apply_session, clear_session, clear_unit, Target};
use super::keep::Keeper;
use crate::jsonl::{read_complete_lines_upto, MAX_LINE_BYTES};
use crate::events::Event;
use crate::source::{LinePos, Problem, Unit, UnitKind, WholeRead};
use crate::sources;

/// A file's identity as far as the index cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Identity {
    pub(super) dev: i64,
    pub(super) ino: i64,
    pub(super) size: i64,
    pub(super) mtime_ns: i64,
    pub(super) fingerprint: i64,
}

/// What the index holds for a unit.
#[derive(Debug, Clone)]
pub(super) struct Stored {
    pub(super) id: i64,
    pub(super) identity: Identity,
    pub(super) offset: i64,
    pub(super) lines: i64,
    pub(super) tail_sum: i64,
    pub(super) mark: Option<i64>,
}

impl Stored {
    fn same_file(&self, identity: Identity) -> bool {
        self.identity.dev == identity.dev && self.identity.ino == identity.ino
    }
}

/// A unit to read: found under `root`, with the identity it has now and what the index
/// held for it when the refresh planned the read.
pub(super) struct Job {
    pub(super) root: String,
    pub(super) unit: Unit,
    pub(super) identity: Identity,
    pub(super) planned_from: Option<Stored>,
}

/// Consecutive lines of a JSONL unit, parsed.
pub(super) struct JsonlPart {
    /// The stored `(offset, lines, tail_sum)` this part continues; `None`: it starts the
    /// file over (whatever is stored for the unit is dropped).
    pub(super) from: Option<(i64, i64, i64)>,
    start: u64,
    end: u64,
    lines: u64,
    sum: i64,
    /// Not the end of the file: the next part follows (a big file is read in parts).
    pub(super) more: bool,
    events: Vec<Event>,
    /// Lines over [`crate::jsonl::MAX_LINE_BYTES`], skipped: `(line number, length)`.
    too_long: Vec<(u64, u64)>,
}

/// A whole unit, parsed (all of it, or its changes since `since`).
pub(super) struct WholePart {
    since: Option<i64>,
    read: WholeRead,
}

/// A parse of a unit, or of one part of it.
pub(super) enum Parsed {
    Jsonl(JsonlPart),
    Whole(WholePart),
}

/// Why a unit was not read.
pub(super) enum ReadError {
    /// The file: reported as a problem, never fatal.
    Io(std::io::Error),
    /// The index: fails the refresh.
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

/// Parses up to `budget` bytes of a JSONL unit, resuming after what `previous` read
/// when it is the same file, it did not shrink, and the bytes before the resume point
/// are the ones read last time.
pub(super) fn parse_jsonl(
    unit: &Unit,
    identity: Identity,
    previous: Option<&Stored>,
    budget: u64,
) -> std::io::Result<JsonlPart> {
    let mut file = File::open(&unit.path)?;
    let from = match previous {
        Some(p) if p.same_file(identity) && identity.size >= p.offset && p.offset > 0 => {
            (tail_sum(&mut file, p.offset as u64).ok() == Some(p.tail_sum)).then_some((p.offset, p.lines, p.tail_sum))
        }
        _ => None,
    };
    let (start, mut line_no) = from.map_or((0, 0), |(offset, lines, _)| (offset as u64, lines as u64));
    let mut parser = sources::reader(unit.source).line_parser(unit);
    let mut events = Vec::new();
    let mut too_long = Vec::new();
    let (end, more) = read_complete_lines_upto(&mut file, start, budget, |line| {
        line_no += 1;
        match line.too_long {
            Some(len) => too_long.push((line_no, len)),
            None => parser.line(line.bytes, LinePos { offset: line.offset, line_no }, &mut events),
        }
    })?;
    let sum = if end > 0 { tail_sum(&mut file, end)? } else { 0 };
    Ok(JsonlPart { from, start, end, lines: line_no, sum, more, events, too_long })
}

/// Whether `part` continues what the index holds for the unit now.
pub(super) fn continues(part: &JsonlPart, previous: Option<&Stored>, identity: Identity) -> bool {
    match (part.from, previous) {
        (None, _) => true,
        (Some(from), Some(p)) => p.same_file(identity) && (p.offset, p.lines, p.tail_sum) == from,
        (Some(_), None) => false,
    }
}

/// Writes a parsed part (checked with [`continues`]); returns the bytes it covered. The
/// lines it skipped for their length go to `problems` (here, not when parsed: a part may
/// be parsed twice but is written once).
pub(super) fn apply_jsonl(
    tx: &Transaction,
    keeper: &mut Keeper,
    job: &Job,
    previous: Option<&Stored>,
    part: JsonlPart,
    problems: &mut Vec<Problem>,
) -> rusqlite::Result<u64> {
    for &(line_no, len) in &part.too_long {
        problems.push(Problem {
            path: job.unit.path.clone(),
            message: format!("line {line_no} skipped: {len} bytes, over the {MAX_LINE_BYTES}-byte limit of a line"),
        });
    }
    if let (Some(p), None) = (previous, part.from) {
        clear_unit(tx, p.id)?;
    }
    // Part of a big file: an identity no file has, so if the rest is never read (the app
    // quit), the next refresh resumes from `end` instead of taking the file as read.
    let identity = if part.more { Identity { size: -1, ..job.identity } } else { job.identity };
    let state = (part.end as i64, part.lines as i64, part.sum);
    let unit_id = upsert_unit(tx, previous, &job.root, &job.unit, identity, state)?;
    let target = Target { unit_id, unit: &job.unit, root: &job.root, file_mtime_ms: job.identity.mtime_ns / 1_000_000 };
    apply_session(tx, keeper, &target, "", part.events, part.from.is_none())?;
    if !part.more && keeper.settle(tx, unit_id, "", &job.root)? {
        // Forgotten, and nothing new: when the file changes, it is read from its start.
        tx.prepare_cached("UPDATE unit SET offset = 0, lines = 0, tail_sum = 0 WHERE id = ?1")?.execute([unit_id])?;
    }
    Ok(part.end - part.start)
}

/// The stored state a part leaves behind, as the next part of the file sees it.
fn after(job: &Job, part: &JsonlPart) -> Stored {
    Stored {
        id: 0,
        identity: Identity { size: -1, ..job.identity },
        offset: part.end as i64,
        lines: part.lines as i64,
        tail_sum: part.sum,
        mark: None,
    }
}

/// Reads a whole unit: only its changes when the reader can and it is the same file as
/// last time.
pub(super) fn parse_whole(unit: &Unit, identity: Identity, previous: Option<&Stored>) -> std::io::Result<WholePart> {
    let since = previous.filter(|p| p.same_file(identity)).and_then(|p| p.mark);
    let read = sources::reader(unit.source).parse_whole_since(unit, since)?;
    Ok(WholePart { since, read })
}

/// What writing a parsed whole unit did.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum WholeApplied {
    /// Written.
    Done,
    /// Nothing written: it read the changes since a mark the index no longer holds.
    Stale,
    /// Nothing written: the unit holds sessions the index does not (archived or dropped,
    /// then their rows came back unchanged), which only a read of everything brings back.
    ReadAll,
}

/// Writes a parsed whole unit. Sessions of a database that it no longer holds are
/// archived (`keep.rs`); a document read again replaces what it held.
pub(super) fn apply_whole(
    tx: &Transaction,
    keeper: &mut Keeper,
    job: &Job,
    previous: Option<&Stored>,
    part: WholePart,
) -> rusqlite::Result<WholeApplied> {
    let now = previous.filter(|p| p.same_file(job.identity)).and_then(|p| p.mark);
    if part.since.is_some() && part.since != now {
        return Ok(WholeApplied::Stale);
    }
    let (root, unit, identity) = (&job.root, &job.unit, job.identity);
    let read = part.read;
    let unit_id = match (previous, &read.present) {
        (Some(p), Some(present)) => {
            let held: Vec<(i64, String)> = tx
                .prepare_cached("SELECT id, key FROM session WHERE unit_id = ?1")?
                .query_map([p.id], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            let present: HashSet<&str> = present.iter().map(String::as_str).collect();
            let read_keys: HashSet<&str> = read.sessions.iter().map(|s| s.key.as_str()).collect();
            let held_keys: HashSet<&str> = held.iter().map(|(_, k)| k.as_str()).collect();
            let source = unit.source.as_str();
            let missing = present
                .iter()
                .any(|k| !held_keys.contains(k) && !read_keys.contains(k) && !keeper.is_forgotten(root, source, k));
            if missing && part.since.is_some() {
                return Ok(WholeApplied::ReadAll);
            }
            let unit_id = upsert_unit(tx, previous, root, unit, identity, (0, 0, 0))?;
            debug_assert_eq!(unit_id, p.id);
            // Sessions the unit no longer holds, then the changed ones read again.
            for (row, _) in held.iter().filter(|(_, k)| !present.contains(k.as_str())) {
                keeper.session_gone(tx, *row, root)?;
            }
            for session in &read.sessions {
                clear_session(tx, unit_id, &session.key)?;
            }
            unit_id
        }
        _ => {
            if let Some(p) = previous {
                clear_unit(tx, p.id)?;
            }
            upsert_unit(tx, previous, root, unit, identity, (0, 0, 0))?
        }
    };
    tx.prepare_cached("UPDATE unit SET mark = ?2 WHERE id = ?1")?.execute(params![unit_id, read.mark])?;
    let target = Target { unit_id, unit, root, file_mtime_ms: identity.mtime_ns / 1_000_000 };
    for session in read.sessions {
        let key = session.key.clone();
        apply_session(tx, keeper, &target, &key, session.events, true)?;
        keeper.settle(tx, unit_id, &key, root)?;
    }
    Ok(WholeApplied::Done)
}

/// One parse sent by [`parse_jobs`]: the index of its job and what was read.
pub(super) type ParsedJob = (usize, std::io::Result<Parsed>);

/// Parses jobs until none is left, taking the next from `next` (shared by the parser
/// threads), a big JSONL file part by part, and sends the results; stops early when the
/// receiver hangs up.
pub(super) fn parse_jobs(jobs: &[Job], next: &AtomicUsize, budget: u64, out: SyncSender<ParsedJob>) {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = jobs.get(i) else { return };
        match job.unit.kind {
            UnitKind::Jsonl => {
                let mut previous = job.planned_from.clone();
                loop {
                    let part = parse_jsonl(&job.unit, job.identity, previous.as_ref(), budget);
                    let next_part = part.as_ref().ok().filter(|p| p.more).map(|p| after(job, p));
                    if out.send((i, part.map(Parsed::Jsonl))).is_err() {
                        return;
                    }
                    match next_part {
                        Some(state) => previous = Some(state),
                        None => break,
                    }
                }
            }
            UnitKind::Whole => {
                let part = parse_whole(&job.unit, job.identity, job.planned_from.as_ref());
                if out.send((i, part.map(Parsed::Whole))).is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes a unit's row: updated when the index held it, else inserted; returns its id.
fn upsert_unit(
    tx: &Transaction,
    previous: Option<&Stored>,
    root: &str,
    unit: &Unit,
    identity: Identity,
    (offset, lines, sum): (i64, i64, i64),
) -> rusqlite::Result<i64> {
    if let Some(p) = previous {
        tx.prepare_cached(
            "UPDATE unit SET root = ?2, dev = ?3, ino = ?4, size = ?5, mtime_ns = ?6, fingerprint = ?7,
                 offset = ?8, lines = ?9, tail_sum = ?10 WHERE id = ?1",
        )?
        .execute(params![p.id, root, identity.dev, identity.ino, identity.size, identity.mtime_ns,
            identity.fingerprint, offset, lines, sum])?;
        return Ok(p.id);
    }
    tx.prepare_cached(
        "INSERT INTO unit (path, root, source, session_hint, workspace_hint, dev, ino, size, mtime_ns,
             fingerprint, offset, lines, tail_sum)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![unit.path.to_string_lossy(), root, unit.source.as_str(), unit.session_hint,
        unit.workspace_hint, identity.dev, identity.ino, identity.size, identity.mtime_ns,
        identity.fingerprint, offset, lines, sum])?;
    Ok(tx.last_insert_rowid())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(ino: i64, size: i64) -> Identity {
        Identity { dev: 1, ino, size, mtime_ns: 5, fingerprint: 0 }
    }

    fn stored(ino: i64, offset: i64) -> Stored {
        Stored { id: 9, identity: identity(ino, offset), offset, lines: 3, tail_sum: 77, mark: None }
    }

    fn part(from: Option<(i64, i64, i64)>) -> JsonlPart {
        JsonlPart { from, start: 0, end: 0, lines: 0, sum: 0, more: false, events: Vec::new(), too_long: Vec::new() }
    }

    #[test]
    fn a_part_applies_only_to_the_stored_state_it_continues() {
        let now = identity(4, 500);
        // A read from the start replaces whatever is stored.
        assert!(continues(&part(None), None, now));
        assert!(continues(&part(None), Some(&stored(4, 100)), now));
        // A resumed read needs exactly the state it resumed from, of the same file.
        assert!(continues(&part(Some((100, 3, 77))), Some(&stored(4, 100)), now));
        // Another process read on meanwhile, the file was replaced, or the row is gone.
        assert!(!continues(&part(Some((100, 3, 77))), Some(&stored(4, 200)), now));
        assert!(!continues(&part(Some((100, 3, 77))), Some(&stored(8, 100)), now));
        assert!(!continues(&part(Some((100, 3, 77))), None, now));
    }
}
