//! One suite for every reader: the promises a reader keeps about live, untrusted files
//! are written once (`promises.rs`) and run against each tool's format through
//! [`reader_suite!`], one `#[test]` per (reader, promise), so a failure names both
//! (`suite::codex::a_half_written_last_record_waits_until_it_is_complete`).
//!
//! Each reader supplies a [`SessionWriter`] (`writers/`): it writes sessions the way its
//! tool does, into a temporary home, and the suite reads them back through the library
//! (index, transcript, search) and through the reader alone, which must agree.
//!
//! The promises, for the JSON Lines formats (Claude Code, Codex, Gemini CLI) as written:
//! a half-written last line, invalid UTF-8, lone surrogate escapes (`\ud800`), a line over
//! 1 MB, unknown records, a record that is not JSON, an empty file, a file growing between
//! two reads, a file replaced by a shorter one. The opencode JSON tree is one file per
//! message and part, so a "line" is a file: a half-written part file, a part file with
//! invalid UTF-8 or a lone surrogate, a part file over 1 MB, a message folder growing or
//! emptied. opencode's SQLite database has no lines and no half-written rows, so each
//! promise is its equivalent there: a part row whose JSON is cut (updated later), invalid
//! UTF-8 or a lone surrogate escape in a `data` text column, a part row over 1 MB,
//! unknown part types, roles and tables, a zero-byte `opencode.db`, rows added between
//! two reads, and a session's rows replaced by fewer.
//!
//! None of these is an error: the suite also checks that no problem is reported for them
//! (problems are for what cannot be read at all: `confinement.rs`, `index.rs`).
//!
//! Then the promises of the archive (`keep.rs`): a session whose file is deleted (for the
//! database, whose rows are) stays, archived, with all its messages, listed, read and
//! searched; put back, unchanged or not, it is live again, once; forgotten, it is gone
//! until it has new activity, archived or not; with the setting off it vanishes; and a
//! deleted or rebuilt index still shows the archived sessions.

mod promises;
mod writers;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit, read_unit};
use memory_bank_sessions::{ErrorCode, ForgetArgs, Library, ListArgs, ReadArgs, Role, SessionInfo, Source};
use serde_json::json;

/// A tool's side of the suite: writes sessions in its format into a home. Sessions are
/// named by the suite (`"s1"`); the writer gives each the id its tool would
/// ([`SessionWriter::session_id`]).
pub trait SessionWriter {
    /// The tool.
    const SOURCE: Source;
    /// A writer into `home` (its tool's folders are made when first written).
    fn new(home: &Path) -> Self;
    /// The id the tool gives session `name` (a UUID, `ses_…`).
    fn session_id(&self, name: &str) -> String;
    /// Writes session `name` with these messages, replacing whatever it held (in place:
    /// the same file, or the same rows, cut to the new content).
    fn write_session(&mut self, name: &str, messages: &[(Role, &str)]);
    /// Adds a complete message at the end.
    fn append_message(&mut self, name: &str, role: Role, text: &str);
    /// Adds a message whose text, inside its JSON string, is the bytes `raw` as they are
    /// (so they can be invalid UTF-8, or an escape such as `\ud800`).
    fn append_raw_message(&mut self, name: &str, role: Role, raw: &[u8]);
    /// Adds the first half of a message's record: what a writer that has not flushed yet
    /// (or that is cut off) leaves.
    fn append_half_message(&mut self, name: &str, role: Role, text: &str);
    /// Completes the message [`SessionWriter::append_half_message`] began.
    fn finish_half_message(&mut self, name: &str);
    /// Adds records of kinds the reader does not know (new record types, roles, parts).
    fn append_unknown_records(&mut self, name: &str);
    /// Adds a record that is not JSON at all.
    fn append_broken_record(&mut self, name: &str);
    /// Creates session `name`'s file empty (zero bytes).
    fn write_empty(&mut self, name: &str);
    /// Deletes session `name` as its tool's cleanup does: its file (or its rows), moved
    /// aside so that [`SessionWriter::restore_session`] can put it back.
    fn delete_session(&mut self, name: &str);
    /// Puts back, unchanged, what [`SessionWriter::delete_session`] deleted.
    fn restore_session(&mut self, name: &str);
}

/// Expands to one `#[test]` per promise for `$writer`, in a module named after the reader.
macro_rules! reader_suite {
    ($reader:ident, $writer:ty) => {
        reader_suite!(@cases $reader, $writer;
            a_session_reads_back_whole,
            a_half_written_last_record_waits_until_it_is_complete,
            invalid_utf8_becomes_replacement_characters,
            lone_surrogate_escapes_become_replacement_characters,
            a_record_over_1_mb_is_kept_whole,
            unknown_records_are_skipped,
            a_record_that_is_not_json_loses_nothing_else,
            an_empty_file_lists_nothing_until_it_is_written,
            messages_added_between_two_reads_are_read,
            a_file_replaced_by_a_shorter_one_holds_only_the_new_messages,
            a_deleted_session_is_archived_with_all_its_messages,
            a_session_back_unchanged_is_live_again_once,
            a_session_back_with_other_messages_is_live_again_once,
            forgetting_a_live_session_hides_it_until_it_has_new_activity,
            forgetting_an_archived_session_is_for_good,
            with_keep_archived_off_a_deleted_session_vanishes,
            archived_sessions_survive_a_deleted_index,
            archived_sessions_survive_a_schema_change_of_the_index,
        );
    };
    (@cases $reader:ident, $writer:ty; $($case:ident),* $(,)?) => {
        mod $reader {
            $(
                #[test]
                fn $case() {
                    crate::suite::promises::$case::<$writer>();
                }
            )*
        }
    };
}

reader_suite!(claude_code, crate::suite::writers::ClaudeWriter);
reader_suite!(codex, crate::suite::writers::CodexWriter);
reader_suite!(gemini, crate::suite::writers::GeminiWriter);
reader_suite!(opencode_db, crate::suite::writers::OpencodeDbWriter);
reader_suite!(opencode_tree, crate::suite::writers::OpencodeTreeWriter);
reader_suite!(qwen_code, crate::suite::writers::QwenWriter);
reader_suite!(aider, crate::suite::writers::AiderWriter);
reader_suite!(cline, crate::suite::writers::ClineWriter);
reader_suite!(roo_code, crate::suite::writers::RooCodeWriter);
reader_suite!(chatgpt, crate::suite::writers::ChatgptWriter);
reader_suite!(claude_ai, crate::suite::writers::ClaudeAiWriter);
reader_suite!(cursor, crate::suite::writers::CursorWriter);
reader_suite!(goose_db, crate::suite::writers::GooseWriter);
reader_suite!(goose_jsonl, crate::suite::writers::GooseJsonlWriter);
reader_suite!(crush, crate::suite::writers::CrushWriter);
reader_suite!(zed, crate::suite::writers::ZedWriter);
reader_suite!(copilot_cli, crate::suite::writers::CopilotCliWriter);
reader_suite!(amp, crate::suite::writers::AmpWriter);

/// A home with one tool's sessions, the library over it (its index in a file), and what
/// each session should read as.
pub struct World<W: SessionWriter> {
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    /// The index file (its archive is beside it).
    pub index: PathBuf,
    pub writer: W,
    pub lib: Library,
    /// The messages each session holds, as written.
    expected: HashMap<String, Vec<(Role, String)>>,
    /// Messages written per session (their roles alternate, from the person).
    written: HashMap<String, usize>,
    /// A message whose record is half-written, per session.
    pending: HashMap<String, (Role, String)>,
}

impl<W: SessionWriter> World<W> {
    pub fn new() -> World<W> {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let index = dir.path().join("data/sessions-index.sqlite");
        let writer = W::new(&home);
        let lib = open_library(&home, &index);
        World { _dir: dir, home, index, writer, lib, expected: HashMap::new(), written: HashMap::new(), pending: HashMap::new() }
    }

    /// Closes the library, runs `while_closed` with the index file's path, and opens the
    /// library again (the app restarted).
    pub fn restart(&mut self, while_closed: impl FnOnce(&Path)) {
        // The old library (and its search indexer) closes when replaced.
        self.lib = Library::open(None, memory_bank_sessions::Roots::default(), None).unwrap();
        while_closed(&self.index);
        self.lib = open_library(&self.home, &self.index);
    }

    /// Forgets session `name`.
    pub fn forget(&self, name: &str) -> SessionInfo {
        self.lib.forget_session(ForgetArgs { session_id: Some(self.id(name)), source: None }).unwrap()
    }

    /// The sessions listed with status `status`, by name among `names`.
    pub fn listed_with_status(&self, status: &str, names: &[&str]) -> Vec<String> {
        let list = self.lib.list_sessions(ListArgs { status: Some(status.into()), limit: Some(json!(200)), ..Default::default() });
        let ids: Vec<String> = list.unwrap().sessions.into_iter().map(|s| s.session_id).collect();
        names.iter().filter(|n| ids.contains(&self.id(n))).map(|n| n.to_string()).collect()
    }

    /// Refreshes the library, which reports no problem: nothing here is an error.
    pub fn refresh(&self) {
        let report = self.lib.refresh().unwrap();
        assert!(report.problems.is_empty(), "{:?}", report.problems);
    }

    fn next_role(&mut self, name: &str) -> Role {
        let n = self.written.entry(name.to_string()).or_default();
        *n += 1;
        if *n % 2 == 1 { Role::User } else { Role::Assistant }
    }

    /// Writes session `name` with `texts`, from the person and the agent in turn.
    pub fn write(&mut self, name: &str, texts: &[&str]) {
        self.written.remove(name);
        let messages: Vec<(Role, &str)> = texts.iter().map(|t| (self.next_role(name), *t)).collect();
        self.writer.write_session(name, &messages);
        self.expected.insert(name.into(), messages.iter().map(|(r, t)| (*r, t.to_string())).collect());
    }

    pub fn append(&mut self, name: &str, text: &str) {
        let role = self.next_role(name);
        self.writer.append_message(name, role, text);
        self.expected.entry(name.into()).or_default().push((role, text.into()));
    }

    /// Appends a message of raw text bytes, which should read as `reads_as`.
    pub fn append_raw(&mut self, name: &str, raw: &[u8], reads_as: &str) {
        let role = self.next_role(name);
        self.writer.append_raw_message(name, role, raw);
        self.expected.entry(name.into()).or_default().push((role, reads_as.into()));
    }

    pub fn append_half(&mut self, name: &str, text: &str) {
        let role = self.next_role(name);
        self.writer.append_half_message(name, role, text);
        self.pending.insert(name.into(), (role, text.into()));
    }

    pub fn finish_half(&mut self, name: &str) {
        self.writer.finish_half_message(name);
        let message = self.pending.remove(name).expect("a half-written message");
        self.expected.entry(name.into()).or_default().push(message);
    }

    pub fn id(&self, name: &str) -> String {
        self.writer.session_id(name)
    }

    /// What session `name` should read as.
    pub fn expected(&self, name: &str) -> Vec<(Role, String)> {
        self.expected.get(name).cloned().unwrap_or_default()
    }

    /// The sessions listed with `name`'s id.
    pub fn listed(&self, name: &str) -> Vec<SessionInfo> {
        let id = self.id(name);
        let list = self.lib.list_sessions(ListArgs { query: Some(id.clone()), limit: Some(json!(200)), ..Default::default() });
        list.unwrap().sessions.into_iter().filter(|s| s.session_id == id).collect()
    }

    /// Every message of session `name` through the library, page by page.
    pub fn transcript(&self, name: &str) -> Vec<(Role, String)> {
        let id = self.id(name);
        let mut all = Vec::new();
        let mut before: Option<u64> = None;
        loop {
            let page = self.lib.read_transcript(ReadArgs {
                session_id: Some(id.clone()),
                count: Some(json!(30)),
                before: before.map(|b| json!(b)),
                ..Default::default()
            });
            let page = page.unwrap();
            let Some(first) = page.messages.first() else { break };
            before = Some(first.index);
            all.splice(0..0, page.messages.into_iter().map(|m| (m.role, m.text)));
            if before == Some(0) {
                break;
            }
        }
        all
    }

    /// Session `name` read by its reader alone, without an index.
    pub fn read_alone(&self, name: &str) -> Vec<(Role, String)> {
        let id = self.id(name);
        let reader = kit::reader(W::SOURCE);
        let mut found = Vec::new();
        for root in reader.default_roots(&kit::env_with_home(&self.home)) {
            let (units, problems) = kit::discover(reader, &root);
            assert!(problems.is_empty(), "{problems:?}");
            for unit in units {
                for session in read_unit(reader, &unit).unwrap() {
                    if session.session_id.as_deref() == Some(id.as_str()) {
                        found.push(session.messages.iter().map(|m| (m.role, m.text.clone())).collect::<Vec<_>>());
                    }
                }
            }
        }
        assert!(found.len() <= 1, "session {id} read {} times", found.len());
        found.pop().unwrap_or_default()
    }

    /// Session `name` is listed once, live, with the messages written, and the index and
    /// the reader alone agree on them.
    pub fn assert_reads_as_written(&self, name: &str) {
        self.assert_listed_as_written(name, false);
        assert_eq!(self.read_alone(name), self.expected(name), "{name} through the reader alone");
    }

    /// Session `name` is listed once (archived or not) and reads as written.
    pub fn assert_listed_as_written(&self, name: &str, archived: bool) {
        let expected = self.expected(name);
        let listed = self.listed(name);
        assert_eq!(listed.len(), 1, "{name} is listed once: {listed:?}");
        assert_eq!(listed[0].message_count, expected.len() as u64, "message count of {name}");
        assert_eq!(listed[0].source, W::SOURCE);
        assert_eq!((listed[0].archived, listed[0].archived_at.is_some()), (archived, archived), "{name} archived");
        assert_eq!(self.transcript(name), expected, "{name} through the index");
    }

    /// Session `name` is nowhere: not listed, not readable.
    pub fn assert_gone(&self, name: &str) {
        assert!(self.listed(name).is_empty(), "{name} is listed: {:?}", self.listed(name));
        let read = self.lib.read_transcript(ReadArgs { session_id: Some(self.id(name)), ..Default::default() });
        assert_eq!(read.unwrap_err().code, ErrorCode::SessionNotFound);
    }
}

fn open_library(home: &Path, index: &Path) -> Library {
    Library::open(Some(index), memory_bank_sessions::Roots::new(&kit::env_with_home(home), &[]), kit::suite_key()).unwrap()
}

/// A stable UUID (v4 layout) for a session name.
pub fn uuid_for(name: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}", hash >> 32, hash >> 16 & 0xffff, hash >> 4 & 0xfff, hash & 0xfff, hash & 0xffff_ffff_ffff)
}

/// What a writer puts where a message's raw text goes, then swaps for the raw bytes.
pub const RAW: &str = "RAW_TEXT_GOES_HERE";

/// `record` (serialized JSON holding [`RAW`] once) with `raw` in place of it.
pub fn splice(record: &str, raw: &[u8]) -> Vec<u8> {
    let at = record.find(RAW).expect("the record holds the placeholder");
    let mut out = record.as_bytes()[..at].to_vec();
    out.extend_from_slice(raw);
    out.extend_from_slice(&record.as_bytes()[at + RAW.len()..]);
    out
}

/// Times for the records a writer writes: a minute apart, from 2026-03-01T10:00Z.
#[derive(Debug)]
pub struct Clock(i64);

impl Default for Clock {
    fn default() -> Self {
        Clock(1_772_359_200_000)
    }
}

impl Clock {
    /// The next time, ms since the epoch.
    pub fn tick(&mut self) -> i64 {
        self.0 += 60_000;
        self.0
    }

    /// The next time as RFC 3339.
    pub fn tick_iso(&mut self) -> String {
        memory_bank_sessions::format_ms(self.tick()).unwrap()
    }
}

/// Appends `bytes` to the file at `path`.
pub fn append_bytes(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    std::fs::OpenOptions::new().append(true).open(path).unwrap().write_all(bytes).unwrap();
}
