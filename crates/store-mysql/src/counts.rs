//! How many memories each bank holds, kept beside the rows (`memory_count`), so a
//! save's quota check reads a few rows instead of counting the bank.
//!
//! Why: InnoDB counts a bank by walking its index entries, about 0.2 µs each, so a save
//! to a bank of 10⁴ spent 1.8 ms of its 4 ms counting (BENCHMARKS.md, "A bank's size
//! for the quota"). An index on `(user_id, scope)` did not change that, and the
//! optimizer would not use it.
//!
//! The rule: every statement that inserts into or deletes from `memory` changes the
//! bank's count in the same transaction, through [`added`] or [`removed`] (the memory
//! id decides which of the bank's [`SHARDS`] rows). A bank's count is the sum of its
//! rows. Spread over several rows because two saves to one bank from two Galera nodes
//! that write the same row conflict, and one of them is rolled back; with eight, most
//! concurrent saves touch different rows, and the sum is the same whichever row each
//! changed.
//!
//! The migration that creates the table counts the rows already there. Memories an
//! older release still running writes after that (a rolling upgrade) are not counted,
//! so the bank layer counts again before it refuses anything ([`recount`]).

use std::collections::BTreeMap;

use memory_bank_store::{BankKey, StoreError};
use sqlx::{MySqlConnection, MySqlPool};

use crate::rows::db_err;

/// Rows per bank.
const SHARDS: u8 = 8;

/// A bank's row for the memory `id`: any row would keep the sum right; one spread by
/// id keeps concurrent saves apart.
fn shard(id: &str) -> u8 {
    (id.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))) % u32::from(SHARDS)) as u8
}

/// One memory row as its bank's count sees it: owner, scope (`user` or `org`), id.
pub(crate) type Counted<'a> = (&'a str, &'a str, &'a str);

/// Inside `tx`: the rows were inserted.
pub(crate) async fn added(tx: &mut MySqlConnection, rows: impl IntoIterator<Item = Counted<'_>>) -> Result<(), StoreError> {
    change(tx, rows, 1).await
}

/// Inside `tx`: the rows were deleted.
pub(crate) async fn removed(tx: &mut MySqlConnection, rows: impl IntoIterator<Item = Counted<'_>>) -> Result<(), StoreError> {
    change(tx, rows, -1).await
}

/// The changes per count row, in key order (concurrent batches lock rows in the same
/// order, so they queue instead of deadlocking).
fn deltas<'a>(rows: impl IntoIterator<Item = Counted<'a>>, by: i64) -> BTreeMap<(&'a str, &'a str, u8), i64> {
    let mut deltas = BTreeMap::new();
    for (user_id, scope, id) in rows {
        *deltas.entry((user_id, scope, shard(id))).or_insert(0) += by;
    }
    deltas.retain(|_, n| *n != 0);
    deltas
}

async fn change(tx: &mut MySqlConnection, rows: impl IntoIterator<Item = Counted<'_>>, by: i64) -> Result<(), StoreError> {
    let deltas = deltas(rows, by);
    if deltas.is_empty() {
        return Ok(());
    }
    // One row (a single save or delete): bound values. `JSON_TABLE` costs the server
    // about 0.07 ms more to parse one row, a tenth of a save.
    if let (1, Some(((user_id, scope, shard), n))) = (deltas.len(), deltas.iter().next()) {
        sqlx::query("INSERT INTO memory_count (user_id, scope, shard, n) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE n = memory_count.n + ?")
            .bind(*user_id)
            .bind(*scope)
            .bind(*shard)
            .bind(*n)
            .bind(*n)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        return Ok(());
    }
    let json: Vec<serde_json::Value> =
        deltas.iter().map(|((user_id, scope, shard), n)| serde_json::json!([user_id, scope, shard, n])).collect();
    sqlx::query(
        "INSERT INTO memory_count (user_id, scope, shard, n)
         SELECT j.user_id, j.scope, j.shard, j.n FROM JSON_TABLE(?, '$[*]' COLUMNS (
             user_id VARCHAR(64) PATH '$[0]', scope VARCHAR(8) PATH '$[1]', shard TINYINT UNSIGNED PATH '$[2]', n BIGINT PATH '$[3]')) AS j
         ON DUPLICATE KEY UPDATE n = memory_count.n + j.n",
    )
    .bind(serde_json::Value::from(json).to_string())
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// The bank's count as kept.
pub(crate) async fn read(pool: &MySqlPool, bank: BankKey<'_>) -> Result<u64, StoreError> {
    let n: Option<i64> = sqlx::query_scalar("SELECT CAST(SUM(n) AS SIGNED) FROM memory_count WHERE user_id = ? AND scope = ?")
        .bind(bank.owner())
        .bind(bank.scope().as_str())
        .fetch_one(pool)
        .await
        .map_err(db_err)?;
    Ok(n.unwrap_or(0).max(0).unsigned_abs())
}

/// The bank's rows counted one by one.
pub(crate) async fn recount(pool: &MySqlPool, bank: BankKey<'_>) -> Result<u64, StoreError> {
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM memory WHERE user_id = ? AND scope = ?")
        .bind(bank.owner())
        .bind(bank.scope().as_str())
        .fetch_one(pool)
        .await
        .map_err(db_err)?;
    Ok(n.max(0).unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_summed_per_count_row_and_spread_over_the_shards() {
        let ids: Vec<String> = (0..64).map(|i| format!("mem_{i:026}")).collect();
        let rows = ids.iter().map(|id| ("usr_a", "user", id.as_str()));
        let spread = deltas(rows.clone(), 1);
        assert_eq!(spread.values().sum::<i64>(), 64);
        assert_eq!(spread.len(), usize::from(SHARDS), "64 ids reach every row: {spread:?}");
        assert!(spread.keys().all(|(user, scope, shard)| (*user, *scope) == ("usr_a", "user") && *shard < SHARDS));
        assert_eq!(deltas(rows.chain([("usr_b", "org", ids[0].as_str())]), -1).values().sum::<i64>(), -65);
        assert!(deltas(std::iter::empty(), 1).is_empty());
    }
}
