//! The shared suite's citation case: every backend must find the memories that cite a
//! session (only the caller's, newest first, each once), and forget a memory's citations
//! when it is deleted.

use memory_bank_contract::wire::{ContextInput, SaveMemoryRequest};

use crate::suite::{request, save, world, Fixture};

fn citing(content: &str, session: &str, message: &str) -> SaveMemoryRequest {
    let context = |m: &str| ContextInput {
        snippet: format!("said in {m}"),
        conversation_id: Some(session.into()),
        message_id: Some(m.into()),
        origin: None,
    };
    // Two contexts in the same session: the memory is still found once.
    SaveMemoryRequest { contexts: Some(vec![context(message), context("msg-other")]), ..request(content) }
}

/// Memories citing a session are found by its id, newest first, once each, never
/// another user's; a deleted memory is no longer found.
pub async fn memories_citing_a_session_are_found_newest_first(f: &dyn Fixture) {
    let w = world(f).await;
    let older = save(&w, &w.alice, citing("Deploys are on Tuesdays", "ses-1", "msg-3")).await;
    w.clock.advance(1_000);
    let newer = save(&w, &w.alice, citing("The staging host is blue", "ses-1", "msg-9")).await;
    save(&w, &w.alice, citing("Elsewhere", "ses-2", "msg-1")).await;
    save(&w, &w.alice, request("Cites nothing")).await;
    save(&w, &w.bob, citing("Bob's, same session id", "ses-1", "msg-3")).await;

    let found = w.bank.citing(&w.alice, "ses-1", 100).await.unwrap();
    let ids: Vec<&str> = found.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, [newer.id.as_str(), older.id.as_str()]);
    assert_eq!(found[1].contexts, older.contexts, "with the contexts that say which messages");
    assert_eq!(w.bank.citing(&w.alice, "ses-1", 1).await.unwrap().len(), 1, "limit");
    assert!(w.bank.citing(&w.alice, "ses-404", 100).await.unwrap().is_empty());
    assert!(w.bank.citing(&w.alice, "'; DROP TABLE memory; --", 100).await.unwrap().is_empty());

    assert!(w.bank.delete(&w.alice, &newer.id).await.unwrap());
    let after: Vec<String> = w.bank.citing(&w.alice, "ses-1", 100).await.unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(after, std::slice::from_ref(&older.id));
}
