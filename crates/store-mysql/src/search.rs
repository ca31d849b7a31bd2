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
//! (`created_at`, then `id` byte-wise, as `utf8mb4_bin` compares). A bank with more
//! matches than `cap` (a common word in a large bank, a team's above all) is looked at
//! from its newest rows first: when its newest `4 × cap` rows hold `cap` matches, those
//! are the answer, read as a bounded range of the primary key. Only a term with more
//! matches than `cap` but fewer than that among the newest rows needs the ordered
//! FULLTEXT statement, which then pays for one more pass over its matches. A search
//! the newest rows answered starts there the next time (`RecentPlans`).
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
    plans: &RecentPlans,
    bank: BankKey<'_>,
    scoped_terms: &[String],
    cap: u32,
) -> Result<Vec<Candidate>, StoreError> {
    let (user_id, scope) = (bank.owner(), bank.scope().as_str());
    let expression = boolean_expression(scoped_terms);
    if expression.is_empty() || cap == 0 {
        return Ok(Vec::new());
    }
    let terms: Vec<&str> = expression.split(' ').collect();
    let plan = plans.key(bank, &expression, cap);
    let verdict = plans.verdict(plan);
    if verdict == Some(true) {
        let found = newest_among_recent(conn, bank, &terms, cap).await?;
        plans.learn(plan, found.is_some());
        if let Some(found) = found {
            return Ok(found);
        }
    }
    // Where to look if there are more matches than the cap: among the newest rows,
    // unless that was just done or did not answer before.
    let look_among_recent = verdict.is_none();
    // The terms as FULLTEXT compares them, for rows it may have matched wrongly: any
    // row when a query term goes beyond the Basic Multilingual Plane (`u…ab𞤀` is
    // looked up as `u…ab`), else the rows that do.
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
    // More matches than the cap. A term in much of the bank (a common word in a team
    // bank of 10⁵) has its newest `cap` matches among the bank's newest rows: look there
    // first, a bounded range of the primary key.
    // Looked for there before without finding them: straight to the ordered statement.
    if look_among_recent {
        let found = newest_among_recent(conn, bank, &terms, cap).await?;
        plans.learn(plan, found.is_some());
        if let Some(found) = found {
            return Ok(found);
        }
    }
    ordered(conn, bank, &expression, cap, genuine).await
}

/// Whether the bank's newest rows answered a search like this last time
/// ([`newest_among_recent`]). If they did, the next one goes there first, skipping the
/// FULLTEXT statement that would only find more matches than the cap again (~20 ms for
/// a word in much of 10⁵ memories); if they did not, it skips looking there. A plan,
/// never an answer: either way the answer is exact, and a wrong plan costs one slower
/// search and is corrected. Kept as keyed hashes, so no query's words stay in memory.
#[derive(Debug, Default)]
pub(crate) struct RecentPlans {
    hasher: std::hash::RandomState,
    verdicts: std::sync::Mutex<std::collections::HashMap<u64, bool>>,
}

/// Most plans kept; past it they are all forgotten and learnt again (a few slow searches).
const MOST_PLANS: usize = 16_384;

impl RecentPlans {
    fn key(&self, bank: BankKey<'_>, expression: &str, cap: u32) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one((bank.owner(), bank.scope().as_str(), expression, cap))
    }

    fn verdict(&self, key: u64) -> Option<bool> {
        self.verdicts.lock().ok().and_then(|verdicts| verdicts.get(&key).copied())
    }

    fn learn(&self, key: u64, answered: bool) {
        // A poisoned lock only loses plans: searches stay right.
        let Ok(mut verdicts) = self.verdicts.lock() else { return };
        if verdicts.len() >= MOST_PLANS {
            verdicts.clear();
        }
        verdicts.insert(key, answered);
    }
}

/// How many of the bank's newest rows [`newest_among_recent`] reads per candidate
/// wanted: it answers for a term in at least a quarter of them. Measured on a team bank
/// of 10⁵ (BENCHMARKS.md): finding where the range ends costs ~1 µs a row, matching the
/// terms in a row several more, against ~5 µs for each of the term's FULLTEXT matches
/// in the whole bank, which the ordered statement resolves.
const RECENT_ROWS_PER_CANDIDATE: u64 = 4;

/// The bank's newest `cap` rows holding any of `terms` as a whole stored term, when
/// that many are among its newest `cap × RECENT_ROWS_PER_CANDIDATE` rows or the bank
/// holds no more rows than that; `None` when not (the term is not that common:
/// [`ordered`] finds them).
///
/// Why it is exact: the rows are read newest first from a bounded range of the primary
/// key `(user_id, created_at, id)`, and when `cap` of them hold a term, every other row
/// holding one is older than the last of them. It reads whole stored terms as the app
/// wrote them, so FULLTEXT's parser quirks (`beyond_the_basic_plane`) do not arise.
/// Why it pays: at 10⁵ memories in one bank, a word in most of them is ~70 000
/// FULLTEXT matches, each resolved to its row before the ordered statement can sort
/// them (~80 ms), where this reads a few thousand adjacent rows.
async fn newest_among_recent(
    conn: &mut MySqlConnection,
    bank: BankKey<'_>,
    terms: &[&str],
    cap: u32,
) -> Result<Option<Vec<Candidate>>, StoreError> {
    let (user_id, scope) = (bank.owner(), bank.scope().as_str());
    let recent = u64::from(cap) * RECENT_ROWS_PER_CANDIDATE;
    // The oldest of the newest `recent` rows: the range's end. No end: the bank holds
    // fewer rows than that, and all of them are read.
    let end: Option<MySqlRow> = sqlx::query(
        "SELECT created_at, id FROM memory WHERE user_id = ? AND scope = ?
         ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?",
    )
    .bind(user_id)
    .bind(scope)
    .bind(recent - 1)
    .fetch_optional(&mut *conn)
    .await
    .map_err(db_err)?;
    let end = match end {
        Some(row) => Some((timestamp(&row, "created_at")?, row.try_get::<String, _>("id").map_err(db_err)?)),
        None => None,
    };
    // A term is letters and digits (`boolean_expression`), so it holds no LIKE wildcard;
    // each is still a bound parameter. Spaces around both sides: whole stored terms only.
    let holds = vec!["CONCAT(' ', search_text, ' ') LIKE ?"; terms.len()].join(" OR ");
    let range = if end.is_some() { "AND (created_at > ? OR (created_at = ? AND id >= ?))" } else { "" };
    let statement = format!(
        "SELECT id, created_at, search_text FROM memory
         WHERE user_id = ? AND scope = ? {range} AND ({holds})
         ORDER BY created_at DESC, id DESC LIMIT ?"
    );
    // Built from the fixed fragments above, one per term: every value is bound.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement)).bind(user_id).bind(scope);
    if let Some((end_at, end_id)) = &end {
        query = query.bind(end_at.to_datetime()).bind(end_at.to_datetime()).bind(end_id);
    }
    for term in terms {
        query = query.bind(format!("% {term} %"));
    }
    let rows = query.bind(cap).fetch_all(&mut *conn).await.map_err(db_err)?;
    // Fewer than `cap` in a part of the bank: older rows may hold more.
    if end.is_some() && rows.len() < cap as usize {
        return Ok(None);
    }
    rows.iter().map(candidate_from_row).collect::<Result<Vec<_>, _>>().map(Some)
}

/// The bank's newest `cap` FULLTEXT matches that are `genuine`, newest first: pages of
/// `cap` until `cap` genuine ones, one page unless rows were dropped.
async fn ordered(
    conn: &mut MySqlConnection,
    bank: BankKey<'_>,
    expression: &str,
    cap: u32,
    genuine: impl Fn(&Candidate) -> bool,
) -> Result<Vec<Candidate>, StoreError> {
    let (user_id, scope) = (bank.owner(), bank.scope().as_str());
    let mut found = Vec::new();
    let mut after: Option<(Timestamp, String)> = None;
    loop {
        let page = match &after {
            None => sqlx::query(
                "SELECT id, created_at, search_text FROM memory
                 WHERE MATCH(search_text) AGAINST(? IN BOOLEAN MODE) AND user_id = ? AND scope = ?
                 ORDER BY created_at DESC, id DESC LIMIT ?",
            )
            .bind(expression)
            .bind(user_id)
            .bind(scope)
            .bind(cap),
            Some((created_at, id)) => sqlx::query(
                "SELECT id, created_at, search_text FROM memory
                 WHERE MATCH(search_text) AGAINST(? IN BOOLEAN MODE) AND user_id = ? AND scope = ?
                   AND (created_at < ? OR (created_at = ? AND id < ?))
                 ORDER BY created_at DESC, id DESC LIMIT ?",
            )
            .bind(expression)
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
