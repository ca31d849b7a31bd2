//! What the first index holds per source, against what was generated (a source that
//! yields no session or no message fails the run), and `--reader-times`: each reader
//! alone over its own files, without the index, to see which readers the time goes to.

use std::time::Instant;

use memory_bank_sessions::testing::{discover, read_unit, reader};
use memory_bank_sessions::{DbKey, Library, ListArgs, Source};
use serde_json::json;

use super::{Format, History};

/// Prints the per-source table of the first index (Markdown) and fails when a source
/// generated here has no session listed or no message indexed.
pub fn per_source(lib: &Library, index: &std::path::Path, key: Option<&DbKey>, formats: &[&Format]) -> anyhow::Result<()> {
    let conn = memory_bank_sessions::testing::open_keyed(index, key).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut stmt = conn.prepare(
        "SELECT s.source, count(DISTINCT s.id), count(DISTINCT CASE WHEN s.hidden THEN s.id END), count(m.id), sum(length(CAST(m.text AS BLOB)))
         FROM session s LEFT JOIN message m ON m.session = s.id GROUP BY s.source",
    )?;
    let indexed: Vec<(String, i64, i64, i64, Option<i64>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    println!();
    println!("| source | sessions generated (+ sub-agents) | indexed (hidden) | listed | messages generated | messages indexed | message text MB | source MB | of which not read MB |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut failures = Vec::new();
    let mut sums = [0f64; 9];
    for f in formats {
        let (_, sessions, hidden, messages, text) = indexed.iter().find(|i| i.0 == f.name).cloned().unwrap_or_default();
        let listed = lib.list_sessions(ListArgs { source: Some(f.name.clone()), limit: Some(json!(1)), ..Default::default() })?.total;
        let text_mb = text.unwrap_or(0) as f64 / 1e6;
        println!(
            "| {} | {} (+ {}) | {} ({}) | {} | {} | {} | {:.1} | {:.1} | {:.1} |",
            f.name, f.sessions, f.hidden, sessions, hidden, listed, f.messages, messages, text_mb, f.bytes as f64 / 1e6, f.unread as f64 / 1e6
        );
        for (sum, v) in sums.iter_mut().zip([f.sessions as f64, f.hidden as f64, sessions as f64, hidden as f64, listed as f64, f.messages as f64, messages as f64, text_mb, f.bytes as f64 / 1e6]) {
            *sum += v;
        }
        if listed == 0 || messages == 0 {
            failures.push(format!("{}: {listed} sessions listed, {messages} messages indexed", f.name));
        } else if (listed as u64) < f.sessions * 95 / 100 || (messages as u64) < f.messages * 9 / 10 {
            eprintln!("  warning: {} lists {listed} of {} sessions and indexed {messages} of {} messages", f.name, f.sessions, f.messages);
        }
    }
    let unread: f64 = formats.iter().map(|f| f.unread as f64 / 1e6).sum();
    println!(
        "| **total** | {:.0} (+ {:.0}) | {:.0} ({:.0}) | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} |",
        sums[0], sums[1], sums[2], sums[3], sums[4], sums[5], sums[6], sums[7], sums[8], unread
    );
    println!();
    anyhow::ensure!(failures.is_empty(), "sources that yielded nothing: {failures:?}");
    Ok(())
}

/// Times each reader alone (one thread, no index) over every unit of its roots.
pub fn reader_times(lib: &Library, h: &History) -> anyhow::Result<()> {
    println!("| reader | units | sessions | seconds | source MB | MB/s |");
    println!("|---|---|---|---|---|---|");
    for source in Source::ALL {
        let Some(f) = h.formats.iter().find(|f| f.name == source.as_str()) else { continue };
        let reader = reader(source);
        let t = Instant::now();
        let (mut units, mut sessions) = (0, 0);
        for (_, root) in lib.roots().0.iter().filter(|(s, _)| *s == source) {
            let (found, _) = discover(reader, root);
            for unit in &found {
                units += 1;
                sessions += read_unit(reader, unit)?.len();
            }
        }
        let secs = t.elapsed().as_secs_f64();
        let mb = f.bytes as f64 / 1e6;
        println!("| {} | {units} | {sessions} | {secs:.2} | {mb:.0} | {:.0} |", f.name, mb / secs);
    }
    Ok(())
}
