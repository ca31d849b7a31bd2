//! Chat exports (ChatGPT's and Claude.ai's "Export data"): what their two readers share.
//!
//! An export is a zip holding `conversations.json`, one JSON array of conversations. Both
//! readers read JSON files in their folder, in either of two shapes:
//!
//! - **one conversation per file**: what `memory-bank sessions import` (Settings → Data →
//!   Import chats) keeps in `<data folder>/imports/<source>/<conversation id>.json`, the
//!   conversation exactly as the export had it, so each is a unit of its own (re-importing
//!   rewrites only the conversations that changed, and one whose file goes is archived like
//!   any deleted session);
//! - **a whole export's array** (`conversations.json` of an unzipped export, in a folder the
//!   person added): one unit holding every conversation, keyed by id.
//!
//! The default folder is `imports/<source>` in the app's data folder
//! ([`Env::app_data_dir`]). A file that is neither shape (another export file such as
//! `user.json`) holds no session.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::events::Event;
use crate::jsonl;
use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, Root, SourceReader, Unit, UnitKind, WholeRead, WholeSession};

/// The folder of the app's data folder where imports are kept.
pub const IMPORTS_DIR: &str = "imports";

/// A chat export's reader: its source, and how one conversation becomes events.
pub struct ExportReader {
    /// The source.
    pub source: Source,
    /// The conversation's id, when the value is one of this export's conversations.
    pub id: fn(&Value) -> Option<String>,
    /// The events of one conversation.
    pub events: fn(&Value) -> Vec<Event>,
    /// When a conversation was last changed (ms), as its export says.
    pub updated: fn(&Value) -> Option<i64>,
}

impl ExportReader {
    /// Where this source's imports are kept in the data folder `data_dir`.
    pub fn folder(&self, data_dir: &Path) -> PathBuf {
        data_dir.join(IMPORTS_DIR).join(self.source.as_str())
    }

    fn sessions(&self, doc: &Value) -> Vec<WholeSession> {
        let one = |conversation: &Value| {
            (self.id)(conversation).map(|key| WholeSession { key, events: (self.events)(conversation) })
        };
        match doc {
            Value::Array(conversations) => conversations.iter().filter_map(one).collect(),
            conversation => one(conversation).into_iter().collect(),
        }
    }
}

impl SourceReader for ExportReader {
    fn source(&self) -> Source {
        self.source
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        env.app_data_dir().map(|dir| self.folder(&dir)).into_iter().collect()
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        let confined = Root::new(root);
        let mut found: Vec<Unit> = confined
            .read_dir(root, problems)
            .into_iter()
            .filter(|e| e.is_file && e.name().is_some_and(|n| n.ends_with(".json")))
            .map(|e| Unit::new(self.source, e.path, UnitKind::Whole))
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        units.extend(found);
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        // Every unit is Whole; this is never asked for.
        Box::new(NoLines)
    }

    fn parse_whole(&self, unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(self.parse_whole_since(unit, None)?.sessions)
    }

    fn parse_whole_since(&self, unit: &Unit, _since: Option<i64>) -> std::io::Result<WholeRead> {
        let bytes = std::fs::read(&unit.path)?;
        // An empty file (just created) holds nothing yet.
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(WholeRead { sessions: Vec::new(), present: None, mark: None });
        }
        // A file cut short (written as it is read) is not JSON yet: read again when it changes.
        let doc = jsonl::parse_line(&bytes)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, "not a chat export's JSON (yet)"))?;
        let sessions = self.sessions(&doc);
        // An array holds many conversations: those no longer in it are taken as deleted.
        let present = doc.is_array().then(|| sessions.iter().map(|s| s.key.clone()).collect());
        Ok(WholeRead { sessions, present, mark: None })
    }
}

/// A non-empty string field.
pub(crate) fn text_field(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned)
}

/// Seconds since the epoch (a number, as ChatGPT writes them) as ms.
pub(crate) fn seconds(value: &Value) -> Option<i64> {
    value.as_f64().filter(|s| s.is_finite() && *s > 0.0).map(|s| (s * 1000.0).round() as i64)
}
