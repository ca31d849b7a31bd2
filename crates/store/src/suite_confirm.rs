//! The shared suite's confirmation cases: what the person confirms is what is stored.
//! An edit or delete proposed before the memory changed is never applied over the
//! change unseen; the person's own words on accept and a restored revision pass the
//! same gate as a save; and an agent cannot queue more proposals than the cap, even
//! all at once.

use memory_bank_contract::gate::Refused;
use memory_bank_contract::limits::MAX_PENDING_PROPOSALS;
use memory_bank_contract::validate::validate_propose;
use memory_bank_contract::wire::{AcceptProposalRequest, MemoryVersion, ProposalAction, ProposalStatus, ProposeRequest};

use crate::suite::{list_all, request, save, world, Fixture};
use crate::{MemoryUpdate, ProposalError, StoreError};

fn on(action: ProposalAction, id: &str, content: Option<&str>) -> ProposeRequest {
    ProposeRequest { action: Some(action), memory_id: Some(id.into()), content: content.map(Into::into), ..Default::default() }
}

fn version(content: &str) -> MemoryVersion {
    MemoryVersion { content: content.into(), tags: None }
}

/// An edit and a delete proposed against one wording, after which the person reworded
/// the memory: both show the two versions, neither applies until the person accepts
/// over the version there now, and a further change refuses that again.
pub async fn stale_edits_and_deletes_are_never_applied_silently(f: &dyn Fixture) {
    let w = world(f).await;
    let memory = save(&w, &w.alice, request("Standup is at 9:30")).await;
    let propose = |r| async { w.bank.propose(&w.alice, &w.org, validate_propose(r).unwrap()).await.unwrap() };
    let edit = propose(on(ProposalAction::Edit, &memory.id, Some("Standup is at 10:00"))).await;
    let delete = propose(on(ProposalAction::Delete, &memory.id, None)).await;
    for proposal in [&edit, &delete] {
        assert_eq!(proposal.proposed_against, Some(version("Standup is at 9:30")));
        assert_eq!(proposal.memory_now, None, "nothing changed yet");
    }

    w.clock.advance(1_000);
    let reworded = memory_bank_contract::edit::validate_edit(memory_bank_contract::edit::EditMemoryRequest {
        content: Some("Standup is at 9:45, on Zoom".into()),
        ..Default::default()
    })
    .unwrap();
    w.bank.edit(&w.alice, &memory.id, reworded).await.unwrap().unwrap();

    for proposal in [&edit, &delete] {
        let seen = w.bank.proposal(&w.alice, &proposal.id).await.unwrap();
        assert_eq!(seen.proposed_against, Some(version("Standup is at 9:30")));
        assert_eq!(seen.memory_now, Some(version("Standup is at 9:45, on Zoom")), "both versions are shown");
        let refused = w.bank.accept_proposal(&w.alice, &proposal.id, AcceptProposalRequest::default()).await.unwrap_err();
        let ProposalError::MemoryChanged { proposed_against, memory_now } = refused else { panic!("{refused:?}") };
        assert_eq!((proposed_against.content.as_str(), memory_now.content.as_str()), ("Standup is at 9:30", "Standup is at 9:45, on Zoom"));
        // An out-of-date "I saw it" is refused too.
        let stale_seen = AcceptProposalRequest { memory_now: Some(version("Standup is at 9:30")), ..Default::default() };
        assert!(matches!(w.bank.accept_proposal(&w.alice, &proposal.id, stale_seen).await, Err(ProposalError::MemoryChanged { .. })));
        assert_eq!(w.bank.proposal(&w.alice, &proposal.id).await.unwrap().status, ProposalStatus::Pending);
    }
    assert_eq!(list_all(&w, &w.alice).await[0].content, "Standup is at 9:45, on Zoom", "untouched");

    // Accepted over the version the person saw: applied.
    let over = AcceptProposalRequest { memory_now: Some(version("Standup is at 9:45, on Zoom")), ..Default::default() };
    let accepted = w.bank.accept_proposal(&w.alice, &edit.id, over.clone()).await.unwrap();
    assert_eq!(accepted.memory.unwrap().content, "Standup is at 10:00");
    // The delete was seen against 9:45; the memory now says 10:00: refused again.
    let refused = w.bank.accept_proposal(&w.alice, &delete.id, over).await.unwrap_err();
    assert!(matches!(&refused, ProposalError::MemoryChanged { memory_now, .. } if memory_now.content == "Standup is at 10:00"), "{refused:?}");
    let over = AcceptProposalRequest { memory_now: Some(version("Standup is at 10:00")), ..Default::default() };
    w.bank.accept_proposal(&w.alice, &delete.id, over).await.unwrap();
    assert!(list_all(&w, &w.alice).await.is_empty());
}

/// What the person writes when accepting (the sentence, tags, snippets, and the words of
/// a save accepted as an edit or of an edit proposal) passes the secret check like a
/// save, and a revision holding a secret is not restored.
pub async fn the_person_s_words_on_accept_and_restore_pass_the_gate(f: &dyn Fixture) {
    let w = world(f).await;
    let tabs = save(&w, &w.alice, request("I use tabs for indentation")).await;
    let key = "AKIAQWERTYUIOPASDFGH";
    let save_proposal = w
        .bank
        .propose(&w.alice, &w.org, validate_propose(ProposeRequest { content: Some("I use spaces for indentation".into()), ..Default::default() }).unwrap())
        .await
        .unwrap();
    let edit_proposal =
        w.bank.propose(&w.alice, &w.org, validate_propose(on(ProposalAction::Edit, &tabs.id, Some("I use two spaces"))).unwrap()).await.unwrap();
    let secret_edits = [
        AcceptProposalRequest { content: Some(format!("my key is {key}")), ..Default::default() },
        AcceptProposalRequest { tags: Some(vec![format!("ghp_{}", "a1B2".repeat(9))]), ..Default::default() },
        AcceptProposalRequest { content: Some(format!("key {key}")), edit_instead: Some(tabs.id.clone()), ..Default::default() },
    ];
    for edits in secret_edits {
        let refused = w.bank.accept_proposal(&w.alice, &save_proposal.id, edits.clone()).await.unwrap_err();
        assert!(matches!(refused, ProposalError::Refused(Refused::LooksLikeSecret(_))), "{edits:?}: {refused:?}");
    }
    let refused = w
        .bank
        .accept_proposal(&w.alice, &edit_proposal.id, AcceptProposalRequest { content: Some(format!("{key} ok")), ..Default::default() })
        .await
        .unwrap_err();
    assert!(matches!(refused, ProposalError::Refused(Refused::LooksLikeSecret(_))), "{refused:?}");
    assert_eq!(list_all(&w, &w.alice).await.len(), 1, "nothing saved");
    assert_eq!(w.bank.memory(&w.alice, &tabs.id).await.unwrap().unwrap().content, "I use tabs for indentation");

    // A version holding a secret, written before the check existed: kept in the
    // history, never made current again.
    let memory = w.bank.memory(&w.alice, &tabs.id).await.unwrap().unwrap();
    let mut old = crate::edits::version_after(
        &w.alice,
        &memory,
        memory_bank_contract::edit::validate_edit(memory_bank_contract::edit::EditMemoryRequest {
            content: Some("placeholder".into()),
            ..Default::default()
        })
        .unwrap(),
        w.bank.now(),
    );
    old.content = format!("the deploy key is {key}");
    let written: &MemoryUpdate = &old;
    assert!(w.bank.store().update_memory(crate::Change::personal(&w.alice), &tabs.id, written).await.unwrap());
    w.clock.advance(1_000);
    let clean = memory_bank_contract::edit::validate_edit(memory_bank_contract::edit::EditMemoryRequest {
        content: Some("I use tabs, always".into()),
        ..Default::default()
    })
    .unwrap();
    w.bank.edit(&w.alice, &tabs.id, clean).await.unwrap().unwrap();
    let history = w.bank.revisions(&w.alice, &tabs.id).await.unwrap().unwrap();
    let secret = history.iter().find(|r| r.content.contains(key)).expect("the old version is in the history");
    let refused = w.bank.restore_revision(&w.alice, &tabs.id, &secret.id, None).await.unwrap_err();
    assert!(matches!(refused, StoreError::Refused(Refused::LooksLikeSecret(_))), "{refused:?}");
    assert_eq!(w.bank.memory(&w.alice, &tabs.id).await.unwrap().unwrap().content, "I use tabs, always");
}

/// At most [`MAX_PENDING_PROPOSALS`] wait at once per person, also when many arrive at
/// the same moment; deciding one makes room; another person's cap is their own.
pub async fn pending_proposals_are_capped_even_when_they_arrive_at_once(f: &dyn Fixture) {
    let w = world(f).await;
    let draft = |i: usize| validate_propose(ProposeRequest { content: Some(format!("draft number {i}")), ..Default::default() }).unwrap();
    let mut first = None;
    for i in 0..(MAX_PENDING_PROPOSALS as usize - 5) {
        let p = w.bank.propose(&w.alice, &w.org, draft(i)).await.unwrap();
        first.get_or_insert(p.id);
    }
    let at_once = (0..20).map(|i| {
        let bank = w.bank.clone();
        let (alice, org, input) = (w.alice.clone(), w.org.clone(), draft(1000 + i));
        tokio::spawn(async move { bank.propose(&alice, &org, input).await })
    });
    let mut stored = 0;
    for outcome in futures_util::future::join_all(at_once).await {
        match outcome.unwrap() {
            Ok(_) => stored += 1,
            Err(ProposalError::TooMany { limit }) => assert_eq!(limit, MAX_PENDING_PROPOSALS),
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(stored, 5, "exactly up to the cap");
    let pending = |user: String| {
        let bank = w.bank.clone();
        async move {
            let mut n = 0;
            let mut cursor = None;
            loop {
                let page = bank.list_proposals(&user, Some(ProposalStatus::Pending), Some(100), cursor.as_ref()).await.unwrap();
                n += page.proposals.len();
                match page.next_cursor {
                    Some(c) => cursor = memory_bank_contract::validate::Cursor::decode_for("prop", &c),
                    None => return n,
                }
            }
        }
    };
    assert_eq!(pending(w.alice.clone()).await, MAX_PENDING_PROPOSALS as usize);
    assert!(matches!(w.bank.propose(&w.alice, &w.org, draft(5000)).await, Err(ProposalError::TooMany { .. })));
    w.bank.reject_proposal(&w.alice, &first.unwrap()).await.unwrap();
    w.bank.propose(&w.alice, &w.org, draft(5001)).await.expect("a decided proposal makes room");
    w.bank.propose(&w.bob, &w.org, draft(1)).await.expect("bob's cap is his own");
}
