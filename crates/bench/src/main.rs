//! `memory-bank-bench`: loads N memories for U users into a fresh store and reports
//! p50/p95 latency of search (rare, mid-frequency and very common terms), list pages
//! and single saves, plus bulk-load throughput and size on disk.
//!
//! Run: `cargo run --release -p memory-bank-bench -- --sizes 10000,100000,1000000`
//!
//! The store is chosen by `--database-url`: `sqlite` (default; a fresh file per size)
//! or `mysql://user:password@host:3306/any`, whose server gets a fresh database per
//! size (created and dropped again; the path's database is not touched). `--mariadb`
//! starts a throwaway MariaDB instead. Every engine runs the same code through
//! `Arc<dyn MemoryStore>`; only opening and measuring the size on disk differ.
//!
//! `--load-local-bank DIR --memories N` measures nothing: it fills a new local bank for
//! the MCP benchmark in `bench/mcp/` (see `local_bank.rs`). `--door-phases DIR
//! --queries-in FILE` times a search on such a bank at the store, over two banks and at
//! the door `memory-bank mcp` calls (see `door.rs`).

mod corpus;
mod door;
mod limiter;
mod local_bank;
mod meaning;
mod paired;
mod recall_rule;
mod secure_delete;
mod teams;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser;
use memory_bank_contract::ids::{self, MEMORY_PREFIX};
use memory_bank_contract::validate::{parse_list, validate_save, Cursor, ValidList, ValidSearch};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_contract::Timestamp;
use memory_bank_store::{terms, Bank, MemoryStore, NewMemory};
use memory_bank_store_mysql::testing::{MariaDb, TestDatabase};
use memory_bank_store_mysql::MySqlStore;
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
    /// Folder for the database files (default: a temporary folder). SQLite only.
    #[arg(long)]
    dir: Option<std::path::PathBuf>,
    /// SQLite: load every size twice, plaintext and encrypted (SQLCipher, a random key),
    /// and time each operation on both back to back (see `paired.rs`): a row each and
    /// their ratio.
    #[arg(long)]
    sqlcipher: bool,
    /// SQLite: load every size twice, with SQLite's `secure_delete` (and the wipe after
    /// offboarding) as this release runs it and without, and time saves, deletes and
    /// offboarding a user on both back to back (see `secure_delete.rs`).
    #[arg(long, conflicts_with = "sqlcipher")]
    secure_delete: bool,
    /// `sqlite` (default), or `mysql://user:password@host:3306/db`: each size then runs
    /// in a fresh database created on that server (needs CREATE/DROP DATABASE) and
    /// dropped afterwards.
    #[arg(long)]
    database_url: Option<String>,
    /// Without `--database-url`: start a throwaway MariaDB (own data folder, loopback
    /// port, stopped at exit) and measure that.
    #[arg(long)]
    mariadb: bool,
    /// InnoDB buffer pool of the `--mariadb` server.
    #[arg(long, default_value = "1G")]
    mariadb_buffer_pool: String,
    /// Another option for the `--mariadb` server, e.g. `--mariadb-option=--innodb-ft-cache-size=80M`
    /// (repeatable).
    #[arg(long, value_name = "OPTION", allow_hyphen_values = true)]
    mariadb_option: Vec<String>,
    /// Saves count the person's memories first, as `serve --max-memories-per-user N`
    /// does (its default: 10 000). The cap itself is never reached here: only the count
    /// is timed. Default: no cap, no count.
    #[arg(long)]
    count_for_quota: bool,
    /// SQLite: before timing, merge the bulk load's search index as the store's
    /// background merging would given time (the searches right after the load go to
    /// stderr, as MySQL's before its write-back). Default: time while it merges.
    #[arg(long)]
    merged: bool,
    /// Keep each size's database (file, or MySQL database) for inspection, e.g. EXPLAIN;
    /// its name or path is printed to stderr.
    #[arg(long)]
    keep: bool,
    /// Measure only searches (and `BENCH_PHASES`) on a database an earlier `--keep`
    /// run loaded, given as its full URL (`mysql://…/mbtest_…`): no load, nothing
    /// changed. Lets a change to the search path be compared on the same data.
    #[arg(long, value_name = "URL", conflicts_with_all = ["database_url", "mariadb", "keep"])]
    search_kept: Option<String>,
    /// After the measurements, run `db optimize` (the full-text index rewritten
    /// compactly) and measure the searches again, in a second row.
    #[arg(long)]
    optimize: bool,
    /// Rounds of searches with `--search-kept` (each prints its own line).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Only fill a new local bank, `DIR/memory.db` (what `memory-bank mcp` opens with
    /// `MEMORY_BANK_DATA_DIR=DIR`), with `--memories` of the corpus for its local user,
    /// drawn as a `--users 1` run draws them; measures nothing.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["database_url", "mariadb", "keep", "search_kept"])]
    load_local_bank: Option<std::path::PathBuf>,
    /// Measure search by meaning (see `meaning.rs`) at each of `--sizes`, one person's
    /// bank each, on the engine chosen, and the backfill's rate; nothing else.
    #[arg(long)]
    meaning: bool,
    /// With `--meaning` on SQLite: the bank encrypted (SQLCipher, a random key).
    #[arg(long, requires = "meaning")]
    meaning_encrypted: bool,
    /// Only score the recall hook's rule on LoCoMo (this file: `bench/recall/fetch.sh`
    /// puts it in the bench cache) over a grid of its thresholds; see `recall_rule.rs`.
    #[arg(long, value_name = "LOCOMO_JSON")]
    recall_rule: Option<std::path::PathBuf>,
    /// Measure what `serve --rate-limit` costs a search over HTTP (BENCHMARKS.md), nothing else.
    #[arg(long)]
    limiter_cost: bool,
    /// Memories in the bank `--limiter-cost` searches.
    #[arg(long, default_value_t = 10_000)]
    limiter_memories: usize,
    /// Seconds per `--limiter-cost` round.
    #[arg(long, default_value_t = 5)]
    limiter_seconds: u64,
    /// Measure search over a member's own bank and their org's team bank together
    /// against their own alone (issue 32; see `teams.rs`), on the engine chosen; nothing else.
    /// With `--search-kept URL`: only the searches, on a team database a `--teams --keep`
    /// run loaded.
    #[arg(long, conflicts_with_all = ["load_local_bank", "meaning", "sqlcipher", "secure_delete"])]
    teams: bool,
    /// Members of the `--teams` org.
    #[arg(long, default_value_t = 1000, requires = "teams")]
    members: usize,
    /// Memories in the `--teams` org's team bank.
    #[arg(long, default_value_t = 100_000, requires = "teams")]
    team_memories: usize,
    /// Personal memories per `--teams` member, on average.
    #[arg(long, default_value_t = 100, requires = "teams")]
    personal_memories: usize,
    /// Only time a search at the store, over two banks and at the doors (see `door.rs`)
    /// on a local bank `--load-local-bank` filled (open a copy), with `--queries-in`'s terms.
    #[arg(long, value_name = "DIR", requires = "queries_in", conflicts_with_all = ["database_url", "mariadb", "load_local_bank"])]
    door_phases: Option<std::path::PathBuf>,
    /// The terms per class `--queries-out` wrote, for `--door-phases`.
    #[arg(long, value_name = "FILE")]
    queries_in: Option<std::path::PathBuf>,
    /// Memories for `--load-local-bank`.
    #[arg(long, default_value_t = 100_000, requires = "load_local_bank")]
    memories: usize,
    /// With `--load-local-bank`: also write the sentences, one JSON string a line, in load order.
    #[arg(long, value_name = "FILE", requires = "load_local_bank")]
    corpus_out: Option<std::path::PathBuf>,
    /// With `--load-local-bank`: also write `--queries` terms per class (rare, mid, common)
    /// as JSON, the terms a `--users 1` run searches for.
    #[arg(long, value_name = "FILE", requires = "load_local_bank")]
    queries_out: Option<std::path::PathBuf>,
}

/// Where each size's fresh store comes from.
enum Engine {
    /// A new SQLite file per size in this folder, encrypted with the key when there is one.
    Sqlite(std::path::PathBuf, Option<memory_bank_store_sqlite::DbKey>),
    /// A new database per size on this server (URL without a database).
    MySql {
        server_url: String,
        /// The throwaway server, when `--mariadb` started one; stopped on drop.
        _server: Option<MariaDb>,
    },
}

/// One size's store, and what is needed to measure and remove it.
struct Fresh {
    store: Arc<dyn MemoryStore>,
    backing: Backing,
}

enum Backing {
    Sqlite { path: std::path::PathBuf, store: SqliteStore },
    /// The database is dropped when `db` is.
    MySql { store: MySqlStore, db: TestDatabase },
}

impl Engine {
    async fn fresh(&self, size: usize, users: usize) -> anyhow::Result<Fresh> {
        let fresh = self.fresh_store(size, users).await?;
        // What the app runs at start: on an empty store it only marks the terms current,
        // which lets a search read only the covering terms (`terms::covering_terms`).
        Bank::new(fresh.store.clone()).rewrite_search_terms().await.context("mark the search terms current")?;
        Ok(fresh)
    }

    async fn fresh_store(&self, size: usize, users: usize) -> anyhow::Result<Fresh> {
        match self {
            Engine::Sqlite(dir, key) => {
                let path = dir.join(format!("bench-{size}-{users}.db"));
                remove_sqlite_files(&path);
                let store = SqliteStore::open_with_key(&format!("sqlite://{}", path.display()), key.as_ref()).await.context("open")?;
                Ok(Fresh { store: Arc::new(store.clone()), backing: Backing::Sqlite { path, store } })
            }
            Engine::MySql { server_url, .. } => {
                let db = TestDatabase::create_on(server_url).await;
                let store = MySqlStore::open(db.url()).await.with_context(|| format!("open {}", db.name()))?;
                // The same path as `memory-bank db bootstrap`: migrations, then the index.
                store.migrate().await.context("bootstrap the schema")?;
                Ok(Fresh { store: Arc::new(store.clone()), backing: Backing::MySql { store, db } })
            }
        }
    }
}

impl Fresh {
    /// Size on disk in MB: the SQLite file after a WAL checkpoint, or the InnoDB
    /// tablespace files of the database (tables with their indexes, the search index's
    /// table among them).
    async fn size_mb(&self) -> anyhow::Result<f64> {
        match &self.backing {
            Backing::Sqlite { path, store } => {
                // Folds the WAL into the main file so the reported size is the database's.
                let _ = store.ping().await;
                let _ = memory_bank_store_sqlite::checkpoint(store).await;
                let bytes: u64 = ["", "-wal"]
                    .iter()
                    .filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok())
                    .map(|m| m.len())
                    .sum();
                Ok(bytes as f64 / 1e6)
            }
            Backing::MySql { store, .. } => {
                let files = mysql_tablespaces(store).await?;
                let (index, tables): (Vec<_>, Vec<_>) = files.iter().partition(|(name, _)| name.ends_with("/memory_term"));
                let mb = |v: &[&(String, i64)]| v.iter().map(|(_, b)| *b as f64).sum::<f64>() / 1e6;
                eprintln!("  tablespaces: the search index (memory_term) {:.1} MB, the other tables and their indexes {:.1} MB",
                    mb(&index), mb(&tables));
                Ok(files.iter().map(|(_, b)| *b as f64).sum::<f64>() / 1e6)
            }
        }
    }

    /// MySQL: waits until InnoDB has written the bulk load's dirty pages back (under 1 %
    /// of the buffer pool, at most 5 minutes), the equivalent of SQLite's checkpoint, and
    /// returns how long that took. `innodb_max_dirty_pages_pct` is set to 0 meanwhile so
    /// the page cleaner flushes at full speed, and restored after. `None` when the server
    /// does not let this user set it. SQLite with `merged`: merges the search index and
    /// returns how long that took; without, `None`.
    async fn settle(&self, merged: bool) -> anyhow::Result<Option<Duration>> {
        let store = match &self.backing {
            Backing::Sqlite { store, .. } if merged => {
                let started = Instant::now();
                let steps = store.compact_search_index().await?;
                eprintln!("  SQLite merged the load's search index: {steps} steps, {:.1} s", started.elapsed().as_secs_f64());
                return Ok(Some(started.elapsed()));
            }
            Backing::Sqlite { .. } => return Ok(None),
            Backing::MySql { store, .. } => store,
        };
        let pool = store.pool();
        let previous: f64 = sqlx::query_scalar("SELECT CAST(@@GLOBAL.innodb_max_dirty_pages_pct AS DOUBLE)").fetch_one(pool).await?;
        if let Err(e) = sqlx::query("SET GLOBAL innodb_max_dirty_pages_pct = 0").execute(pool).await {
            eprintln!("  not waiting for InnoDB to write back the load: {e}");
            return Ok(None);
        }
        let started = Instant::now();
        let dirty_share = async || -> anyhow::Result<f64> {
            let (dirty, total): (i64, i64) = sqlx::query_as(
                "SELECT CAST(SUM(IF(VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_DIRTY', VARIABLE_VALUE, 0)) AS SIGNED),
                        CAST(SUM(IF(VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_TOTAL', VARIABLE_VALUE, 0)) AS SIGNED)
                 FROM information_schema.GLOBAL_STATUS
                 WHERE VARIABLE_NAME IN ('INNODB_BUFFER_POOL_PAGES_DIRTY', 'INNODB_BUFFER_POOL_PAGES_TOTAL')",
            )
            .fetch_one(pool)
            .await?;
            Ok(dirty as f64 / total.max(1) as f64)
        };
        let outcome = async {
            while dirty_share().await? > 0.01 && started.elapsed() < Duration::from_secs(300) {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            anyhow::Ok(())
        }
        .await;
        sqlx::query("SET GLOBAL innodb_max_dirty_pages_pct = ?").bind(previous).execute(pool).await?;
        outcome?;
        Ok(Some(started.elapsed()))
    }

    fn remove(self, keep: bool) {
        if keep {
            match self.backing {
                Backing::Sqlite { path, .. } => eprintln!("  kept {}", path.display()),
                Backing::MySql { db, .. } => {
                    eprintln!("  kept database {}", db.url());
                    // Not dropped, so not removed.
                    std::mem::forget(db);
                }
            }
            return;
        }
        match self.backing {
            Backing::Sqlite { path, store } => {
                drop(store);
                drop(self.store);
                remove_sqlite_files(&path);
            }
            // Dropping the database value drops the database.
            Backing::MySql { .. } => {}
        }
    }
}

fn remove_sqlite_files(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        std::fs::remove_file(format!("{}{suffix}", path.display())).ok();
    }
}

/// The InnoDB tablespace files of the store's database with their sizes in bytes.
/// With file-per-table (the default) each table, and each auxiliary table of a
/// FULLTEXT index, is one `.ibd` file named `<database>/<table>`.
async fn mysql_tablespaces(store: &MySqlStore) -> anyhow::Result<Vec<(String, i64)>> {
    // MariaDB names the view INNODB_SYS_TABLESPACES, MySQL 8 INNODB_TABLESPACES.
    let mariadb = sqlx::query_as(
        "SELECT CAST(NAME AS CHAR), CAST(FILE_SIZE AS SIGNED) FROM information_schema.INNODB_SYS_TABLESPACES
         WHERE LEFT(NAME, CHAR_LENGTH(DATABASE()) + 1) = CONCAT(DATABASE(), '/')",
    )
    .fetch_all(store.pool())
    .await;
    match mariadb {
        Ok(files) => Ok(files),
        Err(_) => Ok(sqlx::query_as(
            "SELECT CAST(NAME AS CHAR), CAST(FILE_SIZE AS SIGNED) FROM information_schema.INNODB_TABLESPACES
             WHERE LEFT(NAME, CHAR_LENGTH(DATABASE()) + 1) = CONCAT(DATABASE(), '/')",
        )
        .fetch_all(store.pool())
        .await
        .context("read the tablespace sizes")?),
    }
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

/// Loads `size` memories of the corpus for `users` users (`usr_bench00000`…), oldest
/// first, 5 000 rows per transaction, as `bulk_load` is timed in every row; returns rows/s.
async fn bulk_load(store: &dyn MemoryStore, size: usize, users: usize, rng: &mut StdRng) -> anyhow::Result<f64> {
    let zipf = Zipf::new(VOCABULARY);
    let start_ms = Timestamp::now().unix_ms() - size as i64 * 10;
    let loaded = Instant::now();
    let mut batch = Vec::with_capacity(5000);
    for i in 0..size {
        let user = format!("usr_bench{:05}", rng.random_range(0..users));
        let content = sentence(&zipf, rng);
        let at = start_ms + i as i64 * 10;
        batch.push(NewMemory::plain(&user, "org_bench", content, at));
        if batch.len() == 5000 || i + 1 == size {
            store.insert_memories(&batch).await?;
            batch.clear();
        }
    }
    Ok(size as f64 / loaded.elapsed().as_secs_f64())
}

/// The `i`th list request: the first page on even `i`, else a page from a cursor
/// somewhere among the loaded rows.
fn list_request(i: usize, start_ms: i64, size: usize, rng: &mut StdRng) -> ValidList {
    if i % 2 == 0 {
        parse_list(Some("20"), None).expect("a valid limit")
    } else {
        let mid = start_ms + rng.random_range(0..size as i64) * 10;
        ValidList { limit: 20, cursor: Some(Cursor { created_at_ms: mid, id: ids::new_id_at(MEMORY_PREFIX, mid) }) }
    }
}

/// p50/p95 of `queries` searches per term class (rare, mid, very common), one term
/// per query, a random user each time.
async fn search_cells(bank: &Bank, user_ids: &[String], queries: usize, rng: &mut StdRng) -> anyhow::Result<Vec<Stats>> {
    let mut cells = Vec::new();
    for (low, high) in [(2000, VOCABULARY), (20, 2000), (0, 20)] {
        let mut samples = Vec::with_capacity(queries);
        for _ in 0..queries {
            let query = ValidSearch { query: word(rng.random_range(low..high)), limit: 20, words_only: false };
            let user = &user_ids[rng.random_range(0..user_ids.len())];
            let t = Instant::now();
            let hits = bank.search(user, &query).await?;
            samples.push(t.elapsed());
            std::hint::black_box(hits);
        }
        cells.push(stats(samples));
    }
    Ok(cells)
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

fn main() -> anyhow::Result<()> {
    // Before the runtime's threads, as `memory-bank` does: the model's thread count.
    memory_bank_meaning::prepare_process();
    tokio::runtime::Runtime::new()?.block_on(run_main())
}

async fn run_main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let Some(path) = &args.recall_rule {
        return recall_rule::run(path).await;
    }
    if args.limiter_cost {
        return limiter::run(args.limiter_memories, args.limiter_seconds).await;
    }
    if let (Some(url), true) = (&args.search_kept, args.teams) {
        return teams::search_kept(url, &teams_options(&args), args.rounds).await;
    }
    if let Some(url) = &args.search_kept {
        return search_kept(&args, url).await;
    }
    if let (Some(dir), Some(queries)) = (&args.door_phases, &args.queries_in) {
        return door::run(dir, queries, args.queries).await;
    }
    if let Some(dir) = &args.load_local_bank {
        let options = local_bank::LoadOptions {
            memories: args.memories,
            queries: args.queries,
            corpus_out: args.corpus_out.as_deref(),
            queries_out: args.queries_out.as_deref(),
        };
        return local_bank::load(dir, &options).await;
    }
    let temp = std::env::temp_dir().join(format!("memory-bank-bench-{}", std::process::id()));
    let dir = args.dir.clone().unwrap_or(temp);
    let url = args.database_url.as_deref().map(str::trim).unwrap_or("sqlite");
    let engine = if url.starts_with("mysql:") || url.starts_with("mariadb:") {
        anyhow::ensure!(!args.mariadb, "--mariadb starts its own server; leave out --database-url");
        // The harness's database helpers speak sqlx's scheme only.
        let server_url = match url.strip_prefix("mariadb:") {
            Some(rest) => format!("mysql:{rest}"),
            None => url.to_owned(),
        };
        Engine::MySql { server_url, _server: None }
    } else if args.mariadb {
        anyhow::ensure!(args.database_url.is_none(), "--mariadb starts its own server; leave out --database-url");
        // A production-sized buffer pool and the server's default redo log (96 MB);
        // full-text settings stay at their defaults (minimum token size 3, stopwords).
        let mut options = vec![
            format!("--innodb-buffer-pool-size={}", args.mariadb_buffer_pool),
            "--innodb-log-file-size=96M".to_owned(),
        ];
        options.extend(args.mariadb_option.iter().cloned());
        let server = MariaDb::start_with(&options).map_err(|e| anyhow::anyhow!(e))?;
        eprintln!("throwaway MariaDB on port {} ({})", server.port(), options.join(" "));
        Engine::MySql { server_url: server.server_url(), _server: Some(server) }
    } else if url == "sqlite" {
        std::fs::create_dir_all(&dir)?;
        Engine::Sqlite(dir.clone(), None)
    } else {
        anyhow::bail!("--database-url must be `sqlite` or mysql://user:password@host:3306/db, not {url:?}");
    };
    if args.meaning {
        let (engine, label) = match engine {
            Engine::Sqlite(dir, None) if args.meaning_encrypted => {
                (Engine::Sqlite(dir, Some(memory_bank_store_sqlite::DbKey::generate())), "SQLite, encrypted")
            }
            Engine::Sqlite(dir, key) => (Engine::Sqlite(dir, key), "SQLite"),
            other => (other, "MariaDB"),
        };
        meaning::header();
        for &size in &args.sizes {
            meaning::run(&engine, label, size, args.queries).await?;
        }
        println!("\nbackfill: {:.0} memories/s ({label})", meaning::backfill_rate(&engine).await?);
        return Ok(());
    }
    if args.teams {
        teams::run(&engine, &teams_options(&args)).await?;
        if matches!(engine, Engine::Sqlite(..)) && args.dir.is_none() {
            std::fs::remove_dir_all(&dir).ok();
        }
        return Ok(());
    }
    let columns = "rows | users | bulk load rows/s | db size MB | search rare p50/p95 ms | search mid p50/p95 ms | search common p50/p95 ms | list page p50/p95 ms | save p50/p95 ms | saves/s |";
    if args.secure_delete {
        println!("| bank | rows | users | db size MB | save p50/p95 ms | saves/s | delete p50/p95 ms | offboard a user p50/p95 ms |\n|---|---|---|---|---|---|---|---|");
    } else if args.sqlcipher {
        println!("| bank | {columns}\n|---|---|---|---|---|---|---|---|---|---|---|");
    } else {
        println!("| {columns}\n|---|---|---|---|---|---|---|---|---|---|");
    }
    for &size in &args.sizes {
        if let (true, Engine::Sqlite(dir, None)) = (args.secure_delete, &engine) {
            secure_delete::run(dir, size, args.users, args.queries).await?;
            continue;
        }
        if let (true, Engine::Sqlite(dir, None)) = (args.sqlcipher, &engine) {
            paired::run(dir, size, args.users, args.queries).await?;
            continue;
        }
        run(&args, &engine, size, args.users).await?;
        if args.single_user {
            run(&args, &engine, size, 1).await?;
        }
    }
    drop(engine);
    if args.dir.is_none() && !args.keep && !args.mariadb && args.database_url.as_deref().is_none_or(|u| u.trim() == "sqlite") {
        std::fs::remove_dir_all(&dir).ok();
    }
    Ok(())
}

async fn run(args: &Args, engine: &Engine, size: usize, users: usize) -> anyhow::Result<()> {
    let fresh = engine.fresh(size, users).await?;
    let store = fresh.store.clone();
    let bank = Bank::new(store.clone()).with_memory_quota(args.count_for_quota.then_some(u64::MAX));
    let user_ids: Vec<String> = (0..users).map(|i| format!("usr_bench{i:05}")).collect();
    let mut rng = StdRng::seed_from_u64(7);
    let zipf = Zipf::new(VOCABULARY);
    let start_ms = Timestamp::now().unix_ms() - size as i64 * 10;
    let load_rate = bulk_load(store.as_ref(), size, users, &mut rng).await?;
    let size_mb = fresh.size_mb().await?;

    // Search: one term per query from each frequency class, random user.
    let mut cells = search_cells(&bank, &user_ids, args.queries, &mut rng).await?;
    // A MySQL server is still writing the bulk load's dirty pages for minutes after
    // it (SQLite's checkpoint above is synchronous): searches then compete with that
    // write-back for the CPU and the buffer pool. Those are printed to stderr, and the
    // table's numbers are taken again once InnoDB has caught up.
    if let Some(waited) = fresh.settle(args.merged).await? {
        let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
        eprintln!(
            "  search right after the bulk load: rare {}, mid {}, common {}; the store caught up with the load in {:.0} s",
            cell(&cells[0]), cell(&cells[1]), cell(&cells[2]), waited.as_secs_f64()
        );
        cells = search_cells(&bank, &user_ids, args.queries, &mut rng).await?;
    }

    // BENCH_PHASES=1: where a search's time goes, per term class (stderr).
    if std::env::var_os("BENCH_PHASES").is_some() {
        phases(store.as_ref(), &user_ids, args.queries).await?;
    }

    // List: first page, and a page from a cursor in the middle of the user's rows.
    let mut list_samples = Vec::new();
    for i in 0..args.queries {
        let user = &user_ids[rng.random_range(0..users)];
        let request = list_request(i, start_ms, size, &mut rng);
        let t = Instant::now();
        std::hint::black_box(bank.list(user, &request).await?);
        list_samples.push(t.elapsed());
    }

    // Single saves through the full path (validation, terms, one transaction each), as
    // `POST /v1/memory` makes them; then, for stderr, one asking for its duplicate hint
    // (`?similar=true`, as `memory save` does: the hint read beside the insert), and the
    // hint on its own, asked again after that save.
    let mut save_samples = Vec::new();
    let mut hinted_samples = Vec::new();
    let mut hint_samples = Vec::new();
    let mut saving = Duration::ZERO;
    let new_save = |rng: &mut StdRng| {
        validate_save(SaveMemoryRequest { content: sentence(&zipf, rng), ..Default::default() }).map_err(|e| anyhow::anyhow!("{e:?}"))
    };
    for _ in 0..args.queries {
        let user = &user_ids[rng.random_range(0..users)];
        let input = new_save(&mut rng)?;
        let t = Instant::now();
        std::hint::black_box(bank.save_or_propose(user, "org_bench", input).await?);
        save_samples.push(t.elapsed());
        saving += t.elapsed();
        let input = new_save(&mut rng)?;
        let t = Instant::now();
        let (saved, hint) = bank.save_hinted(user, "org_bench", input).await?;
        hinted_samples.push(t.elapsed());
        std::hint::black_box(hint);
        if let memory_bank_store::Saved::Memory(saved) = saved {
            let t = Instant::now();
            std::hint::black_box(bank.similar(user, &saved.content, Some(&saved.id)).await?);
            hint_samples.push(t.elapsed());
        }
    }
    let save_rate = args.queries as f64 / saving.as_secs_f64();

    let list = stats(list_samples);
    let save = stats(save_samples);
    let (hinted, hint) = (stats(hinted_samples), stats(hint_samples));
    eprintln!(
        "  {size} rows: a save asking for its duplicate hint p50 / p95: {} / {} ms; the hint alone: {} / {} ms",
        ms(hinted.p50), ms(hinted.p95), ms(hint.p50), ms(hint.p95)
    );
    let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
    println!(
        "| {size} | {users} | {load_rate:.0} | {size_mb:.1} | {} | {} | {} | {} | {} | {save_rate:.0} |",
        cell(&cells[0]), cell(&cells[1]), cell(&cells[2]), cell(&list), cell(&save)
    );
    if args.optimize {
        let started = Instant::now();
        let outcome = store.optimize_search_index().await?;
        let mb = |b: Option<u64>| b.map_or("?".to_owned(), |b| format!("{:.1}", b as f64 / 1e6));
        eprintln!("  db optimize: {:.1} s, full-text index {} → {} MB", started.elapsed().as_secs_f64(),
            mb(outcome.before_bytes), mb(outcome.after_bytes));
        let size_mb = fresh.size_mb().await?;
        // The rebuild leaves the new table's pages to be written back, as the load did.
        if let Some(waited) = fresh.settle(false).await? {
            eprintln!("  InnoDB wrote back the rebuild in {:.0} s", waited.as_secs_f64());
        }
        let cells = search_cells(&bank, &user_ids, args.queries, &mut rng).await?;
        if std::env::var_os("BENCH_PHASES").is_some() {
            phases(store.as_ref(), &user_ids, args.queries).await?;
        }
        println!("| {size}, after db optimize | {users} | – | {size_mb:.1} | {} | {} | {} | – | – | – |",
            cell(&cells[0]), cell(&cells[1]), cell(&cells[2]));
    }
    drop(bank);
    drop(store);
    fresh.remove(args.keep);
    Ok(())
}

/// Where a search's time goes, per term class, printed to stderr: the candidate
/// query, ranking, and loading the top 20. Its own random numbers, so the table's
/// measurements are the same with or without it.
async fn phases(store: &dyn MemoryStore, user_ids: &[String], queries: usize) -> anyhow::Result<()> {
    let mut phase_rng = StdRng::seed_from_u64(11);
    for (name, (low, high)) in [("rare", (2000, VOCABULARY)), ("mid", (20, 2000)), ("common", (0, 20))] {
        let (mut fetch, mut ranking, mut load, mut counts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..queries {
            let term = terms::query_terms(&word(phase_rng.random_range(low..high)));
            let user = &user_ids[phase_rng.random_range(0..user_ids.len())];
            // The entries `Bank::search` reads in a bank whose terms are current.
            let scoped = terms::scope_terms(user, &terms::covering_terms(&term));
            let t = Instant::now();
            let candidates = store.search_candidates(memory_bank_store::BankKey::Personal(user), &scoped, memory_bank_store::SEARCH_CANDIDATE_CAP).await?;
            let t1 = t.elapsed();
            let ranked = memory_bank_store::rank::rank(&term, &candidates, 20);
            let t2 = t.elapsed();
            let ids: Vec<String> = ranked.iter().map(|r| r.id.clone()).collect();
            std::hint::black_box(store.memories_by_ids(memory_bank_store::BankKey::Personal(user), &ids).await?);
            load.push(t.elapsed() - t2);
            ranking.push(t2 - t1);
            fetch.push(t1);
            counts.push(candidates.len());
        }
        counts.sort_unstable();
        let cell = |s: Stats| format!("{} / {} ms", ms(s.p50), ms(s.p95));
        eprintln!(
            "  phases {name}: candidates p50 {} max {}; candidate query {}, rank {}, load top 20 {}",
            counts[counts.len() / 2], counts[counts.len() - 1], cell(stats(fetch)), cell(stats(ranking)), cell(stats(load))
        );
    }
    Ok(())
}

/// What `--teams` loads and times, from the command line.
fn teams_options(args: &Args) -> teams::Options {
    teams::Options {
        members: args.members,
        team_memories: args.team_memories,
        personal_memories: args.personal_memories,
        queries: args.queries,
        keep: args.keep,
    }
}

/// `--search-kept`: search cells (and phases) only, `--rounds` times, on a database
/// loaded by an earlier `--keep` run. Its users are the bench's (`usr_bench00000`…).
async fn search_kept(args: &Args, url: &str) -> anyhow::Result<()> {
    let store: Arc<dyn MemoryStore> = Arc::new(MySqlStore::open(url).await.with_context(|| format!("open {url}"))?);
    let bank = Bank::new(store.clone());
    let user_ids: Vec<String> = (0..args.users).map(|i| format!("usr_bench{i:05}")).collect();
    let mut rng = StdRng::seed_from_u64(7);
    println!("| round | search rare p50/p95 ms | search mid p50/p95 ms | search common p50/p95 ms |");
    println!("|---|---|---|---|");
    for round in 1..=args.rounds {
        let cells = search_cells(&bank, &user_ids, args.queries, &mut rng).await?;
        let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
        println!("| {round} | {} | {} | {} |", cell(&cells[0]), cell(&cells[1]), cell(&cells[2]));
    }
    if std::env::var_os("BENCH_PHASES").is_some() {
        phases(store.as_ref(), &user_ids, args.queries).await?;
    }
    Ok(())
}
