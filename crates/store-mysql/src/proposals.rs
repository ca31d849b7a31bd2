//! The `proposals` table: rows in and out, and the one conditional update that
//! decides a proposal (only a pending, unexpired one changes).

use chrono::{DateTime, Utc};
use memory_bank_contract::validate::Cursor;
use memory_bank_contract::wire::{MemoryVersion, Proposal, ProposalAction, ProposalStatus, ProposedContext};
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::parse_tags;
use memory_bank_store::StoreError;
use sqlx::mysql::MySqlRow;
use sqlx::{MySqlConnection, MySqlPool};

use crate::rows::{db_err, get, timestamp};

fn at(ts: Timestamp) -> DateTime<Utc> {
    ts.to_datetime()
}

/// Pending, unexpired proposals of every user: a range of the `proposals_pending` index
/// (`status`, `expires_at`), never the table's rows.
pub(crate) async fn count_pending(pool: &MySqlPool, now: Timestamp) -> Result<u64, StoreError> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM proposals WHERE status = 'pending' AND expires_at > ?")
        .bind(at(now))
        .fetch_one(pool)
        .await
        .map_err(db_err)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Inserts `p` unless the user has `max_pending` pending, unexpired proposals. The
/// user's row is locked first (`FOR UPDATE`), so two proposals of one person count and
/// insert one after the other; false when the cap held it back.
pub(crate) async fn insert(pool: &MySqlPool, user_id: &str, p: &Proposal, max_pending: u32) -> Result<bool, StoreError> {
    let tags = p.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    let contexts = serde_json::to_string(&p.contexts).map_err(|e| StoreError::Database(e.to_string()))?;
    let against = p.proposed_against.as_ref();
    let against_tags = against.and_then(|v| v.tags.as_ref()).map(|t| serde_json::Value::from(t.clone()).to_string());
    let mut tx = pool.begin().await.map_err(db_err)?;
    sqlx::query("SELECT id FROM users WHERE id = ? FOR UPDATE").bind(user_id).fetch_optional(&mut *tx).await.map_err(db_err)?;
    let pending: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM proposals WHERE user_id = ? AND status = 'pending' AND expires_at > ?",
    )
    .bind(user_id)
    .bind(at(p.created_at))
    .fetch_one(&mut *tx)
    .await
    .map_err(db_err)?;
    if pending >= i64::from(max_pending) {
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO proposals (id, user_id, org_id, action, status, content, tags, contexts, memory_id, proposed_by,
                                created_at, expires_at, against_content, against_tags)
         VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&p.id)
    .bind(user_id)
    .bind(&p.org_id)
    .bind(p.action.as_str())
    .bind(&p.content)
    .bind(tags)
    .bind(contexts)
    .bind(&p.memory_id)
    .bind(&p.proposed_by)
    .bind(at(p.created_at))
    .bind(at(p.expires_at))
    .bind(against.map(|v| v.content.as_str()))
    .bind(against_tags)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    tx.commit().await.map_err(db_err)?;
    Ok(true)
}

pub(crate) async fn get_proposal(pool: &MySqlPool, user_id: &str, id: &str) -> Result<Option<Proposal>, StoreError> {
    let row = sqlx::query(
        "SELECT id, org_id, CAST(action AS CHAR) AS action, CAST(status AS CHAR) AS status, content,
                CAST(tags AS CHAR) AS tags, CAST(contexts AS CHAR) AS contexts, memory_id, proposed_by,
                created_at, expires_at, decided_at, against_content, CAST(against_tags AS CHAR) AS against_tags
         FROM proposals WHERE id = ? AND user_id = ?",
    )
    .bind(id)
    .bind(user_id)
    .fetch_optional(pool)
    .await
    .map_err(db_err)?;
    row.as_ref().map(from_row).transpose()
}


pub(crate) async fn list(
    pool: &MySqlPool,
    user_id: &str,
    status: Option<ProposalStatus>,
    now: Timestamp,
    cursor: Option<&Cursor>,
    limit: u32,
) -> Result<Vec<Proposal>, StoreError> {
    // One statement for every filter: NULL parameters switch their condition off.
    let (stored, live): (Option<&str>, Option<bool>) = match status {
        None => (None, None),
        Some(ProposalStatus::Pending) => (Some("pending"), Some(true)),
        Some(ProposalStatus::Expired) => (Some("pending"), Some(false)),
        Some(ProposalStatus::Accepted) => (Some("accepted"), None),
        Some(ProposalStatus::Rejected) => (Some("rejected"), None),
    };
    let cursor_at = cursor.map(|c| at(Timestamp::from_unix_ms(c.created_at_ms)));
    let rows = sqlx::query(
        "SELECT id, org_id, CAST(action AS CHAR) AS action, CAST(status AS CHAR) AS status, content,
                CAST(tags AS CHAR) AS tags, CAST(contexts AS CHAR) AS contexts, memory_id, proposed_by,
                created_at, expires_at, decided_at, against_content, CAST(against_tags AS CHAR) AS against_tags
         FROM proposals
         WHERE user_id = ?
           AND (? IS NULL OR status = ?)
           AND (? IS NULL OR (expires_at > ?) = ?)
           AND (? IS NULL OR (created_at, id) < (?, ?))
         ORDER BY created_at DESC, id DESC LIMIT ?",
    )
    .bind(user_id)
    .bind(stored)
    .bind(stored)
    .bind(live)
    .bind(at(now))
    .bind(live)
    .bind(cursor_at)
    .bind(cursor_at)
    .bind(cursor.map(|c| c.id.as_str()))
    .bind(limit)
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    rows.iter().map(from_row).collect()
}

/// Marks a pending, unexpired proposal `status` (and records the memory it saved);
/// false when it was not pending any more.
pub(crate) async fn mark(
    tx: &mut MySqlConnection,
    user_id: &str,
    id: &str,
    status: &str,
    memory_id: Option<&str>,
    now: Timestamp,
) -> Result<bool, StoreError> {
    let changed = sqlx::query(
        "UPDATE proposals SET status = ?, decided_at = ?, memory_id = COALESCE(?, memory_id)
         WHERE id = ? AND user_id = ? AND status = 'pending' AND expires_at > ?",
    )
    .bind(status)
    .bind(at(now))
    .bind(memory_id)
    .bind(id)
    .bind(user_id)
    .bind(at(now))
    .execute(&mut *tx)
    .await
    .map_err(db_err)?
    .rows_affected();
    Ok(changed == 1)
}

fn from_row(row: &MySqlRow) -> Result<Proposal, StoreError> {
    let contexts: String = get(row, "contexts")?;
    let contexts: Vec<ProposedContext> =
        serde_json::from_str(&contexts).map_err(|e| StoreError::Database(format!("a stored proposal's contexts: {e}")))?;
    let action: String = get(row, "action")?;
    let status: String = get(row, "status")?;
    let decided: Option<DateTime<Utc>> = get(row, "decided_at")?;
    let against_tags: Option<String> = get(row, "against_tags")?;
    Ok(Proposal {
        id: get(row, "id")?,
        action: match action.as_str() {
            "delete" => ProposalAction::Delete,
            "edit" => ProposalAction::Edit,
            _ => ProposalAction::Save,
        },
        status: match status.as_str() {
            "accepted" => ProposalStatus::Accepted,
            "rejected" => ProposalStatus::Rejected,
            _ => ProposalStatus::Pending,
        },
        content: get(row, "content")?,
        tags: parse_tags(get::<Option<String>>(row, "tags")?.as_deref()),
        contexts,
        memory_id: get(row, "memory_id")?,
        proposed_by: get(row, "proposed_by")?,
        org_id: get(row, "org_id")?,
        created_at: timestamp(row, "created_at")?,
        expires_at: timestamp(row, "expires_at")?,
        decided_at: decided.map(Timestamp::from_datetime),
        similar: Vec::new(),
        proposed_against: get::<Option<String>>(row, "against_content")?
            .map(|content| MemoryVersion { content, tags: parse_tags(against_tags.as_deref()) }),
        memory_now: None,
    })
}
