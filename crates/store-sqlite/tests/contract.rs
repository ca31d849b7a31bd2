//! The shared store contract suite, run against a real SQLite file: plaintext, and
//! encrypted (SQLCipher, a random key) in `mod encrypted`.

use std::sync::Arc;

use async_trait::async_trait;
use memory_bank_store::suite::Fixture;
use memory_bank_store::MemoryStore;
use memory_bank_store_sqlite::{DbKey, FileState, SqliteStore};

struct SqliteFixture {
    _dir: tempfile::TempDir,
    url: String,
    key: Option<DbKey>,
    store: SqliteStore,
}

impl SqliteFixture {
    async fn new() -> Self {
        Self::with_key(None).await
    }

    async fn with_key(key: Option<DbKey>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.db");
        let url = format!("sqlite://{}", path.display());
        let store = SqliteStore::open_with_key(&url, key.as_ref()).await.unwrap();
        let expected = if key.is_some() { FileState::Encrypted } else { FileState::Plaintext };
        assert_eq!(memory_bank_store_sqlite::encryption::file_state(&path).unwrap(), expected);
        Self { _dir: dir, url, key, store }
    }
}

#[async_trait]
impl Fixture for SqliteFixture {
    fn store(&self) -> Arc<dyn MemoryStore> {
        Arc::new(self.store.clone())
    }

    async fn reopen(&self) -> Arc<dyn MemoryStore> {
        Arc::new(SqliteStore::open_with_key(&self.url, self.key.as_ref()).await.unwrap())
    }

    async fn fail_poison_context_inserts(&self) {
        // A real trigger, so the failure comes from the database mid-transaction.
        sqlx::query(
            "CREATE TRIGGER fail_context BEFORE INSERT ON memory_context
             WHEN NEW.snippet = 'poison' BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
        )
        .execute(self.store.pool())
        .await
        .unwrap();
    }

    async fn fail_poison_context_deletes(&self) {
        sqlx::query(
            "CREATE TRIGGER fail_context_delete BEFORE DELETE ON memory_context
             WHEN OLD.snippet = 'poison' BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
        )
        .execute(self.store.pool())
        .await
        .unwrap();
    }

    async fn clear_faults(&self) {
        for sql in ["DROP TRIGGER IF EXISTS fail_context", "DROP TRIGGER IF EXISTS fail_context_delete"] {
            sqlx::query(sql).execute(self.store.pool()).await.unwrap();
        }
    }

    async fn count(&self, table: &str) -> i64 {
        let sql = match table {
            "memory" => "SELECT count(*) FROM memory",
            "memory_context" => "SELECT count(*) FROM memory_context",
            "memory_revision" => "SELECT count(*) FROM memory_revision",
            other => panic!("unknown table {other}"),
        };
        sqlx::query_scalar(sql).fetch_one(self.store.pool()).await.unwrap()
    }

    async fn index_hits(&self, scoped_term: &str) -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?1")
            .bind(format!("\"{scoped_term}\""))
            .fetch_one(self.store.pool())
            .await
            .unwrap()
    }

    async fn drop_search_index(&self) {
        sqlx::query("DROP TABLE memory_fts").execute(self.store.pool()).await.unwrap();
    }
}

memory_bank_store::store_suite!(SqliteFixture::new());

/// The whole suite again on an encrypted bank: every pooled connection is keyed.
mod encrypted {
    use super::*;

    memory_bank_store::store_suite!(SqliteFixture::with_key(Some(DbKey::generate())));
}

/// The desktop app and agents' `memory-bank mcp` processes may open a new bank at the
/// same moment: every opener must succeed, and the bank is migrated once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn openers_racing_on_a_new_bank_all_succeed() {
    for _ in 0..10 {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("memory.db").display());
        let opens = (0..4).map(|_| {
            let url = url.clone();
            async move { SqliteStore::open(&url).await }
        });
        for opened in futures_join_all(opens).await {
            let store = opened.expect("every opener succeeds");
            assert!(store.search_index_exists().await.unwrap());
        }
    }
}

async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}
