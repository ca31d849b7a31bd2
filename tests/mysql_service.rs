//! The memory service over MariaDB through a database outage: the MariaDB process
//! is killed mid-run and started again on the same port and data folder, and the
//! service (never restarted) answers 503 while the database is down and recovers
//! by itself after. Needs a local `mariadbd`: the outage is made by killing it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use memory_bank_store::Bank;
use memory_bank_store::MemoryStore as _;
use memory_bank_store_mysql::testing::{MariaDb, TestDatabase};
use memory_bank_store_mysql::{MySqlOptions, MySqlStore};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
    org: String,
}

impl Client {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(&self.token).header("X-Org-Id", &self.org);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) })
    }

    async fn save(&self, content: &str) -> (StatusCode, Value) {
        self.call(Method::POST, "/v1/memory", Some(json!({ "content": content }))).await
    }

    async fn search(&self, q: &str) -> (StatusCode, Value) {
        self.call(Method::GET, &format!("/v1/memory/search?q={q}"), None).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_get_503_while_mariadb_is_down_and_work_again_after_it_restarts() {
    let mut server = tokio::task::spawn_blocking(MariaDb::start)
        .await
        .unwrap()
        .unwrap_or_else(|e| {
            panic!("this test kills and restarts its own MariaDB and cannot start one: {e}")
        });
    let db = TestDatabase::create_on(&server.server_url()).await;
    // A short acquire timeout: while the database is down, each request waits this long.
    let options = MySqlOptions { acquire_timeout: Duration::from_secs(1), ..MySqlOptions::default() };
    let store = MySqlStore::open_with(db.url(), &options).await.unwrap();
    store.migrate().await.unwrap();
    let bank = Bank::new(Arc::new(store));
    let user = bank.add_user("ops@example.com").await.unwrap().id;
    let org = bank.add_org("Operations").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    let token = bank.issue_token(&user).await.unwrap();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let service = tokio::spawn(memory_bank_server::serve(
        listener,
        bank,
        Default::default(),
        async move {
            let _ = stop_rx.await;
        },
    ));
    let client = Client {
        http: reqwest::Client::new(),
        base,
        token,
        org,
    };

    let (status, body) = client.save("saved before the outage: lighthouse").await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(client.search("lighthouse").await.1["results"].as_array().unwrap().len(), 1);

    server.kill();
    for (what, (status, body)) in [
        ("save", client.save("saved during the outage").await),
        ("search", client.search("lighthouse").await),
        ("list", client.call(Method::GET, "/v1/memory", None).await),
        ("healthz", client.call(Method::GET, "/healthz", None).await),
    ] {
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{what} while down: {body}");
        assert_eq!(body, json!({ "error": "service_unavailable" }), "{what} while down");
    }

    tokio::task::block_in_place(|| server.restart()).unwrap();
    // The pool tests each connection before use and replaces dead ones, so the
    // service recovers by itself; allow a few seconds for crash recovery.
    let started = Instant::now();
    let mut attempts = 0;
    let recovered = loop {
        attempts += 1;
        let (status, body) = client.save("saved after the outage: lighthouse").await;
        if status == StatusCode::CREATED || started.elapsed() > Duration::from_secs(30) {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    eprintln!("recovered after {attempts} attempt(s), {:?}", started.elapsed());
    assert_eq!(recovered.0, StatusCode::CREATED, "after restart ({attempts} attempts): {}", recovered.1);
    let (status, found) = client.search("lighthouse").await;
    assert_eq!(status, StatusCode::OK);
    let contents: Vec<&str> = found["results"].as_array().unwrap().iter().map(|r| r["content"].as_str().unwrap()).collect();
    assert_eq!(contents.len(), 2, "the row committed before the kill survived: {contents:?}");
    assert_eq!(client.call(Method::GET, "/healthz", None).await.0, StatusCode::OK);

    let _ = stop_tx.send(());
    service.await.unwrap().unwrap();
    drop(db);
}
