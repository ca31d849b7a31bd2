//! The shared suite's duplicate-hint cases: every backend must find a user's memories
//! worded like a new sentence (only theirs), hint at them on proposals and accepts,
//! never merge on its own, and let the person accept a save as an edit instead.

use memory_bank_contract::validate::{parse_list, validate_propose, validate_save};
use memory_bank_contract::wire::{AcceptProposalRequest, ProposalStatus, ProposeRequest, SaveMemoryRequest, Scope, SimilarMemory};

use crate::suite::{list_all, request, save, world, Fixture};
use memory_bank_contract::gate::Refused;

use crate::similar::{overlap, MAX_SIMILAR, SIMILAR_MIN_OVERLAP};
use crate::{terms, BankKey, ProposalError, TermRows};
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

/// Sentences drawn from a skewed vocabulary (stopwords, common and rare words, Chinese):
/// the first words are drawn far more often, so a bank of them has common and rare terms.
struct Skewed(u64);

impl Skewed {
    const WORDS: [&'static str; 42] = [
        "the", "i", "use", "for", "to", "on", "deploy", "deploys", "tabs", "spaces", "indentation", "go", "rust",
        "billing", "service", "postgres", "staging", "vpn", "friday", "tuesday", "vercel", "invoices", "tea", "green",
        "coffee", "dark", "mode", "answers", "short", "tests", "review", "mornings", "喜欢喝绿茶", "在上海工作",
        "kubernetes", "terraform", "allergic", "peanuts", "daughter", "website", "migrated", "cockroachdb",
    ];

    fn new() -> Self {
        Skewed(0x2545_f491_4f6c_dd1d)
    }

    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn sentence(&mut self) -> String {
        let len = 2 + self.next(6);
        (0..len).map(|_| { let upto = 1 + self.next(Self::WORDS.len()); Self::WORDS[self.next(upto)] }).collect::<Vec<_>>().join(" ")
    }
}

/// The hint looks up only a sentence's rarest terms, yet gives exactly what comparing it
/// with every one of the user's memories gives: over a bank of sentences drawn from a
/// skewed vocabulary (stopwords, common and rare words, Chinese), for new sentences,
/// for saved ones leaving themselves out, and never another user's.
pub async fn hints_are_those_of_comparing_with_every_memory(f: &dyn Fixture) {
    let w = world(f).await;
    let mut draw = Skewed::new();
    for _ in 0..200 {
        let content = draw.sentence();
        save(&w, &w.alice, request(&content)).await;
        w.clock.advance(1);
        if draw.next(4) == 0 {
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
        let content = draw.sentence();
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

/// Every memory of `user`, page by page.
async fn every_memory(w: &crate::suite::World, user: &str) -> Vec<Memory> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = w.bank.list(user, &parse_list(Some("100"), cursor.as_deref()).unwrap()).await.unwrap();
        all.extend(page.memories);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return all,
        }
    }
}

/// Words the hint found common (at its count cap) are not read again, and the hints stay
/// exactly those of comparing with every memory: while the words are common, and once
/// deletes have made them rare again.
pub async fn hints_stay_exact_when_a_common_word_turns_rare(f: &dyn Fixture) {
    let w = world(f).await;
    let cap = crate::similar::COUNT_CAP as usize;
    let at = crate::Clock::now(w.clock.as_ref()).unix_ms();
    let common: Vec<crate::NewMemory> = (0..cap + 10)
        .map(|i| crate::NewMemory::plain(&w.alice, &w.org, format!("zebra crossing {i} near harbour gate"), at - 1_000_000 + i as i64))
        .collect();
    for chunk in common.chunks(100) {
        w.bank.store().insert_memories(chunk).await.unwrap();
    }
    for text in ["The zebra crossing by the harbour gate is closed", "Harbour gate opens at six", "A zebra crossing near the school"] {
        save(&w, &w.alice, request(text)).await;
        w.clock.advance(1);
    }
    let sentences = [
        "zebra crossing near harbour gate",
        "the zebra crossing by the harbour gate is closed on Sundays",
        "harbour gate opens at six sharp",
        "a zebra crossing near the old school",
    ];
    check_hints(&w, &sentences, &every_memory(&w, &w.alice).await).await;
    let zebra = &terms::scope_terms(&w.alice, &[terms::Term::exact("zebra")])[0];
    assert!(w.bank.common_terms().is_common(zebra), "a word in {} memories is known common", cap + 10);
    for memory in &common[5..] {
        assert!(w.bank.delete(&w.alice, &memory.id).await.unwrap());
    }
    let all = every_memory(&w, &w.alice).await;
    assert_eq!(all.len(), 8);
    check_hints(&w, &sentences, &all).await;
}

/// A sentence with few uncommon words needs one of them to count a memory in, so many
/// memories can be; the hint then checks their terms, common words included, before
/// reading their sentences, and still gives exactly what comparing with every memory
/// gives: alike memories among many that share only the uncommon word.
pub async fn hints_stay_exact_when_many_memories_share_an_uncommon_word(f: &dyn Fixture) {
    let w = world(f).await;
    let at = crate::Clock::now(w.clock.as_ref()).unix_ms() - 1_000_000;
    let common = (0..crate::similar::COUNT_CAP as i64 + 10)
        .map(|i| crate::NewMemory::plain(&w.alice, &w.org, format!("alpha bravo charlie {i}"), at + i));
    let sharing = crate::similar::WORDED_AT_ONCE as i64 * 3;
    let lantern = (0..sharing).map(|i| {
        let text = if i % 10 == 3 { format!("lantern alpha bravo xray {i}") } else { format!("lantern {i} delta{i} echo{i}") };
        crate::NewMemory::plain(&w.alice, &w.org, text, at + 10_000 + i)
    });
    let rows: Vec<crate::NewMemory> = common.chain(lantern).collect();
    for chunk in rows.chunks(100) {
        w.bank.store().insert_memories(chunk).await.unwrap();
    }
    save(&w, &w.bob, request("lantern alpha bravo xray")).await; // another user's, never hinted
    // Two common words of six (four uncommon, one of them in 96 memories): one is enough.
    let sentences = ["lantern alpha bravo xray yankee zulu", "lantern alpha xray", "lantern alpha bravo xray 13"];
    let all = every_memory(&w, &w.alice).await;
    check_hints(&w, &sentences, &all).await;
    let hints = w.bank.similar(&w.alice, sentences[0], None).await.unwrap();
    assert_eq!(hints.len(), MAX_SIMILAR, "the bank holds alike memories to find: {hints:?}");
}

async fn check_hints(w: &crate::suite::World, sentences: &[&str], all: &[Memory]) {
    for text in sentences {
        let hints = w.bank.similar(&w.alice, text, None).await.unwrap();
        assert_eq!(hints, alike_to_every_memory(all, text, None), "hints for {text:?} over {} memories", all.len());
    }
}

/// A team bank's hint is the same rule over the org's memories, which every member reads:
/// exactly what comparing with every team memory gives, never a member's own memory nor
/// another org's. A member's team save (a proposal) and an owner's direct one are
/// answered with it, the proposal carries it in the org Inbox, and its accept too.
pub async fn team_hints_are_those_of_comparing_with_every_team_memory(f: &dyn Fixture) {
    let w = world(f).await; // alice owns Acme, bob is a member
    let other = w.bank.add_org("Globex").await.unwrap().id;
    w.bank.add_member(&other, &w.alice).await.unwrap();
    let to_team = |content: &str| validate_save(SaveMemoryRequest { scope: Some(Scope::Org), ..request(content) }).unwrap();
    let mut draw = Skewed::new();
    let mut team = Vec::new();
    for _ in 0..200 {
        let content = draw.sentence();
        team.push(w.bank.save_to_team(&w.alice, &w.org, to_team(&content)).await.unwrap());
        w.clock.advance(1);
        match draw.next(4) {
            0 => {
                save(&w, &w.bob, request(&content)).await; // bob's own: never in the team's hint
            }
            1 => {
                w.bank.save_to_team(&w.alice, &other, to_team(&content)).await.unwrap(); // another org's
            }
            _ => {}
        }
    }
    let bank = BankKey::Team(&w.org);
    let mut hinted = 0;
    for _ in 0..60 {
        let content = draw.sentence();
        let hints = w.bank.similar_in(bank, &content, None).await.unwrap();
        assert_eq!(hints, alike_to_every_memory(&team, &content, None), "team hints for {content:?}");
        hinted += usize::from(!hints.is_empty());
    }
    for memory in team.iter().step_by(7) {
        let hints = w.bank.similar_in(bank, &memory.content, Some(&memory.id)).await.unwrap();
        assert_eq!(hints, alike_to_every_memory(&team, &memory.content, Some(&memory.id)), "team hints for {:?}", memory.content);
    }
    assert!(hinted >= 20, "the bank is alike enough to test anything: {hinted} of 60 sentences got hints");
    assert!(w.bank.similar(&w.alice, &team[0].content, None).await.unwrap().is_empty(), "not alice's own bank");

    let content = team.iter().map(|m| m.content.clone()).find(|c| alike_to_every_memory(&team, c, None).len() >= 2).unwrap();
    let expected = alike_to_every_memory(&team, &content, None);
    w.clock.advance(1);
    let (saved, hint) = w.bank.save_hinted(&w.bob, &w.org, to_team(&content)).await.unwrap();
    let crate::Saved::Proposed(proposal) = saved else { panic!("a member's team save is a proposal") };
    assert_eq!((&hint, &proposal.similar), (&expected, &expected), "the member's answer and the proposal carry the team's hint");
    let inbox = w.bank.list_team_proposals(&w.alice, &w.org, Some(ProposalStatus::Pending), None, None).await.unwrap();
    assert_eq!(inbox.proposals[0].similar, expected, "and so does the org Inbox");

    w.clock.advance(1);
    let (saved, hint) = w.bank.save_hinted(&w.alice, &w.org, to_team(&content)).await.unwrap();
    let crate::Saved::Memory(memory) = saved else { panic!("an owner's team save is saved") };
    assert_eq!(hint, alike_to_every_memory(&team, &content, None), "itself left out");
    team.push(*memory);

    w.clock.advance(1);
    let accepted = w.bank.accept_proposal_for(&w.alice, &w.org, &proposal.id, AcceptProposalRequest::default()).await.unwrap();
    let memory = accepted.memory.unwrap();
    assert_eq!(accepted.similar, alike_to_every_memory(&team, &content, Some(&memory.id)), "the accept's hint, from the team bank");
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
    // A term at the cap is common, its rows not read out; under it, each row once.
    let lens = |lists: Vec<TermRows>| {
        lists.iter().map(|l| match l { TermRows::Common => None, TermRows::Rows(keys) => Some(keys.len()) }).collect::<Vec<_>>()
    };
    assert_eq!(lens(w.bank.store().term_rows(BankKey::Personal(&w.alice), &scoped, 3).await.unwrap()), [None, Some(1), Some(0)]);
    assert_eq!(lens(w.bank.store().term_rows(BankKey::Personal(&w.alice), &scoped, 5).await.unwrap()), [None, Some(1), Some(0)]);
    assert_eq!(lens(w.bank.store().term_rows(BankKey::Personal(&w.alice), &scoped, 6).await.unwrap()), [Some(5), Some(1), Some(0)]);
    let all: Vec<Vec<String>> = w.bank.store().term_rows(BankKey::Personal(&w.alice), &scoped, 100).await.unwrap()
        .into_iter()
        .map(|l| match l { TermRows::Common => panic!("a term of 5 rows is not common at 100"), TermRows::Rows(keys) => keys })
        .collect();
    assert!(w.bank.store().term_rows(BankKey::Personal(&w.alice), &[], 3).await.unwrap().is_empty());

    let mut worded = w.bank.store().worded_rows(BankKey::Personal(&w.alice), &all[0]).await.unwrap();
    worded.sort_by(|a, b| a.content.cmp(&b.content));
    let mut ids: Vec<String> = worded.iter().map(|m| m.id.clone()).collect();
    ids.sort();
    teas.sort();
    assert_eq!(ids, teas);
    assert_eq!(worded[0].content, "green tea number 0");
    let coffee_rows = w.bank.store().worded_rows(BankKey::Personal(&w.alice), &all[1]).await.unwrap();
    assert_eq!(coffee_rows.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), [coffee.id.as_str()]);
    assert!(w.bank.store().worded_rows(BankKey::Personal(&w.bob), &all[0]).await.unwrap().is_empty(), "alice's rows are never bob's");
    assert!(w.bank.store().worded_rows(BankKey::Team(&w.org), &all[0]).await.unwrap().is_empty(), "nor her org's");
}
