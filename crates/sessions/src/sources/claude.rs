//! Claude Code: `~/.claude/projects/<encoded cwd>/<sessionId>.jsonl` (`CLAUDE_CONFIG_DIR`
//! moves `~/.claude`). One record per line; an assistant reply is written as one record per
//! content block sharing `message.id`, so blocks are merged by that id.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::model::{Role, Source};
use crate::source::{Env, LineParser, LinePos, Problem, Root, SourceReader, Unit, UnitKind, WholeSession};
use crate::sources::lenient::{otherwise, Obj, Scalar};
use crate::text::join_text;

/// Reads Claude Code sessions.
pub struct ClaudeCode;

/// The fields of a record this reader uses; everything else (tool results, usage,
/// snapshots) is skipped by serde without building values.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Record {
    #[serde(rename = "type")]
    kind: Option<String>,
    uuid: Option<String>,
    timestamp: Option<String>,
    cwd: Option<String>,
    is_sidechain: Option<bool>,
    is_meta: Option<bool>,
    is_compact_summary: Option<bool>,
    is_visible_in_transcript_only: Option<bool>,
    message: Option<Message>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summary: Option<String>,
    leaf_uuid: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message {
    id: Option<String>,
    content: Option<Content>,
}

/// `message.content`: a string, or an array of blocks; anything else holds no text.
enum Content {
    Text(String),
    Blocks(Vec<Block>),
    Other,
}

/// Read with a visitor, not `#[serde(untagged)]`: an untagged enum first copies the whole
/// value into a buffer to try each shape, which for tool results means copying megabytes
/// of output nobody reads (it was most of the parsing time of big sessions).
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E>(self, v: &str) -> Result<Content, E> {
                Ok(Content::Text(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Content, E> {
                Ok(Content::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element::<Obj<Block>>()? {
                    blocks.extend(block.0);
                }
                Ok(Content::Blocks(blocks))
            }
            otherwise!('de, Content::Other; map, number, bool, null);
        }
        d.deserialize_any(V)
    }
}

/// One content block; fields of another type than expected read as absent.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Block {
    #[serde(rename = "type")]
    kind: Scalar,
    text: Scalar,
    /// `tool_use` blocks: the call id and the tool's name.
    id: Scalar,
    name: Scalar,
}

/// Older versions wrote slash commands and their output as user text.
const COMMAND_WRAPPERS: [&str; 5] = [
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
];

#[derive(Default)]
struct Parser {
    /// Record ids seen in this pass, to accept a `summary` only for a leaf of this file.
    uuids: HashSet<String>,
    /// Summaries whose leaf has not been seen yet in this pass.
    pending_summaries: HashMap<String, String>,
    workspace_sent: bool,
    /// Whether this pass started after the file's first line (an append, or the next
    /// part of a big file): a leaf may then be in an earlier pass.
    resumed: Option<bool>,
}

impl Parser {
    fn meta(&mut self, record: &Record, ts: Option<i64>, out: &mut Vec<Event>) {
        let workspace = match (&record.cwd, self.workspace_sent) {
            (Some(cwd), false) if !cwd.is_empty() => {
                self.workspace_sent = true;
                Some(cwd.clone())
            }
            _ => None,
        };
        if workspace.is_some() || ts.is_some() {
            out.push(Event::Meta(MetaEvent { workspace, created: ts, updated: ts, ..Default::default() }));
        }
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &[u8], pos: LinePos, out: &mut Vec<Event>) {
        let resumed = *self.resumed.get_or_insert(pos.offset > 0);
        let Some(record) = crate::jsonl::parse_line_as::<Record>(line) else { return };
        let ts = record.timestamp.as_deref().and_then(crate::model::parse_time);
        if let Some(uuid) = &record.uuid {
            self.uuids.insert(uuid.clone());
            if let Some(summary) = self.pending_summaries.remove(uuid) {
                out.push(title(TitleRank::Summary, summary));
            }
        }
        match record.kind.as_deref() {
            Some("user") | Some("assistant") => {
                if record.is_sidechain == Some(true) {
                    return; // a sub-agent's record: belongs to its own transcript
                }
                self.meta(&record, ts, out);
                if let Some(event) = message_event(&record, ts) {
                    out.push(event);
                }
                tool_calls(&record, out);
            }
            Some("custom-title") => {
                if let Some(t) = record.custom_title.filter(|t| !t.trim().is_empty()) {
                    out.push(title(TitleRank::Custom, t));
                }
            }
            Some("ai-title") => {
                if let Some(t) = record.ai_title.filter(|t| !t.trim().is_empty()) {
                    out.push(title(TitleRank::Generated, t));
                }
            }
            Some("summary") => {
                if let (Some(summary), Some(leaf)) = (record.summary, record.leaf_uuid) {
                    if self.uuids.contains(&leaf) {
                        out.push(title(TitleRank::Summary, summary));
                    } else {
                        if resumed {
                            // The leaf may have been read in an earlier pass: the index
                            // looks it up among the stored messages.
                            out.push(Event::LeafSummary { leaf: leaf.clone(), title: summary.clone() });
                        }
                        self.pending_summaries.insert(leaf, summary);
                    }
                }
            }
            _ => self.meta(&record, ts, out),
        }
    }
}

fn title(rank: TitleRank, text: String) -> Event {
    Event::Meta(MetaEvent { title: Some((rank, text.trim().to_string())), ..Default::default() })
}

/// The `tool_use` blocks of an assistant record, as tool calls.
fn tool_calls(record: &Record, out: &mut Vec<Event>) {
    let Some(Content::Blocks(blocks)) = record.message.as_ref().and_then(|m| m.content.as_ref()) else { return };
    for (n, block) in blocks.iter().enumerate() {
        if block.kind.as_str() != Some("tool_use") {
            continue;
        }
        let key = block.id.as_str().map_or_else(|| format!("{}#{n}", record.uuid.as_deref().unwrap_or("")), str::to_string);
        let name = block.name.as_str().unwrap_or("tool").to_string();
        out.push(Event::ToolCall { key, name });
    }
}

fn message_event(record: &Record, ts: Option<i64>) -> Option<Event> {
    if record.is_meta == Some(true)
        || record.is_compact_summary == Some(true)
        || record.is_visible_in_transcript_only == Some(true)
    {
        return None;
    }
    let role = Role::parse(record.kind.as_deref()?)?;
    let message = record.message.as_ref()?;
    let text = match message.content.as_ref()? {
        Content::Text(text) => join_text([text.as_str()]),
        Content::Blocks(blocks) => join_text(
            blocks
                .iter()
                .filter(|b| b.kind.as_str() == Some("text"))
                .filter_map(|b| b.text.as_str()),
        ),
        Content::Other => None,
    }?;
    if role == Role::User && COMMAND_WRAPPERS.iter().any(|w| text.starts_with(w)) {
        return None;
    }
    let uuid = record.uuid.clone().unwrap_or_default();
    // Assistant blocks of one API response share `message.id`; user records are unique.
    let key = match role {
        Role::Assistant => message.id.clone().unwrap_or_else(|| uuid.clone()),
        Role::User => uuid.clone(),
    };
    if key.is_empty() {
        return None;
    }
    Some(Event::message(key, uuid, role, text, ts, Merge::Append))
}

impl SourceReader for ClaudeCode {
    fn source(&self) -> Source {
        Source::ClaudeCode
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        env.path_or_home("CLAUDE_CONFIG_DIR", &[".claude"]).into_iter().collect()
    }

    fn discover(&self, root: &Path, units: &mut Vec<Unit>, problems: &mut Vec<Problem>) {
        // A root is the config dir (`~/.claude`) or, when added by hand, its `projects`.
        let confined = Root::new(root);
        let projects = root.join("projects");
        let projects = if projects.is_dir() { projects } else { root.to_path_buf() };
        for project in confined.read_dir(&projects, problems) {
            if !project.is_dir {
                continue;
            }
            for entry in confined.read_dir(&project.path, problems) {
                let path = entry.path;
                let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
                let is_jsonl = path.extension().is_some_and(|e| e == "jsonl");
                // `agent-<id>.jsonl` beside sessions are sub-agents (≤ 2.0); newer ones live
                // in `<sessionId>/subagents/`, which is never walked.
                if !is_jsonl || stem.starts_with("agent-") || !entry.is_file {
                    continue;
                }
                let mut unit = Unit::new(Source::ClaudeCode, path.clone(), UnitKind::Jsonl);
                unit.session_hint = Some(stem.to_string());
                units.push(unit);
            }
        }
    }

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }

    fn parse_whole(&self, _unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(Vec::new())
    }
}
