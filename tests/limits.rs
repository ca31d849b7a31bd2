//! Quotas and rate limits of `memory-bank serve`, through the real binary on loopback:
//! the per-user memory cap refuses a save and an accepted proposal with 409
//! `quota_exceeded` and saves nothing, and an import reports each line past it; the per-token rate limit answers 429 with
//! `Retry-After` and a JSON body, other tokens unaffected; the CLI waits out a 429
//! instead of failing.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::path::Path;
use std::process::{Command, Output};

use reqwest::StatusCode;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn db_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("limits.db").display())
}

fn admin(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN).args(["--database-url", &db_url(dir), "admin"]).args(args).output().unwrap();
    assert!(out.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

struct Account {
    org: String,
    token: String,
    agent: String,
}

fn account(dir: &Path, email: &str) -> Account {
    let user = admin(dir, &["user", "add", email]);
    let org = admin(dir, &["org", "add", "Acme"]);
    admin(dir, &["member", "add", &org, &user]);
    Account { token: admin(dir, &["token", "issue", &user]), agent: admin(dir, &["token", "issue", &user, "--agent"]), org }
}

async fn call(url: &str, method: reqwest::Method, path: &str, who: (&str, &str), body: Option<Value>) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().request(method, format!("{url}{path}")).bearer_auth(who.0).header("X-Org-Id", who.1);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_memory_cap_refuses_saves_and_accepts_and_an_import_reports_each_line_past_it() {
    let dir = tempfile::tempdir().unwrap();
    let ada = account(dir.path(), "ada@example.com");
    let mut serving = serve_process::start(BIN, &db_url(dir.path()), &[("MEMORY_BANK_MAX_MEMORIES_PER_USER", "2")]).unwrap();
    let url = serving.url.clone();
    let me = (ada.token.as_str(), ada.org.as_str());
    for i in 0..2 {
        let (status, _) = call(&url, reqwest::Method::POST, "/v1/memory", me, Some(json!({"content": format!("memory {i}")}))).await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (status, refused) = call(&url, reqwest::Method::POST, "/v1/memory", me, Some(json!({"content": "one too many"}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused, json!({"error": "quota_exceeded", "limit": 2}));

    // A proposal may wait, but accepting it would pass the cap.
    let agent = (ada.agent.as_str(), ada.org.as_str());
    let (status, proposed) = call(&url, reqwest::Method::POST, "/v1/proposals", agent, Some(json!({"content": "proposed"}))).await;
    assert_eq!(status, StatusCode::CREATED);
    let id = proposed["proposal"]["id"].as_str().unwrap();
    let (status, refused) = call(&url, reqwest::Method::POST, &format!("/v1/proposals/{id}/accept"), me, Some(json!({}))).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::CONFLICT, Some("quota_exceeded")));
    let (_, proposal) = call(&url, reqwest::Method::GET, &format!("/v1/proposals/{id}"), me, None).await;
    assert_eq!(proposal["proposal"]["status"], "pending", "still waiting: nothing decided");

    // An import takes the lines that fit and reports each one past the cap by number.
    let import = |body: String| {
        reqwest::Client::new().post(format!("{url}/v1/import")).bearer_auth(&ada.token).header("X-Org-Id", &ada.org).body(body).send()
    };
    let line = |n: u8| format!(r#"{{"id":"mem_01kcccccccccccccccccccccc{n}","content":"imported {n}","createdAt":"2026-11-01T10:00:00.000Z"}}"#);
    let response = import(line(1)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let report: Value = response.json().await.unwrap();
    assert_eq!((report["imported"].as_u64(), report["failedCount"].as_u64()), (Some(0), Some(1)), "{report}");
    assert_eq!((report["failed"][0]["line"].as_u64(), report["failed"][0]["error"].as_str()), (Some(1), Some("quota_exceeded")));
    assert!(report["failed"][0]["message"].as_str().unwrap().contains("at most 2 memories"), "{report}");
    let (_, listed) = call(&url, reqwest::Method::GET, "/v1/memory", me, None).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 2, "nothing was saved");

    // Deleting one makes room again: for one line of two.
    let first = listed["memories"][0]["id"].as_str().unwrap();
    let (status, _) = call(&url, reqwest::Method::DELETE, &format!("/v1/memory/{first}"), me, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let report: Value = import(format!("{}\n{}\n", line(1), line(2))).await.unwrap().json().await.unwrap();
    assert_eq!((report["imported"].as_u64(), report["failedCount"].as_u64()), (Some(1), Some(1)), "{report}");
    assert_eq!((report["failed"][0]["line"].as_u64(), report["failed"][0]["error"].as_str()), (Some(2), Some("quota_exceeded")));
    let (_, listed) = call(&url, reqwest::Method::GET, "/v1/memory", me, None).await;
    assert!(listed["memories"].as_array().unwrap().iter().any(|m| m["content"] == "imported 1"), "{listed}");
    let second = listed["memories"][1]["id"].as_str().unwrap();
    let (status, _) = call(&url, reqwest::Method::DELETE, &format!("/v1/memory/{second}"), me, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = call(&url, reqwest::Method::POST, &format!("/v1/proposals/{id}/accept"), me, Some(json!({}))).await;
    assert_eq!(status, StatusCode::OK);
    serving.child.kill().unwrap();
}

#[tokio::test]
async fn a_token_over_its_rate_gets_429_with_retry_after_and_others_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let ada = account(dir.path(), "ada@example.com");
    let bob = account(dir.path(), "bob@example.com");
    // NO_COLOR: the log is read below as plain text.
    let limited = [("MEMORY_BANK_RATE_LIMIT", "1"), ("MEMORY_BANK_RATE_BURST", "3"), ("NO_COLOR", "1")];
    let mut serving = serve_process::start(BIN, &db_url(dir.path()), &limited).unwrap();
    let url = serving.url.clone();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let response = reqwest::Client::new().get(format!("{url}/v1/memory")).bearer_auth(&ada.token).header("X-Org-Id", &ada.org).send().await.unwrap();
        let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        statuses.push((status, retry_after, body));
    }
    assert!(statuses[..3].iter().all(|(s, _, _)| *s == StatusCode::OK), "the burst passes: {statuses:?}");
    let (status, retry_after, body) = &statuses[3];
    assert_eq!(*status, StatusCode::TOO_MANY_REQUESTS);
    assert!(retry_after.is_some_and(|s| s >= 1), "{retry_after:?}");
    assert_eq!(body, &json!({"error": "rate_limited"}));
    let (status, _) = call(&url, reqwest::Method::GET, "/v1/memory", (&bob.token, &bob.org), None).await;
    assert_eq!(status, StatusCode::OK, "another token has its own budget");

    // The CLI waits out the 429s: six saves in a row all succeed.
    let cli = |args: &[&str]| -> Output {
        Command::new(BIN)
            .arg("memory")
            .args(args)
            .env("MEMORY_BANK_URL", &url)
            .env("MEMORY_BANK_TOKEN", &bob.token)
            .env("MEMORY_BANK_ORG", &bob.org)
            .output()
            .unwrap()
    };
    for i in 0..6 {
        let out = cli(&["save", &format!("patient save {i}")]);
        assert!(out.status.success(), "save {i}: {}", String::from_utf8_lossy(&out.stderr));
    }
    serving.child.kill().unwrap();
    let log: Vec<String> = serving.stderr.try_iter().collect();
    let limited = log.iter().filter(|l| l.contains("method=POST") && l.contains("status=429")).count();
    assert!(limited >= 2, "the service did answer 429 to the CLI, which waited: {limited} in\n{}", log.join("\n"));
}
