//! A single save's transaction without its `BEGIN`, on connections of its own whose
//! autocommit is off, so the save's first statement begins it.
//!
//! Why: a save is its row, its postings and its bank's count, then `COMMIT`, each a
//! round trip to the server; `BEGIN` was a fifth, ≈ 0.07 ms of a save's ≈ 0.8 (BENCHMARKS.md,
//! "A save without its BEGIN"). Every other transaction keeps sqlx's `begin`.
//!
//! The connections are kept here rather than in a sqlx pool because a sqlx pool pings
//! every connection as it comes back, a round trip that a save's `COMMIT` has just made
//! needless (BENCHMARKS.md, "A save's connection without its ping, stdio polled,
//! candidates counted as read").
//!
//! The rule that keeps such a connection safe to reuse: it goes back to [`Saves`] only
//! after `COMMIT` or `ROLLBACK` answered. Anything else (an error, a future dropped
//! halfway) closes it, and the server rolls its transaction back.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use sqlx::mysql::{MySqlConnectOptions, MySqlConnection};
use sqlx::Connection as _;
use tokio::sync::{Semaphore, SemaphorePermit};

use memory_bank_store::StoreError;

use crate::rows::db_err;
use crate::{IDLE_TIMEOUT, MAX_LIFETIME, PING_IF_IDLE_FOR};

/// What a save's connection runs once, when it is opened.
const AUTOCOMMIT_OFF: &str = "SET autocommit = 0";

/// The single saves' connections: at most `permits` at once, the idle ones kept newest
/// last, so a steady trickle of saves reuses one warm connection.
#[derive(Debug)]
pub(crate) struct Saves {
    connect: MySqlConnectOptions,
    acquire_timeout: Duration,
    permits: Semaphore,
    idle: Mutex<Vec<Idle>>,
}

#[derive(Debug)]
struct Idle {
    conn: MySqlConnection,
    opened: Instant,
    since: Instant,
}

impl Saves {
    /// Opens nothing yet: connections are opened as saves come (the main pool has
    /// checked the server already).
    pub(crate) fn new(connect: MySqlConnectOptions, max_connections: u32, acquire_timeout: Duration) -> Self {
        let permits = usize::try_from(max_connections.max(1)).unwrap_or(1);
        Self { connect, acquire_timeout, permits: Semaphore::new(permits), idle: Mutex::new(Vec::new()) }
    }

    /// A connection whose next statement begins a save's transaction: an idle one (pinged
    /// first when it has been idle a while, as the main pool does) or a new one. Waits
    /// at most the acquire timeout for it, a free slot and a new connection's login
    /// included (a server that accepts and never answers is no hang), then fails as
    /// `Unavailable`.
    pub(crate) async fn begin(&self) -> Result<OpenSave<'_>, StoreError> {
        match tokio::time::timeout(self.acquire_timeout, self.connection()).await {
            Ok(open) => open,
            Err(_) => Err(db_err(sqlx::Error::PoolTimedOut)),
        }
    }

    async fn connection(&self) -> Result<OpenSave<'_>, StoreError> {
        let permit = self.permits.acquire().await.map_err(|_| db_err(sqlx::Error::PoolClosed))?;
        while let Some(mut idle) = self.take_idle() {
            if idle.since.elapsed() >= IDLE_TIMEOUT || idle.opened.elapsed() >= MAX_LIFETIME {
                let _closing = idle.conn.close().await;
                continue;
            }
            // A dead one (the server restarted) is dropped; the next one is tried.
            if idle.since.elapsed() < PING_IF_IDLE_FOR || idle.conn.ping().await.is_ok() {
                return Ok(OpenSave { saves: self, conn: Some((idle.conn, idle.opened)), _permit: permit });
            }
        }
        let mut conn = MySqlConnection::connect_with(&self.connect).await.map_err(db_err)?;
        sqlx::raw_sql(AUTOCOMMIT_OFF).execute(&mut conn).await.map_err(db_err)?;
        Ok(OpenSave { saves: self, conn: Some((conn, Instant::now())), _permit: permit })
    }

    fn take_idle(&self) -> Option<Idle> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }

    fn put_back(&self, conn: MySqlConnection, opened: Instant) {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).push(Idle { conn, opened, since: Instant::now() });
    }
}

/// A save's transaction, open from its first statement on.
pub(crate) struct OpenSave<'a> {
    saves: &'a Saves,
    conn: Option<(MySqlConnection, Instant)>,
    _permit: SemaphorePermit<'a>,
}

impl OpenSave<'_> {
    /// The connection, for the save's statements.
    pub(crate) fn conn(&mut self) -> Result<&mut MySqlConnection, StoreError> {
        self.conn
            .as_mut()
            .map(|(conn, _)| conn)
            .ok_or_else(|| StoreError::Database("a save's transaction was used after it ended".into()))
    }

    pub(crate) async fn commit(self) -> Result<(), StoreError> {
        self.end("COMMIT").await
    }

    /// Rolls back a save that will not be made (refused, or failed halfway). A failed
    /// `ROLLBACK` needs no answer: it closes the connection, which rolls back as well.
    pub(crate) async fn abandon(self) {
        let _closed_if_failed = self.end("ROLLBACK").await;
    }

    /// Ends the transaction with `statement`; the connection goes back only once the
    /// server said so (see the module's rule).
    async fn end(mut self, statement: &'static str) -> Result<(), StoreError> {
        sqlx::raw_sql(statement).execute(self.conn()?).await.map_err(db_err)?;
        if let Some((conn, opened)) = self.conn.take() {
            self.saves.put_back(conn, opened);
        }
        Ok(())
    }
}

impl Drop for OpenSave<'_> {
    /// Ended neither way: the connection is closed (politely when a runtime is there to
    /// send the goodbye), and the server rolls the transaction back.
    fn drop(&mut self) {
        if let Some((conn, _)) = self.conn.take() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { tokio::time::timeout(Duration::from_secs(5), conn.close()).await });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that takes the connection and never says a word (a stuck one, a
    /// firewall's black hole past the handshake) costs a save the acquire timeout, not
    /// a hang.
    #[tokio::test]
    async fn a_server_that_never_answers_is_unavailable_after_the_acquire_timeout() {
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("mysql://root@{}/memory", silent.local_addr().unwrap());
        let held = tokio::spawn(async move {
            let mut kept = Vec::new();
            while let Ok((stream, _)) = silent.accept().await {
                kept.push(stream);
            }
        });
        let saves = Saves::new(crate::connect_options(&url).unwrap(), 1, Duration::from_millis(300));
        let started = Instant::now();
        let waited = tokio::time::timeout(Duration::from_secs(20), saves.begin()).await.expect("no hang");
        assert!(matches!(waited, Err(StoreError::Unavailable(_))), "{:?}", waited.err());
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        held.abort();
    }
}
