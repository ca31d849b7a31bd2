//! Aider: `.aider.chat.history.md`, the Markdown log Aider appends to in the folder it runs
//! in (the git repository's root, else the working folder; `--chat-history-file`, or
//! `AIDER_CHAT_HISTORY_FILE`, or `chat-history-file:` in `.aider.conf.yml` moves it).
//! Learnt from Aider's own writer, `aider/io.py` (`InputOutput.append_chat_history`,
//! `user_input`, `ai_output`, `_tool_message`, `tool_output`) and its own reader of the
//! file, `aider/utils.py` `split_chat_history_markdown`, at Aider-AI/aider 5dc9490
//! (0.86.3.dev), and from files Aider 0.86.2 wrote against a loopback model stub.
//!
//! **Where.** Aider has no data folder: its histories sit in the person's projects, which
//! the person adds as folders; [`discover`](Aider) walks such a folder for files named
//! `.aider.chat.history.md` (breadth first, [`MAX_DEPTH`] folders deep, at most
//! [`MAX_FOLDERS`] folders, skipping hidden folders, `node_modules`, `target`, `venv`,
//! `__pycache__`, `dist` and `build`; only through [`Root::read_dir`], so a link out of
//! the folder is reported, not followed). The default roots are files, never a folder to
//! walk (walking the home folder would be slow and, on macOS, ask for access to
//! Documents and Desktop), and only those that exist: the history of Aider run in the
//! home folder itself (`~/.aider.chat.history.md`; `%USERPROFILE%` on Windows, as
//! Python's `Path.home()`), and a history moved to one fixed place for every project by
//! `AIDER_CHAT_HISTORY_FILE` or by `chat-history-file:` in `~/.aider.conf.yml` (absolute
//! paths only: a relative one is relative to each project). The same on every OS. Most
//! people have none of these: Aider then has no default root at all.
//!
//! **Format** (`parse.rs` has the rules for telling lines apart). Each run of Aider appends `# aider chat started at <local
//! time>`, then: the person's input as `#### <line>  ` lines (one per line of a
//! multi-line prompt, each ending in Aider's two-space Markdown line break; an empty
//! input is `#### <blank>`); Aider's own console output (the command line, the model
//! and repository in use, warnings, `Applied edit to …`, `Commit …`, token and cost
//! reports, the questions it asked and their answers) as `> <line>  ` lines; and the
//! model's reply, written once it is complete, as plain Markdown between blank lines
//! (code blocks, SEARCH/REPLACE edit blocks, and at times a `<thinking-content-…>`
//! block of the model's reasoning). Every write is an append; on Windows Python writes
//! CRLF line endings.
//!
//! One file holds many sessions, one per `chat started` line, so the unit is read whole
//! ([`UnitKind::Whole`], with [`WholeRead::present`] listing every session) rather than
//! as JSON Lines: a reply spans many lines, and a parser fed from the middle of the file
//! after an append could not tell a reply from the lines around it. To keep a big,
//! growing history cheap to index, a read after an append
//! ([`SourceReader::parse_whole_since`]) gives back only the last session and the ones
//! after it, when the bytes before it are the ones read last time (the mark is their
//! length and a checksum); any other change reads every session again.
//!
//! **Sessions.** The id is `aider-<12 hex digits of a hash of the file's path>-<the start
//! time's digits>` (`-2`, `-3`… for a start time seen again in the same file): stable as
//! the file grows and across index rebuilds, distinct across projects. The start time,
//! written in local time without a zone, is read as local time of the machine reading
//! it (the machine that wrote it, as a rule). The workspace is the folder holding a file
//! with Aider's default name (a history moved elsewhere has none). The title is the
//! first prompt. Per-message times come from `.aider.input.history` beside the file
//! (`inputs.rs`: prompt_toolkit's `# <local time>` / `+<line>` entries, written for each
//! line typed at Aider's prompt): a prompt gets the time of the entry with its text
//! after the session's start; replies have none. A session is created at its start
//! time and updated at its last prompt's time.
//!
//! **Left out.** An input history moved by `--input-history-file` is not looked for
//! (only the one beside the chat history). Two Aider runs writing to one file at once
//! interleave their lines; each line then counts for the session started last. Aider's
//! other files (`.aider.tags.cache.v4`, `--llm-history-file` logs) are not sessions.

mod inputs;
mod parse;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession};

/// Reads Aider sessions.
pub struct Aider;

/// The name Aider gives its chat history.
pub const HISTORY_FILE: &str = ".aider.chat.history.md";
/// The name Aider gives its input history (prompt_toolkit's `FileHistory`).
pub const INPUT_HISTORY_FILE: &str = ".aider.input.history";
/// How many folders deep below a root a history is looked for.
pub const MAX_DEPTH: usize = 6;
/// How many folders one discovery lists at most; the rest of a bigger root is reported.
pub const MAX_FOLDERS: usize = 10_000;
/// Folders that hold dependencies or build output, never a history worth walking into
/// (hidden folders, `.git` and `.venv` among them, are skipped too).
const SKIPPED_FOLDERS: [&str; 6] = ["node_modules", "target", "venv", "__pycache__", "dist", "build"];
/// The biggest `.aider.conf.yml` read for `chat-history-file`.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

impl SourceReader for Aider {
    fn source(&self) -> Source {
        Source::Aider
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = Vec::new();
        let mut add = |path: PathBuf| {
            if path.is_absolute() && path.is_file() && !roots.contains(&path) {
                roots.push(path);
            }
        };
        if let Some(file) = env.var("AIDER_CHAT_HISTORY_FILE") {
            add(PathBuf::from(unquote(file.trim())));
        }
        if let Some(home) = &env.home {
            if let Some(file) = configured_history(&home.join(".aider.conf.yml")) {
                add(PathBuf::from(file));
            }
            add(home.join(HISTORY_FILE));
        }
        roots
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        match std::fs::metadata(root) {
            // A history file given as the root itself (the defaults are files).
            Ok(meta) if meta.is_file() && confined.file(root, problems) => {
                units.push(unit_for(&confined, root.to_path_buf(), problems));
            }
            Ok(meta) if meta.is_dir() => walk(&confined, root, units, problems),
            _ => {}
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(parse::read(unit, None)?.sessions)
    }

    fn parse_whole_since(&self, unit: &Unit, since: Option<i64>) -> std::io::Result<WholeRead> {
        parse::read(unit, since)
    }
}

/// Lists `root` breadth first (shallow projects are found before a deep tree uses up the
/// folder budget) for Aider's chat histories.
fn walk(confined: &Root, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
    let mut queue = VecDeque::from([(root.to_path_buf(), 0usize)]);
    let mut listed = 0usize;
    while let Some((dir, depth)) = queue.pop_front() {
        if listed == MAX_FOLDERS {
            problems.push(Problem {
                path: root.to_path_buf(),
                message: format!(
                    "stopped looking for Aider chat histories after {MAX_FOLDERS} folders; \
                     add the project folders themselves to read the rest"
                ),
            });
            return;
        }
        listed += 1;
        let mut entries = confined.read_dir(&dir, problems);
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in entries {
            let name = entry.name.to_string_lossy();
            if entry.is_file && name == HISTORY_FILE {
                units.push(unit_for(confined, entry.path, problems));
            } else if entry.is_dir && depth < MAX_DEPTH && !name.starts_with('.') && !SKIPPED_FOLDERS.contains(&&*name) {
                queue.push_back((entry.path, depth + 1));
            }
        }
    }
}

/// The unit of the history at `path`: its workspace is its folder when it has Aider's
/// default name, and the input history beside it (when it may be read) is part of its
/// identity, so a new entry there is read too.
fn unit_for(confined: &Root, path: PathBuf, problems: &mut Vec<Problem>) -> Unit {
    let mut unit = Unit::new(Source::Aider, path, UnitKind::Whole);
    if unit.path.file_name().is_some_and(|n| n == HISTORY_FILE) {
        unit.workspace_hint = unit.path.parent().map(|p| p.to_string_lossy().into_owned());
    }
    let inputs = unit.path.with_file_name(INPUT_HISTORY_FILE);
    if confined.file(&inputs, problems) {
        if let Ok(meta) = std::fs::metadata(&inputs) {
            unit.fingerprint = inputs::stamp(&meta);
        }
    }
    unit
}

/// The absolute `chat-history-file:` of an `.aider.conf.yml` (a top-level key; Aider
/// reads it with a YAML parser, this reads the plain and quoted scalars people write).
fn configured_history(config: &Path) -> Option<String> {
    let meta = std::fs::metadata(config).ok()?;
    if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
        return None;
    }
    let text = String::from_utf8_lossy(&std::fs::read(config).ok()?).into_owned();
    let value = text.lines().find_map(|line| line.strip_prefix("chat-history-file:"))?;
    let value = value.trim();
    let value = match value.chars().next() {
        // YAML escapes a backslash inside double quotes (Windows paths).
        Some('"') => value[1..].split('"').next().unwrap_or("").replace("\\\\", "\\"),
        Some('\'') => value[1..].split('\'').next().unwrap_or("").to_string(),
        _ => value.split(" #").next().unwrap_or("").trim_end().to_string(),
    };
    (!value.is_empty()).then_some(value)
}

/// `value` without one pair of surrounding quotes.
fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|v| v.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}
