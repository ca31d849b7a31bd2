//! `memory-bank-bench`: loads N memories for U users into a fresh store and reports
//! p50/p95 latency of search (rare, mid-frequency and very common terms), list pages
//! and single saves, plus bulk-load throughput and size on disk.
//!
//! Run: `cargo run --release -p memory-bank-bench -- --sizes 10000,100000,1000000`

mod corpus;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser;
use memory_bank_contract::ids::{self, MEMORY_PREFIX};
use memory_bank_contract::validate::{parse_list, validate_save, Cursor, ValidList, ValidSearch};
use memory_bank_contract::wire::{SaveMemoryRequest, Scope};
use memory_bank_contract::Timestamp;
use memory_bank_store::{terms, Bank, MemoryStore, NewMemory};
use memory_bank_store_sqlite::SqliteStore;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use corpus::{sentence, word, Zipf, VOCABULARY};

#[derive(Debug, Parser)]
struct Args {
    /// Memory counts to load, each into a fresh database.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
    sizes: Vec<usize>,
    /// Users the memories are spread over.
    #[arg(long, default_value_t = 1000)]
    users: usize,
    /// Timed queries per term class.
    #[arg(long, default_value_t = 300)]
    queries: usize,
    /// Also measure one user who owns every memory (the candidate cap at work).
    #[arg(long)]
    single_user: bool,
    /// Folder for the database files (default: a temporary folder).
    #[arg(long)]
    dir: Option<std::path::PathBuf>,
}

struct Stats {
    p50: Duration,
    p95: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    Stats { p50: at(0.50), p95: at(0.95) }
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let temp = std::env::temp_dir().join(format!("memory-bank-bench-{}", std::process::id()));
    let dir = args.dir.clone().unwrap_or(temp);
    std::fs::create_dir_all(&dir)?;
    println!("| rows | users | bulk load rows/s | db size MB | search rare p50/p95 ms | search mid p50/p95 ms | search common p50/p95 ms | list page p50/p95 ms | save p50/p95 ms | saves/s |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &size in &args.sizes {
        run(&args, &dir, size, args.users).await?;
        if args.single_user {
            run(&args, &dir, size, 1).await?;
        }
    }
    if args.dir.is_none() {
        std::fs::remove_dir_all(&dir).ok();
    }
    Ok(())
}

async fn run(args: &Args, dir: &std::path::Path, size: usize, users: usize) -> anyhow::Result<()> {
    let path = dir.join(format!("bench-{size}-{users}.db"));
    for suffix in ["", "-wal", "-shm"] {
        std::fs::remove_file(format!("{}{suffix}", path.display())).ok();
    }
    let store = Arc::new(SqliteStore::open(&format!("sqlite://{}", path.display())).await.context("open")?);
    let bank = Bank::new(store.clone());
    let user_ids: Vec<String> = (0..users).map(|i| format!("usr_bench{i:05}")).collect();
    let mut rng = StdRng::seed_from_u64(7);
    let zipf = Zipf::new(VOCABULARY);

    // Bulk load, oldest first, 5 000 rows per transaction.
    let start_ms = Timestamp::now().unix_ms() - size as i64 * 10;
    let loaded = Instant::now();
    let mut batch = Vec::with_capacity(5000);
    for i in 0..size {
        let user = &user_ids[rng.random_range(0..users)];
        let content = sentence(&zipf, &mut rng);
        let at = start_ms + i as i64 * 10;
        batch.push(NewMemory {
            id: ids::new_id_at(MEMORY_PREFIX, at),
            user_id: user.clone(),
            org_id: "org_bench".into(),
            scope: Scope::User,
            search_text: terms::index_text(user, [content.as_str()]),
            content,
            source: "chat".into(),
            tags: None,
            created_at: Timestamp::from_unix_ms(at),
            contexts: vec![],
        });
        if batch.len() == 5000 || i + 1 == size {
            store.insert_memories(&batch).await?;
            batch.clear();
        }
    }
    let load_rate = size as f64 / loaded.elapsed().as_secs_f64();
    sqlx_checkpoint(&store).await;
    let size_mb = ["", "-wal"].iter().filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok()).map(|m| m.len()).sum::<u64>() as f64 / 1e6;

    // Search: one term per query from each frequency class, random user.
    let mut cells = Vec::new();
    for (low, high) in [(2000, VOCABULARY), (20, 2000), (0, 20)] {
        let mut samples = Vec::with_capacity(args.queries);
        for _ in 0..args.queries {
            let query = ValidSearch { query: word(rng.random_range(low..high)), limit: 20 };
            let user = &user_ids[rng.random_range(0..users)];
            let t = Instant::now();
            let hits = bank.search(user, &query).await?;
            samples.push(t.elapsed());
            std::hint::black_box(hits);
        }
        cells.push(stats(samples));
    }

    if std::env::var_os("BENCH_PHASES").is_some() {
        let user = &user_ids[0];
        for class in [(0usize, 20usize), (20, 2000)] {
            let q = terms::scope_terms(user, &[word(class.0)]);
            let t = Instant::now();
            let c = store.search_candidates(user, &q, memory_bank_store::SEARCH_CANDIDATE_CAP).await?;
            let t1 = t.elapsed();
            let ranked = memory_bank_store::rank::rank(&[word(class.0)], &c, 20);
            let t2 = t.elapsed();
            let ids: Vec<String> = ranked.iter().map(|r| r.id.clone()).collect();
            store.memories_by_ids(user, &ids).await?;
            eprintln!("class {class:?}: {} candidates; fetch {:?}, rank {:?}, load {:?}", c.len(), t1, t2 - t1, t.elapsed() - t2);
        }
    }

    // List: first page, and a page from a cursor in the middle of the user's rows.
    let mut list_samples = Vec::new();
    for i in 0..args.queries {
        let user = &user_ids[rng.random_range(0..users)];
        let request = if i % 2 == 0 {
            parse_list(Some("20"), None).map_err(|e| anyhow::anyhow!("{e:?}"))?
        } else {
            let mid = start_ms + rng.random_range(0..size as i64) * 10;
            ValidList { limit: 20, cursor: Some(Cursor { created_at_ms: mid, id: ids::new_id_at(MEMORY_PREFIX, mid) }) }
        };
        let t = Instant::now();
        std::hint::black_box(bank.list(user, &request).await?);
        list_samples.push(t.elapsed());
    }

    // Single saves through the full path (validation, terms, one transaction each).
    let mut save_samples = Vec::new();
    let saves = Instant::now();
    for _ in 0..args.queries {
        let user = &user_ids[rng.random_range(0..users)];
        let input = validate_save(SaveMemoryRequest { content: sentence(&zipf, &mut rng), ..Default::default() })
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let t = Instant::now();
        bank.save(user, "org_bench", input).await?;
        save_samples.push(t.elapsed());
    }
    let save_rate = args.queries as f64 / saves.elapsed().as_secs_f64();

    let list = stats(list_samples);
    let save = stats(save_samples);
    let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
    println!(
        "| {size} | {users} | {load_rate:.0} | {size_mb:.1} | {} | {} | {} | {} | {} | {save_rate:.0} |",
        cell(&cells[0]), cell(&cells[1]), cell(&cells[2]), cell(&list), cell(&save)
    );
    drop(bank);
    drop(store);
    for suffix in ["", "-wal", "-shm"] {
        std::fs::remove_file(format!("{}{suffix}", path.display())).ok();
    }
    Ok(())
}

/// Folds the WAL into the main file so the reported size is the database's.
async fn sqlx_checkpoint(store: &SqliteStore) {
    let _ = store.ping().await;
    let _ = memory_bank_store_sqlite::checkpoint(store).await;
}