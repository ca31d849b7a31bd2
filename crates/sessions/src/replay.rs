//! Applies events in memory, with exactly the merge rules the index uses. Used to read a
//! unit without an index (tests, one-off reads) and to check the index against.

use std::collections::HashMap;
use std::fs::File;

use crate::jsonl::read_complete_lines;
use crate::events::{Event, MetaEvent, TitleRank};
use crate::model::Role;
use crate::source::{LinePos, SourceReader, Unit, UnitKind};

/// A message after merging.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedMessage {
    /// The merge key.
    pub key: String,
    /// The id to cite.
    pub message_id: String,
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub text: String,
    /// Ms since epoch.
    pub timestamp: Option<i64>,
}

/// A session after applying all its events.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedSession {
    /// The key inside its unit (`""` for one-session units).
    pub key: String,
    /// The tool's session id.
    pub session_id: Option<String>,
    /// The best title candidate, if any (see [`ParsedSession::title`]).
    pub title_candidate: Option<(TitleRank, String)>,
    /// The workspace.
    pub workspace: Option<String>,
    /// Earliest time seen (ms).
    pub created: Option<i64>,
    /// Latest time seen (ms).
    pub updated: Option<i64>,
    /// A sub-agent or child session.
    pub hidden: bool,
    /// Messages in order.
    pub messages: Vec<ParsedMessage>,
    /// Titles kept outside session files, `(session_id, title)`, in order.
    pub external_titles: Vec<(String, String)>,
    /// Tool calls in order, each with the index of the message it followed (-1: none).
    pub tool_calls: Vec<ParsedToolCall>,
    /// Position of each message key, so merging stays linear on long sessions.
    positions: HashMap<String, usize>,
    /// Position of each tool call key in `tool_calls`.
    tool_positions: HashMap<String, usize>,
}

/// A tool call after merging.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedToolCall {
    /// The call's key.
    pub key: String,
    /// The tool's name.
    pub name: String,
    /// The index of the message it followed; -1 before the first message.
    pub after: i64,
}

impl ParsedSession {
    /// The title rule: the tool's title, else the first user message in full, else "".
    pub fn title(&self) -> String {
        if let Some((_, t)) = &self.title_candidate {
            return t.clone();
        }
        self.messages
            .iter()
            .find(|m| m.role == Role::User)
            .map(|m| m.text.clone())
            .unwrap_or_default()
    }

    /// Applies one event.
    pub fn apply(&mut self, event: Event) {
        match event {
            Event::Meta(meta) => {
                if self.session_id.is_none() {
                    self.session_id = meta.session_id;
                }
                if let Some((rank, title)) = meta.title {
                    let replace = self.title_candidate.as_ref().is_none_or(|(r, _)| rank >= *r);
                    if replace && !title.trim().is_empty() {
                        self.title_candidate = Some((rank, title));
                    }
                }
                if self.workspace.is_none() {
                    self.workspace = meta.workspace.filter(|w| !w.is_empty());
                }
                self.fold_time(meta.created, meta.updated);
                self.hidden |= meta.hidden;
            }
            Event::Message(m) => {
                self.fold_time(m.timestamp, m.timestamp);
                if let Some(existing) = self.positions.get(&m.key).map(|&at| &mut self.messages[at]) {
                    m.merge_into(&mut existing.role, &mut existing.text, &mut existing.timestamp);
                } else {
                    self.positions.insert(m.key.clone(), self.messages.len());
                    self.messages.push(ParsedMessage {
                        key: m.key,
                        message_id: m.message_id,
                        role: m.role,
                        text: m.text,
                        timestamp: m.timestamp,
                    });
                }
            }
            Event::Rewind { key } => {
                if let Some(&at) = self.positions.get(&key) {
                    self.messages.truncate(at);
                    self.positions.retain(|_, p| *p < at);
                    self.tool_calls.retain(|c| c.after < at as i64);
                    self.tool_positions =
                        self.tool_calls.iter().enumerate().map(|(i, c)| (c.key.clone(), i)).collect();
                }
            }
            Event::ToolCall { key, name } => {
                if let Some(&at) = self.tool_positions.get(&key) {
                    self.tool_calls[at].name = name;
                } else {
                    let after = self.messages.len() as i64 - 1;
                    self.tool_positions.insert(key.clone(), self.tool_calls.len());
                    self.tool_calls.push(ParsedToolCall { key, name, after });
                }
            }
            Event::ExternalTitle { session_id, title } => {
                self.external_titles.push((session_id, title));
            }
            Event::LeafSummary { leaf, title } => {
                if self.messages.iter().any(|m| m.message_id == leaf) {
                    self.apply(Event::Meta(MetaEvent { title: Some((TitleRank::Summary, title)), ..Default::default() }));
                }
            }
        }
    }

    fn fold_time(&mut self, created: Option<i64>, updated: Option<i64>) {
        if let Some(c) = created {
            self.created = Some(self.created.map_or(c, |x| x.min(c)));
        }
        if let Some(u) = updated {
            self.updated = Some(self.updated.map_or(u, |x| x.max(u)));
        }
    }
}

/// Reads a whole unit without an index. One session for a JSONL unit.
pub fn read_unit(reader: &dyn SourceReader, unit: &Unit) -> std::io::Result<Vec<ParsedSession>> {
    match unit.kind {
        UnitKind::Jsonl => {
            let mut file = File::open(&unit.path)?;
            let mut parser = reader.line_parser(unit);
            let mut events = Vec::new();
            let mut line_no = 0;
            read_complete_lines(&mut file, 0, |line| {
                line_no += 1;
                parser.line(line.bytes, LinePos { offset: line.offset, line_no }, &mut events);
            })?;
            let mut session = ParsedSession::default();
            for e in events {
                session.apply(e);
            }
            finish(&mut session, unit);
            Ok(vec![session])
        }
        UnitKind::Whole => Ok(reader
            .parse_whole(unit)?
            .into_iter()
            .map(|whole| {
                let mut session = ParsedSession { key: whole.key, ..Default::default() };
                for e in whole.events {
                    session.apply(e);
                }
                finish(&mut session, unit);
                session
            })
            .collect()),
    }
}

fn finish(session: &mut ParsedSession, unit: &Unit) {
    if session.session_id.is_none() {
        session.session_id = unit.session_hint.clone();
    }
    if session.workspace.is_none() {
        session.workspace = unit.workspace_hint.clone();
    }
}
