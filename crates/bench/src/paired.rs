//! `--sqlcipher`: a plaintext and an encrypted SQLite bank measured side by side.
//!
//! Why paired: on a shared machine the load changes from minute to minute, so two rows
//! measured one after the other differ by more than encryption costs. Here both banks
//! get the same corpus, and every timed operation (the same user, term or sentence) runs
//! on both back to back, the order alternating, so both see the same noise and the
//! ratio is the cost of encryption. Each operation's CPU time (the whole process's, so
//! SQLite's worker threads included) is taken too: it is what encryption adds, and
//! unlike elapsed time it barely moves when other work takes the CPU. Both banks are opened the same way as the app and
//! `serve` open theirs (`SqliteStore::open_with_key`), only the key differs. Last, saves
//! arriving together (`IN_FLIGHT` at once) are timed per bank, the banks taking turns.

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

/// Saves in flight at once in the measurement of saves arriving together.
const IN_FLIGHT: usize = 8;
/// Saves each of those makes, one after another, in a round.
const SAVES_A_TASK: usize = 10;

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
    let mut cpu: Vec<[Vec<Duration>; 2]> = (0..5).map(|_| [Vec::new(), Vec::new()]).collect();
    let mut save_time = [Duration::ZERO; 2];
    // The term classes take turns, so each meets the page caches as full as the others do.
    for i in 0..queries {
        for (kind, (low, high)) in [(2000, VOCABULARY), (20, 2000), (0, 20)].into_iter().enumerate() {
            let query = ValidSearch { query: word(rng.random_range(low..high)), limit: 20, words_only: false };
            let user = &user_ids[rng.random_range(0..users)];
            for side in order(i) {
                let t = Timer::start();
                std::hint::black_box(sides[side].bank.search(user, &query).await?);
                t.stop(&mut samples[kind][side], &mut cpu[kind][side]);
            }
        }
    }
    let start_ms = memory_bank_contract::Timestamp::now().unix_ms() - size as i64 * 10;
    for i in 0..queries {
        let user = &user_ids[rng.random_range(0..users)];
        let request = list_request(i, start_ms, size, &mut rng);
        for side in order(i) {
            let t = Timer::start();
            std::hint::black_box(sides[side].bank.list(user, &request).await?);
            t.stop(&mut samples[3][side], &mut cpu[3][side]);
        }
    }
    for i in 0..queries {
        let user = &user_ids[rng.random_range(0..users)];
        let content = sentence(&zipf, &mut rng);
        for side in order(i) {
            let input = validate_save(SaveMemoryRequest { content: content.clone(), ..Default::default() })
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            let t = Timer::start();
            sides[side].bank.save(user, "org_bench", input).await?;
            save_time[side] += t.stop(&mut samples[4][side], &mut cpu[4][side]);
        }
    }

    // Saves arriving together, as several agents or people saving through one `serve`
    // make them: IN_FLIGHT tasks, each saving one after another, on one bank at a time
    // (the banks take turns, round by round). The store commits the saves that wait for
    // the writer together (group commit), so this is where that shows.
    let mut together = [(Duration::ZERO, Duration::ZERO); 2];
    let rounds = (queries / (IN_FLIGHT * SAVES_A_TASK)).max(1);
    for round in 0..rounds {
        let work: Vec<Vec<(String, String)>> = (0..IN_FLIGHT)
            .map(|_| (0..SAVES_A_TASK).map(|_| (user_ids[rng.random_range(0..users)].clone(), sentence(&zipf, &mut rng))).collect())
            .collect();
        for side in order(round) {
            let t = Timer::start();
            let tasks: Vec<_> = work
                .iter()
                .cloned()
                .map(|saves| {
                    let bank = sides[side].bank.clone();
                    tokio::spawn(async move {
                        for (user, content) in saves {
                            let input = validate_save(SaveMemoryRequest { content, ..Default::default() })
                                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
                            bank.save(&user, "org_bench", input).await?;
                        }
                        anyhow::Ok(())
                    })
                })
                .collect();
            for task in tasks {
                task.await??;
            }
            together[side].0 += t.wall.elapsed();
            together[side].1 += process_cpu_time().saturating_sub(t.cpu);
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
    let cpu: Vec<[Stats; 2]> = cpu.into_iter().map(|[a, b]| [crate::stats(a), crate::stats(b)]).collect();
    let cells: Vec<String> = cpu.iter().map(|[a, b]| format!("{}× / {}×", ratio(a.p50, b.p50), ratio(a.p95, b.p95))).collect();
    println!("| CPU time, encrypted ÷ plaintext | | | | | {} | |", cells.join(" | "));
    let concurrent = (rounds * IN_FLIGHT * SAVES_A_TASK) as f64;
    let rate = |side: usize| concurrent / together[side].0.as_secs_f64();
    println!(
        "\nSaves with {IN_FLIGHT} in flight ({concurrent} a bank): plaintext {:.0}/s, encrypted {:.0}/s, encrypted ÷ plaintext {:.2}× \
         (CPU time a save {:.2}×)",
        rate(0),
        rate(1),
        rate(1) / rate(0),
        together[1].1.as_secs_f64() / together[0].1.as_secs_f64()
    );
    for side in sides {
        drop(side.bank);
        side.store.close().await;
        remove_sqlite_files(&side.path);
    }
    Ok(())
}

/// Elapsed and CPU time of one operation.
struct Timer {
    wall: Instant,
    cpu: Duration,
}

impl Timer {
    fn start() -> Timer {
        Timer { wall: Instant::now(), cpu: process_cpu_time() }
    }

    /// Records both times; returns the elapsed one.
    fn stop(self, wall: &mut Vec<Duration>, cpu: &mut Vec<Duration>) -> Duration {
        let took = self.wall.elapsed();
        wall.push(took);
        cpu.push(process_cpu_time().saturating_sub(self.cpu));
        took
    }
}

/// CPU time used by every thread of this process so far.
fn process_cpu_time() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec to write to; CLOCK_PROCESS_CPUTIME_ID always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// Which bank goes first on the `i`th operation: they take turns.
fn order(i: usize) -> [usize; 2] {
    if i % 2 == 0 { [0, 1] } else { [1, 0] }
}
