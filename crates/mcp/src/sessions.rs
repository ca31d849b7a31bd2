//! The session tools: `list_sessions`, `open_session`, `read_transcript`, `latest_message`
//! and `search_sessions`.
//!
//! Each maps its arguments onto one action of [`memory_bank_sessions::Library`], the same
//! actions the desktop app and `memory-bank sessions` call (paging, the per-message cap and
//! the search filters live there), then shapes the answer to the budget of [`crate::bounded`].
//! Field names are those of `memory-bank sessions … --json`. Limits that are this door's
//! own (a page of at most 100 sessions or 30 hits, the 2 000-character default per message)
//! are checked here, with the library's wording.
//!
//! Freshness, and why the server starts fast: agents spawn the server when they launch, so
//! nothing here runs before `initialize` is answered. [`Sessions::warm_up`] opens the
//! index and starts the first refresh on a thread of its own at launch; a session tool
//! called before that refresh is done waits for it (an answer from a half-read index would
//! say there are fewer sessions than there are). After that, a call refreshes first when
//! the last refresh is older than [`FRESH_FOR`] (a no-change refresh only compares file
//! sizes and times), and reading one session catches up on its appended messages anyway.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use memory_bank_sessions::{ActionError, LatestArgs, Library, ListArgs, OpenArgs, ReadArgs, SearchArgs, Source, TranscriptMessage};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router, ErrorData as McpError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::args::{drop_null_defaults, number, text, whole, ArgError};
use crate::bounded::{self, cap, fit_chars, fit_count, prefix, MAX_SNIPPET_CHARS, MAX_TITLE_CHARS, MAX_WORKSPACE_CHARS};
use crate::MemoryBankMcp;

/// How long a refresh counts as current: calls in a burst share one.
pub const FRESH_FOR: Duration = Duration::from_secs(3);

/// What the server tells agents about the session tools (part of its instructions).
pub const INSTRUCTIONS: &str = "Session tools: look up the person's past agent sessions on this machine \
(Claude Code, Codex, opencode, Gemini CLI). Find one with list_sessions or search_sessions, then pass its \
sessionId to open_session, read_transcript or latest_message. Every answer stays under 10 000 characters and \
says how much more there is: pass nextCursor back as cursor for the next page, olderBefore back as before to \
read further back; a message marked truncated was cut.";

/// Characters per message in `open_session` (before the budget cuts further).
const OPEN_CHARS: usize = 1000;
/// Characters of the message `latest_message` asks the library for.
const LATEST_CHARS: u32 = 8000;

/// The session library behind the session tools, opened and refreshed off the request path.
pub struct Sessions {
    open: Box<dyn Fn() -> Result<Library, ActionError> + Send + Sync>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    library: Option<Arc<Library>>,
    refreshed: Option<Instant>,
}

impl Sessions {
    /// The sessions of the library that `open` opens (the CLI passes its `--root`/`--index`
    /// options this way). Nothing is opened or read until [`Sessions::warm_up`] or the
    /// first session tool call; a failed open is tried again on the next call.
    pub fn new(open: impl Fn() -> Result<Library, ActionError> + Send + Sync + 'static) -> Sessions {
        Sessions { open: Box::new(open), state: Mutex::default() }
    }

    /// Opens the library and runs the first refresh on a thread of its own, now.
    pub fn warm_up(self: &Arc<Self>) {
        let sessions = Arc::clone(self);
        let started = std::thread::Builder::new().name("sessions-refresh".into()).spawn(move || {
            if let Err(e) = sessions.ready() {
                tracing::warn!("session index: {}", e.message);
            }
        });
        if let Err(e) = started {
            tracing::warn!("cannot start the session refresh thread ({e}); the first session tool call refreshes");
        }
    }

    /// The library, opened, and refreshed within the last [`FRESH_FOR`]. Blocks while
    /// another caller opens or refreshes it.
    pub fn ready(&self) -> Result<Arc<Library>, ActionError> {
        let mut state = lock(&self.state);
        let library = match &state.library {
            Some(library) => Arc::clone(library),
            None => {
                let library = Arc::new((self.open)()?);
                state.library = Some(Arc::clone(&library));
                library
            }
        };
        if state.refreshed.is_none_or(|at| at.elapsed() >= FRESH_FOR) {
            let first = state.refreshed.is_none();
            let report = library.refresh()?;
            for problem in &report.problems {
                if first {
                    tracing::warn!(path = %problem.path.display(), "unreadable: {}", problem.message);
                } else {
                    tracing::debug!(path = %problem.path.display(), "unreadable: {}", problem.message);
                }
            }
            state.refreshed = Some(Instant::now());
        }
        Ok(library)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Which sessions a listing shows.
#[derive(JsonSchema)]
#[schemars(inline)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // only its schema is used
enum StatusName {
    All,
    Live,
    Archived,
}

/// An agent tool (short names such as `claude` work too). Its schema lists
/// [`Source::ALL`], so a tool the library reads is one an agent can ask for.
struct SourceName;

impl JsonSchema for SourceName {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SourceName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Source::ALL.iter().map(|s| s.as_str()).collect();
        schemars::json_schema!({
            "type": "string",
            "description": "An agent tool (short names such as `claude` work too).",
            "enum": names,
        })
    }
}

// Every argument is read as any JSON value and checked in `crate::args`; the schemas say
// the types.

/// Arguments of `list_sessions`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = drop_null_defaults)]
pub struct ListSessionsParams {
    /// How many sessions per page, 1–100 (default 20). Fewer come back when a page would pass 10 000 characters.
    #[serde(default)]
    #[schemars(with = "u32", range(min = 1, max = 100), extend("default" = 20))]
    pub limit: Option<Value>,
    /// The nextCursor of the previous page; leave it out for the first page.
    #[serde(default)]
    #[schemars(with = "String")]
    pub cursor: Option<Value>,
    /// Only sessions whose title, workspace or id contains this text (case-insensitive).
    #[serde(default)]
    #[schemars(with = "String")]
    pub query: Option<Value>,
    /// Only sessions of this tool.
    #[serde(default)]
    #[schemars(with = "SourceName")]
    pub source: Option<Value>,
    /// Only sessions in this workspace: a path, or its last folder name.
    #[serde(default)]
    #[schemars(with = "String")]
    pub workspace: Option<Value>,
    /// `live` (their files are there), `archived` (kept after their tool deleted them), or `all` (default).
    #[serde(default)]
    #[schemars(with = "StatusName")]
    pub status: Option<Value>,
}

/// Arguments of `open_session` and `latest_message`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionParams {
    /// The session's id, as list_sessions or search_sessions gave it.
    #[schemars(with = "String")]
    pub session_id: Value,
}

/// Arguments of `read_transcript`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = drop_null_defaults)]
pub struct ReadTranscriptParams {
    /// The session's id, as list_sessions or search_sessions gave it.
    #[schemars(with = "String")]
    pub session_id: Value,
    /// How many messages, 1–30 (default 10): the last ones before `before`. Fewer come back when they would pass 10 000 characters.
    #[serde(default)]
    #[schemars(with = "u32", range(min = 1, max = 30), extend("default" = 10))]
    pub count: Option<Value>,
    /// Read the messages with a smaller index than this (default: up to the last message). Pass the olderBefore of the previous answer to read further back.
    #[serde(default)]
    #[schemars(with = "u64")]
    pub before: Option<Value>,
    /// Cut each message to this many characters, 200–20000 (default 2000); a cut message has truncated: true.
    #[serde(default)]
    #[schemars(with = "u32", range(min = 200, max = 20000), extend("default" = 2000))]
    pub max_chars_per_message: Option<Value>,
}

/// Arguments of `search_sessions`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = drop_null_defaults)]
pub struct SearchSessionsParams {
    /// Text a message must contain (case-insensitive), 1–1000 characters.
    #[schemars(with = "String", length(min = 1, max = 1000))]
    pub query: Value,
    /// How many hits per page, 1–30 (default 10). Fewer come back when a page would pass 10 000 characters.
    #[serde(default)]
    #[schemars(with = "u32", range(min = 1, max = 30), extend("default" = 10))]
    pub limit: Option<Value>,
    /// Only sessions of this tool.
    #[serde(default)]
    #[schemars(with = "SourceName")]
    pub source: Option<Value>,
    /// Only sessions in this workspace: a path, or its last folder name.
    #[serde(default)]
    #[schemars(with = "String")]
    pub workspace: Option<Value>,
    /// The nextCursor of the previous page; leave it out for the first page.
    #[serde(default)]
    #[schemars(with = "String")]
    pub cursor: Option<Value>,
}

#[tool_router(router = session_tools, vis = "pub(crate)")]
impl MemoryBankMcp {
    #[tool(
        name = "list_sessions",
        description = "List the agent sessions on this machine (Claude Code, Codex, opencode, Gemini CLI), newest first. \
Returns {total, sessions: [{sessionId, source, title, workspace, createdAt, updatedAt, messageCount}], nextCursor}; \
nextCursor is null on the last page. A session its tool deleted is kept and marked archived: true, archivedAt.",
        annotations(
            title = "List sessions",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    pub(crate) async fn list_sessions(&self, Parameters(p): Parameters<ListSessionsParams>) -> Result<CallToolResult, McpError> {
        self.on_sessions(move |library| list(library, p)).await
    }

    #[tool(
        name = "open_session",
        description = "One session's details and its first and last messages (each cut to 1000 characters). \
Returns {sessionId, source, title, workspace, createdAt, updatedAt, messageCount, firstMessages, lastMessages}, \
messages as {index, messageId, role, text, truncated}. Read the rest with read_transcript.",
        annotations(
            title = "Open a session",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    pub(crate) async fn open_session(&self, Parameters(p): Parameters<SessionParams>) -> Result<CallToolResult, McpError> {
        self.on_sessions(move |library| open(library, p)).await
    }

    #[tool(
        name = "read_transcript",
        description = "Messages of a session, oldest first: the last `count` before `before`. Returns {sessionId, title, \
messageCount, returned, messages: [{index, messageId, role, text, truncated}], olderBefore}; pass olderBefore as before \
to read further back (absent when the first message is included).",
        annotations(
            title = "Read a transcript",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    pub(crate) async fn read_transcript(
        &self,
        Parameters(p): Parameters<ReadTranscriptParams>,
    ) -> Result<CallToolResult, McpError> {
        self.on_sessions(move |library| read(library, p)).await
    }

    #[tool(
        name = "latest_message",
        description = "The last message of a session. Returns {sessionId, index, messageId, role, text, truncated}.",
        annotations(
            title = "Latest message",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    pub(crate) async fn latest_message(&self, Parameters(p): Parameters<SessionParams>) -> Result<CallToolResult, McpError> {
        self.on_sessions(move |library| latest(library, p)).await
    }

    #[tool(
        name = "search_sessions",
        description = "Find messages containing some text across all sessions, newest first. Returns {hits: [{sessionId, \
source, title, messageId, index, role, snippet}], nextCursor}; a snippet is the text around the match (at most 300 \
characters). Read around a hit with read_transcript (before = index + 1).",
        annotations(
            title = "Search sessions",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    pub(crate) async fn search_sessions(
        &self,
        Parameters(p): Parameters<SearchSessionsParams>,
    ) -> Result<CallToolResult, McpError> {
        self.on_sessions(move |library| search(library, p)).await
    }
}

impl MemoryBankMcp {
    /// Runs `action` on the fresh library, on a blocking thread (the library is synchronous
    /// SQLite); an [`ActionError`] becomes an `isError` result.
    async fn on_sessions(
        &self,
        action: impl FnOnce(&Library) -> Result<CallToolResult, ActionError> + Send + 'static,
    ) -> Result<CallToolResult, McpError> {
        let Some(sessions) = self.sessions.clone() else {
            return Ok(bounded::failure("unavailable", "This server has no session library."));
        };
        let outcome = tokio::task::spawn_blocking(move || sessions.ready().and_then(|library| action(&library))).await;
        Ok(match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => {
                let code = serde_json::to_value(e.code).ok().and_then(|v| v.as_str().map(String::from));
                bounded::failure(code.as_deref().unwrap_or("internal"), &e.message)
            }
            Err(e) => {
                tracing::error!("session tool failed: {e}");
                bounded::failure("internal", "The session lookup failed inside the server; nothing was changed. Try again.")
            }
        })
    }
}

/// The session id: a string that is not blank (the library would read its open session).
fn session_id(id: Value) -> Result<String, ArgError> {
    match id {
        Value::String(id) if !id.trim().is_empty() => Ok(id.trim().to_string()),
        _ => Err(ArgError("sessionId must be a session's id, a string: list_sessions or search_sessions give them.".into())),
    }
}

/// A message as the tools show it, its text cut to `max` characters.
fn message(m: &TranscriptMessage, max: usize) -> Value {
    let (text, cut) = prefix(&m.text, max);
    json!({"index": m.index, "messageId": m.message_id, "role": m.role, "text": text, "truncated": m.truncated || cut})
}

fn list(library: &Library, p: ListSessionsParams) -> Result<CallToolResult, ActionError> {
    let limit = whole(p.limit.as_ref(), 20, 1, 100, "limit")?;
    let mut list = library.list_sessions(ListArgs {
        limit: Some(limit.into()),
        workspace: text(p.workspace, "workspace")?,
        source: text(p.source, "source")?,
        query: text(p.query, "query")?,
        cursor: text(p.cursor, "cursor")?,
        status: text(p.status, "status")?,
    })?;
    for s in &mut list.sessions {
        s.title = cap(&s.title, MAX_TITLE_CHARS);
        s.workspace = s.workspace.as_deref().map(|w| cap(w, MAX_WORKSPACE_CHARS));
    }
    let (_, value) = fit_count(list.sessions.len(), |k| {
        let mut page = list.clone();
        page.keep_first(k);
        json!({"total": page.total, "sessions": page.sessions, "nextCursor": page.next_cursor})
    });
    Ok(bounded::answer(&value))
}

fn open(library: &Library, p: SessionParams) -> Result<CallToolResult, ActionError> {
    let id = session_id(p.session_id)?;
    let info = library.open_session(OpenArgs { session_id: Some(id.clone()), source: None })?;
    let page = |before: Option<u64>, count: u64| {
        library.read_transcript(ReadArgs {
            session_id: Some(id.clone()),
            count: Some(count.into()),
            before: before.map(Value::from),
            max_chars_per_message: Some(OPEN_CHARS.into()),
        })
    };
    let (first, last) = if info.message_count == 0 {
        (Vec::new(), Vec::new())
    } else {
        let first = page(Some(2), 2)?.messages;
        let shown = first.last().map_or(0, |m| m.index + 1);
        let last: Vec<_> = page(None, 3)?.messages.into_iter().filter(|m| m.index >= shown).collect();
        (first, last)
    };
    let value = fit_chars(OPEN_CHARS, |max| {
        let mut value = json!({
            "sessionId": info.session_id,
            "source": info.source,
            "title": cap(&info.title, MAX_TITLE_CHARS),
            "workspace": info.workspace.as_deref().map(|w| cap(w, MAX_WORKSPACE_CHARS)),
            "createdAt": info.created_at,
            "updatedAt": info.updated_at,
            "messageCount": info.message_count,
            "firstMessages": first.iter().map(|m| message(m, max)).collect::<Vec<_>>(),
            "lastMessages": last.iter().map(|m| message(m, max)).collect::<Vec<_>>(),
        });
        if info.archived {
            value["archived"] = true.into();
            value["archivedAt"] = info.archived_at.clone().into();
        }
        value
    });
    Ok(bounded::answer(&value))
}

fn read(library: &Library, p: ReadTranscriptParams) -> Result<CallToolResult, ActionError> {
    let id = session_id(p.session_id)?;
    let count = whole(p.count.as_ref(), 10, 1, 30, "count")?;
    let before = number(p.before, "before", "a message index (a whole number ≥ 0)")?;
    let max_chars = number(p.max_chars_per_message, "maxCharsPerMessage", "a whole number from 200 to 20000")?;
    let t = library.read_transcript(ReadArgs {
        session_id: Some(id),
        count: Some(count.into()),
        before,
        max_chars_per_message: Some(max_chars.unwrap_or_else(|| 2000.into())),
    })?;
    // The newest messages are kept: the older ones are what olderBefore then points at.
    let render = |kept: &[TranscriptMessage], max: usize| {
        let mut value = json!({
            "sessionId": t.session_id,
            "title": cap(&t.title, MAX_TITLE_CHARS),
            "messageCount": t.message_count,
            "returned": kept.len(),
            "messages": kept.iter().map(|m| message(m, max)).collect::<Vec<_>>(),
        });
        if t.archived {
            value["archived"] = true.into();
        }
        // Present only when there are older messages to read.
        if let Some(first) = kept.first().filter(|m| m.index > 0) {
            value["olderBefore"] = first.index.into();
        }
        value
    };
    let n = t.messages.len();
    let (k, mut value) = fit_count(n, |k| render(&t.messages[n - k..], usize::MAX));
    if k == 0 && n > 0 {
        // Even the newest message alone is too long: it is cut further.
        let newest = &t.messages[n - 1..];
        value = fit_chars(newest[0].text.chars().count(), |max| render(newest, max));
    }
    Ok(bounded::answer(&value))
}

fn latest(library: &Library, p: SessionParams) -> Result<CallToolResult, ActionError> {
    let id = session_id(p.session_id)?;
    let m = library.latest_message(LatestArgs { session_id: Some(id), max_chars: Some(LATEST_CHARS.into()) })?;
    let value = fit_chars(m.text.chars().count(), |max| {
        let (text, cut) = prefix(&m.text, max);
        let mut value = json!({"sessionId": m.session_id, "index": m.index, "messageId": m.message_id, "role": m.role,
               "text": text, "truncated": m.truncated || cut});
        if m.archived {
            value["archived"] = true.into();
        }
        value
    });
    Ok(bounded::answer(&value))
}

fn search(library: &Library, p: SearchSessionsParams) -> Result<CallToolResult, ActionError> {
    let limit = whole(p.limit.as_ref(), 10, 1, 30, "limit")?;
    let query = text(Some(p.query), "query")?;
    let mut result = library.search_messages(SearchArgs {
        query,
        limit: Some(limit.into()),
        source: text(p.source, "source")?,
        workspace: text(p.workspace, "workspace")?,
        cursor: text(p.cursor, "cursor")?,
    })?;
    for h in &mut result.hits {
        h.title = cap(&h.title, MAX_TITLE_CHARS);
        h.snippet = cap(&h.snippet, MAX_SNIPPET_CHARS);
    }
    let (_, value) = fit_count(result.hits.len(), |k| {
        let mut page = result.clone();
        page.keep_first(k);
        json!({"hits": page.hits, "nextCursor": page.next_cursor})
    });
    Ok(bounded::answer(&value))
}
