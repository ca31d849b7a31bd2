//! The MySQL store ranks exactly like the SQLite store: the same memories (same ids,
//! timestamps and terms) loaded into both, then many searches through `Bank`, must
//! return the same ids in the same order with the same scores. The candidates are
//! also compared directly under small caps, so that searches with more matches than
//! the cap (the MySQL store's ordered statement) and with fewer (its unordered one,
//! sorted in the app) both meet the SQLite store's answer.

use std::sync::Arc;

use memory_bank_contract::ids::{self, MEMORY_PREFIX};
use memory_bank_contract::validate::ValidSearch;
use memory_bank_contract::wire::Scope;
use memory_bank_contract::Timestamp;
use memory_bank_store::{terms, Bank, MemoryStore, NewMemory};
use memory_bank_store_mysql::testing::TestDatabase;
use memory_bank_store_mysql::MySqlStore;
use memory_bank_store_sqlite::SqliteStore;

const WORDS: [&str; 12] = ["tea", "coffee", "green", "lantern", "Go", "C++", "绿茶", "迁移", "the", "who", "café", "plan"];

/// A small deterministic generator (no dependency for a test corpus).
fn next(seed: &mut u64) -> usize {
    *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 33) as usize
}

fn corpus(users: &[String]) -> Vec<NewMemory> {
    let mut seed = 42;
    let start = 1_764_455_111_007;
    (0..600)
        .map(|i| {
            let user = &users[next(&mut seed) % users.len()];
            // Word k is drawn with probability 2^-(k+1): "tea" is in nearly every row,
            // the last words in a few.
            let content: Vec<&str> =
                (0..6).map(|_| WORDS[((next(&mut seed) + 1).trailing_zeros() as usize).min(WORDS.len() - 1)]).collect();
            let content = content.join(" ");
            // Some memories share a millisecond, so ties are broken by id.
            let at = start + (i / 3) as i64;
            NewMemory {
                id: ids::new_id_at(MEMORY_PREFIX, at),
                user_id: user.clone(),
                org_id: "org_same".into(),
                scope: Scope::User,
                search_text: terms::index_text(user, [content.as_str()]),
                content,
                source: "chat".into(),
                tags: None,
                created_at: Timestamp::from_unix_ms(at),
                contexts: vec![],
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_and_sqlite_return_the_same_results_for_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&format!("sqlite://{}", dir.path().join("same.db").display())).await.unwrap();
    let db = TestDatabase::create().await;
    let mysql = MySqlStore::open(db.url()).await.unwrap();
    mysql.migrate().await.unwrap();
    let users: Vec<String> = (0..3).map(|i| format!("usr_same{i}")).collect();
    let rows = corpus(&users);
    for store in [&sqlite as &dyn MemoryStore, &mysql] {
        store.insert_memories(&rows).await.unwrap();
    }
    for user in &users {
        for q in ["tea", "coffee green", "lantern", "绿茶"] {
            let scoped = terms::scope_terms(user, &terms::query_terms(q));
            for cap in [5, 40, 1000] {
                let a = sqlite.search_candidates(user, &scoped, cap).await.unwrap();
                let b = mysql.search_candidates(user, &scoped, cap).await.unwrap();
                assert_eq!(a, b, "candidates: user {user}, query {q:?}, cap {cap}");
                assert!(cap < 1000 || a.len() < 1000);
            }
        }
    }
    let banks = [Bank::new(Arc::new(sqlite)), Bank::new(Arc::new(mysql))];
    let queries = ["tea", "coffee green", "Go", "c++", "绿茶", "迁移计划", "the who", "cafe", "lantern plan tea", "nothing"];
    let mut compared = 0;
    for user in &users {
        for q in queries {
            for limit in [1, 7, 50] {
                let request = ValidSearch { query: q.into(), limit };
                let [a, b] = [&banks[0], &banks[1]].map(|bank| {
                    let request = request.clone();
                    let user = user.clone();
                    let bank = bank.clone();
                    async move {
                        let hits = bank.search(&user, &request).await.unwrap();
                        hits.into_iter().map(|h| (h.memory.id, h.score)).collect::<Vec<_>>()
                    }
                });
                let (a, b) = (a.await, b.await);
                assert_eq!(a, b, "user {user}, query {q:?}, limit {limit}");
                compared += a.len();
            }
        }
    }
    assert!(compared > 500, "the queries found too little to compare: {compared}");
}
