//! `--load-local-bank DIR`: fills a local bank (`DIR/memory.db`, the file `memory-bank mcp`
//! opens with `MEMORY_BANK_DATA_DIR=DIR`) with the bench corpus, for the MCP benchmark
//! (`bench/mcp/`). The memories belong to the local user that `LocalAccess::open`
//! provisions, so the server's `search_memories` finds them.
//!
//! The rows and the query terms are drawn exactly as the SQLite bench's `--users 1` run
//! draws them (seed 7, the same order of draws), so at `--memories 100000` the bank holds
//! the data of that run's one-user row at 10⁵ and the queries are the same terms.
//! `--corpus-out` writes the sentences (JSON lines, in load order) so a peer can be given
//! the same text, and `--queries-out` the terms per class.

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use memory_bank_access::LocalAccess;
use memory_bank_contract::Timestamp;
use memory_bank_store::{MemoryStore, NewMemory};
use memory_bank_store_sqlite::SqliteStore;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::corpus::{sentence, word, Zipf, VOCABULARY};

/// What `--load-local-bank` writes, besides the bank.
pub struct LoadOptions<'a> {
    pub memories: usize,
    pub queries: usize,
    pub corpus_out: Option<&'a Path>,
    pub queries_out: Option<&'a Path>,
}

pub async fn load(dir: &Path, options: &LoadOptions<'_>) -> anyhow::Result<()> {
    let path = dir.join("memory.db");
    // Never add bench rows to a bank someone uses.
    anyhow::ensure!(!path.exists(), "{} exists: --load-local-bank fills a new bank only (delete it first)", path.display());
    let access = LocalAccess::open(dir, &memory_bank_db_key::KeySource::None).await.map_err(|e| anyhow::anyhow!(e.message)).context("open the local bank")?;
    let user_id = access.user_id().to_owned();
    let org_id = access.bank().user_orgs(&user_id).await?.into_iter().next().context("the local user has no org")?.id;
    drop(access);
    let store = SqliteStore::open(&format!("sqlite://{}", path.display())).await.context("open the bank file")?;

    let mut corpus = match options.corpus_out {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p).with_context(|| format!("create {}", p.display()))?)),
        None => None,
    };
    // As `run` in main.rs with one user: a user draw, then the sentence, per row.
    let mut rng = StdRng::seed_from_u64(7);
    let zipf = Zipf::new(VOCABULARY);
    let size = options.memories;
    let start_ms = Timestamp::now().unix_ms() - size as i64 * 10;
    let loaded = Instant::now();
    let mut batch = Vec::with_capacity(5000);
    for i in 0..size {
        let _user = rng.random_range(0..1usize);
        let content = sentence(&zipf, &mut rng);
        if let Some(out) = corpus.as_mut() {
            serde_json::to_writer(&mut *out, &content)?;
            out.write_all(b"\n")?;
        }
        batch.push(NewMemory::plain(&user_id, &org_id, content, start_ms + i as i64 * 10));
        if batch.len() == 5000 || i + 1 == size {
            store.insert_memories(&batch).await?;
            batch.clear();
        }
    }
    let rate = size as f64 / loaded.elapsed().as_secs_f64();
    if let Some(mut out) = corpus {
        out.flush()?;
    }
    memory_bank_store_sqlite::checkpoint(&store).await?;
    store.close().await;
    let mb = std::fs::metadata(&path)?.len() as f64 / 1e6;
    eprintln!("loaded {size} memories for {user_id} into {} ({rate:.0} rows/s, {mb:.1} MB)", path.display());

    // The search cells' draws (term, then user) with the same generator, continued.
    if let Some(p) = options.queries_out {
        let mut classes = serde_json::Map::new();
        for (name, (low, high)) in [("rare", (2000, VOCABULARY)), ("mid", (20, 2000)), ("common", (0, 20))] {
            let terms: Vec<String> = (0..options.queries)
                .map(|_| {
                    let term = word(rng.random_range(low..high));
                    let _user = rng.random_range(0..1usize);
                    term
                })
                .collect();
            classes.insert(name.into(), terms.into());
        }
        std::fs::write(p, serde_json::to_string_pretty(&classes)?).with_context(|| format!("write {}", p.display()))?;
    }
    Ok(())
}
