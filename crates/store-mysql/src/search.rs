//! Full-text candidates for the MySQL store: the user's newest matches, at most `cap`,
//! newest first, with their stored terms for ranking in the app (rank.rs).
//!
//! Where the time goes (10⁶ memories, 1 000 users, a term in ~70 % of a user's rows,
//! so ~700 matches): InnoDB resolves every FULLTEXT match through its hidden
//! `FTS_DOC_ID` index and then the clustered index, about six page visits per match,
//! all matches before any `LIMIT` applies. With `ORDER BY created_at DESC, id DESC`
//! on top, the filesort sorts row references (always, for a FULLTEXT access) and then
//! reads every sorted row from the clustered index a second time: ~9 page visits per
//! match instead of ~6, measured as ~6 000 against ~4 000 buffer-pool requests and
//! 7.7 against 5.1 ms on the server for 662 matches.
//!
//! So the first statement asks for the matches without an order, one more than `cap`
//! (`LIMIT` then only bounds what is sent): when there are at most `cap` of them they
//! are all there is, and the app sorts them exactly as the `ORDER BY` would
//! (`created_at`, then `id` byte-wise, as `utf8mb4_bin` compares). Only a user with
//! more matches than `cap` needs the ordered statement, which then pays for one more
//! pass over its matches; that is the case the cap exists for (a very common word in a
//! very large bank), and the unordered pass is bounded by `cap + 1` rows.
//!
//! Characters above U+FFFF are separators to InnoDB's FULLTEXT parser, not to the
//! app's terms, so a row holding one may match a term it does not hold (see
//! `beyond_the_basic_plane`). Such rows are checked against the terms here, and the
//! ordered statement pages on until `cap` rows hold a term, so the candidates are the
//! SQLite store's exactly.

use std::cmp::Ordering;

use memory_bank_contract::Timestamp;
use memory_bank_store::{BankKey, Candidate, StoreError};
use sqlx::mysql::MySqlRow;
use sqlx::{MySqlConnection, Row};

use crate::rows::{db_err, timestamp};

/// The boolean-mode expression for already scoped terms: the terms space-separated,
/// which InnoDB reads as "any of them". The terms are letters and digits only (see
/// memory_bank_store::terms); anything else is dropped rather than trusted, so no
/// operator (`+ - * " ( ) ~ < > @`) can ever reach the parser.
///
/// ASCII letters are lowercased: the SQLite store's FTS5 `ascii` tokenizer folds
/// ASCII case in a query, while FULLTEXT over this `utf8mb4_bin` column compares
/// exactly (`u…TEA` would miss a stored `u…tea`). Stored terms are lowercase already
/// (memory_bank_store::terms), so this is the whole fold: other letters match exactly
/// in both stores (`CAFÉ` misses `café` in both).
pub(crate) fn boolean_expression(scoped_terms: &[String]) -> String {
    let safe: Vec<String> = scoped_terms
        .iter()
        .filter(|t| !t.is_empty() && t.chars().all(char::is_alphanumeric))
        .map(|t| t.to_ascii_lowercase())
        .collect();
    safe.join(" ")
}

fn candidate_from_row(row: &MySqlRow) -> Result<Candidate, StoreError> {
    Ok(Candidate {
        id: row.try_get("id").map_err(db_err)?,
        created_at: timestamp(row, "created_at")?,
        search_text: row.try_get("search_text").map_err(db_err)?,
    })
}

/// `ORDER BY created_at DESC, id DESC` with `utf8mb4_bin` ids: code-point order, which
/// is the byte order of UTF-8 strings.
fn newest_first(a: &Candidate, b: &Candidate) -> Ordering {
    b.created_at.cmp(&a.created_at).then_with(|| b.id.cmp(&a.id))
}

/// Whether InnoDB's FULLTEXT parser may have split this text differently from the
/// app: it treats characters above U+FFFF (CJK extensions B and up, Adlam, Osage…) as
/// separators, so `u…𠀀𠀁` is indexed and queried as the bare user code `u…`, and
/// `u…ab𞤀` as `u…ab`. Such rows can match a query they do not hold. In UTF-8 only
/// those characters start with a byte of 0xF0 or more.
fn beyond_the_basic_plane(text: &str) -> bool {
    text.bytes().any(|b| b >= 0xF0)
}

/// Whether the candidate holds one of the terms as a whole stored term: what FTS5
/// (and FULLTEXT, for text within the Basic Multilingual Plane) decides.
fn holds_a_term(candidate: &Candidate, terms: &[&str]) -> bool {
    candidate.search_text.split(' ').any(|stored| terms.contains(&stored))
}

/// The bank's newest `cap` memories whose terms include any of `scoped_terms`, newest
/// first. All statements run on `conn`, so a search holds one pooled connection.
pub(crate) async fn candidates(
    conn: &mut MySqlConnection,
    bank: BankKey<'_>,
    scoped_terms: &[String],
    cap: u32,
) -> Result<Vec<Candidate>, StoreError> {
    let (user_id, scope) = (bank.owner(), bank.scope().as_str());
    let expression = boolean_expression(scoped_terms);
    if expression.is_empty() || cap == 0 {
        return Ok(Vec::new());
    }
    // The terms as FULLTEXT compares them, for rows it may have matched wrongly: any
    // row when a query term goes beyond the Basic Multilingual Plane (`u…ab𞤀` is
    // looked up as `u…ab`), else the rows that do.
    let terms: Vec<&str> = expression.split(' ').collect();
    let check_every_row = beyond_the_basic_plane(&expression);
    let genuine =
        |c: &Candidate| (!check_every_row && !beyond_the_basic_plane(&c.search_text)) || holds_a_term(c, &terms);
    // BOOLEAN MODE without operators is "any term", like the SQLite store's OR, and
    // skips natural-language relevance, which the app computes itself (rank.rs).
    // The user code in every term keeps each posting list to one user's rows; the
    // user_id predicate guards against a code collision.
    let rows = sqlx::query(
        "SELECT id, created_at, search_text FROM memory
         WHERE MATCH(search_text) AGAINST(? IN BOOLEAN MODE) AND user_id = ? AND scope = ?
         LIMIT ?",
    )
    .bind(&expression)
    .bind(user_id)
    .bind(scope)
    .bind(u64::from(cap) + 1)
    .fetch_all(&mut *conn)
    .await
    .map_err(db_err)?;
    if rows.len() <= cap as usize {
        let mut all = rows.iter().map(candidate_from_row).collect::<Result<Vec<_>, _>>()?;
        all.retain(genuine);
        all.sort_by(newest_first);
        return Ok(all);
    }
    // More matches than the cap: only the server can pick the newest `cap` without
    // sending all of them. Pages of `cap`, newest first, until `cap` genuine matches:
    // one page unless rows were dropped above.
    let mut found = Vec::new();
    let mut after: Option<(Timestamp, String)> = None;
    loop {
        let page = match &after {
            None => sqlx::query(
                "SELECT id, created_at, search_text FROM memory
                 WHERE MATCH(search_text) AGAINST(? IN BOOLEAN MODE) AND user_id = ? AND scope = ?
                 ORDER BY created_at DESC, id DESC LIMIT ?",
            )
            .bind(&expression)
            .bind(user_id)
            .bind(scope)
            .bind(cap),
            Some((created_at, id)) => sqlx::query(
                "SELECT id, created_at, search_text FROM memory
                 WHERE MATCH(search_text) AGAINST(? IN BOOLEAN MODE) AND user_id = ? AND scope = ?
                   AND (created_at < ? OR (created_at = ? AND id < ?))
                 ORDER BY created_at DESC, id DESC LIMIT ?",
            )
            .bind(&expression)
            .bind(user_id)
            .bind(scope)
            .bind(created_at.to_datetime())
            .bind(created_at.to_datetime())
            .bind(id)
            .bind(cap),
        }
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
        let full = page.len() == cap as usize;
        for row in &page {
            let candidate = candidate_from_row(row)?;
            after = Some((candidate.created_at, candidate.id.clone()));
            if genuine(&candidate) {
                found.push(candidate);
                if found.len() == cap as usize {
                    return Ok(found);
                }
            }
        }
        if !full {
            return Ok(found);
        }
    }
}

/// For each scoped term, the ids of at most `cap` rows whose FULLTEXT index holds it:
/// one statement, a capped list per term (`JSON_ARRAYAGG` of a capped derived table). A
/// term the parser would split (beyond the Basic Multilingual Plane) may list rows that do
/// not hold it, never miss one; the hint compares sentences afterwards anyway.
pub(crate) async fn term_rows(conn: &mut MySqlConnection, scoped_terms: &[String], cap: u32) -> Result<Vec<Vec<String>>, StoreError> {
    let expressions: Vec<String> = scoped_terms.iter().map(|t| boolean_expression(std::slice::from_ref(t))).collect();
    let listed: Vec<&String> = expressions.iter().filter(|e| !e.is_empty()).collect();
    // A term that is no term (never: terms are letters and digits) counts as common.
    let full = || (0..cap).map(|i| format!("\u{0}{i}")).collect::<Vec<String>>();
    if listed.is_empty() {
        return Ok(expressions.iter().map(|_| full()).collect());
    }
    // JSON_ARRAYAGG, not GROUP_CONCAT: that one stops at group_concat_max_len (1 KB on MySQL).
    let one = "(SELECT JSON_ARRAYAGG(id) FROM (SELECT id FROM memory WHERE MATCH(search_text) AGAINST(? IN BOOLEAN MODE) LIMIT ?) AS t)";
    // Only the constant above, repeated: every term is a bound parameter.
    let statement = format!("SELECT {}", vec![one; listed.len()].join(", "));
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement));
    for expression in &listed {
        query = query.bind(expression.as_str()).bind(cap);
    }
    let row = query.fetch_one(&mut *conn).await.map_err(db_err)?;
    let mut lists = Vec::with_capacity(expressions.len());
    let mut column = 0;
    for expression in &expressions {
        if expression.is_empty() {
            lists.push(full());
            continue;
        }
        let ids: Option<String> = row.try_get(column).map_err(db_err)?;
        let ids: Vec<String> = match ids {
            Some(json) => serde_json::from_str(&json).map_err(|e| StoreError::Database(format!("unreadable term rows: {e}")))?,
            None => Vec::new(),
        };
        lists.push(ids);
        column += 1;
    }
    Ok(lists)
}

#[cfg(test)]
mod tests {
    use super::*;
    use memory_bank_contract::Timestamp;

    #[test]
    fn boolean_expression_keeps_only_letter_and_digit_terms() {
        let terms: Vec<String> = ["u0123456789tea", "u0123456789绿茶", "", "u0123456789a+b", "-x", "u0123456789\"q"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(boolean_expression(&terms), "u0123456789tea u0123456789绿茶");
        // ASCII case folds, as in the SQLite store's `ascii` tokenizer; other letters do not.
        assert_eq!(boolean_expression(&["U0123456789TeA".to_owned(), "u0123456789CAFÉ".to_owned()]), "u0123456789tea u0123456789cafÉ");
        assert_eq!(boolean_expression(&["*".to_owned()]), "");
    }

    #[test]
    fn only_characters_above_the_basic_plane_need_the_check() {
        assert!(!beyond_the_basic_plane("u0123456789tea u0123456789绿茶 u0123456789café"));
        assert!(beyond_the_basic_plane("u0123456789𠀀𠀁"));
        assert!(beyond_the_basic_plane("u0123456789ab𞤢"));
        let c = Candidate { id: "m".into(), created_at: Timestamp::from_unix_ms(1), search_text: "u0𠀀 u0𠀀𠀁 u0song".into() };
        assert!(holds_a_term(&c, &["u0x", "u0𠀀𠀁"]));
        // Whole terms only, as FTS5 compares them: neither a prefix nor the bare code.
        assert!(!holds_a_term(&c, &["u0𠀁", "u0", "u0son"]));
    }

    #[test]
    fn newest_first_breaks_ties_by_id_bytes_descending() {
        let c = |id: &str, ms| Candidate { id: id.into(), created_at: Timestamp::from_unix_ms(ms), search_text: String::new() };
        let mut v = [c("mem_a", 1), c("mem_b", 2), c("mem_c", 1), c("mem_Z", 2)];
        v.sort_by(newest_first);
        let ids: Vec<_> = v.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["mem_b", "mem_Z", "mem_c", "mem_a"]);
    }
}
