//! The message search index: the trigrams of every message, in a second database file
//! beside the index (attached as `search`), so a thread of its own can build it while
//! the refresh writes sessions and messages into the main file. SQLite allows one writer
//! per file, so two files are what lets a first index use two cores.
//!
//! The search index follows the `message` table by two watermarks in `search.progress`:
//! every message with a larger id than `message_id` is not indexed yet (ids come from
//! AUTOINCREMENT, so they are never reused), and every change logged in `search_dirty`
//! (a message's text changed, or it was deleted) after `dirty_seq` is not applied yet.
//! Until both are caught up, search scans the stored texts instead, so an answer is
//! never missing a message: only slower while a first index runs.
//!
//! The index maps each trigram of folded text (`trigram.rs`) to the messages holding it,
//! without positions, in segments written a batch at a time (`segments.rs`). It finds
//! the messages holding every trigram of the query, a superset that the caller narrows
//! down by checking containment. A message deleted or changed leaves stale postings
//! behind (harmless: candidates are checked against the stored text); once they are a
//! quarter of everything, the search index is built again.

use std::path::Path;

use memory_bank_sqlcipher_file::DbKey;
use rusqlite::{params, Connection, OptionalExtension};

use crate::keyed::{self, CipherError};

use super::segments::{self, SegmentBuilder};
use super::trigram::{self, Trigram};

/// Bump when the layout below changes: the search file is then rebuilt from the index.
const SEARCH_SCHEMA_VERSION: i64 = 2;

const SEARCH_SCHEMA: &str = r#"
CREATE TABLE search.progress (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- The `index_meta.generation` indexed: a rebuilt index starts the search over.
    generation INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    dirty_seq INTEGER NOT NULL,
    -- Messages indexed, and those indexed whose text changed or that are gone since.
    indexed INTEGER NOT NULL DEFAULT 0,
    stale INTEGER NOT NULL DEFAULT 0
);
"#;

/// Text indexed per transaction: bounded so the main file's WAL can be checkpointed
/// between batches and a stop request is honoured within a second or two.
const BATCH_BYTES: usize = 16 << 20;

/// Changes from `search_dirty` applied per transaction.
const BATCH_CHANGES: i64 = 10_000;

/// Stale messages (deleted, or indexed again after a change) that, once also more than a
/// quarter of those indexed, make the search index start over.
const STALE_REBUILD_MIN: i64 = 1000;

/// Distinct trigrams a query is narrowed by (a long query needs no more to be selective).
const MAX_TERMS: usize = 24;

/// Attaches the search file at `path` (in memory when `None`) as `search`, creating or
/// rebuilding its tables when they are missing or from another version. It is encrypted
/// under `key` when there is one (the index's own).
pub(super) fn attach(conn: &Connection, path: Option<&Path>, key: Option<&DbKey>) -> Result<(), CipherError> {
    let target = path.map_or_else(|| ":memory:".to_string(), |p| p.to_string_lossy().into_owned());
    keyed::attach(conn, &target, "search", key)?;
    if path.is_some() {
        // A cache like the index: losing the last batches only means indexing them again.
        conn.execute_batch("PRAGMA search.journal_mode = WAL; PRAGMA search.synchronous = OFF;")?;
    }
    let version: i64 = conn.query_row("PRAGMA search.user_version", [], |r| r.get(0))?;
    if version != SEARCH_SCHEMA_VERSION {
        conn.execute_batch(&format!(
            "BEGIN;
             DROP TABLE IF EXISTS search.message_fts;
             DROP TABLE IF EXISTS search.progress;
             DROP TABLE IF EXISTS search.segment;
             DROP TABLE IF EXISTS search.chunk;
             {SEARCH_SCHEMA}
             {}
             PRAGMA search.user_version = {SEARCH_SCHEMA_VERSION};
             COMMIT;",
            segments::SCHEMA
        ))?;
    }
    Ok(())
}

/// Whether the search index holds every message as it is now (else search scans).
pub(super) fn is_caught_up(conn: &Connection) -> rusqlite::Result<bool> {
    let caught_up: Option<bool> = conn
        .prepare_cached(
            "SELECT p.generation = g.generation
                    AND p.message_id >= coalesce((SELECT max(id) FROM main.message), 0)
                    AND NOT EXISTS (SELECT 1 FROM main.search_dirty d WHERE d.seq > p.dirty_seq)
             FROM search.progress p, main.index_meta g",
        )?
        .query_row([], |r| r.get(0))
        .optional()?;
    Ok(caught_up.unwrap_or(false))
}

/// Indexes everything the search index is missing, one batch per transaction, until it
/// is caught up or `stop` says to give up (the rest is picked up next time). Whether
/// there was anything to index.
pub(super) fn catch_up(conn: &Connection, stop: &dyn Fn() -> bool) -> rusqlite::Result<bool> {
    // Reading is enough to know there is nothing to do (no write, no lock).
    if is_caught_up(conn)? {
        return Ok(false);
    }
    while index_batch(conn)? {
        if stop() {
            break;
        }
    }
    Ok(true)
}

/// Indexes one batch; `true` when more is left.
fn index_batch(conn: &Connection) -> rusqlite::Result<bool> {
    let tx = conn.unchecked_transaction()?;
    // Write first: it takes the search file's write lock before anything is read, so two
    // processes (the app and the CLI) never index the same messages twice.
    tx.execute(
        "INSERT INTO search.progress (id, generation, message_id, dirty_seq) VALUES (1, 0, 0, 0)
         ON CONFLICT (id) DO UPDATE SET id = 1",
        [],
    )?;
    let (indexed_generation, mut watermark, mut dirty_seq, mut indexed, mut stale): (i64, i64, i64, i64, i64) =
        tx.query_row(
            "SELECT generation, message_id, dirty_seq, indexed, stale FROM search.progress WHERE id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?;
    let generation: i64 = tx.query_row("SELECT generation FROM main.index_meta", [], |r| r.get(0))?;
    // A rebuilt index: its ids mean other messages.
    if indexed_generation != generation {
        (watermark, dirty_seq, indexed, stale) = start_over(&tx)?;
    }

    let mut more = false;
    let mut builder = SegmentBuilder::default();
    let mut trigrams: Vec<Trigram> = Vec::new();
    // Messages already indexed whose text changed or that are gone: their postings stay
    // (stale, harmless) and a changed one is indexed again with its new text.
    {
        let mut changes = tx.prepare_cached(
            "SELECT d.seq, d.message_id, m.text FROM main.search_dirty d
             LEFT JOIN main.message m ON m.id = d.message_id
             WHERE d.seq > ?1 ORDER BY d.seq LIMIT ?2",
        )?;
        let mut changed: Vec<(i64, Option<String>)> = Vec::new();
        let mut applied = 0;
        let mut rows = changes.query(params![dirty_seq, BATCH_CHANGES])?;
        while let Some(row) = rows.next()? {
            applied += 1;
            dirty_seq = row.get(0)?;
            let id: i64 = row.get(1)?;
            // Newer than the watermark: indexed below with its current text anyway.
            if id <= watermark {
                changed.push((id, row.get(2)?));
            }
        }
        more |= applied >= BATCH_CHANGES;
        // Ids must reach the builder in increasing order (all of these are below the new ones).
        changed.sort_by_key(|(id, _)| *id);
        changed.dedup_by_key(|(id, _)| *id);
        stale += changed.len() as i64;
        for (id, text) in changed {
            if let Some(text) = text {
                trigram::text_trigrams(&text, &mut trigrams);
                builder.add(id, &trigrams);
            }
        }
    }
    // New messages, oldest first, up to the batch budget.
    {
        let mut new = tx.prepare_cached("SELECT id, text FROM main.message WHERE id > ?1 ORDER BY id")?;
        let mut rows = new.query([watermark])?;
        let mut bytes = 0;
        while let Some(row) = rows.next()? {
            if bytes >= BATCH_BYTES {
                more = true;
                break;
            }
            let id: i64 = row.get(0)?;
            let text = row.get_ref(1)?.as_str()?;
            bytes += text.len();
            trigram::text_trigrams(text, &mut trigrams);
            builder.add(id, &trigrams);
            watermark = id;
            indexed += 1;
        }
    }
    builder.write(&tx)?;
    segments::merge_full_levels(&tx)?;
    // Mostly stale postings (many messages deleted or changed): cheaper to build again
    // than to keep checking candidates that cannot match.
    if stale > STALE_REBUILD_MIN && stale * 4 > indexed {
        (watermark, dirty_seq, indexed, stale) = start_over(&tx)?;
        more = true;
    }
    tx.execute(
        "UPDATE search.progress SET generation = ?1, message_id = ?2, dirty_seq = ?3, indexed = ?4, stale = ?5
         WHERE id = 1",
        params![generation, watermark, dirty_seq, indexed, stale],
    )?;
    tx.commit()?;
    Ok(more)
}

/// Drops every segment so that every message is indexed again; returns the progress to
/// store (watermark, dirty_seq, indexed, stale). Everything logged so far is covered by
/// indexing every message with its current text.
fn start_over(tx: &Connection) -> rusqlite::Result<(i64, i64, i64, i64)> {
    segments::clear(tx)?;
    let dirty_seq = tx.query_row("SELECT coalesce(max(seq), 0) FROM main.search_dirty", [], |r| r.get(0))?;
    Ok((0, dirty_seq, 0, 0))
}

/// Forgets logged changes the search index has applied (run by the index's writer, the
/// only one that writes the main file).
pub(super) fn prune_applied_changes(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM main.search_dirty WHERE seq <= (
             SELECT p.dirty_seq FROM search.progress p, main.index_meta g WHERE p.generation = g.generation)",
        [],
    )?;
    Ok(())
}

/// The messages that may contain `query` (case-insensitively): those holding every
/// trigram of it, sorted by id. `None` when the search index cannot answer: a query
/// under three characters, or an index that has not caught up (the caller scans).
pub(super) fn candidates(conn: &Connection, query: &str) -> rusqlite::Result<Option<Vec<i64>>> {
    let terms = trigram::query_trigrams(query);
    if terms.is_empty() || !is_caught_up(conn)? {
        return Ok(None);
    }
    // Evenly spaced, first and last included: as selective as all of them in practice.
    let picked: Vec<Trigram> = if terms.len() <= MAX_TERMS {
        terms
    } else {
        (0..MAX_TERMS).map(|i| terms[i * (terms.len() - 1) / (MAX_TERMS - 1)]).collect()
    };
    let segments = segments::segment_ids(conn)?;
    let mut lists = picked
        .iter()
        .map(|&t| segments::postings(conn, &segments, t))
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // Shortest first: every step can only shrink the candidates.
    lists.sort_by_key(Vec::len);
    let mut lists = lists.into_iter();
    let mut ids = lists.next().unwrap_or_default();
    for list in lists {
        if ids.is_empty() {
            break;
        }
        trigram::intersect_in_place(&mut ids, &list);
    }
    Ok(Some(ids))
}

