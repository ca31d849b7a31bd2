//! The `proposals` table: rows in and out, and the one conditional update that
//! decides a proposal (only a pending, unexpired one changes).

use memory_bank_contract::validate::Cursor;
use memory_bank_contract::wire::{MemoryVersion, Proposal, ProposalAction, ProposalStatus, ProposedContext};
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::parse_tags;
use memory_bank_store::StoreError;
use sqlx::sqlite::SqliteRow;
use sqlx::{SqliteConnection, SqlitePool};

use crate::rows::db_err;
use crate::rows::get as column;

/// Inserts `p` unless the user has `max_pending` pending, unexpired proposals: one
/// statement, which SQLite runs under its write lock, so the count and the insert cannot
/// interleave with another writer's. False when the cap held it back.
pub(crate) async fn insert(pool: &SqlitePool, user_id: &str, p: &Proposal, max_pending: u32) -> Result<bool, StoreError> {
    let tags = p.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    let contexts = serde_json::to_string(&p.contexts).map_err(|e| StoreError::Database(e.to_string()))?;
    let against = p.proposed_against.as_ref();
    let against_tags = against.and_then(|v| v.tags.as_ref()).map(|t| serde_json::Value::from(t.clone()).to_string());
    let inserted = sqlx::query(
        "INSERT INTO proposals (id, user_id, org_id, action, status, content, tags, contexts, memory_id, proposed_by,
                                created_at, expires_at, against_content, against_tags)
         SELECT ?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13
         WHERE (SELECT COUNT(*) FROM proposals WHERE user_id = ?2 AND status = 'pending' AND expires_at > ?10) < ?14",
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
    .bind(p.created_at.unix_ms())
    .bind(p.expires_at.unix_ms())
    .bind(against.map(|v| v.content.as_str()))
    .bind(against_tags)
    .bind(max_pending)
    .execute(pool)
    .await
    .map_err(db_err)?
    .rows_affected();
    Ok(inserted == 1)
}

/// Pending, unexpired proposals of every user: a range of the `proposals_pending` index
/// (`status`, `expires_at`), never the table's rows.
pub(crate) async fn count_pending(pool: &SqlitePool, now: Timestamp) -> Result<u64, StoreError> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM proposals WHERE status = 'pending' AND expires_at > ?1")
        .bind(now.unix_ms())
        .fetch_one(pool)
        .await
        .map_err(db_err)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

pub(crate) async fn get(pool: &SqlitePool, user_id: &str, id: &str) -> Result<Option<Proposal>, StoreError> {
    let row = sqlx::query(
        "SELECT id, org_id, action, status, content, tags, contexts, memory_id, proposed_by, created_at, expires_at, decided_at,
                against_content, against_tags
         FROM proposals WHERE id = ?1 AND user_id = ?2",
    )
    .bind(id)
    .bind(user_id)
    .fetch_optional(pool)
    .await
    .map_err(db_err)?;
    row.as_ref().map(from_row).transpose()
}

pub(crate) async fn list(
    pool: &SqlitePool,
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
    let rows = sqlx::query(
        "SELECT id, org_id, action, status, content, tags, contexts, memory_id, proposed_by, created_at, expires_at, decided_at,
                against_content, against_tags
         FROM proposals
         WHERE user_id = ?1
           AND (?2 IS NULL OR status = ?2)
           AND (?3 IS NULL OR (expires_at > ?4) = ?3)
           AND (?5 IS NULL OR (created_at, id) < (?5, ?6))
         ORDER BY created_at DESC, id DESC LIMIT ?7",
    )
        .bind(user_id)
        .bind(stored)
        .bind(live)
        .bind(now.unix_ms())
        .bind(cursor.map(|c| c.created_at_ms))
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
    tx: &mut SqliteConnection,
    user_id: &str,
    id: &str,
    status: &str,
    memory_id: Option<&str>,
    now: Timestamp,
) -> Result<bool, StoreError> {
    let changed = sqlx::query(
        "UPDATE proposals SET status = ?3, decided_at = ?4, memory_id = COALESCE(?5, memory_id)
         WHERE id = ?1 AND user_id = ?2 AND status = 'pending' AND expires_at > ?4",
    )
    .bind(id)
    .bind(user_id)
    .bind(status)
    .bind(now.unix_ms())
    .bind(memory_id)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?
    .rows_affected();
    Ok(changed == 1)
}

fn from_row(row: &SqliteRow) -> Result<Proposal, StoreError> {
    let contexts: String = column(row, "contexts")?;
    let contexts: Vec<ProposedContext> =
        serde_json::from_str(&contexts).map_err(|e| StoreError::Database(format!("a stored proposal's contexts: {e}")))?;
    let action: String = column(row, "action")?;
    let status: String = column(row, "status")?;
    let against_tags: Option<String> = column(row, "against_tags")?;
    Ok(Proposal {
        id: column(row, "id")?,
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
        content: column(row, "content")?,
        tags: parse_tags(column::<Option<String>>(row, "tags")?.as_deref()),
        contexts,
        memory_id: column(row, "memory_id")?,
        proposed_by: column(row, "proposed_by")?,
        org_id: column(row, "org_id")?,
        created_at: Timestamp::from_unix_ms(column(row, "created_at")?),
        expires_at: Timestamp::from_unix_ms(column(row, "expires_at")?),
        decided_at: column::<Option<i64>>(row, "decided_at")?.map(Timestamp::from_unix_ms),
        similar: Vec::new(),
        proposed_against: column::<Option<String>>(row, "against_content")?
            .map(|content| MemoryVersion { content, tags: parse_tags(against_tags.as_deref()) }),
        memory_now: None,
    })
}
