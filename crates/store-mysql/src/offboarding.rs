//! Offboarding a user or an org: see [`memory_bank_store::MemoryStore::offboard_start`].

use memory_bank_store::{Offboard, StoreError};
use sqlx::{MySqlConnection, Row as _};

use crate::counts;
use crate::postings::{self, PostedRow};
use crate::rows::db_err;

pub(crate) async fn start(tx: &mut MySqlConnection, target: Offboard<'_>) -> Result<bool, StoreError> {
    let (exists, clear) = match target {
        Offboard::User(_) => ("SELECT count(*) FROM users WHERE id = ?", "DELETE FROM api_tokens WHERE user_id = ?"),
        Offboard::Org(_) => ("SELECT count(*) FROM orgs WHERE id = ?", "DELETE FROM org_members WHERE org_id = ?"),
    };
    let id = id_of(target);
    let found: i64 = sqlx::query_scalar(exists).bind(id).fetch_one(&mut *tx).await.map_err(db_err)?;
    if found == 0 {
        return Ok(false);
    }
    sqlx::query(clear).bind(id).execute(&mut *tx).await.map_err(db_err)?;
    Ok(true)
}

pub(crate) async fn memories(tx: &mut MySqlConnection, target: Offboard<'_>, batch: u32) -> Result<u64, StoreError> {
    // Locked, so a concurrent edit or delete of one of them waits for this batch.
    let pick = match target {
        // A person's own memories go; those they saved to a team bank are the org's and stay.
        Offboard::User(_) => "SELECT id, user_id, scope, created_at, search_text FROM memory WHERE user_id = ? AND scope = 'user' LIMIT ? FOR UPDATE",
        Offboard::Org(_) => "SELECT id, user_id, scope, created_at, search_text FROM memory WHERE org_id = ? LIMIT ? FOR UPDATE",
    };
    let found = sqlx::query(pick).bind(id_of(target)).bind(batch).fetch_all(&mut *tx).await.map_err(db_err)?;
    let rows = found.iter().map(PostedRow::from_row).collect::<Result<Vec<_>, _>>()?;
    if rows.is_empty() {
        return Ok(0);
    }
    let scopes = found.iter().map(|r| r.try_get::<String, _>("scope").map_err(db_err)).collect::<Result<Vec<_>, _>>()?;
    postings::remove(tx, &rows.iter().map(PostedRow::posted).collect::<Vec<_>>()).await?;
    counts::removed(tx, rows.iter().zip(&scopes).map(|(r, scope)| (r.user_id.as_str(), scope.as_str(), r.id.as_str()))).await?;
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let ids_json = serde_json::Value::from(ids.clone()).to_string();
    for sql in [
        "DELETE c FROM memory_context AS c JOIN JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j ON c.memory_id = j.wanted",
        "DELETE r FROM memory_revision AS r JOIN JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j ON r.memory_id = j.wanted",
        "DELETE v FROM memory_vector AS v JOIN JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j ON v.memory_id = j.wanted",
        "DELETE m FROM memory AS m JOIN JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j ON m.id = j.wanted",
    ] {
        sqlx::query(sql).bind(&ids_json).execute(&mut *tx).await.map_err(db_err)?;
    }
    Ok(ids.len() as u64)
}

pub(crate) async fn finish(tx: &mut MySqlConnection, target: Offboard<'_>) -> Result<(), StoreError> {
    let id = id_of(target);
    let (left, steps): (&'static str, &'static [&'static str]) = match target {
        Offboard::User(_) => (
            "SELECT count(*) FROM memory WHERE user_id = ? AND scope = 'user'",
            &[
                "DELETE FROM proposals WHERE user_id = ?",
                "DELETE FROM memory_count WHERE user_id = ? AND scope = 'user'",
                "DELETE FROM api_tokens WHERE user_id = ?",
                "DELETE FROM org_members WHERE user_id = ?",
                "DELETE FROM users WHERE id = ?",
            ],
        ),
        Offboard::Org(_) => (
            "SELECT count(*) FROM memory WHERE org_id = ?",
            &[
                "DELETE FROM proposals WHERE org_id = ?",
                "DELETE FROM memory_count WHERE user_id = ? AND scope = 'org'",
                "DELETE FROM org_members WHERE org_id = ?",
                "DELETE FROM org_policy WHERE org_id = ?",
                "DELETE FROM orgs WHERE id = ?",
                "DELETE FROM org_audit WHERE org_id = ?",
            ],
        ),
    };
    let remaining: i64 = sqlx::query_scalar(left).bind(id).fetch_one(&mut *tx).await.map_err(db_err)?;
    if remaining > 0 {
        return Err(StoreError::Conflict(format!("{remaining} memories are still there")));
    }
    for sql in steps.iter().copied() {
        sqlx::query(sql).bind(id).execute(&mut *tx).await.map_err(db_err)?;
    }
    Ok(())
}

fn id_of(target: Offboard<'_>) -> &str {
    match target {
        Offboard::User(id) | Offboard::Org(id) => id,
    }
}
