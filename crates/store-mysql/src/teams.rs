//! Members and roles, policy and the audit log of orgs (`memory_bank_store::TeamStore`).
//! A change of owners locks the org's owner rows first (`FOR UPDATE`), so two admins
//! demoting the last two owners at once cannot both succeed.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use memory_bank_contract::teams::{AuditAction, AuditEntry, NewAuditEntry, OrgMember, OrgPolicy, Role};
use memory_bank_contract::Timestamp;
use memory_bank_store::teams::{last_owner, MAX_AUDIT_PAGE};
use memory_bank_store::{StoreError, TeamStore};
use sqlx::mysql::MySqlRow;
use sqlx::{MySqlConnection, Row as _};

use crate::rows::{db_err, get, org_from_row, timestamp};
use memory_bank_contract::wire::Org;
use crate::MySqlStore;

fn at(ts: Timestamp) -> DateTime<Utc> {
    ts.to_datetime()
}

/// The role a member added without one gets: owner of an org that has none, else member.
pub(crate) async fn first_role(conn: &mut MySqlConnection, org_id: &str) -> Result<Role, StoreError> {
    let owner: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM org_members WHERE org_id = ? AND role = 'owner' LIMIT 1 FOR UPDATE")
            .bind(org_id)
            .fetch_optional(&mut *conn)
            .await
            .map_err(db_err)?;
    Ok(if owner.is_some() { Role::Member } else { Role::Owner })
}

/// Writes one audit line inside the caller's transaction (the change it records commits
/// with it, or neither does).
pub(crate) async fn append_audit(conn: &mut MySqlConnection, entry: &NewAuditEntry) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO org_audit (org_id, at, actor_id, action, memory_id, proposal_id, content_chars)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&entry.org_id)
    .bind(at(entry.at))
    .bind(&entry.actor_id)
    .bind(entry.action.as_str())
    .bind(&entry.memory_id)
    .bind(&entry.proposal_id)
    .bind(entry.content_chars)
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// The last-owner refusal, with the org's name read in the refusing transaction.
async fn last_owner_of(conn: &mut MySqlConnection, org_id: &str) -> Result<StoreError, StoreError> {
    let name: Option<String> = sqlx::query_scalar("SELECT name FROM orgs WHERE id = ?").bind(org_id).fetch_optional(&mut *conn).await.map_err(db_err)?;
    Ok(last_owner(name.as_deref()))
}

/// Locks the org's owner rows and says whether one other than `user_id` is among them.
async fn another_owner(conn: &mut MySqlConnection, org_id: &str, user_id: &str) -> Result<bool, StoreError> {
    let owners: Vec<String> = sqlx::query_scalar("SELECT user_id FROM org_members WHERE org_id = ? AND role = 'owner' FOR UPDATE")
        .bind(org_id)
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(owners.iter().any(|owner| owner != user_id))
}

async fn role_in(conn: &mut MySqlConnection, org_id: &str, user_id: &str, lock: bool) -> Result<Option<Role>, StoreError> {
    let sql = if lock {
        "SELECT CAST(role AS CHAR) FROM org_members WHERE org_id = ? AND user_id = ? FOR UPDATE"
    } else {
        "SELECT CAST(role AS CHAR) FROM org_members WHERE org_id = ? AND user_id = ?"
    };
    let role: Option<String> = sqlx::query_scalar(sql).bind(org_id).bind(user_id).fetch_optional(&mut *conn).await.map_err(db_err)?;
    role.map(|r| parse_role(&r)).transpose()
}

fn parse_role(text: &str) -> Result<Role, StoreError> {
    Role::parse(text).ok_or_else(|| StoreError::Database(format!("unknown role {text:?} in org_members")))
}

fn audit_from_row(row: &MySqlRow) -> Result<AuditEntry, StoreError> {
    let action: String = get(row, "action")?;
    let chars: Option<u32> = get(row, "content_chars")?;
    Ok(AuditEntry {
        seq: get(row, "seq")?,
        at: timestamp(row, "at")?,
        actor_id: get(row, "actor_id")?,
        action: AuditAction::parse(&action).ok_or_else(|| StoreError::Database(format!("unknown audit action {action:?}")))?,
        memory_id: get(row, "memory_id")?,
        proposal_id: get(row, "proposal_id")?,
        content_chars: chars,
    })
}

#[async_trait]
impl TeamStore for MySqlStore {
    async fn org(&self, org_id: &str) -> Result<Option<Org>, StoreError> {
        let row = sqlx::query("SELECT id, name, created_at FROM orgs WHERE id = ?").bind(org_id).fetch_optional(&self.pool).await.map_err(db_err)?;
        row.as_ref().map(org_from_row).transpose()
    }

    async fn member_role(&self, user_id: &str, org_id: &str) -> Result<Option<Role>, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        role_in(&mut conn, org_id, user_id, false).await
    }

    async fn set_member_role(&self, org_id: &str, user_id: &str, role: Role) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let Some(current) = role_in(&mut tx, org_id, user_id, true).await? else {
            return Err(StoreError::NotFound(format!("member {user_id} of {org_id}")));
        };
        if current == Role::Owner && role != Role::Owner && !another_owner(&mut tx, org_id, user_id).await? {
            return Err(last_owner_of(&mut tx, org_id).await?);
        }
        sqlx::query("UPDATE org_members SET role = ? WHERE org_id = ? AND user_id = ?")
            .bind(role.as_str())
            .bind(org_id)
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        tx.commit().await.map_err(db_err)
    }

    async fn remove_member(&self, org_id: &str, user_id: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let Some(current) = role_in(&mut tx, org_id, user_id, true).await? else {
            return Ok(false);
        };
        if current == Role::Owner && !another_owner(&mut tx, org_id, user_id).await? {
            return Err(last_owner_of(&mut tx, org_id).await?);
        }
        sqlx::query("DELETE FROM org_members WHERE org_id = ? AND user_id = ?")
            .bind(org_id)
            .bind(user_id)
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        tx.commit().await.map_err(db_err)?;
        Ok(true)
    }

    async fn org_members(&self, org_id: &str) -> Result<Vec<OrgMember>, StoreError> {
        let rows = sqlx::query(
            "SELECT m.user_id, u.email, CAST(m.role AS CHAR) AS role, m.created_at FROM org_members AS m
             JOIN users AS u ON u.id = m.user_id
             WHERE m.org_id = ?
             ORDER BY FIELD(m.role, 'owner', 'admin', 'member'), u.email, m.user_id",
        )
        .bind(org_id)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        rows.iter()
            .map(|row| {
                let role: String = get(row, "role")?;
                Ok(OrgMember {
                    user_id: get(row, "user_id")?,
                    email: get(row, "email")?,
                    role: parse_role(&role)?,
                    joined_at: timestamp(row, "created_at")?,
                })
            })
            .collect()
    }

    async fn member_access(&self, user_id: &str, org_id: &str) -> Result<Option<(Role, OrgPolicy)>, StoreError> {
        let row = sqlx::query(
            "SELECT CAST(m.role AS CHAR) AS role, p.memory_enabled, p.agents_may_propose, p.max_memories
             FROM org_members AS m LEFT JOIN org_policy AS p ON p.org_id = m.org_id
             WHERE m.org_id = ? AND m.user_id = ?",
        )
        .bind(org_id)
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_err)?;
        let Some(row) = row else { return Ok(None) };
        let role = parse_role(&row.try_get::<String, _>("role").map_err(db_err)?)?;
        // No policy row: the org never set one, so the defaults.
        let policy = match row.try_get::<Option<bool>, _>("memory_enabled").map_err(db_err)? {
            None => OrgPolicy::default(),
            Some(memory_enabled) => OrgPolicy {
                memory_enabled,
                agents_may_propose: row.try_get::<bool, _>("agents_may_propose").map_err(db_err)?,
                max_memories: row.try_get::<Option<u64>, _>("max_memories").map_err(db_err)?,
            },
        };
        Ok(Some((role, policy)))
    }

    async fn org_policy(&self, org_id: &str) -> Result<OrgPolicy, StoreError> {
        let row = sqlx::query("SELECT memory_enabled, agents_may_propose, max_memories FROM org_policy WHERE org_id = ?")
            .bind(org_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_err)?;
        let Some(row) = row else { return Ok(OrgPolicy::default()) };
        Ok(OrgPolicy {
            memory_enabled: row.try_get::<bool, _>("memory_enabled").map_err(db_err)?,
            agents_may_propose: row.try_get::<bool, _>("agents_may_propose").map_err(db_err)?,
            max_memories: row.try_get::<Option<u64>, _>("max_memories").map_err(db_err)?,
        })
    }

    async fn set_org_policy(&self, org_id: &str, policy: &OrgPolicy, now: Timestamp) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let org: Option<i32> = sqlx::query_scalar("SELECT 1 FROM orgs WHERE id = ?").bind(org_id).fetch_optional(&mut *tx).await.map_err(db_err)?;
        if org.is_none() {
            return Err(StoreError::NotFound(format!("org {org_id}")));
        }
        sqlx::query(
            "INSERT INTO org_policy (org_id, memory_enabled, agents_may_propose, max_memories, updated_at) VALUES (?, ?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE memory_enabled = VALUES(memory_enabled), agents_may_propose = VALUES(agents_may_propose),
               max_memories = VALUES(max_memories), updated_at = VALUES(updated_at)",
        )
        .bind(org_id)
        .bind(policy.memory_enabled)
        .bind(policy.agents_may_propose)
        .bind(policy.max_memories)
        .bind(at(now))
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
        tx.commit().await.map_err(db_err)
    }

    async fn org_audit(&self, org_id: &str, before: Option<i64>, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, at, actor_id, CAST(action AS CHAR) AS action, memory_id, proposal_id, content_chars FROM org_audit
             WHERE org_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
        )
        .bind(org_id)
        .bind(before.unwrap_or(i64::MAX))
        .bind(limit.min(MAX_AUDIT_PAGE))
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        rows.iter().map(audit_from_row).collect()
    }
}
