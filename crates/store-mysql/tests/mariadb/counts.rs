//! Each bank's count kept beside its rows (`memory_count`): saves from two connection
//! pools at once keep it exact, a count that went wrong never refuses a save there is
//! room for, and `db migrate` counts the rows a database already has.

use super::*;

/// A new database, migrated, and a store on it (the database goes when the first is dropped).
async fn migrated() -> (TestDatabase, MySqlStore) {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    (db, store)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_to_one_bank_from_two_pools_at_once_are_all_counted() {
    let (db, store) = migrated().await;
    let (bank, user, org) = seeded_bank(&store).await;
    let other = Bank::new(Arc::new(MySqlStore::open(db.url()).await.unwrap()));
    let saves: Vec<_> = (0..48).map(|i| {
        let (bank, user, org) = (if i % 2 == 0 { bank.clone() } else { other.clone() }, user.clone(), org.clone());
        tokio::spawn(async move {
            let input = validate_save(SaveMemoryRequest { content: format!("concurrent note {i}"), ..Default::default() }).unwrap();
            bank.save(&user, &org, input).await.map(drop)
        })
    }).collect();
    let mut failed = Vec::new();
    for save in saves {
        if let Err(err) = save.await.expect("the save's task ran to its end") {
            failed.push(err);
        }
    }
    assert!(failed.is_empty(), "every save went through: {failed:?}");
    assert_eq!(store.count_memories(BankKey::Personal(&user)).await.unwrap(), 48);
    assert_eq!(store.recount_memories(BankKey::Personal(&user)).await.unwrap(), 48);
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM memory_count WHERE user_id = ?").bind(&user).fetch_one(store.pool()).await.unwrap();
    assert!(rows > 1, "spread over several rows: {rows}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_that_went_wrong_never_refuses_a_save_there_is_room_for() {
    let (_db, store) = migrated().await;
    let (bank, user, org) = seeded_bank(&store).await;
    let bank = bank.with_memory_quota(Some(3));
    save(&bank, &user, &org, "the first").await;
    save(&bank, &user, &org, "the second").await;
    // As if an older release had deleted rows without counting them out.
    sqlx::query("UPDATE memory_count SET n = n + 10 WHERE user_id = ? LIMIT 1").bind(&user).execute(store.pool()).await.unwrap();
    assert_eq!(store.count_memories(BankKey::Personal(&user)).await.unwrap(), 12);
    save(&bank, &user, &org, "the third fits: its rows are counted before refusing").await;
    let input = validate_save(SaveMemoryRequest { content: "the fourth does not".into(), ..Default::default() }).unwrap();
    assert!(matches!(bank.save(&user, &org, input).await, Err(StoreError::QuotaExceeded { limit: 3 })));
    assert_eq!(store.recount_memories(BankKey::Personal(&user)).await.unwrap(), 3);
}
