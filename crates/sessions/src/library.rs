//! The lookup actions. The desktop app's commands, the CLI and the MCP server
//! call exactly these functions, so they answer identically.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use memory_bank_sqlcipher_file::DbKey;
use serde_json::Value;

use crate::actions::{
    ActionError, ActivityArgs, ErrorCode, ForgetArgs, LatestArgs, ListArgs, OpenArgs, ReadArgs, SearchArgs,
    MAX_MESSAGE_CHARS, MAX_QUERY_CHARS, MIN_MESSAGE_CHARS,
};
use crate::archive::{archive_path, Archive};
use crate::index::{
    Facets, Index, IndexError, ListCursor, ListFilter, RefreshReport, SearchCursor, SearchFilter, SessionStatus,
};
use crate::model::{Activity, LatestMessage, SearchResult, SessionInfo, SessionList, Source, Transcript};
use crate::overview::SourceSettings;
use crate::source::Env;
use crate::search_worker::SearchWorker;
use crate::sources;

/// Where the readers look: each tool's default folders in an [`Env`], plus extra folders.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Roots(pub Vec<(Source, PathBuf)>);

impl Roots {
    /// Every tool's default folders in `env`, then `extra` (folders added in settings).
    pub fn new(env: &Env, extra: &[(Source, PathBuf)]) -> Roots {
        let mut roots: Vec<(Source, PathBuf)> = Vec::new();
        for reader in sources::all() {
            for root in reader.default_roots(env) {
                roots.push((reader.source(), root));
            }
        }
        for root in extra {
            if !roots.contains(root) {
                roots.push(root.clone());
            }
        }
        Roots(roots)
    }

    /// [`Roots::new`] without the sources `settings` turned off: their folders are not
    /// read, so their sessions are neither shown nor taken as deleted.
    pub fn enabled(env: &Env, extra: &[(Source, PathBuf)], settings: &SourceSettings) -> Roots {
        let Roots(all) = Roots::new(env, extra);
        Roots(all.into_iter().filter(|(source, _)| settings.enabled(*source)).collect())
    }

    fn keys(&self) -> Vec<String> {
        self.0.iter().map(|(_, p)| p.to_string_lossy().into_owned()).collect()
    }
}

/// The sessions on this machine: an index plus the folders it mirrors.
pub struct Library {
    writer: Mutex<Index>,
    /// A second connection so lookups are not blocked while a refresh writes (WAL).
    reader: Option<Mutex<Index>>,
    roots: Roots,
    root_keys: Vec<String>,
    open: Mutex<Option<(Source, String)>>,
    /// Builds the message search index beside a file-backed index (in memory, a refresh
    /// builds it itself).
    search: Option<SearchWorker>,
    /// Called after each commit of a refresh (see [`Library::on_progress`]).
    progress: Arc<Mutex<Option<Progress>>>,
    /// Whether [`Library::refresh`] is running: the catch-up before a transcript read
    /// commits too, but reports no progress (the app reads transcripts on progress).
    refreshing: Arc<AtomicBool>,
    /// The setting "Keep sessions after the tool deletes them" (see
    /// [`Library::set_keep_archived`]).
    keep_archived: AtomicBool,
}

/// What [`Library::on_progress`] calls.
type Progress = Box<dyn Fn() + Send>;

impl Library {
    /// Opens the index at `index_path` (in memory when `None`) for `roots`, with the
    /// archive beside it ([`archive_path`]; in memory too without an index file), which is
    /// encrypted with `archive_key` when one is given (the door finds it by the bank's
    /// rules: `memory_bank_db_key::resolve_key`), and so is the index with its search
    /// file (a plaintext index, or one under another key, is rebuilt). Call
    /// [`Library::refresh`] before the first lookup.
    pub fn open(index_path: Option<&Path>, roots: Roots, archive_key: Option<DbKey>) -> Result<Library, ActionError> {
        let (mut writer, reader, search) = match index_path {
            Some(path) => {
                // The archive first: a wrong or missing key stops here, before the index
                // (whose key is the archive's) is touched.
                let archive = Archive::open(&archive_path(path), archive_key.as_ref())?;
                // Archived sessions' messages are in the index too, so it is encrypted
                // whenever the archive is. A plaintext archive that another process has
                // open (an earlier release) keeps the index plaintext as well: that
                // process uses it, and a keyed open would delete it under it.
                let key = archive.key().cloned();
                let mut writer = Index::open(path, key.as_ref())?;
                writer.attach_archive(archive)?;
                let reader = Index::open(path, key.as_ref())?;
                let worker = SearchWorker::start(Index::open(path, key.as_ref())?).map_err(|e| {
                    ActionError::new(ErrorCode::Index, format!("Could not start the search indexer: {e}"))
                })?;
                (writer, Some(Mutex::new(reader)), Some(worker))
            }
            None => {
                let mut writer = Index::in_memory()?;
                writer.attach_archive(Archive::in_memory()?)?;
                (writer, None, None)
            }
        };
        let progress: Arc<Mutex<Option<Progress>>> = Arc::default();
        let refreshing = Arc::new(AtomicBool::new(false));
        let wake_search = search.as_ref().map(SearchWorker::waker);
        writer.set_on_commit(Box::new({
            let (progress, refreshing) = (Arc::clone(&progress), Arc::clone(&refreshing));
            move || {
                if let Some(wake) = &wake_search {
                    wake();
                }
                if refreshing.load(Ordering::Relaxed) {
                    if let Some(report) = lock(&progress).as_ref() {
                        report();
                    }
                }
            }
        }));
        let root_keys = roots.keys();
        let open = Mutex::new(None);
        let keep_archived = AtomicBool::new(true);
        Ok(Library { writer: Mutex::new(writer), reader, roots, root_keys, open, search, progress, refreshing, keep_archived })
    }

    /// Calls `progress` after each commit of a refresh: a long first index commits every
    /// 64 MB of source, and what it committed can be listed and read at once, so the app
    /// shows sessions as they are indexed rather than all at the end. It runs on the
    /// refreshing thread, with the index's writer held: lookups work, refreshes wait.
    pub fn on_progress(&self, progress: impl Fn() + Send + 'static) {
        *lock(&self.progress) = Some(Box::new(progress));
    }

    /// Commits after every `bytes` of source read instead of 64 MB (tests use a small
    /// value to see a refresh in many commits).
    #[doc(hidden)]
    pub fn set_commit_every(&self, bytes: u64) {
        lock(&self.writer).set_commit_every(bytes);
    }

    /// Waits until message search is served by the search index, which a refresh brings
    /// up to date in the background (until then, search scans the stored texts: the same
    /// answers, more slowly). One-shot callers like the CLI wait before searching.
    pub fn wait_for_search_index(&self) -> Result<(), ActionError> {
        match &self.search {
            Some(worker) => Ok(worker.wait_idle()?),
            None => Ok(()),
        }
    }

    /// The folders read.
    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    /// The setting "Keep sessions after the tool deletes them" (on by default). On, a
    /// session whose file (or database row) disappears stays, archived: listed with its
    /// archive time, readable, searchable, its ids unchanged. Off, it is dropped at the
    /// next refresh. Sessions archived before it was turned off stay until forgotten.
    pub fn set_keep_archived(&self, keep: bool) {
        self.keep_archived.store(keep, Ordering::Relaxed);
    }

    /// Whether sessions are kept after their tool deletes them ([`Library::set_keep_archived`]).
    pub fn keeps_archived(&self) -> bool {
        self.keep_archived.load(Ordering::Relaxed)
    }

    /// Reads what changed in the source folders since the last refresh.
    pub fn refresh(&self) -> Result<RefreshReport, ActionError> {
        let mut writer = lock(&self.writer);
        writer.set_keep_archived(self.keeps_archived());
        self.refreshing.store(true, Ordering::Relaxed);
        let report = writer.refresh(&self.roots.0);
        self.refreshing.store(false, Ordering::Relaxed);
        Ok(report?)
    }

    fn with_reader<T>(&self, f: impl FnOnce(&Index) -> Result<T, IndexError>) -> Result<T, ActionError> {
        match &self.reader {
            Some(reader) => Ok(f(&lock(reader))?),
            None => Ok(f(&lock(&self.writer))?),
        }
    }

    /// `list_sessions`: newest first, with the total that matched.
    pub fn list_sessions(&self, args: ListArgs) -> Result<SessionList, ActionError> {
        let limit = parse_limit(args.limit.as_ref(), 30, "limit")?;
        let source = parse_source(args.source.as_deref())?;
        let after = parse_cursor(args.cursor, ListCursor::decode)?;
        let status = parse_status(args.status.as_deref())?;
        let filter =
            ListFilter { limit, workspace: non_empty(args.workspace), source, query: non_empty(args.query), after, status };
        self.with_reader(|index| index.list(&self.root_keys, &filter))
    }

    /// Sessions per tool and per workspace (for filters).
    pub fn facets(&self) -> Result<Facets, ActionError> {
        self.with_reader(|index| index.facets(&self.root_keys))
    }

    /// `open`: the session's metadata; it becomes the open session.
    pub fn open_session(&self, args: OpenArgs) -> Result<SessionInfo, ActionError> {
        let info = self.session_info(args)?;
        *lock(&self.open) = Some((info.source, info.session_id.clone()));
        Ok(info)
    }

    /// The session's metadata, like `open` but without making it the open session (the
    /// app checks whether a memory's cited session is on this machine this way).
    pub fn session_info(&self, args: OpenArgs) -> Result<SessionInfo, ActionError> {
        let Some(id) = non_empty(args.session_id) else {
            return Err(ActionError::invalid("sessionId is required."));
        };
        let source = parse_source(args.source.as_deref())?;
        Ok(self.find(&id, source)?.info)
    }

    /// `read_transcript`: the last `count` messages before `before`, oldest first.
    pub fn read_transcript(&self, args: ReadArgs) -> Result<Transcript, ActionError> {
        let count = clamp_count(args.count.as_ref());
        let max_chars = parse_max_chars(args.max_chars_per_message.as_ref(), "maxCharsPerMessage")?;
        let found = self.session_or_open(args.session_id)?;
        let total = found.info.message_count;
        if total == 0 {
            return Err(no_messages(&found.info));
        }
        let before = match args.before.as_ref() {
            None | Some(Value::Null) => total,
            Some(v) => v
                .as_u64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                .ok_or_else(|| ActionError::invalid("before must be a message index (a whole number ≥ 0)."))?
                .min(total),
        };
        let messages = self.with_reader(|index| index.messages_before_capped(found.row, before, count, max_chars))?;
        Ok(Transcript {
            session_id: found.info.session_id,
            title: found.info.title,
            message_count: total,
            returned: messages.len() as u64,
            messages,
            archived: found.info.archived,
        })
    }

    /// `latest_message`: the last message of the session.
    pub fn latest_message(&self, args: LatestArgs) -> Result<LatestMessage, ActionError> {
        let max_chars = parse_max_chars(args.max_chars.as_ref(), "maxChars")?;
        let found = self.session_or_open(args.session_id)?;
        let total = found.info.message_count;
        let last = self
            .with_reader(|index| index.messages_before_capped(found.row, total, 1, max_chars))?
            .pop()
            .ok_or_else(|| no_messages(&found.info))?;
        Ok(LatestMessage {
            session_id: found.info.session_id,
            index: last.index,
            message_id: last.message_id,
            role: last.role,
            text: last.text,
            timestamp: last.timestamp,
            truncated: last.truncated,
            archived: found.info.archived,
        })
    }

    /// The tool calls around messages `fromIndex` to `toIndex` (shown collapsed in the app).
    pub fn session_activity(&self, args: ActivityArgs) -> Result<Activity, ActionError> {
        let found = self.session_or_open(args.session_id)?;
        let index = |v: Option<&Value>, default: i64, name: &str| match v {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_i64()
                .filter(|n| *n >= 0)
                .ok_or_else(|| ActionError::invalid(format!("{name} must be a message index (a whole number ≥ 0)."))),
        };
        let last = found.info.message_count as i64 - 1;
        let from = index(args.from_index.as_ref(), 0, "fromIndex")?;
        let to = index(args.to_index.as_ref(), last, "toIndex")?;
        let activity = self.with_reader(|i| i.activity(found.row, from, to))?;
        Ok(Activity { activity })
    }

    /// `search_messages`: messages containing the query, newest first.
    pub fn search_messages(&self, args: SearchArgs) -> Result<SearchResult, ActionError> {
        let limit = parse_limit(args.limit.as_ref(), 20, "limit")?;
        let query = args.query.unwrap_or_default();
        let query = query.trim();
        if query.is_empty() {
            return Err(ActionError::invalid("query is required: the text a message must contain."));
        }
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(ActionError::invalid(format!("query is longer than {MAX_QUERY_CHARS} characters.")));
        }
        let filter = SearchFilter {
            source: parse_source(args.source.as_deref())?,
            workspace: non_empty(args.workspace),
            after: parse_cursor(args.cursor, SearchCursor::decode)?,
        };
        self.with_reader(|index| index.search_page(&self.root_keys, query, &filter, limit))
    }

    /// `forget_session`: removes the session from the index and from the archive, its
    /// search entries included, whether it is live or archived. It stays forgotten (across
    /// refreshes, restarts and rebuilt indexes) until its tool adds to it: a session with
    /// activity after its last activity when forgotten comes back, whole. Returns what was
    /// forgotten.
    pub fn forget_session(&self, args: ForgetArgs) -> Result<SessionInfo, ActionError> {
        let Some(id) = non_empty(args.session_id) else {
            return Err(ActionError::invalid("sessionId is required."));
        };
        let source = parse_source(args.source.as_deref())?;
        let forgotten = lock(&self.writer).forget(&self.root_keys, &id, source)?;
        let info = forgotten.into_iter().next().ok_or_else(|| not_found(&id))?.info;
        let mut open = lock(&self.open);
        if open.as_ref().is_some_and(|(s, open_id)| *s == info.source && *open_id == info.session_id) {
            *open = None;
        }
        Ok(info)
    }

    fn find(&self, id: &str, source: Option<Source>) -> Result<crate::index::FoundSession, ActionError> {
        let found = self.with_reader(|index| index.find(&self.root_keys, id, source))?;
        let found = found.ok_or_else(|| not_found(id))?;
        // Catch up on messages appended since the last refresh, unless a refresh is
        // running (it reads them anyway; waiting for a long first index would stall).
        match self.writer.try_lock() {
            Ok(mut writer) => writer.refresh_unit_of(found.row)?,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner().refresh_unit_of(found.row)?,
            Err(std::sync::TryLockError::WouldBlock) => {}
        }
        let fresh = self.with_reader(|index| index.find(&self.root_keys, id, source))?;
        Ok(fresh.unwrap_or(found))
    }

    fn session_or_open(&self, id: Option<String>) -> Result<crate::index::FoundSession, ActionError> {
        match non_empty(id) {
            Some(id) => self.find(&id, None),
            None => {
                let open = lock(&self.open).clone();
                let (source, id) = open.ok_or_else(|| {
                    ActionError::new(
                        ErrorCode::NoOpenSession,
                        "No session is open. Pass a sessionId (list_sessions shows them) or open one first.",
                    )
                })?;
                self.find(&id, Some(source))
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn not_found(id: &str) -> ActionError {
    ActionError::new(
        ErrorCode::SessionNotFound,
        format!("No session with id {id:?} was found on this machine; call list_sessions to find the id."),
    )
}

fn no_messages(info: &SessionInfo) -> ActionError {
    ActionError::new(
        ErrorCode::NoMessages,
        format!("Session {} has no messages yet.", info.session_id),
    )
}

fn parse_source(source: Option<&str>) -> Result<Option<Source>, ActionError> {
    match source.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(name) => Source::parse(name).map(Some).ok_or_else(|| {
            ActionError::invalid(format!(
                "Unknown source {name:?}. Use one of: {}.", Source::names()
            ))
        }),
    }
}

fn parse_status(status: Option<&str>) -> Result<SessionStatus, ActionError> {
    match status.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(SessionStatus::All),
        Some(name) => SessionStatus::parse(name).ok_or_else(|| {
            ActionError::invalid(format!(
                "Unknown status {name:?}. Use one of: all, live (their source is there), archived (kept after their tool deleted them)."
            ))
        }),
    }
}

/// A whole number from 1 to 200 (a numeric string is accepted), else a clear error.
fn parse_limit(v: Option<&Value>, default: u32, name: &str) -> Result<u32, ActionError> {
    let n = match v {
        None | Some(Value::Null) => return Ok(default),
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n @ 1..=200) => Ok(n as u32),
        _ => Err(ActionError::invalid(format!("{name} must be a whole number from 1 to 200."))),
    }
}

/// An optional cursor given out by an earlier page of the same action.
fn parse_cursor<T>(cursor: Option<String>, decode: fn(&str) -> Option<T>) -> Result<Option<T>, ActionError> {
    match non_empty(cursor) {
        None => Ok(None),
        Some(text) => decode(&text).map(Some).ok_or_else(|| {
            ActionError::invalid(
                "cursor is not one this action gave out: pass the nextCursor of the previous page unchanged, \
                 or leave it out to start from the first page.",
            )
        }),
    }
}

/// An optional per-message character cap: a whole number in the accepted range (a numeric
/// string is accepted), else a clear error.
fn parse_max_chars(v: Option<&Value>, name: &str) -> Result<Option<u32>, ActionError> {
    let n = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if (u64::from(MIN_MESSAGE_CHARS)..=u64::from(MAX_MESSAGE_CHARS)).contains(&n) => Ok(Some(n as u32)),
        _ => Err(ActionError::invalid(format!(
            "{name} must be a whole number from {MIN_MESSAGE_CHARS} to {MAX_MESSAGE_CHARS}."
        ))),
    }
}

/// The transcript count rule: a number is clamped to 1–30; anything else means 10.
fn clamp_count(v: Option<&Value>) -> u64 {
    match v.and_then(Value::as_f64) {
        Some(n) if n.is_finite() => n.floor().clamp(1.0, 30.0) as u64,
        _ => 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn count_is_clamped_and_non_numbers_mean_ten() {
        assert_eq!(clamp_count(None), 10);
        assert_eq!(clamp_count(Some(&json!("5"))), 10);
        assert_eq!(clamp_count(Some(&json!(0))), 1);
        assert_eq!(clamp_count(Some(&json!(-3))), 1);
        assert_eq!(clamp_count(Some(&json!(99))), 30);
        assert_eq!(clamp_count(Some(&json!(7.9))), 7);
    }

    #[test]
    fn message_caps_outside_the_range_are_errors() {
        assert_eq!(parse_max_chars(None, "maxChars").unwrap(), None);
        assert_eq!(parse_max_chars(Some(&json!(200)), "maxChars").unwrap(), Some(200));
        assert_eq!(parse_max_chars(Some(&json!("20000")), "maxChars").unwrap(), Some(20_000));
        for bad in [json!(199), json!(20_001), json!(-1), json!(300.5), json!("all"), json!(false)] {
            let err = parse_max_chars(Some(&bad), "maxChars").unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest);
            assert_eq!(err.message, "maxChars must be a whole number from 200 to 20000.");
        }
    }

    #[test]
    fn limits_outside_the_range_are_errors() {
        assert_eq!(parse_limit(None, 30, "limit").unwrap(), 30);
        assert_eq!(parse_limit(Some(&json!(200)), 30, "limit").unwrap(), 200);
        assert_eq!(parse_limit(Some(&json!("15")), 30, "limit").unwrap(), 15);
        for bad in [json!(0), json!(201), json!(-1), json!(1.5), json!("many"), json!(true)] {
            assert_eq!(parse_limit(Some(&bad), 30, "limit").unwrap_err().code, ErrorCode::InvalidRequest);
        }
    }
}
