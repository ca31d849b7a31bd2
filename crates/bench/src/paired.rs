//! `--sqlcipher`: a plaintext and an encrypted SQLite bank measured side by side.
//!
//! Why paired: on a shared machine the load changes from minute to minute, so two rows
//! measured one after the other differ by more than encryption costs. Here both banks
//! get the same corpus, and every timed operation (the same user, term or sentence) runs
//! on both back to back, the order alternating, so both see the same noise and the
//! ratio is the cost of encryption. Both banks are opened the same way as the app and
//! `serve` open theirs (`SqliteStore::open_with_key`), only the key differs.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use memory_bank_contract::validate::{validate_save, ValidSearch};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_store::Bank;
use memory_bank_store_sqlite::{DbKey, SqliteStore};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::corpus::{sentence, word, Zipf, VOCABULARY};
use crate::{bulk_load, list_request, ms, remove_sqlite_files, stats, Stats};

/// One bank of the pair.
struct Side {
    name: &'static str,
    path: std::path::PathBuf,
    store: SqliteStore,
    bank: Bank,
}

/// Loads `size` memories for `users` users into a plaintext and an encrypted bank in
/// `dir` and prints a row for each and the ratio, measuring `queries` operations of each
/// kind (searches per term class, list pages, saves) on both.
pub(crate) async fn run(dir: &std::path::Path, size: usize, users: usize, queries: usize) -> anyhow::Result<()> {
    let key = DbKey::generate();
    let mut sides = Vec::new();
    let mut loads = Vec::new();
    for (name, key) in [("plaintext", None), ("encrypted", Some(&key))] {
        let path = dir.join(format!("paired-{name}-{size}.db"));
        remove_sqlite_files(&path);
        let store = SqliteStore::open_with_key(&format!("sqlite://{}", path.display()), key).await.context("open")?;
        let rate = bulk_load(&store, size, users, &mut StdRng::seed_from_u64(7)).await?;
        memory_bank_store_sqlite::checkpoint(&store).await?;
        let size_mb = ["", "-wal"].iter().filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok()).map(|m| m.len()).sum::<u64>() as f64 / 1e6;
        loads.push((rate, size_mb));
        sides.push(Side { name, path, bank: Bank::new(std::sync::Arc::new(store.clone())), store });
    }
    let user_ids: Vec<String> = (0..users).map(|i| format!("usr_bench{i:05}")).collect();
    let mut rng = StdRng::seed_from_u64(8);
    let zipf = Zipf::new(VOCABULARY);
    // samples[kind][side]: kinds are search rare, mid, common, list page, save.
    let mut samples: Vec<[Vec<Duration>; 2]> = (0..5).map(|_| [Vec::new(), Vec::new()]).collect();
    let mut save_time = [Duration::ZERO; 2];
    for (kind, (low, high)) in [(2000, VOCABULARY), (20, 2000), (0, 20)].into_iter().enumerate() {
        for i in 0..queries {
            let query = ValidSearch { query: word(rng.random_range(low..high)), limit: 20 };
            let user = &user_ids[rng.random_range(0..users)];
            for side in order(i) {
                let t = Instant::now();
                std::hint::black_box(sides[side].bank.search(user, &query).await?);
                samples[kind][side].push(t.elapsed());
            }
        }
    }
    let start_ms = memory_bank_contract::Timestamp::now().unix_ms() - size as i64 * 10;
    for i in 0..queries {
        let user = &user_ids[rng.random_range(0..users)];
        let request = list_request(i, start_ms, size, &mut rng);
        for side in order(i) {
            let t = Instant::now();
            std::hint::black_box(sides[side].bank.list(user, &request).await?);
            samples[3][side].push(t.elapsed());
        }
    }
    for i in 0..queries {
        let user = &user_ids[rng.random_range(0..users)];
        let content = sentence(&zipf, &mut rng);
        for side in order(i) {
            let input = validate_save(SaveMemoryRequest { content: content.clone(), ..Default::default() })
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            let t = Instant::now();
            sides[side].bank.save(user, "org_bench", input).await?;
            let took = t.elapsed();
            samples[4][side].push(took);
            save_time[side] += took;
        }
    }

    let stats: Vec<[Stats; 2]> = samples.into_iter().map(|[a, b]| [stats(a), stats(b)]).collect();
    let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
    for (side, s) in sides.iter().enumerate() {
        let (rate, size_mb) = loads[side];
        let saves_per_s = queries as f64 / save_time[side].as_secs_f64();
        let cells: Vec<String> = stats.iter().map(|pair| cell(&pair[side])).collect();
        println!("| {} | {size} | {users} | {rate:.0} | {size_mb:.1} | {} | {saves_per_s:.0} |", s.name, cells.join(" | "));
    }
    let ratio = |a: Duration, b: Duration| format!("{:.2}", b.as_secs_f64() / a.as_secs_f64().max(1e-9));
    let ratios: Vec<String> =
        stats.iter().map(|[a, b]| format!("{}× / {}×", ratio(a.p50, b.p50), ratio(a.p95, b.p95))).collect();
    let save_ratio = save_time[1].as_secs_f64() / save_time[0].as_secs_f64();
    println!(
        "| encrypted ÷ plaintext | | | {:.2}× | {:.2}× | {} | {:.2}× |",
        loads[1].0 / loads[0].0, loads[1].1 / loads[0].1, ratios.join(" | "), 1.0 / save_ratio
    );
    for side in sides {
        drop(side.bank);
        side.store.pool().close().await;
        remove_sqlite_files(&side.path);
    }
    Ok(())
}

/// Which bank goes first on the `i`th operation: they take turns.
fn order(i: usize) -> [usize; 2] {
    if i % 2 == 0 { [0, 1] } else { [1, 0] }
}
