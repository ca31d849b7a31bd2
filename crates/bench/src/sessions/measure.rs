//! The measurements, through `memory_bank_sessions::Library` exactly as the app calls it.

use std::io::Write as _;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use memory_bank_sessions::{DbKey, Env, LatestArgs, Library, ListArgs, ReadArgs, Roots, SearchArgs};
use serde_json::json;

use super::text::RARE_WORD;
use super::{Args, History};

fn pct(samples: &mut [Duration], p: f64) -> f64 {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3
}

/// Times `calls` calls of `f` (after 3 untimed ones); stops early after 20 s. The first
/// error ends the measurement and is returned.
fn time<E>(calls: usize, mut f: impl FnMut() -> Result<(), E>) -> Result<(f64, f64, usize), E> {
    for _ in 0..3 {
        f()?;
    }
    let mut samples = Vec::new();
    let budget = Instant::now();
    while samples.len() < calls && (budget.elapsed() < Duration::from_secs(20) || samples.len() < 5) {
        let t = Instant::now();
        f()?;
        samples.push(t.elapsed());
    }
    Ok((pct(&mut samples, 0.5), pct(&mut samples, 0.95), samples.len()))
}

/// Bytes this process has read through read(2) and friends (Linux `rchar`).
fn rchar() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("rchar: ").and_then(|v| v.trim().parse().ok())))
        .unwrap_or(0)
}

/// CPU seconds (user + system) this process has used, all threads.
fn cpu_secs() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

fn file_size(path: &std::path::Path, suffix: &str) -> u64 {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// One table: `(measurement, result, target)`.
type Rows = Vec<(String, String, String)>;

pub fn run(args: &Args, h: &History) -> anyhow::Result<()> {
    if args.search_only {
        return search_only(args);
    }
    let keys = match (args.key, args.both) {
        (_, true) => vec![None, Some(DbKey::generate())],
        (true, false) => vec![Some(DbKey::generate())],
        (false, false) => vec![None],
    };
    let mut tables = Vec::new();
    for key in keys {
        let label = if key.is_some() { "encrypted (SQLCipher, random key)" } else { "plaintext" };
        println!("== index {label} ==");
        let rows = run_one(args, h, key.as_ref())?;
        println!();
        println!("| measurement ({label}) | p50 / p95 (calls) or result | target |");
        println!("|---|---|---|");
        for (name, value, target) in &rows {
            println!("| {name} | {value} | {target} |");
        }
        println!();
        tables.push(rows);
    }
    if let [plain, encrypted] = tables.as_slice() {
        println!("| measurement | plaintext | encrypted |");
        println!("|---|---|---|");
        for ((name, a, _), (_, b, _)) in plain.iter().zip(encrypted) {
            println!("| {name} | {a} | {b} |");
        }
    }
    Ok(())
}

/// `--search-only`: the index left by a previous run, brought up to date (nothing to read
/// if unchanged).
fn search_only(args: &Args) -> anyhow::Result<()> {
    let env = Env { home: Some(args.data.join("home")), vars: Default::default() };
    let extra = super::mix::extra_roots(&args.data.join("home"));
    let lib = Library::open(Some(&args.index_dir.join("sessions.db")), Roots::new(&env, &extra), None)?;
    lib.refresh()?;
    lib.wait_for_search_index()?;
    let mut row = |name: &str, value: String, target: &str| println!("{name:<48} {value:<28} {target}");
    search_messages(&lib, args.calls, &mut row)
}

/// Builds the index from scratch (encrypted under `key` when given) and measures it.
fn run_one(args: &Args, h: &History, key: Option<&DbKey>) -> anyhow::Result<Rows> {
    let home = args.data.join("home");
    let _ = std::fs::remove_dir_all(&args.index_dir);
    std::fs::create_dir_all(&args.index_dir)?;
    let index = args.index_dir.join("sessions.db");
    let env = Env { home: Some(home.clone()), vars: Default::default() };
    let formats: Vec<&super::Format> = h.formats.iter().filter(|f| args.wanted(&f.name)).collect();
    let source_bytes: u64 = formats.iter().map(|f| f.bytes).sum();
    let unread_bytes: u64 = formats.iter().map(|f| f.unread).sum();
    let mut rows: Rows = Vec::new();
    let mut row = |name: &str, value: String, target: &str| {
        println!("{name:<48} {value:<28} {target}");
        rows.push((name.to_string(), value, target.to_string()));
    };

    // First full index.
    let Roots(all) = Roots::new(&env, &super::mix::extra_roots(&home));
    let roots = Roots(all.into_iter().filter(|(s, _)| args.wanted(s.as_str())).collect());
    let lib = Library::open(Some(&index), roots, key.cloned())?;
    let (t, cpu) = (Instant::now(), cpu_secs());
    let report = lib.refresh()?;
    let listed = t.elapsed().as_secs_f64();
    // Complete means searchable too: the search index is built beside the refresh.
    lib.wait_for_search_index()?;
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_secs() - cpu;
    anyhow::ensure!(report.problems.is_empty(), "problems: {:?}", report.problems);
    let mbps = source_bytes as f64 / 1e6 / secs;
    row(
        "first full index (listed and searchable)",
        format!("{secs:.1} s, {mbps:.0} MB/s"),
        if mbps >= 200.0 { "≥ 200 MB/s: met" } else { "≥ 200 MB/s: NOT met" },
    );
    row(
        "  of which: listed and readable after",
        format!("{listed:.1} s, {:.0} MB/s", source_bytes as f64 / 1e6 / listed),
        "",
    );
    row("  CPU for it (user + sys, all threads)", format!("{cpu:.1} s"), "");
    row(
        "  over the bytes the readers read",
        format!("{:.0} MB of files and rows the readers read: {:.0} MB/s", (source_bytes - unread_bytes) as f64 / 1e6, (source_bytes - unread_bytes) as f64 / 1e6 / secs),
        "",
    );
    eprintln!("  units seen {}, read {}, bytes read {}", report.units_seen, report.units_read, report.bytes_read);
    let (db, wal) = (file_size(&index, ""), file_size(&index, "-wal"));
    row("index size (db + wal)", format!("{:.0} + {:.0} MB", db as f64 / 1e6, wal as f64 / 1e6), "");
    let search_index = memory_bank_sessions::search_path(&index);
    let (sdb, swal) = (file_size(&search_index, ""), file_size(&search_index, "-wal"));
    row("search index size (db + wal)", format!("{:.0} + {:.0} MB", sdb as f64 / 1e6, swal as f64 / 1e6), "");
    super::report::per_source(&lib, &index, key, &formats)?;
    if args.reader_times {
        super::report::reader_times(&lib, h)?;
    }
    if args.index_only {
        return Ok(rows);
    }

    let (p50, p95, n) = time(5, || lib.refresh().map(drop))?;
    row("no-change refresh p50 / p95", format!("{p50:.1} / {p95:.1} ms ({n})"), "");

    {
        let conn = memory_bank_sessions::testing::open_keyed(&index, key).map_err(|e| anyhow::anyhow!("{e}"))?;
        let big: i64 = conn.query_row("SELECT message_count FROM session WHERE session_id = ?1", [&h.big_id], |r| r.get(0))?;
        eprintln!("  big session {}: {big} messages, {:.0} MB", h.big_id, h.big_size as f64 / 1e6);
    }

    // list_sessions.
    for (label, args_of) in [
        ("list_sessions limit 30", ListArgs { limit: Some(json!(30)), ..Default::default() }),
        ("list_sessions limit 200", ListArgs { limit: Some(json!(200)), ..Default::default() }),
        (
            "list_sessions workspace=memory-bank limit 30",
            ListArgs { limit: Some(json!(30)), workspace: Some("memory-bank".into()), ..Default::default() },
        ),
        (
            "list_sessions query=parser limit 30",
            ListArgs { limit: Some(json!(30)), query: Some("parser".into()), ..Default::default() },
        ),
    ] {
        let total = lib.list_sessions(args_of.clone())?.total;
        let (p50, p95, n) = time(args.calls, || lib.list_sessions(args_of.clone()).map(drop))?;
        let ok = if p95 < 50.0 { "< 50 ms: met" } else { "< 50 ms: NOT met" };
        row(label, format!("{p50:.2} / {p95:.2} ms ({n}, {total} match)"), ok);
    }

    // The big session.
    let read = || ReadArgs { session_id: Some(h.big_id.clone()), count: Some(json!(30)), before: None, ..Default::default() };
    let transcript = lib.read_transcript(read())?;
    anyhow::ensure!(transcript.returned == 30, "the big session returned {}", transcript.returned);
    let (p50, p95, n) = time(args.calls, || lib.read_transcript(read()).map(drop))?;
    let ok = if p95 < 50.0 { "< 50 ms: met" } else { "< 50 ms: NOT met" };
    row("read_transcript last 30 of the 1 GB session", format!("{p50:.2} / {p95:.2} ms ({n})"), ok);
    let latest = || LatestArgs { session_id: Some(h.big_id.clone()), ..Default::default() };
    let (p50, p95, n) = time(args.calls, || lib.latest_message(latest()).map(drop))?;
    row("latest_message of the 1 GB session", format!("{p50:.2} / {p95:.2} ms ({n})"), "");

    // Append one message, then read: only the appended bytes may be read.
    let mut samples = Vec::new();
    let mut read_bytes = Vec::new();
    let before = transcript.message_count;
    for i in 0..20 {
        let uuid = format!("00000000-0000-4000-a000-{i:012}");
        let line = format!(
            "{{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"cwd\":\"/home/dev/src/memory-bank\",\"sessionId\":\"{}\",\"uuid\":\"{uuid}\",\"timestamp\":\"2026-11-30T00:00:{i:02}.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"appended message {i}\"}}}}\n",
            h.big_id
        );
        let mut f = std::fs::OpenOptions::new().append(true).open(&h.big_path)?;
        f.write_all(line.as_bytes())?;
        drop(f);
        let r0 = rchar();
        let t = Instant::now();
        let got = lib.read_transcript(read())?;
        samples.push(t.elapsed());
        read_bytes.push(rchar() - r0);
        let last = got.messages.last().context("no message")?;
        anyhow::ensure!(last.text == format!("appended message {i}"), "append not seen: {:?}", last.text);
        anyhow::ensure!(got.message_count == before + i + 1);
    }
    let max_read = read_bytes.iter().max().copied().unwrap_or(0);
    let (p50, p95) = (pct(&mut samples, 0.5), pct(&mut samples, 0.95));
    row(
        "append 1 message + read_transcript 30",
        format!("{p50:.2} / {p95:.2} ms (20)"),
        &format!("≤ {:.2} MB read per call (source + index pages)", max_read as f64 / 1e6),
    );
    std::fs::OpenOptions::new().write(true).open(&h.big_path)?.set_len(h.big_size)?;

    opencode_change(&home, &mut row)?;
    if args.latency_samples > 0 {
        super::latency::run(&lib, &index, key, &args.data, h, args.latency_samples, &mut row)?;
    }

    // search_messages, once the search index holds the appended messages too.
    lib.wait_for_search_index()?;
    search_messages(&lib, args.calls, &mut row)?;
    Ok(rows)
}

/// A new turn written into the 190 MB `opencode.db` while opencode runs: the reader reads
/// the sessions with rows stamped since its last read, not the whole database.
fn opencode_change(home: &std::path::Path, row: &mut impl FnMut(&str, String, &str)) -> anyhow::Result<()> {
    use memory_bank_sessions::testing::{reader, Unit, UnitKind};
    use memory_bank_sessions::Source;
    let db = home.join(".local/share/opencode/opencode.db");
    let unit = Unit::new(Source::Opencode, db.clone(), UnitKind::Whole);
    let reader = reader(Source::Opencode);
    let (full_p50, full_p95, n) = time(5, || reader.parse_whole_since(&unit, None).map(drop))?;
    row("opencode.db read whole", format!("{full_p50:.0} / {full_p95:.0} ms ({n})"), "");
    let mark = reader.parse_whole_since(&unit, None)?.mark.context("no mark")?;

    let conn = rusqlite::Connection::open(&db)?;
    let session: String = conn.query_row("SELECT id FROM session ORDER BY time_updated DESC LIMIT 1", [], |r| r.get(0))?;
    let now = mark + 1_000;
    conn.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_bench_new', ?1, ?2, ?2, ?3)",
        rusqlite::params![session, now, json!({"role":"user","time":{"created":now}}).to_string()],
    )?;
    conn.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_bench_new', 'msg_bench_new', ?1, ?2, ?2, ?3)",
        rusqlite::params![session, now, json!({"type":"text","text":"one more question"}).to_string()],
    )?;
    let mut changed = 0;
    let (p50, p95, n) = time(20, || {
        changed = reader.parse_whole_since(&unit, Some(now))?.sessions.len();
        Ok::<_, std::io::Error>(())
    })?;
    row(
        "opencode.db read changes only (1 new message)",
        format!("{p50:.0} / {p95:.0} ms ({n}, {changed} session read)"),
        &format!("{:.0}× less than whole", full_p50 / p50.max(0.001)),
    );
    conn.execute("DELETE FROM part WHERE id = 'prt_bench_new'", [])?;
    conn.execute("DELETE FROM message WHERE id = 'msg_bench_new'", [])?;
    Ok(())
}

/// Times `search_messages` for each query class.
fn search_messages(lib: &Library, calls: usize, row: &mut impl FnMut(&str, String, &str)) -> anyhow::Result<()> {
    for (label, query) in [
        ("rare word", RARE_WORD),
        ("common word", "the"),
        ("Chinese phrase", "数据库迁移"),
        ("2 characters, Chinese", "数据"),
        ("2 characters, English", "go"),
    ] {
        let args_of = SearchArgs { query: Some(query.into()), limit: None, ..Default::default() };
        let t = Instant::now();
        let hits = lib.search_messages(args_of.clone())?.hits.len();
        let first = t.elapsed().as_secs_f64() * 1e3;
        let calls = if first > 1000.0 { 5 } else { calls };
        let (p50, p95, n) = time(calls, || lib.search_messages(args_of.clone()).map(drop))?;
        let ok = if p95 < 100.0 { "< 100 ms: met" } else { "< 100 ms: NOT met" };
        row(&format!("search_messages {label} {query:?}"), format!("{p50:.1} / {p95:.1} ms ({n}, {hits} hits)"), ok);
    }
    Ok(())
}
