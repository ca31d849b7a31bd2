//! The shared suite's proposal cases: every backend must keep an agent's proposal
//! waiting, owner-scoped, until the person decides, and decide it atomically.

use memory_bank_contract::validate::{validate_propose, Cursor};
use memory_bank_contract::wire::{
    AcceptProposalRequest, ConfirmedVia, ContextInput, ProposalAction, ProposalStatus, ProposeRequest,
};

use crate::suite::{list_all, request, save, search, world, Fixture, World};
use crate::ProposalError;

fn draft(content: &str) -> ProposeRequest {
    ProposeRequest {
        content: Some(content.into()),
        tags: Some(vec!["drinks".into()]),
        contexts: Some(vec![ContextInput {
            snippet: "I always drink tea".into(),
            conversation_id: Some("sess-1".into()),
            message_id: Some("msg-7".into()),
            origin: None,
        }]),
        proposed_by: Some("claude-code".into()),
        ..Default::default()
    }
}

async fn propose(w: &World, user: &str, request: ProposeRequest) -> memory_bank_contract::wire::Proposal {
    w.bank.propose(user, &w.org, validate_propose(request).unwrap()).await.unwrap()
}

/// A proposal saves nothing until accepted; accepting saves exactly the person's
/// edit, once, with how it was confirmed and who proposed it.
pub async fn proposals_wait_for_the_person(f: &dyn Fixture) {
    let w = world(f).await;
    let proposal = propose(&w, &w.alice, draft("Ada prefers tea")).await;
    assert_eq!((proposal.status, proposal.action), (ProposalStatus::Pending, ProposalAction::Save));
    assert!(proposal.id.starts_with("prop_"));
    assert!(list_all(&w, &w.alice).await.is_empty(), "a proposal is not a memory");
    assert!(search(&w, &w.alice, "tea").await.is_empty());
    assert_eq!(w.bank.proposal(&w.alice, &proposal.id).await.unwrap(), proposal, "read back as stored");

    let edits = AcceptProposalRequest { content: Some("Ada prefers green tea".into()), ..Default::default() };
    w.clock.advance(1000);
    let accepted = w.bank.accept_proposal(&w.alice, &proposal.id, edits).await.unwrap();
    let memory = accepted.memory.unwrap();
    assert_eq!(memory.content, "Ada prefers green tea");
    assert_eq!(memory.tags, Some(vec!["drinks".to_owned()]));
    assert_eq!(memory.contexts[0].snippet, "I always drink tea");
    assert_eq!((memory.confirmed_via, memory.proposed_by.as_deref()), (Some(ConfirmedVia::App), Some("claude-code")));
    assert_eq!(accepted.proposal.status, ProposalStatus::Accepted);
    assert_eq!(accepted.proposal.memory_id.as_deref(), Some(memory.id.as_str()));
    assert!(accepted.proposal.decided_at.is_some());
    assert_eq!(list_all(&w, &w.alice).await, vec![memory.clone()], "the saved memory is what a list returns");
    assert_eq!(search(&w, &w.alice, "green").await, ["Ada prefers green tea"]);

    // Deciding twice changes nothing.
    let again = w.bank.accept_proposal(&w.alice, &proposal.id, AcceptProposalRequest::default()).await;
    assert!(matches!(again, Err(ProposalError::NotPending(ProposalStatus::Accepted))), "{again:?}");
    assert!(matches!(w.bank.reject_proposal(&w.alice, &proposal.id).await, Err(ProposalError::NotPending(_))));
    assert_eq!(list_all(&w, &w.alice).await.len(), 1);

    // Rejected: nothing saved. Edits that break the limits: refused, still pending.
    let other = propose(&w, &w.alice, draft("Ada likes coffee")).await;
    let bad = AcceptProposalRequest { content: Some("   ".into()), ..Default::default() };
    assert!(matches!(w.bank.accept_proposal(&w.alice, &other.id, bad).await, Err(ProposalError::Refused(_))));
    assert_eq!(w.bank.proposal(&w.alice, &other.id).await.unwrap().status, ProposalStatus::Pending);
    let rejected = w.bank.reject_proposal(&w.alice, &other.id).await.unwrap();
    assert_eq!(rejected.status, ProposalStatus::Rejected);
    assert_eq!(list_all(&w, &w.alice).await.len(), 1);
}

/// Another user's proposal is "not found", whatever they try.
pub async fn proposals_are_owner_scoped(f: &dyn Fixture) {
    let w = world(f).await;
    let mine = propose(&w, &w.alice, draft("Alice's secret plan")).await;
    assert!(matches!(w.bank.proposal(&w.bob, &mine.id).await, Err(ProposalError::NotFound)));
    let edits = AcceptProposalRequest::default();
    assert!(matches!(w.bank.accept_proposal(&w.bob, &mine.id, edits).await, Err(ProposalError::NotFound)));
    assert!(matches!(w.bank.reject_proposal(&w.bob, &mine.id).await, Err(ProposalError::NotFound)));
    assert!(w.bank.list_proposals(&w.bob, None, None, None).await.unwrap().proposals.is_empty());
    assert!(matches!(w.bank.proposal(&w.alice, "prop_not-an-id").await, Err(ProposalError::NotFound)));
    assert_eq!(w.bank.proposal(&w.alice, &mine.id).await.unwrap().status, ProposalStatus::Pending, "untouched");
    assert!(list_all(&w, &w.bob).await.is_empty());
}

/// A delete proposal names one of the proposer's memories and deletes it only when
/// the person accepts.
pub async fn delete_proposals_delete_only_when_accepted(f: &dyn Fixture) {
    let w = world(f).await;
    let memory = save(&w, &w.alice, request("Ada's old address")).await;
    let bobs = save(&w, &w.bob, request("Bob's memory")).await;
    let delete = |id: &str| ProposeRequest { action: Some(ProposalAction::Delete), memory_id: Some(id.into()), ..Default::default() };
    let proposal = propose(&w, &w.alice, delete(&memory.id)).await;
    assert_eq!((proposal.action, proposal.content.as_str()), (ProposalAction::Delete, "Ada's old address"));
    assert_eq!(list_all(&w, &w.alice).await.len(), 1, "not deleted yet");
    let refused = w.bank.propose(&w.alice, &w.org, validate_propose(delete(&bobs.id)).unwrap()).await;
    assert!(matches!(refused, Err(ProposalError::MemoryNotFound)), "another user's memory cannot even be proposed");
    let accepted = w.bank.accept_proposal(&w.alice, &proposal.id, AcceptProposalRequest::default()).await.unwrap();
    assert_eq!(accepted.proposal.status, ProposalStatus::Accepted);
    assert!(accepted.memory.is_none());
    assert!(list_all(&w, &w.alice).await.is_empty());
    assert_eq!(list_all(&w, &w.bob).await.len(), 1);
}

/// Nobody decided within 7 days: `expired`, and it can no longer be accepted.
pub async fn proposals_expire_after_seven_days(f: &dyn Fixture) {
    let w = world(f).await;
    let proposal = propose(&w, &w.alice, draft("stale")).await;
    w.clock.advance(7 * 24 * 3600 * 1000 - 1);
    assert_eq!(w.bank.proposal(&w.alice, &proposal.id).await.unwrap().status, ProposalStatus::Pending);
    w.clock.advance(1);
    assert_eq!(w.bank.proposal(&w.alice, &proposal.id).await.unwrap().status, ProposalStatus::Expired);
    let late = w.bank.accept_proposal(&w.alice, &proposal.id, AcceptProposalRequest::default()).await;
    assert!(matches!(late, Err(ProposalError::NotPending(ProposalStatus::Expired))), "{late:?}");
    assert!(list_all(&w, &w.alice).await.is_empty());
    let pending = w.bank.list_proposals(&w.alice, Some(ProposalStatus::Pending), None, None).await.unwrap();
    assert!(pending.proposals.is_empty());
    let expired = w.bank.list_proposals(&w.alice, Some(ProposalStatus::Expired), None, None).await.unwrap();
    assert_eq!(expired.proposals.len(), 1);
    assert_eq!(expired.proposals[0].status, ProposalStatus::Expired);
}

/// The count of pending proposals (the metrics' gauge) is over every user, and leaves out
/// the decided and the expired.
pub async fn pending_proposals_are_counted_over_every_user(f: &dyn Fixture) {
    let w = world(f).await;
    let count = || async { w.bank.store().count_pending_proposals(w.bank.now()).await.unwrap() };
    assert_eq!(count().await, 0);
    let first = propose(&w, &w.alice, draft("one")).await;
    let second = propose(&w, &w.alice, draft("two")).await;
    propose(&w, &w.bob, draft("three")).await;
    assert_eq!(count().await, 3, "every user's");
    w.bank.accept_proposal(&w.alice, &first.id, AcceptProposalRequest::default()).await.unwrap();
    w.bank.reject_proposal(&w.alice, &second.id).await.unwrap();
    assert_eq!(count().await, 1, "decided ones are not pending");
    w.clock.advance(7 * 24 * 3600 * 1000);
    assert_eq!(count().await, 0, "nor expired ones");
}

/// The Inbox lists pending proposals newest first, paging with a cursor.
pub async fn proposals_list_newest_first_by_status(f: &dyn Fixture) {
    let w = world(f).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(propose(&w, &w.alice, draft(&format!("draft {i}"))).await.id);
        if i % 2 == 0 {
            w.clock.advance(1); // some share a millisecond, some do not
        }
    }
    w.bank.reject_proposal(&w.alice, &ids[1]).await.unwrap();
    let first = w.bank.list_proposals(&w.alice, Some(ProposalStatus::Pending), Some(2), None).await.unwrap();
    let cursor = Cursor::decode_for("prop", first.next_cursor.as_deref().unwrap()).unwrap();
    let second = w.bank.list_proposals(&w.alice, Some(ProposalStatus::Pending), Some(2), Some(&cursor)).await.unwrap();
    assert!(second.next_cursor.is_none());
    let walked: Vec<String> = first.proposals.iter().chain(&second.proposals).map(|p| p.id.clone()).collect();
    assert_eq!(walked, [ids[4].clone(), ids[3].clone(), ids[2].clone(), ids[0].clone()]);
    let rejected = w.bank.list_proposals(&w.alice, Some(ProposalStatus::Rejected), None, None).await.unwrap();
    assert_eq!(rejected.proposals.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), [ids[1].as_str()]);
    assert_eq!(w.bank.list_proposals(&w.alice, None, None, None).await.unwrap().proposals.len(), 5);
}

/// An edit proposal changes nothing until accepted; accepting applies the person's
/// wording as a new version (the old one kept as a revision); another user's memory
/// cannot be the target.
pub async fn edit_proposals_change_the_memory_only_when_accepted(f: &dyn Fixture) {
    let w = world(f).await;
    let memory = save(&w, &w.alice, request("Ada lives in Leeds")).await;
    let edit = |content: &str| ProposeRequest {
        action: Some(ProposalAction::Edit),
        memory_id: Some(memory.id.clone()),
        content: Some(content.into()),
        proposed_by: Some("claude-code".into()),
        ..Default::default()
    };
    let proposal = propose(&w, &w.alice, edit("Ada lives in York")).await;
    assert_eq!((proposal.action, proposal.content.as_str()), (ProposalAction::Edit, "Ada lives in York"));
    assert_eq!(proposal.memory_id.as_deref(), Some(memory.id.as_str()));
    assert_eq!(search(&w, &w.alice, "Leeds").await, ["Ada lives in Leeds"], "nothing changed yet");
    let edits = AcceptProposalRequest { content: Some("Ada lives in York, since May".into()), ..Default::default() };
    let accepted = w.bank.accept_proposal(&w.alice, &proposal.id, edits).await.unwrap();
    let edited = accepted.memory.unwrap();
    assert_eq!((edited.id.as_str(), edited.content.as_str()), (memory.id.as_str(), "Ada lives in York, since May"));
    assert_eq!(edited.confirmed_via, Some(ConfirmedVia::App));
    assert!(search(&w, &w.alice, "Leeds").await.is_empty());
    let history = w.bank.revisions(&w.alice, &memory.id).await.unwrap().unwrap();
    assert_eq!(history[0].content, "Ada lives in Leeds");
    assert_eq!(list_all(&w, &w.alice).await.len(), 1, "an edit, not a new memory");
    // Bob cannot propose an edit of Alice's memory: it is not found for him.
    let refused = w.bank.propose(&w.bob, &w.org, validate_propose(edit("Bob's idea")).unwrap()).await;
    assert!(matches!(refused, Err(ProposalError::MemoryNotFound)), "{refused:?}");
}
