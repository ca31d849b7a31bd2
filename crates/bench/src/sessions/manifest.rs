//! The generated history's manifest: the parameters it was generated with (a history
//! generated with others, or by an older generator, is generated again) and what each
//! source wrote, the big session and the latency probes.

use std::path::PathBuf;
use std::time::Instant;

use super::{latency, Args, Format, History, GENERATOR_VERSION};

/// The first line of the manifest.
pub fn manifest_key(args: &Args) -> String {
    format!(
        "v{GENERATOR_VERSION} seed={} sessions={} total_mb={} others_mb={} big_mb={}",
        args.seed, args.sessions, args.total_mb, args.others_mb, args.big_mb
    )
}

/// Reuses the history in `args.data` when its manifest matches, else generates it.
pub fn ensure_history(args: &Args) -> anyhow::Result<History> {
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
                    ["probe", source, id, path] => h.probes.push((source.to_string(), id.to_string(), PathBuf::from(path))),
                    [name, s, hidden, b, unread, m] => h.formats.push(Format {
                        name: name.to_string(),
                        sessions: s.parse()?,
                        hidden: hidden.parse()?,
                        bytes: b.parse()?,
                        unread: unread.parse()?,
                        messages: m.parse()?,
                    }),
                    _ => {}
                }
            }
            // A previous run may have died after appending to the big session, or while
            // a latency probe had changed a session.
            latency::restore(&args.data)?;
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
    let h = super::generate(args, &home)?;
    let mut text = manifest_key(args) + "\n";
    for f in &h.formats {
        text.push_str(&format!("{}\t{}\t{}\t{}\t{}\t{}\n", f.name, f.sessions, f.hidden, f.bytes, f.unread, f.messages));
    }
    text.push_str(&format!("big\t{}\t{}\t{}\n", h.big_id, h.big_path.display(), h.big_size));
    for (source, id, path) in &h.probes {
        text.push_str(&format!("probe\t{source}\t{id}\t{}\n", path.display()));
    }
    std::fs::write(&manifest, text)?;
    let total: u64 = h.formats.iter().map(|f| f.bytes).sum();
    eprintln!("generated {:.0} MB in {:.1} s", total as f64 / 1e6, started.elapsed().as_secs_f64());
    Ok(h)
}
