//! [`MemoryStore`] for MySQL/MariaDB. Every value is a bound parameter; every
//! memory read and delete filters on owner and scope (a [`BankKey`]).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use memory_bank_contract::teams::Role;
use memory_bank_contract::transfer::{ExportedRevision, OnConflict};
use memory_bank_contract::validate::Cursor;
use memory_bank_contract::wire::{Memory, Org, Proposal, ProposalStatus, User};
use memory_bank_contract::Timestamp;
use memory_bank_contract::teams::{AuditAction, NewAuditEntry};
use memory_bank_store::teams::{change_entry, chars, proposed_entry};
use memory_bank_store::{
    BankKey, Candidate, Change, Decision, EnsureOutcome, ImportOutcome, ImportRow, MemoryStore, MemoryUpdate, NewMemory, Offboard, OptimizeOutcome, StoreError, TermsProgress, TermsRewrite, TermsSource, TokenKind, TokenOwner, StoredVector, VectorRow, VectorSummary, RowKey, TermRows, Worded,
};
use sqlx::{MySqlConnection, Row as _};

use crate::delete::delete_in;
use crate::rows::{
    attach_contexts, db_err, memories_from_joined_rows, memory_columns, memory_from_row, memory_with_context_columns, org,
    org_from_row, user_from_row,
};
use crate::postings::{self, Posted};
use crate::contention::{again_while_contended, WRITE};
use crate::saves::OpenSave;
use crate::{counts, offboarding, proposals, revisions, schema, search, search_terms, teams, transfer, vectors, MySqlStore};

/// Writes `entry` (a team bank's change; `None` for a personal bank) inside `tx`.
async fn audit_if_team(tx: &mut MySqlConnection, entry: Option<NewAuditEntry>) -> Result<(), StoreError> {
    match entry {
        Some(entry) => teams::append_audit(tx, &entry).await,
        None => Ok(()),
    }
}

fn at(ts: Timestamp) -> DateTime<Utc> {
    ts.to_datetime()
}

/// Inside `tx`: the memory with its contexts and its postings.
async fn insert_one(tx: &mut MySqlConnection, memory: &NewMemory) -> Result<(), StoreError> {
    insert_row(tx, memory).await?;
    postings::add(tx, &[posted(memory)]).await?;
    counts::added(tx, [counted(memory)]).await
}

fn counted(memory: &NewMemory) -> counts::Counted<'_> {
    (&memory.user_id, memory.scope.as_str(), &memory.id)
}

fn posted(memory: &NewMemory) -> Posted<'_> {
    Posted { user_id: &memory.user_id, created_at: memory.created_at, id: &memory.id, search_text: &memory.search_text }
}

/// Inside `tx`: the memory and its contexts, without postings or its bank's count (the
/// caller writes them). Refused while its org has memory turned off: the insert reads
/// the kill switch itself (a shared lock on the policy row until the commit), so a save
/// is either before the switch or refused, and costs no round trip of its own.
async fn insert_row(tx: &mut MySqlConnection, memory: &NewMemory) -> Result<(), StoreError> {
    let tags = memory.tags.as_ref().map(|t| serde_json::Value::from(t.clone()).to_string());
    let inserted = sqlx::query(
        "INSERT INTO memory (id, user_id, org_id, scope, content, source, tags, search_text, created_at, updated_at,
                             confirmed_via, proposed_by, saved_by, confirmed_by)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM DUAL
         WHERE NOT EXISTS (SELECT 1 FROM org_policy WHERE org_id = ? AND NOT memory_enabled)",
    )
    .bind(&memory.id)
    .bind(&memory.user_id)
    .bind(&memory.org_id)
    .bind(memory.scope.as_str())
    .bind(&memory.content)
    .bind(&memory.source)
    .bind(tags)
    .bind(&memory.search_text)
    .bind(at(memory.created_at))
    .bind(at(memory.created_at))
    .bind(memory.confirmed_via.map(|v| v.as_str()))
    .bind(&memory.proposed_by)
    .bind(&memory.saved_by)
    .bind(&memory.confirmed_by)
    .bind(&memory.org_id)
    .execute(&mut *tx)
    .await
    .map_err(db_err)?;
    if inserted.rows_affected() == 0 {
        return Err(StoreError::TeamRefused(memory_bank_contract::teams::TeamRefusal::OrgMemoryDisabled));
    }
    for context in &memory.contexts {
        let citation = match &context.citation {
            Some(c) => {
                Some(serde_json::to_string(c).map_err(|e| StoreError::Invalid(e.to_string()))?)
            }
            None => None,
        };
        sqlx::query(
            "INSERT INTO memory_context (id, memory_id, citation, snippet, origin, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&context.id)
        .bind(&memory.id)
        .bind(citation)
        .bind(&context.snippet)
        .bind(context.origin.map(|o| o.as_str()))
        .bind(at(memory.created_at))
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
    }
    if let Some(entry) = memory_bank_store::teams::saved_entry(memory) {
        crate::teams::append_audit(tx, &entry).await?;
    }
    Ok(())
}

impl MySqlStore {
    /// `memory` written in a save's transaction (see `saves`), not yet committed; rolled
    /// back when it fails.
    async fn save_uncommitted(&self, memory: &NewMemory) -> Result<OpenSave, StoreError> {
        let mut save = OpenSave::begin(&self.saves).await?;
        match insert_one(save.conn()?, memory).await {
            Ok(()) => Ok(save),
            Err(failed) => {
                save.abandon().await;
                Err(failed)
            }
        }
    }
}

#[async_trait]
impl MemoryStore for MySqlStore {
    fn backend(&self) -> &'static str {
        "mysql"
    }

    async fn ping(&self) -> Result<(), StoreError> {
        // A table, not `SELECT 1`: a Galera node cut off from the Primary component
        // answers `SELECT 1` but refuses every table (1047, Unavailable), and /healthz
        // must say so for a load balancer to take its instance out.
        sqlx::query("SELECT 1 FROM users LIMIT 1").execute(&self.pool).await.map_err(db_err).map(drop)
    }

    async fn migrate(&self) -> Result<EnsureOutcome, StoreError> {
        let outcome = schema::migrate(&self.pool).await?;
        self.rebuild_unencrypted_tables().await?;
        Ok(outcome)
    }

    async fn ensure_search_index(&self) -> Result<EnsureOutcome, StoreError> {
        postings::ensure(&self.pool).await
    }

    async fn search_index_exists(&self) -> Result<bool, StoreError> {
        postings::exists(&self.pool).await
    }

    async fn optimize_search_index(&self) -> Result<OptimizeOutcome, StoreError> {
        schema::optimize(&self.pool).await
    }

    async fn search_index_bytes(&self) -> Result<Option<u64>, StoreError> {
        postings::index_bytes(&self.pool).await
    }

    async fn create_user(&self, id: &str, email: &str, now: Timestamp) -> Result<User, StoreError> {
        sqlx::query("INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)")
            .bind(id)
            .bind(email)
            .bind(at(now))
            .execute(&self.pool)
            .await
            .map_err(|e| match db_err(e) {
                StoreError::Conflict(_) => {
                    StoreError::Conflict(format!("a user with email {email} already exists"))
                }
                other => other,
            })?;
        Ok(User { id: id.to_owned(), email: email.to_owned(), created_at: now })
    }

    async fn list_users(&self) -> Result<Vec<User>, StoreError> {
        let rows = sqlx::query("SELECT id, email, created_at FROM users ORDER BY created_at, id")
            .fetch_all(&self.pool)
            .await
            .map_err(db_err)?;
        rows.iter().map(user_from_row).collect()
    }

    async fn create_org(&self, id: &str, name: &str, now: Timestamp) -> Result<Org, StoreError> {
        sqlx::query("INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?)")
            .bind(id)
            .bind(name)
            .bind(at(now))
            .execute(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(org(id, name, now))
    }

    async fn add_member(&self, org_id: &str, user_id: &str, role: Option<Role>, now: Timestamp) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let org: Option<i32> = sqlx::query_scalar("SELECT 1 FROM orgs WHERE id = ?").bind(org_id).fetch_optional(&mut *tx).await.map_err(db_err)?;
        if org.is_none() {
            return Err(StoreError::NotFound(format!("org {org_id}")));
        }
        let user: Option<i32> = sqlx::query_scalar("SELECT 1 FROM users WHERE id = ?").bind(user_id).fetch_optional(&mut *tx).await.map_err(db_err)?;
        if user.is_none() {
            return Err(StoreError::NotFound(format!("user {user_id}")));
        }
        let role = match role {
            Some(role) => role,
            None => teams::first_role(&mut tx, org_id).await?,
        };
        // Not INSERT IGNORE: that would also swallow unrelated errors as warnings.
        sqlx::query(
            "INSERT INTO org_members (org_id, user_id, created_at, role) VALUES (?, ?, ?, ?)
             ON DUPLICATE KEY UPDATE org_id = org_id",
        )
        .bind(org_id)
        .bind(user_id)
        .bind(at(now))
        .bind(role.as_str())
        .execute(&mut *tx)
        .await
        .map_err(db_err)?;
        tx.commit().await.map_err(db_err)
    }

    async fn user_orgs(&self, user_id: &str) -> Result<Vec<Org>, StoreError> {
        let rows = sqlx::query(
            "SELECT o.id, o.name, o.created_at FROM orgs o JOIN org_members m ON m.org_id = o.id
             WHERE m.user_id = ? ORDER BY o.name, o.id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        rows.iter().map(org_from_row).collect()
    }

    async fn is_member(&self, user_id: &str, org_id: &str) -> Result<bool, StoreError> {
        let found: Option<i32> = sqlx::query_scalar("SELECT 1 FROM org_members WHERE user_id = ? AND org_id = ?")
            .bind(user_id)
            .bind(org_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(db_err)?;
        Ok(found.is_some())
    }

    async fn insert_token(
        &self,
        id: &str,
        user_id: &str,
        token_hash: &str,
        kind: TokenKind,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let inserted = sqlx::query(
            "INSERT INTO api_tokens (id, user_id, token_hash, created_at, kind) SELECT ?, id, ?, ?, ? FROM users WHERE id = ?",
        )
        .bind(id)
        .bind(token_hash)
        .bind(at(now))
        .bind(kind.as_str())
        .bind(user_id)
        .execute(&self.pool)
        .await
        .map_err(db_err)?
        .rows_affected();
        if inserted == 0 {
            return Err(StoreError::NotFound(format!("user {user_id}")));
        }
        Ok(())
    }

    async fn revoke_token(&self, token_hash: &str, now: Timestamp) -> Result<bool, StoreError> {
        let changed = sqlx::query(
            "UPDATE api_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL",
        )
        .bind(at(now))
        .bind(token_hash)
        .execute(&self.pool)
        .await
        .map_err(db_err)?
        .rows_affected();
        Ok(changed > 0)
    }

    async fn revoke_tokens_of_kind(
        &self,
        user_id: &str,
        kind: TokenKind,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let changed = sqlx::query("UPDATE api_tokens SET revoked_at = ? WHERE user_id = ? AND kind = ? AND revoked_at IS NULL")
            .bind(at(now))
            .bind(user_id)
            .bind(kind.as_str())
            .execute(&self.pool)
            .await
            .map_err(db_err)?
            .rows_affected();
        Ok(changed)
    }

    async fn token_owner(&self, token_hash: &str) -> Result<Option<TokenOwner>, StoreError> {
        let row = sqlx::query(
            "SELECT u.id, u.email, u.created_at, t.id AS token_id, CAST(t.kind AS CHAR) AS kind FROM api_tokens t
             JOIN users u ON u.id = t.user_id
             WHERE t.token_hash = ? AND t.revoked_at IS NULL",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await
        .map_err(db_err)?;
        let Some(row) = row else { return Ok(None) };
        let kind: String = row.try_get("kind").map_err(db_err)?;
        Ok(Some(TokenOwner {
            token_id: row.try_get("token_id").map_err(db_err)?,
            user: user_from_row(&row)?,
            kind: TokenKind::from_stored(&kind),
        }))
    }

    async fn insert_memory(&self, memory: &NewMemory) -> Result<(), StoreError> {
        again_while_contended(WRITE, || async move { self.save_uncommitted(memory).await?.commit().await }).await
    }

    async fn insert_memory_checked(&self, memory: &NewMemory, checks: memory_bank_store::SaveChecks<'_>) -> Result<(), StoreError> {
        // The checks read on other connections while this one writes; it commits only
        // once they passed.
        let (written, checked) = tokio::join!(self.save_uncommitted(memory), checks);
        match (written, checked) {
            (Err(refused @ StoreError::TeamRefused(_)), _) => Err(refused),
            (Ok(save), Err(refused)) => {
                save.abandon().await;
                Err(refused)
            }
            (Err(_), Err(refused)) => Err(refused),
            (Ok(save), Ok(())) => match save.commit().await {
                Err(StoreError::Contended(_)) => self.insert_memory(memory).await,
                committed => committed,
            },
            // Rolled back for a conflict: again, as `insert_memory` runs it.
            (Err(StoreError::Contended(_)), Ok(())) => self.insert_memory(memory).await,
            (Err(failed), Ok(())) => Err(failed),
        }
    }

    async fn insert_memories(&self, memories: &[NewMemory]) -> Result<(), StoreError> {
        again_while_contended(WRITE, || async move {
            let mut tx = self.pool.begin().await.map_err(db_err)?;
            for memory in memories {
                insert_row(&mut tx, memory).await?;
            }
            // The postings of the whole batch in a few statements, not one per memory.
            postings::add(&mut tx, &memories.iter().map(posted).collect::<Vec<_>>()).await?;
            counts::added(&mut tx, memories.iter().map(counted)).await?;
            tx.commit().await.map_err(db_err)
        })
        .await
    }

    async fn count_memories(&self, bank: BankKey<'_>) -> Result<u64, StoreError> {
        counts::read(&self.pool, bank).await
    }

    async fn recount_memories(&self, bank: BankKey<'_>) -> Result<u64, StoreError> {
        counts::recount(&self.pool, bank).await
    }

    async fn list_memories(&self, bank: BankKey<'_>, cursor: Option<&Cursor>, limit: u32) -> Result<Vec<Memory>, StoreError> {
        let (user_id, scope) = (bank.owner(), bank.scope().as_str());
        // One connection for the page and its contexts: one pool checkout (and its
        // liveness ping) per request instead of two.
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        let rows = match cursor {
            None => sqlx::query(concat!(
                "SELECT ",
                memory_columns!(),
                " FROM memory WHERE user_id = ? AND scope = ? ORDER BY created_at DESC, id DESC LIMIT ?"
            ))
            .bind(user_id)
            .bind(scope)
            .bind(limit),
            // Spelled out rather than a row comparison `(created_at, id) < (?, ?)`, which
            // MariaDB does not turn into a range on the (user_id, created_at, id) key.
            Some(cursor) => sqlx::query(concat!(
                "SELECT ",
                memory_columns!(),
                " FROM memory WHERE user_id = ? AND scope = ? AND (created_at < ? OR (created_at = ? AND id < ?))
                  ORDER BY created_at DESC, id DESC LIMIT ?"
            ))
            .bind(user_id)
            .bind(scope)
            .bind(at(Timestamp::from_unix_ms(cursor.created_at_ms)))
            .bind(at(Timestamp::from_unix_ms(cursor.created_at_ms)))
            .bind(&cursor.id)
            .bind(limit),
        }
        .fetch_all(&mut *conn)
        .await
        .map_err(db_err)?;
        let memories = rows.iter().map(memory_from_row).collect::<Result<Vec<_>, _>>()?;
        attach_contexts(&mut conn, memories).await
    }

    async fn search_candidates(&self, bank: BankKey<'_>, scoped_terms: &[String], cap: u32) -> Result<Vec<Candidate>, StoreError> {
        if search::lookup_terms(scoped_terms).is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        search::candidates(&mut conn, bank, scoped_terms, cap).await
    }

    async fn term_rows(&self, bank: BankKey<'_>, scoped_terms: &[String], cap: u32) -> Result<Vec<TermRows>, StoreError> {
        if scoped_terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        search::term_rows(&mut conn, bank, scoped_terms, cap).await
    }

    async fn worded_rows(&self, bank: BankKey<'_>, keys: &[RowKey]) -> Result<Vec<Worded>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let rows = sqlx::query(
            "SELECT STRAIGHT_JOIN memory.id, memory.created_at, memory.content
             FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
             JOIN memory ON memory.id = j.wanted
             WHERE memory.user_id = ? AND memory.scope = ?",
        )
        .bind(serde_json::Value::from(keys.to_vec()).to_string())
        .bind(bank.owner())
        .bind(bank.scope().as_str())
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        rows.iter()
            .map(|row| {
                Ok(Worded {
                    id: row.try_get("id").map_err(db_err)?,
                    created_at: crate::rows::timestamp(row, "created_at")?,
                    content: row.try_get("content").map_err(db_err)?,
                })
            })
            .collect()
    }

    async fn terms_progress(&self) -> Result<TermsProgress, StoreError> {
        search_terms::progress(&self.pool).await
    }

    async fn memories_for_terms(&self, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
        search_terms::sources(&self.pool, after, limit).await
    }

    async fn rewrite_terms(&self, rows: &[TermsRewrite], progress: &TermsProgress) -> Result<u64, StoreError> {
        search_terms::rewrite(&self.pool, rows, progress).await
    }

    async fn memories_without_vector(&self, model: &str, after: Option<&str>, limit: u32) -> Result<Vec<TermsSource>, StoreError> {
        vectors::without_vector(&self.pool, model, after, limit).await
    }

    async fn put_vectors(&self, model: &str, rows: &[VectorRow]) -> Result<u64, StoreError> {
        vectors::put(&self.pool, model, rows).await
    }

    async fn vectors_after(&self, user_id: &str, model: &str, after_seq: i64, limit: u32) -> Result<Vec<StoredVector>, StoreError> {
        vectors::after(&self.pool, user_id, model, after_seq, limit).await
    }

    async fn vector_summary(&self, user_id: &str, model: &str) -> Result<VectorSummary, StoreError> {
        vectors::summary(&self.pool, user_id, model).await
    }

    async fn vector_coverage(&self, model: &str) -> Result<(u64, u64), StoreError> {
        vectors::coverage(&self.pool, model).await
    }

    async fn drop_other_vectors(&self, model: &str) -> Result<u64, StoreError> {
        vectors::drop_others(&self.pool, model).await
    }

    async fn citing_memory_ids(&self, bank: BankKey<'_>, conversation_id: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        // The contexts by the virtual column's index first, then each memory by its id.
        let rows: Vec<(String,)> = sqlx::query_as(
            "SELECT STRAIGHT_JOIN m.id FROM memory_context AS c JOIN memory AS m ON m.id = c.memory_id
             WHERE c.conversation_id = ? AND m.user_id = ? AND m.scope = ?
             GROUP BY m.id, m.created_at ORDER BY m.created_at DESC, m.id DESC LIMIT ?",
        )
        .bind(conversation_id)
        .bind(bank.owner())
        .bind(bank.scope().as_str())
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    async fn candidate_rows(&self, bank: BankKey<'_>, keys: &[RowKey]) -> Result<Vec<Candidate>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.pool.acquire().await.map_err(db_err)?;
        search::candidate_rows(&mut conn, bank, keys).await
    }

    async fn memories_by_ids(&self, bank: BankKey<'_>, ids: &[String]) -> Result<Vec<Memory>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // One statement for the memories and their contexts: this is on every search's
        // path, after the candidate query, and a round trip costs more than the few
        // repeated memory columns. STRAIGHT_JOIN: the ids first, then one lookup each by
        // the `id` index, then the contexts by `memory_id`. Left to itself the optimizer
        // walks all of the owner's rows (the primary key starts with user_id), which at
        // 1 000 memories per user reads 50 times the rows. The ids are distinct (they
        // come from ranking), so the first join adds no duplicates.
        let rows = sqlx::query(concat!(
            "SELECT STRAIGHT_JOIN ",
            memory_with_context_columns!(),
            " FROM JSON_TABLE(?, '$[*]' COLUMNS (wanted VARCHAR(64) PATH '$')) AS j
              JOIN memory ON memory.id = j.wanted
              LEFT JOIN memory_context AS c ON c.memory_id = memory.id
              WHERE memory.user_id = ? AND memory.scope = ?"
        ))
        .bind(serde_json::Value::from(ids.to_vec()).to_string())
        .bind(bank.owner())
        .bind(bank.scope().as_str())
        .fetch_all(&self.pool)
        .await
        .map_err(db_err)?;
        memories_from_joined_rows(&rows)
    }

    async fn delete_memory(&self, by: Change<'_>, id: &str, now: Timestamp) -> Result<bool, StoreError> {
        again_while_contended(WRITE, || async move {
            let mut tx = self.pool.begin().await.map_err(db_err)?;
            let deleted = delete_in(&mut tx, by.bank, id).await?;
            if let Some(chars) = deleted {
                audit_if_team(&mut tx, change_entry(by, AuditAction::Deleted, now, Some(id), None, Some(chars))).await?;
            }
            tx.commit().await.map_err(db_err)?;
            Ok(deleted.is_some())
        })
        .await
    }

    async fn update_memory(&self, by: Change<'_>, id: &str, update: &MemoryUpdate) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let updated = revisions::update(&mut tx, by.bank, id, update).await?;
        if updated {
            let entry = change_entry(by, AuditAction::Edited, update.updated_at, Some(id), None, Some(chars(&update.content)));
            audit_if_team(&mut tx, entry).await?;
        }
        tx.commit().await.map_err(db_err)?;
        Ok(updated)
    }

    async fn revisions(&self, user_id: &str, memory_ids: &[String]) -> Result<Vec<ExportedRevision>, StoreError> {
        revisions::list(&self.pool, user_id, memory_ids).await
    }

    async fn import_memories(
        &self,
        user_id: &str,
        org_id: &str,
        rows: &[ImportRow],
        on_conflict: OnConflict,
    ) -> Result<Vec<ImportOutcome>, StoreError> {
        again_while_contended(WRITE, || async move {
            let mut tx = self.pool.begin().await.map_err(db_err)?;
            let mut outcomes = Vec::with_capacity(rows.len());
            for row in rows {
                outcomes.push(transfer::import_one(&mut tx, user_id, org_id, row, on_conflict).await?);
            }
            tx.commit().await.map_err(db_err)?;
            Ok(outcomes)
        })
        .await
    }

    async fn offboard_start(&self, target: Offboard<'_>) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let found = offboarding::start(&mut tx, target).await?;
        tx.commit().await.map_err(db_err)?;
        Ok(found)
    }

    async fn offboard_memories(&self, target: Offboard<'_>, batch: u32) -> Result<u64, StoreError> {
        again_while_contended(WRITE, || async move {
            let mut tx = self.pool.begin().await.map_err(db_err)?;
            let deleted = offboarding::memories(&mut tx, target, batch).await?;
            tx.commit().await.map_err(db_err)?;
            Ok(deleted)
        })
        .await
    }

    async fn offboard_finish(&self, target: Offboard<'_>) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        offboarding::finish(&mut tx, target).await?;
        tx.commit().await.map_err(db_err)
    }

    async fn insert_proposal(&self, by: Change<'_>, proposal: &Proposal, max_pending: u32) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        if !proposals::insert(&mut tx, by, proposal, max_pending).await? {
            tx.rollback().await.map_err(db_err)?;
            return Ok(false);
        }
        audit_if_team(&mut tx, proposed_entry(by, proposal)).await?;
        tx.commit().await.map_err(db_err)?;
        Ok(true)
    }

    async fn proposal(&self, bank: BankKey<'_>, id: &str) -> Result<Option<Proposal>, StoreError> {
        proposals::get_proposal(&self.pool, bank, id).await
    }

    async fn list_proposals(
        &self,
        bank: BankKey<'_>,
        proposer: Option<&str>,
        status: Option<ProposalStatus>,
        now: Timestamp,
        cursor: Option<&Cursor>,
        limit: u32,
    ) -> Result<Vec<Proposal>, StoreError> {
        proposals::list(&self.pool, bank, proposer, status, now, cursor, limit).await
    }

    async fn accept_proposal(&self, by: Change<'_>, id: &str, decision: Decision<'_>, now: Timestamp) -> Result<bool, StoreError> {
        let decision = &decision;
        again_while_contended(WRITE, || async move {
            let mut tx = self.pool.begin().await.map_err(db_err)?;
            let memory_id = decision.memory_id();
            if !proposals::mark(&mut tx, by.bank, id, "accepted", memory_id, now).await? {
                tx.rollback().await.map_err(db_err)?;
                return Ok(false);
            }
            audit_if_team(&mut tx, change_entry(by, AuditAction::Accepted, now, memory_id, Some(id), None)).await?;
            match decision {
                Decision::Save(memory) => insert_one(&mut tx, memory).await?,
                Decision::Delete(memory_id) => {
                    if let Some(chars) = delete_in(&mut tx, by.bank, memory_id).await? {
                        audit_if_team(&mut tx, change_entry(by, AuditAction::Deleted, now, Some(memory_id), None, Some(chars))).await?;
                    }
                }
                Decision::Edit(memory_id, update) => {
                    if revisions::update(&mut tx, by.bank, memory_id, update).await? {
                        let entry = change_entry(by, AuditAction::Edited, now, Some(memory_id), None, Some(chars(&update.content)));
                        audit_if_team(&mut tx, entry).await?;
                    }
                }
            }
            tx.commit().await.map_err(db_err)?;
            Ok(true)
        })
        .await
    }

    async fn reject_proposal(&self, by: Change<'_>, id: &str, now: Timestamp) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await.map_err(db_err)?;
        let rejected = proposals::mark(&mut tx, by.bank, id, "rejected", None, now).await?;
        if rejected {
            audit_if_team(&mut tx, change_entry(by, AuditAction::Rejected, now, None, Some(id), None)).await?;
        }
        tx.commit().await.map_err(db_err)?;
        Ok(rejected)
    }

    async fn count_pending_proposals(&self, now: Timestamp) -> Result<u64, StoreError> {
        proposals::count_pending(&self.pool, now).await
    }
}
