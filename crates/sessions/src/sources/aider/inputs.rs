//! `.aider.input.history`: what was typed at Aider's prompt, with times. prompt_toolkit's
//! `FileHistory.store_string` (prompt_toolkit 3.0.52, `history.py`) appends each input as
//! `\n# <datetime.now()>\n` (local time, `YYYY-MM-DD HH:MM:SS[.ffffff]`, no zone) and then
//! one `+<line>\n` per line of the input, in binary mode (LF on every OS); its reader
//! ends an entry at any line not starting with `+`. Aider adds the person's inputs (also
//! commands, and `/run <command>` for the shell commands it runs); `--message` runs add
//! theirs twice, and input that does not come through its prompt (piped stdin) none.

use chrono::{Local, NaiveDateTime, TimeZone};

/// The biggest input history read; a bigger one gives no times (it is only a side file).
const MAX_BYTES: u64 = 64 << 20;
/// How many entries past the last match a prompt's entry is looked for.
const LOOKAHEAD: usize = 64;

/// One entry: when, and what was typed (lines joined with `\n`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Input {
    /// Ms since the epoch.
    pub(super) at: i64,
    /// The text, normalized by [`normalized`].
    pub(super) text: String,
}

/// The entries of the input history at `path`, in file order; none when it cannot be read.
pub(super) fn read(path: &std::path::Path) -> Vec<Input> {
    let fits = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= MAX_BYTES);
    let Some(bytes) = fits.then(|| std::fs::read(path).ok()).flatten() else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    let mut out = Vec::new();
    let mut current: Option<(Option<i64>, Vec<&str>)> = None;
    fn finish(entry: Option<(Option<i64>, Vec<&str>)>, out: &mut Vec<Input>) {
        if let Some((Some(at), lines)) = entry {
            out.push(Input { at, text: normalized(&lines.join("\n")) });
        }
    }
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(rest) = line.strip_prefix('+') {
            if let Some((_, lines)) = current.as_mut() {
                lines.push(rest);
            }
        } else {
            finish(current.take(), &mut out);
            if let Some(stamp) = line.strip_prefix("# ") {
                current = Some((local_ms(stamp), Vec::new()));
            }
        }
    }
    finish(current, &mut out);
    out
}

/// Text compared between the two histories: lines without trailing blanks, and no
/// trailing empty lines (the chat history strips them, the input history keeps them).
pub(super) fn normalized(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end()).collect();
    lines.join("\n").trim_end().to_string()
}

/// The times of `prompts` (texts normalized by [`normalized`], in order) from `inputs`:
/// those after `from` and before `until`, taken in order, each prompt matched by its text
/// to an entry after the previous match.
pub(super) fn times(inputs: &[Input], prompts: &[String], from: i64, until: Option<i64>) -> Vec<Option<i64>> {
    let start = inputs.partition_point(|i| i.at < from);
    let window: Vec<&Input> = inputs[start..].iter().filter(|i| until.is_none_or(|u| i.at < u)).collect();
    let mut next = 0;
    prompts
        .iter()
        .map(|prompt| {
            let found = window.iter().skip(next).take(LOOKAHEAD).position(|i| &i.text == prompt)?;
            let at = window[next + found].at;
            next += found + 1;
            Some(at)
        })
        .collect()
}

/// A local time as Aider and prompt_toolkit write it (`2026-03-01 10:00:00` with optional
/// fraction) in ms since the epoch, taken as this machine's local time: in a repeated
/// hour the earlier instant, in a skipped hour the instant an hour later.
pub(super) fn local_ms(stamp: &str) -> Option<i64> {
    let naive = NaiveDateTime::parse_from_str(stamp.trim(), "%Y-%m-%d %H:%M:%S%.f").ok()?;
    let local = Local
        .from_local_datetime(&naive)
        .earliest()
        .or_else(|| Local.from_local_datetime(&(naive + chrono::Duration::hours(1))).earliest())?;
    Some(local.timestamp_millis())
}

/// A unit fingerprint from the input history's size and time: never 0 (0 is "no input
/// history to read").
pub(super) fn stamp(meta: &std::fs::Metadata) -> u64 {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    (meta.len().rotate_left(40) ^ mtime) | 1
}
