//! The shared suite's offboarding cases: removing a user or an org takes every row
//! recorded with it and nothing else, in batches that never leave half a memory, and
//! a run stopped by a failure finishes when run again.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::validate::validate_propose;
use memory_bank_contract::wire::{ContextInput, ProposeRequest, SaveMemoryRequest};

use crate::suite::{list_all, request, save, search, world, Fixture, World, POISON_SNIPPET};
use crate::{Offboard, StoreError};

fn cited(content: &str, snippet: &str) -> SaveMemoryRequest {
    SaveMemoryRequest { contexts: Some(vec![ContextInput { snippet: snippet.into(), ..Default::default() }]), ..request(content) }
}

async fn give_alice_everything(w: &World) -> String {
    for i in 0..7 {
        let memory = save(w, &w.alice, cited(&format!("alice memory {i}"), "alice's snippet")).await;
        if i % 2 == 0 {
            let edit = validate_edit(EditMemoryRequest { content: Some(format!("alice memory {i}, edited")), ..Default::default() }).unwrap();
            w.bank.edit(&w.alice, &memory.id, edit).await.unwrap().unwrap();
        }
    }
    let draft = ProposeRequest { content: Some("alice proposal".into()), ..Default::default() };
    w.bank.propose(&w.alice, &w.org, validate_propose(draft).unwrap()).await.unwrap();
    w.bank.issue_token(&w.alice).await.unwrap()
}

/// A user: their memories, contexts, revisions, proposals, tokens, memberships and the
/// user go; another user's rows and the org stay.
pub async fn offboarding_a_user_removes_all_of_theirs_and_nothing_else(f: &dyn Fixture) {
    let w = world(f).await;
    let token = give_alice_everything(&w).await;
    let bobs = save(&w, &w.bob, cited("bob keeps this", "bob's snippet")).await;
    let report = w.bank.offboard(Offboard::User(&w.alice), 3).await.unwrap();
    assert_eq!(report.memories, 7);
    assert!(w.bank.list_users().await.unwrap().iter().all(|u| u.id != w.alice));
    assert_eq!(w.bank.authenticate(&token).await.unwrap(), None, "the user's tokens are gone");
    assert!(!w.bank.is_member(&w.alice, &w.org).await.unwrap());
    assert_eq!((f.count("memory").await, f.count("memory_context").await, f.count("memory_revision").await), (1, 1, 0));
    assert_eq!(list_all(&w, &w.bob).await, [bobs]);
    assert_eq!(search(&w, &w.bob, "keeps").await, ["bob keeps this"]);
    assert!(w.bank.is_member(&w.bob, &w.org).await.unwrap(), "the org and its other members stay");
    assert!(matches!(w.bank.offboard(Offboard::User(&w.alice), 3).await, Err(StoreError::NotFound(_))));
}

/// An org: the memories and proposals recorded with it and its memberships go; the
/// users and their rows in other orgs stay.
pub async fn offboarding_an_org_removes_its_rows_and_memberships(f: &dyn Fixture) {
    let w = world(f).await;
    let other = w.bank.add_org("Other").await.unwrap().id;
    w.bank.add_member(&other, &w.alice).await.unwrap();
    for user in [&w.alice, &w.bob] {
        save(&w, user, request("recorded in the org that goes")).await;
    }
    let input = memory_bank_contract::validate::validate_save(request("recorded in the other org")).unwrap();
    w.bank.save(&w.alice, &other, input).await.unwrap();
    let report = w.bank.offboard(Offboard::Org(&w.org), 500).await.unwrap();
    assert_eq!(report.memories, 2);
    assert!(!w.bank.is_member(&w.alice, &w.org).await.unwrap() && !w.bank.is_member(&w.bob, &w.org).await.unwrap());
    assert!(w.bank.is_member(&w.alice, &other).await.unwrap());
    assert_eq!(search(&w, &w.alice, "recorded").await, ["recorded in the other org"]);
    assert!(list_all(&w, &w.bob).await.is_empty());
    assert_eq!(w.bank.list_users().await.unwrap().len(), 2, "users stay");
    assert!(matches!(w.bank.offboard(Offboard::Org(&w.org), 500).await, Err(StoreError::NotFound(_))));
}

/// The database fails part way: no memory is left without its contexts, and running
/// it again finishes.
pub async fn offboarding_stopped_by_a_failure_leaves_no_half_memory_and_resumes(f: &dyn Fixture) {
    let w = world(f).await;
    for i in 0..6 {
        let snippet = if i == 3 { POISON_SNIPPET } else { "fine snippet" };
        save(&w, &w.alice, cited(&format!("memory {i}"), snippet)).await;
        w.clock.advance(1);
    }
    f.fail_poison_context_deletes().await;
    assert!(w.bank.offboard(Offboard::User(&w.alice), 2).await.is_err());
    let left = f.count("memory").await;
    assert!((1..6).contains(&left), "some batches went, the failing one did not: {left} left");
    assert_eq!(f.count("memory_context").await, left, "every memory left has its context: none half-deleted");
    assert_eq!(list_all(&w, &w.alice).await.len() as i64, left);
    f.clear_faults().await;
    let report = w.bank.offboard(Offboard::User(&w.alice), 2).await.unwrap();
    assert_eq!(report.memories as i64, left);
    assert_eq!((f.count("memory").await, f.count("memory_context").await), (0, 0));
    assert!(w.bank.list_users().await.unwrap().iter().all(|u| u.id != w.alice));
}
