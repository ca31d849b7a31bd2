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
//! The index keeps no positions (`detail = none`: half the build time and a seventh of
//! the size of the positional index, measured on the bench history). It finds the messages holding every trigram of the query, a
//! superset that the caller narrows down by checking containment.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

/// Bump when the layout below changes: the search file is then rebuilt from the index.
const SEARCH_SCHEMA_VERSION: i64 = 1;

const SEARCH_SCHEMA: &str = r#"
CREATE TABLE search.progress (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- The `index_meta.generation` indexed: a rebuilt index starts the search over.
    generation INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    dirty_seq INTEGER NOT NULL
);
CREATE VIRTUAL TABLE search.message_fts USING fts5 (
    text, content = '', contentless_delete = 1, detail = none,
    tokenize = 'trigram case_sensitive 0'
);
-- Pending terms buffered before a segment is written (default 1 MB): fewer, larger
-- segments to merge during a first index.
INSERT INTO search.message_fts (message_fts, rank) VALUES ('hashsize', 16777216);
"#;

/// Text indexed per transaction: bounded so the main file's WAL can be checkpointed
/// between batches and a stop request is honoured within a second or two.
const BATCH_BYTES: usize = 16 << 20;

/// Changes from `search_dirty` applied per transaction.
const BATCH_CHANGES: i64 = 10_000;

/// Distinct trigrams a query is narrowed by (a long query needs no more to be selective).
const MAX_TERMS: usize = 24;

/// Attaches the search file at `path` (in memory when `None`) as `search`, creating or
/// rebuilding its tables when they are missing or from another version.
pub(super) fn attach(conn: &Connection, path: Option<&Path>) -> rusqlite::Result<()> {
    let target = path.map_or_else(|| ":memory:".to_string(), |p| p.to_string_lossy().into_owned());
    conn.execute("ATTACH DATABASE ?1 AS search", [target])?;
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
             {SEARCH_SCHEMA}
             PRAGMA search.user_version = {SEARCH_SCHEMA_VERSION};
             COMMIT;"
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
/// is caught up or `stop` says to give up (the rest is picked up next time).
pub(super) fn catch_up(conn: &Connection, stop: &dyn Fn() -> bool) -> rusqlite::Result<()> {
    // Reading is enough to know there is nothing to do (no write, no lock).
    if is_caught_up(conn)? {
        return Ok(());
    }
    while index_batch(conn)? {
        if stop() {
            break;
        }
    }
    Ok(())
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
    let (indexed_generation, mut watermark, mut dirty_seq): (i64, i64, i64) = tx.query_row(
        "SELECT generation, message_id, dirty_seq FROM search.progress WHERE id = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let generation: i64 = tx.query_row("SELECT generation FROM main.index_meta", [], |r| r.get(0))?;
    if indexed_generation != generation {
        // A rebuilt index: its ids mean other messages. Everything logged so far is
        // covered by indexing every message again.
        tx.execute("INSERT INTO search.message_fts (message_fts) VALUES ('delete-all')", [])?;
        watermark = 0;
        dirty_seq = tx.query_row("SELECT coalesce(max(seq), 0) FROM main.search_dirty", [], |r| r.get(0))?;
    }

    let mut more = false;
    let mut insert = tx.prepare_cached("INSERT INTO search.message_fts (rowid, text) VALUES (?1, ?2)")?;
    // Messages already indexed whose text changed or that are gone: drop and re-add.
    {
        let mut changes = tx.prepare_cached(
            "SELECT d.seq, d.message_id, m.text FROM main.search_dirty d
             LEFT JOIN main.message m ON m.id = d.message_id
             WHERE d.seq > ?1 ORDER BY d.seq LIMIT ?2",
        )?;
        let mut delete = tx.prepare_cached("DELETE FROM search.message_fts WHERE rowid = ?1")?;
        let mut seen = HashSet::new();
        let mut applied = 0;
        let mut rows = changes.query(params![dirty_seq, BATCH_CHANGES])?;
        while let Some(row) = rows.next()? {
            applied += 1;
            dirty_seq = row.get(0)?;
            let id: i64 = row.get(1)?;
            // Newer than the watermark: indexed below with its current text anyway.
            if id > watermark || !seen.insert(id) {
                continue;
            }
            delete.execute([id])?;
            if let Some(text) = row.get::<_, Option<String>>(2)? {
                insert.execute(params![id, text])?;
            }
        }
        more |= applied >= BATCH_CHANGES;
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
            insert.execute(params![id, text])?;
            watermark = id;
        }
    }
    drop(insert);
    tx.execute(
        "UPDATE search.progress SET generation = ?1, message_id = ?2, dirty_seq = ?3 WHERE id = 1",
        params![generation, watermark, dirty_seq],
    )?;
    tx.commit()?;
    Ok(more)
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

/// The full-text query for "contains `query`": its distinct trigrams, all required.
/// `None` for queries under three characters, which trigrams cannot answer.
pub(super) fn trigram_query(query: &str) -> Option<String> {
    let chars: Vec<char> = query.chars().collect();
    if chars.len() < 3 {
        return None;
    }
    let mut seen = HashSet::new();
    let terms: Vec<String> = chars
        .windows(3)
        // Not lower-cased here: the tokenizer folds case one character to one, whereas
        // Rust's lower-casing may turn one character into two (and a term into a phrase).
        .map(|w| w.iter().collect::<String>())
        .filter(|t| seen.insert(t.clone()))
        .collect();
    // Evenly spaced, first and last included: as selective as all of them in practice.
    let picked: Vec<&String> = if terms.len() <= MAX_TERMS {
        terms.iter().collect()
    } else {
        (0..MAX_TERMS).map(|i| &terms[i * (terms.len() - 1) / (MAX_TERMS - 1)]).collect()
    };
    Some(picked.iter().map(|t| format!("\"{}\"", t.replace('"', "\"\""))).collect::<Vec<_>>().join(" AND "))
}

#[cfg(test)]
mod tests {
    use super::trigram_query;

    #[test]
    fn a_query_becomes_its_distinct_trigrams() {
        assert_eq!(trigram_query("ab"), None);
        assert_eq!(trigram_query("Abc").as_deref(), Some("\"Abc\""));
        assert_eq!(trigram_query("aaaa").as_deref(), Some("\"aaa\""));
        assert_eq!(trigram_query("客户迁移").as_deref(), Some("\"客户迁\" AND \"户迁移\""));
        assert_eq!(trigram_query("a\"bc").as_deref(), Some("\"a\"\"b\" AND \"\"\"bc\""));
        let q = trigram_query("abcdefghijklmnopqrstuvwxyz0123456789").unwrap();
        assert_eq!(q.matches(" AND ").count(), super::MAX_TERMS - 1);
        assert!(q.starts_with("\"abc\"") && q.ends_with("\"789\""), "{q}");
    }
}
