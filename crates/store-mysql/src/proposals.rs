//! The `proposals` table: rows in and out, and the one conditional update that
//! decides a proposal (only a pending, unexpired one changes).

use chrono::{DateTime, Utc};
use memory_bank_contract::validate::Cursor;
use memory_bank_contract::wire::{MemoryVersion, Proposal, ProposalAction, ProposalStatus, ProposedContext, Scope};
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::parse_tags;
use memory_bank_store::{BankKey, Change, StoreError};
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

/// Inserts `p` into the Inbox of `by.bank` inside `tx` unless `by.actor` has
/// `max_pending` pending, unexpired proposals there. The proposer's row is locked first
/// (`FOR UPDATE`), so two proposals of one person count and insert one after the other;
/// false when the cap held it back.
pub(crate) async fn insert(tx: &mut MySqlConnection, by: Change<'_>, p: &Proposal, max_pending: u32) -> Result<bool, StoreError> {
    let tags = p.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    let contexts = serde_json::to_string(&p.contexts).map_err(|e| StoreError::Database(e.to_string()))?;
    let against = p.proposed_against.as_ref();
    let against_tags = against.and_then(|v| v.tags.as_ref()).map(|t| serde_json::Value::from(t.clone()).to_string());
    // A personal proposal's org is the one that was active; a team proposal's, its bank's.
    let org_id = match by.bank {
        BankKey::Personal(_) => p.org_id.as_str(),
        BankKey::Team(org_id) => org_id,
    };
    let scope = by.bank.scope().as_str();
    sqlx::query("SELECT id FROM users WHERE id = ? FOR UPDATE").bind(by.actor).fetch_optional(&mut *tx).await.map_err(db_err)?;
    let pending: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM proposals WHERE user_id = ? AND scope = ? AND (scope = 'user' OR org_id = ?)
           AND status = 'pending' AND expires_at > ?",
    )
    .bind(by.actor)
    .bind(scope)
    .bind(org_id)
    .bind(at(p.created_at))
    .fetch_one(&mut *tx)
    .await
    .map_err(db_err)?;
    if pending >= i64::from(max_pending) {
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO proposals (id, user_id, org_id, action, status, content, tags, contexts, memory_id, proposed_by,
                                created_at, expires_at, against_content, against_tags, scope)
         VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&p.id)
    .bind(by.actor)
    .bind(org_id)
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
    .bind(scope)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    Ok(true)
}

/// The columns every read of a proposal takes, before its `WHERE`.
macro_rules! select_proposals {
    ($($rest:tt)*) => {
        concat!(
            "SELECT id, user_id, CAST(scope AS CHAR) AS scope, org_id, CAST(action AS CHAR) AS action,
                    CAST(status AS CHAR) AS status, content, CAST(tags AS CHAR) AS tags, CAST(contexts AS CHAR) AS contexts,
                    memory_id, proposed_by, created_at, expires_at, decided_at, against_content,
                    CAST(against_tags AS CHAR) AS against_tags
             FROM proposals ",
            $($rest)*
        )
    };
}

/// The rows of a bank's Inbox, for statements that find one row by id (its primary
/// key), binding the bank's scope, owner, scope again and owner again. A person's Inbox
/// holds what was proposed to their own bank; an org's, what was proposed to its team bank.
macro_rules! in_inbox {
    () => {
        "((? = 'user' AND scope = 'user' AND user_id = ?) OR (? = 'org' AND scope = 'org' AND org_id = ?))"
    };
}

pub(crate) async fn get_proposal(pool: &MySqlPool, bank: BankKey<'_>, id: &str) -> Result<Option<Proposal>, StoreError> {
    let (scope, owner) = (bank.scope().as_str(), bank.owner());
    let row = sqlx::query(select_proposals!("WHERE id = ? AND ", in_inbox!()))
        .bind(id)
        .bind(scope)
        .bind(owner)
        .bind(scope)
        .bind(owner)
        .fetch_optional(pool)
        .await
        .map_err(db_err)?;
    row.as_ref().map(from_row).transpose()
}

/// One page of an Inbox, newest first, whose rows `$inbox` picks: one statement for
/// every filter (NULL parameters switch their condition off).
macro_rules! inbox_page {
    ($inbox:literal) => {
        select_proposals!(
            "WHERE ", $inbox,
            " AND (? IS NULL OR status = ?)
              AND (? IS NULL OR (expires_at > ?) = ?)
              AND (? IS NULL OR (created_at, id) < (?, ?))
             ORDER BY created_at DESC, id DESC LIMIT ?"
        )
    };
}

pub(crate) async fn list(
    pool: &MySqlPool,
    bank: BankKey<'_>,
    proposer: Option<&str>,
    status: Option<ProposalStatus>,
    now: Timestamp,
    cursor: Option<&Cursor>,
    limit: u32,
) -> Result<Vec<Proposal>, StoreError> {
    let (stored, live): (Option<&str>, Option<bool>) = match status {
        None => (None, None),
        Some(ProposalStatus::Pending) => (Some("pending"), Some(true)),
        Some(ProposalStatus::Expired) => (Some("pending"), Some(false)),
        Some(ProposalStatus::Accepted) => (Some("accepted"), None),
        Some(ProposalStatus::Rejected) => (Some("rejected"), None),
    };
    let cursor_at = cursor.map(|c| at(Timestamp::from_unix_ms(c.created_at_ms)));
    // Each Inbox walks its own key: a person's `(user_id, status, created_at, id)`, an
    // org's `(org_id, scope, status, created_at, id)`; one proposer's share of an org's (a
    // team proposal's `user_id` is its proposer) walks the person's.
    let (sql, proposer) = match (bank, proposer) {
        (BankKey::Personal(_), _) => (inbox_page!("user_id = ? AND scope = 'user'"), None),
        (BankKey::Team(_), None) => (inbox_page!("org_id = ? AND scope = 'org'"), None),
        (BankKey::Team(_), Some(by)) => (inbox_page!("org_id = ? AND user_id = ? AND scope = 'org'"), Some(by)),
    };
    let mut query = sqlx::query(sql).bind(bank.owner());
    if let Some(by) = proposer {
        query = query.bind(by);
    }
    let rows = query
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
    bank: BankKey<'_>,
    id: &str,
    status: &str,
    memory_id: Option<&str>,
    now: Timestamp,
) -> Result<bool, StoreError> {
    let (scope, owner) = (bank.scope().as_str(), bank.owner());
    let changed = sqlx::query(concat!(
        "UPDATE proposals SET status = ?, decided_at = ?, memory_id = COALESCE(?, memory_id)
         WHERE id = ? AND status = 'pending' AND expires_at > ? AND ",
        in_inbox!()
    ))
    .bind(status)
    .bind(at(now))
    .bind(memory_id)
    .bind(id)
    .bind(at(now))
    .bind(scope)
    .bind(owner)
    .bind(scope)
    .bind(owner)
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
    let scope = if get::<String>(row, "scope")? == "org" { Scope::Org } else { Scope::User };
    Ok(Proposal {
        scope,
        proposer: if scope == Scope::Org { Some(get(row, "user_id")?) } else { None },
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
