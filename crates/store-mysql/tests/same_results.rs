//! The MySQL store ranks exactly like the SQLite store: the same memories (same ids,
//! timestamps and terms) loaded into both, then many searches through `Bank`, must
//! return the same ids in the same order with the same scores. The candidates are
//! also compared directly under small caps, so that searches with more matches than
//! the cap (the MySQL store's ordered statement) and with fewer (its unordered one,
//! sorted in the app) both meet the SQLite store's answer. Scoped terms are also passed to the stores directly in forms the app never makes
//! (capitals, accents), where the engines' own comparisons decide.

use std::sync::Arc;

use memory_bank_contract::validate::ValidSearch;
use memory_bank_store::{terms, Bank, MemoryStore, NewMemory};
use memory_bank_store_mysql::testing::TestDatabase;
use memory_bank_store_mysql::MySqlStore;
use memory_bank_store_sqlite::SqliteStore;

const WORDS: [&str; 12] = ["tea", "coffee", "green", "lantern", "Go", "C++", "绿茶", "迁移", "the", "who", "café", "plan"];

/// Scoped terms as a caller might pass them to `search_candidates` directly: upper
/// case (ASCII and not), accents, CJK, a user code in capitals, a term no one has.
fn raw_term_sets(user: &str) -> Vec<Vec<String>> {
    let code = terms::user_code(user);
    let scoped = |ts: &[&str]| ts.iter().map(|t| format!("{code}{t}")).collect::<Vec<_>>();
    vec![
        scoped(&["TEA"]),
        scoped(&["Coffee", "green"]),
        scoped(&["café"]),
        scoped(&["CAFE"]),
        scoped(&["绿茶", "迁移"]),
        scoped(&["绿"]),
        scoped(&["LANTERN", "plan", "nothing"]),
        vec![format!("{}TEA", code.to_ascii_uppercase())],
    ]
}

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
            NewMemory::plain(user, "org_same", content, at)
        })
        .collect()
}

/// The same rows in a fresh SQLite file and a fresh MySQL database. The folder and
/// the test database live as long as the value.
struct Both {
    sqlite: SqliteStore,
    mysql: MySqlStore,
    _dir: tempfile::TempDir,
    _db: TestDatabase,
}

async fn both_loaded_with(rows: &[NewMemory]) -> Both {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&format!("sqlite://{}", dir.path().join("same.db").display())).await.unwrap();
    let db = TestDatabase::create().await;
    let mysql = MySqlStore::open(db.url()).await.unwrap();
    mysql.migrate().await.unwrap();
    for store in [&sqlite as &dyn MemoryStore, &mysql] {
        store.insert_memories(rows).await.unwrap();
    }
    Both { sqlite, mysql, _dir: dir, _db: db }
}

/// A search's hits as (id, score), in rank order.
async fn hits(bank: &Bank, user: &str, request: &ValidSearch) -> Vec<(String, f64)> {
    let hits = bank.search(user, request).await.unwrap();
    hits.into_iter().map(|h| (h.memory.id, h.score)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_and_sqlite_return_the_same_results_for_the_same_data() {
    let users: Vec<String> = (0..3).map(|i| format!("usr_same{i}")).collect();
    let Both { sqlite, mysql, _dir, _db } = both_loaded_with(&corpus(&users)).await;
    let mut matched = 0;
    for user in &users {
        let mut term_sets: Vec<Vec<String>> = ["tea", "coffee green", "lantern", "绿茶", "Café", "nothing"]
            .iter()
            .map(|q| terms::scope_terms(user, &terms::query_terms(q)))
            .collect();
        term_sets.extend(raw_term_sets(user));
        for scoped in &term_sets {
            for cap in [1, 5, 40, 1000] {
                let expected = sqlite.search_candidates(memory_bank_store::BankKey::Personal(user), scoped, cap).await.unwrap();
                assert!(cap < 1000 || expected.len() < 1000);
                matched += expected.len();
                let got = mysql.search_candidates(memory_bank_store::BankKey::Personal(user), scoped, cap).await.unwrap();
                assert_eq!(got, expected, "candidates: user {user}, terms {scoped:?}, cap {cap}");
            }
        }
    }
    assert!(matched > 1000, "the term sets found too little to compare: {matched}");

    let banks = [Bank::new(Arc::new(sqlite)), Bank::new(Arc::new(mysql))];
    let queries = ["tea", "coffee green", "Go", "c++", "绿茶", "迁移计划", "the who", "cafe", "CAFÉ", "lantern plan tea", "nothing"];
    let mut compared = 0;
    for user in &users {
        for q in queries {
            for limit in [1, 7, 50] {
                let request = ValidSearch { query: q.into(), limit, words_only: false };
                let (a, b) = (hits(&banks[0], user, &request).await, hits(&banks[1], user, &request).await);
                assert_eq!(a, b, "user {user}, query {q:?}, limit {limit}");
                compared += a.len();
            }
        }
    }
    assert!(compared > 500, "the queries found too little to compare: {compared}");
}

/// Letters above U+FFFF (CJK extension B, Adlam) are word separators to InnoDB's
/// FULLTEXT parser, which this store once searched with (`u…𠀀𠀁` was read as the bare
/// user code). Its own index holds the app's terms byte for byte: candidates under
/// every cap, several terms at once included, ranks and scores are the SQLite store's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn letters_beyond_the_basic_plane_give_the_same_results() {
    let user = "usr_wide";
    let texts = ["𠀀𠀁 report", "𠀂 memo", "ab𞤀 note", "𞤀𞤁𞤂 song", "ab tea", "tea plan", "𠀀 tea", "tea plan again"];
    let mut seed = 7;
    let rows: Vec<NewMemory> = (0..90)
        .map(|i| NewMemory::plain(user, "org_wide", texts[next(&mut seed) % texts.len()].to_owned(), 1_764_455_111_007 + i / 2))
        .collect();
    let Both { sqlite, mysql, _dir, _db } = both_loaded_with(&rows).await;
    let queries = ["𠀀𠀁", "𠀂", "𠀀", "ab", "ab𞤀", "𞤀𞤁𞤂", "tea", "report", "𠀂 ab tea"];
    let mut matched = 0;
    for q in queries {
        let scoped = terms::scope_terms(user, &terms::query_terms(q));
        for cap in [1, 2, 5, 30, 1000] {
            let expected = sqlite.search_candidates(memory_bank_store::BankKey::Personal(user), &scoped, cap).await.unwrap();
            matched += expected.len();
            let got = mysql.search_candidates(memory_bank_store::BankKey::Personal(user), &scoped, cap).await.unwrap();
            assert_eq!(got, expected, "candidates: query {q:?}, cap {cap}");
        }
    }
    assert!(matched > 200, "the queries found too little to compare: {matched}");
    let banks = [Bank::new(Arc::new(sqlite)), Bank::new(Arc::new(mysql))];
    for q in queries {
        let request = ValidSearch { query: q.into(), limit: 50, words_only: false };
        let (a, b) = (hits(&banks[0], user, &request).await, hits(&banks[1], user, &request).await);
        assert!(!a.is_empty(), "{q:?} finds something");
        assert_eq!(a, b, "query {q:?}");
    }
}

/// Search by meaning too ranks the same on both engines: the same memories, their
/// vectors made by each bank's backfill with the real model, and the same fused ids,
/// scores and reasons for questions that share words with them, and ones that do not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_by_meaning_gives_the_same_results() {
    let sentences = [
        "My daughter is allergic to peanuts",
        "Deploys to production happen on Tuesdays after the review",
        "I prefer tabs over spaces for indentation",
        "The staging servers are only reachable over the VPN",
        "We migrated the billing service from Postgres to CockroachDB",
        "Our team standup is at nine every morning",
        "The cat needs her medicine twice a day",
        "我喜欢喝绿茶",
    ];
    let users = ["usr_meaning_a".to_owned(), "usr_meaning_b".to_owned()];
    let rows: Vec<NewMemory> = (0..48)
        .map(|i| {
            let content = format!("{} (note {})", sentences[i % sentences.len()], i / sentences.len());
            NewMemory::plain(&users[i % 2], "org_same", content, 1_764_455_111_007 + (i / 2) as i64)
        })
        .collect();
    let Both { sqlite, mysql, _dir, _db } = both_loaded_with(&rows).await;
    let model = memory_bank_meaning::installed_model();
    let banks = [
        Bank::new(Arc::new(sqlite)).with_meaning(memory_bank_store::Meaning::new(model.clone())),
        Bank::new(Arc::new(mysql)).with_meaning(memory_bank_store::Meaning::new(model.clone())),
    ];
    for bank in &banks {
        assert_eq!(bank.backfill_vectors().await.unwrap(), 48);
    }
    let queries = ["Which food allergies are in the family?", "when do we ship to prod", "tabs", "database move", "绿茶", "meeting time", "zzqx flurble"];
    let mut by_meaning = 0;
    for user in &users {
        for q in queries {
            let request = ValidSearch { query: q.into(), limit: 10, words_only: false };
            let a = banks[0].search(user, &request).await.unwrap();
            let b = banks[1].search(user, &request).await.unwrap();
            let view = |hits: &[memory_bank_contract::wire::SearchResult]| {
                hits.iter().map(|h| (h.memory.id.clone(), h.score, h.matched)).collect::<Vec<_>>()
            };
            assert_eq!(view(&a), view(&b), "user {user}, query {q:?}");
            by_meaning += a.iter().filter(|h| h.matched != memory_bank_contract::wire::Matched::Words).count();
        }
    }
    assert!(by_meaning > 20, "the questions should find memories by meaning: {by_meaning}");
}
