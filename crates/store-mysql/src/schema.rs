//! What a database's schema looks like compared with what this build expects.
//!
//! The MySQL store never migrates on open (a production database is changed by an
//! operator, once, not by whichever service instance starts first), so the CLI asks
//! for the state and names the command that fixes it.

use std::collections::HashSet;
use std::future::Future;

use memory_bank_store::{EnsureOutcome, OptimizeOutcome, StoreError};
use sqlx::pool::PoolConnection;
use sqlx::{MySql, MySqlPool};

use crate::rows::db_err;
use crate::contention::{self, again_while_contended};
use crate::{layout, postings, MIGRATOR};

/// How long `migrate` and `optimize` wait for another one before giving up.
const MIGRATION_LOCK_SECONDS: i32 = 600;

/// The schema of a database relative to this build's migrations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaState {
    /// No Memory Bank tables at all: a new database that needs `db bootstrap`.
    Empty,
    /// Memory Bank tables without a migration history (created by an older release
    /// or by hand): `db migrate` adopts and repairs them.
    Untracked,
    /// Some of this build's migrations are not applied yet: `db migrate`.
    Behind {
        /// How many migrations are pending.
        pending: usize,
    },
    /// The database has migrations this build does not know: a newer memory-bank
    /// wrote it, so this one must be upgraded.
    Ahead,
    /// Every migration is applied.
    Current,
}

/// The Memory Bank tables; any of them present means "not a new database".
const TABLES: [&str; 6] = ["users", "orgs", "org_members", "api_tokens", "memory", "memory_context"];

pub(crate) async fn state(pool: &MySqlPool) -> Result<SchemaState, StoreError> {
    let present: Vec<String> = sqlx::query_scalar(
        "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES
         WHERE TABLE_SCHEMA = DATABASE()
           AND TABLE_NAME IN ('_sqlx_migrations', 'users', 'orgs', 'org_members', 'api_tokens', 'memory', 'memory_context')",
    )
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    let has_history = present.iter().any(|t| t == "_sqlx_migrations");
    let has_tables = present.iter().any(|t| TABLES.contains(&t.as_str()));
    if !has_history {
        return Ok(if has_tables { SchemaState::Untracked } else { SchemaState::Empty });
    }
    let applied: HashSet<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success = TRUE")
        .fetch_all(pool)
        .await
        .map_err(db_err)?
        .into_iter()
        .collect();
    let known: HashSet<i64> =
        MIGRATOR.iter().filter(|m| m.migration_type.is_up_migration()).map(|m| m.version).collect();
    if applied.iter().any(|v| !known.contains(v)) {
        return Ok(SchemaState::Ahead);
    }
    let pending = known.difference(&applied).count();
    Ok(if pending > 0 { SchemaState::Behind { pending } } else { SchemaState::Current })
}

/// Applies pending migrations, then ensures the search index, holding the
/// [`MaintenanceLock`] so concurrent runs happen one after another.
pub(crate) async fn migrate(pool: &MySqlPool) -> Result<EnsureOutcome, StoreError> {
    locked(pool, again_while_contended(contention::MIGRATION, || apply(pool))).await
}

/// Rebuilds the search index compactly (see `postings::optimize`), holding the
/// [`MaintenanceLock`] so it never runs beside a migration or another rebuild.
pub(crate) async fn optimize(pool: &MySqlPool) -> Result<OptimizeOutcome, StoreError> {
    locked(pool, postings::optimize(pool)).await
}

/// Runs `work` (a future does nothing until awaited) while holding the lock, and
/// releases it whatever the outcome.
async fn locked<T>(pool: &MySqlPool, work: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    let lock = MaintenanceLock::acquire(pool, LockFor::Schema).await?;
    let outcome = work.await;
    let released = lock.release().await;
    let outcome = outcome?;
    released?;
    Ok(outcome)
}

/// A server-wide lock for this database, held on one pooled connection while the
/// work runs on others: it guards the database from other processes whichever
/// connection of ours does the work. The server also drops it if that connection
/// closes, should the work fail.
///
/// Why our own lock: sqlx locks with `GET_LOCK(name, -1)`, which MySQL reads as
/// "wait forever" but MariaDB answers with NULL at once, without taking the lock; two
/// `db migrate` runs on MariaDB would then interleave and one could find tables
/// half-created.
pub(crate) struct MaintenanceLock {
    conn: PoolConnection<MySql>,
    name: &'static str,
}

/// What a [`MaintenanceLock`] guards. Two names, because a migration builds the search
/// index while it holds the first, and a lock taken on another pooled connection
/// would wait for itself.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LockFor {
    /// Migrations and rebuilds.
    Schema,
    /// Filling the search index (`postings::ensure`), also called on its own.
    SearchIndex,
}

impl MaintenanceLock {
    pub(crate) async fn acquire(pool: &MySqlPool, purpose: LockFor) -> Result<Self, StoreError> {
        let name = match purpose {
            LockFor::Schema => "memory_bank_migrate_",
            LockFor::SearchIndex => "memory_bank_index_",
        };
        let mut conn = pool.acquire().await.map_err(db_err)?;
        let locked: Option<i64> = sqlx::query_scalar("SELECT GET_LOCK(CONCAT(?, LEFT(DATABASE(), 40)), ?)")
            .bind(name)
            .bind(MIGRATION_LOCK_SECONDS)
            .fetch_one(&mut *conn)
            .await
            .map_err(db_err)?;
        if locked != Some(1) {
            return Err(StoreError::Migration(format!(
                "another `memory-bank db migrate`, `db bootstrap` or `db optimize` has been running on this \
                 database for {MIGRATION_LOCK_SECONDS} s; wait for it to finish, then run this again"
            )));
        }
        Ok(Self { conn, name })
    }

    pub(crate) async fn release(mut self) -> Result<(), StoreError> {
        sqlx::query("SELECT RELEASE_LOCK(CONCAT(?, LEFT(DATABASE(), 40)))")
            .bind(self.name)
            .execute(&mut *self.conn)
            .await
            .map_err(db_err)?;
        Ok(())
    }
}

async fn apply(pool: &MySqlPool) -> Result<EnsureOutcome, StoreError> {
    MIGRATOR.run(pool).await.map_err(migrate_err)?;
    add_roles(pool).await?;
    add_columns(pool).await?;
    add_indexes(pool).await?;
    layout::cluster_by_user(pool).await.map_err(|e| step_failed(e, "cannot cluster the memory table by user: "))?;
    postings::ensure(pool).await
}

/// Columns added after the first release, each with the DDL that adds it: run only when
/// the column is missing, because a database adopted from an older release replays
/// every migration and MySQL 8 has no `ADD COLUMN IF NOT EXISTS`.
const ADDED_COLUMNS: [(&str, &str, &str); 11] = [
    (
        "api_tokens",
        "kind",
        "ALTER TABLE api_tokens ADD COLUMN kind VARCHAR(16) NOT NULL DEFAULT 'full', ADD KEY api_tokens_user_kind (user_id, kind)",
    ),
    (
        "memory",
        "confirmed_via",
        "ALTER TABLE memory ADD COLUMN confirmed_via ENUM('app', 'elicitation', 'cli', 'import') NULL DEFAULT NULL",
    ),
    ("memory", "proposed_by", "ALTER TABLE memory ADD COLUMN proposed_by VARCHAR(128) NULL DEFAULT NULL"),
    // Which memories cite a session: the cited session id as a virtual column with an
    // index (MariaDB and MySQL both index virtual columns; neither indexes an expression
    // on JSON directly in every version supported).
    (
        "memory_context",
        "conversation_id",
        "ALTER TABLE memory_context \
         ADD COLUMN conversation_id VARCHAR(128) AS (JSON_UNQUOTE(JSON_EXTRACT(citation, '$.conversationId'))) VIRTUAL, \
         ADD KEY memory_context_conversation (conversation_id)",
    ),
    // What an edit or delete proposal was made against (the memory's words then).
    ("proposals", "against_content", "ALTER TABLE proposals ADD COLUMN against_content TEXT NULL DEFAULT NULL"),
    ("proposals", "against_tags", "ALTER TABLE proposals ADD COLUMN against_tags JSON NULL DEFAULT NULL"),
    // What an import file claimed about how a memory, or a revision, was confirmed.
    ("memory", "imported_from", "ALTER TABLE memory ADD COLUMN imported_from JSON NULL DEFAULT NULL"),
    ("memory_revision", "imported_from", "ALTER TABLE memory_revision ADD COLUMN imported_from JSON NULL DEFAULT NULL"),
    // Team banks (docs/teams.md): roles (each org's first member made its owner by
    // `add_roles`), who saved and who confirmed a team memory (its owner column holds the
    // org), and proposals to a team bank, with the key the org Inbox walks.
    (
        "org_members",
        "role",
        "ALTER TABLE org_members ADD COLUMN role ENUM('owner', 'admin', 'member') NOT NULL DEFAULT 'member'",
    ),
    (
        "memory",
        "confirmed_by",
        "ALTER TABLE memory ADD COLUMN confirmed_by VARCHAR(64) NULL DEFAULT NULL, ADD COLUMN saved_by VARCHAR(64) NULL DEFAULT NULL",
    ),
    (
        "proposals",
        "scope",
        "ALTER TABLE proposals ADD COLUMN scope ENUM('user', 'org') NOT NULL DEFAULT 'user', \
         ADD KEY proposals_org_status (org_id, scope, status, created_at, id)",
    ),
];

/// Adds `org_members.role` when missing and makes each org's first member its owner,
/// once: the orgs had their members as equals, and each needs one who may change its
/// policy and roles. (Done here, not in SQL: MySQL refuses an UPDATE that reads the
/// table it changes in a subquery.)
async fn add_roles(pool: &MySqlPool) -> Result<(), StoreError> {
    let present: Option<i32> = sqlx::query_scalar(
        "SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'org_members' AND COLUMN_NAME = 'role'",
    )
    .fetch_optional(pool)
    .await
    .map_err(db_err)?;
    if present.is_some() {
        return Ok(());
    }
    let (_, _, ddl) = ADDED_COLUMNS[8];
    sqlx::raw_sql(sqlx::AssertSqlSafe(ddl)).execute(pool).await.map_err(|e| step_failed(db_err(e), "cannot add org_members.role: "))?;
    let firsts: Vec<(String, String)> = sqlx::query_as(
        "SELECT m.org_id, m.user_id FROM org_members AS m
         WHERE NOT EXISTS (SELECT 1 FROM org_members AS e WHERE e.org_id = m.org_id
                           AND (e.created_at < m.created_at OR (e.created_at = m.created_at AND e.user_id < m.user_id)))",
    )
    .fetch_all(pool)
    .await
    .map_err(db_err)?;
    for (org_id, user_id) in firsts {
        sqlx::query("UPDATE org_members SET role = 'owner' WHERE org_id = ? AND user_id = ?")
            .bind(org_id)
            .bind(user_id)
            .execute(pool)
            .await
            .map_err(db_err)?;
    }
    Ok(())
}

async fn add_columns(pool: &MySqlPool) -> Result<(), StoreError> {
    for (table, column, ddl) in ADDED_COLUMNS {
        let present: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?",
        )
        .bind(table)
        .bind(column)
        .fetch_optional(pool)
        .await
        .map_err(db_err)?;
        if present.is_none() {
            sqlx::raw_sql(sqlx::AssertSqlSafe(ddl))
                .execute(pool)
                .await
                .map_err(|e| step_failed(db_err(e), &format!("cannot add {table}.{column}: ")))?;
        }
    }
    Ok(())
}

/// Indexes added after the first release on columns every database has, each with the
/// DDL that adds it: run only when the index is missing, for the same reasons as
/// [`ADDED_COLUMNS`] (MySQL 8 has no `CREATE INDEX IF NOT EXISTS`).
const ADDED_INDEXES: [(&str, &str, &str); 1] = [
    // Pending proposals over every user (the metrics' proposals_pending): one range.
    ("proposals", "proposals_pending", "ALTER TABLE proposals ADD KEY proposals_pending (status, expires_at)"),
];

async fn add_indexes(pool: &MySqlPool) -> Result<(), StoreError> {
    for (table, index, ddl) in ADDED_INDEXES {
        let present: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? LIMIT 1",
        )
        .bind(table)
        .bind(index)
        .fetch_optional(pool)
        .await
        .map_err(db_err)?;
        if present.is_none() {
            sqlx::raw_sql(sqlx::AssertSqlSafe(ddl))
                .execute(pool)
                .await
                .map_err(|e| step_failed(db_err(e), &format!("cannot add the index {table}.{index}: ")))?;
        }
    }
    Ok(())
}

fn migrate_err(err: sqlx::migrate::MigrateError) -> StoreError {
    match err {
        sqlx::migrate::MigrateError::Execute(e) => step_failed(db_err(e), ""),
        other => StoreError::Migration(other.to_string()),
    }
}

/// A failed step of a migration, as [`StoreError::Migration`] saying which step,
/// except the failures that say to try again later (server unavailable, a conflict).
fn step_failed(err: StoreError, step: &str) -> StoreError {
    match err {
        StoreError::Unavailable(_) | StoreError::Contended(_) => err,
        other => StoreError::Migration(format!("{step}{other}")),
    }
}
