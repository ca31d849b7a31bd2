//! The shared store contract suite, run against a real SQLite file: plaintext, and
//! encrypted (SQLCipher, a random key) in `mod encrypted`.

use std::sync::Arc;

use async_trait::async_trait;
use memory_bank_store::suite::Fixture;
use memory_bank_contract::validate::ValidSearch;
use memory_bank_store::{terms, BankKey, MemoryStore, NewMemory, StoreError};
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
            "memory_vector" => "SELECT count(*) FROM memory_vector",
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
    memory_bank_store::meaning_suite!(SqliteFixture::with_key(Some(DbKey::generate())), memory_bank_meaning::installed_model());
}

/// Search by meaning, with the real model (`scripts/fetch-model.sh` fetches it).
mod meaning {
    use super::*;

    memory_bank_store::meaning_suite!(SqliteFixture::new(), memory_bank_meaning::installed_model());
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

/// A write lock held by another connection to the bank (another process, as far as the
/// store can tell) until `release`: saves made meanwhile queue for the writer.
struct WriteLockElsewhere(sqlx::SqliteConnection);

impl WriteLockElsewhere {
    async fn take(path: &std::path::Path) -> Self {
        use sqlx::Connection as _;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap();
        sqlx::raw_sql("BEGIN IMMEDIATE").execute(&mut conn).await.unwrap();
        Self(conn)
    }

    async fn release(mut self) {
        sqlx::raw_sql("ROLLBACK").execute(&mut self.0).await.unwrap();
    }
}

/// Commits in the bank's WAL: frames whose header carries the database size.
fn commits_in_wal(path: &std::path::Path) -> usize {
    let wal = std::fs::read(format!("{}-wal", path.display())).unwrap_or_default();
    if wal.len() < 32 {
        return 0;
    }
    let page_size = u32::from_be_bytes(wal[8..12].try_into().unwrap()) as usize;
    wal[32..].chunks_exact(24 + page_size).filter(|frame| frame[4..8] != [0, 0, 0, 0]).count()
}

async fn bank_with_a_user(dir: &tempfile::TempDir) -> (SqliteStore, memory_bank_store::Bank, String, std::path::PathBuf) {
    let path = dir.path().join("memory.db");
    let store = SqliteStore::open(&format!("sqlite://{}", path.display())).await.unwrap();
    let bank = memory_bank_store::Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    memory_bank_store_sqlite::checkpoint(&store).await.unwrap();
    (store, bank, user, path)
}

fn memory(user: &str, word: &str) -> NewMemory {
    NewMemory::plain(user, "org_x", format!("the {word} runbook lives in the wiki"), memory_bank_contract::Timestamp::now().unix_ms())
}

/// Saves that arrive while the writer is busy go into one transaction (group commit,
/// BENCHMARKS.md issue 17), and each is saved, listed and found as if alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_that_wait_for_the_writer_are_committed_together() {
    let dir = tempfile::tempdir().unwrap();
    let (store, bank, user, path) = bank_with_a_user(&dir).await;
    let lock = WriteLockElsewhere::take(&path).await;
    let words: Vec<String> = (0..20).map(|i| format!("zq{i}x")).collect();
    let saves: Vec<_> = words
        .iter()
        .map(|w| {
            let (store, memory) = (store.clone(), memory(&user, w));
            tokio::spawn(async move { store.insert_memory(&memory).await.map(|()| memory.id) })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(commits_in_wal(&path), 0, "nothing commits while the lock is held elsewhere");
    lock.release().await;
    let mut ids = Vec::new();
    for save in saves {
        ids.push(save.await.unwrap().expect("every save succeeds"));
    }
    let commits = commits_in_wal(&path);
    assert!((1..=3).contains(&commits), "20 waiting saves took {commits} commits");
    assert_eq!(store.memories_by_ids(BankKey::Personal(&user), &ids).await.unwrap().len(), 20);
    for word in &words {
        let found = bank.search(&user, &ValidSearch { query: word.clone(), limit: 5, words_only: false }).await.unwrap();
        assert_eq!(found.len(), 1, "{word} is in the search index");
    }
    store.close().await;
}

/// A save that fails in a group (here a duplicate id) fails alone: the others of its
/// transaction are saved, and a caller that stopped waiting does not undo its group.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_that_fails_in_a_group_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _bank, user, path) = bank_with_a_user(&dir).await;
    let first = memory(&user, "first");
    store.insert_memory(&first).await.unwrap();
    let lock = WriteLockElsewhere::take(&path).await;
    let mut batch: Vec<NewMemory> = (0..5).map(|i| memory(&user, &format!("w{i}"))).collect();
    batch[2].id = first.id.clone();
    let saves: Vec<_> = batch
        .iter()
        .cloned()
        .map(|memory| {
            let store = store.clone();
            tokio::spawn(async move { store.insert_memory(&memory).await })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    saves[4].abort();
    lock.release().await;
    let mut outcomes = Vec::new();
    for save in saves {
        outcomes.push(save.await);
    }
    assert!(outcomes[4].as_ref().is_err_and(|e| e.is_cancelled()));
    for (i, outcome) in outcomes.into_iter().take(4).enumerate() {
        let outcome = outcome.unwrap();
        if i == 2 {
            assert!(matches!(outcome, Err(StoreError::Conflict(_))), "the duplicate id: {outcome:?}");
        } else {
            outcome.unwrap_or_else(|e| panic!("save {i}: {e}"));
        }
    }
    let ids: Vec<String> = batch.iter().map(|m| m.id.clone()).collect();
    // The abandoned save's committer may still be at work when the others have answered.
    let mut saved = store.memories_by_ids(BankKey::Personal(&user), &ids).await.unwrap();
    for _ in 0..100 {
        if saved.len() == 5 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        saved = store.memories_by_ids(BankKey::Personal(&user), &ids).await.unwrap();
    }
    let mut contents: Vec<&str> = saved.iter().map(|m| m.content.as_str()).collect();
    contents.sort();
    assert_eq!(
        contents,
        ["the first runbook lives in the wiki", "the w0 runbook lives in the wiki", "the w1 runbook lives in the wiki",
         "the w3 runbook lives in the wiki", "the w4 runbook lives in the wiki"],
        "the duplicate kept the first memory's content; the abandoned save was still made"
    );
    store.close().await;
}

/// The search index's segments are merged in the background as saves arrive, one a
/// transaction, with no `db optimize` (issue 33, item 3): saves made while it merges
/// are kept, a merge run ends when nothing is left, and every memory is found after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_search_index_is_merged_in_the_background_as_saves_arrive() {
    let dir = tempfile::tempdir().unwrap();
    let (store, bank, user, _path) = bank_with_a_user(&dir).await;
    let words: Vec<String> = (0..96).map(|i| format!("zq{i}x")).collect();
    for word in &words[..64] {
        store.insert_memory(&memory(&user, word)).await.unwrap();
    }
    // A merge run starts by setting FTS5's `usermerge` to 2: proof that one ran by itself.
    let mut merged_by_itself = false;
    for _ in 0..400 {
        let usermerge: Option<i64> = sqlx::query_scalar("SELECT v FROM memory_fts_config WHERE k = 'usermerge'")
            .fetch_optional(store.pool())
            .await
            .unwrap();
        if usermerge == Some(2) {
            merged_by_itself = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(merged_by_itself, "64 saves started no background merge of the search index");

    let saves = futures_join_all(words[64..].iter().map(|w| {
        let (store, memory) = (store.clone(), memory(&user, w));
        async move { store.insert_memory(&memory).await }
    }));
    let (merged, saved) = tokio::join!(store.compact_search_index(), saves);
    merged.unwrap();
    assert!(saved.iter().all(Result::is_ok), "saves made while merging: {saved:?}");
    // Merging again until a run finds nothing: it ends, and leaves the index whole.
    let mut runs = 0;
    while store.compact_search_index().await.unwrap() > 0 {
        runs += 1;
        assert!(runs < 100, "merging never ends");
    }
    sqlx::query("INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 0)")
        .execute(store.pool())
        .await
        .expect("the merged index passes FTS5's integrity check");
    assert!(store.search_index_segments().await.unwrap() >= 1);
    for word in &words {
        let found = bank.search(&user, &ValidSearch { query: word.clone(), limit: 5, words_only: false }).await.unwrap();
        assert_eq!(found.len(), 1, "{word} is found after merging");
    }
    let all = bank.search(&user, &ValidSearch { query: "runbook".into(), limit: 100, words_only: false }).await.unwrap();
    assert_eq!(all.len(), 96, "every memory is found by the word they share");
    eprintln!("segments after merging: {}", store.search_index_segments().await.unwrap());
    store.close().await;
}

/// A bank whose index is spread over many segments (loaded in bulk, or by an older
/// version) is merged once opened, though nothing is saved to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bank_opened_with_a_spread_index_is_merged_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let (store, bank, user, path) = bank_with_a_user(&dir).await;
    store.insert_memory(&memory(&user, "zqkept")).await.unwrap();
    store.close().await;
    // Twelve segments, one a transaction, with FTS5's own merging turned off.
    {
        use sqlx::{ConnectOptions as _, Connection as _};
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).connect().await.unwrap();
        sqlx::query("INSERT INTO memory_fts (memory_fts, rank) VALUES ('automerge', 0)").execute(&mut conn).await.unwrap();
        for i in 0..12 {
            sqlx::query("INSERT INTO memory_fts (rowid, terms) VALUES (?1, ?2)")
                .bind(1_000_000 + i)
                .bind(format!("zzunused{i} zzunusedtoo{i}"))
                .execute(&mut conn)
                .await
                .unwrap();
        }
        conn.close().await.unwrap();
    }
    drop(bank);
    let store = SqliteStore::open(&format!("sqlite://{}", path.display())).await.unwrap();
    let mut segments = store.search_index_segments().await.unwrap();
    for _ in 0..400 {
        if segments < 8 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        segments = store.search_index_segments().await.unwrap();
    }
    assert!(segments < 8, "the index still has {segments} segments");
    let bank = memory_bank_store::Bank::new(Arc::new(store.clone()));
    let found = bank.search(&user, &ValidSearch { query: "zqkept".into(), limit: 5, words_only: false }).await.unwrap();
    assert_eq!(found.len(), 1, "the memory is found after merging");
    store.close().await;
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

/// The candidate rows a search reads (`memory_candidate`, kept by triggers) follow every
/// statement on `memory`, even ones no write path makes, and their terms are what
/// `terms::candidate_terms` makes of the stored ones, on texts made to trip the SQL
/// rule: a term whose text holds the owner code, a term of another owner, no terms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_candidate_rows_follow_every_change_and_strip_the_owner_code_as_the_app_does() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
    let pool = store.pool();
    let agrees = || async {
        let rows: Vec<(i64, String, String, String, i64, String)> =
            sqlx::query_as("SELECT seq, user_id, scope, id, created_at, search_text FROM memory ORDER BY seq").fetch_all(pool).await.unwrap();
        let kept: Vec<(i64, String, String, String, i64, String)> =
            sqlx::query_as("SELECT seq, user_id, scope, id, created_at, terms FROM memory_candidate ORDER BY seq").fetch_all(pool).await.unwrap();
        let expected: Vec<_> = rows.into_iter().map(|(seq, u, s, id, at, text)| (seq, u, s, id, at, terms::candidate_terms(&text))).collect();
        assert_eq!(kept, expected);
        kept.len()
    };
    let at = 1_764_000_000_000;
    let rows: Vec<NewMemory> = ["Deploys need the VPN", "我喜欢喝绿茶", "Café ÉTÉ 2026"]
        .iter()
        .enumerate()
        .map(|(i, text)| NewMemory::plain("usr_a", "org_x", (*text).into(), at + i as i64))
        .collect();
    store.insert_memories(&rows).await.unwrap();
    store.insert_memory(&memory("usr_b", "lantern")).await.unwrap();
    assert_eq!(agrees().await, 4);
    let code = terms::user_code("usr_a");
    let hex = &code[1..];
    let odd = [
        format!("{code}a{hex} s{hex}{hex} {code}"),
        format!("{code}tea {}tea s{hex}", terms::user_code("usr_b")),
        String::new(),
        "u".into(),
        format!("x{hex}tea u{hex}tea"),
    ];
    for text in &odd {
        sqlx::query("UPDATE memory SET search_text = ?1 WHERE id = ?2").bind(text).bind(&rows[0].id).execute(pool).await.unwrap();
        assert_eq!(agrees().await, 4, "{text:?}");
    }
    assert_eq!(terms::candidate_terms(&odd[0]), format!("ua{hex} s{hex} u"));
    sqlx::query("UPDATE memory SET scope = 'org', user_id = 'org_x', created_at = 7 WHERE id = ?1").bind(&rows[1].id).execute(pool).await.unwrap();
    sqlx::query("UPDATE memory SET seq = 1000 WHERE id = ?1").bind(&rows[2].id).execute(pool).await.unwrap();
    sqlx::query("UPDATE memory SET content = 'the same terms' WHERE id = ?1").bind(&rows[2].id).execute(pool).await.unwrap();
    assert_eq!(agrees().await, 4);
    sqlx::query("DELETE FROM memory WHERE user_id = 'usr_a'").execute(pool).await.unwrap();
    assert_eq!(agrees().await, 2);
}
