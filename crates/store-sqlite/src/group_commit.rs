//! Group commit: saves that arrive while the writer is busy are committed together, in
//! one transaction.
//!
//! Why: a commit writes every page it changed to the WAL, and a save changes 10–14
//! pages, most of them the same ones the next save changes (the memory table's last
//! leaf, the full-text index's structure record and newest segment). On an encrypted
//! bank each page written costs 8 µs more (BENCHMARKS.md, issue 17), so N saves in one
//! transaction cost far less than N transactions. A save that finds the writer idle is
//! committed at once, alone, as before: nothing waits to fill a batch.

use std::sync::Mutex;

use memory_bank_store::{MemoryStore as _, NewMemory, StoreError};
use sqlx::pool::PoolConnection;
use sqlx::Sqlite;
use tokio::sync::oneshot;

use crate::rows::db_err;
use crate::{begin_immediate, insert_one, SqliteStore};

/// Most saves one transaction takes: the write lock is held for the whole batch.
const MOST_SAVES_A_COMMIT: usize = 64;

/// Saves waiting for the writer.
#[derive(Debug, Default)]
pub(crate) struct SaveQueue(Mutex<Vec<Pending>>);

#[derive(Debug)]
struct Pending {
    memory: NewMemory,
    done: oneshot::Sender<Result<(), StoreError>>,
}

impl SaveQueue {
    fn push(&self, pending: Pending) {
        self.0
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push(pending);
    }

    fn take(&self) -> Vec<Pending> {
        let mut queue = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        let n = queue.len().min(MOST_SAVES_A_COMMIT);
        queue.drain(..n).collect()
    }
}

impl SqliteStore {
    /// Saves `memory`, committed with whatever other saves are waiting for the writer.
    pub(crate) async fn save_in_group(&self, memory: &NewMemory) -> Result<(), StoreError> {
        let (done, outcome) = oneshot::channel();
        self.saves.push(Pending {
            memory: memory.clone(),
            done,
        });
        // Each save queues one committer, so every queued save has a committer that
        // takes the writer after it was queued. The commit runs on a task of its own, so
        // a caller that stops waiting (a dropped request) never takes the other saves of
        // its batch down with it.
        let store = self.clone();
        tokio::spawn(async move { store.commit_waiting_saves().await });
        outcome.await.unwrap_or_else(|_| {
            Err(StoreError::Unavailable(
                "the save was interrupted before it was committed".to_owned(),
            ))
        })
    }

    /// Takes the writer, then commits every save waiting by then (none, when an earlier
    /// committer already took them).
    async fn commit_waiting_saves(&self) {
        let writer = self.writer.acquire().await;
        let batch = self.saves.take();
        if batch.is_empty() {
            return;
        }
        let together = match writer {
            Ok(conn) => insert_all(conn, &batch).await,
            Err(e) => Err(db_err(e)),
        };
        match together {
            Ok(()) => {
                self.wrote();
                batch.into_iter().for_each(|p| drop(p.done.send(Ok(()))));
            }
            Err(err) if batch.len() == 1 => {
                if let Some(alone) = batch.into_iter().next() {
                    drop(alone.done.send(Err(err)));
                }
            }
            // One save may have failed the others (a duplicate id): each goes again on
            // its own, so each gets its own answer.
            Err(err) => {
                tracing::debug!(error = %err, saves = batch.len(), "a grouped commit failed; committing each save alone");
                for pending in batch {
                    let alone = self
                        .insert_memories(std::slice::from_ref(&pending.memory))
                        .await;
                    drop(pending.done.send(alone));
                }
            }
        }
    }
}

/// Inserts every save of `batch` in one write transaction on `conn`: all or none.
async fn insert_all(conn: PoolConnection<Sqlite>, batch: &[Pending]) -> Result<(), StoreError> {
    let mut tx = begin_immediate(conn).await?;
    for pending in batch {
        insert_one(&mut tx, &pending.memory).await?;
    }
    tx.commit().await.map_err(db_err)
}
