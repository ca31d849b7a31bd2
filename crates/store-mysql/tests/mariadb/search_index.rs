//! The search index table (`memory_term`): every write path keeps it equal to what the
//! rows' stored terms say, `db migrate` fills it from older databases in batches and goes
//! on from where a stopped fill got to, and the FULLTEXT index of older releases goes.

use std::collections::BTreeSet;

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::transfer::OnConflict;
use memory_bank_store::{ImportRow, Offboard};

use super::*;

/// A new database, migrated, and a store on it (the database goes when the first is dropped).
async fn migrated() -> (TestDatabase, MySqlStore) {
    let db = TestDatabase::create().await;
    let store = MySqlStore::open(db.url()).await.unwrap();
    store.migrate().await.unwrap();
    (db, store)
}

/// One posting: owner, term, creation time, memory id.
type Posting = (String, String, String, String);

/// What the index must hold: each row's distinct stored terms.
async fn postings_of_the_rows(store: &MySqlStore) -> BTreeSet<Posting> {
    let rows: Vec<(String, String, String, String)> =
        sqlx::query_as("SELECT user_id, search_text, CAST(created_at AS CHAR), id FROM memory").fetch_all(store.pool()).await.unwrap();
    rows.into_iter()
        .flat_map(|(user, text, at, id)| {
            text.split(' ').filter(|t| !t.is_empty()).map(|t| (user.clone(), t.to_owned(), at.clone(), id.clone())).collect::<Vec<_>>()
        })
        .collect()
}

async fn postings_in_the_index(store: &MySqlStore) -> BTreeSet<Posting> {
    let rows: Vec<Posting> = sqlx::query_as("SELECT user_id, term, CAST(created_at AS CHAR), memory_id FROM memory_term")
        .fetch_all(store.pool())
        .await
        .unwrap();
    let count = rows.len();
    let set: BTreeSet<Posting> = rows.into_iter().collect();
    assert_eq!(set.len(), count);
    set
}

async fn assert_in_step(store: &MySqlStore, after: &str) {
    let (wanted, held) = (postings_of_the_rows(store).await, postings_in_the_index(store).await);
    assert!(!wanted.is_empty(), "{after}: nothing to compare");
    let missing: Vec<_> = wanted.difference(&held).collect();
    let stale: Vec<_> = held.difference(&wanted).collect();
    assert!(missing.is_empty() && stale.is_empty(), "after {after}: missing {missing:?}, stale {stale:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_write_path_keeps_the_index_equal_to_the_rows_terms() {
    let (_db, store) = migrated().await;
    let (bank, ada, org) = seeded_bank(&store).await;
    let grace = bank.add_user("grace@example.com").await.unwrap().id;
    bank.add_member(&org, &grace).await.unwrap();

    let first = save(&bank, &ada, &org, "Deploys need the staging VPN").await;
    let second = save(&bank, &ada, &org, "The billing service owns invoices").await;
    let third = save(&bank, &ada, &org, "Tea before the standup, tea after it").await;
    save(&bank, &grace, &org, "Grace keeps the compiler notes").await;
    // More postings than a save sends as bound rows (64, `postings.rs`): sent as JSON.
    let letters = |i: u8| format!("lengthy{}{}", char::from(b'a' + i / 26), char::from(b'a' + i % 26));
    let long_text = (0..70).map(letters).collect::<Vec<_>>().join(" ");
    let long = save(&bank, &ada, &org, &long_text).await;
    let long_postings: i64 =
        sqlx::query_scalar("SELECT count(*) FROM memory_term WHERE memory_id = ?").bind(&long).fetch_one(store.pool()).await.unwrap();
    assert!(long_postings > 64, "{long_postings} postings");
    assert_in_step(&store, "saves").await;
    assert_eq!(search(&bank, &ada, &letters(69)).await, [long_text]);

    let edit = validate_edit(EditMemoryRequest { content: Some("Deploys need the production VPN".into()), ..Default::default() }).unwrap();
    bank.edit(&ada, &first, edit).await.unwrap().unwrap();
    assert_in_step(&store, "an edit").await;
    assert!(search(&bank, &ada, "staging").await.is_empty(), "the old word is gone from the index");
    assert_eq!(search(&bank, &ada, "production").await.len(), 1);

    assert!(bank.delete(&ada, &second).await.unwrap());
    assert_in_step(&store, "a delete").await;

    // An import over an existing memory replaces its terms.
    let (mut page, _) = bank.export_page(&ada, None).await.unwrap();
    let mut line = page.remove(page.iter().position(|m| m.id == third).unwrap());
    line.content = "Coffee replaced the tea".into();
    line.revisions.clear();
    let search_text = terms::memory_index_text(&ada, &line.content, &[], std::iter::empty());
    store.import_memories(&ada, &org, &[ImportRow { memory: line, search_text }], OnConflict::Overwrite).await.unwrap();
    assert_in_step(&store, "an import that overwrites").await;
    assert_eq!(search(&bank, &ada, "coffee").await, ["Coffee replaced the tea"]);

    // Terms of an older scheme (a term today's leaves out), rewritten in the background.
    let stale = format!("{}oldscheme", terms::user_code(&ada));
    sqlx::query("UPDATE memory SET search_text = CONCAT(search_text, ' ', ?) WHERE id = ?").bind(&stale).bind(&first).execute(store.pool()).await.unwrap();
    sqlx::query("INSERT INTO memory_term SELECT user_id, ?, created_at, id FROM memory WHERE id = ?").bind(&stale).bind(&first).execute(store.pool()).await.unwrap();
    sqlx::query("UPDATE search_terms SET version = 1, done_through = NULL").execute(store.pool()).await.unwrap();
    assert!(bank.rewrite_search_terms().await.unwrap() > 0);
    assert_in_step(&store, "a terms rewrite").await;
    let scoped = [stale];
    assert!(store.search_candidates(BankKey::Personal(&ada), &scoped, 10).await.unwrap().is_empty());

    bank.offboard(Offboard::User(&grace), 2).await.unwrap();
    assert_in_step(&store, "offboarding").await;
    let graces: i64 = sqlx::query_scalar("SELECT count(*) FROM memory_term WHERE user_id = ?").bind(&grace).fetch_one(store.pool()).await.unwrap();
    assert_eq!(graces, 0);
}

/// A database of the previous release: FULLTEXT over `search_text`, no index table, more
/// rows than one fill batch. `db migrate` fills the table, marks it complete, drops the
/// FULLTEXT index, and every row is found by its words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_fills_the_index_of_an_older_database_and_drops_fulltext() {
    let (_db, store) = migrated().await;
    let user = "usr_01kb0000000000000000000007";
    let rows: Vec<NewMemory> = (0..1_234)
        .map(|i| NewMemory::plain(user, "org_x", format!("puffin number{i} of the colony"), 1_764_000_000_000 + i))
        .collect();
    store.insert_memories(&rows).await.unwrap();
    sqlx::raw_sql("DROP TABLE memory_term; ALTER TABLE memory ADD FULLTEXT INDEX memory_search_fulltext (search_text)")
        .execute(store.pool())
        .await
        .unwrap();
    assert!(!store.search_index_exists().await.unwrap());

    assert!(store.migrate().await.unwrap().created);

    assert!(store.search_index_exists().await.unwrap());
    assert!(fulltext_indexes(&store).await.is_empty(), "the FULLTEXT index is dropped once the table is whole");
    assert_in_step(&store, "the fill").await;
    let bank = Bank::new(Arc::new(store.clone()));
    assert_eq!(search(&bank, user, "number1233").await, ["puffin number1233 of the colony"]);
    assert_eq!(search(&bank, user, "number0").await, ["puffin number0 of the colony"]);
    let newest = store.search_candidates(BankKey::Personal(user), &terms::scope_terms(user, &[terms::Term::exact("puffin")]), 1000).await.unwrap();
    assert_eq!(newest.len(), 1000);
    assert_eq!(newest[0].id, rows[1233].id, "newest first");
    assert_eq!(newest[999].id, rows[234].id, "the newest thousand, no older one");
}

/// A fill stopped part way (the table there, not marked complete, a cursor in the fill
/// row) goes on from its cursor: the rows up to it are not read again, the rest are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_fill_goes_on_from_where_it_got_to() {
    let (_db, store) = migrated().await;
    let user = "usr_01kb0000000000000000000008";
    let rows: Vec<NewMemory> =
        (0..40).map(|i| NewMemory::plain(user, "org_x", format!("gannet {i}"), 1_764_000_000_000 + i)).collect();
    store.insert_memories(&rows).await.unwrap();
    let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    sqlx::raw_sql("DELETE FROM memory_term; ALTER TABLE memory_term COMMENT = ''").execute(store.pool()).await.unwrap();
    sqlx::query("UPDATE memory_term_fill SET done_through = ?").bind(ids[24]).execute(store.pool()).await.unwrap();
    assert!(!store.search_index_exists().await.unwrap(), "an incomplete table is no index");

    assert!(!store.ensure_search_index().await.unwrap().created, "the table was there");

    assert!(store.search_index_exists().await.unwrap());
    let indexed: BTreeSet<String> =
        sqlx::query_scalar("SELECT DISTINCT memory_id FROM memory_term").fetch_all(store.pool()).await.unwrap().into_iter().collect();
    assert_eq!(indexed, ids[25..].iter().map(|s| (*s).to_owned()).collect(), "the rows after the cursor, and only those");
    let through: Option<String> = sqlx::query_scalar("SELECT done_through FROM memory_term_fill").fetch_one(store.pool()).await.unwrap();
    assert_eq!(through, None, "a finished fill leaves no cursor");
}
