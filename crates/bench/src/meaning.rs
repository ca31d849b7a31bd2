//! `--meaning`: what search by meaning costs, at one person's bank of each size, on
//! the engine chosen (SQLite plaintext, `--meaning-encrypted` SQLCipher, or MariaDB):
//! search p50/p95 by words and meaning against by words only, in the same run and
//! interleaved; a save with its embedding; the backfill's rate; the process's RSS with
//! the model and the person's vectors loaded.
//!
//! Embedding every memory of a 10⁵ bank would take minutes per run, and the timing
//! does not depend on which vector a memory has. So `DISTINCT` sentences of the corpus
//! are embedded with the real model, and memory `i` gets sentence `i mod DISTINCT`'s
//! vector moved by a little noise: the person's vectors cluster as real ones do, and
//! each search embeds its query with the model, scans every vector and fuses, as in use.

use std::time::Instant;

use anyhow::Context as _;
use memory_bank_contract::validate::{validate_save, ValidSearch};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_store::meaning::vector;
use memory_bank_store::{Bank, Meaning, NewMemory, VectorRow};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::corpus::{sentence, word, Zipf, VOCABULARY};
use crate::{ms, stats, Engine, Stats};

/// Sentences embedded for real per size.
const DISTINCT: usize = 2000;

/// Memories the backfill's rate is measured on.
const BACKFILL: usize = 2000;

/// One size on one engine: prints a table row.
pub async fn run(engine: &Engine, label: &str, size: usize, queries: usize) -> anyhow::Result<()> {
    let model = memory_bank_meaning::installed_model();
    model.check().await.map_err(|why| anyhow::anyhow!("the embedding model: {why}"))?;
    let fresh = engine.fresh(size, 1).await?;
    let store = fresh.store.clone();
    let words = Bank::new(store.clone());
    let user = words.add_user("meaning@bench.invalid").await?.id;
    let org = words.add_org("Bench").await?.id;
    words.add_member(&org, &user).await?;

    let zipf = Zipf::new(VOCABULARY);
    let mut rng = StdRng::seed_from_u64(29);
    let start = 1_764_455_111_007i64;
    let rows: Vec<NewMemory> =
        (0..size).map(|i| NewMemory::plain(&user, &org, sentence(&zipf, &mut rng), start + i as i64)).collect();
    for batch in rows.chunks(1000) {
        store.insert_memories(batch).await.context("bulk load")?;
    }
    let distinct = DISTINCT.min(size);
    let texts: Vec<String> = rows[..distinct].iter().map(|r| r.content.clone()).collect();
    let mut base = Vec::with_capacity(distinct);
    for chunk in texts.chunks(64) {
        base.extend(model.embed(chunk.to_vec()).await.map_err(|e| anyhow::anyhow!(e))?);
    }
    for (n, batch) in rows.chunks(1000).enumerate() {
        let vectors: Vec<VectorRow> = batch
            .iter()
            .enumerate()
            .map(|(j, row)| VectorRow {
                memory_id: row.id.clone(),
                user_id: user.clone(),
                search_text: row.search_text.clone(),
                vector: vector::encode(&nudged(&base[(n * 1000 + j) % distinct], &mut rng)),
            })
            .collect();
        store.put_vectors(model.model(), &vectors).await?;
    }
    let meaning = Bank::new(store.clone()).with_meaning(Meaning::new(model.clone()));

    // The first search reads the person's vectors and loads the model: timed apart.
    let first = Instant::now();
    meaning.search(&user, &search("kalo", false)).await?;
    let first_search = first.elapsed();

    let mut cells = Vec::new();
    for (low, high) in [(2000, VOCABULARY), (20, 2000), (0, 20)] {
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for _ in 0..queries {
            let q = format!("{} {}", word(rng.random_range(low..high)), word(rng.random_range(20..VOCABULARY)));
            let t = Instant::now();
            std::hint::black_box(meaning.search(&user, &search(&q, false)).await?);
            with.push(t.elapsed());
            let t = Instant::now();
            std::hint::black_box(meaning.search(&user, &search(&q, true)).await?);
            without.push(t.elapsed());
        }
        cells.push((stats(with), stats(without)));
    }
    let mut saves = Vec::new();
    for _ in 0..100 {
        let input = validate_save(SaveMemoryRequest { content: sentence(&zipf, &mut rng), ..Default::default() })
            .map_err(|refused| anyhow::anyhow!("the corpus made a sentence the gate refuses: {refused:?}"))?;
        let t = Instant::now();
        meaning.save(&user, &org, input).await?;
        saves.push(t.elapsed());
    }
    let saves = stats(saves);
    let rss = rss_mib();
    let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
    let (rare, mid, common) = (&cells[0], &cells[1], &cells[2]);
    println!(
        "| {label} | {size} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {rss} |",
        cell(&rare.0), cell(&rare.1), cell(&mid.0), cell(&mid.1), cell(&common.0), cell(&common.1), cell(&saves),
        first_search.as_secs_f64() * 1000.0,
    );
    fresh.remove(false);
    Ok(())
}

/// The backfill's rate on `BACKFILL` memories without vectors, in memories a second.
pub async fn backfill_rate(engine: &Engine) -> anyhow::Result<f64> {
    let fresh = engine.fresh(BACKFILL, 0).await?;
    let store = fresh.store.clone();
    let bank = Bank::new(store.clone());
    let user = bank.add_user("backfill@bench.invalid").await?.id;
    let zipf = Zipf::new(VOCABULARY);
    let mut rng = StdRng::seed_from_u64(31);
    let rows: Vec<NewMemory> =
        (0..BACKFILL).map(|i| NewMemory::plain(&user, "org_bench", sentence(&zipf, &mut rng), 1_764_455_111_007 + i as i64)).collect();
    store.insert_memories(&rows).await?;
    let bank = bank.with_meaning(Meaning::new(memory_bank_meaning::installed_model()));
    let t = Instant::now();
    let made = bank.backfill_vectors().await.map_err(|e| anyhow::anyhow!(e))?;
    let took = t.elapsed();
    anyhow::ensure!(made as usize == BACKFILL, "the backfill made {made} of {BACKFILL}");
    fresh.remove(false);
    Ok(BACKFILL as f64 / took.as_secs_f64().max(1e-9))
}

pub fn header() {
    println!(
        "| bank | memories | rare: words+meaning / words only (p50 / p95 ms) | | mid | | common | | save with its vector p50 / p95 ms | first search ms | RSS MiB |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
}

fn search(q: &str, words_only: bool) -> ValidSearch {
    ValidSearch { query: q.into(), limit: 20, words_only }
}

/// `v` moved by a little noise, unit length again.
fn nudged(v: &[f32], rng: &mut StdRng) -> Vec<f32> {
    let moved: Vec<f32> = v.iter().map(|x| x + rng.random_range(-0.02f32..0.02)).collect();
    let norm = moved.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    moved.into_iter().map(|x| x / norm).collect()
}

/// This process's resident memory, MiB.
fn rss_mib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(|l| l.split_whitespace().nth(1).unwrap_or("0").to_owned()))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or("?".into(), |kb| format!("{:.0}", kb / 1024.0))
}
