//! Shared helpers for the cross-crate tests: a real memory service on loopback over a
//! real SQLite file, seeded with users, orgs and tokens.
#![allow(dead_code)]

use std::sync::Arc;

use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;
use reqwest::{Method, StatusCode};
use serde_json::Value;

/// A running service plus the accounts seeded in it.
pub struct Service {
    pub dir: tempfile::TempDir,
    pub url: String,
    pub database_url: String,
    pub store: SqliteStore,
    pub bank: Bank,
    pub http: reqwest::Client,
    /// Alice and Bob are both members of `acme`; Bob also of `beta`; Carol of none.
    pub alice: Account,
    pub bob: Account,
    pub carol: Account,
    pub acme: String,
    pub beta: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

/// A seeded user and a live token.
#[derive(Clone)]
pub struct Account {
    pub id: String,
    pub token: String,
}

impl Service {
    /// Starts the API on 127.0.0.1 with a fresh database file.
    pub async fn start() -> Self {
        Self::start_with(|_port| Default::default()).await
    }

    /// Like [`Service::start`], with the serve options `options(port)` gives.
    pub async fn start_with(options: impl FnOnce(u16) -> memory_bank_server::ServeOptions) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let database_url = format!("sqlite://{}", dir.path().join("memory.db").display());
        let store = SqliteStore::open(&database_url).await.unwrap();
        let bank = Bank::new(Arc::new(store.clone()));
        let account = async |email: &str| {
            let id = bank.add_user(email).await.unwrap().id;
            let token = bank.issue_token(&id).await.unwrap();
            Account { id, token }
        };
        let (alice, bob, carol) = (account("alice@example.com").await, account("bob@example.com").await, account("carol@example.com").await);
        let acme = bank.add_org("Acme").await.unwrap().id;
        let beta = bank.add_org("Beta").await.unwrap().id;
        bank.add_member(&acme, &alice.id).await.unwrap();
        bank.add_member(&acme, &bob.id).await.unwrap();
        bank.add_member(&beta, &bob.id).await.unwrap();

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let options = options(listener.local_addr().unwrap().port());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let served = bank.clone();
        tokio::spawn(async move {
            memory_bank_server::serve(listener, served, options, async move {
                let _ = rx.await;
            })
            .await
            .unwrap();
        });
        Self { dir, url, database_url, store, bank, http: reqwest::Client::new(), alice, bob, carol, acme, beta, shutdown: Some(tx) }
    }

    /// Sends a request; `token`/`org` become the auth and org headers when given.
    pub async fn call(&self, method: Method, path: &str, token: Option<&str>, org: Option<&str>, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self.http.request(method, format!("{}{}", self.url, path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(org) = org {
            request = request.header("X-Org-Id", org);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        let json = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
        (status, json)
    }

    /// Saves a memory as `who` in `acme` and returns the response body's memory.
    pub async fn save(&self, who: &Account, body: Value) -> Value {
        let (status, json) = self.call(Method::POST, "/v1/memory", Some(&who.token), Some(&self.acme), Some(body)).await;
        assert_eq!(status, StatusCode::CREATED, "{json}");
        json["memory"].clone()
    }

    /// Contents of a search as `who` (in `acme`).
    pub async fn search(&self, who: &Account, q: &str) -> Vec<String> {
        let path = format!("/v1/memory/search?q={}&limit=50", encode(q));
        let (status, json) = self.call(Method::GET, &path, Some(&who.token), Some(&self.acme), None).await;
        assert_eq!(status, StatusCode::OK, "{q:?}: {json}");
        json["results"].as_array().unwrap().iter().map(|r| r["content"].as_str().unwrap().to_owned()).collect()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Percent-encodes a query-string value.
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
