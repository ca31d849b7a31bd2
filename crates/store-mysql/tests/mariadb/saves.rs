//! A single save's transaction on a connection with autocommit off (`src/saves.rs`): a
//! connection goes back to its pool only after `COMMIT` or `ROLLBACK`, so a save dropped
//! halfway, or refused after its row was written, leaves nothing behind, not even for the
//! next save on the same connection.

use memory_bank_store::BankKey;
use sqlx::Connection as _;

use super::*;

/// A store whose saves have one connection (half of 2), so the next save takes the same
/// one whenever it went back to the pool.
async fn with_one_save_connection(db: &TestDatabase) -> MySqlStore {
    waiting_for_one_save_connection(db, MySqlOptions::default().acquire_timeout).await
}

/// [`with_one_save_connection`], whose saves wait at most `acquire_timeout` for it.
async fn waiting_for_one_save_connection(db: &TestDatabase, acquire_timeout: Duration) -> MySqlStore {
    MySqlStore::open(db.url()).await.unwrap().migrate().await.unwrap();
    MySqlStore::open_with(db.url(), &MySqlOptions { max_connections: 2, acquire_timeout }).await.unwrap()
}

/// A transaction that holds `user`'s count rows, so a save of theirs waits after its row
/// and postings, on its connection, until this one ends.
async fn holding_the_count_rows<'a>(store: &'a MySqlStore, user: &str) -> sqlx::Transaction<'a, sqlx::MySql> {
    let mut holder = store.pool().begin().await.unwrap();
    sqlx::query("SELECT n FROM memory_count WHERE user_id = ? AND scope = 'user' FOR UPDATE")
        .bind(user)
        .fetch_all(&mut *holder)
        .await
        .unwrap();
    holder
}

async fn ids(store: &MySqlStore, user: &str) -> Vec<String> {
    sqlx::query_scalar("SELECT id FROM memory WHERE user_id = ? ORDER BY id").bind(user).fetch_all(store.pool()).await.unwrap()
}

/// A save blocked after its row and postings (another transaction holds its bank's count
/// rows) and then dropped is rolled back; the next save, on the same pool of one, commits
/// only itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_dropped_halfway_leaves_nothing_and_the_next_commits_alone() {
    let db = TestDatabase::create().await;
    let store = with_one_save_connection(&db).await;
    let user = "usr_01kb0000000000000000000011";
    let first = NewMemory::plain(user, "org_x", "the first note".into(), 1_764_000_000_000);
    store.insert_memory(&first).await.unwrap();

    let holder = holding_the_count_rows(&store, user).await;
    let dropped = NewMemory::plain(user, "org_x", "dropped halfway".into(), 1_764_000_000_001);
    let waited = tokio::time::timeout(Duration::from_millis(500), store.insert_memory(&dropped)).await;
    assert!(waited.is_err(), "the save waits for the count rows: {waited:?}");
    holder.commit().await.unwrap();

    let next = NewMemory::plain(user, "org_x", "the next note".into(), 1_764_000_000_002);
    store.insert_memory(&next).await.unwrap();
    let mut wanted = vec![first.id.clone(), next.id.clone()];
    wanted.sort();
    assert_eq!(ids(&store, user).await, wanted);
    let postings: i64 = sqlx::query_scalar("SELECT count(*) FROM memory_term WHERE memory_id = ?")
        .bind(&dropped.id)
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(postings, 0, "the dropped save's postings were rolled back with it");
    assert_eq!(store.count_memories(BankKey::Personal(user)).await.unwrap(), 2);
    assert_eq!(store.recount_memories(BankKey::Personal(user)).await.unwrap(), 2);
}

/// Saves refused after their row was written (the quota, read beside the insert) are
/// rolled back, each on the one connection, and a save after them commits only itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_refused_beside_their_insert_leave_nothing_on_the_connection() {
    let db = TestDatabase::create().await;
    let store = with_one_save_connection(&db).await;
    let (bank, user, org) = seeded_bank(&store).await;
    let full = bank.clone().with_memory_quota(Some(1));
    save(&full, &user, &org, "the one memory the quota allows").await;
    for i in 0..3 {
        let input = validate_save(SaveMemoryRequest { content: format!("one too many {i}"), ..Default::default() }).unwrap();
        let refused = full.save(&user, &org, input).await.unwrap_err();
        assert!(matches!(refused, StoreError::QuotaExceeded { limit: 1 }), "{refused:?}");
    }
    save(&bank, &user, &org, "saved without a quota").await;
    let contents: Vec<String> = sqlx::query_scalar("SELECT content FROM memory WHERE user_id = ? ORDER BY content")
        .bind(&user)
        .fetch_all(store.pool())
        .await
        .unwrap();
    assert_eq!(contents, ["saved without a quota", "the one memory the quota allows"]);
    assert_eq!(store.count_memories(BankKey::Personal(&user)).await.unwrap(), 2);
}

/// A save that finds every save connection busy waits for one, at most the acquire
/// timeout, then fails as `Unavailable` (503), not a hang; the connection it waited for
/// serves the next save once its own finished.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_waits_for_a_free_connection_and_then_gives_up_as_unavailable() {
    let db = TestDatabase::create().await;
    let store = waiting_for_one_save_connection(&db, Duration::from_millis(300)).await;
    let user = "usr_01kb0000000000000000000012";
    store.insert_memory(&NewMemory::plain(user, "org_x", "the first note".into(), 1_764_000_000_000)).await.unwrap();

    let holder = holding_the_count_rows(&store, user).await;
    let waiting = NewMemory::plain(user, "org_x", "waits for the count rows".into(), 1_764_000_000_001);
    let blocked = tokio::spawn({
        let store = store.clone();
        async move { store.insert_memory(&waiting).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let refused = store.insert_memory(&NewMemory::plain(user, "org_x", "no connection".into(), 1_764_000_000_002)).await;
    assert!(matches!(refused, Err(StoreError::Unavailable(_))), "{refused:?}");
    assert!(started.elapsed() >= Duration::from_millis(250), "it waited for the acquire timeout: {:?}", started.elapsed());

    holder.commit().await.unwrap();
    blocked.await.unwrap().unwrap();
    store.insert_memory(&NewMemory::plain(user, "org_x", "the last note".into(), 1_764_000_000_003)).await.unwrap();
    assert_eq!(store.recount_memories(BankKey::Personal(user)).await.unwrap(), 3);
    assert_eq!(store.count_memories(BankKey::Personal(user)).await.unwrap(), 3);
}

/// A save connection the server dropped while it was idle (a restart, `wait_timeout`) is
/// found dead before a save is sent on it, and replaced: the save succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_connection_the_server_dropped_is_replaced() {
    let db = TestDatabase::create().await;
    let store = with_one_save_connection(&db).await;
    let user = "usr_01kb0000000000000000000013";
    store.insert_memory(&NewMemory::plain(user, "org_x", "before the drop".into(), 1_764_000_000_000)).await.unwrap();

    let mut killer = sqlx::MySqlConnection::connect(db.url()).await.unwrap();
    let others: Vec<i64> = sqlx::query_scalar(
        "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()",
    )
    .fetch_all(&mut killer)
    .await
    .unwrap();
    assert!(others.len() >= 2, "the store's pool and its save connection: {others:?}");
    for id in others {
        sqlx::query("KILL CONNECTION ?").bind(id).execute(&mut killer).await.unwrap();
    }
    // Idle past the moment a connection is checked before use.
    tokio::time::sleep(Duration::from_millis(1_200)).await;

    store.insert_memory(&NewMemory::plain(user, "org_x", "after the drop".into(), 1_764_000_000_001)).await.unwrap();
    assert_eq!(store.recount_memories(BankKey::Personal(user)).await.unwrap(), 2);
}
