//! Recall on and off, as the agent sees it through the official Rust SDK's client: the
//! instructions and `search_memories`' description say to search by itself only when
//! recall is on; the memory prompts (`recall`, `remember-this`) are offered either way and
//! `recall` brings the matching memories, never a guess.

mod common;

use std::sync::Arc;

use common::connect;

use memory_bank_access::{LocalAccess, MemoryAccess};
use memory_bank_contract::wire::{AcceptProposalRequest, ProposeRequest};
use memory_bank_db_key::KeySource;
use memory_bank_mcp::MemoryBankMcp;
use rmcp::model::GetPromptRequestParams;
use serde_json::json;

async fn bank(dir: &std::path::Path, saved: &[&str]) -> Arc<LocalAccess> {
    let access = LocalAccess::open_searching(dir, &KeySource::None, true).await.unwrap();
    for content in saved {
        let proposal = access.propose(ProposeRequest { content: Some((*content).into()), ..Default::default() }).await.unwrap();
        access.accept(&proposal.id, AcceptProposalRequest::default()).await.unwrap();
    }
    Arc::new(access)
}


async fn seen_by_the_agent(server: MemoryBankMcp) -> (String, String) {
    let client = connect(server).await;
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap_or_default();
    let tools = client.list_all_tools().await.unwrap();
    let search = tools.iter().find(|t| t.name == "search_memories").unwrap();
    let description = search.description.as_deref().unwrap_or_default().to_owned();
    client.cancel().await.unwrap();
    (instructions, description)
}

#[tokio::test]
async fn the_agent_searches_by_itself_only_when_recall_is_on() {
    let dir = tempfile::tempdir().unwrap();
    let access = bank(dir.path(), &[]).await;
    let (instructions, description) = seen_by_the_agent(MemoryBankMcp::new().with_memory(access.clone())).await;
    assert!(instructions.contains("only when the person asks"), "{instructions}");
    assert!(!description.contains("by yourself"), "{description}");

    // On, set before or after the bank is added.
    for server in [
        MemoryBankMcp::new().with_memory(access.clone()).with_recall(true),
        MemoryBankMcp::new().with_recall(true).with_memory(access.clone()),
    ] {
        let (instructions, description) = seen_by_the_agent(server).await;
        assert!(instructions.contains("whenever the task touches the person's preferences, their projects or decisions"), "{instructions}");
        assert!(!instructions.contains("only when the person asks"), "{instructions}");
        assert!(description.contains("Call it by yourself, without being asked"), "{description}");
    }
    // Off again restores the default words.
    let (instructions, _) = seen_by_the_agent(MemoryBankMcp::new().with_memory(access).with_recall(true).with_recall(false)).await;
    assert!(instructions.contains("only when the person asks"), "{instructions}");
}

fn text_of(result: &rmcp::model::GetPromptResult) -> String {
    result
        .messages
        .iter()
        .map(|m| m.content.as_text().unwrap_or_else(|| panic!("not text: {:?}", m.content)).text.clone())
        .collect()
}

#[tokio::test]
async fn the_recall_and_remember_this_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let access = bank(dir.path(), &["Staging deploys need the VPN.", "The person drinks green tea."]).await;
    let client = connect(MemoryBankMcp::new().with_memory(access.clone())).await;
    let capabilities = client.peer_info().unwrap().capabilities.clone();
    assert!(capabilities.prompts.is_some(), "prompts are advertised");
    let mut names: Vec<String> = client.list_all_prompts().await.unwrap().into_iter().map(|p| p.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["recall", "remember-this"]);

    let get = |name: &str, args: serde_json::Value| {
        let request = GetPromptRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
        let peer = client.peer().clone();
        async move { peer.get_prompt(request).await }
    };
    let deploy = access.search("VPN", 1, None).await.unwrap().remove(0).memory;
    let found = text_of(&get("recall", json!({"topic": "deploying"})).await.unwrap());
    assert!(found.contains(&format!("- {} [{}]", deploy.content, deploy.id)), "{found}");
    assert!(!found.contains("tea"), "{found}");
    let none = text_of(&get("recall", json!({"topic": "kubernetes"})).await.unwrap());
    assert!(none.contains("holds no memory about “kubernetes”"), "{none}");
    assert!(get("recall", json!({"topic": "  "})).await.is_err(), "an empty topic is refused");

    let remember = text_of(&get("remember-this", json!({"what": "we use pnpm"})).await.unwrap());
    assert!(remember.contains("this: we use pnpm") && remember.contains("propose_memory"), "{remember}");
    assert!(remember.contains("Nothing is saved until I confirm"), "{remember}");
    let remember = text_of(&get("remember-this", json!({})).await.unwrap());
    assert!(remember.contains("the key fact, preference or decision of this conversation"), "{remember}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_meta_face_and_a_sessions_only_server_offer_no_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let access = bank(dir.path(), &[]).await;
    assert!(MemoryBankMcp::new().with_memory(access).meta_face().prompts().is_empty());
    assert!(MemoryBankMcp::new().prompts().is_empty());
}
