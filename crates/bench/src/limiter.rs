//! `--limiter-cost`: what the per-token rate limiter costs a search over HTTP. One
//! SQLite bank of `--limiter-memories` memories, served on loopback by the real
//! `memory_bank_server::serve`, once without the limiter and once with a limit no
//! request reaches (so only its bookkeeping is measured), in alternating rounds; 8
//! concurrent clients search for mid-frequency words for `--limiter-seconds` a round.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memory_bank_server::{RateLimit, RateLimiter, ServeOptions};
use memory_bank_store::{Bank, NewMemory};
use memory_bank_store_sqlite::SqliteStore;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::corpus::{sentence, word, Zipf, VOCABULARY};

const CLIENTS: usize = 8;
const ROUNDS: usize = 6;

pub async fn run(memories: usize, seconds: u64) -> anyhow::Result<()> {
    let dir = tempfile_dir()?;
    let store = SqliteStore::open(&format!("sqlite://{}", dir.join("limiter.db").display())).await?;
    let bank = Bank::new(Arc::new(store));
    let user = bank.add_user("bench@example.com").await?.id;
    let org = bank.add_org("Bench").await?.id;
    bank.add_member(&org, &user).await?;
    let token = bank.issue_token(&user).await?;
    let zipf = Zipf::new(VOCABULARY);
    let mut rng = StdRng::seed_from_u64(7);
    let start = memory_bank_contract::Timestamp::now().unix_ms() - memories as i64;
    let rows: Vec<NewMemory> =
        (0..memories).map(|i| NewMemory::plain(&user, &org, sentence(&zipf, &mut rng), start + i as i64)).collect();
    for chunk in rows.chunks(5_000) {
        bank.store().insert_memories(chunk).await?;
    }
    eprintln!("{memories} memories loaded; {ROUNDS} rounds of {seconds} s, {CLIENTS} clients");
    let never = RateLimit { per_second: NonZeroU32::new(1_000_000).unwrap(), burst: NonZeroU32::new(1_000_000).unwrap() };
    let mut results: Vec<(bool, f64, Vec<Duration>)> = Vec::new();
    for round in 0..ROUNDS {
        let limited = round % 2 == 1;
        let options = ServeOptions { rate_limit: limited.then(|| RateLimiter::new(never)), ..Default::default() };
        let (rps, latencies) = measure(bank.clone(), options, &token, &org, seconds).await?;
        eprintln!("round {round}: limiter {} {rps:.0} searches/s", if limited { "on " } else { "off" });
        results.push((limited, rps, latencies));
    }
    println!("| limiter | searches/s (median of {}) | p50 ms | p95 ms |", ROUNDS / 2);
    println!("|---|---|---|---|");
    let mut medians = Vec::new();
    for limited in [false, true] {
        let mut rates: Vec<f64> = results.iter().filter(|r| r.0 == limited).map(|r| r.1).collect();
        rates.sort_by(f64::total_cmp);
        let mut all: Vec<Duration> = results.iter().filter(|r| r.0 == limited).flat_map(|r| r.2.iter().copied()).collect();
        all.sort();
        let at = |q: f64| all[((all.len() as f64 * q) as usize).min(all.len() - 1)].as_secs_f64() * 1000.0;
        let median = rates[rates.len() / 2];
        medians.push(median);
        println!("| {} | {median:.0} | {:.2} | {:.2} |", if limited { "on (never reached)" } else { "off" }, at(0.5), at(0.95));
    }
    println!("\nthroughput with the limiter: {:.1} % of without", medians[1] / medians[0] * 100.0);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

async fn measure(bank: Bank, options: ServeOptions, token: &str, org: &str, seconds: u64) -> anyhow::Result<(f64, Vec<Duration>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(memory_bank_server::serve(listener, bank, options, async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::new();
    let done = Arc::new(AtomicBool::new(false));
    let mut clients = Vec::new();
    for c in 0..CLIENTS {
        let (http, url, token, org, done) = (http.clone(), url.clone(), token.to_owned(), org.to_owned(), done.clone());
        clients.push(tokio::spawn(async move {
            let mut rng = StdRng::seed_from_u64(c as u64);
            let mut latencies = Vec::new();
            while !done.load(Ordering::Relaxed) {
                let q = word(rng.random_range(200..2_000));
                let started = Instant::now();
                let response = http
                    .get(format!("{url}/v1/memory/search"))
                    .query(&[("q", q.as_str()), ("limit", "10")])
                    .bearer_auth(&token)
                    .header("X-Org-Id", &org)
                    .send()
                    .await?;
                anyhow::ensure!(response.status().is_success(), "search answered {}", response.status());
                response.bytes().await?;
                latencies.push(started.elapsed());
            }
            Ok::<_, anyhow::Error>(latencies)
        }));
    }
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    done.store(true, Ordering::Relaxed);
    let mut latencies = Vec::new();
    for client in clients {
        latencies.extend(client.await??);
    }
    let _ = stop.send(());
    let _ = server.await;
    Ok((latencies.len() as f64 / seconds as f64, latencies))
}

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("memory-bank-limiter-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
