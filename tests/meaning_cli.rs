//! Search by meaning through the real `memory-bank` binary: the backfill of an older
//! bank survives `kill -9` half way and finishes after a restart, with `db status`
//! reporting its progress; without the model, search is by words and `db status` says
//! why; `--words-only` never loads the model.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use memory_bank_store::{Bank, MemoryStore as _, NewMemory};
use memory_bank_store_sqlite::SqliteStore;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");
const PEANUTS: &str = "My daughter is allergic to peanuts";
const QUESTION: &str = "Which food allergies are in the family?";

/// The model's folder as this machine has it (`scripts/fetch-model.sh`).
fn model_dir() -> String {
    memory_bank_embed::default_model_dir()
        .expect("the embedding model is missing: run scripts/fetch-model.sh")
        .display()
        .to_string()
}

/// A bank of `n` memories made without vectors (as before meaning search), one of them
/// PEANUTS; its person's token and org.
async fn older_bank(path: &Path, n: i64) -> (String, String) {
    let store = SqliteStore::open(&format!("sqlite://{}", path.display())).await.unwrap();
    let bank = Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("ada@example.com").await.unwrap().id;
    let org = bank.add_org("Home").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    let rows: Vec<NewMemory> = (0..n)
        .map(|i| {
            let content = if i == n / 2 { PEANUTS.to_owned() } else { format!("Reminder {i}: the quarterly report goes to finance") };
            NewMemory::plain(&user, &org, content, 1_764_455_111_007 + i)
        })
        .collect();
    store.insert_memories(&rows).await.unwrap();
    let token = bank.issue_token(&user).await.unwrap();
    store.close().await;
    (token, org)
}

fn db_status(url: &str, env: &[(&str, &str)]) -> String {
    let out = Command::new(BIN).args(["--database-url", url, "db", "status"]).envs(env.iter().copied()).output().unwrap();
    assert!(out.status.success(), "db status: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// "vectors made for K of N": K, or N when every memory has one.
fn vectors_made(status: &str, n: u64) -> u64 {
    let line = status.lines().find(|l| l.starts_with("meaning:")).unwrap_or_else(|| panic!("no meaning line: {status}"));
    if line.contains("every memory has its vector") {
        return n;
    }
    let after = line.split("vectors made for ").nth(1).unwrap_or_else(|| panic!("{line}"));
    after.split_whitespace().next().unwrap().parse().unwrap()
}

async fn search(url: &str, token: &str, org: &str, q: &str) -> Vec<(String, String)> {
    let response = reqwest::Client::new()
        .get(format!("{url}/v1/memory/search"))
        .query(&[("q", q), ("limit", "5")])
        .bearer_auth(token)
        .header("X-Org-Id", org)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["content"].as_str().unwrap().to_owned(), r["matched"].as_str().unwrap().to_owned()))
        .collect()
}

async fn get(url: &str, token: &str, org: &str, path: &str) -> (u16, Value) {
    let response =
        reqwest::Client::new().get(format!("{url}{path}")).bearer_auth(token).header("X-Org-Id", org).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backfill_survives_kill_9_and_finishes_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let url = format!("sqlite://{}", path.display());
    let n = 3000;
    let (token, org) = older_bank(&path, n as i64).await;
    let model = model_dir();
    let env = [("MEMORY_BANK_MODEL_DIR", model.as_str()), ("MEMORY_BANK_LOG", "warn")];
    assert_eq!(vectors_made(&db_status(&url, &env), n), 0);

    let mut serving = serve_process::start_with_args(BIN, &url, &["--listen", "127.0.0.1:0", "--rate-limit", "0"], &env).unwrap();
    // Search works during the backfill: by words at least.
    assert!(search(&serving.url, &token, &org, "peanuts").await.iter().any(|(c, _)| c == PEANUTS));
    let (status, body) = get(&serving.url, &token, &org, "/v1/memory/search/status").await;
    assert_eq!((status, &body["meaning"], &body["memories"]), (200, &Value::from("on"), &Value::from(n)), "{body}");
    assert!(body["withVector"].as_u64().unwrap() < n, "the panel sees the backfill under way: {body}");
    let deadline = Instant::now() + Duration::from_secs(120);
    let made = loop {
        let made = vectors_made(&db_status(&url, &env), n);
        if made > 0 {
            break made;
        }
        assert!(Instant::now() < deadline, "the backfill made no vector in 120 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    serving.child.kill().unwrap(); // SIGKILL: no chance to finish a batch or clean up
    serving.child.wait().unwrap();
    let kept = vectors_made(&db_status(&url, &env), n);
    assert!(kept >= made && kept < n, "killed half way: {kept} of {n} (seen {made} before the kill)");

    let serving = serve_process::start_with_args(BIN, &url, &["--listen", "127.0.0.1:0", "--rate-limit", "0"], &env).unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    while vectors_made(&db_status(&url, &env), n) < n {
        assert!(Instant::now() < deadline, "the backfill did not finish after the restart");
        std::thread::sleep(Duration::from_millis(250));
    }
    let status = db_status(&url, &env);
    assert!(status.contains(&format!("every memory has its vector ({n};")), "{status}");
    let found = search(&serving.url, &token, &org, QUESTION).await;
    assert_eq!(found.first(), Some(&(PEANUTS.to_owned(), "meaning".to_owned())), "{found:?}");
    let (_, body) = get(&serving.url, &token, &org, "/v1/memory/search/status").await;
    assert_eq!(body["withVector"], body["memories"], "{body}");
    // By words only on request: the same question finds nothing, a word does.
    let (status, body) = get(&serving.url, &token, &org, &format!("/v1/memory/search?q={}&wordsOnly=true", "Which%20food%20allergies%3F")).await;
    assert_eq!(status, 200);
    assert!(body["results"].as_array().unwrap().iter().all(|r| r["content"] != PEANUTS), "{body}");
    let (status, body) = get(&serving.url, &token, &org, "/v1/memory/search?q=peanuts&wordsOnly=maybe").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("wordsOnly must be true or false"), "{body}");
    drop(serving);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_model_search_is_by_words_and_db_status_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let url = format!("sqlite://{}", path.display());
    let (token, org) = older_bank(&path, 20).await;
    let empty = dir.path().join("no-model");
    std::fs::create_dir(&empty).unwrap();
    let home = dir.path().to_str().unwrap().to_owned();
    // No model anywhere this process looks: an empty folder given, an empty cache.
    let env = [
        ("MEMORY_BANK_MODEL_DIR", empty.to_str().unwrap()),
        ("MEMORY_BANK_MODEL_CACHE", empty.to_str().unwrap()),
        ("HOME", home.as_str()),
        ("MEMORY_BANK_LOG", "warn"),
    ];
    let status = db_status(&url, &env);
    assert!(status.contains("meaning: unavailable, so search is by words alone"), "{status}");
    assert!(status.contains("fetch-model.sh"), "says how to get it: {status}");

    let serving = serve_process::start_with_args(BIN, &url, &["--listen", "127.0.0.1:0"], &env).unwrap();
    let found = search(&serving.url, &token, &org, "peanuts allergy").await;
    assert_eq!(found, [(PEANUTS.to_owned(), "words".to_owned())]);
    assert!(search(&serving.url, &token, &org, QUESTION).await.iter().all(|(c, _)| c != PEANUTS), "no meaning without the model");
    // The backfill tried the model at start; the panel hears why, without a new try.
    let (status, body) = get(&serving.url, &token, &org, "/v1/memory/search/status").await;
    assert_eq!((status, &body["meaning"]), (200, &Value::from("unavailable")), "{body}");
    assert!(body["reason"].as_str().unwrap().contains("fetch-model.sh"), "{body}");
    drop(serving);

    // --words-only: the model is there but never used.
    let model = model_dir();
    let env = [("MEMORY_BANK_MODEL_DIR", model.as_str()), ("MEMORY_BANK_LOG", "warn")];
    let out = Command::new(BIN).args(["--words-only", "--database-url", &url, "db", "status"]).envs(env).output().unwrap();
    let status = String::from_utf8(out.stdout).unwrap();
    assert!(status.contains("meaning: off (search by words only)"), "{status}");
}
