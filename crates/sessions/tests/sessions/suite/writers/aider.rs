//! Aider: one Markdown chat history holding many sessions, `~/.aider.chat.history.md`
//! (the history of Aider run in the home folder, one of the reader's default roots), and
//! the input history beside it. Every session is a section of that one file, in the
//! order they started, opened by `# aider chat started at <local time>` and Aider's
//! start-up output; prompts are `#### <line>  ` lines (with an input history entry, so
//! they have times), replies plain Markdown between blank lines, as `aider/io.py` writes
//! them.
//!
//! The suite's notions, in Aider's terms: a message added to the last session is appended
//! to the file; one added to an earlier session (which Aider never does: each run starts
//! a new session) rewrites the file in place with it in that session's section, as does
//! rewriting a session. A "half-written record" is a message cut mid-line (no newline
//! yet). "Unknown records" are what Aider writes that is not a message: commands and
//! their output, an empty input, a question Aider answered itself, token reports, edits
//! and commits. The "record that is not JSON" is a line of NUL bytes, what a crash can
//! leave where a write was lost. "Deleting" a session removes its section, as a person
//! cleaning up the history would; putting it back restores the same bytes. The file
//! itself stays (empty at the start and without sections): the reader lists a default
//! history file only when there is one, and the library takes its roots when it opens. Markdown has no escapes, so the lone-surrogate promise has no
//! Aider meaning: the writer puts in the file what JSON decoding of the raw text gives
//! (a pair as its character, a lone surrogate as U+FFFD; Aider itself, writing with
//! `errors="ignore"`, would drop it), and the promise checks that it reads back as
//! written. Invalid UTF-8 is written as raw bytes, which the reader decodes lossily.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{Local, TimeZone};
use memory_bank_sessions::{Role, Source};

use crate::suite::{append_bytes, SessionWriter};

/// Aider's start-up output, as every session begins.
const START_OUTPUT: &str = "> aider --model gpt-4o  \n> Aider v0.86.2  \n> Main model: gpt-4o with diff edit format  \n\
                            > Git repo: none  \n> Repo-map: disabled  \n";

/// An input history entry: its time, and its `+<line>` lines.
type InputEntry = (String, String);

/// Writes Aider sessions into one chat history.
pub struct AiderWriter {
    history: PathBuf,
    inputs: PathBuf,
    /// The sessions' sections in file order: name, bytes, and whether it is in the file
    /// (else deleted, kept aside).
    sections: Vec<(String, Vec<u8>, bool)>,
    /// Inputs typed per session (each a second after the last, from its start).
    typed: HashMap<String, i64>,
    /// The rest of a half-written message, and the input history entry it makes.
    rest: Option<(Vec<u8>, Option<InputEntry>)>,
}

impl AiderWriter {
    /// When session `name` (`s<n>`) started: an hour apart per `n`, from 2026-03-01 08:00Z.
    fn started(name: &str) -> i64 {
        let n: i64 = name.trim_start_matches(|c: char| !c.is_ascii_digit()).parse().unwrap_or(99);
        1_772_352_000_000 + n * 3_600_000
    }

    fn local(ms: i64, format: &str) -> String {
        Local.timestamp_millis_opt(ms).unwrap().format(format).to_string()
    }

    fn section(&mut self, name: &str) -> usize {
        if let Some(at) = self.sections.iter().position(|(n, _, _)| n == name) {
            return at;
        }
        let header = format!("\n# aider chat started at {}\n\n{START_OUTPUT}", Self::local(Self::started(name), "%Y-%m-%d %H:%M:%S"));
        self.sections.push((name.to_string(), header.into_bytes(), true));
        self.sections.len() - 1
    }

    /// Writes the file from the sections in it.
    fn rewrite(&self) {
        let live: Vec<u8> = self.sections.iter().filter(|s| s.2).flat_map(|s| s.1.iter().copied()).collect();
        std::fs::write(&self.history, live).unwrap();
    }

    /// Adds `bytes` to session `name`: appended to the file when it is the last section.
    fn add(&mut self, name: &str, bytes: &[u8]) {
        let at = self.section(name);
        let last = self.sections.iter().rposition(|s| s.2) == Some(at);
        self.sections[at].1.extend_from_slice(bytes);
        if last {
            append_bytes(&self.history, bytes);
        } else {
            self.rewrite();
        }
    }

    /// The input history entry for `text` typed in session `name`: `(time, lines)`.
    fn input(&mut self, name: &str, text: &str) -> InputEntry {
        let n = self.typed.entry(name.to_string()).or_default();
        *n += 1;
        let at = Self::local(Self::started(name) + *n * 1000, "%Y-%m-%d %H:%M:%S") + ".123456";
        (at, text.split('\n').map(|l| format!("+{l}\n")).collect())
    }

    fn type_input(&self, (at, lines): InputEntry) {
        if !self.inputs.exists() {
            std::fs::write(&self.inputs, "").unwrap();
        }
        append_bytes(&self.inputs, format!("\n# {at}\n{lines}").as_bytes());
    }

    /// A message as Aider writes it: a prompt's lines, or a reply between blank lines.
    fn message(role: Role, text: &[u8]) -> Vec<u8> {
        match role {
            Role::User => {
                let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
                [b"\n#### ".as_slice(), &lines.join(b"  \n#### ".as_slice()), b"  \n"].concat()
            }
            Role::Assistant => [b"\n".as_slice(), text, b"\n\n"].concat(),
        }
    }

    fn append(&mut self, name: &str, role: Role, text: &[u8]) {
        self.add(name, &Self::message(role, text));
        if role == Role::User {
            let entry = self.input(name, &String::from_utf8_lossy(text));
            self.type_input(entry);
        }
    }

    /// Types command `input` (with its input history entry) and Aider's `output` for it.
    fn command(&mut self, name: &str, input: &str, output: &str) {
        self.add(name, format!("\n#### {input}  \n{output}").as_bytes());
        let entry = self.input(name, input);
        self.type_input(entry);
    }
}

/// `raw` with JSON's `\uXXXX` escapes decoded: a surrogate pair as its character, a lone
/// surrogate as U+FFFD; other bytes as they are.
fn decode_escapes(raw: &[u8]) -> Vec<u8> {
    let unit_at = |i: usize| -> Option<u32> {
        let hex = raw.get(i..i + 6)?.strip_prefix(b"\\u")?;
        u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let Some(unit) = unit_at(i) else {
            out.push(raw[i]);
            i += 1;
            continue;
        };
        i += 6;
        let c = match unit {
            0xD800..=0xDBFF => match unit_at(i).filter(|low| (0xDC00..=0xDFFF).contains(low)) {
                Some(low) => {
                    i += 6;
                    char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                }
                None => None,
            },
            _ => char::from_u32(unit),
        };
        out.extend_from_slice(c.unwrap_or('\u{fffd}').to_string().as_bytes());
    }
    out
}

impl SessionWriter for AiderWriter {
    const SOURCE: Source = Source::Aider;

    fn new(home: &Path) -> Self {
        let history = home.join(".aider.chat.history.md");
        std::fs::write(&history, "").unwrap();
        AiderWriter {
            history,
            inputs: home.join(".aider.input.history"),
            sections: Vec::new(),
            typed: HashMap::new(),
            rest: None,
        }
    }

    /// The reader's id: a hash of the history's path, and the start time's digits.
    fn session_id(&self, name: &str) -> String {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.history.to_string_lossy().bytes() {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        format!("aider-{:012x}-{}", hash & 0xffff_ffff_ffff, Self::local(Self::started(name), "%Y%m%d%H%M%S"))
    }

    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]) {
        self.sections.retain(|(n, _, _)| n != name);
        let at = self.section(name);
        // Back in the position it had (a rewritten session keeps its start).
        let mut inputs = Vec::new();
        for (role, text) in messages {
            self.sections[at].1.extend(Self::message(*role, text.as_bytes()));
            if *role == Role::User {
                inputs.push(self.input(name, text));
            }
        }
        self.sections.sort_by_key(|(n, _, _)| Self::started(n));
        self.rewrite();
        for entry in inputs {
            self.type_input(entry);
        }
    }

    fn append_message(&mut self, name: &str, role: Role, text: &str) {
        self.append(name, role, text.as_bytes());
    }

    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]) {
        self.append(name, role, &decode_escapes(raw));
    }

    fn append_half_message(&mut self, name: &str, role: Role, text: &str) {
        let at = self.section(name);
        assert_eq!(self.sections.iter().rposition(|s| s.2), Some(at), "only the last session is being written");
        let bytes = Self::message(role, text.as_bytes());
        // Cut inside the text's line, well before its end.
        let cut = bytes.len() - text.len() / 2 - 4;
        let entry = (role == Role::User).then(|| self.input(name, text));
        self.add(name, &bytes[..cut]);
        self.rest = Some((bytes[cut..].to_vec(), entry));
    }

    fn finish_half_message(&mut self, name: &str) {
        let (rest, entry) = self.rest.take().expect("a half-written message");
        self.add(name, &rest);
        if let Some(entry) = entry {
            self.type_input(entry);
        }
    }

    fn append_unknown_records(&mut self, name: &str) {
        self.command(name, "/add src/app.py", "> Added src/app.py to the chat  \n");
        self.command(
            name,
            "/tokens",
            "> Approximate context window usage for gpt-4o, in tokens:  \n> $ 0.0012      412 system messages  \n\
             > ==================  \n> $ 0.0012      412 tokens total  \n",
        );
        // `/settings` prints many lines as one output: `> ` before the first line only.
        self.command(name, "/settings", "> Aider v0.86.2\nMain model: gpt-4o with diff edit format\n\nWeak model: gpt-4o-mini  \n");
        self.add(name, b"\n#### <blank>  \n");
        self.add(name, b"\n#### Run shell command? (Y)es/(N)o/(A)ll/(S)kip all [Yes]: all  \n");
        self.add(
            name,
            b"> Tokens: 2.3k sent, 24 received. Cost: $0.0061 message, $0.0061 session.  \n\
              > Applied edit to src/app.py  \n> Commit 1a2b3c4 feat: Add greeting  \n",
        );
    }

    fn append_broken_record(&mut self, name: &str) {
        self.add(name, &[0u8; 24]);
        self.add(name, b"\n");
    }

    /// The history exists from the start: empty until a session is written.
    fn write_empty(&mut self, name: &str) {
        assert!(!self.sections.iter().any(|s| s.2), "{name}: the history holds sessions already");
        self.rewrite();
    }

    fn delete_session(&mut self, name: &str) {
        self.sections.iter_mut().filter(|s| s.0 == name).for_each(|s| s.2 = false);
        self.rewrite();
    }

    fn restore_session(&mut self, name: &str) {
        self.sections.iter_mut().filter(|s| s.0 == name).for_each(|s| s.2 = true);
        self.rewrite();
    }
}
