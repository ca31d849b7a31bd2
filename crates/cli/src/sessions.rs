//! `memory-bank sessions …`: the session lookup actions for people and agents. The same
//! library functions answer the desktop app, so `--json` prints exactly its shapes.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use memory_bank_db_key::KeySource;
use memory_bank_sessions::{
    archive_path, source_folders, ActionError, Env, ErrorCode, ForgetArgs, LatestArgs, Library, ListArgs, OpenArgs, ReadArgs, Roots,
    SearchArgs, SessionInfo, Source, SourceSettings,
};
use serde::Serialize;
use serde_json::Value;

/// Arguments of `memory-bank sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Print JSON (the lookup actions' exact shapes) instead of text.
    #[arg(long, global = true)]
    json: bool,

    #[command(flatten)]
    library: LibraryOptions,

    #[command(subcommand)]
    command: SessionsCommand,
}

/// Which session folders are read and where their index is: the options of every door
/// over the session library (`memory-bank sessions`, `memory-bank mcp`).
#[derive(Debug, Clone, Args)]
pub(crate) struct LibraryOptions {
    /// The session index file (a cache; default: sessions-index.sqlite in
    /// $MEMORY_BANK_DATA_DIR or the app's data folder, shared with the desktop app). The
    /// archive of sessions their tool deleted, which is no cache, is
    /// sessions-archive.sqlite beside it.
    #[arg(long, global = true, env = "MEMORY_BANK_SESSIONS_INDEX", value_name = "FILE")]
    pub index: Option<PathBuf>,

    /// Also read this folder, as SOURCE=PATH (e.g. codex=/mnt/old/.codex); repeatable.
    #[arg(long = "root", global = true, value_name = "SOURCE=PATH", value_parser = parse_root)]
    pub roots: Vec<(Source, PathBuf)>,
}

impl LibraryOptions {
    /// Opens the library over the tools' default folders (from the process environment)
    /// and the extra roots, with its index; nothing is read until a refresh. The archive
    /// is encrypted with the key in `key_file` (the global `--db-key-file`) when one is
    /// given, else with its own OS keyring entry (plaintext where no keyring answers): the
    /// default `memory-bank mcp` and the app use for the bank.
    pub(crate) fn open(&self, key_file: Option<&Path>) -> Result<Library, ActionError> {
        let roots = Roots::enabled(&Env::from_process(), &self.roots, &source_settings()?);
        let index = self.index.clone().or_else(crate::folders::session_index);
        let key = match &index {
            Some(index) => {
                let archive = archive_path(index);
                let source = archive_key_source(&archive, key_file);
                let failed = |e: memory_bank_db_key::KeyError| ActionError {
                    code: ErrorCode::Index,
                    message: format!("Cannot open the session archive: {e}."),
                };
                let key = memory_bank_db_key::resolve_key(&archive, &source).map_err(failed)?;
                // An archive still under a key `db rekey` replaced in the key file moves to its new key.
                if let Some(key) = &key {
                    memory_bank_sessions::rekey_archive(&archive, key, &source.retired_keys().map_err(failed)?)?;
                }
                if self.index.is_none() {
                    if let Some(earlier) = crate::folders::earlier_session_index() {
                        adopt_earlier(&earlier, index, key.as_ref(), key_file);
                    }
                }
                key
            }
            None => None,
        };
        Library::open(index.as_deref(), roots, key)
    }
}

/// Where the key of the archive at `archive` is looked for: the key file when one is
/// given, else the archive's own keyring entry, plaintext where no keyring answers.
pub(crate) fn archive_key_source(archive: &Path, key_file: Option<&Path>) -> KeySource {
    KeySource::local_default(archive, key_file.map(Path::to_path_buf))
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    /// List sessions, newest first.
    List {
        /// At most this many (1–200).
        #[arg(long, default_value_t = 30)]
        limit: u64,
        /// Only this workspace (a path, or its last folder name).
        #[arg(long)]
        workspace: Option<String>,
        /// Only this tool (`sessions sources` lists them: claude-code, codex, opencode, gemini…).
        #[arg(long)]
        source: Option<String>,
        /// Only sessions whose title, workspace or id contains this text.
        #[arg(long)]
        query: Option<String>,
        /// Continue after the previous page (the cursor it printed).
        #[arg(long)]
        cursor: Option<String>,
        /// all, live (their files are there) or archived (kept after their tool deleted them).
        #[arg(long, default_value = "all")]
        status: String,
    },
    /// Show one session's details.
    Open {
        /// The session id.
        id: String,
        /// The tool, when an id could be ambiguous.
        #[arg(long)]
        source: Option<String>,
    },
    /// Print the last messages of a session (oldest first).
    Read {
        /// The session id.
        id: String,
        /// How many (clamped to 1–30; not a number means 10).
        #[arg(long, default_value = "10")]
        count: String,
        /// Only messages before this index (to page backwards).
        #[arg(long, value_name = "INDEX")]
        before: Option<u64>,
        /// Cut each message to this many characters (200–20000).
        #[arg(long, value_name = "N")]
        max_chars: Option<u64>,
    },
    /// Print the last message of a session.
    Latest {
        /// The session id.
        id: String,
        /// Cut the message to this many characters (200–20000).
        #[arg(long, value_name = "N")]
        max_chars: Option<u64>,
    },
    /// Forget a session: remove it from the index and the archive, live or archived. It stays
    /// forgotten until its tool adds to it.
    Forget {
        /// The session id.
        id: String,
        /// The tool, when an id could be ambiguous.
        #[arg(long)]
        source: Option<String>,
    },
    /// The tools whose sessions are read, where from (their default folders and any
    /// --root), whether each was found here, and which are turned off; --off/--on turn one
    /// off or on for every door (the app, `sessions`, `mcp`).
    Sources {
        /// Stop reading this source's sessions (they are hidden, not deleted).
        #[arg(long, value_name = "SOURCE", conflicts_with = "on")]
        off: Option<String>,
        /// Read this source's sessions again.
        #[arg(long, value_name = "SOURCE")]
        on: Option<String>,
    },
    /// Import a chat export (ChatGPT's or Claude.ai's .zip, or the conversations.json in
    /// it): its conversations are kept in the data folder and read like any session from
    /// then on. Importing again, or a newer export, updates what changed; ids stay the same.
    Import {
        /// The export file.
        file: PathBuf,
    },
    /// Find messages containing text (case-insensitive), newest first.
    Search {
        /// The text.
        query: String,
        /// At most this many hits (1–200).
        #[arg(long, default_value_t = 20)]
        limit: u64,
        /// Only sessions of this tool (`sessions sources` lists them).
        #[arg(long)]
        source: Option<String>,
        /// Only sessions in this workspace (a path, or its last folder name).
        #[arg(long)]
        workspace: Option<String>,
        /// Continue after the previous page (the cursor it printed).
        #[arg(long)]
        cursor: Option<String>,
    },
}

pub(crate) fn parse_root(text: &str) -> Result<(Source, PathBuf), String> {
    let (source, path) = text
        .split_once('=')
        .ok_or_else(|| format!("expected SOURCE=PATH, e.g. codex=/mnt/old/.codex; got {text:?}"))?;
    let source = Source::parse(source)
        .ok_or_else(|| format!("unknown source {source:?}; use one of {}", Source::names()))?;
    Ok((source, PathBuf::from(path)))
}

/// Takes the session data an earlier release kept beside `earlier` (the CLI's own folder)
/// into the library at `index`, under `key` (see `memory_bank_sessions::adopt_library`).
/// Never fails the command: what cannot be taken in now stays where it is, with a
/// warning, and the next run tries again.
fn adopt_earlier(earlier: &Path, index: &Path, key: Option<&memory_bank_sessions::DbKey>, key_file: Option<&Path>) {
    let archive = archive_path(earlier);
    if !earlier.exists() && !archive.exists() {
        return;
    }
    let left = |why: String| {
        tracing::warn!(
            "the session archive at {} could not be taken into {} ({why}); it is left as it is, and its sessions are \
             not shown until it is",
            archive.display(),
            archive_path(index).display()
        )
    };
    let from_key = match memory_bank_sqlcipher_file::file_state(&archive) {
        Ok(memory_bank_sqlcipher_file::FileState::Encrypted) => {
            let source = archive_key_source(&archive, key_file);
            match memory_bank_db_key::resolve_key(&archive, &source) {
                Ok(Some(found)) => {
                    if let Ok(retired) = source.retired_keys() {
                        let _ = memory_bank_sessions::rekey_archive(&archive, &found, &retired);
                    }
                    Some(found)
                }
                Ok(None) => return left("no key for it".into()),
                Err(e) => return left(e.to_string()),
            }
        }
        Ok(_) => None,
        Err(e) => return left(e.to_string()),
    };
    match memory_bank_sessions::adopt_library(earlier, from_key.as_ref(), index, key) {
        Ok(memory_bank_sessions::Adoption::Merged { sessions, forgotten }) => {
            tracing::info!(sessions, forgotten, "took the session archive of the earlier data folder into the app's")
        }
        Ok(memory_bank_sessions::Adoption::InUse) => left("another process has it open; it is taken in at a later run".into()),
        Ok(memory_bank_sessions::Adoption::Absent) => {}
        Err(e) => left(e.to_string()),
    }
}

/// Runs a `sessions` command; errors are printed here (JSON with `--json`).
/// `key_file`: the global `--db-key-file` / `MEMORY_BANK_DB_KEY_FILE` (the archive's key).
pub fn run(args: SessionsArgs, key_file: Option<PathBuf>) -> std::process::ExitCode {
    match answer(&args, key_file.as_deref()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            if args.json {
                eprintln!("{}", serde_json::to_string(&err).unwrap_or_default());
            } else {
                eprintln!("memory-bank: error: {}", err.message);
            }
            std::process::ExitCode::FAILURE
        }
    }
}

/// The person's choice of sources, kept in the app's data folder for every door (none
/// turned off when there is no data folder).
fn source_settings() -> Result<SourceSettings, ActionError> {
    match memory_bank_access::app_data_dir() {
        Some(dir) => SourceSettings::load(&dir).map_err(|message| ActionError { code: ErrorCode::Index, message }),
        None => Ok(SourceSettings::default()),
    }
}

/// `sessions sources`: turns a source off or on first, when asked, then lists them all.
fn sources(args: &SessionsArgs, off: Option<&str>, on: Option<&str>) -> Result<(), ActionError> {
    let mut settings = source_settings()?;
    if let Some((name, enabled)) = off.map(|n| (n, false)).or(on.map(|n| (n, true))) {
        let source = Source::parse(name).ok_or_else(|| ActionError {
            code: ErrorCode::InvalidRequest,
            message: format!("unknown source {name:?}; use one of {}", Source::names()),
        })?;
        let dir = memory_bank_access::app_data_dir().ok_or_else(|| ActionError {
            code: ErrorCode::Index,
            message: "cannot find the data folder to keep the setting in; set MEMORY_BANK_DATA_DIR".into(),
        })?;
        settings = settings.with(source, enabled);
        settings.save(&dir).map_err(|message| ActionError { code: ErrorCode::Index, message })?;
    }
    let listed = source_folders(&Env::from_process(), &args.library.roots, &settings);
    print(args.json, &listed, |out| {
        for source in &listed {
            let state = match (source.enabled, source.found) {
                (false, _) => "off",
                (true, true) => "found",
                (true, false) => "not found here",
            };
            writeln!(out, "{}  ({state})", source.source)?;
            if let Some(why) = &source.unreadable {
                writeln!(out, "  cannot be read: {why}")?;
            }
            if source.folders.is_empty() {
                writeln!(out, "  no default folder: add one with --root {}=PATH", source.source)?;
            }
            for folder in &source.folders {
                let mark = if folder.exists { "+" } else { "-" };
                let added = if folder.added { "  (added)" } else { "" };
                writeln!(out, "  {mark} {}{added}", folder.path.display())?;
            }
        }
        Ok(())
    })
}

/// `sessions import`: the export's conversations kept in the data folder.
fn import(args: &SessionsArgs, file: &Path) -> Result<(), ActionError> {
    let dir = memory_bank_access::app_data_dir().ok_or_else(|| ActionError {
        code: ErrorCode::Index,
        message: "cannot find the data folder to keep the conversations in; set MEMORY_BANK_DATA_DIR".into(),
    })?;
    let imported = memory_bank_sessions::import_chats(file, &dir).map_err(|e| {
        let code = match e {
            memory_bank_sessions::ImportError::NotAnExport { .. } => ErrorCode::InvalidRequest,
            _ => ErrorCode::Index,
        };
        ActionError { code, message: e.to_string() }
    })?;
    print(args.json, &imported, |out| {
        let source = imported.source.map(|s| s.as_str()).unwrap_or("chat");
        writeln!(
            out,
            "{} {source} conversations: {} new, {} updated, {} unchanged",
            imported.conversations, imported.added, imported.updated, imported.unchanged
        )?;
        if imported.skipped > 0 {
            writeln!(out, "{} entries were not conversations and were read past", imported.skipped)?;
        }
        writeln!(out, "They are listed with `memory-bank sessions list --source {source}`.")
    })
}

fn answer(args: &SessionsArgs, key_file: Option<&Path>) -> Result<(), ActionError> {
    if let SessionsCommand::Sources { off, on } = &args.command {
        return sources(args, off.as_deref(), on.as_deref());
    }
    if let SessionsCommand::Import { file } = &args.command {
        return import(args, file);
    }
    let library = args.library.open(key_file)?;
    let report = library.refresh()?;
    for problem in &report.problems {
        tracing::warn!(path = %problem.path.display(), "unreadable: {}", problem.message);
    }
    match &args.command {
        SessionsCommand::List { limit, workspace, source, query, cursor, status } => {
            let list = library.list_sessions(ListArgs {
                limit: Some(Value::from(*limit)),
                workspace: workspace.clone(),
                source: source.clone(),
                query: query.clone(),
                cursor: cursor.clone(),
                status: Some(status.clone()),
            })?;
            print(args.json, &list, |out| {
                writeln!(out, "{} of {} sessions, newest first", list.sessions.len(), list.total)?;
                for s in &list.sessions {
                    let updated = s.updated_at.as_deref().unwrap_or("-");
                    writeln!(out, "\n{}  {}  {} messages", updated.get(..16).unwrap_or(updated), s.source, s.message_count)?;
                    writeln!(out, "  {}", one_line(&s.title, 100))?;
                    writeln!(out, "  id {}  in {}", s.session_id, s.workspace.as_deref().unwrap_or("(unknown workspace)"))?;
                    if let Some(note) = archived_note(s) {
                        writeln!(out, "  {note}")?;
                    }
                }
                more(out, list.next_cursor.as_deref())
            })
        }
        SessionsCommand::Open { id, source } => {
            let info = library.open_session(OpenArgs { session_id: Some(id.clone()), source: source.clone() })?;
            print(args.json, &info, |out| {
                writeln!(out, "{}", info.title)?;
                writeln!(out, "id        {}", info.session_id)?;
                writeln!(out, "source    {}", info.source)?;
                writeln!(out, "workspace {}", info.workspace.as_deref().unwrap_or("-"))?;
                writeln!(out, "created   {}", info.created_at.as_deref().unwrap_or("-"))?;
                writeln!(out, "updated   {}", info.updated_at.as_deref().unwrap_or("-"))?;
                writeln!(out, "messages  {}", info.message_count)?;
                match archived_note(&info) {
                    Some(note) => writeln!(out, "{note}"),
                    None => Ok(()),
                }
            })
        }
        SessionsCommand::Forget { id, source } => {
            let info = library.forget_session(ForgetArgs { session_id: Some(id.clone()), source: source.clone() })?;
            print(args.json, &info, |out| {
                writeln!(out, "Forgot {} ({} {}).", one_line(&info.title, 100), info.source, info.session_id)?;
                writeln!(out, "It stays out of Memory Bank until {} adds to it.", info.source)
            })
        }
        SessionsCommand::Read { id, count, before, max_chars } => {
            let count = count.trim().parse::<f64>().map(Value::from).unwrap_or_else(|_| Value::from(count.clone()));
            let t = library.read_transcript(ReadArgs {
                session_id: Some(id.clone()),
                count: Some(count),
                before: before.map(Value::from),
                max_chars_per_message: max_chars.map(Value::from),
            })?;
            print(args.json, &t, |out| {
                writeln!(out, "{} ({} of {} messages)", one_line(&t.title, 100), t.returned, t.message_count)?;
                for m in &t.messages {
                    writeln!(out, "\n#{} {} {} [{}]", m.index, m.role.as_str(), m.timestamp.as_deref().unwrap_or(""), m.message_id)?;
                    writeln!(out, "{}{}", m.text, if m.truncated { "…" } else { "" })?;
                }
                Ok(())
            })
        }
        SessionsCommand::Latest { id, max_chars } => {
            let m = library
                .latest_message(LatestArgs { session_id: Some(id.clone()), max_chars: max_chars.map(Value::from) })?;
            print(args.json, &m, |out| {
                writeln!(out, "#{} {} {} [{}]", m.index, m.role.as_str(), m.timestamp.as_deref().unwrap_or(""), m.message_id)?;
                writeln!(out, "{}{}", m.text, if m.truncated { "…" } else { "" })
            })
        }
        SessionsCommand::Sources { .. } | SessionsCommand::Import { .. } => unreachable!("answered before the library is opened"),
        SessionsCommand::Search { query, limit, source, workspace, cursor } => {
            // The search index is built beside the refresh; a one-shot run waits for it
            // rather than scanning every message.
            library.wait_for_search_index()?;
            let result = library.search_messages(SearchArgs {
                query: Some(query.clone()),
                limit: Some(Value::from(*limit)),
                source: source.clone(),
                workspace: workspace.clone(),
                cursor: cursor.clone(),
            })?;
            print(args.json, &result, |out| {
                if result.hits.is_empty() {
                    writeln!(out, "No message contains {query:?}.")?;
                }
                for h in &result.hits {
                    writeln!(out, "{}  #{} {}  ({} {})", one_line(&h.title, 60), h.index, h.role.as_str(), h.source, h.session_id)?;
                    writeln!(out, "  {}", h.snippet)?;
                }
                more(out, result.next_cursor.as_deref())
            })
        }
    }
}

fn print<T: Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), ActionError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = if json {
        serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::other).and_then(|()| writeln!(out))
    } else {
        text(&mut out)
    };
    // A closed pipe (`| head`) is not an error worth reporting.
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("memory-bank: cannot write the answer: {e}");
            Ok(())
        }
        _ => Ok(()),
    }
}

/// "Archived: the original was removed on DATE", for a session its tool deleted.
fn archived_note(info: &SessionInfo) -> Option<String> {
    info.archived.then(|| {
        let at = info.archived_at.as_deref().unwrap_or("-");
        format!("Archived: the original was removed on {}", at.get(..10).unwrap_or(at))
    })
}

/// The line that tells how to get the next page, when there is one.
fn more(out: &mut dyn Write, next_cursor: Option<&str>) -> std::io::Result<()> {
    match next_cursor {
        Some(cursor) => writeln!(out, "\nMore: add --cursor {cursor}"),
        None => Ok(()),
    }
}

/// The first line of `text`, cut to `max` characters for a one-line display.
fn one_line(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return if line.is_empty() { "(untitled)".into() } else { line };
    }
    let mut cut: String = line.chars().take(max - 1).collect();
    cut.push('…');
    cut
}
