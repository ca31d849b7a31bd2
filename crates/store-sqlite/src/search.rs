//! A search's statements, run on a reader ([`crate::readers`]): a bank's candidates, the
//! candidates of given rows (the duplicate hint), and the memories that won.

use memory_bank_contract::Timestamp;
use memory_bank_store::rank::Tally;
use memory_bank_store::{BankKey, Candidate, RowKey};
use rusqlite::{params, Connection, Row};

use crate::rows::packed_memories;

/// A bank's search candidates, `id, created_at, terms` each: its newest memories whose
/// index holds a term of the FTS5 expression `?1`, at most `?2`, of the owner `?3` and
/// the scope `?4`.
///
/// `CROSS JOIN` (SQLite keeps its order) and the unary `+` keep the planner on "FTS
/// matches first, then a primary-key lookup each" instead of walking all of a user's
/// rows; the owner check stays as a guard against user-code hash collisions. The rows
/// are the narrow `memory_candidate` ones (its migration says why). `LIMIT +?2`, not
/// `LIMIT ?2`: SQLite offers a bound LIMIT to a virtual table's planner and then
/// prepares the statement again whenever the parameter is bound, so on every search;
/// FTS5 has no use for it (BENCHMARKS.md, "a statement prepared once").
const BANK_CANDIDATES: &str = "SELECT c.id, c.created_at, c.terms
     FROM (SELECT rowid AS seq FROM memory_fts WHERE memory_fts MATCH ?1 ORDER BY rowid DESC LIMIT +?2) AS f
     CROSS JOIN memory_candidate AS c ON c.seq = f.seq
     WHERE +c.user_id = ?3 AND +c.scope = ?4";

/// The candidates of the rows `?1` (a JSON array of row numbers) among the bank's (owner
/// `?2`, scope `?3`), as [`BANK_CANDIDATES`] reads them.
const CANDIDATE_ROWS: &str = "SELECT c.id, c.created_at, c.terms FROM memory_candidate AS c
     WHERE c.seq IN (SELECT value FROM json_each(?1)) AND +c.user_id = ?2 AND +c.scope = ?3";

/// The bank's (owner `?1`, scope `?3`) memories among the ids `?2` (a JSON array),
/// packed. `+user_id`: rows looked up by id, not by walking all of the owner's rows.
const MEMORIES_BY_IDS: &str = concat!(
    "SELECT ",
    packed_memories!(""),
    " FROM memory AS m WHERE m.id IN (SELECT value FROM json_each(?2)) AND +m.user_id = ?1 AND +m.scope = ?3"
);

/// Each bank's candidates for its scoped terms, at most `cap` each, in the banks' order
/// (none for a bank without terms).
pub(crate) fn candidates_in(conn: &Connection, banks: &[(BankKey<'_>, Vec<String>)], cap: u32) -> rusqlite::Result<Vec<Vec<Candidate>>> {
    banks.iter().map(|(bank, scoped_terms)| bank_candidates(conn, *bank, scoped_terms, cap)).collect()
}

/// A bank's candidates for its scoped terms, at most `cap` (none without terms).
pub(crate) fn bank_candidates(conn: &Connection, bank: BankKey<'_>, scoped_terms: &[String], cap: u32) -> rusqlite::Result<Vec<Candidate>> {
    let mut found = Vec::new();
    each_candidate(conn, bank, scoped_terms, cap, |row| {
        found.push(candidate(row)?);
        Ok(())
    })?;
    Ok(found)
}

/// Each bank's candidates, as [`candidates_in`] reads them, handed to `tally` with the
/// bank's index, each row's terms where the statement left them (not copied).
pub(crate) fn tally_in(conn: &Connection, banks: &[(BankKey<'_>, Vec<String>)], cap: u32, tally: &mut Tally<'_>) -> rusqlite::Result<()> {
    for (i, (bank, scoped_terms)) in banks.iter().enumerate() {
        each_candidate(conn, *bank, scoped_terms, cap, |row| {
            tally.add(i, text(row, 0)?, Timestamp::from_unix_ms(row.get(1)?), text(row, 2)?);
            Ok(())
        })?;
    }
    Ok(())
}

/// Runs [`BANK_CANDIDATES`] for the bank's scoped terms (nothing without terms) and hands
/// `each` its rows, newest first.
fn each_candidate(
    conn: &Connection,
    bank: BankKey<'_>,
    scoped_terms: &[String],
    cap: u32,
    mut each: impl FnMut(&Row<'_>) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    if scoped_terms.is_empty() {
        return Ok(());
    }
    let mut statement = conn.prepare_cached(BANK_CANDIDATES)?;
    let mut rows = statement.query(params![match_expression(scoped_terms), cap, bank.owner(), bank.scope().as_str()])?;
    while let Some(row) = rows.next()? {
        each(row)?;
    }
    Ok(())
}

/// Column `i` of `row` as text, borrowed from the statement.
fn text<'r>(row: &'r Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    row.get_ref(i)?.as_str().map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e)))
}

/// The bank's candidates among the rows `keys`.
pub(crate) fn candidate_rows(conn: &Connection, bank: BankKey<'_>, keys: &[RowKey]) -> rusqlite::Result<Vec<Candidate>> {
    let mut statement = conn.prepare_cached(CANDIDATE_ROWS)?;
    let rows = statement.query(params![row_numbers(keys), bank.owner(), bank.scope().as_str()])?;
    rows.mapped(candidate).collect()
}

/// The bank's memories among `ids`, packed as [`packed_memories`] packs them.
pub(crate) fn memories_by_ids(conn: &Connection, bank: BankKey<'_>, ids: &[String]) -> rusqlite::Result<Option<String>> {
    let ids = serde_json::Value::from(ids.to_vec()).to_string();
    conn.prepare_cached(MEMORIES_BY_IDS)?.query_row(params![bank.owner(), ids, bank.scope().as_str()], |row| row.get(0))
}

fn candidate(row: &Row<'_>) -> rusqlite::Result<Candidate> {
    Ok(Candidate { id: row.get(0)?, created_at: Timestamp::from_unix_ms(row.get(1)?), terms: row.get(2)? })
}

/// Row keys as the JSON array of row numbers the statements take (a key that is no row
/// number names no row).
pub(crate) fn row_numbers(keys: &[RowKey]) -> String {
    let seqs: Vec<i64> = keys.iter().filter_map(|k| k.parse().ok()).collect();
    serde_json::Value::from(seqs).to_string()
}

/// The FTS5 expression for scoped terms: any of them. Terms are letters and digits only
/// (see memory_bank_store::terms), so quoting each as an FTS5 phrase cannot change the
/// query's structure; the whole expression is still a bound parameter.
fn match_expression(scoped_terms: &[String]) -> String {
    scoped_terms.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(" OR ")
}
