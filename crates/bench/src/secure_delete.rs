//! `--secure-delete`: what deleting for good costs (issue 28, item 9; BENCHMARKS.md,
//! "Deleting for good"). Two plaintext banks get the same corpus: one as the product
//! opens it (`secure_delete` on, offboarding rewrites the full-text index and empties the
//! WAL), one with both off, as before ([`SqliteStore::disable_secure_delete_for_benchmark`]).
//! Each timed operation runs on both back to back, the order alternating (as in
//! `paired.rs`), so both meet the same load on a shared machine: single saves, single
//! deletes (a memory of a random user, found before the clock starts), and offboarding
//! whole users (`admin user delete`).

use std::time::{Duration, Instant};

use anyhow::Context as _;
use memory_bank_contract::validate::{parse_list, validate_save};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_contract::Timestamp;
use memory_bank_store::offboarding::OFFBOARD_BATCH;
use memory_bank_store::{Bank, MemoryStore as _, Offboard};
use memory_bank_store_sqlite::SqliteStore;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::corpus::{sentence, Zipf, VOCABULARY};
use crate::{bulk_load, ms, remove_sqlite_files, stats, Stats};

/// Users offboarded on each bank (the first ones; each owns about `size / users` memories).
const OFFBOARDS: usize = 10;

struct Side {
    name: &'static str,
    path: std::path::PathBuf,
    store: SqliteStore,
    bank: Bank,
}

pub(crate) async fn run(dir: &std::path::Path, size: usize, users: usize, queries: usize) -> anyhow::Result<()> {
    let user_ids: Vec<String> = (0..users).map(|i| format!("usr_bench{i:05}")).collect();
    let mut sides = Vec::new();
    let mut sizes = Vec::new();
    for (name, secure) in [("secure_delete on (this release)", true), ("secure_delete off (before)", false)] {
        let path = dir.join(format!("secure-delete-{secure}-{size}.db"));
        remove_sqlite_files(&path);
        let store = SqliteStore::open(&format!("sqlite://{}", path.display())).await.context("open")?;
        if !secure {
            store.disable_secure_delete_for_benchmark().await?;
        }
        for user in &user_ids[..OFFBOARDS.min(users)] {
            store.create_user(user, &format!("{user}@bench.example"), Timestamp::now()).await?;
        }
        bulk_load(&store, size, users, &mut StdRng::seed_from_u64(7)).await?;
        memory_bank_store_sqlite::checkpoint(&store).await?;
        sizes.push(std::fs::metadata(&path)?.len() as f64 / 1e6);
        sides.push(Side { name, path, bank: Bank::new(std::sync::Arc::new(store.clone())), store });
    }
    let mut rng = StdRng::seed_from_u64(9);
    let zipf = Zipf::new(VOCABULARY);
    // samples[kind][side]: save, delete, offboard.
    let mut samples: Vec<[Vec<Duration>; 2]> = (0..3).map(|_| [Vec::new(), Vec::new()]).collect();
    let mut save_time = [Duration::ZERO; 2];
    for i in 0..queries {
        let user = &user_ids[rng.random_range(0..users)];
        let content = sentence(&zipf, &mut rng);
        for side in order(i) {
            let input = validate_save(SaveMemoryRequest { content: content.clone(), ..Default::default() })
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            let t = Instant::now();
            sides[side].bank.save(user, "org_bench", input).await?;
            let took = t.elapsed();
            samples[0][side].push(took);
            save_time[side] += took;
        }
    }
    let first_page = parse_list(Some("1"), None).expect("a valid limit");
    for i in 0..queries {
        // Not an offboarded user: they must still have memories on both banks.
        let user = &user_ids[rng.random_range(OFFBOARDS.min(users - 1)..users)];
        for side in order(i) {
            let Some(memory) = sides[side].bank.list(user, &first_page).await?.memories.pop() else { continue };
            let t = Instant::now();
            anyhow::ensure!(sides[side].bank.delete(user, &memory.id).await?, "the memory was there");
            samples[1][side].push(t.elapsed());
        }
    }
    let mut offboarded = [0u64; 2];
    for (i, user) in user_ids[..OFFBOARDS.min(users)].iter().enumerate() {
        for side in order(i) {
            let t = Instant::now();
            offboarded[side] += sides[side].bank.offboard(Offboard::User(user), OFFBOARD_BATCH).await?.memories;
            samples[2][side].push(t.elapsed());
        }
    }

    let stats: Vec<[Stats; 2]> = samples.into_iter().map(|[a, b]| [stats(a), stats(b)]).collect();
    let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
    let per_user = offboarded[0] as f64 / OFFBOARDS.min(users) as f64;
    for (side, s) in sides.iter().enumerate() {
        let rate = queries as f64 / save_time[side].as_secs_f64();
        let cells: Vec<String> = stats.iter().map(|pair| cell(&pair[side])).collect();
        println!("| {} | {size} | {users} | {:.1} | {} | {rate:.0} | {} | {} ({per_user:.0} memories each) |", s.name, sizes[side], cells[0], cells[1], cells[2]);
    }
    let ratio = |on: Duration, off: Duration| format!("{:.2}", on.as_secs_f64() / off.as_secs_f64().max(1e-9));
    let ratios: Vec<String> = stats.iter().map(|[on, off]| format!("{}× / {}×", ratio(on.p50, off.p50), ratio(on.p95, off.p95))).collect();
    println!(
        "| on ÷ off | | | | {} | {:.2}× | {} | {} |",
        ratios[0],
        save_time[1].as_secs_f64() / save_time[0].as_secs_f64(),
        ratios[1],
        ratios[2]
    );
    for side in sides {
        drop(side.bank);
        side.store.close().await;
        remove_sqlite_files(&side.path);
    }
    Ok(())
}

/// Which bank goes first on the `i`th operation: they take turns.
fn order(i: usize) -> [usize; 2] {
    if i % 2 == 0 { [0, 1] } else { [1, 0] }
}
