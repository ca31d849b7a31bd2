//! Deleting one memory with what hangs off it (its contexts and revisions) inside a
//! transaction. Its own module because both a delete (`store`) and an import's
//! overwrite (`transfer`) need it, and neither should reach into the other.

use memory_bank_store::{BankKey, StoreError};
use sqlx::{MySqlConnection, Row as _};

use crate::postings::{self, PostedRow};
use crate::{counts, revisions};
use crate::rows::db_err;

/// Deletes the bank's memory, its contexts and its postings inside `tx`, and counts it out: the characters of the
/// sentence deleted, `None` when the bank has no such row. No foreign keys (managed MySQL forbids them): the contexts go
/// here, in the same transaction as their memory.
pub(crate) async fn delete_in(tx: &mut MySqlConnection, bank: BankKey<'_>, id: &str) -> Result<Option<u32>, StoreError> {
    let user_id = bank.owner();
    // Locks the row so a concurrent delete waits and then finds nothing.
    let found = sqlx::query(
        "SELECT id, user_id, created_at, search_text, CHAR_LENGTH(content) AS chars FROM memory
         WHERE id = ? AND user_id = ? AND scope = ? FOR UPDATE",
    )
    .bind(id)
    .bind(user_id)
    .bind(bank.scope().as_str())
    .fetch_optional(&mut *tx)
    .await
    .map_err(db_err)?;
    let Some(found) = found else { return Ok(None) };
    let chars: i64 = found.try_get("chars").map_err(db_err)?;
    postings::remove(tx, &[PostedRow::from_row(&found)?.posted()]).await?;
    counts::removed(tx, [(user_id, bank.scope().as_str(), id)]).await?;
    sqlx::query("DELETE FROM memory_context WHERE memory_id = ?").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    sqlx::query("DELETE FROM memory_vector WHERE memory_id = ?").bind(id).execute(&mut *tx).await.map_err(db_err)?;
    revisions::delete_all(tx, user_id, id).await?;
    sqlx::query("DELETE FROM memory WHERE id = ? AND user_id = ?").bind(id).bind(user_id).execute(&mut *tx).await.map_err(db_err)?;
    Ok(Some(u32::try_from(chars).unwrap_or(u32::MAX)))
}
