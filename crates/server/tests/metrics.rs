//! `/metrics` read by a parser nobody here wrote: after saves, a quota refusal, a
//! search, a read by id, an unknown path and a 429, a real service on loopback answers
//! text that a strict parser of Prometheus's text format (openmetrics-parser's pest
//! grammar) reads whole, with every family of the expected type and labels from fixed
//! sets. The end-to-end cases (the real binary, tokens, the MCP tools) are in the
//! workspace's tests/http_metrics.rs.

use std::num::NonZeroU32;
use std::sync::Arc;

use memory_bank_server::{HostCheck, Metrics, MetricsAccess, RateLimit, RateLimiter, ServeOptions};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;
use openmetrics_parser::prometheus::parse_prometheus;
use openmetrics_parser::PrometheusType;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

#[tokio::test]
async fn the_text_is_read_whole_by_a_strict_parser_and_holds_every_family() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
    let metrics = Metrics::new(MetricsAccess::Open);
    let bank = metrics.observe(Bank::new(Arc::new(store)).with_memory_quota(Some(1)));
    let ada = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Acme").await.unwrap().id;
    bank.add_member(&org, &ada).await.unwrap();
    let token = bank.issue_token(&ada).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let limit = RateLimit { per_second: NonZeroU32::new(1).unwrap(), burst: NonZeroU32::new(12).unwrap() };
    let options = ServeOptions {
        host_check: HostCheck::loopback(port),
        rate_limit: Some(RateLimiter::new(limit)),
        metrics: Some(metrics),
        ..Default::default()
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(memory_bank_server::serve(listener, bank, options, async move {
        let _ = stopped.await;
    }));

    let http = reqwest::Client::new();
    let call = |method: Method, path: &str, body: Option<Value>| {
        let mut request = http.request(method, format!("{url}{path}")).bearer_auth(&token).header("X-Org-Id", &org);
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send()
    };
    let saved: Value = call(Method::POST, "/v1/memory", Some(json!({"content": "a \"quoted\" \\ sentence"}))).await.unwrap().json().await.unwrap();
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    assert_eq!(call(Method::POST, "/v1/memory", Some(json!({"content": "one too many"}))).await.unwrap().status(), StatusCode::CONFLICT);
    assert_eq!(call(Method::GET, "/v1/memory/search?q=sentence", None).await.unwrap().status(), StatusCode::OK);
    assert_eq!(call(Method::GET, &format!("/v1/memory/{id}"), None).await.unwrap().status(), StatusCode::OK);
    assert_eq!(call(Method::GET, "/v1/nothing/here", None).await.unwrap().status(), StatusCode::NOT_FOUND);
    let mut limited = 0;
    for _ in 0..12 {
        if call(Method::GET, "/v1/me", None).await.unwrap().status() == StatusCode::TOO_MANY_REQUESTS {
            limited += 1;
        }
    }
    assert!(limited > 0);

    let scrape = http.get(format!("{url}/metrics")).send().await.unwrap();
    assert_eq!(scrape.status(), StatusCode::OK);
    let text = scrape.text().await.unwrap();
    let parsed = parse_prometheus(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let expected = [
        ("memory_bank_http_requests_total", PrometheusType::Counter),
        ("memory_bank_http_request_duration_seconds", PrometheusType::Histogram),
        ("memory_bank_memories_created_total", PrometheusType::Counter),
        ("memory_bank_searches_total", PrometheusType::Counter),
        ("memory_bank_proposals_created_total", PrometheusType::Counter),
        ("memory_bank_proposals_accepted_total", PrometheusType::Counter),
        ("memory_bank_proposals_rejected_total", PrometheusType::Counter),
        ("memory_bank_proposals_pending", PrometheusType::Gauge),
        ("memory_bank_refusals_total", PrometheusType::Counter),
    ];
    for (name, kind) in &expected {
        let family = parsed.families.get(*name).unwrap_or_else(|| panic!("{name} missing:\n{text}"));
        assert_eq!(&family.family_type, kind, "{name}");
        assert!(!family.help.is_empty(), "{name} has help");
    }
    // The tool-call family shows with the first MCP tool call (a family without a
    // sample is left out), which tests/http_metrics.rs makes.
    assert_eq!(parsed.families.len(), expected.len(), "{:?}", parsed.families.keys());

    // Routes are templates: the id is nowhere, `{id}` is.
    let requests = &parsed.families["memory_bank_http_requests_total"];
    let routes: Vec<String> = requests
        .iter_samples()
        .map(|s| s.get_labelset().unwrap().get_label_value("route").unwrap().to_owned())
        .collect();
    assert!(routes.iter().any(|r| r == "/v1/memory/{id}"), "{routes:?}");
    assert!(routes.iter().any(|r| r == "unmatched"), "{routes:?}");
    assert!(!text.contains(&id) && !text.contains("sentence") && !text.contains(&token) && !text.contains("example.com"), "{text}");
    let refusals = &parsed.families["memory_bank_refusals_total"];
    let count = |reason: &str| {
        refusals
            .iter_samples()
            .find(|s| s.get_labelset().unwrap().get_label_value("reason") == Some(reason))
            .map(|s| match &s.value {
                openmetrics_parser::PrometheusValue::Counter(c) => c.value.as_f64(),
                other => panic!("{other:?}"),
            })
            .unwrap()
    };
    assert_eq!(count("quota_exceeded"), 1.0);
    assert_eq!(count("rate_limited"), f64::from(limited));
    let _ = stop.send(());
}
