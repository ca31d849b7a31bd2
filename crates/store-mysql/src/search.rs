//! Search reads of the MySQL store, over its index table (`postings`): a bank's
//! newest matches for the ranking in the app (rank.rs), and the duplicate hint's
//! capped lists of rows per term.
//!
//! A term's rows are one primary-key range, `(user_id, term)`, ordered by
//! `(created_at, memory_id)`, so a bank's newest `cap` rows holding it are the last
//! `cap` entries of that range, read backwards: the same few thousand entries for a
//! word in every memory as for one in a thousand, whatever the bank's size. A query of
//! several terms reads one such range per term, and the newest `cap` of their union
//! are exactly the newest `cap` rows holding any of them, as the SQLite store answers.

use memory_bank_store::terms::candidate_terms;
use memory_bank_store::{BankKey, Candidate, StoreError, TermRows};
use sqlx::mysql::MySqlRow;
use sqlx::{MySqlConnection, Row};

use crate::rows::{db_err, timestamp};

/// The terms to look up, each once: letters and digits only, ASCII lowercased.
///
/// ASCII case folds because the SQLite store's FTS5 `ascii` tokenizer folds it in a
/// query, while this store's `utf8mb4_bin` terms compare exactly (`u…TEA` would miss a
/// stored `u…tea`). Stored terms are lowercase already (memory_bank_store::terms), so
/// this is the whole fold: other letters match exactly in both stores (`CAFÉ` misses
/// `café` in both). Anything but letters and digits is no term of the app's and could
/// match nothing; it is dropped.
pub(crate) fn lookup_terms(scoped_terms: &[String]) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for term in scoped_terms {
        if term.is_empty() || !term.chars().all(char::is_alphanumeric) {
            continue;
        }
        let term = term.to_ascii_lowercase();
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    terms
}

fn candidate_from_row(row: &MySqlRow) -> Result<Candidate, StoreError> {
    Ok(Candidate {
        id: row.try_get("id").map_err(db_err)?,
        created_at: timestamp(row, "created_at")?,
        terms: candidate_terms(&row.try_get::<String, _>("search_text").map_err(db_err)?),
    })
}

/// One term's newest `cap` postings in the bank: a backward read of one key range.
const NEWEST_POSTINGS: &str = "(SELECT created_at, memory_id FROM memory_term WHERE user_id = ? AND term = ?
      ORDER BY created_at DESC, memory_id DESC LIMIT ?)";

/// The bank's newest `cap` memories whose stored terms include any of `scoped_terms`,
/// newest first (`created_at`, then `id` byte-wise, as `utf8mb4_bin` orders it). One
/// statement on `conn`.
pub(crate) async fn candidates(
    conn: &mut MySqlConnection,
    bank: BankKey<'_>,
    scoped_terms: &[String],
    cap: u32,
) -> Result<Vec<Candidate>, StoreError> {
    let (owner, scope) = (bank.owner(), bank.scope().as_str());
    let terms = lookup_terms(scoped_terms);
    if terms.is_empty() || cap == 0 {
        return Ok(Vec::new());
    }
    // UNION (not UNION ALL): a memory holding two of the terms is one candidate. The
    // newest `cap` of the union are cut before the join, on narrow rows, so only `cap`
    // memories are read, and their rows (with their stored terms) are never sorted:
    // that sort cost more than the join itself (BENCHMARKS.md, "Cut before the join").
    // An owner's rows all have one scope (a person's `user`, an org's `org`), so these
    // are the bank's newest `cap` matches; a row of the other scope under the same owner
    // (never written by the app) is dropped after the cut, leaving fewer, never others.
    // STRAIGHT_JOIN: the postings first, then each memory by its primary key
    // (user_id, created_at, id), the newest ones on adjacent pages.
    let statement = format!(
        "SELECT m.id, m.created_at, m.search_text
         FROM (SELECT created_at, memory_id FROM ({}) AS u ORDER BY created_at DESC, memory_id DESC LIMIT ?) AS t
         STRAIGHT_JOIN memory AS m ON m.user_id = ? AND m.created_at = t.created_at AND m.id = t.memory_id
         WHERE m.scope = ?",
        vec![NEWEST_POSTINGS; terms.len()].join(" UNION ")
    );
    // Only the constant above, repeated: every term is a bound parameter.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
    for term in &terms {
        query = query.bind(owner).bind(term.as_str()).bind(cap);
    }
    let rows = query.bind(cap).bind(owner).bind(scope).fetch_all(&mut *conn).await.map_err(db_err)?;
    let mut candidates = rows.iter().map(candidate_from_row).collect::<Result<Vec<_>, _>>()?;
    // Newest first, as the postings were cut: a join's rows come in no promised order.
    candidates.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    Ok(candidates)
}

/// The bank's memories among these ids (its row keys) as candidates: one lookup each by
/// the `id` index, as `worded_rows` reads them, with their stored terms.
pub(crate) async fn candidate_rows(conn: &mut MySqlConnection, bank: BankKey<'_>, ids: &[String]) -> Result<Vec<Candidate>, StoreError> {
    let rows = sqlx::query(
        "SELECT STRAIGHT_JOIN m.id, m.created_at, m.search_text
         FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
         JOIN memory AS m ON m.id = j.wanted
         WHERE m.user_id = ? AND m.scope = ?",
    )
    .bind(serde_json::Value::from(ids.to_vec()).to_string())
    .bind(bank.owner())
    .bind(bank.scope().as_str())
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    rows.iter().map(candidate_from_row).collect()
}

/// For each scoped term, the ids of the bank's rows holding it, or `Common` when `cap` or
/// more do: one statement, a capped range per term (`JSON_ARRAYAGG` of it, NULL at the
/// cap). A term that is no term of the app's (never: terms are letters and digits)
/// counts as common.
pub(crate) async fn term_rows(
    conn: &mut MySqlConnection,
    bank: BankKey<'_>,
    scoped_terms: &[String],
    cap: u32,
) -> Result<Vec<TermRows>, StoreError> {
    let looked_up: Vec<Option<String>> =
        scoped_terms.iter().map(|t| lookup_terms(std::slice::from_ref(t)).pop()).collect();
    let listed: Vec<&String> = looked_up.iter().flatten().collect();
    if listed.is_empty() {
        return Ok(looked_up.iter().map(|_| TermRows::Common).collect());
    }
    // JSON_ARRAYAGG, not GROUP_CONCAT: that one stops at group_concat_max_len (1 KB on
    // MySQL). A term with no rows is NULL as well, told apart by its count.
    let one = "(SELECT IF(COUNT(*) < ?, COALESCE(JSON_ARRAYAGG(memory_id), '[]'), NULL)
                FROM (SELECT memory_id FROM memory_term WHERE user_id = ? AND term = ? LIMIT ?) AS t)";
    // Only the constant above, repeated: every term is a bound parameter.
    let statement = format!("SELECT {}", vec![one; listed.len()].join(", "));
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
    for term in &listed {
        query = query.bind(cap).bind(bank.owner()).bind(term.as_str()).bind(cap);
    }
    let row = query.fetch_one(&mut *conn).await.map_err(db_err)?;
    let mut lists = Vec::with_capacity(looked_up.len());
    let mut column = 0;
    for term in &looked_up {
        if term.is_none() {
            lists.push(TermRows::Common);
            continue;
        }
        let ids: Option<String> = row.try_get(column).map_err(db_err)?;
        lists.push(match ids {
            Some(json) => TermRows::Rows(
                serde_json::from_str(&json).map_err(|e| StoreError::Database(format!("unreadable term rows: {e}")))?,
            ),
            None => TermRows::Common,
        });
        column += 1;
    }
    Ok(lists)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_terms_keeps_only_letter_and_digit_terms_once() {
        let terms: Vec<String> = ["u0123456789tea", "u0123456789绿茶", "", "u0123456789a+b", "-x", "u0123456789\"q", "U0123456789TEA"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(lookup_terms(&terms), ["u0123456789tea", "u0123456789绿茶"]);
        // ASCII case folds, as in the SQLite store's `ascii` tokenizer; other letters do not.
        assert_eq!(lookup_terms(&["U0123456789TeA".to_owned(), "u0123456789CAFÉ".to_owned()]), ["u0123456789tea", "u0123456789cafÉ"]);
        assert!(lookup_terms(&["*".to_owned()]).is_empty());
    }
}
