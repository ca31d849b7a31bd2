//! Offboarding a user or an org: see [`memory_bank_store::MemoryStore::offboard_start`].

use memory_bank_store::{Offboard, StoreError};
use sqlx::SqliteConnection;

use crate::rows::db_err;

pub(crate) async fn start(tx: &mut SqliteConnection, target: Offboard<'_>) -> Result<bool, StoreError> {
    let (exists, clear) = match target {
        Offboard::User(_) => ("SELECT count(*) FROM users WHERE id = ?1", "DELETE FROM api_tokens WHERE user_id = ?1"),
        Offboard::Org(_) => ("SELECT count(*) FROM orgs WHERE id = ?1", "DELETE FROM org_members WHERE org_id = ?1"),
    };
    let id = id_of(target);
    let found: i64 = sqlx::query_scalar(exists).bind(id).fetch_one(&mut *tx).await.map_err(db_err)?;
    if found == 0 {
        return Ok(false);
    }
    sqlx::query(clear).bind(id).execute(&mut *tx).await.map_err(db_err)?;
    Ok(true)
}

pub(crate) async fn memories(tx: &mut SqliteConnection, target: Offboard<'_>, batch: u32) -> Result<u64, StoreError> {
    let pick = match target {
        // A person's own memories go; those they saved to a team bank are the org's and stay.
        Offboard::User(_) => "SELECT seq, id FROM memory WHERE user_id = ?1 AND scope = 'user' LIMIT ?2",
        Offboard::Org(_) => "SELECT seq, id FROM memory WHERE org_id = ?1 LIMIT ?2",
    };
    let rows: Vec<(i64, String)> =
        sqlx::query_as(pick).bind(id_of(target)).bind(batch).fetch_all(&mut *tx).await.map_err(db_err)?;
    if rows.is_empty() {
        return Ok(0);
    }
    let seqs = serde_json::Value::from(rows.iter().map(|(seq, _)| *seq).collect::<Vec<_>>()).to_string();
    let ids = serde_json::Value::from(rows.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>()).to_string();
    for sql in [
        "DELETE FROM memory_context WHERE memory_id IN (SELECT value FROM json_each(?1))",
        "DELETE FROM memory_revision WHERE memory_id IN (SELECT value FROM json_each(?1))",
        "DELETE FROM memory_vector WHERE memory_id IN (SELECT value FROM json_each(?1))",
    ] {
        sqlx::query(sql).bind(&ids).execute(&mut *tx).await.map_err(db_err)?;
    }
    for sql in [
        "DELETE FROM memory_fts WHERE rowid IN (SELECT value FROM json_each(?1))",
        "DELETE FROM memory WHERE seq IN (SELECT value FROM json_each(?1))",
    ] {
        sqlx::query(sql).bind(&seqs).execute(&mut *tx).await.map_err(db_err)?;
    }
    Ok(rows.len() as u64)
}

pub(crate) async fn finish(tx: &mut SqliteConnection, target: Offboard<'_>) -> Result<(), StoreError> {
    let id = id_of(target);
    let (left, steps): (&'static str, &'static [&'static str]) = match target {
        Offboard::User(_) => (
            "SELECT count(*) FROM memory WHERE user_id = ?1 AND scope = 'user'",
            &[
                "DELETE FROM proposals WHERE user_id = ?1",
                "DELETE FROM memory_count WHERE user_id = ?1 AND scope = 'user'",
                "DELETE FROM api_tokens WHERE user_id = ?1",
                "DELETE FROM org_members WHERE user_id = ?1",
                "DELETE FROM users WHERE id = ?1",
            ],
        ),
        Offboard::Org(_) => (
            "SELECT count(*) FROM memory WHERE org_id = ?1",
            &[
                "DELETE FROM proposals WHERE org_id = ?1",
                "DELETE FROM memory_count WHERE user_id = ?1 AND scope = 'org'",
                "DELETE FROM org_members WHERE org_id = ?1",
                "DELETE FROM org_policy WHERE org_id = ?1",
                "DELETE FROM orgs WHERE id = ?1",
                // After the org: its log is append-only while the org exists.
                "DELETE FROM org_audit WHERE org_id = ?1",
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
