//! `sessions-bench`: generates a deterministic synthetic history of agent sessions (every
//! readable source: Claude Code, Codex, opencode and Gemini CLI first, with one Claude
//! session of about 1 GB, then the twelve others of [`mix::MIX`]; by default 10 000
//! sessions and about 2.1 GB) into a folder laid out like a home, then measures the
//! session index over it through `memory_bank_sessions::Library`: first full index (and
//! what it indexed per source), no-change refresh, `list_sessions`,
//! `read_transcript`/`latest_message` on the big session, an incremental append, how soon
//! a new message written the way each tool writes it is listed and read
//! (`latency.rs`), and `search_messages`.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-bench cargo run --release -p memory-bank-bench --bin sessions-bench`
//! (`--key`: with the index encrypted; `--both`: plaintext, then encrypted, compared).
//!
//! The history is generated once into `--data` and reused while its manifest matches the
//! parameters (the append made by the benchmark is truncated away again at the end).

#[allow(dead_code)]
#[path = "../corpus.rs"]
mod corpus;

mod aider;
mod claude;
mod cline;
mod codex_gemini;
mod cursor;
mod documents;
mod jsonl_more;
mod latency;
mod manifest;
mod measure;
mod mix;
mod opencode;
mod report;
mod sqlite_more;
mod text;
mod zed;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use clap::Parser;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use text::Gen;

/// Bump when the generator's output changes, so a cached history is regenerated.
const GENERATOR_VERSION: u32 = 2;

/// 2026-11-30T00:00:00Z: the "now" of the synthetic history.
const NOW_MS: i64 = 1_795_996_800_000;

#[derive(Debug, Parser)]
pub struct Args {
    /// Where the history is generated (and reused while the manifest matches).
    #[arg(long, default_value = "/work/bench-data/sessions")]
    data: PathBuf,
    /// Where the index is built (deleted first).
    #[arg(long, default_value = "/work/bench-data/sessions-index")]
    index_dir: PathBuf,
    /// Sessions in all: 70 % the first four (Claude 24.5 %, Codex 21 %, opencode 10.5 %,
    /// Gemini 14 %), 30 % the others (`mix::MIX`).
    #[arg(long, default_value_t = 10_000)]
    sessions: usize,
    /// Budget in MB for the first four's ordinary sessions (split Claude 40 %, Codex 30 %,
    /// opencode 15 %, Gemini 15 %); sessions end on a whole turn and small ones get one at
    /// least, so the files come out larger (255 gives about 440 MB).
    #[arg(long, default_value_t = 255)]
    total_mb: u64,
    /// Budget in MB for the twelve other sources, split by `mix::MIX` (524 gives about
    /// 640 MB).
    #[arg(long, default_value_t = 524)]
    others_mb: u64,
    /// MB of the one big Claude session.
    #[arg(long, default_value_t = 1024)]
    big_mb: u64,
    /// RNG seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Timed calls per latency measurement.
    #[arg(long, default_value_t = 200)]
    calls: usize,
    /// Only generate the history.
    #[arg(long)]
    generate_only: bool,
    /// Stop after the first full index (for profiling it).
    #[arg(long)]
    index_only: bool,
    /// Only time `search_messages`, on the (plaintext) index a previous run left in `--index-dir`.
    #[arg(long)]
    search_only: bool,
    /// Encrypt the index, its search file and the archive with a random key (SQLCipher),
    /// as the app does whenever the OS keyring holds the archive's key.
    #[arg(long, conflicts_with = "search_only")]
    key: bool,
    /// Measure twice in one run, plaintext then encrypted (`--key`), and compare.
    #[arg(long, conflicts_with_all = ["search_only", "key"])]
    both: bool,
    /// New messages written per source for the new-message latency (0: skip it).
    #[arg(long, default_value_t = 20)]
    latency_samples: usize,
    /// After the first index, time each reader alone over its own files (no index).
    #[arg(long)]
    reader_times: bool,
    /// Index only these sources (wire names, comma-separated), to compare groups of them;
    /// with `--index-only`. Default: every source.
    #[arg(long, requires = "index_only")]
    sources: Option<String>,
}

impl Args {
    /// Whether source `name` is indexed in this run (`--sources`).
    pub fn wanted(&self, name: &str) -> bool {
        self.sources.as_deref().is_none_or(|list| list.split(',').any(|s| s.trim() == name))
    }
}

/// What one generated file or store holds.
#[derive(Debug, Default, Clone, Copy)]
pub struct Written {
    /// Bytes written.
    pub bytes: u64,
    /// Messages with text written (before merges and rewinds).
    pub messages: u64,
}

/// What one source's generator wrote, as recorded in the manifest.
#[derive(Debug, Default, Clone)]
pub struct Format {
    /// The source's wire name (`Source::as_str`).
    pub name: String,
    /// Sessions the person started.
    pub sessions: u64,
    /// Sub-agent sessions (hidden).
    pub hidden: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// Of which the reader never reads.
    pub unread: u64,
    /// Messages with text written.
    pub messages: u64,
}

impl From<mix::Totals> for Format {
    fn from(t: mix::Totals) -> Format {
        Format { name: String::new(), sessions: t.sessions, hidden: t.hidden, bytes: t.bytes, unread: t.unread, messages: t.messages }
    }
}

/// Per-source totals, the big session and the latency probes, as recorded in the manifest.
#[derive(Debug, Default)]
pub struct History {
    /// One per source.
    pub formats: Vec<Format>,
    /// Session id of the big Claude session.
    pub big_id: String,
    /// Its file.
    pub big_path: PathBuf,
    /// Its generated size.
    pub big_size: u64,
    /// `(source, session id, path)` of the session each latency probe writes to (an empty
    /// id: the database's most recent session).
    pub probes: Vec<(String, String, PathBuf)>,
}

const WORKSPACES: &[&str] = &[
    "/home/dev/src/memory-bank", "/home/dev/src/parser", "/home/dev/src/web-app", "/home/dev/src/infra",
    "/home/dev/src/ml-pipeline", "/home/dev/src/docs-site", "/home/dev/src/cli-tools", "/home/dev/src/payments",
    "/home/dev/src/search", "/home/dev/src/mobile", "/Users/lin/Projects/数据平台", "/Users/lin/Projects/api-gateway",
    "/home/dev/work/billing", "/home/dev/work/auth", "/home/dev/work/dashboard", "/home/dev/work/notebooks",
    "/srv/repos/kernel-patches", "/srv/repos/compiler", "/home/dev/src/game-engine", "/home/dev/src/blog",
];

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let history = manifest::ensure_history(&args)?;
    if args.generate_only {
        return Ok(());
    }
    measure::run(&args, &history)
}

/// Session sizes: log-normal weights scaled to `total` bytes.
fn sizes(g: &mut Gen, n: usize, total: u64) -> Vec<u64> {
    let w: Vec<f64> = (0..n).map(|_| (1.2 * g.normal()).exp()).collect();
    let sum: f64 = w.iter().sum();
    w.iter().map(|x| (total as f64 * x / sum) as u64).collect()
}

fn start_time(g: &mut Gen) -> i64 {
    NOW_MS - g.rng.random_range(2 * 3_600_000..120 * 86_400_000i64)
}

fn generate(args: &Args, home: &Path) -> anyhow::Result<History> {
    let mut g = Gen::new(StdRng::seed_from_u64(args.seed));
    let mb = |x: u64| x * 1_000_000;
    let n = args.sessions;
    let counts = [n * 245 / 1000, n * 210 / 1000, n * 105 / 1000, n * 140 / 1000];
    let budgets = [mb(args.total_mb) * 40 / 100, mb(args.total_mb) * 30 / 100, mb(args.total_mb) * 15 / 100, mb(args.total_mb) * 15 / 100];
    let mut h = History::default();
    let ws = |g: &mut Gen| WORKSPACES[g.rng.random_range(0..WORKSPACES.len())];

    // Claude Code, the last session being the big one.
    let t = Instant::now();
    let projects = home.join(".claude/projects");
    let mut total = Written::default();
    let sz = sizes(&mut g, counts[0] - 1, budgets[0]);
    // An index, not an iterator over `sz`: the last session (the big one) has no entry.
    #[allow(clippy::needless_range_loop)]
    for i in 0..counts[0] {
        let cwd = ws(&mut g);
        let dir = projects.join(claude::encode(cwd));
        std::fs::create_dir_all(&dir)?;
        let sid = g.uuid();
        let file = dir.join(format!("{sid}.jsonl"));
        let big = i + 1 == counts[0];
        let (start, target) = if big { (NOW_MS - 20 * 86_400_000, mb(args.big_mb)) } else { (start_time(&mut g), sz[i]) };
        let w = claude::session(&mut g, &file, &sid, cwd, start, target)?;
        if big {
            h.big_id = sid;
            h.big_path = file;
            h.big_size = w.bytes;
        }
        total.bytes += w.bytes;
        total.messages += w.messages;
    }
    h.formats.push(Format { name: "claude-code".into(), sessions: counts[0] as u64, bytes: total.bytes, messages: total.messages, ..Format::default() });
    eprintln!("claude: {} MB in {:.1} s", total.bytes / 1_000_000, t.elapsed().as_secs_f64());

    // Codex.
    let t = Instant::now();
    let codex = home.join(".codex");
    let mut total = Written::default();
    let mut index = String::new();
    let targets = sizes(&mut g, counts[1], budgets[1]);
    let mut by_size: Vec<u64> = targets.clone();
    by_size.sort_unstable();
    let probe = by_size[by_size.len() / 2];
    for target in targets {
        let cwd = ws(&mut g);
        let start = start_time(&mut g);
        let id = g.uuid();
        let day = chrono::DateTime::from_timestamp_millis(start).context("time")?;
        let dir = codex.join(day.format("sessions/%Y/%m/%d").to_string());
        std::fs::create_dir_all(&dir)?;
        let file = dir.join(format!("rollout-{}-{id}.jsonl", day.format("%Y-%m-%dT%H-%M-%S")));
        let w = codex_gemini::codex(&mut g, &file, &mut index, &id, cwd, start, target)?;
        if target == probe && h.probes.is_empty() {
            h.probes.push(("codex".into(), id.clone(), file.clone()));
        }
        total.bytes += w.bytes;
        total.messages += w.messages;
    }
    std::fs::write(codex.join("session_index.jsonl"), &index)?;
    total.bytes += index.len() as u64;
    h.formats.push(Format { name: "codex".into(), sessions: counts[1] as u64, bytes: total.bytes, messages: total.messages, ..Format::default() });
    eprintln!("codex: {} MB in {:.1} s", total.bytes / 1_000_000, t.elapsed().as_secs_f64());

    // opencode.
    let t = Instant::now();
    let data = home.join(".local/share/opencode");
    std::fs::create_dir_all(&data)?;
    let plans: Vec<opencode::Plan> = sizes(&mut g, counts[2], budgets[2])
        .into_iter()
        .map(|target| {
            let start = start_time(&mut g);
            let hex = (0xffff_ffff_ffffu64 - ((start as u64) << 12)) & 0xffff_ffff_ffff;
            opencode::Plan { id: format!("ses_{hex:012x}{}", g.base62(14)), cwd: ws(&mut g).to_string(), start, target }
        })
        .collect();
    let db = data.join("opencode.db");
    let messages = opencode::write_db(&mut g, &db, &plans)?;
    let bytes = std::fs::metadata(&db)?.len();
    // Some sessions are written as a task's child session (hidden, not listed).
    let children: i64 = rusqlite::Connection::open(&db)?.query_row("SELECT count(*) FROM session WHERE parent_id IS NOT NULL", [], |r| r.get(0))?;
    let children = children as u64;
    h.formats.push(Format { name: "opencode".into(), sessions: counts[2] as u64 - children, hidden: children, bytes, messages, ..Format::default() });
    eprintln!("opencode: {} MB in {:.1} s", bytes / 1_000_000, t.elapsed().as_secs_f64());

    // Gemini CLI.
    let t = Instant::now();
    let tmp = home.join(".gemini/tmp");
    let mut total = Written::default();
    for target in sizes(&mut g, counts[3], budgets[3]) {
        let cwd = ws(&mut g);
        let slug: String = cwd.rsplit('/').next().unwrap_or("project").to_lowercase()
            .chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let chats = tmp.join(&slug).join("chats");
        if !chats.exists() {
            std::fs::create_dir_all(&chats)?;
            std::fs::write(tmp.join(&slug).join(".project_root"), cwd)?;
        }
        let start = start_time(&mut g);
        let id = g.uuid();
        let day = chrono::DateTime::from_timestamp_millis(start).context("time")?;
        let file = chats.join(format!("session-{}-{}.jsonl", day.format("%Y-%m-%dT%H-%M"), &id[..8]));
        let w = codex_gemini::gemini(&mut g, &file, &id, start, target)?;
        total.bytes += w.bytes;
        total.messages += w.messages;
    }
    h.formats.push(Format { name: "gemini".into(), sessions: counts[3] as u64, bytes: total.bytes, messages: total.messages, ..Format::default() });
    eprintln!("gemini: {} MB in {:.1} s", total.bytes / 1_000_000, t.elapsed().as_secs_f64());

    mix::generate(&mut g, args, home, &mut h)?;
    Ok(h)
}
