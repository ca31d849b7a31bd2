//! opencode (and OpenWork, which drives an opencode server and shares its store).
//!
//! The data folder is `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` on every OS
//! (`%USERPROFILE%\.local\share\opencode` on Windows). It holds one of two generations:
//!
//! * **SQLite (1.2+)**: `opencode.db` and the channel databases `opencode-<channel>.db`.
//!   Each database is one [`UnitKind::Whole`] unit that yields one [`WholeSession`] per
//!   session (key = session id); see [`db`].
//! * **JSON tree (≤ 1.1)**: `storage/session/<projectID>/<sessionID>.json` with
//!   `storage/message/<sessionID>/*.json` and `storage/part/<messageID>/*.json`. One unit per
//!   session file; see [`tree`]. When a database sits in the same folder the tree is the
//!   stale leftover of opencode's one-time import and is not read.
//!
//! Both generations become the same events: one [`MetaEvent`] per session (id, generated
//! title unless it is opencode's placeholder, directory, times, `hidden` for child sessions
//! of task sub-agents) followed by one message event per user or assistant message with
//! text, ordered by creation time, then id.

mod db;
mod tree;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::model::{Role, Source};
use crate::source::{
    Env, LineParser, NoLines, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession,
};
use crate::text::{join_text, time_value};

/// Reads opencode sessions.
pub struct Opencode;

impl SourceReader for Opencode {
    fn source(&self) -> Source {
        Source::Opencode
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        // xdg-basedir: `$XDG_DATA_HOME`, else `~/.local/share`, on Windows as well.
        let data = match env.var("XDG_DATA_HOME") {
            Some(xdg) => Some(PathBuf::from(xdg)),
            None => env.home.as_ref().map(|h| h.join(".local").join("share")),
        };
        data.map(|d| vec![d.join("opencode")]).unwrap_or_default()
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        let mut dbs: Vec<PathBuf> = confined
            .read_dir(root, problems)
            .into_iter()
            .filter(|e| e.is_file && e.name().is_some_and(is_db_name))
            .map(|e| e.path)
            .collect();
        if dbs.is_empty() {
            tree::discover(&confined, &root.join("storage"), units, problems);
            return;
        }
        dbs.sort();
        for path in dbs {
            let mut unit = Unit::new(Source::Opencode, path.clone(), UnitKind::Whole);
            unit.fingerprint = crate::sources::sqlite::wal_fingerprint(&path);
            units.push(unit);
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        if unit.path.extension().is_some_and(|e| e == "db") {
            db::read(&unit.path)
        } else {
            tree::read(&unit.path)
        }
    }

    /// A database is read by its rows' `time_updated`: only the sessions with a session,
    /// message or part row written since the last read (opencode writes every message to
    /// it while it runs, so reading all of it each time would cost seconds per message).
    fn parse_whole_since(&self, unit: &Unit, since: Option<i64>) -> std::io::Result<WholeRead> {
        if unit.path.extension().is_some_and(|e| e == "db") {
            db::read_since(&unit.path, since)
        } else {
            Ok(WholeRead { sessions: tree::read(&unit.path)?, present: None, mark: None })
        }
    }
}

/// `opencode.db` or `opencode-<channel>.db` (not their `-wal`/`-shm` companions).
fn is_db_name(name: &str) -> bool {
    name == "opencode.db"
        || name
            .strip_prefix("opencode-")
            .and_then(|rest| rest.strip_suffix(".db"))
            .is_some_and(|channel| !channel.is_empty())
}

/// Session-level facts, from a `session` row or a session JSON file.
#[derive(Debug, Default)]
struct SessionFacts {
    id: String,
    title: Option<String>,
    directory: Option<String>,
    parent_id: Option<String>,
    created: Option<i64>,
    updated: Option<i64>,
}

/// One user or assistant message, before ordering.
#[derive(Debug)]
struct Msg {
    id: String,
    role: Role,
    created: Option<i64>,
    /// A tie-breaker between equal times before the id (2.x `seq`); 0 when unknown.
    seq: i64,
    /// `None` for a message with tool calls only (it is not a message, its calls are).
    text: Option<String>,
    /// Tool calls `(call id, tool name)`, in part order.
    tools: Vec<(String, String)>,
}

/// The fields of a 1.x message (`message.data` or a message JSON file) that matter here.
#[derive(Debug, Default, Deserialize)]
struct MessageData {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    time: Option<Times>,
    /// `true` on the assistant summary of a compaction (an object on user messages).
    #[serde(default, deserialize_with = "is_true")]
    summary: bool,
}

#[derive(Debug, Default, Deserialize)]
struct Times {
    #[serde(default)]
    created: Option<serde_json::Value>,
}

/// The fields of a part (`part.data` or a part JSON file) that matter here; everything else
/// (tool input and output, file contents) is skipped without being built.
#[derive(Debug, Default, Deserialize)]
struct PartData {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    text: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "is_true")]
    synthetic: bool,
    #[serde(default, deserialize_with = "is_true")]
    ignored: bool,
    /// Tool parts: the call id and the tool's name.
    #[serde(default, rename = "callID")]
    call_id: Option<String>,
    #[serde(default)]
    tool: Option<String>,
}

/// `true` only for a JSON `true`; any other value (a user message's `summary` object with
/// its file diffs, say) is skipped without being built.
fn is_true<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    use serde::de::Visitor;
    struct TrueVisitor;
    impl<'de> Visitor<'de> for TrueVisitor {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, v: bool) -> Result<bool, E> {
            Ok(v)
        }
        super::lenient::otherwise!('de, false; number, str, null, seq, map);
    }
    d.deserialize_any(TrueVisitor)
}

/// What a part contributes to its message.
#[derive(Debug, Default)]
struct PartsSummary {
    texts: Vec<String>,
    compaction: bool,
    tools: Vec<(String, String)>,
}

impl PartsSummary {
    fn add(&mut self, part: &PartData) {
        match part.kind.as_deref() {
            Some("text") => {
                if part.synthetic || part.ignored {
                    return;
                }
                if let Some(serde_json::Value::String(t)) = &part.text {
                    self.texts.push(t.clone());
                }
            }
            Some("compaction") => self.compaction = true,
            Some("tool") => self.add_tool(part.call_id.clone(), part.tool.clone()),
            _ => {}
        }
    }
}

impl PartsSummary {
    fn add_tool(&mut self, call_id: Option<String>, tool: Option<String>) {
        let key = call_id.unwrap_or_else(|| format!("tool#{}", self.tools.len()));
        self.tools.push((key, tool.unwrap_or_else(|| "tool".into())));
    }
}

/// Turns a 1.x message and its parts into a [`Msg`], or `None` when it is not a message:
/// no text and no tool calls, a compaction request (user message with a `compaction` part) or the summary
/// answering it (assistant with `summary: true`).
fn v1_message(
    id: String,
    data: &MessageData,
    fallback_created: Option<i64>,
    parts: Option<&PartsSummary>,
) -> Option<Msg> {
    let role = Role::parse(data.role.as_deref()?)?;
    let parts = parts?;
    if parts.compaction || data.summary {
        return None;
    }
    let text = join_text(parts.texts.iter().map(String::as_str));
    if text.is_none() && parts.tools.is_empty() {
        return None;
    }
    let created = data
        .time
        .as_ref()
        .and_then(|t| t.created.as_ref())
        .and_then(time_value)
        .or(fallback_created);
    Some(Msg {
        id,
        role,
        created,
        seq: 0,
        text,
        tools: parts.tools.clone(),
    })
}

/// `None` for an empty title and for opencode's placeholders `New session - <ISO>` and
/// `Child session - <ISO>`, which stand until the title agent has run.
fn real_title(title: Option<String>) -> Option<String> {
    let title = title?;
    let trimmed = title.trim();
    if trimmed.is_empty() {
        return None;
    }
    for prefix in ["New session - ", "Child session - "] {
        if trimmed
            .strip_prefix(prefix)
            .is_some_and(|iso| crate::model::parse_time(iso).is_some())
        {
            return None;
        }
    }
    Some(title)
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.trim().is_empty())
}

/// The events of one session: its facts, then its messages oldest first.
fn session_events(facts: SessionFacts, mut messages: Vec<Msg>) -> WholeSession {
    messages.sort_by(|a, b| (a.created, a.seq, &a.id).cmp(&(b.created, b.seq, &b.id)));
    let mut events = Vec::with_capacity(messages.len() + 1);
    events.push(Event::Meta(MetaEvent {
        session_id: Some(facts.id.clone()),
        title: real_title(facts.title).map(|t| (TitleRank::Generated, t)),
        workspace: non_empty(facts.directory),
        created: facts.created,
        updated: facts.updated,
        hidden: non_empty(facts.parent_id).is_some(),
    }));
    for m in messages {
        if let Some(text) = m.text {
            events.push(Event::message(m.id.clone(), m.id, m.role, text, m.created, Merge::Replace));
        }
        events.extend(m.tools.into_iter().map(|(key, name)| Event::ToolCall { key, name }));
    }
    WholeSession {
        key: facts.id,
        events,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_titles_are_no_titles() {
        assert_eq!(
            real_title(Some("New session - 2026-03-01T10:00:00.000Z".into())),
            None
        );
        assert_eq!(
            real_title(Some("Child session - 2026-03-01T10:00:00.000Z".into())),
            None
        );
        assert_eq!(real_title(Some("  ".into())), None);
        assert_eq!(
            real_title(Some("New session - ideas".into())).as_deref(),
            Some("New session - ideas")
        );
        assert_eq!(
            real_title(Some("Fix the parser".into())).as_deref(),
            Some("Fix the parser")
        );
    }

    #[test]
    fn flags_are_true_only_for_json_true() {
        let m: MessageData = serde_json::from_str(
            r#"{"role":"user","summary":{"title":"t","diffs":[{"before":"x"}]}}"#,
        )
        .unwrap();
        assert!(!m.summary);
        let m: MessageData =
            serde_json::from_str(r#"{"role":"assistant","summary":true}"#).unwrap();
        assert!(m.summary);
        let p: PartData =
            serde_json::from_str(r#"{"type":"text","text":"a","synthetic":"yes","ignored":null}"#)
                .unwrap();
        assert!(!p.synthetic && !p.ignored);
        let p: PartData =
            serde_json::from_str(r#"{"type":"text","text":"a","ignored":true}"#).unwrap();
        assert!(p.ignored);
    }

    #[test]
    fn database_names() {
        assert!(is_db_name("opencode.db"));
        assert!(is_db_name("opencode-beta.db"));
        assert!(!is_db_name("opencode.db-wal"));
        assert!(!is_db_name("opencode-beta.db-shm"));
        assert!(!is_db_name("opencode-.db"));
        assert!(!is_db_name("other.db"));
    }
}
