//! The search index's storage: immutable segments of posting lists, each written once by
//! one batch of the search indexer and merged with its peers as they accumulate (a
//! tiered log-structured layout, as in most full-text engines).
//!
//! A segment is stored as chunks of consecutive trigrams, one row per chunk keyed by
//! `(segment, first trigram)`. A chunk starts with a header (entry count, then per entry
//! the trigram's gap from the previous one and the byte length of its posting list)
//! followed by the posting lists. Rows per segment are few (a first index of the bench
//! history writes ~100 000 trigrams per batch into ~1 000 rows), which is what makes the
//! build cheap compared with a row per trigram, or FTS5's per-token hash.

use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::FxHashMap;

use super::trigram::{decode_postings, push_varint, read_varint, PostingWriter, Trigram};

/// The segment and chunk tables (created in the attached `search` schema).
pub(crate) const SCHEMA: &str = r#"
CREATE TABLE search.segment (
    id INTEGER PRIMARY KEY,
    -- Size class: segments of one level are merged together once there are MERGE_FAN_IN.
    level INTEGER NOT NULL,
    postings INTEGER NOT NULL
);
CREATE TABLE search.chunk (
    id INTEGER PRIMARY KEY,
    segment INTEGER NOT NULL,
    first INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE UNIQUE INDEX search.chunk_by_first ON chunk (segment, first);
"#;

/// Trigrams per chunk, and bytes of posting lists after which a chunk is closed early.
const CHUNK_ENTRIES: usize = 128;
const CHUNK_BYTES: usize = 32 << 10;

/// Segments of one level merged into one.
const MERGE_FAN_IN: usize = 8;

/// The posting lists of one batch, built in memory.
#[derive(Default)]
pub(crate) struct SegmentBuilder {
    lists: FxHashMap<Trigram, PostingWriter>,
    postings: u64,
}

impl SegmentBuilder {
    /// Adds message `id` under each of its `trigrams` (repeats are dropped). Ids must
    /// come in increasing order.
    pub(crate) fn add(&mut self, id: i64, trigrams: &[Trigram]) {
        for &t in trigrams {
            if self.lists.entry(t).or_default().push(id) {
                self.postings += 1;
            }
        }
    }

    /// Writes the batch as a new segment (nothing when empty).
    pub(crate) fn write(self, conn: &Connection) -> rusqlite::Result<()> {
        if self.lists.is_empty() {
            return Ok(());
        }
        let mut entries: Vec<(Trigram, PostingWriter)> = self.lists.into_iter().collect();
        entries.sort_unstable_by_key(|(t, _)| *t);
        let segment = new_segment(conn, self.postings)?;
        let mut chunks = ChunkWriter::new(conn, segment)?;
        for (trigram, list) in &entries {
            chunks.push(*trigram, &list.bytes)?;
        }
        chunks.finish()
    }
}

fn level_of(postings: u64) -> i64 {
    // Powers of MERGE_FAN_IN above 4 096 postings: merging a full level yields the next.
    let mut level = 0;
    let mut size = postings / 4096;
    while size > 0 {
        size /= MERGE_FAN_IN as u64;
        level += 1;
    }
    level
}

fn new_segment(conn: &Connection, postings: u64) -> rusqlite::Result<i64> {
    conn.prepare_cached("INSERT INTO search.segment (level, postings) VALUES (?1, ?2)")?
        .execute(params![level_of(postings), postings as i64])?;
    Ok(conn.last_insert_rowid())
}

/// Writes one segment's chunks in trigram order.
struct ChunkWriter<'c> {
    insert: rusqlite::CachedStatement<'c>,
    segment: i64,
    first: Option<Trigram>,
    last: Trigram,
    entries: usize,
    header: Vec<u8>,
    lists: Vec<u8>,
}

impl<'c> ChunkWriter<'c> {
    fn new(conn: &'c Connection, segment: i64) -> rusqlite::Result<Self> {
        let insert = conn.prepare_cached("INSERT INTO search.chunk (segment, first, data) VALUES (?1, ?2, ?3)")?;
        Ok(ChunkWriter { insert, segment, first: None, last: 0, entries: 0, header: Vec::new(), lists: Vec::new() })
    }

    fn push(&mut self, trigram: Trigram, list: &[u8]) -> rusqlite::Result<()> {
        let first = *self.first.get_or_insert(trigram);
        push_varint(&mut self.header, (trigram - if self.entries == 0 { first } else { self.last }) as u64);
        push_varint(&mut self.header, list.len() as u64);
        self.lists.extend_from_slice(list);
        self.last = trigram;
        self.entries += 1;
        if self.entries >= CHUNK_ENTRIES || self.lists.len() >= CHUNK_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> rusqlite::Result<()> {
        let Some(first) = self.first.take() else { return Ok(()) };
        let mut data = Vec::with_capacity(self.header.len() + self.lists.len() + 5);
        push_varint(&mut data, self.entries as u64);
        data.append(&mut self.header);
        data.append(&mut self.lists);
        self.insert.execute(params![self.segment, first, data])?;
        self.entries = 0;
        Ok(())
    }

    fn finish(mut self) -> rusqlite::Result<()> {
        self.flush()
    }
}

/// The entries of one chunk: `(trigram, posting list bytes)`, in trigram order. A
/// damaged chunk yields what is whole.
fn chunk_entries(first: Trigram, data: &[u8]) -> Vec<(Trigram, &[u8])> {
    let mut at = 0;
    let Some(n) = read_varint(data, &mut at) else { return Vec::new() };
    let mut heads = Vec::with_capacity(n.min(CHUNK_ENTRIES as u64 * 4) as usize);
    let mut trigram = first;
    for _ in 0..n {
        let (Some(gap), Some(len)) = (read_varint(data, &mut at), read_varint(data, &mut at)) else { break };
        trigram = trigram.wrapping_add(gap as i64);
        heads.push((trigram, len as usize));
    }
    let mut out = Vec::with_capacity(heads.len());
    for (trigram, len) in heads {
        let Some(list) = data.get(at..at + len) else { break };
        at += len;
        out.push((trigram, list));
    }
    out
}

/// The segments, oldest first.
pub(crate) fn segment_ids(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached("SELECT id FROM search.segment ORDER BY id")?.query_map([], |r| r.get(0))?.collect()
}

/// Every message id under `trigram` in `segments`, sorted and distinct.
pub(crate) fn postings(conn: &Connection, segments: &[i64], trigram: Trigram) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT first, data FROM search.chunk WHERE segment = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1",
    )?;
    let mut lists: Vec<Vec<i64>> = Vec::new();
    for &segment in segments {
        let chunk: Option<(Trigram, Vec<u8>)> =
            stmt.query_row(params![segment, trigram], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
        let Some((first, data)) = chunk else { continue };
        if let Some((_, list)) = chunk_entries(first, &data).into_iter().find(|(t, _)| *t == trigram) {
            let mut ids = Vec::new();
            decode_postings(list, &mut ids);
            lists.push(ids);
        }
    }
    // Each list is sorted, and segments cover disjoint id ranges (a merge replaces a run
    // of them), except where a message indexed again (its text changed) sits in a later
    // segment too: ordered by first id, the lists almost always just concatenate.
    lists.sort_unstable_by_key(|l| l.first().copied());
    let mut ids = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    for list in lists {
        ids.extend(list);
    }
    if !ids.windows(2).all(|w| w[0] < w[1]) {
        ids.sort_unstable();
        ids.dedup();
    }
    Ok(ids)
}

/// Drops every segment (a rebuild starts over).
pub(crate) fn clear(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("DELETE FROM search.chunk; DELETE FROM search.segment;")
}

/// Merges segments while some level holds [`MERGE_FAN_IN`] of them.
pub(crate) fn merge_full_levels(conn: &Connection) -> rusqlite::Result<()> {
    loop {
        let full: Option<i64> = conn
            .prepare_cached("SELECT level FROM search.segment GROUP BY level HAVING count(*) >= ?1 ORDER BY level LIMIT 1")?
            .query_row([MERGE_FAN_IN as i64], |r| r.get(0))
            .optional()?;
        let Some(level) = full else { return Ok(()) };
        let ids: Vec<i64> = conn
            .prepare_cached("SELECT id FROM search.segment WHERE level = ?1 ORDER BY id")?
            .query_map([level], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        merge(conn, &ids)?;
    }
}

/// One segment's entries in trigram order, a chunk at a time.
struct SegmentCursor<'s> {
    rows: rusqlite::Rows<'s>,
    /// The current chunk's entries, in reverse (the next one is last).
    pending: Vec<(Trigram, Vec<u8>)>,
}

impl SegmentCursor<'_> {
    /// The next entry's trigram, loading the next chunk when needed.
    fn peek(&mut self) -> rusqlite::Result<Option<Trigram>> {
        while self.pending.is_empty() {
            let Some(row) = self.rows.next()? else { return Ok(None) };
            let first: Trigram = row.get(0)?;
            let data = row.get_ref(1)?.as_blob()?;
            self.pending = chunk_entries(first, data).into_iter().rev().map(|(t, l)| (t, l.to_vec())).collect();
        }
        Ok(self.pending.last().map(|(t, _)| *t))
    }
}

/// Replaces `segments` by one holding all their postings: a k-way merge by trigram, so
/// memory holds one chunk per segment, whatever their size.
fn merge(conn: &Connection, segments: &[i64]) -> rusqlite::Result<()> {
    let total: i64 = segments
        .iter()
        .map(|s| conn.query_row("SELECT postings FROM search.segment WHERE id = ?1", [s], |r| r.get::<_, i64>(0)))
        .sum::<rusqlite::Result<i64>>()?;
    let merged = new_segment(conn, total as u64)?;
    {
        let mut statements = segments
            .iter()
            .map(|_| conn.prepare("SELECT first, data FROM search.chunk WHERE segment = ?1 ORDER BY first"))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut cursors = statements
            .iter_mut()
            .zip(segments)
            .map(|(stmt, segment)| Ok(SegmentCursor { rows: stmt.query([segment])?, pending: Vec::new() }))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut chunks = ChunkWriter::new(conn, merged)?;
        let mut ids = Vec::new();
        loop {
            let mut next: Option<Trigram> = None;
            for cursor in &mut cursors {
                if let Some(t) = cursor.peek()? {
                    next = Some(next.map_or(t, |n| n.min(t)));
                }
            }
            let Some(trigram) = next else { break };
            ids.clear();
            let mut sources = 0;
            for cursor in &mut cursors {
                if cursor.peek()? == Some(trigram) {
                    let (_, list) = cursor.pending.pop().expect("peeked");
                    decode_postings(&list, &mut ids);
                    sources += 1;
                }
            }
            // Ids within a segment are increasing, but a message indexed again (its text
            // changed) sits in a later segment with a smaller id than its neighbours.
            if sources > 1 {
                ids.sort_unstable();
                ids.dedup();
            }
            let mut list = PostingWriter::default();
            for &id in &ids {
                list.push(id);
            }
            chunks.push(trigram, &list.bytes)?;
        }
        chunks.finish()?;
    }
    let mut delete_chunks = conn.prepare_cached("DELETE FROM search.chunk WHERE segment = ?1")?;
    let mut delete_segment = conn.prepare_cached("DELETE FROM search.segment WHERE id = ?1")?;
    for &segment in segments {
        delete_chunks.execute([segment])?;
        delete_segment.execute([segment])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn search_db() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute("ATTACH DATABASE ':memory:' AS search", []).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        conn
    }

    #[test]
    fn postings_come_back_from_every_segment_and_survive_a_merge() {
        let conn = search_db();
        // Enough trigrams for several chunks per segment, and MERGE_FAN_IN segments.
        let mut expected: HashMap<Trigram, Vec<i64>> = HashMap::new();
        for segment in 0..MERGE_FAN_IN as i64 {
            let mut builder = SegmentBuilder::default();
            for id in segment * 100 + 1..=segment * 100 + 50 {
                let trigrams: Vec<Trigram> = (0..400).filter(|t| (t * 7 + id) % 5 == 0).collect();
                // Repeats within a message are dropped.
                builder.add(id, &[trigrams.clone(), trigrams.clone()].concat());
                for t in trigrams {
                    expected.entry(t).or_default().push(id);
                }
            }
            // A message indexed again (changed text) in a later segment.
            if segment > 0 {
                builder.add(segment * 100 + 60, &[3]);
                expected.entry(3).or_default().push(segment * 100 + 60);
            }
            builder.write(&conn).unwrap();
        }
        let check = |conn: &Connection| {
            let segments = segment_ids(conn).unwrap();
            for t in 0..400 {
                let mut want = expected.get(&t).cloned().unwrap_or_default();
                want.sort_unstable();
                assert_eq!(postings(conn, &segments, t).unwrap(), want, "trigram {t}");
            }
            assert!(postings(conn, &segments, 1 << 50).unwrap().is_empty());
        };
        check(&conn);
        let before: i64 = conn.query_row("SELECT count(*) FROM search.segment", [], |r| r.get(0)).unwrap();
        assert_eq!(before, MERGE_FAN_IN as i64);
        merge_full_levels(&conn).unwrap();
        let after: i64 = conn.query_row("SELECT count(*) FROM search.segment", [], |r| r.get(0)).unwrap();
        assert_eq!(after, 1);
        check(&conn);
    }

    #[test]
    fn a_damaged_chunk_yields_what_is_whole() {
        let mut chunks = Vec::new();
        push_varint(&mut chunks, 2);
        push_varint(&mut chunks, 0);
        push_varint(&mut chunks, 1);
        push_varint(&mut chunks, 4);
        push_varint(&mut chunks, 100); // longer than what follows
        chunks.push(7);
        let entries = chunk_entries(10, &chunks);
        assert_eq!(entries, vec![(10, &[7u8][..])]);
    }

    #[test]
    fn levels_grow_by_the_fan_in() {
        assert_eq!(level_of(0), 0);
        assert_eq!(level_of(4095), 0);
        assert_eq!(level_of(4096), 1);
        assert_eq!(level_of(4096 * MERGE_FAN_IN as u64), 2);
    }
}
