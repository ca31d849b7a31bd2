//! Members and roles, policy and the audit log of orgs (`memory_bank_store::TeamStore`).

use async_trait::async_trait;
use memory_bank_contract::teams::{AuditAction, AuditEntry, NewAuditEntry, OrgMember, OrgPolicy, Role};
use memory_bank_contract::Timestamp;
use memory_bank_store::teams::{last_owner, MAX_AUDIT_PAGE};
use memory_bank_store::{StoreError, TeamStore};
use rusqlite::OptionalExtension as _;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row as _, SqliteConnection};

use crate::rows::{db_err, get, org_from_row};
use memory_bank_contract::wire::Org;
use crate::SqliteStore;

/// A member's role (org `?1`, user `?2`) and their org's policy, `NULL`s when the org
/// never set one.
const MEMBER_ACCESS: &str = "SELECT m.role, p.memory_enabled, p.agents_may_propose, p.max_memories
     FROM org_members AS m LEFT JOIN org_policy AS p ON p.org_id = m.org_id
     WHERE m.org_id = ?1 AND m.user_id = ?2";

/// The role a member added without one gets: owner of an org that has none, else member.
pub(crate) async fn first_role(conn: &mut SqliteConnection, org_id: &str) -> Result<Role, StoreError> {
    let owner: Option<i64> = sqlx::query_scalar("SELECT 1 FROM org_members WHERE org_id = ?1 AND role = 'owner' LIMIT 1")
        .bind(org_id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db_err)?;
    Ok(if owner.is_some() { Role::Member } else { Role::Owner })
}

/// Writes one audit line inside the caller's transaction (the change it records commits
/// with it, or neither does).
pub(crate) async fn append_audit(conn: &mut SqliteConnection, entry: &NewAuditEntry) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO org_audit (org_id, at, actor_id, action, memory_id, proposal_id, content_chars)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .bind(&entry.org_id)
    .bind(entry.at.unix_ms())
    .bind(&entry.actor_id)
    .bind(entry.action.as_str())
    .bind(&entry.memory_id)
    .bind(&entry.proposal_id)
    .bind(entry.content_chars.map(i64::from))
    .execute(&mut *conn)
    .await
    .map_err(db_err)?;
    Ok(())
}

/// The last-owner refusal, with the org's name read in the refusing transaction.
async fn last_owner_of(conn: &mut SqliteConnection, org_id: &str) -> Result<StoreError, StoreError> {
    let name: Option<String> = sqlx::query_scalar("SELECT name FROM orgs WHERE id = ?1").bind(org_id).fetch_optional(&mut *conn).await.map_err(db_err)?;
    Ok(last_owner(name.as_deref()))
}

/// Whether the org would still have an owner once `user_id` is no longer one.
async fn another_owner(conn: &mut SqliteConnection, org_id: &str, user_id: &str) -> Result<bool, StoreError> {
    let other: Option<i64> =
        sqlx::query_scalar("SELECT 1 FROM org_members WHERE org_id = ?1 AND role = 'owner' AND user_id <> ?2 LIMIT 1")
            .bind(org_id)
            .bind(user_id)
            .fetch_optional(&mut *conn)
            .await
            .map_err(db_err)?;
    Ok(other.is_some())
}

async fn role_in(conn: &mut SqliteConnection, org_id: &str, user_id: &str) -> Result<Option<Role>, StoreError> {
    let role: Option<String> = sqlx::query_scalar("SELECT role FROM org_members WHERE org_id = ?1 AND user_id = ?2")
        .bind(org_id)
        .bind(user_id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(db_err)?;
    role.map(|r| parse_role(&r)).transpose()
}

fn parse_role(text: &str) -> Result<Role, StoreError> {
    Role::parse(text).ok_or_else(|| StoreError::Database(format!("unknown role {text:?} in org_members")))
}

fn audit_from_row(row: &SqliteRow) -> Result<AuditEntry, StoreError> {
    let action: String = get(row, "action")?;
    let chars: Option<i64> = get(row, "content_chars")?;
    Ok(AuditEntry {
        seq: get(row, "seq")?,
        at: Timestamp::from_unix_ms(get(row, "at")?),
        actor_id: get(row, "actor_id")?,
        action: AuditAction::parse(&action).ok_or_else(|| StoreError::Database(format!("unknown audit action {action:?}")))?,
        memory_id: get(row, "memory_id")?,
        proposal_id: get(row, "proposal_id")?,
        content_chars: chars.and_then(|n| u32::try_from(n).ok()),
    })
}

#[async_trait]
impl TeamStore for SqliteStore {
    async fn org(&self, org_id: &str) -> Result<Option<Org>, StoreError> {
        let row = sqlx::query("SELECT id, name, created_at FROM orgs WHERE id = ?1").bind(org_id).fetch_optional(&self.pool).await.map_err(db_err)?;
        row.as_ref().map(org_from_row).transpose()
    }

    async fn member_role(&self, user_id: &str, org_id: &str) -> Result<Option<Role>, StoreError> {
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        role_in(&mut conn, org_id, user_id).await
    }

    async fn set_member_role(&self, org_id: &str, user_id: &str, role: Role) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let Some(current) = role_in(&mut tx, org_id, user_id).await? else {
            return Err(StoreError::NotFound(format!("member {user_id} of {org_id}")));
        };
        if current == Role::Owner && role != Role::Owner && !another_owner(&mut tx, org_id, user_id).await? {
            return Err(last_owner_of(&mut tx, org_id).await?);
        }
        sqlx::query("UPDATE org_members SET role = ?3 WHERE org_id = ?1 AND user_id = ?2")
            .bind(org_id)
            .bind(user_id)
            .bind(role.as_str())
            .execute(&mut *tx)
            .await
            .map_err(db_err)?;
        tx.commit().await.map_err(db_err)
    }

    async fn remove_member(&self, org_id: &str, user_id: &str) -> Result<bool, StoreError> {
        let mut tx = self.begin_write().await?;
        let Some(current) = role_in(&mut tx, org_id, user_id).await? else {
            return Ok(false);
        };
        if current == Role::Owner && !another_owner(&mut tx, org_id, user_id).await? {
            return Err(last_owner_of(&mut tx, org_id).await?);
        }
        sqlx::query("DELETE FROM org_members WHERE org_id = ?1 AND user_id = ?2")
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
            "SELECT m.user_id, u.email, m.role, m.created_at FROM org_members AS m JOIN users AS u ON u.id = m.user_id
             WHERE m.org_id = ?1
             ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.email, m.user_id",
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
                    joined_at: Timestamp::from_unix_ms(get(row, "created_at")?),
                })
            })
            .collect()
    }

    async fn member_access(&self, user_id: &str, org_id: &str) -> Result<Option<(Role, OrgPolicy)>, StoreError> {
        // On a reader, as a search's statements are: every door's read checks it, a
        // search beside its own reads.
        let row = self
            .readers
            .read(|conn| {
                conn.prepare_cached(MEMBER_ACCESS)?
                    .query_row(rusqlite::params![org_id, user_id], |row| {
                        Ok((row.get::<_, String>(0)?, row.get::<_, Option<i64>>(1)?, row.get::<_, Option<i64>>(2)?, row.get::<_, Option<i64>>(3)?))
                    })
                    .optional()
            })
            .await?;
        let Some((role, memory_enabled, agents_may_propose, max_memories)) = row else { return Ok(None) };
        // No policy row: the org never set one, so the defaults.
        let policy = match memory_enabled {
            None => OrgPolicy::default(),
            Some(enabled) => OrgPolicy {
                memory_enabled: enabled != 0,
                agents_may_propose: agents_may_propose.unwrap_or(1) != 0,
                max_memories: max_memories.and_then(|n| u64::try_from(n).ok()),
            },
        };
        Ok(Some((parse_role(&role)?, policy)))
    }

    async fn org_policy(&self, org_id: &str) -> Result<OrgPolicy, StoreError> {
        let row = sqlx::query("SELECT memory_enabled, agents_may_propose, max_memories FROM org_policy WHERE org_id = ?1")
            .bind(org_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_err)?;
        let Some(row) = row else { return Ok(OrgPolicy::default()) };
        let max: Option<i64> = row.try_get("max_memories").map_err(db_err)?;
        Ok(OrgPolicy {
            memory_enabled: row.try_get::<i64, _>("memory_enabled").map_err(db_err)? != 0,
            agents_may_propose: row.try_get::<i64, _>("agents_may_propose").map_err(db_err)? != 0,
            max_memories: max.and_then(|n| u64::try_from(n).ok()),
        })
    }

    async fn set_org_policy(&self, org_id: &str, policy: &OrgPolicy, now: Timestamp) -> Result<(), StoreError> {
        let mut tx = self.begin_write().await?;
        let org: Option<i64> = sqlx::query_scalar("SELECT 1 FROM orgs WHERE id = ?1").bind(org_id).fetch_optional(&mut *tx).await.map_err(db_err)?;
        if org.is_none() {
            return Err(StoreError::NotFound(format!("org {org_id}")));
        }
        let max = policy.max_memories.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        sqlx::query(
            "INSERT INTO org_policy (org_id, memory_enabled, agents_may_propose, max_memories, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (org_id) DO UPDATE SET memory_enabled = excluded.memory_enabled,
               agents_may_propose = excluded.agents_may_propose, max_memories = excluded.max_memories, updated_at = excluded.updated_at",
        )
        .bind(org_id)
        .bind(policy.memory_enabled)
        .bind(policy.agents_may_propose)
        .bind(max)
        .bind(now.unix_ms())
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
        tx.commit().await.map_err(db_err)
    }

    async fn org_audit(&self, org_id: &str, before: Option<i64>, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, at, actor_id, action, memory_id, proposal_id, content_chars FROM org_audit
             WHERE org_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3",
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
