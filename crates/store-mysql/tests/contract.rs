//! The shared store contract suite, run against MariaDB: `MEMORY_BANK_TEST_MYSQL_URL`
//! or a throwaway server, a fresh database per test.

use std::sync::Arc;

use async_trait::async_trait;
use memory_bank_store::suite::Fixture;
use memory_bank_store::MemoryStore;
use memory_bank_store_mysql::testing::TestDatabase;
use memory_bank_store_mysql::MySqlStore;

struct MySqlFixture {
    db: TestDatabase,
    store: MySqlStore,
}

impl MySqlFixture {
    async fn new() -> Self {
        let db = TestDatabase::create().await;
        let store = MySqlStore::open(db.url()).await.unwrap();
        store.migrate().await.unwrap();
        Self { db, store }
    }
}

#[async_trait]
impl Fixture for MySqlFixture {
    fn store(&self) -> Arc<dyn MemoryStore> {
        Arc::new(self.store.clone())
    }

    async fn reopen(&self) -> Arc<dyn MemoryStore> {
        Arc::new(MySqlStore::open(self.db.url()).await.unwrap())
    }

    async fn fail_poison_context_inserts(&self) {
        // A real trigger, so the failure comes from the server mid-transaction.
        sqlx::raw_sql(
            "CREATE TRIGGER fail_context BEFORE INSERT ON memory_context FOR EACH ROW
             BEGIN
               IF NEW.snippet = 'poison' THEN
                 SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure';
               END IF;
             END",
        )
        .execute(self.store.pool())
        .await
        .unwrap();
    }

    async fn fail_poison_context_deletes(&self) {
        sqlx::raw_sql(
            "CREATE TRIGGER fail_context_delete BEFORE DELETE ON memory_context FOR EACH ROW
             BEGIN
               IF OLD.snippet = 'poison' THEN
                 SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure';
               END IF;
             END",
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
            "memory_vector" => "SELECT count(*) FROM memory_vector",
            other => panic!("unknown table {other}"),
        };
        sqlx::query_scalar(sql).fetch_one(self.store.pool()).await.unwrap()
    }

    async fn index_hits(&self, scoped_term: &str) -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM memory_term WHERE term = ?")
            .bind(scoped_term)
            .fetch_one(self.store.pool())
            .await
            .unwrap()
    }

    async fn drop_search_index(&self) {
        sqlx::raw_sql("DROP TABLE memory_term").execute(self.store.pool()).await.unwrap();
    }
}

memory_bank_store::store_suite!(MySqlFixture::new());

/// Search by meaning, with the real model (`scripts/fetch-model.sh` fetches it).
mod meaning {
    use super::*;

    memory_bank_store::meaning_suite!(MySqlFixture::new(), memory_bank_meaning::installed_model());
}
