//! Reading the index: listings, one session, transcript pages and message search. Every
//! query takes the roots in effect, so an index shared between homes answers only for
//! the folders the caller reads.

use rusqlite::{params_from_iter, types::Value as Sql, OptionalExtension, Row};

use super::filters::{Facets, FoundSession, ListFilter, SearchFilter, SessionStatus, SourceCount, WorkspaceCount};
use super::page::{ListCursor, Page, SearchCursor};
use super::{Index, IndexError};
use crate::model::{
    format_ms, ActivityEntry, Role, SearchHit, SearchResult, SessionInfo, SessionList, Source, TranscriptMessage,
    SNIPPET_AFTER, SNIPPET_BEFORE,
};
use crate::text::{find_folded, fold};

const TITLE: &str = "coalesce(nullif(et.title, ''), s.title, s.first_user, '')";
const FROM: &str = "FROM session s JOIN unit u ON u.id = s.unit_id
     LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id";
/// The columns [`info`] reads; the title follows them (column [`TITLE_AT`]).
const INFO_COLUMNS: &str =
    "s.id, s.session_id, s.source, s.workspace, s.created, s.updated, s.message_count, s.archived_at";
const TITLE_AT: usize = 8;

fn info(row: &Row) -> rusqlite::Result<FoundSession> {
    let source: String = row.get(2)?;
    let archived_at: Option<i64> = row.get(7)?;
    Ok(FoundSession {
        row: row.get(0)?,
        info: SessionInfo {
            session_id: row.get(1)?,
            source: Source::parse(&source).unwrap_or(Source::ClaudeCode),
            title: row.get(TITLE_AT)?,
            workspace: row.get(3)?,
            created_at: row.get::<_, Option<i64>>(4)?.and_then(format_ms),
            updated_at: row.get::<_, Option<i64>>(5)?.and_then(format_ms),
            message_count: row.get::<_, i64>(6)?.max(0) as u64,
            archived: archived_at.is_some(),
            archived_at: archived_at.and_then(format_ms),
        },
    })
}

/// `u.root IN (?, ?, …)` for the roots, appended to `args`.
fn roots_clause(roots: &[String], args: &mut Vec<Sql>) -> String {
    if roots.is_empty() {
        return "0".into();
    }
    args.extend(roots.iter().map(|r| Sql::Text(r.clone())));
    format!("u.root IN ({})", vec!["?"; roots.len()].join(", "))
}

fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// Sessions in `workspace` (a path, or its last component), appended to `args`.
fn workspace_clause(workspace: &str, args: &mut Vec<Sql>) -> String {
    let w = workspace.trim().trim_end_matches(['/', '\\']);
    args.push(Sql::Text(w.into()));
    args.push(Sql::Text(format!("%/{}", like_escape(w))));
    args.push(Sql::Text(format!("%\\\\{}", like_escape(w))));
    "(s.workspace = ? COLLATE NOCASE OR s.workspace LIKE ? ESCAPE '\\'
      OR s.workspace LIKE ? ESCAPE '\\')"
        .into()
}

/// Up to `limit` of the sessions found (`limit + 1` were asked for, to know whether more follow).
fn session_page(total: u64, found: Vec<(SessionInfo, String)>, limit: u32) -> SessionList {
    let page = Page::of(found, limit as usize);
    SessionList { total, sessions: page.items, next_cursor: page.next_cursor, cursors: page.cursors }
}

/// The cursor after a listed session (its columns as `info` reads them).
fn list_cursor(row: &Row) -> rusqlite::Result<String> {
    Ok(ListCursor { updated: row.get(5)?, created: row.get(4)?, row: row.get(0)? }.encode())
}

impl Index {
    /// Sessions matching `filter`, newest first, and how many matched in all.
    pub fn list(&self, roots: &[String], filter: &ListFilter) -> Result<SessionList, IndexError> {
        let mut args = Vec::new();
        // The roots as a set of units (one scan of `unit`), not a join per session.
        let roots_sql = format!("s.unit_id IN (SELECT u.id FROM unit u WHERE {})", roots_clause(roots, &mut args));
        let mut conditions = vec!["s.hidden = 0".to_string(), roots_sql];
        match filter.status {
            SessionStatus::All => {}
            SessionStatus::Live => conditions.push("s.archived_at IS NULL".into()),
            SessionStatus::Archived => conditions.push("s.archived_at IS NOT NULL".into()),
        }
        if let Some(source) = filter.source {
            conditions.push("s.source = ?".into());
            args.push(Sql::Text(source.as_str().into()));
        }
        if let Some(workspace) = filter.workspace.as_deref() {
            conditions.push(workspace_clause(workspace, &mut args));
        }
        if let Some(query) = filter.query.as_deref() {
            // Titles kept outside the session file are short: lower-cased here; the rest
            // was lower-cased when written (`filter_key`).
            conditions.push(
                "(instr(s.filter_key, ?) > 0 OR s.session_id = ?
                  OR (s.source, s.session_id) IN
                     (SELECT source, session_id FROM external_title WHERE contains_folded(title, ?)))"
                    .into(),
            );
            let needle = fold(query.trim()).into_owned();
            args.push(Sql::Text(needle.clone()));
            args.push(Sql::Text(query.trim().into()));
            args.push(Sql::Text(needle));
        }
        let filter_sql = conditions.join(" AND ");
        let order = "ORDER BY s.updated DESC, s.created DESC, s.id DESC";
        if filter.query.is_some() {
            // The text filter reads every session's key: one sequential pass over the table
            // finds the matches (walking the list index instead costs a random read per
            // session), which are few enough to count and order here.
            let mut stmt = self.conn.prepare(&format!(
                "SELECT s.id, s.updated, s.created FROM session s NOT INDEXED WHERE {filter_sql}"
            ))?;
            let mut matches: Vec<(Option<i64>, Option<i64>, i64)> = stmt
                .query_map(params_from_iter(args.iter()), |r| Ok((r.get(1)?, r.get(2)?, r.get(0)?)))?
                .collect::<Result<_, _>>()?;
            // SQLite's `updated DESC, created DESC, id DESC` (NULL sorts below any number).
            matches.sort_unstable_by(|a, b| b.cmp(a));
            let total = matches.len() as u64;
            let after = filter.after.map(|c| c.key());
            let ids: Vec<i64> = matches
                .iter()
                .filter(|m| after.is_none_or(|after| **m < after))
                .take(filter.limit as usize + 1)
                .map(|m| m.2)
                .collect();
            let ids = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into());
            let mut stmt = self.conn.prepare_cached(&format!(
                "SELECT {INFO_COLUMNS}, {TITLE} FROM session s
                     LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id
                 WHERE s.id IN (SELECT value FROM json_each(?1)) {order}"
            ))?;
            let found = stmt
                .query_map([ids], |r| Ok((info(r)?.info, list_cursor(r)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(session_page(total, found, filter.limit));
        }
        let total: i64 = self.conn.query_row(
            &format!("SELECT count(*) FROM session s WHERE {filter_sql}"),
            params_from_iter(args.iter()),
            |r| r.get(0),
        )?;
        let page_sql = match &filter.after {
            Some(after) => format!("{filter_sql} AND {}", after.after_sql(&mut args)),
            None => filter_sql,
        };
        args.push(Sql::Integer(i64::from(filter.limit) + 1));
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {INFO_COLUMNS}, {TITLE} FROM session s
                 LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id
             WHERE {page_sql} {order} LIMIT ?"
        ))?;
        let found = stmt
            .query_map(params_from_iter(args.iter()), |r| Ok((info(r)?.info, list_cursor(r)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(session_page(total as u64, found, filter.limit))
    }

    /// The listed session with this id (the most recently active one if a tool reused an id).
    pub fn find(
        &self,
        roots: &[String],
        session_id: &str,
        source: Option<Source>,
    ) -> Result<Option<FoundSession>, IndexError> {
        let mut args = vec![Sql::Text(session_id.into())];
        let mut sql = format!("SELECT {INFO_COLUMNS}, {TITLE} {FROM} WHERE s.session_id = ? AND ");
        sql.push_str(&roots_clause(roots, &mut args));
        if let Some(source) = source {
            sql.push_str(" AND s.source = ?");
            args.push(Sql::Text(source.as_str().into()));
        }
        // A live session before an archived copy (which a read of its file soon drops).
        sql.push_str(" ORDER BY s.hidden, s.archived_at IS NOT NULL, s.updated DESC LIMIT 1");
        Ok(self
            .conn
            .query_row(&sql, params_from_iter(args.iter()), info)
            .optional()?)
    }

    /// Every session with this id under `roots` (of `source`, when given), live or
    /// archived, each with its root: what forgetting it removes.
    pub(super) fn matching(
        &self,
        conn: &rusqlite::Connection,
        roots: &[String],
        session_id: &str,
        source: Option<Source>,
    ) -> Result<Vec<(FoundSession, String)>, IndexError> {
        let mut args = vec![Sql::Text(session_id.into())];
        let mut sql = format!("SELECT {INFO_COLUMNS}, {TITLE}, u.root {FROM} WHERE s.session_id = ? AND ");
        sql.push_str(&roots_clause(roots, &mut args));
        if let Some(source) = source {
            sql.push_str(" AND s.source = ?");
            args.push(Sql::Text(source.as_str().into()));
        }
        sql.push_str(" ORDER BY s.hidden, s.archived_at IS NOT NULL, s.updated DESC");
        let mut stmt = conn.prepare(&sql)?;
        let found = stmt
            .query_map(params_from_iter(args.iter()), |r| Ok((info(r)?, r.get(TITLE_AT + 1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(found)
    }

    #[cfg(any(test, feature = "testing"))] // the doors cap texts: `messages_before_capped`
    /// Up to `count` messages with index below `before`, oldest first.
    pub fn messages_before(
        &self,
        session_row: i64,
        before: u64,
        count: u64,
    ) -> Result<Vec<TranscriptMessage>, IndexError> {
        self.messages_before_capped(session_row, before, count, None)
    }

    /// Like [`Index::messages_before`], with each text cut to at most `max_chars`
    /// characters (marked `truncated`); SQLite cuts it, so a huge message is not copied.
    pub fn messages_before_capped(
        &self,
        session_row: i64,
        before: u64,
        count: u64,
        max_chars: Option<u32>,
    ) -> Result<Vec<TranscriptMessage>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT idx, message_id, role,
                    CASE WHEN ?4 IS NULL THEN text ELSE substr(text, 1, ?4) END, ts,
                    ?4 IS NOT NULL AND length(text) > ?4
             FROM message
             WHERE session = ?1 AND idx < ?2 ORDER BY idx DESC LIMIT ?3",
        )?;
        let max_chars = max_chars.map(i64::from);
        let mut messages = stmt
            .query_map(rusqlite::params![session_row, before as i64, count as i64, max_chars], |r| {
                Ok(TranscriptMessage {
                    index: r.get::<_, i64>(0)? as u64,
                    message_id: r.get(1)?,
                    role: Role::parse(&r.get::<_, String>(2)?).unwrap_or(Role::User),
                    text: r.get(3)?,
                    timestamp: r.get::<_, Option<i64>>(4)?.and_then(format_ms),
                    truncated: r.get(5)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        messages.reverse();
        Ok(messages)
    }

    /// Tool calls after messages `from - 1` to `to`, grouped by the message they followed.
    pub fn activity(&self, session_row: i64, from: i64, to: i64) -> Result<Vec<ActivityEntry>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT after_idx, name FROM tool_call
             WHERE session = ?1 AND after_idx BETWEEN ?2 AND ?3 ORDER BY after_idx, id",
        )?;
        let mut entries: Vec<ActivityEntry> = Vec::new();
        let rows = stmt.query_map(rusqlite::params![session_row, from - 1, to], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?;
        for row in rows {
            let (after, name) = row?;
            match entries.last_mut() {
                Some(last) if last.after_index == after => last.tools.push(name),
                _ => entries.push(ActivityEntry { after_index: after, tools: vec![name] }),
            }
        }
        Ok(entries)
    }

    #[cfg(any(test, feature = "testing"))] // the doors page: `search_page`
    /// Messages whose text contains `query` case-insensitively, newest first.
    ///
    /// The order is `coalesce(ts, session.updated)` newest first, then the row id, which is
    /// what `message.sort_ts` holds. The search index (`search.rs`) gives the messages
    /// holding every trigram of the query; few of them are sorted whole, many are met by
    /// walking `message_by_sort` newest first (bounded to the newest [`WALK_ROWS`]
    /// messages; when that window holds too few hits, the full sort runs). A query the
    /// index cannot answer (under three characters, or while a first index builds it)
    /// scans the stored texts the same two ways. All give the same answer.
    pub fn search(&self, roots: &[String], query: &str, limit: u32) -> Result<Vec<SearchHit>, IndexError> {
        Ok(self.search_page(roots, query, &SearchFilter::default(), limit)?.hits)
    }

    /// One page of [`Index::search`]: up to `limit` hits that also match `filter`, with the
    /// cursor of the next page when more follow.
    pub fn search_page(
        &self,
        roots: &[String],
        query: &str,
        filter: &SearchFilter,
        limit: u32,
    ) -> Result<SearchResult, IndexError> {
        // One more than asked for tells whether a next page exists.
        let fetch = limit.saturating_add(1);
        let needle = fold(query).into_owned();
        let mut args = Vec::new();
        let candidates = super::search::candidates(&self.conn, query)?;
        let (matcher, common) = match &candidates {
            // The id list is bound below, only if the candidates are sorted whole.
            Some(ids) => ("", ids.len() >= FEW_MATCHES),
            None => {
                args.push(Sql::Text(needle.clone()));
                ("contains_folded(m.text, ?)", true)
            }
        };
        let mut session_args = Vec::new();
        let session_sql = session_filter(roots, filter, &mut session_args);
        let columns = format!(
            "m.idx, m.message_id, m.role, m.text, s.session_id, s.source, {TITLE}, m.sort_ts, m.id, s.archived_at IS NOT NULL"
        );
        let joins = |hint: &str| {
            format!(
                "FROM message m {hint} JOIN session s ON s.id = m.session JOIN unit u ON u.id = s.unit_id
                 LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id"
            )
        };

        // The walks see no NULL sort key, so they go on only from a cursor that has one
        // (NULL keys sort last, where only the full sort reaches).
        let mut walk_args = Vec::new();
        let walk_after = match &filter.after {
            None => Some("1".to_string()),
            Some(after) => after.walk_sql("m.", &mut walk_args),
        };
        if let (true, Some(walk_after)) = (common, walk_after) {
            // The sort key of the WALK_ROWS-th newest message (after the cursor) bounds the walk.
            let floor: Option<i64> = self
                .conn
                .prepare_cached(&format!(
                    "SELECT m.sort_ts FROM message m INDEXED BY message_by_sort WHERE {walk_after}
                     ORDER BY m.sort_ts DESC, m.id DESC LIMIT 1 OFFSET {WALK_ROWS}"
                ))?
                .query_row(params_from_iter(walk_args.iter()), |r| r.get::<_, Option<i64>>(0))
                .optional()?
                .flatten();
            let floor = floor.unwrap_or(i64::MIN);
            let walk = Walk { after: &walk_after, after_args: &walk_args, floor };
            let hits = match &candidates {
                Some(ids) => {
                    self.walk_candidates(ids, &columns, &joins(""), &session_sql, &session_args, &walk, &needle, fetch)?
                }
                None => {
                    let mut scan_args = args.clone();
                    scan_args.extend(session_args.iter().cloned());
                    scan_args.push(Sql::Integer(floor));
                    scan_args.extend(walk_args.iter().cloned());
                    let mut stmt = self.conn.prepare(&format!(
                        "SELECT {columns} {}
                         WHERE {matcher} AND {session_sql} AND m.sort_ts >= ? AND {walk_after}
                         ORDER BY m.sort_ts DESC, m.id DESC",
                        joins("INDEXED BY message_by_sort")
                    ))?;
                    collect_hits(&mut stmt, &scan_args, &needle, fetch)?
                }
            };
            // Complete when the window held enough matches, or was the whole table.
            if hits.len() as u32 >= fetch || floor == i64::MIN {
                return Ok(hit_page(hits, limit));
            }
        }
        if let Some(ids) = &candidates {
            // A JSON array, read back by `json_each`: one bound parameter for any number.
            args.push(Sql::Text(serde_json::Value::from(ids.clone()).to_string()));
        }
        args.extend(session_args);
        let after_sql = match &filter.after {
            Some(after) => after.after_sql("m.", &mut args),
            None => "1".to_string(),
        };
        let sql = if candidates.is_some() {
            // The candidates drive the join (CROSS JOIN keeps them the outer loop); left to
            // itself the planner walks every listed session's messages instead.
            format!(
                "SELECT {columns} {}
                 WHERE {session_sql} AND {after_sql}
                 ORDER BY m.sort_ts DESC, m.id DESC",
                joins("").replacen("FROM message m", "FROM json_each(?) c CROSS JOIN message m ON m.id = c.value", 1)
            )
        } else {
            format!(
                "SELECT {columns} {}
                 WHERE {matcher} AND {session_sql} AND {after_sql}
                 ORDER BY m.sort_ts DESC, m.id DESC",
                joins("")
            )
        };
        let mut stmt = self.conn.prepare(&sql)?;
        Ok(hit_page(collect_hits(&mut stmt, &args, &needle, fetch)?, limit))
    }

    /// The first `limit` hits among `candidates` (sorted ids) in the newest messages down
    /// to sort key `walk.floor` (after the cursor), newest first: the walk reads ids only
    /// (from the index), and the rows of candidates one by one.
    #[allow(clippy::too_many_arguments)]
    fn walk_candidates(
        &self,
        candidates: &[i64],
        columns: &str,
        joins: &str,
        session_sql: &str,
        session_args: &[Sql],
        walk: &Walk<'_>,
        needle: &str,
        limit: u32,
    ) -> Result<Vec<(SearchHit, String)>, IndexError> {
        let mut walk_stmt = self.conn.prepare_cached(&format!(
            "SELECT m.id FROM message m INDEXED BY message_by_sort WHERE m.sort_ts >= ? AND {}
             ORDER BY m.sort_ts DESC, m.id DESC",
            walk.after
        ))?;
        let mut row = self.conn.prepare_cached(&format!("SELECT {columns} {joins} WHERE m.id = ? AND {session_sql}"))?;
        let mut row_args = vec![Sql::Null];
        row_args.extend(session_args.iter().cloned());
        let mut walk_args = vec![Sql::Integer(walk.floor)];
        walk_args.extend(walk.after_args.iter().cloned());
        let mut hits = Vec::new();
        let mut ids = walk_stmt.query(params_from_iter(walk_args.iter()))?;
        while let Some(r) = ids.next()? {
            if hits.len() as u32 >= limit {
                break;
            }
            let id: i64 = r.get(0)?;
            if candidates.binary_search(&id).is_err() {
                continue;
            }
            row_args[0] = Sql::Integer(id);
            hits.extend(collect_hits(&mut row, &row_args, needle, 1)?);
        }
        Ok(hits)
    }

    /// Listed sessions per source and per workspace.
    pub fn facets(&self, roots: &[String]) -> Result<Facets, IndexError> {
        let mut args = Vec::new();
        let roots_sql = roots_clause(roots, &mut args);
        let mut stmt = self.conn.prepare(&format!(
            "SELECT s.source, count(*) {FROM} WHERE s.hidden = 0 AND {roots_sql}
             GROUP BY s.source ORDER BY count(*) DESC"
        ))?;
        let sources = stmt
            .query_map(params_from_iter(args.iter()), |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
            .filter_map(|r| r.ok())
            .filter_map(|(s, n)| Source::parse(&s).map(|source| SourceCount { source, count: n as u64 }))
            .collect();
        let mut stmt = self.conn.prepare(&format!(
            "SELECT s.workspace, count(*) {FROM} WHERE s.hidden = 0 AND s.workspace IS NOT NULL
             AND {roots_sql} GROUP BY s.workspace ORDER BY count(*) DESC, s.workspace LIMIT 200"
        ))?;
        let workspaces = stmt
            .query_map(params_from_iter(args.iter()), |r| {
                Ok(WorkspaceCount { workspace: r.get(0)?, count: r.get::<_, i64>(1)? as u64 })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Facets { sources, workspaces })
    }
}

/// Candidates up to which a term is sorted whole rather than walked.
const FEW_MATCHES: usize = 2000;

/// Newest messages a walk looks at before it falls back to sorting every match.
const WALK_ROWS: i64 = 20_000;

/// Where a search walk starts (after the cursor) and stops (the floor).
struct Walk<'a> {
    after: &'a str,
    after_args: &'a [Sql],
    floor: i64,
}

/// The messages' sessions a search may return: listed, under the roots, and of the
/// filter's tool and workspace; arguments appended to `args`.
fn session_filter(roots: &[String], filter: &SearchFilter, args: &mut Vec<Sql>) -> String {
    let mut sql = format!("s.hidden = 0 AND {}", roots_clause(roots, args));
    if let Some(source) = filter.source {
        sql.push_str(" AND s.source = ?");
        args.push(Sql::Text(source.as_str().into()));
    }
    if let Some(workspace) = filter.workspace.as_deref() {
        sql.push_str(" AND ");
        sql.push_str(&workspace_clause(workspace, args));
    }
    sql
}

/// Up to `limit` of the hits found (`limit + 1` were looked for).
fn hit_page(found: Vec<(SearchHit, String)>, limit: u32) -> SearchResult {
    let page = Page::of(found, limit as usize);
    SearchResult { hits: page.items, next_cursor: page.next_cursor, cursors: page.cursors }
}

/// Runs a search statement (candidates in result order) and keeps the first `limit` whose
/// text really contains `needle`: the trigram index only finds messages holding every
/// trigram of the query, anywhere. Each hit comes with the cursor that continues after it.
fn collect_hits(
    stmt: &mut rusqlite::Statement<'_>,
    args: &[Sql],
    needle: &str,
    limit: u32,
) -> rusqlite::Result<Vec<(SearchHit, String)>> {
    let mut hits = Vec::new();
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    while let Some(r) = rows.next()? {
        if hits.len() as u32 >= limit {
            break;
        }
        let text: String = r.get(3)?;
        let Some(snippet) = snippet(&text, needle) else { continue };
        let source: String = r.get(5)?;
        let hit = SearchHit {
            session_id: r.get(4)?,
            source: Source::parse(&source).unwrap_or(Source::ClaudeCode),
            title: r.get(6)?,
            message_id: r.get(1)?,
            index: r.get::<_, i64>(0)? as u64,
            role: Role::parse(&r.get::<_, String>(2)?).unwrap_or(Role::User),
            snippet,
            archived: r.get(9)?,
        };
        hits.push((hit, SearchCursor { sort_ts: r.get(7)?, row: r.get(8)? }.encode()));
    }
    Ok(hits)
}

/// The text around the first match of `needle` (already folded) in `text`, on one line
/// (whitespace runs become one space): up to [`SNIPPET_BEFORE`] characters before the
/// match, the match, and up to [`SNIPPET_AFTER`] after, with `…` where `text` was cut.
/// `None` when `text` does not contain it.
pub fn snippet(text: &str, needle: &str) -> Option<String> {
    // A range of the original text: positions in the folded text do not fit it.
    let found = find_folded(text, needle)?;
    let start = text[..found.start].char_indices().rev().take(SNIPPET_BEFORE).last().map_or(found.start, |(i, _)| i);
    let end = text[found.end..].char_indices().nth(SNIPPET_AFTER).map_or(text.len(), |(i, _)| found.end + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut last_space = false;
    for c in text[start..end].chars() {
        if c.is_whitespace() {
            if !last_space {
                out.push(' ');
            }
            last_space = true;
        } else {
            out.push(c);
            last_space = false;
        }
    }
    if end < text.len() {
        out.push('…');
    }
    Some(out.trim().to_string())
}
