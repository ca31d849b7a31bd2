//! The `proposals` table: rows in and out, and the one conditional update that
//! decides a proposal (only a pending, unexpired one changes).

use memory_bank_contract::validate::Cursor;
use memory_bank_contract::wire::{MemoryVersion, Proposal, ProposalAction, ProposalStatus, ProposedContext, Scope};
use memory_bank_contract::Timestamp;
use memory_bank_store::stored::parse_tags;
use memory_bank_store::{BankKey, Change, StoreError};
use sqlx::sqlite::SqliteRow;
use sqlx::{SqliteConnection, SqlitePool};

use crate::rows::db_err;
use crate::rows::get as column;

/// Inserts `p` into the Inbox of `by.bank` inside `tx` unless `by.actor` has
/// `max_pending` pending, unexpired proposals there: one statement, which SQLite runs
/// under its write lock, so the count and the insert cannot interleave with another
/// writer's. False when the cap held it back.
pub(crate) async fn insert(tx: &mut SqliteConnection, by: Change<'_>, p: &Proposal, max_pending: u32) -> Result<bool, StoreError> {
    let tags = p.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    let contexts = serde_json::to_string(&p.contexts).map_err(|e| StoreError::Database(e.to_string()))?;
    let against = p.proposed_against.as_ref();
    let against_tags = against.and_then(|v| v.tags.as_ref()).map(|t| serde_json::Value::from(t.clone()).to_string());
    // A personal proposal's org is the one that was active; a team proposal's, its bank's.
    let org_id = match by.bank {
        BankKey::Personal(_) => p.org_id.as_str(),
        BankKey::Team(org_id) => org_id,
    };
    let inserted = sqlx::query(
        "INSERT INTO proposals (id, user_id, org_id, action, status, content, tags, contexts, memory_id, proposed_by,
                                created_at, expires_at, against_content, against_tags, scope)
         SELECT ?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?15
         WHERE (SELECT COUNT(*) FROM proposals WHERE user_id = ?2 AND scope = ?15 AND (?15 = 'user' OR org_id = ?3)
                AND status = 'pending' AND expires_at > ?10) < ?14",
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
    .bind(p.created_at.unix_ms())
    .bind(p.expires_at.unix_ms())
    .bind(against.map(|v| v.content.as_str()))
    .bind(against_tags)
    .bind(max_pending)
    .bind(by.bank.scope().as_str())
    .execute(&mut *tx)
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

/// The columns every read of a proposal takes, before its `WHERE`.
macro_rules! select_proposals {
    ($($rest:tt)*) => {
        concat!(
            "SELECT id, user_id, scope, org_id, action, status, content, tags, contexts, memory_id, proposed_by,
                    created_at, expires_at, decided_at, against_content, against_tags
             FROM proposals ",
            $($rest)*
        )
    };
}

/// The rows of a bank's Inbox, for statements that find one row by id (its primary
/// key): `$scope` is the parameter holding the bank's scope, `$owner` its owner's. A person's Inbox holds what was
/// proposed to their own bank; an org's, what was proposed to its team bank.
macro_rules! in_inbox {
    ($scope:literal, $owner:literal) => {
        concat!(
            "((", $scope, " = 'user' AND scope = 'user' AND user_id = ", $owner, ") OR (",
            $scope, " = 'org' AND scope = 'org' AND org_id = ", $owner, "))"
        )
    };
}

pub(crate) async fn get(pool: &SqlitePool, bank: BankKey<'_>, id: &str) -> Result<Option<Proposal>, StoreError> {
    let row = sqlx::query(select_proposals!(concat!("WHERE id = ?1 AND ", in_inbox!("?2", "?3"))))
        .bind(id)
        .bind(bank.scope().as_str())
        .bind(bank.owner())
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
            " AND (?2 IS NULL OR status = ?2)
              AND (?3 IS NULL OR (expires_at > ?4) = ?3)
              AND (?5 IS NULL OR (created_at, id) < (?5, ?6))
             ORDER BY created_at DESC, id DESC LIMIT ?7"
        )
    };
}

pub(crate) async fn list(
    pool: &SqlitePool,
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
    // Each Inbox walks its own index: a person's `(user_id, status, created_at, id)`, an
    // org's the partial `(org_id, status, created_at, id) WHERE scope = 'org'`; one
    // proposer's share of an org's (a team proposal's `user_id` is its proposer) walks the person's.
    let (sql, proposer) = match (bank, proposer) {
        (BankKey::Personal(_), _) => (inbox_page!("user_id = ?1 AND scope = 'user'"), None),
        (BankKey::Team(_), None) => (inbox_page!("org_id = ?1 AND scope = 'org'"), None),
        (BankKey::Team(_), Some(by)) => (inbox_page!("user_id = ?8 AND scope = 'org' AND org_id = ?1"), Some(by)),
    };
    let mut query = sqlx::query(sql)
        .bind(bank.owner())
        .bind(stored)
        .bind(live)
        .bind(now.unix_ms())
        .bind(cursor.map(|c| c.created_at_ms))
        .bind(cursor.map(|c| c.id.as_str()))
        .bind(limit);
    if let Some(by) = proposer {
        query = query.bind(by);
    }
    let rows = query
        .fetch_all(pool)
        .await
        .map_err(db_err)?;
    rows.iter().map(from_row).collect()
}

/// Marks a pending, unexpired proposal `status` (and records the memory it saved);
/// false when it was not pending any more.
pub(crate) async fn mark(
    tx: &mut SqliteConnection,
    bank: BankKey<'_>,
    id: &str,
    status: &str,
    memory_id: Option<&str>,
    now: Timestamp,
) -> Result<bool, StoreError> {
    let changed = sqlx::query(concat!(
        "UPDATE proposals SET status = ?3, decided_at = ?4, memory_id = COALESCE(?5, memory_id)
         WHERE id = ?1 AND status = 'pending' AND expires_at > ?4 AND ",
        in_inbox!("?6", "?2")
    ))
    .bind(id)
    .bind(bank.owner())
    .bind(status)
    .bind(now.unix_ms())
    .bind(memory_id)
    .bind(bank.scope().as_str())
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
    let scope = if column::<String>(row, "scope")? == "org" { Scope::Org } else { Scope::User };
    Ok(Proposal {
        scope,
        proposer: if scope == Scope::Org { Some(column(row, "user_id")?) } else { None },
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
