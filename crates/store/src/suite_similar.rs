//! The shared suite's duplicate-hint cases: every backend must find a user's memories
//! worded like a new sentence (only theirs), hint at them on proposals and accepts,
//! never merge on its own, and let the person accept a save as an edit instead.

use memory_bank_contract::validate::validate_propose;
use memory_bank_contract::wire::{AcceptProposalRequest, ProposalStatus, ProposeRequest, SimilarMemory};

use crate::suite::{list_all, request, save, world, Fixture};
use memory_bank_contract::gate::Refused;

use crate::ProposalError;

fn draft(content: &str) -> ProposeRequest {
    ProposeRequest { content: Some(content.into()), ..Default::default() }
}

/// Alike memories of the caller are hinted at, best first; other users', unlike ones
/// and the excluded one are not; a proposal carries them and accepting still saves a
/// second memory: nothing is merged.
pub async fn similar_memories_are_hinted_never_merged(f: &dyn Fixture) {
    let w = world(f).await;
    let tabs = save(&w, &w.alice, request("I use tabs for indentation")).await;
    w.clock.advance(1);
    let tabs_go = save(&w, &w.alice, request("I use tabs for indentation in Go")).await;
    save(&w, &w.alice, request("Deploys happen on Friday")).await;
    save(&w, &w.bob, request("I use spaces for indentation")).await;

    let hints = w.bank.similar(&w.alice, "I use spaces for indentation", None).await.unwrap();
    let hinted: Vec<&str> = hints.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(hinted, [tabs.id.as_str(), tabs_go.id.as_str()], "the closer wording first; never bob's row");
    assert_eq!(hints[0], SimilarMemory { id: tabs.id.clone(), content: tabs.content.clone() });
    assert!(w.bank.similar(&w.alice, "The cat sleeps all day", None).await.unwrap().is_empty());
    assert!(w.bank.similar(&w.alice, "😀 !!", None).await.unwrap().is_empty(), "no terms, no hints");
    let without = w.bank.similar(&w.alice, "I use tabs for indentation", Some(&tabs.id)).await.unwrap();
    assert!(without.iter().all(|h| h.id != tabs.id), "the excluded memory is left out");

    let proposal = w.bank.propose(&w.alice, &w.org, validate_propose(draft("I use spaces for indentation")).unwrap()).await.unwrap();
    assert_eq!(proposal.similar, hints, "the proposal carries the hints");
    let listed = w.bank.list_proposals(&w.alice, Some(ProposalStatus::Pending), None, None).await.unwrap();
    assert_eq!(listed.proposals[0].similar, hints, "and so does the Inbox's list");

    let accepted = w.bank.accept_proposal(&w.alice, &proposal.id, AcceptProposalRequest::default()).await.unwrap();
    let saved = accepted.memory.unwrap();
    assert_eq!(list_all(&w, &w.alice).await.len(), 4, "a new memory beside the alike ones");
    assert!(accepted.similar.iter().any(|h| h.id == tabs.id) && accepted.similar.iter().all(|h| h.id != saved.id));
    assert!(w.bank.proposal(&w.alice, &proposal.id).await.unwrap().similar.is_empty(), "decided: no hints");
}

/// Accepting a save as an edit of an alike memory rewrites that memory (keeping the
/// old wording as a revision) and saves nothing new; another user's id is refused and
/// leaves the proposal pending.
pub async fn a_save_accepted_as_an_edit_rewrites_the_alike_memory(f: &dyn Fixture) {
    let w = world(f).await;
    let tabs = save(&w, &w.alice, request("I use tabs for indentation")).await;
    let bobs = save(&w, &w.bob, request("I use tabs for indentation")).await;
    let proposal = w.bank.propose(&w.alice, &w.org, validate_propose(draft("I use spaces for indentation")).unwrap()).await.unwrap();

    let unlike = save(&w, &w.alice, request("Deploys happen on Friday")).await;
    // Only an alike memory of the proposal's may be rewritten instead: not another user's
    // (nothing says whether it exists), not an unrelated one of the person's own.
    for target in [&bobs.id, &unlike.id] {
        let instead = AcceptProposalRequest { edit_instead: Some(target.clone()), ..Default::default() };
        let refused = w.bank.accept_proposal(&w.alice, &proposal.id, instead).await.unwrap_err();
        assert!(
            matches!(&refused, ProposalError::Refused(Refused::Invalid(d)) if d[0].path == "editInstead"),
            "{refused:?}"
        );
    }
    assert_eq!(w.bank.proposal(&w.alice, &proposal.id).await.unwrap().status, ProposalStatus::Pending);
    assert_eq!(w.bank.memory(&w.alice, &unlike.id).await.unwrap().unwrap().content, "Deploys happen on Friday");
    assert_eq!(w.bank.memory(&w.bob, &bobs.id).await.unwrap().unwrap().content, "I use tabs for indentation");

    let instead = AcceptProposalRequest { edit_instead: Some(tabs.id.clone()), ..Default::default() };
    let accepted = w.bank.accept_proposal(&w.alice, &proposal.id, instead).await.unwrap();
    let edited = accepted.memory.unwrap();
    assert_eq!((edited.id.as_str(), edited.content.as_str()), (tabs.id.as_str(), "I use spaces for indentation"));
    assert_eq!(list_all(&w, &w.alice).await.len(), 2, "no new memory: the rewritten one and the unlike one");
    let history = w.bank.revisions(&w.alice, &tabs.id).await.unwrap().unwrap();
    assert_eq!(history.iter().map(|r| r.content.as_str()).collect::<Vec<_>>(), ["I use tabs for indentation"]);
    let decided = w.bank.proposal(&w.alice, &proposal.id).await.unwrap();
    assert_eq!((decided.status, decided.memory_id.as_deref()), (ProposalStatus::Accepted, Some(tabs.id.as_str())));
}
