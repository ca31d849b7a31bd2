//! The edges of `memory-bank serve` over real HTTP on loopback: which `Host` and `Origin`
//! it answers on `/v1` and `/mcp` (DNS rebinding, `--allowed-host`), what `/mcp` answers
//! to input that is not one JSON-RPC message, and a rate limit that counts tokens by id
//! and everything else by client address in a bounded table.

mod support;
#[path = "support/serve_process.rs"]
mod serve_process;

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::process::Command;

use memory_bank_server::{RateLimit, RateLimiter, ServeOptions, Tracked};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

/// A bank with one person in one org, and the real `serve` on it.
struct Served {
    _dir: tempfile::TempDir,
    serving: serve_process::Serving,
    token: String,
    org: String,
    /// `127.0.0.1:PORT`, whatever address it listens on.
    address: String,
}

fn admin(db: &str, args: &[&str]) -> String {
    let out = Command::new(BIN).args(["--database-url", db, "admin"]).args(args).output().unwrap();
    assert!(out.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn serve(args: &[&str]) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("edges.db").display());
    let user = admin(&db, &["user", "add", "ada@example.com"]);
    let org = admin(&db, &["org", "add", "Acme"]);
    admin(&db, &["member", "add", &org, &user]);
    let token = admin(&db, &["token", "issue", &user]);
    let serving = serve_process::start_with_args(BIN, &db, args, &[("NO_COLOR", "1")]).unwrap();
    let port = serving.url.rsplit(':').next().unwrap().to_owned();
    Served { _dir: dir, serving, token, org, address: format!("127.0.0.1:{port}") }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.serving.child.kill();
        let _ = self.serving.child.wait();
    }
}

/// What came back: status, headers, the body as JSON (or as a string when it is not).
struct Answer {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Served {
    /// `method path` on 127.0.0.1 with these extra headers (a `Host` among them replaces
    /// the real one) and an optional raw body.
    async fn send(&self, method: Method, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Answer {
        let mut request = reqwest::Client::new()
            .request(method, format!("http://{}{path}", self.address))
            .bearer_auth(&self.token)
            .header("X-Org-Id", &self.org);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.body(body.to_owned());
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Answer { status, headers, body }
    }

    /// An MCP POST as a streamable-HTTP client sends it, with `extra` headers (in place
    /// of those it would send).
    async fn mcp(&self, path: &str, body: &str, extra: &[(&str, &str)]) -> Answer {
        let mut headers = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
        headers.retain(|(name, _)| !extra.iter().any(|(other, _)| other.eq_ignore_ascii_case(name)));
        headers.extend_from_slice(extra);
        self.send(Method::POST, path, &headers, Some(body)).await
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"edges","version":"1"}}}"#;

#[track_caller]
fn assert_refused(answer: &Answer, code: &str, says: &str) {
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    assert_eq!(answer.headers.get("content-type").unwrap(), "application/json");
    assert_eq!(answer.body["error"], code, "{}", answer.body);
    let message = answer.body["details"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "the message says what to do: {}", answer.body);
}

#[tokio::test]
async fn on_loopback_only_its_own_names_are_answered_on_v1_and_mcp() {
    let s = serve(&["--listen", "127.0.0.1:0"]);
    let port = s.address.rsplit(':').next().unwrap().to_owned();
    assert_eq!(s.send(Method::GET, "/v1/me", &[], None).await.status, StatusCode::OK);
    let local = format!("localhost:{port}");
    assert_eq!(s.send(Method::GET, "/v1/me", &[("Host", &local)], None).await.status, StatusCode::OK);
    let answer = s.mcp("/mcp", INITIALIZE, &[]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(answer.headers.contains_key("mcp-session-id"));

    // A page whose name was rebound to 127.0.0.1 sends its own name.
    for path in ["/v1/me", "/healthz"] {
        let answer = s.send(Method::GET, path, &[("Host", "evil.example")], None).await;
        assert_refused(&answer, "host_not_allowed", "--allowed-host");
    }
    let evil_with_port = format!("evil.example:{port}");
    assert_refused(&s.send(Method::GET, "/v1/me", &[("Host", &evil_with_port)], None).await, "host_not_allowed", "--allowed-host");
    for path in ["/mcp", "/mcp/agent"] {
        assert_refused(&s.mcp(path, INITIALIZE, &[("Host", "evil.example")]).await, "host_not_allowed", "--allowed-host");
    }
    // A page of another site calling 127.0.0.1 directly sends its Origin.
    assert_refused(
        &s.send(Method::GET, "/v1/me", &[("Origin", "http://evil.example")], None).await,
        "origin_not_allowed",
        "--allowed-host",
    );
    for path in ["/mcp", "/mcp/agent"] {
        assert_refused(&s.mcp(path, INITIALIZE, &[("Origin", "http://evil.example")]).await, "origin_not_allowed", "--allowed-host");
    }
    // Another local port is another site too; the service's own origin is not.
    assert_refused(&s.mcp("/mcp", INITIALIZE, &[("Origin", "http://localhost:3000")]).await, "origin_not_allowed", "");
    let own = format!("http://{}", s.address);
    assert_eq!(s.mcp("/mcp", INITIALIZE, &[("Origin", &own)]).await.status, StatusCode::OK);
}

#[tokio::test]
async fn allowed_hosts_are_answered_behind_a_proxy_and_their_origins_too() {
    let s = serve(&["--listen", "127.0.0.1:0", "--allowed-host", "memory.example.com", "--allowed-host", "app.example.com:8443"]);
    // The proxy forwards the name clients used (with or without a port).
    assert_eq!(s.send(Method::GET, "/v1/me", &[("Host", "memory.example.com")], None).await.status, StatusCode::OK);
    assert_eq!(s.send(Method::GET, "/v1/me", &[("Host", "Memory.Example.com:443")], None).await.status, StatusCode::OK);
    let answer = s.mcp("/mcp", INITIALIZE, &[("Host", "memory.example.com"), ("Origin", "https://memory.example.com")]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // A name given with a port is that port only; its origin may call from a loopback Host.
    assert_refused(&s.send(Method::GET, "/v1/me", &[("Host", "app.example.com")], None).await, "host_not_allowed", "");
    assert_eq!(s.send(Method::GET, "/v1/me", &[("Origin", "https://app.example.com:8443")], None).await.status, StatusCode::OK);
    assert_refused(&s.send(Method::GET, "/v1/me", &[("Origin", "https://app.example.com")], None).await, "origin_not_allowed", "");
    assert_refused(&s.send(Method::GET, "/v1/me", &[("Host", "memory.example.com.evil.example")], None).await, "host_not_allowed", "");
}

#[tokio::test]
async fn on_a_network_address_ip_addresses_are_answered_and_names_only_when_given() {
    let bare = serve(&["--listen", "0.0.0.0:0"]);
    assert_eq!(bare.send(Method::GET, "/v1/me", &[], None).await.status, StatusCode::OK);
    let port = bare.address.rsplit(':').next().unwrap().to_owned();
    let lan = format!("10.1.2.3:{port}");
    assert_eq!(bare.send(Method::GET, "/v1/me", &[("Host", &lan)], None).await.status, StatusCode::OK);
    let named = format!("memory.example.com:{port}");
    assert_refused(&bare.send(Method::GET, "/v1/me", &[("Host", &named)], None).await, "host_not_allowed", "--allowed-host");
    assert_refused(&bare.mcp("/mcp", INITIALIZE, &[("Host", &named)]).await, "host_not_allowed", "--allowed-host");
    assert_refused(&bare.mcp("/mcp", INITIALIZE, &[("Host", &lan), ("Origin", "http://evil.example")]).await, "origin_not_allowed", "");

    let given = serve(&["--listen", "0.0.0.0:0", "--allowed-host", "memory.example.com"]);
    assert_eq!(given.send(Method::GET, "/v1/me", &[("Host", "memory.example.com")], None).await.status, StatusCode::OK);
    let answer = given.mcp("/mcp/agent", INITIALIZE, &[("Host", "memory.example.com")]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_refused(&given.send(Method::GET, "/v1/me", &[("Host", "evil.example")], None).await, "host_not_allowed", "");
}

#[test]
fn an_allowed_host_that_is_a_url_is_refused_at_start_with_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("edges.db").display());
    let out = Command::new(BIN)
        .args(["--database-url", &db, "serve", "--listen", "127.0.0.1:0", "--allowed-host", "https://memory.example.com"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--allowed-host") && stderr.contains("without scheme"), "{stderr}");
}

/// Asserts a 400 JSON-RPC error with this code whose message says `says`; its `id`.
#[track_caller]
fn assert_jsonrpc_error(answer: &Answer, code: i64, says: &str) -> Value {
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
    assert_eq!(answer.headers.get("content-type").unwrap(), "application/json");
    assert_eq!(answer.body["jsonrpc"], "2.0", "{}", answer.body);
    assert_eq!(answer.body["error"]["code"], code, "{}", answer.body);
    let message = answer.body["error"]["message"].as_str().unwrap();
    assert!(message.contains(says) && message.contains("send one JSON-RPC 2.0 message object"), "{message}");
    answer.body["id"].clone()
}

#[tokio::test]
async fn mcp_answers_bad_json_and_batches_with_jsonrpc_errors() {
    let s = serve(&["--listen", "127.0.0.1:0"]);
    for path in ["/mcp", "/mcp/agent"] {
        assert_eq!(assert_jsonrpc_error(&s.mcp(path, "{bad", &[]).await, -32700, "Parse error"), Value::Null);
        assert_eq!(assert_jsonrpc_error(&s.mcp(path, "", &[]).await, -32700, "Parse error"), Value::Null);
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
        assert_jsonrpc_error(&s.mcp(path, batch, &[]).await, -32600, "batches are not supported");
        assert_jsonrpc_error(&s.mcp(path, "42", &[]).await, -32600, "a JSON number, not an object");
        assert_jsonrpc_error(&s.mcp(path, r#""ping""#, &[]).await, -32600, "a JSON string");
        // An object that is no JSON-RPC message: its id comes back for the client to match.
        let id = assert_jsonrpc_error(&s.mcp(path, r#"{"id":7,"hello":"world"}"#, &[]).await, -32600, "Invalid Request");
        assert_eq!(id, json!(7));
    }
    // A well-formed request still passes.
    assert_eq!(s.mcp("/mcp", INITIALIZE, &[]).await.status, StatusCode::OK);
}

/// Asserts the API's JSON error with this status and code, and a detail naming `field`.
#[track_caller]
fn assert_api_error(answer: &Answer, status: StatusCode, code: &str, field: &str, says: &str) {
    assert_eq!(answer.status, status, "{}", answer.body);
    assert_eq!(answer.headers.get("content-type").unwrap(), "application/json");
    assert_eq!(answer.body["error"], code, "{}", answer.body);
    assert_eq!(answer.body["details"][0]["path"], field, "{}", answer.body);
    assert!(answer.body["details"][0]["message"].as_str().unwrap().contains(says), "{}", answer.body);
}

#[tokio::test]
async fn mcp_refusals_of_headers_and_sessions_have_their_status_and_a_code() {
    let s = serve(&["--listen", "127.0.0.1:0"]);
    for path in ["/mcp", "/mcp/agent"] {
        let answer = s.mcp(path, INITIALIZE, &[("Content-Type", "text/plain")]).await;
        assert_api_error(&answer, StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", "Content-Type", "application/json");
        let answer = s
            .send(Method::POST, path, &[("Content-Type", "application/json"), ("Accept", "application/json")], Some(INITIALIZE))
            .await;
        assert_api_error(&answer, StatusCode::NOT_ACCEPTABLE, "not_acceptable", "Accept", "text/event-stream");
        let answer = s.send(Method::GET, path, &[], None).await;
        assert_api_error(&answer, StatusCode::NOT_ACCEPTABLE, "not_acceptable", "Accept", "text/event-stream");
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        let answer = s.mcp(path, list, &[("Mcp-Session-Id", "no-such-session")]).await;
        assert_api_error(&answer, StatusCode::NOT_FOUND, "mcp_session_not_found", "Mcp-Session-Id", "initialize");
        let answer = s.send(Method::GET, path, &[("Accept", "text/event-stream"), ("Mcp-Session-Id", "no-such-session")], None).await;
        assert_api_error(&answer, StatusCode::NOT_FOUND, "mcp_session_not_found", "Mcp-Session-Id", "initialize");
    }
    // Without a token, bad input is still a 401 first.
    let answer = reqwest::Client::new()
        .post(format!("http://{}/mcp", s.address))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body("{bad")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
}

fn limit(per_second: u32, burst: u32) -> RateLimit {
    RateLimit { per_second: NonZeroU32::new(per_second).unwrap(), burst: NonZeroU32::new(burst).unwrap() }
}

/// A client whose requests leave from `from` (any 127/8 address is this machine).
fn client_from(from: &str) -> reqwest::Client {
    reqwest::Client::builder().local_address(from.parse::<IpAddr>().unwrap()).build().unwrap()
}

async fn status(client: &reqwest::Client, url: &str, token: Option<&str>, org: &str) -> StatusCode {
    let mut request = client.get(format!("{url}/v1/memory")).header("X-Org-Id", org);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap().status()
}

#[tokio::test]
async fn made_up_tokens_never_grow_the_limiter_past_its_cap() {
    let limiter = RateLimiter::with_max_addresses(limit(1_000, 1_000), 4);
    let s = support::Service::start_with({
        let limiter = limiter.clone();
        move |_| ServeOptions { rate_limit: Some(limiter), ..Default::default() }
    })
    .await;
    // 300 distinct 6 KB tokens from one address: one entry, that address's.
    let client = client_from("127.0.0.1");
    for i in 0..300 {
        let bogus = format!("mbk_{i:06}{}", "x".repeat(6 * 1024));
        assert_eq!(status(&client, &s.url, Some(&bogus), &s.acme).await, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(limiter.tracked(), Tracked { tokens: 0, addresses: 1 });
    // From 20 addresses: the cap, and one entry the rest share.
    for last in 2..22 {
        let client = client_from(&format!("127.0.0.{last}"));
        assert_eq!(status(&client, &s.url, Some("mbk_made_up"), &s.acme).await, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(limiter.tracked(), Tracked { tokens: 0, addresses: 5 });
    // Live tokens are counted by id, one entry each however often they are used.
    for _ in 0..5 {
        assert_eq!(status(&client, &s.url, Some(&s.alice.token), &s.acme).await, StatusCode::OK);
        assert_eq!(status(&client, &s.url, Some(&s.bob.token), &s.acme).await, StatusCode::OK);
    }
    assert_eq!(limiter.tracked().tokens, 2);
}

#[tokio::test]
async fn tokens_are_limited_by_id_and_everything_else_by_address() {
    let s = support::Service::start_with(|_| ServeOptions { rate_limit: Some(RateLimiter::new(limit(1, 3))), ..Default::default() }).await;
    let here = client_from("127.0.0.2");
    // A token's burst, then 429; another token of the same person has its own budget.
    for _ in 0..3 {
        assert_eq!(status(&here, &s.url, Some(&s.alice.token), &s.acme).await, StatusCode::OK);
    }
    assert_eq!(status(&here, &s.url, Some(&s.alice.token), &s.acme).await, StatusCode::TOO_MANY_REQUESTS);
    let second = s.bank.issue_token(&s.alice.id).await.unwrap();
    assert_eq!(status(&here, &s.url, Some(&second), &s.acme).await, StatusCode::OK);

    // Without a valid token the address is counted: no token and made-up ones alike,
    // whichever token they make up.
    let there = client_from("127.0.0.3");
    assert_eq!(status(&there, &s.url, None, &s.acme).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status(&there, &s.url, Some("mbk_one"), &s.acme).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status(&there, &s.url, Some("mbk_two"), &s.acme).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status(&there, &s.url, Some("mbk_three"), &s.acme).await, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(status(&there, &s.url, None, &s.acme).await, StatusCode::TOO_MANY_REQUESTS);
    // Another address has its own budget, and a live token from the limited address too.
    assert_eq!(status(&client_from("127.0.0.4"), &s.url, None, &s.acme).await, StatusCode::UNAUTHORIZED);
    assert_eq!(status(&there, &s.url, Some(&s.bob.token), &s.acme).await, StatusCode::OK);
}

#[tokio::test]
async fn the_desktop_app_own_calls_pass_its_embedded_service_checks() {
    let dir = tempfile::tempdir().unwrap();
    let store = memory_bank_store_sqlite::SqliteStore::open(&format!("sqlite://{}", dir.path().join("local.db").display())).await.unwrap();
    let bank = memory_bank_store::Bank::new(std::sync::Arc::new(store));
    let (user, org) = memory_bank_server::local::provision_local_account(&bank).await.unwrap();
    let service = memory_bank_server::local::LocalService::start(bank, &user).await.unwrap();
    // The app's own client (reqwest: Host 127.0.0.1:PORT, no Origin).
    let client = memory_bank_client::Client::new(&service.url, &service.token).unwrap();
    assert_eq!(client.me().await.unwrap().user.id, user);
    assert!(client.list(&org, None, None, None).await.unwrap().memories.is_empty());
    // A page that reaches it is refused, by name or by origin.
    let page = reqwest::Client::new();
    let url = format!("{}/v1/me", service.url);
    let rebound = page.get(&url).bearer_auth(&service.token).header("Host", "evil.example").send().await.unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
    let foreign = page.get(&url).bearer_auth(&service.token).header("Origin", "http://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    service.stop().await;
}
