//! `sessions-bench`: generates a deterministic synthetic history of agent sessions (Claude
//! Code, Codex, opencode, Gemini CLI; by default 10 000 sessions and about 2 GB, one Claude
//! session of about 1 GB) into a folder laid out like a home, then measures the session
//! index over it through `memory_bank_sessions::Library`: first full index, no-change
//! refresh, `list_sessions`, `read_transcript`/`latest_message` on the big session, an
//! incremental append, and `search_messages`.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-bench cargo run --release -p memory-bank-bench --bin sessions-bench`
//! (`--key`: with the index encrypted; `--both`: plaintext, then encrypted, compared).
//!
//! The history is generated once into `--data` and reused while its manifest matches the
//! parameters (the append made by the benchmark is truncated away again at the end).

#[allow(dead_code)]
#[path = "../corpus.rs"]
mod corpus;

mod claude;
mod codex_gemini;
mod measure;
mod opencode;
mod text;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use clap::Parser;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use text::Gen;

/// Bump when the generator's output changes, so a cached history is regenerated.
const GENERATOR_VERSION: u32 = 1;

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
    /// Sessions in all (split Claude 35 %, Codex 30 %, opencode 15 %, Gemini 20 %).
    #[arg(long, default_value_t = 10_000)]
    sessions: usize,
    /// Budget in MB for the ordinary sessions (split Claude 40 %, Codex 30 %, opencode 15 %,
    /// Gemini 15 %); sessions end on a whole turn and small ones get one at least, so the
    /// files come out about 35 % larger (740 gives about 1 GB).
    #[arg(long, default_value_t = 740)]
    total_mb: u64,
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
}

/// What one generated file or store holds.
#[derive(Debug, Default, Clone, Copy)]
pub struct Written {
    /// Bytes written.
    pub bytes: u64,
    /// Messages with text written (before merges and rewinds).
    pub messages: u64,
}

/// Per-format totals and the big session, as recorded in the manifest.
#[derive(Debug, Default)]
pub struct History {
    /// `(format, sessions, bytes, messages)`.
    pub formats: Vec<(String, u64, u64, u64)>,
    /// Session id of the big Claude session.
    pub big_id: String,
    /// Its file.
    pub big_path: PathBuf,
    /// Its generated size.
    pub big_size: u64,
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
    let history = ensure_history(&args)?;
    if args.generate_only {
        return Ok(());
    }
    measure::run(&args, &history)
}

fn manifest_key(args: &Args) -> String {
    format!(
        "v{GENERATOR_VERSION} seed={} sessions={} total_mb={} big_mb={}",
        args.seed, args.sessions, args.total_mb, args.big_mb
    )
}

/// Reuses the history in `args.data` when its manifest matches, else generates it.
fn ensure_history(args: &Args) -> anyhow::Result<History> {
    let home = args.data.join("home");
    let manifest = args.data.join("manifest.txt");
    if let Ok(text) = std::fs::read_to_string(&manifest) {
        let mut lines = text.lines();
        if lines.next() == Some(manifest_key(args).as_str()) {
            let mut h = History::default();
            for line in lines {
                let f: Vec<&str> = line.split('\t').collect();
                match f.as_slice() {
                    ["big", id, path, size] => {
                        h.big_id = id.to_string();
                        h.big_path = PathBuf::from(path);
                        h.big_size = size.parse()?;
                    }
                    [name, s, b, m] => h.formats.push((name.to_string(), s.parse()?, b.parse()?, m.parse()?)),
                    _ => {}
                }
            }
            // A previous run may have died after appending to the big session.
            let f = std::fs::OpenOptions::new().write(true).open(&h.big_path)?;
            if f.metadata()?.len() != h.big_size {
                f.set_len(h.big_size)?;
            }
            eprintln!("reusing the history in {} ({})", args.data.display(), manifest_key(args));
            return Ok(h);
        }
    }
    let _ = std::fs::remove_dir_all(&args.data);
    std::fs::create_dir_all(&home)?;
    let started = Instant::now();
    let h = generate(args, &home)?;
    let mut text = manifest_key(args) + "\n";
    for (name, s, b, m) in &h.formats {
        text.push_str(&format!("{name}\t{s}\t{b}\t{m}\n"));
    }
    text.push_str(&format!("big\t{}\t{}\t{}\n", h.big_id, h.big_path.display(), h.big_size));
    std::fs::write(&manifest, text)?;
    let total: u64 = h.formats.iter().map(|f| f.2).sum();
    eprintln!("generated {:.0} MB in {:.1} s", total as f64 / 1e6, started.elapsed().as_secs_f64());
    Ok(h)
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
    let counts = [n * 35 / 100, n * 30 / 100, n * 15 / 100, n - n * 35 / 100 - n * 30 / 100 - n * 15 / 100];
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
    h.formats.push(("claude-code".into(), counts[0] as u64, total.bytes, total.messages));
    eprintln!("claude: {} MB in {:.1} s", total.bytes / 1_000_000, t.elapsed().as_secs_f64());

    // Codex.
    let t = Instant::now();
    let codex = home.join(".codex");
    let mut total = Written::default();
    let mut index = String::new();
    for target in sizes(&mut g, counts[1], budgets[1]) {
        let cwd = ws(&mut g);
        let start = start_time(&mut g);
        let id = g.uuid();
        let day = chrono::DateTime::from_timestamp_millis(start).context("time")?;
        let dir = codex.join(day.format("sessions/%Y/%m/%d").to_string());
        std::fs::create_dir_all(&dir)?;
        let file = dir.join(format!("rollout-{}-{id}.jsonl", day.format("%Y-%m-%dT%H-%M-%S")));
        let w = codex_gemini::codex(&mut g, &file, &mut index, &id, cwd, start, target)?;
        total.bytes += w.bytes;
        total.messages += w.messages;
    }
    std::fs::write(codex.join("session_index.jsonl"), &index)?;
    total.bytes += index.len() as u64;
    h.formats.push(("codex".into(), counts[1] as u64, total.bytes, total.messages));
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
    h.formats.push(("opencode".into(), counts[2] as u64, bytes, messages));
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
    h.formats.push(("gemini".into(), counts[3] as u64, total.bytes, total.messages));
    eprintln!("gemini: {} MB in {:.1} s", total.bytes / 1_000_000, t.elapsed().as_secs_f64());
    Ok(h)
}
