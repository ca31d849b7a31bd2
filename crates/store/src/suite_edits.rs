//! The shared suite's edit cases: every backend must edit a memory in place (same id
//! and `createdAt`, new `updatedAt`, contexts kept), move its search entry in the same
//! transaction, keep the replaced version as an owner-scoped revision, and delete the
//! revisions with the memory.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest, ValidEdit};
use memory_bank_contract::wire::{ConfirmedVia, ContextInput, SaveMemoryRequest};

use crate::suite::{list_all, request, save, search, world, Fixture};

fn edit(content: Option<&str>, tags: Option<&[&str]>) -> ValidEdit {
    validate_edit(EditMemoryRequest {
        content: content.map(str::to_owned),
        tags: tags.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
        confirmed_via: Some(ConfirmedVia::App),
    })
    .unwrap()
}

/// An edit keeps the id, `createdAt` and contexts, sets `updatedAt`, and the old
/// wording stops matching exactly when the new one starts.
pub async fn edits_keep_the_memory_and_move_its_search_terms(f: &dyn Fixture) {
    let w = world(f).await;
    let contexts =
        vec![ContextInput { snippet: "seen at the estuary".into(), message_id: Some("m1".into()), ..Default::default() }];
    let saved = save(&w, &w.alice, SaveMemoryRequest { contexts: Some(contexts), ..request("a blue heron nests here") }).await;
    w.clock.advance(60_000);
    let edited =
        w.bank.edit(&w.alice, &saved.id, edit(Some("a grey osprey nests here"), Some(&["birds"]))).await.unwrap().unwrap();
    assert_eq!((edited.id.as_str(), edited.created_at), (saved.id.as_str(), saved.created_at));
    assert_eq!(edited.updated_at.unix_ms(), saved.created_at.unix_ms() + 60_000);
    assert_eq!(edited.content, "a grey osprey nests here");
    assert_eq!(edited.tags, Some(vec!["birds".to_owned()]));
    assert_eq!(edited.contexts, saved.contexts, "contexts are kept");
    assert_eq!(edited.confirmed_via, Some(ConfirmedVia::App));
    assert!(search(&w, &w.alice, "heron").await.is_empty(), "the old wording no longer matches");
    assert_eq!(search(&w, &w.alice, "osprey").await, ["a grey osprey nests here"]);
    assert_eq!(search(&w, &w.alice, "birds").await.len(), 1, "new tags are searchable");
    assert_eq!(search(&w, &w.alice, "estuary").await.len(), 1, "snippets still are");
    assert_eq!(list_all(&w, &w.alice).await, std::slice::from_ref(&edited), "list shows the edited row once");

    let revisions = w.bank.revisions(&w.alice, &saved.id).await.unwrap().unwrap();
    assert_eq!(revisions.len(), 1);
    assert_eq!((revisions[0].content.as_str(), revisions[0].tags.clone()), ("a blue heron nests here", None));
    assert_eq!((revisions[0].created_at, revisions[0].replaced_at), (saved.created_at, edited.updated_at));
    assert!(revisions[0].id.starts_with("mrev_"));

    // Tags alone; then an edit to what it already says, which keeps no revision.
    w.clock.advance(1_000);
    let retagged = w.bank.edit(&w.alice, &saved.id, edit(None, Some(&[]))).await.unwrap().unwrap();
    assert_eq!((retagged.content.as_str(), retagged.tags.clone()), ("a grey osprey nests here", None));
    let same = w.bank.edit(&w.alice, &saved.id, edit(Some("a grey osprey nests here"), None)).await.unwrap().unwrap();
    assert_eq!(same, retagged);
    assert_eq!(w.bank.revisions(&w.alice, &saved.id).await.unwrap().unwrap().len(), 2);
}

/// Another user's memory cannot be edited, nor its history read: both look absent.
pub async fn edits_and_revisions_are_owner_scoped(f: &dyn Fixture) {
    let w = world(f).await;
    let alices = save(&w, &w.alice, request("alice's own heron")).await;
    w.bank.edit(&w.alice, &alices.id, edit(Some("alice's own osprey"), None)).await.unwrap().unwrap();
    assert_eq!(w.bank.edit(&w.bob, &alices.id, edit(Some("bob was here"), None)).await.unwrap(), None);
    assert_eq!(w.bank.revisions(&w.bob, &alices.id).await.unwrap(), None);
    let revision = w.bank.revisions(&w.alice, &alices.id).await.unwrap().unwrap().remove(0);
    assert_eq!(w.bank.restore_revision(&w.bob, &alices.id, &revision.id, None).await.unwrap(), None);
    assert_eq!(w.bank.edit(&w.alice, "mem_not-an-id", edit(Some("x"), None)).await.unwrap(), None);
    assert_eq!(list_all(&w, &w.alice).await[0].content, "alice's own osprey");
    assert!(search(&w, &w.bob, "bob").await.is_empty());
}

/// Restoring a revision is an edit: the version it replaces becomes a revision too,
/// newest first, and the history only grows.
pub async fn restoring_a_revision_is_an_edit_and_history_grows(f: &dyn Fixture) {
    let w = world(f).await;
    let saved = save(&w, &w.alice, SaveMemoryRequest { tags: Some(vec!["v1".into()]), ..request("first wording") }).await;
    for (i, text) in ["second wording", "third wording"].into_iter().enumerate() {
        w.clock.advance(1_000);
        w.bank.edit(&w.alice, &saved.id, edit(Some(text), Some(&[&format!("v{}", i + 2)]))).await.unwrap().unwrap();
    }
    let history = w.bank.revisions(&w.alice, &saved.id).await.unwrap().unwrap();
    let wordings: Vec<&str> = history.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(wordings, ["second wording", "first wording"], "most recently replaced first");
    let first = history.iter().find(|r| r.content == "first wording").unwrap();
    w.clock.advance(1_000);
    let restored = w.bank.restore_revision(&w.alice, &saved.id, &first.id, Some(ConfirmedVia::App)).await.unwrap().unwrap();
    assert_eq!((restored.content.as_str(), restored.tags.clone()), ("first wording", Some(vec!["v1".to_owned()])));
    let history = w.bank.revisions(&w.alice, &saved.id).await.unwrap().unwrap();
    let wordings: Vec<&str> = history.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(wordings, ["third wording", "second wording", "first wording"]);
    assert_eq!(search(&w, &w.alice, "third").await.len(), 0);
    assert_eq!(search(&w, &w.alice, "first").await, ["first wording"]);
}

/// Deleting a memory deletes its revisions in the same transaction.
pub async fn deleting_a_memory_deletes_its_revisions(f: &dyn Fixture) {
    let w = world(f).await;
    let gone = save(&w, &w.alice, request("short-lived wording")).await;
    let kept = save(&w, &w.alice, request("lasting wording")).await;
    for memory in [&gone, &kept] {
        w.bank.edit(&w.alice, &memory.id, edit(Some("edited wording"), None)).await.unwrap().unwrap();
    }
    assert_eq!(f.count("memory_revision").await, 2);
    assert!(w.bank.delete(&w.alice, &gone.id).await.unwrap());
    assert_eq!(f.count("memory_revision").await, 1);
    assert_eq!(w.bank.revisions(&w.alice, &gone.id).await.unwrap(), None);
    assert_eq!(w.bank.revisions(&w.alice, &kept.id).await.unwrap().unwrap().len(), 1);
}
