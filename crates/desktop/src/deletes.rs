//! Deferred, undoable deletes owned by the Rust side, so a delete the person did not
//! undo reaches the server even if the page, the window or the process goes away.
//!
//! `schedule` captures the client and org at the moment the person confirmed and starts
//! a timer; `undo` cancels it while it is pending; `flush` sends every pending delete
//! now and waits for them (leaving the panel, closing the window, quitting, SIGTERM).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memory_bank_client::{Client, DeleteOutcome};
use serde::Serialize;
use tokio::task::JoinHandle;
use tokio_util::task::TaskTracker;

/// How long after confirming a delete is sent. The UI's Undo toast lasts 5 s, so Undo
/// is never offered when it can no longer work.
pub const DELETE_DELAY: Duration = Duration::from_millis(6000);

/// How a delete ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The server deleted it.
    Deleted,
    /// The server had nothing to delete (already gone): counts as done.
    NotFound,
    /// The delete failed; the row should come back.
    Failed,
}

/// Reported once per delete that was sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settled {
    /// Memory id.
    pub id: String,
    /// The org captured when the person confirmed.
    pub org_id: String,
    /// How it ended.
    pub outcome: Outcome,
    /// For `failed`: what went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

struct Pending {
    org_id: String,
    client: Client,
    timer: JoinHandle<()>,
}

type Notify = Arc<dyn Fn(Settled) + Send + Sync>;

/// Owns pending deletes. Cheap to clone; clones share the same pending set.
#[derive(Clone)]
pub struct DeleteScheduler {
    pending: Arc<Mutex<HashMap<String, Pending>>>,
    sending: TaskTracker,
    delay: Duration,
    notify: Notify,
}

impl DeleteScheduler {
    /// A scheduler that waits `delay` and reports every settled delete to `notify`.
    pub fn new(delay: Duration, notify: impl Fn(Settled) + Send + Sync + 'static) -> Self {
        Self { pending: Arc::default(), sending: TaskTracker::new(), delay, notify: Arc::new(notify) }
    }

    /// Schedules deleting `id` in `org_id` through `client` after the delay. Scheduling
    /// the same id again restarts its timer; other ids are never affected.
    pub fn schedule(&self, id: &str, org_id: &str, client: Client) {
        let this = self.clone();
        let key = id.to_owned();
        let mut pending = self.lock();
        let timer = tokio::spawn(async move {
            tokio::time::sleep(this.delay).await;
            this.send_if_pending(&key);
        });
        if let Some(previous) = pending.insert(id.to_owned(), Pending { org_id: org_id.to_owned(), client, timer }) {
            previous.timer.abort();
        }
    }

    /// Cancels a pending delete. False when there is none (never scheduled, undone
    /// already, or already being sent).
    pub fn undo(&self, id: &str) -> bool {
        match self.lock().remove(id) {
            Some(pending) => {
                pending.timer.abort();
                true
            }
            None => false,
        }
    }

    /// Number of deletes still waiting for their timer.
    pub fn pending_count(&self) -> usize {
        self.lock().len()
    }

    /// Sends every pending delete now and waits until all deletes in flight settled.
    pub async fn flush(&self) {
        let drained: Vec<(String, Pending)> = self.lock().drain().collect();
        for (id, pending) in drained {
            pending.timer.abort();
            self.send(id, pending);
        }
        self.sending.close();
        self.sending.wait().await;
        self.sending.reopen();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    fn send_if_pending(&self, id: &str) {
        // Removing under the lock decides the race with `undo` and `flush`: whoever
        // takes the entry owns it.
        let taken = self.lock().remove(id);
        if let Some(pending) = taken {
            self.send(id.to_owned(), pending);
        }
    }

    fn send(&self, id: String, pending: Pending) {
        let notify = self.notify.clone();
        self.sending.spawn(async move {
            let result = pending.client.delete(&pending.org_id, &id).await;
            let (outcome, message) = match result {
                Ok(DeleteOutcome::Deleted) => (Outcome::Deleted, None),
                Ok(DeleteOutcome::NotFound) => (Outcome::NotFound, None),
                Err(err) => (Outcome::Failed, Some(err.to_string())),
            };
            match &message {
                // Seen by default (and at exit, when nobody may be there to see the toast).
                Some(reason) => tracing::warn!(memory_id = %id, %reason, "deferred delete failed; the memory was not deleted"),
                None => tracing::info!(memory_id = %id, ?outcome, "deferred delete settled"),
            }
            notify(Settled { id, org_id: pending.org_id, outcome, message });
        });
    }
}
