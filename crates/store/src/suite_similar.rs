//! The shared suite's duplicate-hint cases: every backend must find a user's memories
//! worded like a new sentence (only theirs), hint at them on proposals and accepts,
//! never merge on its own, and let the person accept a save as an edit instead.

use memory_bank_contract::validate::{parse_list, validate_propose};
use memory_bank_contract::wire::{AcceptProposalRequest, ProposalStatus, ProposeRequest, SimilarMemory};

use crate::suite::{list_all, request, save, world, Fixture};
use memory_bank_contract::gate::Refused;

use crate::similar::{overlap, MAX_SIMILAR, SIMILAR_MIN_OVERLAP};
use crate::{terms, ProposalError};
use memory_bank_contract::wire::Memory;
use std::collections::HashSet;

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

    // A save's own hint, read beside its insert: the same as asking after it, itself
    // left out, and at most MAX_SIMILAR even when its own row was seen.
    for text in ["I use spaces for indentation", "I use tabs for indentation", "The cat sleeps all day"] {
        let input = memory_bank_contract::validate::validate_save(request(text)).unwrap();
        let (saved, hinted) = w.bank.save_hinted(&w.bob, &w.org, input).await.unwrap();
        let crate::Saved::Memory(saved) = saved else { panic!("a personal save is saved") };
        let after = w.bank.similar(&w.bob, text, Some(&saved.id)).await.unwrap();
        assert_eq!(hinted, after, "{text}");
        assert!(hinted.iter().all(|h| h.id != saved.id) && hinted.len() <= MAX_SIMILAR);
        w.clock.advance(1);
    }
    assert_eq!(w.bank.similar(&w.bob, "I use spaces for indentation", None).await.unwrap().len(), 3, "all three of bob's saved");

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

/// The rule itself, by brute force: every one of the user's memories compared with the
/// sentence, alike ones most alike first, newest first among equals.
fn alike_to_every_memory(all: &[Memory], content: &str, exclude: Option<&str>) -> Vec<SimilarMemory> {
    let set = |text: &str| -> HashSet<String> { terms::exact_terms(text).into_iter().map(|t| t.text).collect() };
    let wanted = set(content);
    let mut alike: Vec<(f64, &Memory)> = all
        .iter()
        .filter(|m| Some(m.id.as_str()) != exclude)
        .map(|m| (overlap(&wanted, &set(&m.content)), m))
        .filter(|(score, _)| *score >= SIMILAR_MIN_OVERLAP)
        .collect();
    alike.sort_by(|(a, x), (b, y)| b.total_cmp(a).then(y.created_at.unix_ms().cmp(&x.created_at.unix_ms())));
    alike.into_iter().take(MAX_SIMILAR).map(|(_, m)| SimilarMemory { id: m.id.clone(), content: m.content.clone() }).collect()
}

/// The hint looks up only a sentence's rarest terms, yet gives exactly what comparing it
/// with every one of the user's memories gives: over a bank of sentences drawn from a
/// skewed vocabulary (stopwords, common and rare words, Chinese), for new sentences,
/// for saved ones leaving themselves out, and never another user's.
pub async fn hints_are_those_of_comparing_with_every_memory(f: &dyn Fixture) {
    let w = world(f).await;
    let words = [
        "the", "i", "use", "for", "to", "on", "deploy", "deploys", "tabs", "spaces", "indentation", "go", "rust",
        "billing", "service", "postgres", "staging", "vpn", "friday", "tuesday", "vercel", "invoices", "tea", "green",
        "coffee", "dark", "mode", "answers", "short", "tests", "review", "mornings", "喜欢喝绿茶", "在上海工作",
        "kubernetes", "terraform", "allergic", "peanuts", "daughter", "website", "migrated", "cockroachdb",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    // Skewed: the first words (stopwords, then common ones) are drawn far more often.
    let sentence = |next: &mut dyn FnMut(usize) -> usize| -> String {
        let len = 2 + next(6);
        (0..len).map(|_| { let upto = 1 + next(words.len()); words[next(upto)] }).collect::<Vec<_>>().join(" ")
    };
    for _ in 0..200 {
        let content = sentence(&mut next);
        save(&w, &w.alice, request(&content)).await;
        w.clock.advance(1);
        if next(4) == 0 {
            save(&w, &w.bob, request(&content)).await; // alike to alice's, never hinted to her
        }
    }
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = w.bank.list(&w.alice, &parse_list(Some("100"), cursor.as_deref()).unwrap()).await.unwrap();
        all.extend(page.memories);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(all.len(), 200);
    let mut hinted = 0;
    for _ in 0..60 {
        let content = sentence(&mut next);
        let hints = w.bank.similar(&w.alice, &content, None).await.unwrap();
        assert_eq!(hints, alike_to_every_memory(&all, &content, None), "hints for {content:?}");
        hinted += usize::from(!hints.is_empty());
    }
    for memory in all.iter().step_by(7) {
        let hints = w.bank.similar(&w.alice, &memory.content, Some(&memory.id)).await.unwrap();
        assert_eq!(hints, alike_to_every_memory(&all, &memory.content, Some(&memory.id)), "hints for {:?}", memory.content);
    }
    assert!(hinted >= 20, "the bank is alike enough to test anything: {hinted} of 60 sentences got hints");
}

/// A term's rows are the user's memories holding it, at most so many, never another
/// user's; their sentences are read back by those keys, the user's only: what lets the
/// hint count its candidates without reading every match.
pub async fn term_rows_stop_at_the_cap(f: &dyn Fixture) {
    let w = world(f).await;
    let mut teas = Vec::new();
    for i in 0..5 {
        teas.push(save(&w, &w.alice, request(&format!("green tea number {i}"))).await.id);
    }
    let coffee = save(&w, &w.alice, request("black coffee")).await;
    for _ in 0..3 {
        save(&w, &w.bob, request("coffee for bob")).await;
    }
    let scoped = terms::scope_terms(&w.alice, &[terms::Term::exact("tea"), terms::Term::exact("coffee"), terms::Term::exact("absent")]);
    let lens = |lists: Vec<Vec<String>>| lists.iter().map(Vec::len).collect::<Vec<_>>();
    assert_eq!(lens(w.bank.store().term_rows(&scoped, 3).await.unwrap()), [3, 1, 0]);
    let all = w.bank.store().term_rows(&scoped, 100).await.unwrap();
    assert_eq!(lens(all.clone()), [5, 1, 0]);
    assert!(w.bank.store().term_rows(&[], 3).await.unwrap().is_empty());

    let mut worded = w.bank.store().worded_rows(&w.alice, &all[0]).await.unwrap();
    worded.sort_by(|a, b| a.content.cmp(&b.content));
    let mut ids: Vec<String> = worded.iter().map(|m| m.id.clone()).collect();
    ids.sort();
    teas.sort();
    assert_eq!(ids, teas);
    assert_eq!(worded[0].content, "green tea number 0");
    let coffee_rows = w.bank.store().worded_rows(&w.alice, &all[1]).await.unwrap();
    assert_eq!(coffee_rows.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), [coffee.id.as_str()]);
    assert!(w.bank.store().worded_rows(&w.bob, &all[0]).await.unwrap().is_empty(), "alice's rows are never bob's");
}
