//! MySQL/MariaDB-specific behaviour beyond the shared suite: the search index table's
//! lifecycle under concurrency, its fill from older databases, bootstrap and migrate paths, repairing a database
//! made by an older schema, exact millisecond timestamps, and error mapping.

use std::sync::Arc;
use std::time::{Duration, Instant};

use memory_bank_contract::validate::{validate_save, ValidSearch};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_store::{terms, Bank, BankKey, MemoryStore, NewMemory, StoreError};
use memory_bank_store_mysql::testing::TestDatabase;
use memory_bank_store_mysql::{MySqlOptions, MySqlStore, SchemaState};
use sqlx::Row;

#[path = "mariadb/counts.rs"]
mod counts;
#[path = "mariadb/saves.rs"]
mod saves;
#[path = "mariadb/search_index.rs"]
mod search_index;

async fn fulltext_indexes(store: &MySqlStore) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT DISTINCT CAST(INDEX_NAME AS CHAR) FROM information_schema.STATISTICS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory' AND INDEX_TYPE = 'FULLTEXT'",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
}

/// The index names of `memory` other than FULLTEXT, each with its columns in order.
async fn btree_indexes(store: &MySqlStore) -> Vec<(String, String)> {
    sqlx::query_as(
        "SELECT CAST(INDEX_NAME AS CHAR), CAST(GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS CHAR)
         FROM information_schema.STATISTICS
         WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'memory' AND INDEX_TYPE = 'BTREE'
         GROUP BY INDEX_NAME ORDER BY INDEX_NAME",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
}

/// Memories are clustered by owner (search reads few pages) and ids stay unique.
const CLUSTERED: [(&str, &str); 2] = [("memory_id", "id"), ("PRIMARY", "user_id,created_at,id")];

async fn seeded_bank(store: &MySqlStore) -> (Bank, String, String) {
    let bank = Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Analytical Engines").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    (bank, user, org)
}

async fn save(bank: &Bank, user: &str, org: &str, content: &str) -> String {
    let input = validate_save(SaveMemoryRequest { content: content.into(), ..Default::default() }).unwrap();
    bank.save(user, org, input).await.unwrap().id
}

async fn search(bank: &Bank, user: &str, q: &str) -> Vec<String> {
    let hits = bank.search(user, &ValidSearch { query: q.into(), limit: 50, words_only: false }).await.unwrap();
    hits.into_iter().map(|h| h.memory.content).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_concurrent_ensures_create_exactly_one_index() {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    let (bank, user, org) = seeded_bank(&store).await;
    for i in 0..30 {
        save(&bank, &user, &org, &format!("row {i} about the albatross")).await;
    }
    sqlx::raw_sql("DROP TABLE memory_term").execute(store.pool()).await.unwrap();
    let mut stores = Vec::new();
    for _ in 0..8 {
        stores.push(MySqlStore::open(db.url()).await.unwrap());
    }
    let tasks: Vec<_> = stores.into_iter().map(|s| tokio::spawn(async move { s.ensure_search_index().await })).collect();
    let mut created = 0;
    for task in tasks {
        created += usize::from(task.await.unwrap().unwrap().created);
    }
    assert_eq!(created, 1, "exactly one of eight concurrent callers creates the index");
    assert!(store.search_index_exists().await.unwrap());
    assert_eq!(search(&bank, &user, "albatross").await.len(), 30, "the rebuilt index holds every earlier row");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_concurrent_bootstraps_of_a_new_database_agree() {
    let db = TestDatabase::create().await;
    let mut stores = Vec::new();
    for _ in 0..8 {
        stores.push(MySqlStore::open(db.url()).await.unwrap());
    }
    assert_eq!(stores[0].schema_state().await.unwrap(), SchemaState::Empty);
    let tasks: Vec<_> = stores.into_iter().map(|s| tokio::spawn(async move { s.migrate().await })).collect();
    let mut created = 0;
    for task in tasks {
        created += usize::from(task.await.unwrap().unwrap().created);
    }
    assert_eq!(created, 1);
    let store = MySqlStore::open(db.url()).await.unwrap();
    assert_eq!(store.schema_state().await.unwrap(), SchemaState::Current);
    assert!(fulltext_indexes(&store).await.is_empty(), "no FULLTEXT index: the store's own index table replaces it");
    assert!(store.search_index_exists().await.unwrap());
    let indexes = btree_indexes(&store).await;
    assert_eq!(indexes.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect::<Vec<_>>(), CLUSTERED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bootstrap_then_migrate_both_end_with_the_index() {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    assert!(!store.search_index_exists().await.unwrap_or(false));
    assert!(store.migrate().await.unwrap().created, "bootstrap of a new database creates the index");
    assert!(store.search_index_exists().await.unwrap());
    assert!(!store.migrate().await.unwrap().created, "a second run finds it");
    sqlx::raw_sql("DROP TABLE memory_term").execute(store.pool()).await.unwrap();
    assert!(store.migrate().await.unwrap().created, "migrate puts a lost index back");
    assert!(store.search_index_exists().await.unwrap());
    assert_eq!(store.schema_state().await.unwrap(), SchemaState::Current);
}

/// The tables as an older memory-bank created them: no migration history, no
/// FULLTEXT index, and `created_at` columns with other types and defaults.
const OLDER_SCHEMA: &str = "
CREATE TABLE users (id VARCHAR(64) NOT NULL PRIMARY KEY, email VARCHAR(254) NOT NULL COLLATE utf8mb4_unicode_ci UNIQUE,
    created_at TIMESTAMP(3) NOT NULL DEFAULT now()) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE orgs (id VARCHAR(64) NOT NULL PRIMARY KEY, name VARCHAR(128) NOT NULL,
    created_at TIMESTAMP(3) NOT NULL DEFAULT now()) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE org_members (org_id VARCHAR(64) NOT NULL, user_id VARCHAR(64) NOT NULL,
    created_at TIMESTAMP(3) NOT NULL DEFAULT now(), PRIMARY KEY (org_id, user_id)) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE api_tokens (id VARCHAR(64) NOT NULL PRIMARY KEY, user_id VARCHAR(64) NOT NULL,
    token_hash VARCHAR(128) NOT NULL UNIQUE, created_at TIMESTAMP(3) NOT NULL DEFAULT now(),
    revoked_at TIMESTAMP(3) NULL) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE memory (id VARCHAR(64) NOT NULL PRIMARY KEY, user_id VARCHAR(64) NOT NULL, org_id VARCHAR(64) NOT NULL,
    scope ENUM('user', 'org') NOT NULL DEFAULT 'user', content TEXT NOT NULL, source VARCHAR(64) NOT NULL,
    tags JSON NULL, search_text MEDIUMTEXT NOT NULL,
    created_at TIMESTAMP(3) NULL DEFAULT NULL,
    updated_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    KEY memory_user_id (user_id)) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE memory_context (id VARCHAR(64) NOT NULL PRIMARY KEY, memory_id VARCHAR(64) NOT NULL, citation JSON NULL,
    snippet TEXT NOT NULL, origin ENUM('active_conversation', 'searched_conversation') NULL,
    created_at DATETIME(3) NOT NULL DEFAULT now(3),
    KEY memory_context_memory_id (memory_id)) DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_repairs_an_older_schema_keeping_rows_and_milliseconds() {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    sqlx::raw_sql(OLDER_SCHEMA).execute(store.pool()).await.unwrap();
    let user = "usr_01kb0000000000000000000001";
    let search_text = terms::index_text(user, ["Legacy note about the quokka", "marsupial"]);
    sqlx::query(
        "INSERT INTO memory (id, user_id, org_id, scope, content, source, tags, search_text, created_at, updated_at)
         VALUES ('mem_01kb0000000000000000000001', ?, 'org_x', 'user', 'Legacy note about the quokka', 'chat',
                 '[\"marsupial\"]', ?, '2025-11-29 22:25:11.007', '2025-11-29 22:25:11.007')",
    )
    .bind(user)
    .bind(&search_text)
    .execute(store.pool())
    .await
    .unwrap();
    sqlx::raw_sql(
        "INSERT INTO memory_context (id, memory_id, snippet, created_at)
         VALUES ('mctx_01kb0000000000000000000001', 'mem_01kb0000000000000000000001', 'from the old days', '2025-11-29 22:25:11.999')",
    )
    .execute(store.pool())
    .await
    .unwrap();
    // Two orgs whose members were equals: each one's first member will own it.
    sqlx::raw_sql(
        "INSERT INTO org_members (org_id, user_id, created_at) VALUES
           ('org_x', 'usr_b', '2025-11-29 10:00:00.000'), ('org_x', 'usr_a', '2025-11-29 09:00:00.000'),
           ('org_y', 'usr_d', '2025-11-30 10:00:00.000'), ('org_y', 'usr_c', '2025-11-30 10:00:00.000')",
    )
    .execute(store.pool())
    .await
    .unwrap();
    assert_eq!(store.schema_state().await.unwrap(), SchemaState::Untracked);
    assert!(matches!(
        store.search_candidates(BankKey::Personal(user), &terms::scope_terms(user, &[terms::Term::exact("quokka")]), 10).await,
        Err(StoreError::SearchIndexMissing { .. })
    ));

    assert!(store.migrate().await.unwrap().created);

    assert_eq!(store.schema_state().await.unwrap(), SchemaState::Current);
    assert_eq!(store.count_memories(BankKey::Personal(user)).await.unwrap(), 1, "the migration counts the rows already there");
    let indexes = btree_indexes(&store).await;
    assert_eq!(indexes.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect::<Vec<_>>(), CLUSTERED, "re-clustered by owner");
    for table in ["memory", "memory_context"] {
        let row = sqlx::query(
            "SELECT CAST(COLUMN_DEFAULT AS CHAR) AS d, CAST(DATA_TYPE AS CHAR) AS t, CAST(IS_NULLABLE AS CHAR) AS n
             FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = 'created_at'",
        )
        .bind(table)
        .fetch_one(store.pool())
        .await
        .unwrap();
        let (default, kind, nullable): (String, String, String) = (row.get("d"), row.get("t"), row.get("n"));
        assert!(default.eq_ignore_ascii_case("current_timestamp(3)"), "{table}: {default}");
        assert_eq!((kind.as_str(), nullable.as_str()), ("timestamp", "NO"), "{table}");
    }
    let listed = store.list_memories(BankKey::Personal(user), None, 10).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].created_at.to_rfc3339(), "2025-11-29T22:25:11.007Z");
    assert_eq!(listed[0].contexts[0].created_at.to_rfc3339(), "2025-11-29T22:25:11.999Z");
    assert_eq!(listed[0].tags.as_deref(), Some(&["marsupial".to_owned()][..]));
    let roles: Vec<(String, String, String)> =
        sqlx::query_as("SELECT org_id, user_id, CAST(role AS CHAR) FROM org_members ORDER BY org_id, user_id").fetch_all(store.pool()).await.unwrap();
    let roles: Vec<(&str, &str, &str)> = roles.iter().map(|(o, u, r)| (o.as_str(), u.as_str(), r.as_str())).collect();
    assert_eq!(
        roles,
        [("org_x", "usr_a", "owner"), ("org_x", "usr_b", "member"), ("org_y", "usr_c", "owner"), ("org_y", "usr_d", "member")],
        "the earliest member owns each org (ties: the smaller id)"
    );
    store.migrate().await.unwrap();
    let owners: i64 = sqlx::query_scalar("SELECT count(*) FROM org_members WHERE role = 'owner'").fetch_one(store.pool()).await.unwrap();
    assert_eq!(owners, 2, "migrating again makes no more owners");
    let bank = Bank::new(Arc::new(store.clone()));
    assert_eq!(search(&bank, user, "quokka").await, ["Legacy note about the quokka"]);
    assert_eq!(search(&bank, user, "marsupial").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_is_searchable_from_another_pool_as_soon_as_it_commits() {
    let db = TestDatabase::create().await;
    let writer = MySqlStore::open(db.url()).await.unwrap();
    writer.migrate().await.unwrap();
    let (bank, user, org) = seeded_bank(&writer).await;
    let reader = Bank::new(Arc::new(MySqlStore::open(db.url()).await.unwrap()));
    for i in 0..25 {
        let marker = format!("fresh{i}marker");
        save(&bank, &user, &org, &format!("just saved {marker}")).await;
        assert_eq!(search(&reader, &user, &marker).await.len(), 1, "{marker} not visible to the other pool");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timestamps_keep_milliseconds_whatever_the_server_time_zone() {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    let zone: String = sqlx::query_scalar("SELECT @@session.time_zone").fetch_one(store.pool()).await.unwrap();
    assert_eq!(zone, "+00:00");
    let clock = memory_bank_store::suite::FixedClock::at(1_764_455_111_999);
    let bank = Bank::with_clock(Arc::new(store.clone()), clock.clone());
    let user = bank.add_user("tz@example.com").await.unwrap();
    let org = bank.add_org("Zones").await.unwrap();
    let id = save(&bank, &user.id, &org.id, "stamped").await;
    // The stored instant is the same seen from another session time zone.
    let mut conn = store.pool().acquire().await.unwrap();
    sqlx::raw_sql("SET time_zone = '+05:30'").execute(&mut *conn).await.unwrap();
    let ms: i64 = sqlx::query_scalar("SELECT CAST(UNIX_TIMESTAMP(created_at) * 1000 AS SIGNED) FROM memory WHERE id = ?")
        .bind(&id)
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    assert_eq!(ms, 1_764_455_111_999);
    // Put the connection back in UTC before the pool reuses it.
    sqlx::raw_sql("SET time_zone = '+00:00'").execute(&mut *conn).await.unwrap();
    drop(conn);
    let listed = store.list_memories(BankKey::Personal(&user.id), None, 5).await.unwrap();
    assert_eq!(listed[0].created_at.unix_ms(), 1_764_455_111_999);
    assert_eq!(bank.list_users().await.unwrap()[0].created_at.unix_ms(), 1_764_455_111_999);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_state_names_what_a_database_needs() {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    assert_eq!(store.schema_state().await.unwrap(), SchemaState::Empty);
    store.migrate().await.unwrap();
    assert_eq!(store.schema_state().await.unwrap(), SchemaState::Current);
    sqlx::raw_sql(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (99991231000000, 'from the future', TRUE, x'00', 0)",
    )
    .execute(store.pool())
    .await
    .unwrap();
    assert_eq!(store.schema_state().await.unwrap(), SchemaState::Ahead);
}

/// A deadlock is a conflict to retry (`Contended`, answered 503 by the service),
/// not a database failure (500): Galera reports another node's conflicting write
/// the same way, and `db migrate` runs again on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadlock_is_a_conflict_to_retry() {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    sqlx::raw_sql("CREATE TABLE scratch (id INT PRIMARY KEY, n INT) ENGINE = InnoDB; INSERT INTO scratch VALUES (1, 0), (2, 0)")
        .execute(store.pool())
        .await
        .unwrap();
    let (mut first, mut second) = (store.pool().begin().await.unwrap(), store.pool().begin().await.unwrap());
    sqlx::query("UPDATE scratch SET n = 1 WHERE id = 1").execute(&mut *first).await.unwrap();
    sqlx::query("UPDATE scratch SET n = 2 WHERE id = 2").execute(&mut *second).await.unwrap();
    // Each now wants the row the other holds: InnoDB rolls one of them back.
    let crossing = tokio::spawn(async move {
        let outcome = sqlx::query("UPDATE scratch SET n = 1 WHERE id = 2").execute(&mut *first).await.map(|_| ());
        (outcome, first)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let outcome = sqlx::query("UPDATE scratch SET n = 2 WHERE id = 1").execute(&mut *second).await.map(|_| ());
    drop(second);
    let (crossed, first) = crossing.await.unwrap();
    drop(first);
    let errors: Vec<StoreError> =
        [outcome, crossed].into_iter().filter_map(Result::err).map(memory_bank_store_mysql::testing::store_error).collect();
    assert_eq!(errors.len(), 1, "one of the two is rolled back: {errors:?}");
    assert!(matches!(errors[0], StoreError::Contended(_)), "{:?}", errors[0]);
    assert!(errors[0].to_string().contains("retry"), "{}", errors[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_and_misnamed_databases_say_what_to_do() {
    // Nothing listens on port 1: connection refused until the acquire timeout.
    let options = MySqlOptions { acquire_timeout: Duration::from_millis(500), ..MySqlOptions::default() };
    let started = Instant::now();
    let err = MySqlStore::open_with("mysql://root@127.0.0.1:1/memory", &options).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let db = TestDatabase::create().await;
    let missing = db.url().replace(db.name(), "no_such_database_here");
    let err = MySqlStore::open(&missing).await.unwrap_err().to_string();
    assert!(err.contains("does not exist") && err.contains("memory-bank db bootstrap"), "{err}");
}

/// An index table grown save by save, in the random key order of many banks' words,
/// has part-full pages, and `optimize_search_index` writes it anew, smaller, with every
/// memory still found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn optimize_compacts_an_index_grown_save_by_save() {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    let users: Vec<String> = (0..40).map(|i| format!("usr_compact{i:02}")).collect();
    // A fixed pseudo-random stream: 12 words per memory from 3 000, so each user's
    // words recur across batches, as they do across a year of saves.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut memories = Vec::new();
    for batch in 0..60 {
        let rows: Vec<NewMemory> = (0..100)
            .map(|i| {
                let user = &users[next(users.len() as u64) as usize];
                let words: Vec<String> = (0..12).map(|_| format!("w{}x", next(3000))).collect();
                NewMemory::plain(user, "org_compact", words.join(" "), 1_764_000_000_000 + batch * 100 + i)
            })
            .collect();
        store.insert_memories(&rows).await.unwrap();
        memories.extend(rows);
    }
    let outcome = store.optimize_search_index().await.unwrap();
    let (before, after) = (outcome.before_bytes.unwrap(), outcome.after_bytes.unwrap());
    // Measured: 11.1 → 7.9 MB, the pages of a B-tree split at random points packed.
    assert!(after * 6 < before * 5, "the index should shrink by a sixth or more: {before} → {after} bytes");
    // Every memory is still a candidate for each of its words (a sample of them).
    for memory in memories.iter().step_by(97) {
        for word in memory.content.split(' ').step_by(5) {
            let scoped = terms::scope_terms(&memory.user_id, &[terms::Term::exact(word)]);
            let found = store.search_candidates(BankKey::Personal(&memory.user_id), &scoped, 1000).await.unwrap();
            assert!(found.iter().any(|c| c.id == memory.id), "{} lost {word}", memory.id);
        }
    }
}
