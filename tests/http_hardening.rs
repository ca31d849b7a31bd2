//! The service under hostile or broken clients, over raw TCP on loopback: error bodies
//! that stay small and are always JSON, header and body deadlines, the connection cap,
//! and the embedded service's `Host` check.

mod support;

use std::time::{Duration, Instant};

use memory_bank_server::{ConnectionLimits, HostCheck, ServeOptions};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use support::Service;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The service's address as `host:port`.
fn address(s: &Service) -> String {
    s.url.trim_start_matches("http://").to_owned()
}

/// Sends `request` as raw bytes and reads until the service closes the connection
/// (every answer here ends the connection, or `Connection: close` is sent).
async fn raw(s: &Service, request: &[u8]) -> (u16, Vec<(String, String)>, Value) {
    let mut stream = TcpStream::connect(address(s)).await.unwrap();
    // The service may answer and close before it has read everything we send.
    let _ = stream.write_all(request).await;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut answer))
        .await
        .expect("an answer")
        .ok();
    parse(&answer)
}

fn parse(answer: &[u8]) -> (u16, Vec<(String, String)>, Value) {
    let text = String::from_utf8_lossy(answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {text:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let body = serde_json::from_str(body).unwrap_or_else(|_| Value::String(body.to_owned()));
    (status, headers, body)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Asserts a JSON error answer with this status and code.
#[track_caller]
fn assert_json_error(answer: &(u16, Vec<(String, String)>, Value), status: u16, code: &str) {
    let (got, headers, body) = answer;
    assert_eq!(*got, status, "{body}");
    assert_eq!(
        header(headers, "content-type"),
        Some("application/json"),
        "{headers:?}"
    );
    assert_eq!(body["error"], code, "{body}");
}

#[tokio::test]
async fn a_flood_of_empty_tags_gets_one_small_detail() {
    let s = Service::start().await;
    // 256 KiB of `"",`: about 87 000 empty tags.
    let tags = vec!["\"\""; 87_000].join(",");
    let body = format!(r#"{{"content":"x","tags":[{tags}]}}"#);
    assert!(body.len() <= 256 * 1024);
    let response = s
        .http
        .post(format!("{}/v1/memory", s.url))
        .bearer_auth(&s.alice.token)
        .header("X-Org-Id", &s.acme)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let text = response.text().await.unwrap();
    assert!(text.len() < 1024, "{} bytes", text.len());
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["details"].as_array().unwrap().len(), 1, "{json}");
    assert_eq!(json["details"][0]["path"], "tags");
}

#[tokio::test]
async fn many_problems_are_capped_at_twenty_details() {
    let s = Service::start().await;
    let contexts: Vec<Value> = (0..16)
        .map(|_| json!({"snippet": " ", "conversationId": "", "messageId": ""}))
        .collect();
    let tags: Vec<Value> = (0..32).map(|_| json!("")).collect();
    let (status, body) = s
        .call(
            Method::POST,
            "/v1/memory",
            Some(&s.alice.token),
            Some(&s.acme),
            Some(json!({"content": "", "tags": tags, "contexts": contexts})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let details = body["details"].as_array().unwrap();
    assert_eq!(details.len(), memory_bank_contract::MAX_ERROR_DETAILS);
    // 1 content + 32 tags + 16 × 3 context fields = 81 problems: 19 listed, then the rest counted.
    assert_eq!(
        details.last().unwrap()["message"],
        "and 62 more problems; fix these first"
    );
}

#[tokio::test]
async fn malformed_percent_encoding_in_a_path_is_a_json_404() {
    let s = Service::start().await;
    let (status, body) = s
        .call(
            Method::DELETE,
            "/v1/memory/%FF",
            Some(&s.alice.token),
            Some(&s.acme),
            None,
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("memory_not_found")),
        "{body}"
    );
    let answer = raw(
        &s,
        b"GET /v1/%FF%FE HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_json_error(&answer, 404, "not_found");
}

#[tokio::test]
async fn every_error_hyper_answers_by_itself_is_json_too() {
    let s = Service::start().await;
    // A target over the service's 8 KiB: its own 414.
    let long = format!(
        "GET /v1/memory/search?q={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "a".repeat(10_000)
    );
    assert_json_error(&raw(&s, long.as_bytes()).await, 414, "uri_too_long");
    // A target over hyper's own 64 KiB limit: hyper's 414, rewritten.
    let huge = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(100_000));
    assert_json_error(&raw(&s, huge.as_bytes()).await, 414, "uri_too_long");
    // A head larger than the whole read buffer: hyper's 431, rewritten.
    let endless = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(1_000_000)
    );
    assert_json_error(&raw(&s, endless.as_bytes()).await, 431, "headers_too_large");
    // One 100 KB header, and 150 small ones (hyper reads at most 100).
    let big_header = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: {}\r\n\r\n",
        "b".repeat(100_000)
    );
    assert_json_error(
        &raw(&s, big_header.as_bytes()).await,
        431,
        "headers_too_large",
    );
    let many: String = (0..150).map(|i| format!("X-H{i}: v\r\n")).collect();
    let many_headers =
        format!("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{many}\r\n");
    assert_json_error(
        &raw(&s, many_headers.as_bytes()).await,
        431,
        "headers_too_large",
    );
    // Not HTTP at all, and a header line without a colon.
    assert_json_error(&raw(&s, b"GARBAGE\r\n\r\n").await, 400, "invalid_request");
    assert_json_error(
        &raw(&s, b"GET /healthz HTTP/1.1\r\nHost x\r\n\r\n").await,
        400,
        "invalid_request",
    );
    // The service still serves afterwards.
    let (status, _) = s.call(Method::GET, "/healthz", None, None, None).await;
    assert_eq!(status, StatusCode::OK);
}

fn short_deadlines(_port: u16) -> ServeOptions {
    ServeOptions {
        limits: ConnectionLimits {
            header_read_timeout: Duration::from_secs(1),
            body_read_timeout: Duration::from_secs(1),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Reads until the service closes the connection; how long that took.
async fn time_until_closed(stream: &mut TcpStream) -> (Duration, Vec<u8>) {
    let started = Instant::now();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer))
        .await
        .expect("the service must close a stalled connection")
        .ok();
    (started.elapsed(), answer)
}

#[tokio::test]
async fn half_a_request_head_is_cut_off_at_the_header_deadline() {
    let s = Service::start_with(short_deadlines).await;
    let mut stream = TcpStream::connect(address(&s)).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let (took, _) = time_until_closed(&mut stream).await;
    assert!(took < Duration::from_secs(10), "closed after {took:?}");

    // An idle keep-alive connection is closed the same way.
    let mut stream = TcpStream::connect(address(&s)).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let (took, answer) = time_until_closed(&mut stream).await;
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
    assert!(
        took < Duration::from_secs(10),
        "idle connection closed after {took:?}"
    );
}

#[tokio::test]
async fn a_body_that_stalls_gets_a_json_408() {
    let s = Service::start_with(short_deadlines).await;
    let mut stream = TcpStream::connect(address(&s)).await.unwrap();
    let head = format!(
        "POST /v1/memory HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nX-Org-Id: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"content\"",
        s.alice.token, s.acme
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (took, answer) = time_until_closed(&mut stream).await;
    assert!(took < Duration::from_secs(10));
    assert_json_error(&parse(&answer), 408, "request_timeout");
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_until_one_closes() {
    let s = Service::start_with(|_| ServeOptions {
        limits: ConnectionLimits {
            max_connections: 2,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let first = TcpStream::connect(address(&s)).await.unwrap();
    let _second = TcpStream::connect(address(&s)).await.unwrap();
    let mut third = TcpStream::connect(address(&s)).await.unwrap(); // queued by the OS, not served
    third
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(700), third.read(&mut byte)).await;
    assert!(
        early.is_err(),
        "the third connection was served while two were open"
    );
    drop(first);
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), third.read_to_end(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"),
        "{answer:?}"
    );
}

#[tokio::test]
async fn the_loopback_host_check_refuses_other_host_names() {
    let s = Service::start_with(|port| ServeOptions {
        host_check: HostCheck::loopback(port),
        ..Default::default()
    })
    .await;
    let port = address(&s).rsplit(':').next().unwrap().to_owned();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("LOCALHOST:{port}"),
    ] {
        let request = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let (status, _, body) = raw(&s, request.as_bytes()).await;
        assert_eq!(status, 200, "{host}: {body}");
    }
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_owned(),
        "127.0.0.1:1".to_owned(),
        format!("127.0.0.1.evil.example:{port}"),
    ] {
        let request = format!("GET /v1/me HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n", s.alice.token);
        assert_json_error(&raw(&s, request.as_bytes()).await, 403, "host_not_allowed");
    }
    // No Host header at all (HTTP/1.0) is refused too.
    assert_json_error(
        &raw(&s, b"GET /healthz HTTP/1.0\r\n\r\n").await,
        403,
        "host_not_allowed",
    );
}

#[tokio::test]
async fn the_team_server_answers_any_host() {
    let s = Service::start().await;
    let (status, _, _) = raw(
        &s,
        b"GET /healthz HTTP/1.1\r\nHost: memory.example.com\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 200);
}
