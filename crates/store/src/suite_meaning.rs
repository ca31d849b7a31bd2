//! The shared suite's meaning cases, run with the real model (the backend's test gives
//! it): a paraphrase is found by meaning and says so; words still come first when they
//! match; nonsense finds nothing by meaning; vectors follow edits, deletes and
//! offboarding; the backfill makes every missing vector (an import's, an older bank's,
//! another model's) and never writes one made from text that changed meanwhile.

use std::sync::Arc;

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::validate::ValidSearch;
use memory_bank_contract::wire::{Matched, SearchResult};

use crate::meaning::{vector, Embed, Meaning};
use crate::MeaningStatus;
use crate::store::{NewMemory, VectorRow};
use crate::suite::{request, save, world, Fixture, World};
use crate::{Bank, Offboard};

const PEANUTS: &str = "My daughter is allergic to peanuts";
const DEPLOYS: &str = "Deploys to production happen on Tuesdays after the review";
const TABS: &str = "I prefer tabs over spaces for indentation";
const VPN: &str = "The staging servers are only reachable over the VPN";
const TEA: &str = "我喜欢喝绿茶";

/// (memories, with a vector) by the bank's status.
async fn covered(bank: &Bank) -> (u64, u64) {
    match bank.meaning_status().await.unwrap() {
        MeaningStatus::On { memories, with_vector, .. } => (memories, with_vector),
        other => panic!("the model should be there: {other:?}"),
    }
}

/// A world whose bank searches by meaning with `embed`.
async fn meaning_world(f: &dyn Fixture, embed: &Arc<dyn Embed>) -> World {
    let mut w = world(f).await;
    w.bank = w.bank.clone().with_meaning(Meaning::new(embed.clone()));
    w
}

async fn hits(bank: &Bank, user: &str, q: &str) -> Vec<SearchResult> {
    bank.search(user, &ValidSearch { query: q.into(), limit: 10, words_only: false }).await.unwrap()
}

fn contents(hits: &[SearchResult]) -> Vec<&str> {
    hits.iter().map(|h| h.memory.content.as_str()).collect()
}

async fn five(w: &World) {
    for content in [PEANUTS, DEPLOYS, TABS, VPN, TEA] {
        save(w, &w.alice, request(content)).await;
        w.clock.advance(1);
    }
}

/// A question that shares no word with the memory finds it by meaning, and says so;
/// one that shares words finds it by both; nonsense and another person's memories
/// are never found by meaning; Chinese two-character words still match exactly.
pub async fn a_paraphrase_is_found_by_meaning_and_says_so(f: &dyn Fixture, embed: Arc<dyn Embed>) {
    let w = meaning_world(f, &embed).await;
    five(&w).await;
    save(&w, &w.bob, request("My son is allergic to shellfish")).await;

    let found = hits(&w.bank, &w.alice, "Which food allergies are in the family?").await;
    assert_eq!(contents(&found).first(), Some(&PEANUTS), "{:?}", contents(&found));
    assert_eq!(found[0].matched, Matched::Meaning, "no shared word: found by meaning");
    assert!(found.iter().all(|h| h.memory.content != "My son is allergic to shellfish"), "never another person's");

    let found = hits(&w.bank, &w.alice, "how do we deploy to production").await;
    assert_eq!(found[0].memory.content, DEPLOYS);
    assert_eq!(found[0].matched, Matched::Both, "its words and its meaning");

    let found = hits(&w.bank, &w.alice, "do I need a VPN for staging?").await;
    assert_eq!(found[0].memory.content, VPN);

    assert!(hits(&w.bank, &w.alice, "zzqx flurble wibblewomp").await.is_empty(), "nonsense finds nothing");
    // Chinese two-character words still find their memory first: the model knows little
    // Chinese, and what it says never outweighs an exact match.
    for content in ["客户迁移计划下周开始", "数据库服务器在北京", "团队会议改到周五", "发布版本需要测试"] {
        save(&w, &w.alice, request(content)).await;
    }
    for (word, content) in [("绿茶", TEA), ("迁移", "客户迁移计划下周开始"), ("北京", "数据库服务器在北京"), ("会议", "团队会议改到周五"), ("测试", "发布版本需要测试")] {
        let found = hits(&w.bank, &w.alice, word).await;
        assert_eq!(found[0].memory.content, content, "{word}: {:?}", contents(&found));
        assert_ne!(found[0].matched, Matched::Meaning, "{word}");
    }
}

/// An edit makes the vector again from the new text; a delete and offboarding remove
/// it; a vector made from text that changed meanwhile is never written.
pub async fn vectors_follow_edits_deletes_and_offboarding(f: &dyn Fixture, embed: Arc<dyn Embed>) {
    let w = meaning_world(f, &embed).await;
    let peanuts = save(&w, &w.alice, request(PEANUTS)).await;
    let tabs = save(&w, &w.alice, request(TABS)).await;
    assert_eq!(f.count("memory_vector").await, 2, "a save makes its vector");

    let allergies = "Which food allergies are in the family?";
    assert_eq!(contents(&hits(&w.bank, &w.alice, allergies).await).first(), Some(&PEANUTS));
    w.clock.advance(1);
    let edit = validate_edit(EditMemoryRequest { content: Some("We water the garden on Sundays".into()), ..Default::default() }).unwrap();
    w.bank.edit(&w.alice, &peanuts.id, edit).await.unwrap().unwrap();
    assert_eq!(f.count("memory_vector").await, 2, "the edit made a new vector");
    let found = hits(&w.bank, &w.alice, allergies).await;
    assert!(found.iter().all(|h| h.memory.id != peanuts.id), "the old meaning no longer matches: {:?}", contents(&found));
    let found = hits(&w.bank, &w.alice, "when is the lawn watered?").await;
    assert_eq!(found.first().map(|h| h.memory.id.as_str()), Some(peanuts.id.as_str()), "the new one does");

    // A vector made from the text before the edit is refused by the store.
    let model = embed.model().to_owned();
    let stale = VectorRow {
        memory_id: peanuts.id.clone(),
        user_id: w.alice.clone(),
        search_text: crate::terms::memory_index_text(&w.alice, PEANUTS, &[], std::iter::empty()),
        vector: vector::encode(&embed.embed(vec![PEANUTS.into()]).await.unwrap()[0]),
    };
    assert_eq!(w.bank.store().put_vectors(&model, &[stale]).await.unwrap(), 0);
    assert!(hits(&w.bank, &w.alice, allergies).await.iter().all(|h| h.memory.id != peanuts.id));

    assert!(w.bank.delete(&w.alice, &tabs.id).await.unwrap());
    assert_eq!(f.count("memory_vector").await, 1, "a delete removes its vector");
    assert!(hits(&w.bank, &w.alice, "tabs or spaces?").await.iter().all(|h| h.memory.id != tabs.id));

    save(&w, &w.bob, request(VPN)).await;
    assert_eq!(f.count("memory_vector").await, 2);
    w.bank.offboard(Offboard::User(&w.alice), 10).await.unwrap();
    assert_eq!(f.count("memory_vector").await, 1, "offboarding removes the person's vectors, not others'");
}

/// Memories saved without a vector (an older bank, a bank searching by words only)
/// get one from the backfill, which then has nothing left to do; vectors of another
/// model are made again; meanwhile search finds them by their words.
pub async fn the_backfill_makes_every_missing_vector(f: &dyn Fixture, embed: Arc<dyn Embed>) {
    let w = world(f).await; // by words only: no vectors
    for i in 0..70 {
        let content = if i == 33 { PEANUTS.to_owned() } else { format!("Note number {i} about the quarterly report") };
        w.bank.store().insert_memory(&NewMemory::plain(&w.alice, &w.org, content, 1_764_455_111_007 + i)).await.unwrap();
    }
    assert_eq!(f.count("memory_vector").await, 0);
    let bank = w.bank.clone().with_meaning(Meaning::new(embed.clone()));
    assert_eq!(covered(&bank).await, (70, 0));
    let found = hits(&bank, &w.alice, "peanuts").await;
    assert_eq!(contents(&found), [PEANUTS], "found by its words before the backfill");

    // Vectors of another model are not this one's: made again.
    let other = VectorRow {
        memory_id: found[0].memory.id.clone(),
        user_id: w.alice.clone(),
        search_text: crate::terms::index_text(&w.alice, [PEANUTS]),
        vector: vector::encode(&[0.5; 384]),
    };
    assert_eq!(bank.store().put_vectors("another-model/1", &[other]).await.unwrap(), 1);

    assert_eq!(bank.backfill_vectors().await.unwrap(), 70);
    assert_eq!(covered(&bank).await, (70, 70));
    assert_eq!(f.count("memory_vector").await, 70, "the other model's vector was replaced");
    assert_eq!(bank.backfill_vectors().await.unwrap(), 0, "nothing left");
    let found = hits(&bank, &w.alice, "Which food allergies are in the family?").await;
    assert_eq!(contents(&found).first(), Some(&PEANUTS));
    assert_eq!(found[0].matched, Matched::Meaning);
}
