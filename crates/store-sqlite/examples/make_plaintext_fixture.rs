//! How `tests/fixtures/plaintext-0.1.db` was made: a plaintext bank written by the release
//! before encryption (commit d794bc4), kept so the migration to an encrypted bank is
//! tested against a file an older release really wrote, not one this code made.
//!
//! Run it only to remake the fixture, from a checkout of that older release:
//! `cargo run -p memory-bank-store-sqlite --example make_plaintext_fixture -- /path/plaintext-0.1.db`.

use std::sync::Arc;

use memory_bank_contract::edit::{validate_edit, EditMemoryRequest};
use memory_bank_contract::validate::{validate_propose, validate_save};
use memory_bank_contract::wire::{AcceptProposalRequest, ContextInput, Origin, ProposeRequest, SaveMemoryRequest};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;

/// Every memory of the fixture holds this word, so a test can look for it in the bytes.
const MARKER: &str = "plaintextfixturemarker";

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let path = std::env::args().nth(1).expect("usage: make_plaintext_fixture FILE (the fixture to write)");
    let _ = std::fs::remove_file(&path);
    let store = SqliteStore::open(&format!("sqlite://{path}")).await.unwrap();
    let bank = Bank::new(Arc::new(store.clone()));
    let ada = bank.add_user("ada@example.com").await.unwrap();
    let grace = bank.add_user("grace@example.com").await.unwrap();
    let org = bank.add_org("Analytical Engines").await.unwrap();
    bank.add_member(&org.id, &ada.id).await.unwrap();
    bank.add_member(&org.id, &grace.id).await.unwrap();
    bank.issue_token(&ada.id).await.unwrap();
    let save = |content: &str, tags: Option<Vec<&str>>, snippet: Option<&str>| {
        validate_save(SaveMemoryRequest {
            content: content.into(),
            tags: tags.map(|t| t.into_iter().map(String::from).collect()),
            contexts: snippet.map(|s| {
                vec![ContextInput {
                    snippet: s.into(),
                    conversation_id: Some("sess-1".into()),
                    message_id: Some("msg-7".into()),
                    origin: Some(Origin::SearchedConversation),
                }]
            }),
            confirmed_via: None,
            scope: None,
        })
        .unwrap()
    };
    let tea = bank
        .save(&ada.id, &org.id, save(&format!("Ada prefers tea over coffee {MARKER}"), Some(vec!["drinks"]), Some("I always drink tea")))
        .await
        .unwrap();
    bank.save(&ada.id, &org.id, save(&format!("我喜欢喝绿茶 {MARKER}"), None, None)).await.unwrap();
    bank.save(&grace.id, &org.id, save(&format!("Grace writes COBOL on Fridays {MARKER}"), Some(vec!["work", "cobol"]), None))
        .await
        .unwrap();
    let edit = validate_edit(EditMemoryRequest {
        content: Some(format!("Ada prefers green tea over coffee {MARKER}")),
        tags: None,
        confirmed_via: None,
    })
    .unwrap();
    bank.edit(&ada.id, &tea.id, edit).await.unwrap();
    let propose = |content: &str| {
        validate_propose(ProposeRequest { content: Some(content.into()), proposed_by: Some("Claude Code".into()), ..Default::default() })
            .unwrap()
    };
    bank.propose(&ada.id, &org.id, propose(&format!("Ada uses tabs for indentation {MARKER}"))).await.unwrap();
    let accepted = bank.propose(&ada.id, &org.id, propose(&format!("Ada runs Debian 12 {MARKER}"))).await.unwrap();
    bank.accept_proposal(&ada.id, &accepted.id, AcceptProposalRequest::default()).await.unwrap();
    memory_bank_store_sqlite::checkpoint(&store).await.unwrap();
    sqlx::query("VACUUM").execute(store.pool()).await.unwrap();
    store.close().await;
}
