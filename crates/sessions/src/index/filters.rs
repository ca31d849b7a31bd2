//! What listings and searches are asked for (their filters), and the shapes of what the
//! index answers besides the model's: a session found by id, and the facets.

use super::page::{ListCursor, SearchCursor};
use crate::model::{SessionInfo, Source};

/// The filters of `list_sessions`.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// At most this many sessions.
    pub limit: u32,
    /// A workspace path, or its last component (`memory-bank` matches `/src/memory-bank`).
    pub workspace: Option<String>,
    /// Only this tool.
    pub source: Option<Source>,
    /// Text the title, workspace or id contains (case-insensitive).
    pub query: Option<String>,
    /// Only sessions after this one (the next page).
    pub after: Option<ListCursor>,
    /// Live sessions, archived ones, or both.
    pub status: SessionStatus,
}

/// Which sessions a listing shows: those whose source is there (live), those kept after
/// it was deleted (archived), or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    /// Live and archived sessions.
    #[default]
    All,
    /// Only sessions whose source is still there.
    Live,
    /// Only sessions kept after their source was deleted.
    Archived,
}

impl SessionStatus {
    /// Parses `all`, `live` or `archived`.
    pub fn parse(text: &str) -> Option<SessionStatus> {
        match text.trim().to_ascii_lowercase().as_str() {
            "all" => Some(SessionStatus::All),
            "live" => Some(SessionStatus::Live),
            "archived" => Some(SessionStatus::Archived),
            _ => None,
        }
    }
}

/// The filters of `search_messages`, besides the query.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    /// A workspace path, or its last component, as in [`ListFilter::workspace`].
    pub workspace: Option<String>,
    /// Only this tool.
    pub source: Option<Source>,
    /// Only messages after this one (the next page).
    pub after: Option<SearchCursor>,
}

/// A session found by id, with its row for follow-up reads.
#[derive(Debug, Clone)]
pub struct FoundSession {
    /// The index row.
    pub row: i64,
    /// What listings show.
    pub info: SessionInfo,
}

/// Sessions per source and per workspace, most first.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Facets {
    /// `{source, count}`.
    pub sources: Vec<SourceCount>,
    /// `{workspace, count}`.
    pub workspaces: Vec<WorkspaceCount>,
}

/// A facet entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SourceCount {
    /// The tool.
    pub source: Source,
    /// Its listed sessions.
    pub count: u64,
}

/// A facet entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorkspaceCount {
    /// The workspace path.
    pub workspace: String,
    /// Its listed sessions.
    pub count: u64,
}
