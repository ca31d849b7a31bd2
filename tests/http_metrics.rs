//! `serve --metrics` through the real binary on loopback: `/metrics` is a 404 until it
//! is asked for; then saves, searches, proposals, MCP tool calls, 429s and quota
//! refusals move their counters under route templates (never a path with an id in it),
//! and nothing a request carried (ids, emails, content, query text, tokens) appears
//! anywhere in the text, which keeps to the exposition format's rules. A token file
//! guards the metrics (401 without it, and the token never reaches the log); a
//! non-loopback address without one refuses to start; on loopback, a scrape that came
//! through a proxy needs the token too.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn admin(db: &str, args: &[&str]) -> String {
    let out = Command::new(BIN).args(["--database-url", db, "admin"]).args(args).output().unwrap();
    assert!(out.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A bank with Ada (a full token and an agent token) and Bob in one org, and the real
/// `serve` on it.
struct Served {
    _dir: tempfile::TempDir,
    serving: serve_process::Serving,
    org: String,
    ada_id: String,
    bob_id: String,
    ada: String,
    ada_agent: String,
    bob: String,
    http: reqwest::Client,
}

impl Served {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        Served::start_in(dir, args, env).unwrap()
    }

    fn start_in(dir: tempfile::TempDir, args: &[&str], env: &[(&str, &str)]) -> Result<Served, String> {
        let db = format!("sqlite://{}", dir.path().join("metrics.db").display());
        let ada_id = admin(&db, &["user", "add", "ada.lovelace@example.com"]);
        let bob_id = admin(&db, &["user", "add", "bob.babbage@example.com"]);
        let org = admin(&db, &["org", "add", "Analytical Engines"]);
        admin(&db, &["member", "add", &org, &ada_id]);
        admin(&db, &["member", "add", &org, &bob_id]);
        let ada = admin(&db, &["token", "issue", &ada_id]);
        let ada_agent = admin(&db, &["token", "issue", &ada_id, "--agent"]);
        let bob = admin(&db, &["token", "issue", &bob_id]);
        let mut serve_args = vec!["--listen", "127.0.0.1:0"];
        serve_args.extend_from_slice(args);
        let mut env = env.to_vec();
        env.push(("NO_COLOR", "1"));
        let serving = serve_process::start_with_args(BIN, &db, &serve_args, &env)?;
        Ok(Served { _dir: dir, serving, org, ada_id, bob_id, ada, ada_agent, bob, http: reqwest::Client::new() })
    }

    async fn call(&self, method: Method, path: &str, token: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request =
            self.http.request(method, format!("{}{path}", self.serving.url)).bearer_auth(token).header("X-Org-Id", &self.org);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    /// `GET /metrics` with these headers: status and body.
    async fn scrape_with(&self, headers: &[(&str, &str)]) -> (StatusCode, String) {
        let mut request = self.http.get(format!("{}/metrics", self.serving.url));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        if status == StatusCode::OK {
            let kind = response.headers().get("content-type").unwrap().to_str().unwrap().to_owned();
            assert_eq!(kind, "text/plain; version=0.0.4; charset=utf-8");
        }
        (status, response.text().await.unwrap())
    }

    /// The metrics, parsed (and so checked against the format).
    async fn scrape(&self) -> (String, Vec<Sample>) {
        let (status, text) = self.scrape_with(&[]).await;
        assert_eq!(status, StatusCode::OK, "{text}");
        let samples = parse_exposition(&text);
        (text, samples)
    }

    /// Everything the log said until now.
    fn log(&self) -> String {
        self.serving.stderr.try_iter().collect::<Vec<_>>().join("\n")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.serving.child.kill();
        let _ = self.serving.child.wait();
    }
}

// ---- The exposition format, read by a parser nobody here wrote ---------------------

/// One sample, a histogram's as its `_count` and `_sum`.
#[derive(Debug, Clone)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Reads the text with openmetrics-parser's strict grammar of Prometheus's text format
/// (as crates/server/tests/metrics.rs does) and flattens it for the assertions below.
fn parse_exposition(text: &str) -> Vec<Sample> {
    use openmetrics_parser::PrometheusValue;
    let parsed = openmetrics_parser::prometheus::parse_prometheus(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let mut samples = Vec::new();
    for (name, family) in &parsed.families {
        for sample in family.iter_samples() {
            let labels: BTreeMap<String, String> =
                sample.get_labelset().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let mut push = |name: String, value: f64| samples.push(Sample { name, labels: labels.clone(), value });
            match &sample.value {
                PrometheusValue::Counter(counter) => push(name.clone(), counter.value.as_f64()),
                PrometheusValue::Gauge(value) | PrometheusValue::Unknown(value) => push(name.clone(), value.as_f64()),
                PrometheusValue::Histogram(histogram) => {
                    let count = histogram.count.unwrap_or_else(|| panic!("{name} without _count")) as f64;
                    let last = histogram.buckets.last().unwrap_or_else(|| panic!("{name} without buckets"));
                    assert_eq!(last.upper_bound, f64::INFINITY, "{name} ends at +Inf");
                    assert_eq!(last.count.as_f64(), count, "{name}: the +Inf bucket is the count");
                    push(format!("{name}_count"), count);
                    push(format!("{name}_sum"), histogram.sum.as_ref().map_or(0.0, |sum| sum.as_f64()));
                }
                PrometheusValue::Summary(_) => panic!("{name}: no summaries are served"),
            }
        }
    }
    samples
}

/// The value of the sample named `name` whose labels include `labels`, summed over the
/// ones that match; 0 when none does.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|s| s.name == name && labels.iter().all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v)))
        .map(|s| s.value)
        .sum()
}

fn requests(samples: &[Sample], route: &str, method: &str, status: &str) -> f64 {
    value(samples, "memory_bank_http_requests_total", &[("route", route), ("method", method), ("status", status)])
}

// ---- The tests ---------------------------------------------------------------------

#[tokio::test]
async fn metrics_are_off_unless_asked_for_and_then_a_404_like_any_unknown_route() {
    let s = Served::start(&[], &[]);
    let (status, body) = s.scrape_with(&[]).await;
    let (unknown_status, unknown_body) = s.call(Method::GET, "/no-such-route", &s.ada, None).await;
    assert_eq!((status, unknown_status), (StatusCode::NOT_FOUND, StatusCode::NOT_FOUND));
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), unknown_body);
    assert_eq!(unknown_body, json!({"error": "not_found"}));
    // MEMORY_BANK_METRICS=0 is off too.
    let off = Served::start(&[], &[("MEMORY_BANK_METRICS", "0")]);
    assert_eq!(off.scrape_with(&[]).await.0, StatusCode::NOT_FOUND);
}

/// The MCP session of a legacy (2025-11-25) client as `token`: its id.
async fn open_mcp_session(s: &Served, token: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "metrics-test", "version": "1"}}});
    let response = mcp_post(s, token, None, init).await;
    assert_eq!(response.status(), StatusCode::OK);
    let session = response.headers().get("mcp-session-id").expect("a session id").to_str().unwrap().to_owned();
    let _ = response.bytes().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(mcp_post(s, token, Some(&session), initialized).await.status(), StatusCode::ACCEPTED);
    session
}

async fn mcp_post(s: &Served, token: &str, session: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = s
        .http
        .post(format!("{}/mcp", s.serving.url))
        .bearer_auth(token)
        .header("X-Org-Id", &s.org)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
    }
    request.send().await.unwrap()
}

/// Calls `tool` in `session` and reads its answer to the end.
async fn call_tool(s: &Served, token: &str, session: &str, id: u32, tool: &str, arguments: Value) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let response = mcp_post(s, token, Some(session), call).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.unwrap()
}

#[tokio::test]
async fn counters_move_under_route_templates_and_nothing_a_request_carried_shows() {
    let s = Served::start(&["--metrics", "--max-memories-per-user", "3"], &[]);
    // What the requests below carry, none of which may reach the metrics.
    let canary = "zebracanary";
    let mut secrets: Vec<String> = vec![
        s.ada.clone(), s.ada_agent.clone(), s.bob.clone(), s.ada_id.clone(), s.bob_id.clone(), s.org.clone(),
        "ada.lovelace".into(), "bob.babbage".into(), "example.com".into(), "Analytical".into(), canary.into(),
        "quietquery".into(), "mcpquery".into(), "Bearer".into(), "mbk_".into(),
    ];

    // Three proposals by Ada's agent: one accepted (a memory), one rejected, one waiting.
    let mut proposals = Vec::new();
    for i in 0..3 {
        let body = json!({"content": format!("Ada's {canary} proposal {i}"), "tags": [format!("{canary}-tag")]});
        let (status, proposed) = s.call(Method::POST, "/v1/proposals", &s.ada_agent, Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{proposed}");
        proposals.push(proposed["proposal"]["id"].as_str().unwrap().to_owned());
    }
    let (status, accepted) = s.call(Method::POST, &format!("/v1/proposals/{}/accept", proposals[0]), &s.ada, Some(json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    secrets.push(accepted["memory"]["id"].as_str().unwrap().to_owned());
    let (status, _) = s.call(Method::POST, &format!("/v1/proposals/{}/reject", proposals[1]), &s.ada, None).await;
    assert_eq!(status, StatusCode::OK);
    secrets.extend(proposals.iter().cloned());

    // Two saves reach the cap of three; the third is refused.
    for i in 0..2 {
        let body = json!({"content": format!("Ada keeps a {canary} note {i}"), "tags": [format!("{canary}")],
            "contexts": [{"snippet": format!("{canary} snippet"), "conversationId": format!("conv-{canary}")}]});
        let (status, saved) = s.call(Method::POST, "/v1/memory", &s.ada, Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{saved}");
        secrets.push(saved["memory"]["id"].as_str().unwrap().to_owned());
    }
    let (status, refused) = s.call(Method::POST, "/v1/memory", &s.ada, Some(json!({"content": format!("{canary} four")}))).await;
    assert_eq!((status, refused["error"].as_str()), (StatusCode::CONFLICT, Some("quota_exceeded")));

    // A search, a read by id, and an unknown path with a word in it.
    let (status, found) = s.call(Method::GET, &format!("/v1/memory/search?q={canary}+quietquery"), &s.ada, None).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    let id = secrets.last().unwrap().clone();
    assert_eq!(s.call(Method::GET, &format!("/v1/memory/{id}"), &s.ada, None).await.0, StatusCode::OK);
    assert_eq!(s.call(Method::GET, &format!("/v1/{canary}/{id}"), &s.ada, None).await.0, StatusCode::NOT_FOUND);

    // MCP: a search tool call, and a tool name the server does not have.
    let session = open_mcp_session(&s, &s.ada).await;
    secrets.push(session.clone());
    let answer = call_tool(&s, &s.ada, &session, 2, "search_memories", json!({"query": "mcpquery"})).await;
    assert!(answer.contains("\"result\""), "{answer}");
    call_tool(&s, &s.ada, &session, 3, &format!("{canary}_tool"), json!({})).await;

    // Bob's token over its rate (20 a second, bursts of 40): each 429 counted.
    let mut limited = 0.0;
    for _ in 0..80 {
        if s.call(Method::GET, "/v1/me", &s.bob, None).await.0 == StatusCode::TOO_MANY_REQUESTS {
            limited += 1.0;
        }
    }
    assert!(limited > 0.0, "the burst is spent");

    let (text, samples) = s.scrape().await;
    for secret in &secrets {
        assert!(!text.contains(secret.as_str()), "{secret:?} in the metrics:\n{text}");
    }
    assert!(!text.to_ascii_lowercase().contains(canary), "{text}");

    // Route templates, methods and statuses.
    assert_eq!(requests(&samples, "/v1/memory", "POST", "201"), 2.0);
    assert_eq!(requests(&samples, "/v1/memory", "POST", "409"), 1.0);
    assert_eq!(requests(&samples, "/v1/memory/search", "GET", "200"), 1.0);
    assert_eq!(requests(&samples, "/v1/memory/{id}", "GET", "200"), 1.0);
    assert_eq!(requests(&samples, "/v1/proposals", "POST", "201"), 3.0);
    assert_eq!(requests(&samples, "/v1/proposals/{id}/accept", "POST", "200"), 1.0);
    assert_eq!(requests(&samples, "/v1/proposals/{id}/reject", "POST", "200"), 1.0);
    assert_eq!(requests(&samples, "unmatched", "GET", "404"), 1.0);
    assert_eq!(requests(&samples, "/v1/me", "GET", "429"), limited);
    assert!(requests(&samples, "/mcp", "POST", "200") >= 3.0, "initialize and two tool calls");
    assert_eq!(requests(&samples, "/mcp", "POST", "202"), 1.0, "the initialized notification");
    assert_eq!(value(&samples, "memory_bank_http_request_duration_seconds_count", &[("route", "/v1/memory"), ("method", "POST")]), 3.0);
    assert!(value(&samples, "memory_bank_http_request_duration_seconds_sum", &[("route", "/v1/memory/search")]) > 0.0);

    // What the bank did, whichever door it came through.
    assert_eq!(value(&samples, "memory_bank_memories_created_total", &[("via", "save")]), 2.0);
    assert_eq!(value(&samples, "memory_bank_memories_created_total", &[("via", "proposal")]), 1.0);
    assert_eq!(value(&samples, "memory_bank_memories_created_total", &[("via", "import")]), 0.0);
    assert_eq!(value(&samples, "memory_bank_searches_total", &[]), 2.0, "the API's and the MCP tool's");
    assert_eq!(value(&samples, "memory_bank_proposals_created_total", &[]), 3.0);
    assert_eq!(value(&samples, "memory_bank_proposals_accepted_total", &[]), 1.0);
    assert_eq!(value(&samples, "memory_bank_proposals_rejected_total", &[]), 1.0);
    assert_eq!(value(&samples, "memory_bank_proposals_pending", &[]), 1.0);
    assert_eq!(value(&samples, "memory_bank_refusals_total", &[("reason", "quota_exceeded")]), 1.0);
    assert_eq!(value(&samples, "memory_bank_refusals_total", &[("reason", "rate_limited")]), limited);
    assert_eq!(value(&samples, "memory_bank_mcp_tool_calls_total", &[("tool", "search_memories")]), 1.0);
    assert_eq!(value(&samples, "memory_bank_mcp_tool_calls_total", &[("tool", "unknown")]), 1.0);

    // Every label from a fixed set.
    let templates = [
        "/v1/memory", "/v1/memory/search", "/v1/memory/{id}", "/v1/me", "/v1/proposals", "/v1/proposals/{id}/accept",
        "/v1/proposals/{id}/reject", "/mcp", "/metrics", "unmatched",
    ];
    for sample in &samples {
        for (key, label) in &sample.labels {
            let fixed = match key.as_str() {
                "route" => templates.contains(&label.as_str()),
                "method" => ["GET", "POST", "DELETE"].contains(&label.as_str()),
                "status" => label.len() == 3 && label.bytes().all(|b| b.is_ascii_digit()),
                "le" => true,
                "via" => ["save", "proposal", "import"].contains(&label.as_str()),
                "reason" => ["rate_limited", "quota_exceeded"].contains(&label.as_str()),
                "tool" => ["search_memories", "unknown"].contains(&label.as_str()),
                _ => false,
            };
            assert!(fixed, "{key}={label:?} in {sample:?}");
        }
    }

    // Scrapes are counted as a route of their own, by the client's address, never by token.
    let (_, again) = s.scrape().await;
    assert_eq!(requests(&again, "/metrics", "GET", "200"), 1.0);
    let log = s.log();
    assert!(log.contains("metrics served at /metrics"), "{log}");
}

#[tokio::test]
async fn an_import_counts_its_memories_and_each_line_past_the_cap() {
    let s = Served::start(&["--metrics", "--max-memories-per-user", "2"], &[]);
    let line = |n: u8| format!(r#"{{"id":"mem_01kcccccccccccccccccccccc{n}","content":"zebraimport {n}","createdAt":"2026-11-01T10:00:00.000Z"}}"#);
    let file = format!("{}\n{}\n{}\n", line(1), line(2), line(3));
    let response =
        s.http.post(format!("{}/v1/import", s.serving.url)).bearer_auth(&s.ada).header("X-Org-Id", &s.org).body(file).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let report: Value = response.json().await.unwrap();
    assert_eq!((report["imported"].as_u64(), report["failedCount"].as_u64()), (Some(2), Some(1)), "{report}");
    let (text, samples) = s.scrape().await;
    assert_eq!(value(&samples, "memory_bank_memories_created_total", &[("via", "import")]), 2.0);
    assert_eq!(value(&samples, "memory_bank_refusals_total", &[("reason", "quota_exceeded")]), 1.0);
    assert_eq!(requests(&samples, "/v1/import", "POST", "200"), 1.0);
    assert!(!text.contains("mem_01kccc") && !text.contains("zebraimport"), "{text}");
}

/// Writes `token` to the file `name` in `dir` with `mode`.
fn token_file(dir: &Path, name: &str, token: &str, mode: u32) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("{token}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.display().to_string()
}

#[tokio::test]
async fn a_token_file_guards_the_metrics_and_the_token_never_reaches_the_log() {
    let token = "3f9c1e7a5b2d4c6e8f0a1b3c5d7e9f20";
    let dir = tempfile::tempdir().unwrap();
    let path = token_file(dir.path(), "metrics-token", token, 0o600);
    let env = [("MEMORY_BANK_LOG", "debug")];
    let s = Served::start_in(dir, &["--metrics", "--metrics-token-file", &path], &env).unwrap();
    let bearer = |t: &str| format!("Bearer {t}");
    for refused in [vec![], vec![("Authorization", bearer("wrong-token-wrong-token"))], vec![("Authorization", bearer(&token[..31]))],
        vec![("Authorization", bearer(&format!("{token}0")))], vec![("Authorization", bearer(&s.ada))], vec![("Authorization", format!("Basic {token}"))]]
    {
        let headers: Vec<(&str, &str)> = refused.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (status, body) = s.scrape_with(&headers).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused:?}");
        assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), json!({"error": "unauthorized"}));
    }
    let right = bearer(token);
    let (status, text) = s.scrape_with(&[("Authorization", &right)]).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    parse_exposition(&text);
    // With a token, a scrape through a proxy is fine: the token is what admits it.
    let (status, _) = s.scrape_with(&[("Authorization", &right), ("X-Forwarded-For", "203.0.113.9")]).await;
    assert_eq!(status, StatusCode::OK);
    let (_, text) = s.scrape_with(&[("Authorization", &right)]).await;
    let samples = parse_exposition(&text);
    assert_eq!(requests(&samples, "/metrics", "GET", "401"), 6.0);
    assert_eq!(requests(&samples, "/metrics", "GET", "200"), 2.0);
    let log = s.log();
    assert!(!log.contains(token) && !log.contains(&token[..16]), "the token in the log:\n{log}");
}

#[tokio::test]
async fn on_loopback_without_a_token_a_scrape_through_a_proxy_is_refused() {
    let s = Served::start(&["--metrics", "--allowed-host", "memory.example.com"], &[]);
    assert_eq!(s.scrape_with(&[]).await.0, StatusCode::OK);
    for proxied in [("X-Forwarded-For", "203.0.113.9"), ("Forwarded", "for=203.0.113.9"), ("X-Real-IP", "203.0.113.9"), ("Host", "memory.example.com")] {
        let (status, body) = s.scrape_with(&[proxied]).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{proxied:?}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"], "unauthorized");
        assert!(body["details"][0]["message"].as_str().unwrap().contains("--metrics-token-file"), "{body}");
    }
}

#[test]
fn a_network_address_without_a_token_file_refuses_to_start() {
    use memory_bank_server::{metrics_access, MetricsAccess, MetricsConfigError};
    for listen in ["0.0.0.0:8787", "[::]:8787", "10.0.0.5:8787", "192.0.2.1:443"] {
        let err = metrics_access(true, listen.parse().unwrap(), None).unwrap_err();
        assert!(matches!(err, MetricsConfigError::NeedsToken { .. }), "{listen}: {err}");
        let message = err.to_string();
        assert!(message.contains("--metrics-token-file") && message.contains("MEMORY_BANK_METRICS_TOKEN_FILE"), "{message}");
    }
    for listen in ["127.0.0.1:8787", "[::1]:8787", "127.0.0.2:0"] {
        assert!(matches!(metrics_access(true, listen.parse().unwrap(), None), Ok(Some(MetricsAccess::Open))), "{listen}");
    }
    assert!(matches!(metrics_access(false, "0.0.0.0:8787".parse().unwrap(), None), Ok(None)), "off needs nothing");
    let dir = tempfile::tempdir().unwrap();
    let path = token_file(dir.path(), "metrics-token", "a-long-enough-metrics-token", 0o600);
    let access = metrics_access(true, "0.0.0.0:8787".parse().unwrap(), Some(Path::new(&path))).unwrap();
    assert!(matches!(access, Some(MetricsAccess::Token(_))));
    assert_eq!(format!("{access:?}"), "Some(Token(…))", "never printed");
    let err = metrics_access(false, "127.0.0.1:8787".parse().unwrap(), Some(Path::new(&path))).unwrap_err();
    assert!(err.to_string().contains("--metrics"), "{err}");

    // The real binary stops before it opens the database or listens.
    let db = format!("sqlite://{}", dir.path().join("never.db").display());
    for listen in ["0.0.0.0:0", "[::]:0"] {
        let out = Command::new(BIN).args(["--database-url", &db, "serve", "--listen", listen, "--metrics"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{listen}: {stderr}");
        assert!(stderr.contains("needs a token") && stderr.contains("--metrics-token-file"), "{stderr}");
        assert!(!stderr.contains("serving http"), "{stderr}");
    }
    assert!(!dir.path().join("never.db").exists(), "no database was made");
}

#[test]
fn a_token_file_others_can_read_or_too_short_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("never.db").display());
    let run = |path: &str| {
        let out = Command::new(BIN)
            .args(["--database-url", &db, "serve", "--listen", "127.0.0.1:0", "--metrics", "--metrics-token-file", path])
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let readable = token_file(dir.path(), "readable", "a-long-enough-metrics-token", 0o644);
    let stderr = run(&readable);
    assert!(stderr.contains("can be read by other users") && stderr.contains("chmod 600"), "{stderr}");
    assert!(!stderr.contains("a-long-enough-metrics-token"), "{stderr}");
    let short = token_file(dir.path(), "short", "short", 0o600);
    let stderr = run(&short);
    assert!(stderr.contains("at least 16") && stderr.contains("openssl rand -hex 32"), "{stderr}");
    let stderr = run(&dir.path().join("missing").display().to_string());
    assert!(stderr.contains("cannot read the metrics token file"), "{stderr}");
    // MEMORY_BANK_METRICS_TOKEN_FILE without MEMORY_BANK_METRICS.
    let out = Command::new(BIN)
        .args(["--database-url", &db, "serve", "--listen", "127.0.0.1:0"])
        .env("MEMORY_BANK_METRICS_TOKEN_FILE", &short)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("metrics are off"));
}
