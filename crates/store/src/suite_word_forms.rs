//! The shared suite's word-form cases: every backend must find a memory by another form
//! of its words, rank the exact form first, leave stopwords out of a query that has
//! other words, and bring an older bank's terms up to date from the memories' own text,
//! resumably, without undoing an edit made meanwhile.

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::validate::ValidSearch;
use memory_bank_contract::wire::{Matched, SaveMemoryRequest};

use crate::store::{NewMemory, TermsProgress, TermsRewrite};
use crate::suite::{request, save, search, world, Fixture, World};
use crate::terms::{self, TERMS_VERSION};
use crate::Bank;

const DEPLOYS: &str = "Deploys to production happen on Tuesdays after the review";
const DEPLOYING: &str = "I am deploying the website with Vercel";
const MIGRATED: &str = "We migrated the billing service from Postgres to CockroachDB";
const TABS: &str = "I prefer tabs over spaces for indentation";
const PEANUTS: &str = "My daughter is allergic to peanuts";
const THE_WHO: &str = "The Who played here in 1969";

async fn eight_memories(w: &World) {
    for content in [DEPLOYS, DEPLOYING, MIGRATED, TABS, PEANUTS, THE_WHO, "The staging VPN is required", "我喜欢喝绿茶"] {
        save(w, &w.alice, request(content)).await;
        w.clock.advance(1);
    }
}

/// A query finds other forms of its words, on content, tags and snippets alike; a
/// question's stopwords pull in nothing; a query of stopwords only still answers.
pub async fn search_finds_other_forms_of_a_word(f: &dyn Fixture) {
    let w = world(f).await;
    eight_memories(&w).await;
    let tagged = SaveMemoryRequest { content: "Release checklist".into(), tags: Some(vec!["deployments".into()]), ..Default::default() };
    let tagged = save(&w, &w.alice, tagged).await;
    save(&w, &w.bob, request("Deploys are frozen in December")).await;

    let found = search(&w, &w.alice, "deploy").await;
    assert_eq!(found.len(), 3, "{found:?}");
    assert!([DEPLOYS, DEPLOYING, tagged.content.as_str()].iter().all(|m| found.iter().any(|f| f == m)), "{found:?}");
    assert_eq!(search(&w, &w.alice, "migrating").await, [MIGRATED]);
    assert_eq!(search(&w, &w.alice, "database migration").await, [MIGRATED]);
    assert_eq!(search(&w, &w.alice, "preferences").await, [TABS]);
    assert_eq!(search(&w, &w.alice, "what does the user prefer for indentation?").await, [TABS]);
    assert_eq!(search(&w, &w.alice, "what does the user prefer").await, [TABS], "stopwords pull in nothing");
    assert_eq!(search(&w, &w.alice, "The Who").await[0], THE_WHO, "a query of stopwords only still answers");
    assert_eq!(search(&w, &w.alice, "绿茶").await, ["我喜欢喝绿茶"], "CJK keeps its bigrams");
    let hits = w.bank.search(&w.alice, &ValidSearch { query: "deploying".into(), limit: 10, words_only: false }).await.unwrap();
    assert!(hits.iter().all(|h| h.matched == Matched::Words), "a word match says so");
}

/// Among memories that match, the one holding the query's own form comes first.
pub async fn the_exact_form_ranks_above_other_forms(f: &dyn Fixture) {
    let w = world(f).await;
    save(&w, &w.alice, request("We deploy the website on Fridays")).await;
    w.clock.advance(1);
    save(&w, &w.alice, request("Deploys to the website happen on Fridays")).await;
    assert_eq!(search(&w, &w.alice, "deploy").await[0], "We deploy the website on Fridays", "older, but the exact form");
    assert_eq!(search(&w, &w.alice, "deploys").await[0], "Deploys to the website happen on Fridays");
}

/// Scheme 1's terms: words and CJK as written, no stems (what older banks hold).
fn first_scheme(user_id: &str, content: &str) -> String {
    let scoped = terms::index_text(user_id, [content]);
    scoped.split(' ').filter(|t| t.starts_with('u')).collect::<Vec<_>>().join(" ")
}

/// An older bank (its memories' terms without stems) is rewritten from their own text:
/// in batches that resume where a stopped rewrite left off, never over an edit made
/// meanwhile, and searchable by exact words all along.
pub async fn older_terms_are_rewritten_resumably_from_the_memories_text(f: &dyn Fixture) {
    let w = world(f).await;
    let old: Vec<NewMemory> = (0..620)
        .map(|i| {
            let content = if i == 7 { DEPLOYS.to_owned() } else { format!("Filler note number {i} about lanterns") };
            let mut memory = NewMemory::plain(&w.alice, &w.org, content, 1_764_000_000_000 + i);
            memory.search_text = first_scheme(&w.alice, &memory.content);
            memory
        })
        .collect();
    w.bank.store().insert_memories(&old).await.unwrap();
    let before = TermsProgress { version: 1, done_through: None };
    w.bank.store().rewrite_terms(&[], &before).await.unwrap();
    assert!(!w.bank.terms_status().await.unwrap().done);
    assert!(search(&w, &w.alice, "deploy").await.is_empty(), "scheme 1 has no stems");
    assert_eq!(search(&w, &w.alice, "deploys").await, [DEPLOYS], "exact words match all along");

    // An edit between the rewrite's read and its write wins.
    let sources = w.bank.store().memories_for_terms(None, 10).await.unwrap();
    let edited = &sources[0];
    let edit = validate_edit(EditMemoryRequest { content: Some("Lanterns were replaced by lamps".into()), ..Default::default() });
    w.bank.edit(&w.alice, &edited.id, edit.unwrap()).await.unwrap().unwrap();
    let stale = TermsRewrite {
        id: edited.id.clone(),
        old: edited.search_text.clone(),
        new: terms::index_text(&w.alice, [edited.content.as_str()]),
    };
    let kept = TermsProgress { version: 1, done_through: None };
    assert_eq!(w.bank.store().rewrite_terms(&[stale], &kept).await.unwrap(), 0, "the edit's terms are kept");
    assert_eq!(search(&w, &w.alice, "lamp").await, ["Lanterns were replaced by lamps"]);

    // One batch, then a "restart" on a fresh pool: it goes on from where it was.
    let read = w.bank.rewrite_search_terms_batch().await.unwrap();
    assert!(read > 0 && read < old.len(), "{read}");
    let progress = w.bank.store().terms_progress().await.unwrap();
    assert_eq!(progress.version, 1);
    assert!(progress.done_through.is_some());
    let restarted = Bank::new(f.reopen().await);
    let rest = restarted.rewrite_search_terms().await.unwrap();
    assert_eq!(read as u64 + rest, old.len() as u64, "each memory read once");
    assert!(restarted.terms_status().await.unwrap().done);
    assert_eq!(restarted.store().terms_progress().await.unwrap().version, TERMS_VERSION);
    assert_eq!(search(&w, &w.alice, "deploy").await, [DEPLOYS], "stems after the rewrite");
    assert_eq!(search(&w, &w.alice, "lamp").await, ["Lanterns were replaced by lamps"], "the edit survived");
    assert_eq!(restarted.rewrite_search_terms().await.unwrap(), 0, "nothing left to do");
}

/// Once every memory's terms are in today's scheme, a search reads only the covering
/// terms' index entries (`terms::covering_terms`: a word's stem, not also the word as
/// written). On every backend that finds exactly the candidates every query term finds,
/// newest first, whatever the cap.
pub async fn covering_terms_find_the_candidates_every_query_term_finds(f: &dyn Fixture) {
    let w = world(f).await;
    eight_memories(&w).await;
    for content in [
        "We deploy on Fridays",
        "The deployment failed twice",
        "Redeploy after the python3 upgrade",
        "Die Straße ist gesperrt, strasse too",
        "План развертывания готов",
        "Развертывание завершено",
        "Peanut butter is fine for me",
    ] {
        save(&w, &w.alice, request(content)).await;
        w.clock.advance(1);
    }
    let tagged = SaveMemoryRequest { content: "Release checklist".into(), tags: Some(vec!["deployments".into()]), ..Default::default() };
    save(&w, &w.alice, tagged).await;
    save(&w, &w.bob, request("Deploys are frozen in December")).await;
    // What the app runs at start: over memories saved in today's scheme it only marks them so.
    w.bank.rewrite_search_terms().await.unwrap();
    assert!(w.bank.terms_status().await.unwrap().done);

    let store = w.bank.store();
    let bank = crate::BankKey::Personal(&w.alice);
    let mut found_any = 0;
    for query in [
        "deploy", "Deploys", "deploying", "deployment", "migrating", "prefer tabs", "The Who", "绿茶", "python3 deploys",
        "развертывание", "strasse", "STRASSE", "what does the user prefer", "allergic peanuts", "nothing matches this",
    ] {
        let all = terms::query_terms(query);
        let covering = terms::covering_terms(&all);
        for cap in [1, 2, 1000] {
            let ids = |found: Vec<crate::Candidate>| found.into_iter().map(|c| c.id).collect::<Vec<_>>();
            let want = ids(store.search_candidates(bank, &terms::scope_terms(&w.alice, &all), cap).await.unwrap());
            let got = ids(store.search_candidates(bank, &terms::scope_terms(&w.alice, &covering), cap).await.unwrap());
            assert_eq!(got, want, "{query:?}, cap {cap}");
            found_any += usize::from(!want.is_empty());
        }
    }
    assert!(found_any >= 36, "most queries find something: {found_any}");
    // Through the bank, which now reads the covering terms: "redeploy" is a word of its own.
    let found = search(&w, &w.alice, "deploy").await;
    assert_eq!(found.len(), 5, "{found:?}");
    assert_eq!(found[0], "We deploy on Fridays", "the exact form first");
}
