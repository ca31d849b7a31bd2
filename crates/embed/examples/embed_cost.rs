//! What an embedding costs: model load time, memory after load, the latency of one short
//! sentence (a save, a query), and the throughput of batches (the backfill of a bank).
//!
//! ```text
//! scripts/fetch-model.sh
//! cargo run --release -p memory-bank-embed --example embed_cost [-- --precision f32|f16|bf16]
//! ```
//!
//! Also prints the reference similarities, to compare precisions.

use std::time::{Duration, Instant};

use memory_bank_embed::{cosine, Embedder, Precision};

const SENTENCE: &str = "I prefer tabs over spaces for indentation in every project I write"; // 12 words
const SINGLE_CALLS: usize = 200;
const BATCHES: usize = 10;

/// Memories of the lengths a bank holds (5 to 30 words), 32 to a batch.
const MEMORIES: [&str; 8] = [
    "The user prefers dark mode",
    "Deploys go out on Tuesdays after the standup, never on Fridays",
    "My daughter is allergic to peanuts and we keep an epinephrine pen in the kitchen drawer",
    "The staging database is rebuilt from the nightly snapshot at three in the morning",
    "Use British spelling in every document that goes to the client",
    "The spare key is under the blue flower pot by the back door",
    "When a build fails on CI, look at the cache step first: it is the usual cause, and clearing it fixes most",
    "Call me Sam",
];

fn main() {
    let precision = match std::env::args()
        .skip_while(|a| a != "--precision")
        .nth(1)
        .as_deref()
    {
        None | Some("f32") => Precision::F32,
        Some("f16") => Precision::F16,
        Some("bf16") => Precision::BF16,
        Some(other) => panic!("unknown precision {other:?}: f32, f16 or bf16"),
    };
    let dir = memory_bank_embed::default_model_dir().unwrap_or_else(|| {
        let searched = memory_bank_embed::model_dir_candidates();
        panic!("{}", memory_bank_embed::EmbedError::NotFound { searched })
    });
    let rss_before = rss_kib();
    let started = Instant::now();
    let embedder = Embedder::load_with(&dir, precision).unwrap_or_else(|e| panic!("{e}"));
    let load = started.elapsed();
    let rss_loaded = rss_kib();
    println!(
        "model: {} ({precision:?}), {} dimensions",
        dir.display(),
        embedder.dimensions()
    );
    println!(
        "threads: {} (RAYON_NUM_THREADS to change)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("load: {:.0} ms", ms(load));
    println!(
        "RSS: {} MiB before load, {} MiB after load",
        rss_before / 1024,
        rss_loaded / 1024
    );

    for (a, b) in memory_bank_embed::REFERENCE_PAIRS {
        let v = embedder.embed(&[a, b]).unwrap();
        println!("cos {:+.4}  {a:?} / {b:?}", cosine(&v[0], &v[1]));
    }

    for _ in 0..5 {
        embedder.embed(&[SENTENCE]).unwrap();
    }
    let mut times: Vec<Duration> = (0..SINGLE_CALLS)
        .map(|_| {
            let t = Instant::now();
            embedder.embed(&[SENTENCE]).unwrap();
            t.elapsed()
        })
        .collect();
    times.sort();
    let pct = |p: usize| ms(times[(times.len() * p / 100).min(times.len() - 1)]);
    println!(
        "one 12-word sentence, {SINGLE_CALLS} calls: p50 {:.2} ms, p95 {:.2} ms",
        pct(50),
        pct(95)
    );

    let batch: Vec<&str> = MEMORIES.iter().cycle().take(32).copied().collect();
    embedder.embed(&batch).unwrap();
    let t = Instant::now();
    for _ in 0..BATCHES {
        embedder.embed(&batch).unwrap();
    }
    let elapsed = t.elapsed();
    let count = (BATCHES * batch.len()) as f64;
    println!(
        "calls of 32 texts, {BATCHES} calls: {:.0} sentences/s ({:.1} ms a call)",
        count / elapsed.as_secs_f64(),
        ms(elapsed) / BATCHES as f64
    );
    // A backfill hands many texts to one call: they are regrouped by length.
    let backfill: Vec<&str> = MEMORIES
        .iter()
        .cycle()
        .take(BATCHES * 32)
        .copied()
        .collect();
    let t = Instant::now();
    embedder.embed(&backfill).unwrap();
    println!(
        "one call of {} texts: {:.0} sentences/s",
        backfill.len(),
        backfill.len() as f64 / t.elapsed().as_secs_f64()
    );
    println!(
        "RSS at the end: {} MiB (peak {} MiB)",
        rss_kib() / 1024,
        status_kib("VmHWM:") / 1024
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn rss_kib() -> u64 {
    status_kib("VmRSS:")
}

/// A `kB` line of /proc/self/status (0 where there is none).
fn status_kib(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
