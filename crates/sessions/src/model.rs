//! The shapes the lookup actions answer with (camelCase on the wire). What a parser
//! emits while reading a file is in `events.rs`: it never leaves the crate.

use serde::{Deserialize, Serialize};

/// The agent tool a session was recorded by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Claude Code (`~/.claude/projects`).
    ClaudeCode,
    /// OpenAI Codex CLI (`~/.codex/sessions`).
    Codex,
    /// opencode and OpenWork (`~/.local/share/opencode`).
    Opencode,
    /// Gemini CLI (`~/.gemini/tmp`).
    Gemini,
    /// Qwen Code (`~/.qwen`).
    QwenCode,
    /// Cursor's agent and chat history (its `state.vscdb` stores).
    Cursor,
    /// GitHub Copilot CLI (`~/.copilot`).
    CopilotCli,
    /// Amp, Sourcegraph's agent (its threads).
    Amp,
    /// goose, Block's agent (its sessions).
    Goose,
    /// Crush, Charm's agent (`.crush` in each project).
    Crush,
    /// Zed's agent threads.
    Zed,
    /// Aider (`.aider.chat.history.md` in each repository).
    Aider,
    /// Cline, the VS Code extension (its global storage's `tasks`).
    Cline,
    /// Roo Code, the VS Code extension (its global storage's `tasks`).
    RooCode,
    /// Windsurf's Cascade conversations.
    Windsurf,
    /// Google Antigravity's agent conversations.
    Antigravity,
    /// ChatGPT conversations imported from its data export.
    Chatgpt,
    /// Claude.ai conversations imported from its data export.
    ClaudeAi,
}

impl Source {
    /// Every source, in display order.
    pub const ALL: [Source; 18] = [
        Source::ClaudeCode,
        Source::Codex,
        Source::Opencode,
        Source::Gemini,
        Source::QwenCode,
        Source::Cursor,
        Source::CopilotCli,
        Source::Amp,
        Source::Goose,
        Source::Crush,
        Source::Zed,
        Source::Aider,
        Source::Cline,
        Source::RooCode,
        Source::Windsurf,
        Source::Antigravity,
        Source::Chatgpt,
        Source::ClaudeAi,
    ];

    /// The stable name used on the wire, in the CLI and in the index.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::ClaudeCode => "claude-code",
            Source::Codex => "codex",
            Source::Opencode => "opencode",
            Source::Gemini => "gemini",
            Source::QwenCode => "qwen-code",
            Source::Cursor => "cursor",
            Source::CopilotCli => "copilot-cli",
            Source::Amp => "amp",
            Source::Goose => "goose",
            Source::Crush => "crush",
            Source::Zed => "zed",
            Source::Windsurf => "windsurf",
            Source::Antigravity => "antigravity",
            Source::Aider => "aider",
            Source::Cline => "cline",
            Source::RooCode => "roo-code",
            Source::Chatgpt => "chatgpt",
            Source::ClaudeAi => "claude-ai",
        }
    }

    /// Every wire name, comma-separated, for messages that say what to type.
    pub fn names() -> String {
        Source::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
    }

    /// Parses a wire name; also accepts the short forms people type (`claude`).
    pub fn parse(name: &str) -> Option<Source> {
        match name.trim().to_ascii_lowercase().as_str() {
            "claude-code" | "claude" | "claude_code" | "claudecode" => Some(Source::ClaudeCode),
            "codex" => Some(Source::Codex),
            "opencode" | "openwork" => Some(Source::Opencode),
            "gemini" | "gemini-cli" => Some(Source::Gemini),
            "qwen-code" | "qwen" | "qwen_code" | "qwencode" => Some(Source::QwenCode),
            "cursor" => Some(Source::Cursor),
            "copilot-cli" | "copilot" | "github-copilot" | "copilot_cli" => Some(Source::CopilotCli),
            "amp" | "ampcode" => Some(Source::Amp),
            "goose" => Some(Source::Goose),
            "crush" => Some(Source::Crush),
            "zed" => Some(Source::Zed),
            "windsurf" | "cascade" => Some(Source::Windsurf),
            "antigravity" => Some(Source::Antigravity),
            "aider" => Some(Source::Aider),
            "cline" => Some(Source::Cline),
            "roo-code" | "roo" | "roo_code" | "roocode" | "roo-cline" => Some(Source::RooCode),
            "chatgpt" | "chat-gpt" => Some(Source::Chatgpt),
            "claude-ai" | "claude.ai" | "claudeai" | "claude_ai" => Some(Source::ClaudeAi),
            _ => None,
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person.
    User,
    /// The agent.
    Assistant,
}

impl Role {
    /// `user` or `assistant`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    /// The inverse of [`Role::as_str`].
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            _ => None,
        }
    }
}

/// One session in a listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    /// The tool's own session id.
    pub session_id: String,
    /// Which tool recorded it.
    pub source: Source,
    /// The tool's title, else the first user message in full.
    pub title: String,
    /// The directory the agent worked in, when known.
    pub workspace: Option<String>,
    /// RFC 3339 UTC with milliseconds.
    pub created_at: Option<String>,
    /// RFC 3339 UTC with milliseconds.
    pub updated_at: Option<String>,
    /// User and assistant messages with text.
    pub message_count: u64,
    /// Its tool deleted it and the index kept it (since `archivedAt`); present only then.
    #[serde(default, skip_serializing_if = "is_false")]
    pub archived: bool,
    /// When the index saw its source gone (RFC 3339 UTC with milliseconds); present only
    /// for an archived session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<String>,
}

/// The answer of `list_sessions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionList {
    /// How many sessions matched before the limit, so a cap is never silent.
    pub total: u64,
    /// Newest first.
    pub sessions: Vec<SessionInfo>,
    /// Pass as `cursor` to get the sessions after these; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The cursor continuing right after each of `sessions` (see [`SessionList::keep_first`]).
    #[serde(skip)]
    pub(crate) cursors: Vec<String>,
}

impl SessionList {
    /// Keeps only the first `n` sessions, and makes [`SessionList::next_cursor`] continue
    /// right after the last one kept: a door whose answers have a size budget returns
    /// fewer sessions without losing the rest (`total` is unchanged). `n = 0` skips the
    /// first session, for one that the door cannot return at all.
    pub fn keep_first(&mut self, n: usize) {
        keep_first(&mut self.sessions, &mut self.cursors, &mut self.next_cursor, n);
    }
}

/// Shortens a page to `n` items, moving its next cursor back to the last item kept.
fn keep_first<T>(items: &mut Vec<T>, cursors: &mut Vec<String>, next: &mut Option<String>, n: usize) {
    if n >= items.len() {
        return;
    }
    // Keeping none skips the first item (one too large for the door to return at all),
    // so that paging still moves on.
    *next = cursors.get(n.max(1) - 1).cloned();
    items.truncate(n);
    cursors.truncate(n);
}

/// One message of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TranscriptMessage {
    /// Absolute position in the session, from 0.
    pub index: u64,
    /// The id to cite: the tool's own message id, or `L<line>` where it stores none.
    pub message_id: String,
    /// `user` or `assistant`.
    pub role: Role,
    /// The message text.
    pub text: String,
    /// RFC 3339 UTC with milliseconds, when the tool recorded one.
    pub timestamp: Option<String>,
    /// The text was cut to the requested number of characters (`maxCharsPerMessage`);
    /// present only then.
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The answer of `read_transcript`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// The session read.
    pub session_id: String,
    /// Its title.
    pub title: String,
    /// Messages in the whole session.
    pub message_count: u64,
    /// Messages in this answer.
    pub returned: u64,
    /// Oldest first.
    pub messages: Vec<TranscriptMessage>,
    /// The session is archived (its tool deleted it); present only then.
    #[serde(default, skip_serializing_if = "is_false")]
    pub archived: bool,
}

/// The answer of `latest_message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LatestMessage {
    /// The session read.
    pub session_id: String,
    /// Absolute position of the message.
    pub index: u64,
    /// The id to cite.
    pub message_id: String,
    /// `user` or `assistant`.
    pub role: Role,
    /// The message text.
    pub text: String,
    /// RFC 3339 UTC with milliseconds.
    pub timestamp: Option<String>,
    /// The text was cut to `maxChars` characters; present only then.
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
    /// The session is archived (its tool deleted it); present only then.
    #[serde(default, skip_serializing_if = "is_false")]
    pub archived: bool,
}

/// One hit of `search_messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The session the message belongs to.
    pub session_id: String,
    /// Its tool.
    pub source: Source,
    /// Its title.
    pub title: String,
    /// The id to cite.
    pub message_id: String,
    /// Absolute position of the message.
    pub index: u64,
    /// `user` or `assistant`.
    pub role: Role,
    /// The text around the first match, on one line: up to [`SNIPPET_BEFORE`] characters
    /// before it, the match, up to [`SNIPPET_AFTER`] after, and `…` where the text was cut.
    pub snippet: String,
    /// The session is archived (its tool deleted it); present only then.
    #[serde(default, skip_serializing_if = "is_false")]
    pub archived: bool,
}

/// Characters of context a [`SearchHit::snippet`] shows before the match.
pub const SNIPPET_BEFORE: usize = 60;

/// Characters of context a [`SearchHit::snippet`] shows after the match.
pub const SNIPPET_AFTER: usize = 100;

/// The answer of `search_messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
// `SearchResult` in TypeScript is the memory API's (score and memory).
#[cfg_attr(feature = "ts", ts(rename = "MessageSearchResult"))]
pub struct SearchResult {
    /// Newest first.
    pub hits: Vec<SearchHit>,
    /// Pass as `cursor` to get the hits after these; absent on the last page.
    #[serde(rename = "nextCursor", default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The cursor continuing right after each of `hits` (see [`SearchResult::keep_first`]).
    #[serde(skip)]
    pub(crate) cursors: Vec<String>,
}

impl SearchResult {
    /// Keeps only the first `n` hits, and makes [`SearchResult::next_cursor`] continue
    /// right after the last one kept (`n = 0` skips the first hit).
    pub fn keep_first(&mut self, n: usize) {
        keep_first(&mut self.hits, &mut self.cursors, &mut self.next_cursor, n);
    }
}

/// Tool calls the agent made after one message (the answer of `session_activity`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ActivityEntry {
    /// The message they followed; -1 means before the first message.
    pub after_index: i64,
    /// Tool names, in call order.
    pub tools: Vec<String>,
}

/// The answer of `session_activity`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Activity {
    /// Ordered by `afterIndex`; only entries with at least one call.
    pub activity: Vec<ActivityEntry>,
}

/// Formats ms since epoch as RFC 3339 UTC with milliseconds (`2026-11-30T01:02:03.004Z`).
pub fn format_ms(ms: i64) -> Option<String> {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// Parses an RFC 3339 / ISO-8601 timestamp into ms since epoch; `None` when it is not one.
pub fn parse_time(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| t.timestamp_millis())
}
