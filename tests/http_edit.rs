//! Editing a memory over HTTP, on loopback over a real SQLite file: `PATCH
//! /v1/memory/{id}` keeps the id, `createdAt` and contexts and moves the search terms;
//! the replaced version is a revision the owner can list and restore; agent tokens
//! cannot edit; another user's id is the same 404 as an unknown one; bad bodies and
//! secrets are refused with nothing changed.

mod support;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use support::Service;

const GET: Method = Method::GET;
const POST: Method = Method::POST;
const PATCH: Method = Method::PATCH;
const DELETE: Method = Method::DELETE;

async fn patch(s: &Service, token: &str, id: &str, body: Value) -> (StatusCode, Value) {
    s.call(PATCH, &format!("/v1/memory/{id}"), Some(token), Some(&s.acme), Some(body)).await
}

#[tokio::test]
async fn an_edit_keeps_the_memory_and_its_history() {
    let s = Service::start().await;
    let body = json!({"content": "Ada drinks green tea", "tags": ["drinks"], "contexts": [{"snippet": "green, always", "messageId": "m1"}]});
    let saved = s.save(&s.alice, body).await;
    let id = saved["id"].as_str().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;

    let (status, edited) =
        patch(&s, &s.alice.token, id, json!({"content": "Ada drinks oolong", "tags": ["drinks", "tea"]})).await;
    assert_eq!(status, StatusCode::OK, "{edited}");
    let edited = &edited["memory"];
    assert_eq!(edited["id"], saved["id"]);
    assert_eq!(edited["createdAt"], saved["createdAt"]);
    assert_ne!(edited["updatedAt"], saved["updatedAt"]);
    assert_eq!(edited["content"], "Ada drinks oolong");
    assert_eq!(edited["tags"], json!(["drinks", "tea"]));
    assert_eq!(edited["contexts"], saved["contexts"]);
    assert!(s.search(&s.alice, "green tea").await.iter().all(|c| c != "Ada drinks green tea"));
    assert_eq!(s.search(&s.alice, "oolong").await, ["Ada drinks oolong"]);

    let (status, history) = s.call(GET, &format!("/v1/memory/{id}/revisions"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::OK);
    let revisions = history["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 1);
    assert_eq!(revisions[0]["content"], "Ada drinks green tea");
    assert_eq!(revisions[0]["tags"], json!(["drinks"]));
    assert_eq!(revisions[0]["createdAt"], saved["updatedAt"]);
    assert_eq!(revisions[0]["replacedAt"], edited["updatedAt"]);

    // Restore the first wording: an edit like any other.
    let revision = revisions[0]["id"].as_str().unwrap();
    let (status, restored) =
        s.call(POST, &format!("/v1/memory/{id}/revisions/{revision}/restore"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::OK, "{restored}");
    assert_eq!(restored["memory"]["content"], "Ada drinks green tea");
    assert_eq!(restored["memory"]["confirmedVia"], "app");
    let (_, history) = s.call(GET, &format!("/v1/memory/{id}/revisions"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(history["revisions"].as_array().unwrap().len(), 2);

    // Deleting the memory deletes its history.
    let (status, _) = s.call(DELETE, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, gone) = s.call(GET, &format!("/v1/memory/{id}/revisions"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!((status, gone["error"].as_str()), (StatusCode::NOT_FOUND, Some("memory_not_found")));
}

#[tokio::test]
async fn another_users_memory_is_a_404_that_leaks_nothing_and_agents_may_not_edit() {
    let s = Service::start().await;
    let saved = s.save(&s.alice, json!({"content": "Alice's private wording"})).await;
    let id = saved["id"].as_str().unwrap();
    let unknown = "mem_01jdq0000000000000000000";
    let (mine_status, mine) = patch(&s, &s.bob.token, id, json!({"content": "Bob was here"})).await;
    let (none_status, none) = patch(&s, &s.bob.token, unknown, json!({"content": "Bob was here"})).await;
    assert_eq!((mine_status, none_status), (StatusCode::NOT_FOUND, StatusCode::NOT_FOUND));
    assert_eq!(mine, none, "the same answer for another user's id and an unknown one");
    let (status, _) = s.call(GET, &format!("/v1/memory/{id}/revisions"), Some(&s.bob.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let agent = s.bank.issue_token_of_kind(&s.alice.id, memory_bank_store::TokenKind::Agent).await.unwrap();
    let (status, refused) = patch(&s, &agent, id, json!({"content": "An agent's wording"})).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::FORBIDDEN, Some("agent_token_cannot_confirm")));
    let (_, now) = s.call(GET, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(now["memory"]["content"], "Alice's private wording");
}

#[tokio::test]
async fn bad_edits_are_refused_and_change_nothing() {
    let s = Service::start().await;
    let saved = s.save(&s.alice, json!({"content": "Unchanged wording"})).await;
    let id = saved["id"].as_str().unwrap();
    let secret = format!("the deploy key is ghp_{}", "a1B2".repeat(9));
    let cases = [
        (json!({}), "invalid_request", "body"),
        (json!({"content": " "}), "invalid_request", "content"),
        (json!({"content": "x".repeat(8001)}), "invalid_request", "content"),
        (json!({"tags": vec!["t"; 33]}), "invalid_request", "tags"),
        (json!({"content": "fine", "contexts": []}), "invalid_request", ""),
        (json!({"content": secret}), "looks_like_secret", "content"),
        (json!(["not", "an", "object"]), "invalid_request", ""),
    ];
    for (body, code, path) in cases {
        let (status, answer) = patch(&s, &s.alice.token, id, body.clone()).await;
        let expected = if code == "looks_like_secret" { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::BAD_REQUEST };
        assert_eq!(status, expected, "{body}: {answer}");
        assert_eq!(answer["error"], code, "{body}: {answer}");
        if !path.is_empty() {
            assert_eq!(answer["details"][0]["path"], path, "{body}: {answer}");
        }
    }
    let (_, now) = s.call(GET, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(now["memory"], saved);
    let (_, history) = s.call(GET, &format!("/v1/memory/{id}/revisions"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(history["revisions"], json!([]));
}

#[tokio::test]
async fn import_refuses_agent_tokens_bad_options_and_non_utf8_and_export_streams_ndjson() {
    let s = Service::start().await;
    s.save(&s.alice, json!({"content": "exported over HTTP"})).await;
    let response = s
        .http
        .get(format!("{}/v1/export", s.url))
        .bearer_auth(&s.alice.token)
        .header("X-Org-Id", &s.acme)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let body = response.text().await.unwrap();
    let line: Value = serde_json::from_str(body.trim_end()).unwrap();
    assert_eq!((line["content"].as_str(), &line["revisions"]), (Some("exported over HTTP"), &json!([])));

    let import = |token: &str, query: &str, body: Vec<u8>| {
        s.http
            .post(format!("{}/v1/import{query}", s.url))
            .bearer_auth(token.to_owned())
            .header("X-Org-Id", &s.acme)
            .body(body)
            .send()
    };
    let agent = s.bank.issue_token_of_kind(&s.alice.id, memory_bank_store::TokenKind::Agent).await.unwrap();
    let refused = import(&agent, "", body.clone().into_bytes()).await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let bad_option = import(&s.alice.token, "?onConflict=merge", body.clone().into_bytes()).await.unwrap();
    assert_eq!(bad_option.status(), StatusCode::BAD_REQUEST);
    assert!(bad_option.text().await.unwrap().contains("skip or overwrite"));
    let binary = import(&s.alice.token, "", vec![0xff, 0xfe, b'\n']).await.unwrap();
    assert_eq!(binary.status(), StatusCode::BAD_REQUEST);
    // A body far over the API's 256 KiB is fine here: an import file is large.
    let mut big = body.clone();
    big.push_str(&" ".repeat(300 * 1024));
    let ok = import(&s.alice.token, "", big.into_bytes()).await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    let report: Value = ok.json().await.unwrap();
    assert_eq!((report["skipped"].as_u64(), report["failedCount"].as_u64()), (Some(1), Some(0)));
}

#[tokio::test]
async fn a_save_that_looks_like_a_secret_is_422_and_stores_nothing() {
    let s = Service::start().await;
    let secret = format!("ghp_{}", "a1B2".repeat(9));
    let cases = [
        json!({"content": format!("the key is {secret}")}),
        json!({"content": "fine", "tags": [secret.clone()]}),
        json!({"content": "fine", "contexts": [{"snippet": format!("see https://ada:hunter2@db.example/x")}]}),
        json!({"content": "fine", "contexts": [{"snippet": "fine", "messageId": secret.clone()}]}),
    ];
    for body in cases {
        let (status, answer) = s.call(POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(body.clone())).await;
        assert_eq!((status, answer["error"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("looks_like_secret")), "{body}: {answer}");
        assert!(answer["details"][0]["message"].as_str().unwrap().contains("looks like"), "{answer}");
    }
    let (_, listed) = s.call(GET, "/v1/memory", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(listed["memories"], json!([]), "nothing was stored");
    // Near misses pass: a git commit id and a UUID are not secrets.
    for content in ["fixed in 3f786850e387550fdab836ed7e6dc881de23001b", "session 6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"] {
        let (status, _) = s.call(POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": content}))).await;
        assert_eq!(status, StatusCode::CREATED, "{content}");
    }
}

#[tokio::test]
async fn an_agent_proposes_an_edit_and_the_persons_accept_is_the_edit() {
    let s = Service::start().await;
    let saved = s.save(&s.alice, json!({"content": "The office is on floor 3"})).await;
    let id = saved["id"].as_str().unwrap();
    let agent = s.bank.issue_token_of_kind(&s.alice.id, memory_bank_store::TokenKind::Agent).await.unwrap();
    let body = json!({"action": "edit", "memoryId": id, "content": "The office is on floor 4", "proposedBy": "codex-mcp-client"});
    let (status, proposed) = s.call(POST, "/v1/proposals", Some(&agent), Some(&s.acme), Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{proposed}");
    assert_eq!(proposed["proposal"]["action"], "edit");
    let proposal = proposed["proposal"]["id"].as_str().unwrap();
    let (status, _) = s.call(POST, &format!("/v1/proposals/{proposal}/accept"), Some(&agent), Some(&s.acme), Some(json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "the agent cannot accept its own edit");
    let (_, still) = s.call(GET, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(still["memory"]["content"], "The office is on floor 3");
    let (status, accepted) =
        s.call(POST, &format!("/v1/proposals/{proposal}/accept"), Some(&s.alice.token), Some(&s.acme), Some(json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    assert_eq!((accepted["memory"]["id"].as_str(), accepted["memory"]["content"].as_str()), (Some(id), Some("The office is on floor 4")));
    let (_, history) = s.call(GET, &format!("/v1/memory/{id}/revisions"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(history["revisions"][0]["content"], "The office is on floor 3");
    let secret = json!({"action": "edit", "memoryId": id, "content": format!("ghp_{}", "a1B2".repeat(9))});
    let (status, refused) = s.call(POST, "/v1/proposals", Some(&agent), Some(&s.acme), Some(secret)).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("looks_like_secret")));
    let (status, _) = s.call(POST, "/v1/proposals", Some(&s.bob.token), Some(&s.acme), Some(json!({"action": "edit", "memoryId": id, "content": "x"}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "another user's memory cannot be the target");
}

#[tokio::test]
async fn every_kind_of_secret_is_422_naming_its_kind_and_near_misses_are_saved() {
    let s = Service::start().await;
    // Format-valid fakes, one per kind the detector knows.
    let secrets = [
        ("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "Anthropic API key"),
        ("OPENAI=sk-proj-abc123def456ghi789jkl012", "OpenAI API key"),
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "Stripe key"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "GitHub token"),
        ("xoxb-1234567890-abcdefghij", "Slack token"),
        ("AKIAIOSFODNN7EXAMPLE", "AWS access key"),
        ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "Google API key"),
        ("mbk_0123456789abcdefghijklmnop", "Memory Bank token"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "JSON Web Token"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn", "private key"),
        ("postgres://admin:hunter22@db.internal:5432/app", "password in a URL"),
        ("Authorization: Bearer abcdefghijklmnop0123", "bearer token"),
        ("password=Tr0ub4dor&3", "password or key assignment"),
    ];
    for (text, kind) in secrets {
        let (status, answer) = s.call(POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": text}))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{text}: {answer}");
        assert_eq!((answer["error"].as_str(), answer["kind"].as_str()), (Some("looks_like_secret"), Some(kind)), "{text}");
    }
    let (_, listed) = s.call(GET, "/v1/memory", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(listed["memories"], json!([]));
    for text in [
        "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "session 6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "the logo is iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB.png",
    ] {
        let (status, answer) = s.call(POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": text}))).await;
        assert_eq!(status, StatusCode::CREATED, "{text}: {answer}");
    }
}

/// Duplicate hints over HTTP: saves, `POST /v1/memory/similar`, proposals and accepts
/// name the caller's alike memories (never another user's); accepting a save as an
/// edit of one rewrites it; nothing is ever merged on its own.
#[tokio::test]
async fn saves_proposals_and_accepts_name_alike_memories() {
    let s = Service::start().await;
    let tabs = s.save(&s.alice, json!({"content": "I use tabs for indentation"})).await;
    s.save(&s.bob, json!({"content": "I use spaces for indentation"})).await;
    let tabs_id = tabs["id"].as_str().unwrap();
    let hint = json!([{"id": tabs_id, "content": "I use tabs for indentation"}]);

    let (status, saved) =
        s.call(POST, "/v1/memory?similar=true", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "I use spaces for indentation"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(saved["similar"], hint, "the save names the alike memory, not bob's: {saved}");
    let spaces_id = saved["memory"]["id"].as_str().unwrap().to_owned();
    let (status, unlike) =
        s.call(POST, "/v1/memory?similar=true", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "Lunch is at noon"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(unlike.get("similar").is_none(), "absent when there are none: {unlike}");
    // Unasked, a save computes no hint, alike memories or not; a bad flag saves nothing.
    let (status, unasked) =
        s.call(POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "Lunch is at noon sharp"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(unasked.get("similar").is_none(), "no hint unless asked: {unasked}");
    let (status, bad) =
        s.call(POST, "/v1/memory?similar=yes", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "Lunch moved to one"}))).await;
    assert_eq!((status, bad["error"].as_str(), bad["details"][0]["path"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request"), Some("similar")), "{bad}");

    let ask = |content: &str, exclude: Option<&str>| json!({"content": content, "excludeId": exclude});
    let (status, found) = s.call(POST, "/v1/memory/similar", Some(&s.alice.token), Some(&s.acme), Some(ask("I use tabs for indentation", Some(tabs_id)))).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(found["similar"], json!([{"id": spaces_id, "content": "I use spaces for indentation"}]), "excludeId is left out");
    let (_, none) = s.call(POST, "/v1/memory/similar", Some(&s.carol.token), Some(&s.acme), Some(ask("I use tabs", None))).await;
    assert_eq!(none["error"], "organization_not_found", "the org check applies as everywhere: {none}");
    for bad in [json!({"content": "   "}), json!({"content": "x".repeat(8001)}), json!({}), json!([1])] {
        let (status, body) = s.call(POST, "/v1/memory/similar", Some(&s.alice.token), Some(&s.acme), Some(bad)).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");
    }

    // A proposal carries the hints; accepted as an edit of the tabs memory, it rewrites it.
    let (status, proposed) = s
        .call(POST, "/v1/proposals", Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "I use tabs for indentation, always"})))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{proposed}");
    assert_eq!(proposed["proposal"]["similar"][0]["id"], tabs_id, "{proposed}");
    assert_eq!(proposed["similar"], proposed["proposal"]["similar"]);
    let (_, listed) = s.call(GET, "/v1/proposals?status=pending", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(listed["proposals"][0]["similar"], proposed["proposal"]["similar"], "the Inbox's list carries them too");
    let id = proposed["proposal"]["id"].as_str().unwrap();
    let (status, accepted) = s
        .call(POST, &format!("/v1/proposals/{id}/accept"), Some(&s.alice.token), Some(&s.acme), Some(json!({"editInstead": tabs_id})))
        .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    assert_eq!((accepted["memory"]["id"].as_str(), accepted["memory"]["content"].as_str()), (Some(tabs_id), Some("I use tabs for indentation, always")));
    assert_eq!(accepted["proposal"]["memoryId"], tabs_id);
    assert_eq!(accepted["similar"][0]["id"], spaces_id.as_str(), "still alike to the spaces memory: {accepted}");
    let (_, page) = s.call(GET, "/v1/memory", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(page["memories"].as_array().unwrap().len(), 4, "tabs (reworded), spaces, two lunches: nothing added or merged");
}
