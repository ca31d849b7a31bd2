//! Deleted text leaves the bank's bytes (issue 28, item 9): after offboarding a user, none
//! of their sentences, snippets, tags or search terms are in the database file or its
//! WAL, with the bank still open (a running `serve`) and after it closes; a deleted
//! memory's sentences are gone from the file once the WAL is folded into it, and its
//! words once the full-text index is rewritten. SQLite overwrites what it deletes with
//! zeros (`secure_delete`); offboarding rewrites the index and empties the WAL.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::validate::{validate_propose, validate_save};
use memory_bank_contract::wire::{ContextInput, ProposeRequest, SaveMemoryRequest};
use memory_bank_store::{Bank, MemoryStore as _, Offboard};
use memory_bank_store_sqlite::{DbKey, SqliteStore};

/// The bank file and everything SQLite keeps beside it.
fn bank_files(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&name))
        .collect()
}

/// The needles found in any of the bank's files, each with the files holding it.
fn found_in(path: &Path, needles: &[String]) -> Vec<(String, Vec<PathBuf>)> {
    needles
        .iter()
        .map(|n| (n.clone(), memory_bank_store::suite::files_holding(bank_files(path), n.as_bytes())))
        .filter(|(_, files)| !files.is_empty())
        .collect()
}

fn save_request(content: &str, snippet: &str, tag: &str) -> SaveMemoryRequest {
    SaveMemoryRequest {
        content: content.into(),
        tags: Some(vec![tag.into()]),
        contexts: Some(vec![ContextInput { snippet: snippet.into(), conversation_id: Some("sess-wipe".into()), message_id: None, origin: None }]),
        confirmed_via: None,
        scope: None,
    }
}

struct Bench {
    _dir: tempfile::TempDir,
    path: PathBuf,
    store: SqliteStore,
    bank: Bank,
    ada: String,
    bob: String,
    org: String,
}

async fn bench(key: Option<&DbKey>) -> Bench {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let store = SqliteStore::open_with_key(&format!("sqlite://{}", path.display()), key).await.unwrap();
    let bank = Bank::new(Arc::new(store.clone()));
    let ada = bank.add_user("ada.wipe@example.com").await.unwrap().id;
    let bob = bank.add_user("bob.keep@example.com").await.unwrap().id;
    let org = bank.add_org("Engines").await.unwrap().id;
    for user in [&ada, &bob] {
        bank.add_member(&org, user).await.unwrap();
    }
    Bench { _dir: dir, path, store, bank, ada, bob, org }
}

/// Gives Ada `n` memories whose every sentence, snippet, tag and word is hers alone,
/// some edited (revisions) and a proposal; returns what must not survive her deletion.
async fn give_ada(b: &Bench, n: usize) -> Vec<String> {
    let mut needles = vec!["ada.wipe@example.com".to_owned()];
    for i in 0..n {
        let content = format!("Ada keeps the zqvault{i}word key under the loose floorboard number {i}");
        let snippet = format!("she whispered zqsnippet{i}word twice");
        let tag = format!("zqtag{i}word");
        let memory = b.bank.save(&b.ada, &b.org, validate_save(save_request(&content, &snippet, &tag)).unwrap()).await.unwrap();
        if i % 3 == 0 {
            let edited = format!("Ada moved the zqvault{i}word key, zqedited{i}word now");
            let edit = validate_edit(EditMemoryRequest { content: Some(edited.clone()), ..Default::default() }).unwrap();
            b.bank.edit(&b.ada, &memory.id, edit).await.unwrap().unwrap();
            needles.push(edited);
            needles.push(format!("zqedited{i}word"));
        }
        needles.extend([content, snippet, tag, format!("zqvault{i}word"), format!("zqsnippet{i}word")]);
    }
    let draft = ProposeRequest { content: Some("Ada proposes the zqproposalword plan".into()), ..Default::default() };
    b.bank.propose(&b.ada, &b.org, validate_propose(draft).unwrap()).await.unwrap();
    needles.push("Ada proposes the zqproposalword plan".into());
    needles
}

async fn give_bob(b: &Bench) -> String {
    let kept = "Bob keeps the zqbobkeptword notebook".to_owned();
    b.bank.save(&b.bob, &b.org, validate_save(save_request(&kept, "bob's zqbobsnippetword", "zqbobtagword")).unwrap()).await.unwrap();
    kept
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_users_text_is_in_neither_the_bank_file_nor_its_wal() {
    let b = bench(None).await;
    let needles = give_ada(&b, 40).await;
    let kept = give_bob(&b).await;
    assert_eq!(found_in(&b.path, &needles).len(), needles.len(), "the control: all of Ada's text is on disk before");

    let report = b.bank.offboard(Offboard::User(&b.ada), 7).await.unwrap();
    assert_eq!(report.memories, 40);
    // Still open, as under a running `serve`: the WAL is where old pages would linger.
    let left = found_in(&b.path, &needles);
    assert!(left.is_empty(), "{} of Ada's texts are still on disk, e.g. {:?}", left.len(), &left[..left.len().min(3)]);
    assert!(!found_in(&b.path, std::slice::from_ref(&kept)).is_empty(), "the scan finds what stays");

    b.store.close().await;
    let left = found_in(&b.path, &needles);
    assert!(left.is_empty(), "closed: {} still on disk, e.g. {:?}", left.len(), &left[..left.len().min(3)]);
    assert!(!found_in(&b.path, &[kept]).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_organisation_deleted_leaves_none_of_its_text_behind() {
    let b = bench(None).await;
    let needles: Vec<String> = give_ada(&b, 12).await.into_iter().filter(|n| !n.contains('@')).collect();
    b.bank.offboard(Offboard::Org(&b.org), 5).await.unwrap();
    let left = found_in(&b.path, &needles);
    assert!(left.is_empty(), "{} still on disk, e.g. {:?}", left.len(), &left[..left.len().min(3)]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_memorys_text_leaves_the_bank_file_once_the_wal_is_folded_in() {
    let b = bench(None).await;
    let kept = give_bob(&b).await;
    let content = "Ada's one zqsinglememoryword secret, deleted later".to_owned();
    let memory = b
        .bank
        .save(&b.ada, &b.org, validate_save(save_request(&content, "the zqsinglesnippetword", "zqsingletagword")).unwrap())
        .await
        .unwrap();
    memory_bank_store_sqlite::checkpoint(&b.store).await.unwrap();
    assert!(b.bank.delete(&b.ada, &memory.id).await.unwrap());
    memory_bank_store_sqlite::checkpoint(&b.store).await.unwrap();
    let texts = [content, "the zqsinglesnippetword".into(), "[\"zqsingletagword\"]".into()];
    let left = found_in(&b.path, &texts);
    assert!(left.is_empty(), "{left:?}");
    // Its words stay in the full-text index's pages until a merge rewrites them: `db
    // optimize` does at once (the README says so).
    let word = ["zqsinglememoryword".to_owned()];
    assert!(!found_in(&b.path, &word).is_empty(), "the control: a tombstoned row's terms are still in the index");
    b.store.optimize_search_index().await.unwrap();
    memory_bank_store_sqlite::checkpoint(&b.store).await.unwrap();
    assert!(found_in(&b.path, &word).is_empty());
    assert!(!found_in(&b.path, &[kept]).is_empty());
}

/// Secure deletion is a setting of each connection: every one the store opens has it.
#[tokio::test(flavor = "multi_thread")]
async fn every_connection_deletes_securely() {
    let b = bench(Some(&DbKey::generate())).await;
    let mut connections = Vec::new();
    for _ in 0..3 {
        connections.push(b.store.pool().acquire().await.unwrap());
    }
    for conn in &mut connections {
        let on: i64 = sqlx::query_scalar("PRAGMA secure_delete").fetch_one(&mut **conn).await.unwrap();
        assert_eq!(on, 1);
    }
}
