//! `serve`'s `/mcp` with a legacy (2025-11-25) client, over raw HTTP so that every
//! request can be sent as someone else: a session, its GET stream, its DELETE, and the
//! answer to a confirmation form it was sent belong to the token and org that opened it.
//! Anyone else naming the session id gets the 404 of a session that does not exist, and
//! cannot save a memory in the person's bank by answering their form. A form nobody
//! answers is given up after `--confirm-timeout`, and the proposal waits in the Inbox.
//! Session ids never reach the log.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::process::Command;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

/// `memory-bank admin ARGS` against the service database, its one line of output.
fn admin(db: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_memory-bank")).args(["--database-url", db, "admin"]).args(args).output().unwrap();
    assert!(out.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

struct Team {
    _dir: tempfile::TempDir,
    acme: String,
    serving: serve_process::Serving,
    /// Ada's full token, her agent token, and Bob's (another user in another org).
    ada: String,
    ada_agent: String,
    bob: String,
}

impl Team {
    fn start(serve_args: &[&str], env: &[(&str, &str)]) -> Team {
        let dir = tempfile::tempdir().unwrap();
        let db = format!("sqlite://{}", dir.path().join("team.db").display());
        let ada = admin(&db, &["user", "add", "ada@example.com"]);
        let bob = admin(&db, &["user", "add", "bob@example.com"]);
        let acme = admin(&db, &["org", "add", "Acme"]);
        let beta = admin(&db, &["org", "add", "Beta"]);
        admin(&db, &["member", "add", &acme, &ada]);
        admin(&db, &["member", "add", &beta, &bob]);
        let tokens = (admin(&db, &["token", "issue", &ada]), admin(&db, &["token", "issue", &ada, "--agent"]), admin(&db, &["token", "issue", &bob]));
        let mut args = vec!["--listen", "127.0.0.1:0"];
        args.extend_from_slice(serve_args);
        let serving = serve_process::start_with_args(env!("CARGO_BIN_EXE_memory-bank"), &db, &args, env).unwrap();
        Team { _dir: dir, acme, serving, ada: tokens.0, ada_agent: tokens.1, bob: tokens.2 }
    }

    fn post(&self, token: &str, session: Option<&str>, body: Value) -> reqwest::RequestBuilder {
        let mut request = reqwest::Client::new()
            .post(format!("{}/mcp", self.serving.url))
            .bearer_auth(token)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
        }
        request
    }

    fn other(&self, method: reqwest::Method, token: &str, session: &str) -> reqwest::RequestBuilder {
        reqwest::Client::new()
            .request(method, format!("{}/mcp", self.serving.url))
            .bearer_auth(token)
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25")
    }

    /// Opens a session as `token` with a client that takes forms; its id.
    async fn open(&self, token: &str) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "raw-http-client", "version": "1.0.0"}
        }});
        let response = self.post(token, None, init).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let session = response.headers().get("mcp-session-id").expect("a session id").to_str().unwrap().to_owned();
        let _ = response.bytes().await;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = self.post(token, Some(&session), initialized).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        session
    }

    /// `GET path` on the API as Ada, in Acme.
    async fn ada_reads(&self, path: &str) -> Value {
        let response = reqwest::Client::new()
            .get(format!("{}{path}", self.serving.url))
            .bearer_auth(&self.ada)
            .header("X-Org-Id", &self.acme)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    async fn memories_of_ada(&self) -> Vec<String> {
        let page = self.ada_reads("/v1/memory").await;
        page["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect()
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        let _ = self.serving.child.kill();
        let _ = self.serving.child.wait();
    }
}

/// The JSON-RPC messages of an SSE response as they arrive.
struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String =
                    event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect::<Vec<_>>().join("\n");
                if let Ok(message) = serde_json::from_str::<Value>(&data) {
                    return Some(message);
                }
                continue;
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.response.chunk()).await.ok()?.ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// Calls propose_memory in `session` and reads its stream up to the form it is sent.
async fn propose_until_the_form(team: &Team, session: &str, content: &str) -> (Events, Value) {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "propose_memory", "arguments": {"content": content}}});
    let response = team.post(&team.ada, Some(session), call).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut events = Events { response, buffer: String::new() };
    loop {
        let message = events.next().await.expect("the form before the stream ends");
        if message["method"] == "elicitation/create" {
            return (events, message["id"].clone());
        }
    }
}

fn answer(id: &Value, content: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": {"content": content, "tags": ""}}})
}

#[tokio::test]
async fn a_session_and_its_forms_answer_only_the_token_and_org_that_opened_it() {
    let team = Team::start(&[], &[]);
    let session = team.open(&team.ada).await;
    let (mut events, form) = propose_until_the_form(&team, &session, "Ada's standup is at 9:30").await;

    // Bob (another user, another org) and Ada's own agent token, with the session id:
    // answering the form, calling a tool in it, its GET stream, its DELETE.
    for stranger in [&team.bob, &team.ada_agent] {
        let forged = team.post(stranger, Some(&session), answer(&form, "Wire the bonus to account 12345")).send().await.unwrap();
        assert_eq!(forged.status(), StatusCode::NOT_FOUND, "answering another person's form");
        let body: Value = forged.json().await.unwrap();
        assert_eq!(body["error"], "mcp_session_not_found", "{body}");
        let list = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
        assert_eq!(team.post(stranger, Some(&session), list).send().await.unwrap().status(), StatusCode::NOT_FOUND);
        assert_eq!(team.other(reqwest::Method::GET, stranger, &session).send().await.unwrap().status(), StatusCode::NOT_FOUND);
        assert_eq!(team.other(reqwest::Method::DELETE, stranger, &session).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    }
    // Indistinguishable from a session that does not exist.
    let unknown = team.post(&team.bob, Some("00000000-0000-0000-0000-000000000000"), answer(&form, "x")).send().await.unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(unknown.json::<Value>().await.unwrap()["error"], "mcp_session_not_found");
    assert!(team.memories_of_ada().await.is_empty(), "nothing saved by a stranger's answer");

    // Ada herself answers: saved, exactly her words, confirmed in the client.
    let mine = team.post(&team.ada, Some(&session), answer(&form, "Ada's standup is at 9:45")).send().await.unwrap();
    assert_eq!(mine.status(), StatusCode::ACCEPTED);
    let result = loop {
        let message = events.next().await.expect("the tool's result");
        if message["id"] == 2 {
            break message;
        }
    };
    let text = result["result"]["content"][0]["text"].as_str().unwrap();
    let outcome: Value = serde_json::from_str(text).unwrap();
    assert_eq!(outcome["status"], "saved", "{outcome}");
    assert_eq!(outcome["memory"]["confirmedVia"], "elicitation");
    assert_eq!(team.memories_of_ada().await, ["Ada's standup is at 9:45"]);
    // Her DELETE ends it; then the id is gone for her too.
    assert!(team.other(reqwest::Method::DELETE, &team.ada, &session).send().await.unwrap().status().is_success());
    let after = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    assert_eq!(team.post(&team.ada, Some(&session), after).send().await.unwrap().status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_form_nobody_answers_is_given_up_and_the_proposal_waits_in_the_inbox() {
    let team = Team::start(&["--confirm-timeout", "2"], &[]);
    let session = team.open(&team.ada).await;
    let started = std::time::Instant::now();
    let (mut events, _form) = propose_until_the_form(&team, &session, "Nobody answers this").await;
    let result = loop {
        let message = events.next().await.expect("the tool's result after the timeout");
        if message["id"] == 2 {
            break message;
        }
    };
    assert!(started.elapsed() >= Duration::from_secs(2), "answered before the timeout");
    let outcome: Value = serde_json::from_str(result["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(outcome["status"], "pending", "{outcome}");
    let id = outcome["proposalId"].as_str().unwrap();
    let inbox = team.ada_reads("/v1/proposals?status=pending").await;
    let waiting: Vec<&str> = inbox["proposals"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(waiting, [id], "the proposal waits in the Inbox");
    assert!(team.memories_of_ada().await.is_empty());
}

#[tokio::test]
async fn session_ids_are_never_logged_at_any_level() {
    let mut team = Team::start(&[], &[("MEMORY_BANK_LOG", "trace")]);
    let session = team.open(&team.ada).await;
    let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"});
    let _ = team.post(&team.ada, Some(&session), list).send().await.unwrap().bytes().await;
    let _ = team.other(reqwest::Method::DELETE, &team.ada, &session).send().await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let _ = team.serving.child.kill();
    let _ = team.serving.child.wait();
    let logged: Vec<String> = team.serving.stderr.try_iter().collect();
    assert!(logged.len() > 5, "trace logging is on: {logged:?}");
    let leaks: Vec<&String> = logged.iter().filter(|line| line.contains(&session)).collect();
    assert!(leaks.is_empty(), "the session id {session} is in the log: {leaks:?}");
}
