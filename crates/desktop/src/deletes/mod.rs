//! Deferred, undoable deletes owned by the Rust side, so a delete the person did not
//! undo reaches the server whatever happens to the page, the window or the process, and
//! is never sent twice nor to anyone else.
//!
//! - `schedule` records the delete in the [`journal`] (fsynced) with the account, user
//!   and org of the moment the person confirmed, then starts the undo timer; `undo`
//!   removes it while it is not being sent (in the undo window, or waiting offline).
//! - A delete is sent when its timer ends, or at once by `flush` (leaving the panel,
//!   switching accounts, quitting, SIGTERM). It leaves the journal only when the server
//!   answered 204 or 404. Unreachable, timed out or 5xx: it stays, hidden, reported as
//!   [`Outcome::Waiting`], and is retried with capped exponential backoff while the app
//!   runs. Refused (401/403, the token was revoked) or any other answer: it is dropped
//!   and reported as [`Outcome::Failed`] with the reason, so the row comes back.
//! - At start, the journal's entries (whose undo window a crash cut short or that were
//!   waiting) are loaded without a client. [`DeleteScheduler::restore`] gives those of a
//!   team server a client from that server's token (env or keyring), so they go out as
//!   soon as it answers even while the app is signed out; each attempt first checks the
//!   token still belongs to the user who confirmed. [`DeleteScheduler::adopt`] hands the
//!   rest the client of their own account and user when that account connects.

pub mod journal;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memory_bank_client::{Client, ClientError, DeleteOutcome};
use serde::Serialize;
use tokio::task::JoinHandle;
use tokio_util::task::TaskTracker;

use journal::{AccountKey, Journal, JournalEntry};

/// How long after confirming a delete is sent. The UI's Undo toast lasts 5 s, so Undo
/// is never offered when it can no longer work.
pub const DELETE_DELAY: Duration = Duration::from_millis(6000);

/// The first retry of a delete that could not reach the server; each next one waits
/// twice as long, up to [`RETRY_MAX`].
pub const RETRY_FIRST: Duration = Duration::from_secs(1);
/// The longest wait between two tries: a server that comes back is reached within it.
pub const RETRY_MAX: Duration = Duration::from_secs(10);

/// When deletes are sent and retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeleteTiming {
    /// Confirm to send.
    pub delay: Duration,
    /// First retry after a failure to reach the server.
    pub retry_first: Duration,
    /// Cap of the backoff.
    pub retry_max: Duration,
}

impl Default for DeleteTiming {
    fn default() -> Self {
        Self { delay: DELETE_DELAY, retry_first: RETRY_FIRST, retry_max: RETRY_MAX }
    }
}

impl DeleteTiming {
    fn backoff(&self, attempts: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempts.saturating_sub(1).min(16));
        self.retry_first.saturating_mul(factor).min(self.retry_max)
    }
}

/// How a delete stands after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The server deleted it.
    Deleted,
    /// The server had nothing to delete (already gone): counts as done.
    NotFound,
    /// The server refused it (token revoked, not a member): the row should come back.
    Failed,
    /// Not sent yet (server unreachable, or its account not signed in): still hidden,
    /// retried, and still cancellable with undo.
    Waiting,
}

/// Reported after every attempt (and when a restored delete waits for its account).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Settled {
    /// Memory id.
    pub id: String,
    /// The org captured when the person confirmed.
    pub org_id: String,
    /// How it stands.
    pub outcome: Outcome,
    /// For `failed` and `waiting`: what went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub message: Option<String>,
}

/// A delete not settled yet, as the UI lists it (to keep its row hidden and show the
/// waiting ones).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PendingDelete {
    /// Memory id.
    pub id: String,
    /// The org captured when the person confirmed.
    pub org_id: String,
    /// When the undo window ends (or ended), ms since the epoch.
    pub commit_at: i64,
    /// True once it failed to reach the server (or waits for its account).
    pub waiting: bool,
    /// Why it waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub message: Option<String>,
}

/// Why an undo did not happen.
#[derive(Debug, thiserror::Error)]
#[error("the pending-delete journal could not be written: {0}")]
pub struct JournalError(#[from] std::io::Error);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// In its undo window.
    Scheduled,
    /// A request is out.
    Sending,
    /// Failed to reach the server, or has no client yet; a retry may be timed.
    Waiting,
}

struct Entry {
    record: JournalEntry,
    /// `None` for an entry restored from the journal until its account connects.
    client: Option<Client>,
    state: State,
    attempts: u32,
    message: Option<String>,
    timer: Option<JoinHandle<()>>,
    /// Bumped on every reschedule, so an answer to an older send is not mistaken for one.
    generation: u64,
    /// The client was not the session's: check its token is the confirming user's.
    verify_user: bool,
}

impl Entry {
    fn stop_timer(&mut self) {
        if let Some(timer) = self.timer.take() {
            timer.abort();
        }
    }
}

struct Inner {
    entries: HashMap<String, Entry>,
    journal: Journal,
    generations: u64,
    /// The process is exiting: no timer starts any more (the journal keeps the rest).
    stopped: bool,
}

type Notify = Arc<dyn Fn(Settled) + Send + Sync>;

/// Owns pending deletes. Cheap to clone; clones share the same pending set.
#[derive(Clone)]
pub struct DeleteScheduler {
    inner: Arc<Mutex<Inner>>,
    sending: TaskTracker,
    timing: DeleteTiming,
    notify: Notify,
}

enum Attempt {
    Done(Outcome),
    Refused(String),
    Retry(String),
    WrongUser(String),
}

async fn attempt(client: &Client, org_id: &str, id: &str) -> Attempt {
    match client.delete(org_id, id).await {
        Ok(DeleteOutcome::Deleted) => Attempt::Done(Outcome::Deleted),
        Ok(DeleteOutcome::NotFound) => Attempt::Done(Outcome::NotFound),
        Err(err) => failed(err),
    }
}

fn failed(err: ClientError) -> Attempt {
    if is_transient(&err) {
        Attempt::Retry(err.to_string())
    } else {
        // A team refusal reads as the server's sentence (a member deleting a team memory).
        Attempt::Refused(crate::DesktopError::from(err).message)
    }
}

impl DeleteScheduler {
    /// A scheduler over `journal`, whose entries wait for [`adopt`](Self::adopt); every
    /// attempt is reported to `notify`.
    pub fn new(journal: Journal, timing: DeleteTiming, notify: impl Fn(Settled) + Send + Sync + 'static) -> Self {
        let mut entries = HashMap::new();
        for record in journal.entries() {
            let restored = Entry {
                record: record.clone(),
                client: None,
                state: State::Waiting,
                attempts: 0,
                message: Some("waiting for its account to connect".into()),
                timer: None,
                generation: 0,
                verify_user: true,
            };
            entries.insert(record.id.clone(), restored);
        }
        if !entries.is_empty() {
            tracing::info!(count = entries.len(), "deletes left pending by the last run will be sent");
        }
        let inner = Inner { entries, journal, generations: 0, stopped: false };
        Self { inner: Arc::new(Mutex::new(inner)), sending: TaskTracker::new(), timing, notify: Arc::new(notify) }
    }

    /// Records the delete of `record.id` durably, then sends it through `client` after
    /// the delay. Scheduling the same id again restarts its timer; other ids are never
    /// affected. Nothing is scheduled when the journal cannot be written.
    pub fn schedule(&self, record: JournalEntry, client: Client) -> Result<(), JournalError> {
        let id = record.id.clone();
        let mut inner = self.lock();
        inner.journal.put(record.clone())?;
        inner.generations += 1;
        let generation = inner.generations;
        if let Some(mut previous) = inner.entries.remove(&id) {
            previous.stop_timer();
        }
        let timer = self.fire_after(&id, generation, self.timing.delay);
        let entry = Entry {
            record,
            client: Some(client),
            state: State::Scheduled,
            attempts: 0,
            message: None,
            timer: Some(timer),
            generation,
            verify_user: false,
        };
        inner.entries.insert(id, entry);
        Ok(())
    }

    /// Cancels a pending delete, in its undo window or waiting offline. `Ok(false)`
    /// when there is none (never scheduled, undone already, or being sent right now).
    pub fn undo(&self, id: &str) -> Result<bool, JournalError> {
        let mut inner = self.lock();
        match inner.entries.get(id).map(|e| e.state) {
            None | Some(State::Sending) => Ok(false),
            Some(_) => {
                // Off the disk first: an undo that is not durable would be sent after a crash.
                inner.journal.remove(id)?;
                if let Some(mut entry) = inner.entries.remove(id) {
                    entry.stop_timer();
                }
                Ok(true)
            }
        }
    }

    /// Every delete not settled yet, oldest first.
    pub fn pending(&self) -> Vec<PendingDelete> {
        let inner = self.lock();
        let mut pending: Vec<PendingDelete> = inner
            .entries
            .values()
            .map(|e| PendingDelete {
                id: e.record.id.clone(),
                org_id: e.record.org_id.clone(),
                commit_at: e.record.due_at,
                waiting: e.state == State::Waiting,
                message: e.message.clone(),
            })
            .collect();
        pending.sort_by_key(|p| p.commit_at);
        pending
    }

    /// Number of deletes not settled yet.
    pub fn pending_count(&self) -> usize {
        self.lock().entries.len()
    }

    /// `account` connected as `user_id`: its deletes (restored from the journal, or
    /// waiting with the client of an earlier connection) get `client` and go out now.
    /// Deletes of other accounts or users keep waiting: they are never sent elsewhere.
    pub fn adopt(&self, account: &AccountKey, user_id: &str, client: &Client) {
        let mut inner = self.lock();
        let ids: Vec<String> = inner
            .entries
            .values()
            .filter(|e| e.state == State::Waiting && &e.record.account == account && e.record.user_id == user_id)
            .map(|e| e.record.id.clone())
            .collect();
        for id in ids {
            if let Some(entry) = inner.entries.get_mut(&id) {
                entry.client = Some(client.clone());
                entry.verify_user = false;
                entry.stop_timer();
            }
            self.send_locked(&mut inner, &id);
        }
    }

    /// Gives the deletes restored from the journal that still have no client the one
    /// `client_for` finds for their account (a team server's token from env or the
    /// keyring), and sends them. Each attempt checks the token's user first.
    pub fn restore(&self, client_for: impl Fn(&AccountKey) -> Option<Client>) {
        let mut inner = self.lock();
        let ids: Vec<String> =
            inner.entries.values().filter(|e| e.state == State::Waiting && e.client.is_none()).map(|e| e.record.id.clone()).collect();
        for id in ids {
            let Some(entry) = inner.entries.get_mut(&id) else { continue };
            let Some(client) = client_for(&entry.record.account) else { continue };
            entry.client = Some(client);
            entry.verify_user = true;
            self.send_locked(&mut inner, &id);
        }
    }

    /// Sends every delete that has a client now (undo is over for them) and waits
    /// until every delete in flight got its answer. Those that could not reach the
    /// server stay in the journal, for a retry or the next start.
    pub async fn flush(&self) {
        {
            let mut inner = self.lock();
            let ids: Vec<String> =
                inner.entries.values().filter(|e| e.state != State::Sending && e.client.is_some()).map(|e| e.record.id.clone()).collect();
            for id in ids {
                if let Some(entry) = inner.entries.get_mut(&id) {
                    entry.stop_timer();
                }
                self.send_locked(&mut inner, &id);
            }
        }
        self.sending.close();
        self.sending.wait().await;
        self.sending.reopen();
    }

    /// At exit, after the last [`flush`](Self::flush): cancels every timer and starts
    /// none again. What is left stays in the journal for the next start.
    pub fn stop(&self) {
        let mut inner = self.lock();
        inner.stopped = true;
        for entry in inner.entries.values_mut() {
            entry.stop_timer();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    fn fire_after(&self, id: &str, generation: u64, wait: Duration) -> JoinHandle<()> {
        let this = self.clone();
        let id = id.to_owned();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let mut inner = this.lock();
            let due = inner.entries.get(&id).is_some_and(|e| e.generation == generation && e.state != State::Sending);
            if due && !inner.stopped {
                this.send_locked(&mut inner, &id);
            }
        })
    }

    /// Starts the request for `id` (the caller holds the lock and decided it is due).
    fn send_locked(&self, inner: &mut Inner, id: &str) {
        let Some(entry) = inner.entries.get_mut(id) else { return };
        let Some(client) = entry.client.clone() else {
            entry.state = State::Waiting;
            return;
        };
        entry.state = State::Sending;
        entry.timer = None;
        let (org_id, generation) = (entry.record.org_id.clone(), entry.generation);
        let user_id = entry.verify_user.then(|| entry.record.user_id.clone());
        let (this, id) = (self.clone(), id.to_owned());
        self.sending.spawn(async move {
            let attempt = match user_id {
                Some(user_id) => match client.me().await {
                    Ok(me) if me.user.id == user_id => attempt(&client, &org_id, &id).await,
                    Ok(me) => Attempt::WrongUser(format!(
                        "waiting for {user_id} to sign in to {} again (its token is now {}'s)",
                        client.base_url(),
                        me.user.email
                    )),
                    Err(err) => failed(err),
                },
                None => attempt(&client, &org_id, &id).await,
            };
            this.settle(&id, generation, attempt);
        });
    }

    fn settle(&self, id: &str, generation: u64, attempt: Attempt) {
        let report = {
            let mut inner = self.lock();
            let Some(entry) = inner.entries.get(id).filter(|e| e.generation == generation) else {
                return; // rescheduled meanwhile: the newer delete reports for itself
            };
            let org_id = entry.record.org_id.clone();
            match attempt {
                Attempt::Done(outcome) => {
                    self.forget(&mut inner, id);
                    tracing::info!(memory_id = %id, ?outcome, "deferred delete settled");
                    Settled { id: id.to_owned(), org_id, outcome, message: None }
                }
                Attempt::Refused(reason) => {
                    self.forget(&mut inner, id);
                    // Seen by default (and at exit, when nobody may be there to see the toast).
                    tracing::warn!(memory_id = %id, %reason, "deferred delete refused; the memory was not deleted");
                    Settled { id: id.to_owned(), org_id, outcome: Outcome::Failed, message: Some(reason) }
                }
                Attempt::WrongUser(reason) => {
                    // Not this user's to send: it waits until they connect again (adopt).
                    let entry = inner.entries.get_mut(id).expect("checked above");
                    entry.state = State::Waiting;
                    entry.client = None;
                    entry.message = Some(reason.clone());
                    tracing::warn!(memory_id = %id, %reason, "deferred delete kept for the user who confirmed it");
                    Settled { id: id.to_owned(), org_id, outcome: Outcome::Waiting, message: Some(reason) }
                }
                Attempt::Retry(reason) => {
                    let stopped = inner.stopped;
                    let entry = inner.entries.get_mut(id).expect("checked above");
                    entry.attempts += 1;
                    entry.state = State::Waiting;
                    entry.message = Some(reason.clone());
                    let wait = self.timing.backoff(entry.attempts);
                    // At exit no timer starts: the journal keeps it for the next start.
                    entry.timer = (!stopped).then(|| self.fire_after(id, generation, wait));
                    tracing::warn!(
                        memory_id = %id, %reason, attempts = entry.attempts, retry_in_ms = wait.as_millis() as u64,
                        "deferred delete could not reach the server; kept, and retried (also at the next start)"
                    );
                    Settled { id: id.to_owned(), org_id, outcome: Outcome::Waiting, message: Some(reason) }
                }
            }
        };
        (self.notify)(report);
    }

    /// Drops a settled delete from memory and from the journal. A journal that cannot
    /// be written now only means the delete is sent again at the next start, where the
    /// server answers 404: done.
    fn forget(&self, inner: &mut Inner, id: &str) {
        inner.entries.remove(id);
        if let Err(e) = inner.journal.remove(id) {
            tracing::warn!(memory_id = %id, error = %e, "could not remove a settled delete from the journal");
        }
    }
}

/// Worth trying again later: the server could not be reached, took too long, or failed
/// on its side.
fn is_transient(err: &ClientError) -> bool {
    match err {
        ClientError::Unreachable { .. } => true,
        ClientError::Api { status, .. } => *status >= 500 || *status == 408 || *status == 429,
        ClientError::Protocol { .. } => true,
        ClientError::BadUrl(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let timing = DeleteTiming { delay: DELETE_DELAY, retry_first: Duration::from_secs(1), retry_max: Duration::from_secs(10) };
        let waits: Vec<u64> = (1..=7).map(|n| timing.backoff(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 10, 10, 10]);
        assert_eq!(timing.backoff(u32::MAX), Duration::from_secs(10));
    }
}
