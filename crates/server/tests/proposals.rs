//! Proposals over real HTTP on loopback, against a real SQLite file: agents propose
//! and get 403 on every write route; the person accepts (with edits) or rejects;
//! another user's proposal is a 404 that leaks nothing.

use std::sync::Arc;

use memory_bank_store::{Bank, TokenKind};
use memory_bank_store_sqlite::SqliteStore;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

struct Service {
    _dir: tempfile::TempDir,
    url: String,
    http: reqwest::Client,
    org: String,
    person: String,
    agent: String,
    other_person: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Service {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
        let bank = Bank::new(Arc::new(store));
        let ada = bank.add_user("ada@example.com").await.unwrap().id;
        let bob = bank.add_user("bob@example.com").await.unwrap().id;
        let org = bank.add_org("Acme").await.unwrap().id;
        bank.add_member(&org, &ada).await.unwrap();
        bank.add_member(&org, &bob).await.unwrap();
        let person = bank.issue_token(&ada).await.unwrap();
        let agent = bank.issue_token_of_kind(&ada, TokenKind::Agent).await.unwrap();
        let other_person = bank.issue_token(&bob).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(memory_bank_server::serve(listener, bank, Default::default(), async move {
            let _ = stopped.await;
        }));
        Self { _dir: dir, url, http: reqwest::Client::new(), org, person, agent, other_person, _stop: stop }
    }

    async fn call(&self, token: &str, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.url)).bearer_auth(token).header("X-Org-Id", &self.org);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
    }
}

fn draft() -> Value {
    json!({
        "content": "Ada prefers tea",
        "tags": ["drinks"],
        "contexts": [{"snippet": "I always drink tea", "conversationId": "sess-1", "messageId": "msg-7"}],
        "proposedBy": "claude-code"
    })
}

#[tokio::test]
async fn an_agent_token_gets_403_on_every_route_that_writes() {
    let s = Service::start().await;
    let (status, saved) = s.call(&s.person, Method::POST, "/v1/memory", Some(json!({"content": "kept"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    let memory_id = saved["memory"]["id"].as_str().unwrap().to_owned();
    let (_, proposed) = s.call(&s.agent, Method::POST, "/v1/proposals", Some(draft())).await;
    let proposal_id = proposed["proposal"]["id"].as_str().unwrap().to_owned();
    for (method, path, body) in [
        (Method::POST, "/v1/memory".to_owned(), Some(json!({"content": "behind your back"}))),
        (Method::DELETE, format!("/v1/memory/{memory_id}"), None),
        (Method::POST, format!("/v1/proposals/{proposal_id}/accept"), Some(json!({}))),
        (Method::POST, format!("/v1/proposals/{proposal_id}/reject"), None),
    ] {
        let (status, body) = s.call(&s.agent, method.clone(), &path, body).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("agent_token_cannot_confirm")), "{method} {path}");
    }
    // Nothing changed: one memory, the proposal still pending.
    let (_, list) = s.call(&s.person, Method::GET, "/v1/memory", None).await;
    assert_eq!(list["memories"].as_array().unwrap().len(), 1);
    let (_, now) = s.call(&s.agent, Method::GET, &format!("/v1/proposals/{proposal_id}"), None).await;
    assert_eq!(now["proposal"]["status"], "pending");
    // What an agent may do: search, list, propose, read a proposal.
    let (status, _) = s.call(&s.agent, Method::GET, "/v1/memory/search?q=kept", None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = s.call(&s.agent, Method::GET, "/v1/memory", None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn the_person_accepts_an_edited_proposal_and_the_memory_records_how() {
    let s = Service::start().await;
    let (status, proposed) = s.call(&s.agent, Method::POST, "/v1/proposals", Some(draft())).await;
    assert_eq!(status, StatusCode::CREATED, "{proposed}");
    let proposal = &proposed["proposal"];
    assert_eq!((proposal["status"].as_str(), proposal["action"].as_str()), (Some("pending"), Some("save")));
    assert_eq!(proposal["proposedBy"], "claude-code");
    let id = proposal["id"].as_str().unwrap();

    let (_, inbox) = s.call(&s.person, Method::GET, "/v1/proposals?status=pending", None).await;
    assert_eq!(inbox["proposals"][0]["id"], id);
    let (status, accepted) =
        s.call(&s.person, Method::POST, &format!("/v1/proposals/{id}/accept"), Some(json!({"content": "Ada prefers green tea"}))).await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    let memory = &accepted["memory"];
    assert_eq!(memory["content"], "Ada prefers green tea");
    assert_eq!((memory["confirmedVia"].as_str(), memory["proposedBy"].as_str()), (Some("app"), Some("claude-code")));
    assert_eq!(memory["contexts"][0]["citation"], json!({"conversationId": "sess-1", "messageId": "msg-7"}));
    assert_eq!(accepted["proposal"]["status"], "accepted");
    assert_eq!(accepted["proposal"]["memoryId"], memory["id"]);

    let (_, listed) = s.call(&s.person, Method::GET, "/v1/memory", None).await;
    assert_eq!(listed["memories"][0], *memory, "what was accepted is what a list returns");
    let (status, again) = s.call(&s.person, Method::POST, &format!("/v1/proposals/{id}/reject"), None).await;
    assert_eq!((status, again["error"].as_str()), (StatusCode::CONFLICT, Some("proposal_not_pending")));
    let (_, inbox) = s.call(&s.person, Method::GET, "/v1/proposals?status=pending", None).await;
    assert!(inbox["proposals"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn rejecting_saves_nothing_and_a_delete_proposal_deletes_only_when_accepted() {
    let s = Service::start().await;
    let (_, proposed) = s.call(&s.agent, Method::POST, "/v1/proposals", Some(draft())).await;
    let id = proposed["proposal"]["id"].as_str().unwrap();
    let (status, rejected) = s.call(&s.person, Method::POST, &format!("/v1/proposals/{id}/reject"), None).await;
    assert_eq!((status, rejected["proposal"]["status"].as_str()), (StatusCode::OK, Some("rejected")));
    let (_, listed) = s.call(&s.person, Method::GET, "/v1/memory", None).await;
    assert!(listed["memories"].as_array().unwrap().is_empty());

    let (_, saved) = s.call(&s.person, Method::POST, "/v1/memory", Some(json!({"content": "old address"}))).await;
    let memory_id = saved["memory"]["id"].as_str().unwrap();
    let (status, proposed) =
        s.call(&s.agent, Method::POST, "/v1/proposals", Some(json!({"action": "delete", "memoryId": memory_id}))).await;
    assert_eq!(status, StatusCode::CREATED, "{proposed}");
    assert_eq!(proposed["proposal"]["content"], "old address", "the Inbox shows what would go");
    let id = proposed["proposal"]["id"].as_str().unwrap();
    let (_, listed) = s.call(&s.person, Method::GET, "/v1/memory", None).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "not deleted before the person accepts");
    let (status, _) = s.call(&s.person, Method::POST, &format!("/v1/proposals/{id}/accept"), None).await;
    assert_eq!(status, StatusCode::OK);
    let (_, listed) = s.call(&s.person, Method::GET, "/v1/memory", None).await;
    assert!(listed["memories"].as_array().unwrap().is_empty());
    let (status, body) =
        s.call(&s.agent, Method::POST, "/v1/proposals", Some(json!({"action": "delete", "memoryId": "mem_nope"}))).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("memory_not_found")));
}

#[tokio::test]
async fn another_users_proposal_is_a_404_that_leaks_nothing() {
    let s = Service::start().await;
    let (_, proposed) = s.call(&s.agent, Method::POST, "/v1/proposals", Some(draft())).await;
    let id = proposed["proposal"]["id"].as_str().unwrap();
    let missing = "prop_01jdq0000000000000000000";
    for path in [format!("/v1/proposals/{id}"), format!("/v1/proposals/{missing}"), "/v1/proposals/%FF".to_owned()] {
        let (status, body) = s.call(&s.other_person, Method::GET, &path, None).await;
        assert_eq!((status, body.clone()), (StatusCode::NOT_FOUND, json!({"error": "proposal_not_found"})), "{path}");
    }
    for verb in ["accept", "reject"] {
        let (status, body) = s.call(&s.other_person, Method::POST, &format!("/v1/proposals/{id}/{verb}"), None).await;
        assert_eq!((status, body), (StatusCode::NOT_FOUND, json!({"error": "proposal_not_found"})));
    }
    let (_, theirs) = s.call(&s.other_person, Method::GET, "/v1/proposals", None).await;
    assert!(theirs["proposals"].as_array().unwrap().is_empty());
    let (_, mine) = s.call(&s.person, Method::GET, &format!("/v1/proposals/{id}"), None).await;
    assert_eq!(mine["proposal"]["status"], "pending");
}

#[tokio::test]
async fn proposals_are_validated_like_memories_and_secrets_are_refused() {
    let s = Service::start().await;
    let too_long = "x".repeat(8001);
    for (body, path) in [
        (json!({"content": too_long}), "content"),
        (json!({"content": "ok", "tags": vec!["t"; 33]}), "tags"),
        (json!({"tags": ["no content"]}), "content"),
        (json!({"action": "delete"}), "memoryId"),
        (json!({"action": "explode", "content": "x"}), "action"),
    ] {
        let (status, answer) = s.call(&s.agent, Method::POST, "/v1/proposals", Some(body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(answer["details"][0]["path"], path, "{answer}");
    }
    let secret = json!({"content": "deploy key", "contexts": [{"snippet": "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}]});
    let (status, answer) = s.call(&s.agent, Method::POST, "/v1/proposals", Some(secret)).await;
    assert_eq!((status, answer["error"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("looks_like_secret")));
    assert_eq!(answer["details"][0]["path"], "contexts[0].snippet");
    assert!(answer["details"][0]["message"].as_str().unwrap().contains("GitHub token"));
    let (_, all) = s.call(&s.person, Method::GET, "/v1/proposals", None).await;
    assert!(all["proposals"].as_array().unwrap().is_empty(), "nothing was stored");
    let (status, _) = s.call(&s.person, Method::GET, "/v1/proposals?status=maybe", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
