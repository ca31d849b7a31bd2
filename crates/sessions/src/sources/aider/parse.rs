//! A chat history into sessions: where each starts, and each one's lines into prompts,
//! replies and Aider's own output.
//!
//! **Lines.** Only complete lines are read (the last one, without its newline, is still
//! being written); a `\r` before the newline and NUL bytes at either end (the zero-filled
//! tail a crash can leave) are dropped, and invalid UTF-8 becomes U+FFFD.
//!
//! **Which line is whose.** Aider ends every line it writes for a prompt or for its own
//! output with a two-space Markdown line break, which replies do not have (Aider strips
//! the reply, and models seldom write one), so a `#### ` line is a prompt, and a `> ` line
//! Aider's output, only when it ends with two spaces: a reply's own `#### heading` or
//! `> quote` stays in the reply (Aider's own reader, which goes by the prefix alone,
//! splits such a reply). Aider writes a multi-line output (the command line it was started
//! with, `/map`, `/settings`, a question's subject) with `> ` before its first line only
//! and the line break after its last: a `> ` line without the break starts such an output
//! when a line with the break follows before the next prompt and, unless it follows a
//! prompt or output line directly, before the next blank line. A session with no marker
//! line ending in the break had its trailing blanks stripped (an editor saved it): there
//! the prefixes alone decide, `> ` lines inside a reply's code fence stay in the reply,
//! and lines right after output continue it up to a blank line (a reply follows one).
//!
//! **Messages.** Consecutive prompt lines are one prompt from the person. Every other run
//! of lines between prompts and output is one reply, trimmed; Aider's
//! `<thinking-content-…>` block (a reasoning model's thinking, streamed) and a leading
//! `<think>…</think>` are left out of it. Not messages: an empty input (`<blank>`), a
//! question Aider answered itself (`… (Y)es/(N)o …`), and commands (`/add`, `/run`, `!`,
//! `/ask <question>`…), which are tool calls named by the command; `/ask`, `/code`,
//! `/architect` and the like write the question again as a prompt of its own, which is
//! the message. Aider's output is no message either; `Applied edit to …`, `Commit …` and
//! `Running …` are tool calls `edit`, `commit` and `shell`. Messages are cited as `M<n>`,
//! tool calls keyed `C<n>` (1-based, in the session).

use std::hash::Hasher;

use memchr::memmem;

use super::inputs::{self, Input};
use super::INPUT_HISTORY_FILE;
use crate::events::{Event, Merge, MetaEvent};
use crate::model::Role;
use crate::source::{Unit, WholeRead, WholeSession};

/// How a session starts.
const HEADER: &[u8] = b"# aider chat started at ";

/// Aider's commands (`Commands.cmd_*` in `aider/commands.py`), to name a command typed
/// as an unambiguous prefix the way Aider resolves it.
const COMMANDS: [&str; 43] = [
    "add", "architect", "ask", "chat-mode", "clear", "code", "commit", "context", "copy", "copy-context", "diff",
    "drop", "edit", "editor", "editor-model", "exit", "git", "help", "lint", "load", "ls", "map", "map-refresh",
    "model", "models", "multiline-mode", "ok", "paste", "quit", "read-only", "reasoning-effort", "report", "reset",
    "run", "save", "settings", "test", "think-tokens", "tokens", "undo", "voice", "weak-model", "web",
];

/// A `chat started` line.
struct Header {
    /// Where its line starts.
    offset: usize,
    /// Where the next line starts.
    line_end: usize,
    /// The start time, when it reads as one.
    started: Option<i64>,
    /// The session id.
    id: String,
}

/// Reads the history `unit`: every session, or with `since` (a mark returned before)
/// only those from the mark on when the bytes before it did not change.
pub(super) fn read(unit: &Unit, since: Option<i64>) -> std::io::Result<WholeRead> {
    let bytes = std::fs::read(&unit.path)?;
    let complete = &bytes[..memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1)];
    let headers = headers(complete, &file_tag(&unit.path));
    let from = since.and_then(|mark| unchanged_until(mark, complete, &headers));
    let inputs = if unit.fingerprint != 0 {
        inputs::read(&unit.path.with_file_name(INPUT_HISTORY_FILE))
    } else {
        Vec::new()
    };
    let mut starts: Vec<i64> = headers.iter().filter_map(|h| h.started).collect();
    starts.sort_unstable();
    let mut sessions = Vec::new();
    for (i, header) in headers.iter().enumerate() {
        if from.is_some_and(|from| header.offset < from) {
            continue;
        }
        let end = headers.get(i + 1).map_or(complete.len(), |next| next.offset);
        // Prompts belong to the session that started last before them: the next start
        // (to the second Aider writes) bounds the input history entries it may take.
        let until = header.started.and_then(|s| starts.iter().find(|&&t| t > s)).map(|t| t + 1000);
        let body = String::from_utf8_lossy(&complete[header.line_end..end]);
        let events = session_events(header, until, &body, &inputs);
        sessions.push(WholeSession { key: header.id.clone(), events });
    }
    let mark = headers.last().and_then(|last| mark_of(complete, last));
    Ok(WholeRead { sessions, present: Some(headers.into_iter().map(|h| h.id).collect()), mark })
}

/// The `chat started` lines of `complete`, with their session ids.
fn headers(complete: &[u8], file_tag: &str) -> Vec<Header> {
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for offset in memmem::find_iter(complete, HEADER) {
        if offset > 0 && complete[offset - 1] != b'\n' {
            continue;
        }
        let line_end = memchr::memchr(b'\n', &complete[offset..]).map_or(complete.len(), |i| offset + i + 1);
        let stamp = String::from_utf8_lossy(&complete[offset + HEADER.len()..line_end]);
        let stamp = stamp.trim();
        let digits: String = stamp.chars().filter(char::is_ascii_digit).take(20).collect();
        let key = if digits.is_empty() { "start".to_string() } else { digits };
        let n = seen.entry(key.clone()).or_default();
        *n += 1;
        let id = match *n {
            1 => format!("aider-{file_tag}-{key}"),
            n => format!("aider-{file_tag}-{key}-{n}"),
        };
        out.push(Header { offset, line_end, started: inputs::local_ms(stamp), id });
    }
    out
}

/// 12 hex digits of an FNV-1a hash of the file's path: distinct ids for distinct files,
/// the same for the same file on every read and in every release.
pub(super) fn file_tag(path: &std::path::Path) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.to_string_lossy().bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:012x}", hash & 0xffff_ffff_ffff)
}

/// The mark of a read: where the last session starts, and a checksum of everything up to
/// the end of its `chat started` line.
fn mark_of(complete: &[u8], last: &Header) -> Option<i64> {
    let offset = i64::from(i32::try_from(last.offset).ok()?);
    Some(offset << 32 | i64::from(checksum(&complete[..last.line_end])))
}

/// Where to read from after `mark`: the same session start, with the same bytes before.
fn unchanged_until(mark: i64, complete: &[u8], headers: &[Header]) -> Option<usize> {
    let offset = usize::try_from(mark >> 32).ok()?;
    let header = headers.iter().find(|h| h.offset == offset)?;
    (i64::from(checksum(&complete[..header.line_end])) == mark & 0xffff_ffff).then_some(offset)
}

fn checksum(bytes: &[u8]) -> u32 {
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(bytes);
    hasher.write_usize(bytes.len());
    hasher.finish() as u32
}

/// What a run of lines is.
#[derive(Debug, PartialEq)]
enum Item {
    /// The person's input (the lines without `#### ` and the line break).
    Prompt(String),
    /// The model's reply.
    Reply(String),
    /// Aider's output: its first line without `> ` and the line break.
    Output(String),
}

/// The events of one session: its facts, then its messages and tool calls in order.
fn session_events(header: &Header, until: Option<i64>, body: &str, inputs: &[Input]) -> Vec<Event> {
    let lines: Vec<&str> = body.strip_suffix('\n').unwrap_or(body).split('\n').map(clean).collect();
    let items = if lines.iter().any(|l| is_marker(l) && has_break(l)) { strict_items(&lines) } else { lenient_items(&lines) };

    // The prompts' times, matched by text in the input history.
    let prompts: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            Item::Prompt(text) if !is_noise(text) => Some(inputs::normalized(text)),
            _ => None,
        })
        .collect();
    let times = match header.started {
        Some(started) => inputs::times(inputs, &prompts, started, until),
        None => vec![None; prompts.len()],
    };
    let updated = times.iter().flatten().copied().chain(header.started).max();
    let mut events = vec![Event::Meta(MetaEvent {
        session_id: Some(header.id.clone()),
        created: header.started,
        updated,
        ..Default::default()
    })];
    let (mut messages, mut calls, mut prompt_times) = (0, 0, times.into_iter());
    let mut message = |role: Role, text: String, at: Option<i64>, events: &mut Vec<Event>| {
        messages += 1;
        let id = format!("M{messages}");
        events.push(Event::message(id.clone(), id, role, text, at, Merge::Replace));
    };
    let mut call = |name: String, events: &mut Vec<Event>| {
        calls += 1;
        events.push(Event::ToolCall { key: format!("C{calls}"), name });
    };
    for item in items {
        match item {
            Item::Prompt(text) if is_noise(&text) => {}
            Item::Prompt(text) => {
                let at = prompt_times.next().flatten();
                match text.chars().next() {
                    Some('/' | '!') => call(command_name(&text), &mut events),
                    _ => message(Role::User, text, at, &mut events),
                }
            }
            Item::Reply(text) => {
                let text = without_thinking(&text);
                if !text.is_empty() {
                    message(Role::Assistant, text, None, &mut events);
                }
            }
            Item::Output(line) => {
                if let Some(name) = output_call(&line) {
                    call(name.to_string(), &mut events);
                }
            }
        }
    }
    events
}

/// A line without its `\r` and without NUL bytes at its ends.
fn clean(line: &str) -> &str {
    let line = line.strip_suffix('\r').unwrap_or(line);
    line.trim_matches('\0')
}

/// The text of a `#### ` line (`####` alone is an empty prompt line).
fn prompt_body(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("####")?;
    if rest.is_empty() {
        return Some(rest);
    }
    rest.strip_prefix(' ')
}

/// The text of a `> ` line (`>` alone, an empty output line).
fn quote_body(line: &str) -> Option<&str> {
    if line.trim_end() == ">" {
        return Some("");
    }
    line.strip_prefix("> ")
}

fn is_marker(line: &str) -> bool {
    prompt_body(line).is_some() || quote_body(line).is_some()
}

/// Ends with Aider's Markdown line break.
fn has_break(line: &str) -> bool {
    line.ends_with("  ")
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn is_prompt(line: &str) -> bool {
    prompt_body(line).is_some() && has_break(line)
}

/// The items of a session whose marker lines end in Aider's line break.
fn strict_items(lines: &[&str]) -> Vec<Item> {
    let n = lines.len();
    // Where the next line with the line break, and the next blank line, are (n: none).
    let (mut next_break, mut next_blank) = (vec![n; n + 1], vec![n; n + 1]);
    for i in (0..n).rev() {
        next_break[i] = if has_break(lines[i]) { i } else { next_break[i + 1] };
        next_blank[i] = if is_blank(lines[i]) { i } else { next_blank[i + 1] };
    }
    let mut items = Vec::new();
    let mut reply: Vec<&str> = Vec::new();
    // The blank line after `chat started` belongs to it: the output after it is Aider's.
    let mut i = lines.iter().take_while(|l| is_blank(l)).count();
    let mut after_aider = true;
    while i < n {
        let line = lines[i];
        if is_prompt(line) {
            flush(&mut reply, &mut items);
            let mut body = Vec::new();
            while i < n && is_prompt(lines[i]) {
                body.push(without_break(prompt_body(lines[i]).unwrap_or_default()));
                i += 1;
            }
            items.push(Item::Prompt(body.join("\n")));
            after_aider = true;
            continue;
        }
        if let Some(quoted) = quote_body(line) {
            let end = if has_break(line) {
                Some(i)
            } else {
                let end = next_break[i + 1];
                (end < n && !is_prompt(lines[end]) && (after_aider || next_blank[i + 1] > end)).then_some(end)
            };
            if let Some(end) = end {
                flush(&mut reply, &mut items);
                items.push(Item::Output(without_break(quoted).trim().to_string()));
                after_aider = true;
                i = end + 1;
                continue;
            }
        }
        reply.push(line);
        after_aider = false;
        i += 1;
    }
    flush(&mut reply, &mut items);
    items
}

/// The items of a session whose trailing blanks were stripped: prefixes alone decide.
fn lenient_items(lines: &[&str]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut reply: Vec<&str> = Vec::new();
    let (mut fenced, mut in_output) = (false, false);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if prompt_body(line).is_some() {
            flush(&mut reply, &mut items);
            let mut body = Vec::new();
            while let Some(text) = lines.get(i).and_then(|l| prompt_body(l)) {
                body.push(text.trim_end());
                i += 1;
            }
            items.push(Item::Prompt(body.join("\n")));
            (fenced, in_output) = (false, false);
            continue;
        }
        match quote_body(line) {
            Some(quoted) if !fenced => {
                flush(&mut reply, &mut items);
                items.push(Item::Output(quoted.trim().to_string()));
                in_output = true;
            }
            // A reply starts after a blank line: a line right after output continues it.
            _ if in_output && !is_blank(line) => {}
            _ => {
                in_output = false;
                let fence = line.trim_start();
                fenced ^= fence.starts_with("```") || fence.starts_with("~~~");
                reply.push(line);
            }
        }
        i += 1;
    }
    flush(&mut reply, &mut items);
    items
}

/// Ends the reply gathered so far.
fn flush(reply: &mut Vec<&str>, items: &mut Vec<Item>) {
    if reply.iter().any(|l| !is_blank(l)) {
        items.push(Item::Reply(reply.join("\n").trim().to_string()));
    }
    reply.clear();
}

fn without_break(text: &str) -> &str {
    text.strip_suffix("  ").unwrap_or(text)
}

/// An input that is no message nor command: empty, or Aider answering its own question.
fn is_noise(prompt: &str) -> bool {
    let text = prompt.trim();
    text.is_empty() || text == "<blank>" || (text.contains("(Y)es/(N)o") && !text.contains('\n'))
}

/// The command a `/…` or `!…` input ran, as Aider resolves it.
fn command_name(input: &str) -> String {
    if input.starts_with('!') {
        return "/run".to_string();
    }
    let word = input[1..].split_whitespace().next().unwrap_or("");
    if COMMANDS.contains(&word) {
        return format!("/{word}");
    }
    let mut matching = COMMANDS.iter().filter(|c| !word.is_empty() && c.starts_with(word));
    match (matching.next(), matching.next()) {
        (Some(command), None) => format!("/{command}"),
        _ => format!("/{}", word.chars().take(40).collect::<String>()),
    }
}

/// The tool call a line of Aider's output reports.
fn output_call(line: &str) -> Option<&'static str> {
    if line.starts_with("Applied edit to ") {
        return Some("edit");
    }
    if line.starts_with("Running ") {
        return Some("shell");
    }
    let hash = line.strip_prefix("Commit ")?.split(' ').next()?;
    (hash.len() >= 7 && hash.bytes().all(|b| b.is_ascii_hexdigit())).then_some("commit")
}

/// A reply without Aider's reasoning blocks and a leading `<think>` block, trimmed.
fn without_thinking(reply: &str) -> String {
    const OPEN: &str = "<thinking-content-";
    let mut out = String::new();
    let mut rest = reply;
    while let Some(at) = rest.find(OPEN) {
        let tag = rest[at + 1..].split('>').next().unwrap_or("");
        let hex = &tag[OPEN.len() - 1..];
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_alphanumeric()) || at + 1 + tag.len() >= rest.len() {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
            continue;
        }
        out.push_str(&rest[..at]);
        let close = format!("</{tag}>");
        // A reply cut while the model was thinking has no end tag: nothing after it.
        rest = rest[at..].find(&close).map_or("", |end| &rest[at + end + close.len()..]);
    }
    out.push_str(rest);
    let text = out.trim();
    if let Some(thought) = text.strip_prefix("<think>") {
        if let Some(end) = thought.find("</think>") {
            return thought[end + "</think>".len()..].trim().to_string();
        }
    }
    text.to_string()
}
