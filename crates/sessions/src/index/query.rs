//! Reading the index: listings, one session, transcript pages and message search. Every
//! query takes the roots in effect, so an index shared between homes answers only for
//! the folders the caller reads.

use rusqlite::{params_from_iter, types::Value as Sql, OptionalExtension, Row};

use super::{Index, IndexError};
use crate::model::{
    format_ms, ActivityEntry, Role, SearchHit, SessionInfo, SessionList, Source, TranscriptMessage, SNIPPET_AFTER,
    SNIPPET_BEFORE,
};
use crate::text::{find_folded, fold};

/// The filters of `list_sessions`.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// At most this many sessions.
    pub limit: u32,
    /// A workspace path, or its last component (`memory-bank` matches `/src/memory-bank`).
    pub workspace: Option<String>,
    /// Only this tool.
    pub source: Option<Source>,
    /// Text the title, workspace or id contains (case-insensitive).
    pub query: Option<String>,
}

/// A session found by id, with its row for follow-up reads.
#[derive(Debug, Clone)]
pub struct FoundSession {
    /// The index row.
    pub row: i64,
    /// What listings show.
    pub info: SessionInfo,
}

/// Sessions per source and per workspace, most first.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Facets {
    /// `{source, count}`.
    pub sources: Vec<SourceCount>,
    /// `{workspace, count}`.
    pub workspaces: Vec<WorkspaceCount>,
}

/// A facet entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SourceCount {
    /// The tool.
    pub source: Source,
    /// Its listed sessions.
    pub count: u64,
}

/// A facet entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkspaceCount {
    /// The workspace path.
    pub workspace: String,
    /// Its listed sessions.
    pub count: u64,
}

const TITLE: &str = "coalesce(nullif(et.title, ''), s.title, s.first_user, '')";
const FROM: &str = "FROM session s JOIN unit u ON u.id = s.unit_id
     LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id";
const INFO_COLUMNS: &str =
    "s.id, s.session_id, s.source, s.workspace, s.created, s.updated, s.message_count";

fn info(row: &Row, title: String) -> rusqlite::Result<FoundSession> {
    let source: String = row.get(2)?;
    Ok(FoundSession {
        row: row.get(0)?,
        info: SessionInfo {
            session_id: row.get(1)?,
            source: Source::parse(&source).unwrap_or(Source::ClaudeCode),
            title,
            workspace: row.get(3)?,
            created_at: row.get::<_, Option<i64>>(4)?.and_then(format_ms),
            updated_at: row.get::<_, Option<i64>>(5)?.and_then(format_ms),
            message_count: row.get::<_, i64>(6)?.max(0) as u64,
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

impl Index {
    /// Sessions matching `filter`, newest first, and how many matched in all.
    pub fn list(&self, roots: &[String], filter: &ListFilter) -> Result<SessionList, IndexError> {
        let mut args = Vec::new();
        // The roots as a set of units (one scan of `unit`), not a join per session.
        let roots_sql = format!("s.unit_id IN (SELECT u.id FROM unit u WHERE {})", roots_clause(roots, &mut args));
        let mut conditions = vec!["s.hidden = 0".to_string(), roots_sql];
        if let Some(source) = filter.source {
            conditions.push("s.source = ?".into());
            args.push(Sql::Text(source.as_str().into()));
        }
        if let Some(workspace) = filter.workspace.as_deref() {
            let w = workspace.trim().trim_end_matches(['/', '\\']);
            conditions.push(
                "(s.workspace = ? COLLATE NOCASE OR s.workspace LIKE ? ESCAPE '\\'
                  OR s.workspace LIKE ? ESCAPE '\\')"
                    .into(),
            );
            args.push(Sql::Text(w.into()));
            args.push(Sql::Text(format!("%/{}", like_escape(w))));
            args.push(Sql::Text(format!("%\\\\{}", like_escape(w))));
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
            let ids: Vec<i64> = matches.iter().take(filter.limit as usize).map(|m| m.2).collect();
            let ids = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into());
            let mut stmt = self.conn.prepare_cached(&format!(
                "SELECT {INFO_COLUMNS}, {TITLE} FROM session s
                     LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id
                 WHERE s.id IN (SELECT value FROM json_each(?1)) {order}"
            ))?;
            let sessions = stmt
                .query_map([ids], |r| info(r, r.get(7)?))?
                .map(|r| r.map(|f| f.info))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(SessionList { total, sessions });
        }
        let total: i64 = self.conn.query_row(
            &format!("SELECT count(*) FROM session s WHERE {filter_sql}"),
            params_from_iter(args.iter()),
            |r| r.get(0),
        )?;
        args.push(Sql::Integer(i64::from(filter.limit)));
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {INFO_COLUMNS}, {TITLE} FROM session s
                 LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id
             WHERE {filter_sql} {order} LIMIT ?"
        ))?;
        let sessions = stmt
            .query_map(params_from_iter(args.iter()), |r| info(r, r.get(7)?))?
            .map(|r| r.map(|f| f.info))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SessionList { total: total as u64, sessions })
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
        sql.push_str(" ORDER BY s.hidden, s.updated DESC LIMIT 1");
        Ok(self
            .conn
            .query_row(&sql, params_from_iter(args.iter()), |r| info(r, r.get(7)?))
            .optional()?)
    }

    /// Up to `count` messages with index below `before`, oldest first.
    pub fn messages_before(
        &self,
        session_row: i64,
        before: u64,
        count: u64,
    ) -> Result<Vec<TranscriptMessage>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT idx, message_id, role, text, ts FROM message
             WHERE session = ?1 AND idx < ?2 ORDER BY idx DESC LIMIT ?3",
        )?;
        let mut messages = stmt
            .query_map(rusqlite::params![session_row, before as i64, count as i64], |r| {
                Ok(TranscriptMessage {
                    index: r.get::<_, i64>(0)? as u64,
                    message_id: r.get(1)?,
                    role: Role::parse(&r.get::<_, String>(2)?).unwrap_or(Role::User),
                    text: r.get(3)?,
                    timestamp: r.get::<_, Option<i64>>(4)?.and_then(format_ms),
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
        let mut roots_args = Vec::new();
        let roots_sql = roots_clause(roots, &mut roots_args);
        let columns = format!("m.idx, m.message_id, m.role, m.text, s.session_id, s.source, {TITLE}");
        let joins = |hint: &str| {
            format!(
                "FROM message m {hint} JOIN session s ON s.id = m.session JOIN unit u ON u.id = s.unit_id
                 LEFT JOIN external_title et ON et.source = s.source AND et.session_id = s.session_id"
            )
        };

        if common {
            // The sort key of the WALK_ROWS-th newest message bounds the walk.
            let floor: Option<i64> = self
                .conn
                .prepare_cached(&format!(
                    "SELECT sort_ts FROM message INDEXED BY message_by_sort
                     ORDER BY sort_ts DESC, id DESC LIMIT 1 OFFSET {WALK_ROWS}"
                ))?
                .query_row([], |r| r.get(0))
                .optional()?;
            let floor = floor.unwrap_or(i64::MIN);
            let hits = match &candidates {
                Some(ids) => self.walk_candidates(ids, &columns, &joins(""), &roots_sql, &roots_args, floor, &needle, limit)?,
                None => {
                    let mut walk_args = args.clone();
                    walk_args.extend(roots_args.iter().cloned());
                    walk_args.push(Sql::Integer(floor));
                    let mut stmt = self.conn.prepare(&format!(
                        "SELECT {columns} {}
                         WHERE {matcher} AND s.hidden = 0 AND {roots_sql} AND m.sort_ts >= ?
                         ORDER BY m.sort_ts DESC, m.id DESC",
                        joins("INDEXED BY message_by_sort")
                    ))?;
                    collect_hits(&mut stmt, &walk_args, &needle, limit)?
                }
            };
            // Complete when the window held enough matches, or was the whole table.
            if hits.len() as u32 >= limit || floor == i64::MIN {
                return Ok(hits);
            }
        }
        if let Some(ids) = &candidates {
            // A JSON array, read back by `json_each`: one bound parameter for any number.
            args.push(Sql::Text(serde_json::Value::from(ids.clone()).to_string()));
        }
        args.extend(roots_args);
        let sql = if candidates.is_some() {
            // The candidates drive the join (CROSS JOIN keeps them the outer loop); left to
            // itself the planner walks every listed session's messages instead.
            format!(
                "SELECT {columns} {}
                 WHERE s.hidden = 0 AND {roots_sql}
                 ORDER BY m.sort_ts DESC, m.id DESC",
                joins("").replacen("FROM message m", "FROM json_each(?) c CROSS JOIN message m ON m.id = c.value", 1)
            )
        } else {
            format!(
                "SELECT {columns} {}
                 WHERE {matcher} AND s.hidden = 0 AND {roots_sql}
                 ORDER BY m.sort_ts DESC, m.id DESC",
                joins("")
            )
        };
        let mut stmt = self.conn.prepare(&sql)?;
        Ok(collect_hits(&mut stmt, &args, &needle, limit)?)
    }

    /// The first `limit` hits among `candidates` (sorted ids) in the newest messages down
    /// to sort key `floor`, newest first: the walk reads ids only (from the index), and
    /// the rows of candidates one by one.
    #[allow(clippy::too_many_arguments)]
    fn walk_candidates(
        &self,
        candidates: &[i64],
        columns: &str,
        joins: &str,
        roots_sql: &str,
        roots_args: &[Sql],
        floor: i64,
        needle: &str,
        limit: u32,
    ) -> Result<Vec<SearchHit>, IndexError> {
        let mut walk = self.conn.prepare_cached(
            "SELECT id FROM message INDEXED BY message_by_sort WHERE sort_ts >= ?1 ORDER BY sort_ts DESC, id DESC",
        )?;
        let mut row = self
            .conn
            .prepare_cached(&format!("SELECT {columns} {joins} WHERE m.id = ? AND s.hidden = 0 AND {roots_sql}"))?;
        let mut row_args = vec![Sql::Null];
        row_args.extend(roots_args.iter().cloned());
        let mut hits = Vec::new();
        let mut ids = walk.query([floor])?;
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

/// Runs a search statement (candidates in result order) and keeps the first `limit` whose
/// text really contains `needle`: the trigram index only finds messages holding every
/// trigram of the query, anywhere.
fn collect_hits(
    stmt: &mut rusqlite::Statement<'_>,
    args: &[Sql],
    needle: &str,
    limit: u32,
) -> rusqlite::Result<Vec<SearchHit>> {
    let mut hits = Vec::new();
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    while let Some(r) = rows.next()? {
        if hits.len() as u32 >= limit {
            break;
        }
        let text: String = r.get(3)?;
        let Some(snippet) = snippet(&text, needle) else { continue };
        let source: String = r.get(5)?;
        hits.push(SearchHit {
            session_id: r.get(4)?,
            source: Source::parse(&source).unwrap_or(Source::ClaudeCode),
            title: r.get(6)?,
            message_id: r.get(1)?,
            index: r.get::<_, i64>(0)? as u64,
            role: Role::parse(&r.get::<_, String>(2)?).unwrap_or(Role::User),
            snippet,
        });
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
