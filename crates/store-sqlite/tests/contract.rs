//! The shared store contract suite, run against a real SQLite file.

use std::sync::Arc;

use async_trait::async_trait;
use memory_bank_store::suite::Fixture;
use memory_bank_store::MemoryStore;
use memory_bank_store_sqlite::SqliteStore;

struct SqliteFixture {
    _dir: tempfile::TempDir,
    url: String,
    store: SqliteStore,
}

impl SqliteFixture {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("memory.db").display());
        let store = SqliteStore::open(&url).await.unwrap();
        Self { _dir: dir, url, store }
    }
}

#[async_trait]
impl Fixture for SqliteFixture {
    fn store(&self) -> Arc<dyn MemoryStore> {
        Arc::new(self.store.clone())
    }

    async fn reopen(&self) -> Arc<dyn MemoryStore> {
        Arc::new(SqliteStore::open(&self.url).await.unwrap())
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

    async fn count(&self, table: &str) -> i64 {
        let sql = match table {
            "memory" => "SELECT count(*) FROM memory",
            "memory_context" => "SELECT count(*) FROM memory_context",
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
