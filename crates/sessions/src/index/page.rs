//! Cursors for paging listings and searches.
//!
//! A cursor is the sort key of the last item a page returned, and the next page starts
//! strictly after it (keyset paging). Unlike an offset, it stays exact while sessions are
//! written between two pages: nothing is returned twice and nothing already listed shifts
//! the next page. Pages add up to `total` as long as nothing changes in between. A
//! session that becomes active moves above the cursor and is not met again on this walk
//! (a new walk from the first page finds it). A cursor names a position, not a query, so
//! it means the same whatever filters it is combined with.
//!
//! The encoding is opaque to callers but plain text: `l.<updated>.<created>.<row>` for
//! listings and `s.<sort_ts>.<row>` for searches, `n` standing for no value.

use rusqlite::types::Value as Sql;

/// Where the next page of `list_sessions` starts: after this session in the
/// `updated DESC, created DESC, id DESC` order (no value sorts below any value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListCursor {
    /// The last session's `updated` (ms since epoch).
    pub updated: Option<i64>,
    /// Its `created`.
    pub created: Option<i64>,
    /// Its index row.
    pub row: i64,
}

/// Where the next page of `search_messages` starts: after this message in the
/// `sort_ts DESC, id DESC` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchCursor {
    /// The last message's sort key (ms since epoch).
    pub sort_ts: Option<i64>,
    /// Its index row.
    pub row: i64,
}

fn part(v: Option<i64>) -> String {
    v.map_or_else(|| "n".to_string(), |v| v.to_string())
}

fn parse_part(s: &str) -> Option<Option<i64>> {
    if s == "n" {
        Some(None)
    } else {
        s.parse().ok().map(Some)
    }
}

impl ListCursor {
    /// The cursor as text.
    pub fn encode(&self) -> String {
        format!("l.{}.{}.{}", part(self.updated), part(self.created), self.row)
    }

    /// Parses [`ListCursor::encode`]'s text; `None` for anything else.
    pub fn decode(text: &str) -> Option<ListCursor> {
        let mut parts = text.trim().split('.');
        if parts.next()? != "l" {
            return None;
        }
        let updated = parse_part(parts.next()?)?;
        let created = parse_part(parts.next()?)?;
        let row = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(ListCursor { updated, created, row })
    }

    /// The sort key, ordered like SQLite orders the columns (`None` lowest).
    pub(super) fn key(&self) -> (Option<i64>, Option<i64>, i64) {
        (self.updated, self.created, self.row)
    }

    /// `s.updated, s.created, s.id` strictly after the cursor in descending order, with
    /// its arguments appended to `args`.
    pub(super) fn after_sql(&self, args: &mut Vec<Sql>) -> String {
        after_desc(&[("s.updated", self.updated), ("s.created", self.created)], ("s.id", self.row), args)
    }
}

impl SearchCursor {
    /// The cursor as text.
    pub fn encode(&self) -> String {
        format!("s.{}.{}", part(self.sort_ts), self.row)
    }

    /// Parses [`SearchCursor::encode`]'s text; `None` for anything else.
    pub fn decode(text: &str) -> Option<SearchCursor> {
        let mut parts = text.trim().split('.');
        if parts.next()? != "s" {
            return None;
        }
        let sort_ts = parse_part(parts.next()?)?;
        let row = parts.next()?.parse().ok()?;
        parts.next().is_none().then_some(SearchCursor { sort_ts, row })
    }

    /// Messages (`{alias}.sort_ts`, `{alias}.id`) strictly after the cursor, NULL sort keys
    /// included (they sort last).
    pub(super) fn after_sql(&self, alias: &str, args: &mut Vec<Sql>) -> String {
        after_desc(&[(&format!("{alias}sort_ts"), self.sort_ts)], (&format!("{alias}id"), self.row), args)
    }

    /// The same for the walks over `message_by_sort`, which never see a NULL sort key:
    /// written as a range so that SQLite seeks to the cursor instead of skipping up to it.
    /// `None` when the cursor's own key is NULL (only the full sort goes on from there).
    pub(super) fn walk_sql(&self, alias: &str, args: &mut Vec<Sql>) -> Option<String> {
        let ts = self.sort_ts?;
        args.extend([Sql::Integer(ts), Sql::Integer(ts), Sql::Integer(self.row)]);
        Some(format!("{alias}sort_ts <= ? AND ({alias}sort_ts < ? OR {alias}id < ?)"))
    }
}

/// The rows strictly after `keys` then `last` in `ORDER BY k1 DESC, …, last DESC`, where a
/// NULL key sorts below every value (SQLite's order) and `last` is never NULL.
fn after_desc(keys: &[(&str, Option<i64>)], last: (&str, i64), args: &mut Vec<Sql>) -> String {
    match keys.split_first() {
        None => {
            args.push(Sql::Integer(last.1));
            format!("{} < ?", last.0)
        }
        Some((&(column, Some(value)), rest)) => {
            args.extend([Sql::Integer(value), Sql::Integer(value)]);
            let rest = after_desc(rest, last, args);
            format!("({column} < ? OR {column} IS NULL OR ({column} = ? AND {rest}))")
        }
        Some((&(column, None), rest)) => {
            let rest = after_desc(rest, last, args);
            format!("({column} IS NULL AND {rest})")
        }
    }
}

/// A page of items, each with the cursor that continues right after it.
#[derive(Debug)]
pub(super) struct Page<T> {
    pub items: Vec<T>,
    pub cursors: Vec<String>,
    pub next_cursor: Option<String>,
}

impl<T> Page<T> {
    /// Up to `limit` of `found` (fetched as `limit + 1` to know whether more follow).
    pub fn of(found: Vec<(T, String)>, limit: usize) -> Page<T> {
        let more = found.len() > limit;
        let (items, cursors): (Vec<T>, Vec<String>) = found.into_iter().take(limit).unzip();
        let next_cursor = if more { cursors.last().cloned() } else { None };
        Page { items, cursors, next_cursor }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_other_text() {
        let l = ListCursor { updated: Some(1_700_000_000_000), created: None, row: 42 };
        assert_eq!(ListCursor::decode(&l.encode()), Some(l));
        let s = SearchCursor { sort_ts: Some(-5), row: 7 };
        assert_eq!(SearchCursor::decode(&s.encode()), Some(s));
        let s = SearchCursor { sort_ts: None, row: 7 };
        assert_eq!(SearchCursor::decode(&s.encode()), Some(s));
        for bad in ["", "l", "l.1.2", "l.1.2.x", "l.1.2.3.4", "x.1.2.3", "s.1.2"] {
            assert_eq!(ListCursor::decode(bad), None, "{bad:?}");
        }
        for bad in ["", "s", "s.1", "s.a.1", "s.1.2.3", "l.1.2.3"] {
            assert_eq!(SearchCursor::decode(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn after_desc_is_sqlites_descending_order_with_nulls_last() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER)").unwrap();
        let values = [None, Some(1), Some(2)];
        let mut id = 0;
        for a in values {
            for b in values {
                for _ in 0..2 {
                    id += 1;
                    conn.execute("INSERT INTO t VALUES (?1, ?2, ?3)", rusqlite::params![id, a, b]).unwrap();
                }
            }
        }
        let ordered: Vec<(i64, Option<i64>, Option<i64>)> = conn
            .prepare("SELECT id, a, b FROM t ORDER BY a DESC, b DESC, id DESC")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (i, &(id, a, b)) in ordered.iter().enumerate() {
            let mut args = Vec::new();
            let sql = after_desc(&[("a", a), ("b", b)], ("id", id), &mut args);
            let after: Vec<i64> = conn
                .prepare(&format!("SELECT id FROM t WHERE {sql} ORDER BY a DESC, b DESC, id DESC"))
                .unwrap()
                .query_map(rusqlite::params_from_iter(args.iter()), |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let expected: Vec<i64> = ordered[i + 1..].iter().map(|r| r.0).collect();
            assert_eq!(after, expected, "after {id} ({a:?}, {b:?})");
        }
    }
}
