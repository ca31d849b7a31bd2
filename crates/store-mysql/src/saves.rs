//! A single save's transaction without its `BEGIN`: it runs on a connection of a pool of
//! its own whose autocommit is off, so the save's first statement begins it.
//!
//! Why: a save is its row, its postings and its bank's count, then `COMMIT`, each a
//! round trip to the server; `BEGIN` was a fifth, ≈ 0.07 ms of a save's ≈ 0.8 (BENCHMARKS.md,
//! "A save without its BEGIN"). Every other transaction keeps sqlx's `begin`.
//!
//! The rule that keeps such a connection safe to reuse: it leaves an [`OpenSave`] only
//! after `COMMIT` or `ROLLBACK` answered. Anything else (an error, a future dropped
//! halfway) closes the connection, and the server rolls its transaction back.

use sqlx::mysql::MySqlConnection;
use sqlx::pool::PoolConnection;
use sqlx::{MySql, MySqlPool};

use memory_bank_store::StoreError;

use crate::rows::db_err;

/// What a connection of the saves' pool runs once, when it is opened.
pub(crate) const AUTOCOMMIT_OFF: &str = "SET autocommit = 0";

/// A save's transaction, open from its first statement on.
pub(crate) struct OpenSave {
    conn: Option<PoolConnection<MySql>>,
}

impl OpenSave {
    /// A connection of the saves' pool (`saves`), on which the next statement begins
    /// the transaction.
    pub(crate) async fn begin(saves: &MySqlPool) -> Result<Self, StoreError> {
        Ok(Self { conn: Some(saves.acquire().await.map_err(db_err)?) })
    }

    /// The connection, for the save's statements.
    pub(crate) fn conn(&mut self) -> Result<&mut MySqlConnection, StoreError> {
        self.conn.as_deref_mut().ok_or_else(|| StoreError::Database("a save's transaction was used after it ended".into()))
    }

    pub(crate) async fn commit(self) -> Result<(), StoreError> {
        self.end("COMMIT").await
    }

    /// Rolls back a save that will not be made (refused, or failed halfway). A failed
    /// `ROLLBACK` needs no answer: it closes the connection, which rolls back as well.
    pub(crate) async fn abandon(self) {
        let _closed_if_failed = self.end("ROLLBACK").await;
    }

    /// Ends the transaction with `statement`; the connection goes back to the pool only
    /// once the server said so (see the module's rule).
    async fn end(mut self, statement: &'static str) -> Result<(), StoreError> {
        let conn = self.conn()?;
        sqlx::raw_sql(statement).execute(&mut *conn).await.map_err(db_err)?;
        drop(self.conn.take());
        Ok(())
    }
}

impl Drop for OpenSave {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.as_mut() {
            conn.close_on_drop();
        }
    }
}
