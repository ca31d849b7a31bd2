//! Deleting one memory with what hangs off it (its contexts and revisions) inside a
//! transaction. Its own module because both a delete (`store`) and an import's
//! overwrite (`transfer`) need it, and neither should reach into the other.

use memory_bank_store::StoreError;
use sqlx::MySqlConnection;

use crate::revisions;
use crate::rows::db_err;

/// Deletes the user's memory and its contexts inside `tx`; false when there is no such
/// row for this user. No foreign keys (managed MySQL forbids them): the contexts go
/// here, in the same transaction as their memory.
pub(crate) async fn delete_in(tx: &mut MySqlConnection, user_id: &str, id: &str) -> Result<bool, StoreError> {
    // Locks the row so a concurrent delete waits and then finds nothing.
    let found: Option<i32> = sqlx::query_scalar("SELECT 1 FROM memory WHERE id = ? AND user_id = ? AND scope = 'user' FOR UPDATE")
        .bind(id)
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(db_err)?;
    if found.is_none() {
        return Ok(false);
    }
    sqlx::query("DELETE FROM memory_context WHERE memory_id = ?").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    sqlx::query("DELETE FROM memory_vector WHERE memory_id = ?").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    revisions::delete_all(tx, user_id, id).await?;
    sqlx::query("DELETE FROM memory WHERE id = ? AND user_id = ?").bind(id).bind(user_id).execute(&mut *tx).await.map_err(db_err)?;
    Ok(true)
}
