//! A search's and a list page's reads through rusqlite, stepped by the thread that asks.
//!
//! Why: sqlx runs each SQLite connection on a thread of its own and hands every
//! statement and every row across threads. A search reads up to a thousand candidate
//! rows; through sqlx they had to be packed into one text value and unpacked again, and
//! the hand-offs and copies cost as much as SQLite's own work: a common word's
//! candidates took 1.3–1.5 ms through the store's sqlx pool against 0.6–0.8 ms stepped
//! here, row by row, on the same SQLCipher (BENCHMARKS.md, "A search's reads on the
//! asking thread"). Writes and every other read stay on sqlx.
//!
//! A file bank's readers are connections of their own, keyed and cached as sqlx's are,
//! and they never write (`query_only`). An in-memory bank exists in its one sqlx
//! connection only, so its reads borrow that connection while sqlx's thread waits.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use memory_bank_store::StoreError;
use rusqlite::{Connection, OpenFlags};
use sqlx::SqlitePool;

use crate::rows::{db_err, index_missing};
use crate::{DbKey, BUSY_TIMEOUT, PAGE_CACHE_KIB};

/// Idle readers kept per file bank, as many as sqlx keeps readers: each holds its own
/// page cache, so a few warm ones beat many cold ones.
const KEPT: usize = crate::READERS as usize;

/// Where a bank's reads run.
pub(crate) struct Readers {
    source: Source,
    idle: Mutex<Vec<Connection>>,
    closed: AtomicBool,
}

enum Source {
    /// A file: readers of its own, opened with its key (if it is encrypted).
    File { path: PathBuf, key: Option<DbKey> },
    /// In memory: the store's one sqlx connection, borrowed.
    Memory(SqlitePool),
}

impl std::fmt::Debug for Readers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let source = match &self.source {
            Source::File { path, key } => format!("{} ({})", path.display(), if key.is_some() { "keyed" } else { "plaintext" }),
            Source::Memory(_) => "in memory".to_owned(),
        };
        f.debug_struct("Readers").field("source", &source).finish_non_exhaustive()
    }
}

impl Readers {
    /// Readers of the bank file at `path`, opened with `key` as the store's own connections are.
    pub(crate) fn of_file(path: &Path, key: Option<&DbKey>) -> Self {
        Self::new(Source::File { path: path.to_owned(), key: key.cloned() })
    }

    /// Reads of an in-memory bank, on `pool`'s one connection.
    pub(crate) fn of_memory(pool: SqlitePool) -> Self {
        Self::new(Source::Memory(pool))
    }

    fn new(source: Source) -> Self {
        Self { source, idle: Mutex::new(Vec::new()), closed: AtomicBool::new(false) }
    }

    /// Runs `read` on a reader connection, on this thread (see [`on_this_thread`]).
    pub(crate) async fn read<T>(&self, read: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(closed());
        }
        match &self.source {
            Source::File { path, key } => {
                let taken = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
                let (conn, answer) = on_this_thread(|| {
                    let conn = match taken {
                        Some(conn) => conn,
                        None => open(path, key.as_ref())?,
                    };
                    let answer = read(&conn);
                    Ok::<_, rusqlite::Error>((conn, answer))
                })
                .map_err(read_err)?;
                self.give_back(conn);
                answer.map_err(read_err)
            }
            Source::Memory(pool) => {
                let mut conn = pool.acquire().await.map_err(db_err)?;
                let mut locked = conn.lock_handle().await.map_err(db_err)?;
                let handle = locked.as_raw_handle();
                on_this_thread(|| {
                    // SAFETY: sqlx's thread leaves the connection alone while `locked`
                    // lives, and this borrowed `Connection` (which never closes the
                    // handle) is dropped, its statements finalized, before `locked` is.
                    let borrowed = unsafe { Connection::from_handle(handle.as_ptr()) }?;
                    read(&borrowed)
                })
                .map_err(read_err)
            }
        }
    }

    fn give_back(&self, conn: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < KEPT && !self.closed.load(Ordering::Acquire) {
            idle.push(conn);
        }
    }

    /// Closes the idle readers and refuses reads from now on (the store is closing, so
    /// that its files can be replaced or removed).
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

/// A reader of the file at `path`: the key first (SQLCipher reads nothing before it),
/// then the page cache and busy timeout sqlx's connections have, and no writes.
fn open(path: &Path, key: Option<&DbKey>) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    if let Some(key) = key {
        // A pragma takes no bound parameter; the value is the key's raw-key literal,
        // hexadecimal digits only, as sqlx's connections are given it.
        conn.execute_batch(&format!(
            "PRAGMA key = {}; PRAGMA cipher_hmac_algorithm = {};",
            key.pragma_value(),
            crate::encryption::HMAC_ALGORITHM
        ))?;
    }
    conn.execute_batch(&format!("PRAGMA cache_size = -{PAGE_CACHE_KIB}; PRAGMA query_only = ON;"))?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// Runs `work` on the calling thread. On a multi-threaded runtime the thread first hands
/// its other tasks to another worker (`block_in_place`), so a search's millisecond
/// blocks no one else's request; a current-thread runtime (the MCP server's, one
/// client) has nobody to hand them to.
fn on_this_thread<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|runtime| runtime.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// Maps a reader's error as [`db_err`] maps sqlx's.
fn read_err(err: rusqlite::Error) -> StoreError {
    let message = err.to_string();
    if index_missing(&message) {
        return StoreError::SearchIndexMissing { backend: "sqlite" };
    }
    match err.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked | rusqlite::ErrorCode::CannotOpen) => {
            StoreError::Unavailable(message)
        }
        _ => StoreError::Database(message),
    }
}

fn closed() -> StoreError {
    StoreError::Unavailable("the bank was closed; open it again".to_owned())
}

#[cfg(test)]
mod tests {
    use memory_bank_store::{terms, BankKey, MemoryStore, NewMemory, StoreError, SEARCH_CANDIDATE_CAP};

    use crate::SqliteStore;

    /// The ids a search for `word` finds in `user`'s bank, and their memories read back.
    async fn search(store: &SqliteStore, user: &str, word: &str) -> Result<Vec<String>, StoreError> {
        let scoped = terms::scope_terms(user, &terms::covering_terms(&terms::query_terms(word)));
        let ids: Vec<String> =
            store.search_candidates(BankKey::Personal(user), &scoped, SEARCH_CANDIDATE_CAP).await?.into_iter().map(|c| c.id).collect();
        let read: Vec<String> = store.memories_by_ids(BankKey::Personal(user), &ids).await?.into_iter().map(|m| m.id).collect();
        assert_eq!(read.len(), ids.len(), "every candidate's memory reads back");
        Ok(ids)
    }

    async fn saved(store: &SqliteStore, user: &str, content: &str, at: i64) -> String {
        let memory = NewMemory::plain(user, "org_x", content.to_owned(), at);
        store.insert_memory(&memory).await.unwrap();
        memory.id
    }

    /// An in-memory bank has no file to open readers on: its reads borrow the store's
    /// one connection, on either kind of runtime, and see what was just written.
    async fn an_in_memory_bank_is_searched_on_its_own_connection() {
        let store = SqliteStore::open("sqlite::memory:").await.unwrap();
        let deploy = saved(&store, "usr_a", "Deploys go out on Tuesdays", 1_764_000_000_000).await;
        saved(&store, "usr_b", "Deploys of another person", 1_764_000_000_001).await;
        assert_eq!(search(&store, "usr_a", "deploy").await.unwrap(), [deploy.as_str()]);
        let later = saved(&store, "usr_a", "We deploy twice a week", 1_764_000_000_002).await;
        let page: Vec<String> = store.list_memories(BankKey::Personal("usr_a"), None, 10).await.unwrap().into_iter().map(|m| m.id).collect();
        assert_eq!(page, [later.clone(), deploy.clone()], "a list page, newest first");
        let mut found = search(&store, "usr_a", "deploy").await.unwrap();
        found.sort();
        assert_eq!(found, [deploy, later], "the later save is found at once");
        store.close().await;
        assert!(matches!(search(&store, "usr_a", "deploy").await, Err(StoreError::Unavailable(_))));
    }

    #[tokio::test]
    async fn an_in_memory_bank_is_searched_on_a_current_thread_runtime() {
        an_in_memory_bank_is_searched_on_its_own_connection().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_in_memory_bank_is_searched_on_a_multi_threaded_runtime() {
        an_in_memory_bank_is_searched_on_its_own_connection().await;
    }

    /// A file bank's readers: searches running beside saves on both worker threads each
    /// find the save made just before them, never write, and stop with the store.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_file_bank_s_readers_see_each_save_and_never_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let word = format!("word{}", char::from(b'a' + i as u8));
                    let id = saved(&store, "usr_a", &format!("A note about {word}"), 1_764_000_000_000 + i).await;
                    assert_eq!(search(&store, "usr_a", &word).await.unwrap(), [id], "{word}");
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let wrote = store.readers.read(|conn| conn.execute("DELETE FROM memory", [])).await;
        assert!(matches!(wrote, Err(StoreError::Database(_))), "{wrote:?}");
        assert_eq!(store.count_memories(BankKey::Personal("usr_a")).await.unwrap(), 16);
        store.close().await;
        assert!(matches!(search(&store, "usr_a", "worda").await, Err(StoreError::Unavailable(_))));
    }
}
