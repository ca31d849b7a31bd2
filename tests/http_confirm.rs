//! What the person confirms over HTTP is what is stored, and nothing else: every path
//! that writes a sentence, tag or snippet (save, PATCH, propose, accept with the
//! person's edits or as an edit of another memory, restore, import) runs the one gate;
//! an edit or delete proposed before the memory changed is never applied unseen; and an
//! agent cannot queue more proposals than the cap.

mod support;

use memory_bank_store::TokenKind;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use support::Service;

const AWS_KEY: &str = "AKIAQWERTYUIOPASDFGH";

fn github_token() -> String {
    format!("ghp_{}", "a1B2".repeat(9))
}

/// Keys the detector missed before: an AWS secret assignment, a key run together with
/// Japanese, and keys with an invisible character, a soft hyphen, a line break inside,
/// or in fullwidth letters.
fn hidden_secrets() -> Vec<String> {
    let fullwidth: String = AWS_KEY.chars().map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap()).collect();
    vec![
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
        format!("鍵は{AWS_KEY}です"),
        "AKIAQWERTY\u{200b}UIOPASDFGH".into(),
        "AKIAQWERTY\u{ad}UIOPASDFGH".into(),
        "the key AKIAQWERTY\nUIOPASDFGH".into(),
        fullwidth,
    ]
}

async fn propose(s: &Service, token: &str, body: Value) -> Value {
    let (status, json) = s.call(Method::POST, "/v1/proposals", Some(token), Some(&s.acme), Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{json}");
    json["proposal"].clone()
}

async fn accept(s: &Service, id: &str, body: Value) -> (StatusCode, Value) {
    s.call(Method::POST, &format!("/v1/proposals/{id}/accept"), Some(&s.alice.token), Some(&s.acme), Some(body)).await
}

async fn contents(s: &Service) -> Vec<String> {
    let (_, page) = s.call(Method::GET, "/v1/memory?limit=100", Some(&s.alice.token), Some(&s.acme), None).await;
    page["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn keys_the_detector_missed_are_refused_on_save() {
    let s = Service::start().await;
    for text in hidden_secrets() {
        let (status, body) = s.call(Method::POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": text}))).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("looks_like_secret")), "{text:?}: {body}");
    }
    assert!(contents(&s).await.is_empty());
}

#[tokio::test]
async fn control_characters_are_a_clear_400_and_newlines_and_tabs_are_kept_in_prose() {
    let s = Service::start().await;
    let cases = [
        (json!({"content": "a\u{0}b"}), "content"),
        (json!({"content": "clear\u{1b}[2J screen"}), "content"),
        (json!({"content": "x", "tags": ["two\nlines"]}), "tags[0]"),
        (json!({"content": "x", "contexts": [{"snippet": "bell\u{7}"}]}), "contexts[0].snippet"),
    ];
    for (body, path) in cases {
        let (status, answer) = s.call(Method::POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["details"][0]["path"], path, "{answer}");
        assert!(answer["details"][0]["message"].as_str().unwrap().contains("control character"), "{answer}");
    }
    let kept = s.save(&s.alice, json!({"content": "line one\n\tline two", "contexts": [{"snippet": "a\nquote"}]})).await;
    assert_eq!(kept["content"], "line one\n\tline two");
    // PATCH and proposals pass the same gate.
    let id = kept["id"].as_str().unwrap();
    let (status, _) = s.call(Method::PATCH, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "nul\u{0}"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = s.call(Method::POST, "/v1/proposals", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "x", "proposedBy": "evil\u{1b}"}))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn every_confirm_path_refuses_a_secret_and_keeps_the_proposal_waiting() {
    let s = Service::start().await;
    let agent = s.bank.issue_token_of_kind(&s.alice.id, TokenKind::Agent).await.unwrap();
    let tabs = s.save(&s.alice, json!({"content": "I use tabs for indentation"})).await;
    let proposal = propose(&s, &agent, json!({"content": "I use spaces for indentation"})).await;
    let id = proposal["id"].as_str().unwrap();
    assert_eq!(proposal["similar"][0]["id"], tabs["id"], "the alike memory is offered");
    let edit = propose(&s, &agent, json!({"action": "edit", "memoryId": tabs["id"], "content": "I use two spaces"})).await;
    let private_key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
    let secret_edits = [
        json!({"content": format!("my key {AWS_KEY}")}),
        json!({"content": private_key}),
        json!({"tags": [github_token()]}),
        json!({"contexts": [{"snippet": format!("token {}", github_token())}]}),
        json!({"content": format!("key {AWS_KEY}"), "editInstead": tabs["id"]}),
        json!({"content": "AKIAQWERTY\u{200b}UIOPASDFGH"}),
    ];
    for edits in secret_edits {
        let (status, body) = accept(&s, id, edits.clone()).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("looks_like_secret")), "{edits}: {body}");
    }
    let (status, body) = accept(&s, edit["id"].as_str().unwrap(), json!({"content": format!("{AWS_KEY} in the edit")})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(contents(&s).await, ["I use tabs for indentation"], "nothing stored");
    let (_, waiting) = s.call(Method::GET, &format!("/v1/proposals/{id}"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(waiting["proposal"]["status"], "pending");
}

#[tokio::test]
async fn a_revision_holding_a_secret_is_never_made_current_again() {
    let s = Service::start().await;
    let memory = s.save(&s.alice, json!({"content": "The staging deploy uses the shared key"})).await;
    let id = memory["id"].as_str().unwrap();
    // A version written before the check existed (straight into the store).
    let current = s.bank.memory(&s.alice.id, id).await.unwrap().unwrap();
    let old = memory_bank_store::MemoryUpdate {
        content: format!("The staging deploy key is {AWS_KEY}"),
        tags: None,
        search_text: current.content.clone(),
        updated_at: memory_bank_contract::Timestamp::now(),
        confirmed_via: None,
        revision_id: memory_bank_contract::ids::new_id(memory_bank_contract::ids::REVISION_PREFIX),
    };
    assert!(s.bank.store().update_memory(memory_bank_store::Change::personal(&s.alice.id), id, &old).await.unwrap());
    let (status, _) = s.call(Method::PATCH, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "The staging deploy key is in the vault"}))).await;
    assert_eq!(status, StatusCode::OK);
    let (_, history) = s.call(Method::GET, &format!("/v1/memory/{id}/revisions"), Some(&s.alice.token), Some(&s.acme), None).await;
    let secret = history["revisions"].as_array().unwrap().iter().find(|r| r["content"].as_str().unwrap().contains(AWS_KEY)).unwrap();
    let path = format!("/v1/memory/{id}/revisions/{}/restore", secret["id"].as_str().unwrap());
    let (status, body) = s.call(Method::POST, &path, Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("looks_like_secret")), "{body}");
    assert_eq!(contents(&s).await, ["The staging deploy key is in the vault"]);
}

#[tokio::test]
async fn an_edit_or_delete_proposed_before_a_change_shows_both_and_applies_only_over_what_was_seen() {
    let s = Service::start().await;
    let agent = s.bank.issue_token_of_kind(&s.alice.id, TokenKind::Agent).await.unwrap();
    let memory = s.save(&s.alice, json!({"content": "Standup is at 9:30"})).await;
    let mid = memory["id"].as_str().unwrap();
    let edit = propose(&s, &agent, json!({"action": "edit", "memoryId": mid, "content": "Standup is at 10:00"})).await;
    let delete = propose(&s, &agent, json!({"action": "delete", "memoryId": mid})).await;
    assert_eq!(edit["proposedAgainst"], json!({"content": "Standup is at 9:30", "tags": null}));
    let (status, _) = s.call(Method::PATCH, &format!("/v1/memory/{mid}"), Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "Standup is at 9:45"}))).await;
    assert_eq!(status, StatusCode::OK);

    for proposal in [&edit, &delete] {
        let pid = proposal["id"].as_str().unwrap();
        let (_, now) = s.call(Method::GET, &format!("/v1/proposals/{pid}"), Some(&s.alice.token), Some(&s.acme), None).await;
        assert_eq!(now["proposal"]["proposedAgainst"]["content"], "Standup is at 9:30");
        assert_eq!(now["proposal"]["memoryNow"]["content"], "Standup is at 9:45", "both are shown: {now}");
        let (status, body) = accept(&s, pid, json!({})).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::CONFLICT, Some("memory_changed")), "{body}");
        let message = body["details"][0]["message"].as_str().unwrap();
        assert!(message.contains("9:30") && message.contains("9:45"), "{message}");
    }
    assert_eq!(contents(&s).await, ["Standup is at 9:45"], "neither applied silently");
    let seen = json!({"memoryNow": {"content": "Standup is at 9:45", "tags": null}});
    let (status, body) = accept(&s, edit["id"].as_str().unwrap(), seen.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(contents(&s).await, ["Standup is at 10:00"]);
    let (status, _) = accept(&s, delete["id"].as_str().unwrap(), seen).await;
    assert_eq!(status, StatusCode::CONFLICT, "seen against 9:45, it says 10:00 now");
}

#[tokio::test]
async fn edit_instead_takes_only_a_similar_memory() {
    let s = Service::start().await;
    let tabs = s.save(&s.alice, json!({"content": "I use tabs for indentation"})).await;
    let unrelated = s.save(&s.alice, json!({"content": "Deploys happen on Fridays"})).await;
    let proposal = propose(&s, &s.alice.token.clone(), json!({"content": "I use spaces for indentation"})).await;
    let pid = proposal["id"].as_str().unwrap();
    let (status, body) = accept(&s, pid, json!({"editInstead": unrelated["id"]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["details"][0]["path"], "editInstead");
    let (status, body) = accept(&s, pid, json!({"editInstead": tabs["id"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut now = contents(&s).await;
    now.sort();
    assert_eq!(now, ["Deploys happen on Fridays", "I use spaces for indentation"]);
}

#[tokio::test]
async fn an_agent_cannot_queue_more_than_the_cap_of_proposals() {
    let s = Service::start().await;
    let agent = s.bank.issue_token_of_kind(&s.alice.id, TokenKind::Agent).await.unwrap();
    let cap = memory_bank_contract::limits::MAX_PENDING_PROPOSALS;
    for i in 0..cap {
        propose(&s, &agent, json!({"content": format!("proposal number {i}")})).await;
    }
    let (status, body) = s.call(Method::POST, "/v1/proposals", Some(&agent), Some(&s.acme), Some(json!({"content": "one more"}))).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::CONFLICT, Some("too_many_proposals")), "{body}");
    assert_eq!(body["limit"], cap);
    assert!(body["details"][0]["message"].as_str().unwrap().contains("Inbox"), "{body}");
}
