//! The Cursor CLI (`cursor-agent`, `agent`): one SQLite database per chat,
//! `<config>/chats/<md5 of the working directory>/<chat id>/store.db`, where `<config>` is
//! `$CURSOR_CONFIG_DIR`, else `~/.cursor` (read from the CLI's bundled source: its
//! `getChatsRootDir()` joins the config dir, `chats` and the md5 of `process.cwd()`, and its
//! chat list names each chat by its folder).
//!
//! * `meta(key, value)`: the row `0` holds the chat's metadata as hex-encoded JSON
//!   (`agentId`, `name`, `mode`, `createdAt` ms, `latestRootBlobId`, `lastUsedModel`);
//! * `blobs(id, data)`: a content-addressed store (`id` = SHA-256 of `data`, hex). The root
//!   blob is protobuf whose field 1 repeats the 32-byte ids of the conversation's message
//!   blobs in order (and field 9, in the versions seen, the workspace's `file://` URI);
//!   each message blob is JSON `{role: system|user|assistant|tool, content: string |
//!   [{type: text, text} | {type: tool-call, toolCallId, toolName, args} | {type:
//!   tool-result, …}], id?}`.
//!
//! A user message is what it wraps in `<user_query>`; one that is only injected context
//! (`<user_info>`, `<rules>`, … blocks) is not a message, nor are system and tool messages.
//! Assistant text is its `text` parts, less `<think>` blocks; `tool-call` parts are tool
//! calls. Messages carry no times: the chat's `createdAt` and the files' mtime bound it.
//! When the root blob is missing or unreadable, the JSON message blobs are read in the
//! order they were written (rowid).

use std::path::Path;

use rusqlite::Connection;
use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::jsonl::parse_line_as;
use crate::model::Role;
use crate::source::WholeSession;
use crate::text::join_text;

use super::super::lenient::{Obj, Scalar};
use super::composer::file_uri_path;
use crate::sources::sqlite::{self, bytes_at, text_at};

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    agent_id: Scalar,
    #[serde(default)]
    name: Scalar,
    #[serde(default)]
    created_at: Scalar,
    #[serde(default)]
    latest_root_blob_id: Scalar,
}

#[derive(Debug, Default, Deserialize)]
struct Message {
    #[serde(default)]
    role: Scalar,
    #[serde(default)]
    content: Content,
}

/// A message's content: a string, or an array of typed parts.
#[derive(Debug, Default)]
enum Content {
    #[default]
    None,
    Text(String),
    Parts(Vec<Obj<Part>>),
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Parts(Vec<Obj<Part>>),
            Other(serde::de::IgnoredAny),
        }
        Ok(match Raw::deserialize(d)? {
            Raw::Text(t) => Content::Text(t),
            Raw::Parts(p) => Content::Parts(p),
            Raw::Other(_) => Content::None,
        })
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    #[serde(default, rename = "type")]
    kind: Scalar,
    #[serde(default)]
    text: Scalar,
    #[serde(default)]
    tool_call_id: Scalar,
    #[serde(default)]
    tool_name: Scalar,
}

/// Reads one chat. `folder_id` is its folder's name, the id the CLI lists and resumes it by.
pub(super) fn read(path: &Path, folder_id: Option<&str>) -> std::io::Result<Vec<WholeSession>> {
    read_db(path, folder_id).map_err(sqlite::io_err)
}

fn read_db(path: &Path, folder_id: Option<&str>) -> rusqlite::Result<Vec<WholeSession>> {
    let conn = sqlite::open(path)?;
    let _snapshot = conn.unchecked_transaction()?;
    let tables = sqlite::tables(&conn)?;
    if !tables.contains("blobs") {
        return Ok(Vec::new());
    }
    let meta = if tables.contains("meta") { meta(&conn)? } else { Meta::default() };
    let Some(id) = folder_id.map(str::to_owned).or_else(|| meta.agent_id.as_str().map(str::to_owned)).filter(|s| !s.is_empty())
    else {
        return Ok(Vec::new());
    };
    let root = match meta.latest_root_blob_id.as_str() {
        Some(root_id) => blob(&conn, root_id)?.map(|data| Root::decode(&data)).unwrap_or_default(),
        None => Root::default(),
    };
    let mut messages: Vec<(String, Vec<u8>)> = Vec::new();
    if root.messages.is_empty() {
        // No readable root: every JSON blob, in the order written.
        let mut stmt = conn.prepare("SELECT id, data FROM blobs ORDER BY rowid")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            if let (Some(blob_id), Some(data)) = (text_at(row, Some(0)), bytes_at(row, Some(1))) {
                if data.first() == Some(&b'{') {
                    messages.push((blob_id, data.to_vec()));
                }
            }
        }
    } else {
        for blob_id in &root.messages {
            if let Some(data) = blob(&conn, blob_id)? {
                messages.push((blob_id.clone(), data));
            }
        }
    }
    let updated = [path.to_path_buf(), sqlite::wal_path(path)]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| (sqlite::mtime_ns(&m) / 1_000_000) as i64)
        .filter(|ms| *ms > 0)
        .max();
    let title = meta.name.as_str().map(str::trim).filter(|n| !n.is_empty() && !is_placeholder_name(n)).map(str::to_owned);
    let mut events = vec![Event::Meta(MetaEvent {
        session_id: Some(id.clone()),
        title: title.map(|t| (TitleRank::Generated, t)),
        workspace: root.workspace,
        created: meta.created_at.time(),
        updated,
        hidden: false,
    })];
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for (blob_id, data) in messages {
        let Some(message) = parse_line_as::<Message>(&data) else { continue };
        let n = seen.entry(blob_id.clone()).or_default();
        *n += 1;
        // A blob is its content: the same message twice (two identical prompts) is one
        // blob named twice, so the second gets its own key.
        let key = if *n == 1 { blob_id } else { format!("{blob_id}#{n}") };
        message_events(&message, &key, &mut events);
    }
    Ok(vec![WholeSession { key: String::new(), events }])
}

/// Names the CLI gives a chat before it has a title.
fn is_placeholder_name(name: &str) -> bool {
    matches!(name, "New Agent" | "New Chat" | "New chat" | "Untitled")
}

fn meta(conn: &Connection) -> rusqlite::Result<Meta> {
    let mut stmt = conn.prepare("SELECT key, value FROM meta")?;
    let mut rows = stmt.query([])?;
    let mut pairs = serde_json::Map::new();
    while let Some(row) = rows.next()? {
        let (Some(key), Some(value)) = (text_at(row, Some(0)), bytes_at(row, Some(1))) else { continue };
        if key == "0" {
            // Hex-encoded JSON (plain JSON accepted too).
            let json = hex_decode(value).unwrap_or_else(|| value.to_vec());
            if let Some(meta) = parse_line_as::<Meta>(&json) {
                return Ok(meta);
            }
        } else {
            pairs.insert(key, serde_json::Value::String(String::from_utf8_lossy(value).into_owned()));
        }
    }
    // Metadata as one row per key.
    Ok(serde_json::from_value(serde_json::Value::Object(pairs)).unwrap_or_default())
}

fn blob(conn: &Connection, id: &str) -> rusqlite::Result<Option<Vec<u8>>> {
    let mut stmt = conn.prepare_cached("SELECT data FROM blobs WHERE id = ?1")?;
    let mut rows = stmt.query([id])?;
    Ok(match rows.next()? {
        Some(row) => bytes_at(row, Some(0)).map(<[u8]>::to_vec),
        None => None,
    })
}

fn hex_decode(s: &[u8]) -> Option<Vec<u8>> {
    let s = s.trim_ascii();
    if s.is_empty() || s.len() % 2 != 0 {
        return None;
    }
    s.chunks(2)
        .map(|pair| {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

/// What the root blob says: the message blob ids in order, and the workspace.
#[derive(Debug, Default)]
struct Root {
    messages: Vec<String>,
    workspace: Option<String>,
}

impl Root {
    /// Walks the protobuf's top-level fields; anything malformed ends the walk with what
    /// was read so far.
    fn decode(buf: &[u8]) -> Root {
        let mut root = Root::default();
        let mut at = 0;
        while at < buf.len() {
            let Some(key) = varint(buf, &mut at) else { break };
            let (field, wire) = (key >> 3, key & 7);
            match wire {
                0 => {
                    if varint(buf, &mut at).is_none() {
                        break;
                    }
                }
                1 => at += 8,
                5 => at += 4,
                2 => {
                    let Some(len) = varint(buf, &mut at).and_then(|l| usize::try_from(l).ok()) else { break };
                    let Some(bytes) = at.checked_add(len).and_then(|end| buf.get(at..end)) else { break };
                    at += len;
                    match field {
                        1 if bytes.len() == 32 => root.messages.push(bytes.iter().map(|b| format!("{b:02x}")).collect()),
                        9 if root.workspace.is_none() => {
                            root.workspace = std::str::from_utf8(bytes).ok().and_then(file_uri_path);
                        }
                        _ => {}
                    }
                }
                _ => break,
            }
        }
        root
    }
}

fn varint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *buf.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn message_events(message: &Message, key: &str, out: &mut Vec<Event>) {
    let role = match message.role.as_str() {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        _ => return, // system prompts, tool results
    };
    let mut texts: Vec<String> = Vec::new();
    let mut tools: Vec<(String, String)> = Vec::new();
    match &message.content {
        Content::Text(t) => texts.push(t.clone()),
        Content::Parts(parts) => {
            for (i, part) in parts.iter().filter_map(|p| p.0.as_ref()).enumerate() {
                match part.kind.as_str() {
                    Some("text") => texts.extend(part.text.as_str().map(str::to_owned)),
                    Some("tool-call") => {
                        let name = part.tool_name.as_str().filter(|n| !n.is_empty()).unwrap_or("tool");
                        let call = part.tool_call_id.as_str().filter(|c| !c.is_empty()).map_or_else(|| format!("{key}:{i}"), str::to_owned);
                        tools.push((call, name.to_string()));
                    }
                    _ => {}
                }
            }
        }
        Content::None => {}
    }
    let text = match role {
        Role::User => join_text(texts.iter().map(|t| user_query(t)).filter(|t| !t.is_empty())),
        Role::Assistant => {
            let cleaned: Vec<String> = texts.iter().map(|t| strip_think(t)).collect();
            join_text(cleaned.iter().map(String::as_str))
        }
    };
    if let Some(text) = text {
        out.push(Event::message(key, key, role, text, None, Merge::Replace));
    }
    out.extend(tools.into_iter().map(|(key, name)| Event::ToolCall { key, name }));
}

/// What the person typed: the `<user_query>` the CLI wraps it in, or the text as it is;
/// nothing for a block of injected context (`<user_info>…</user_info>`, `<rules>…`).
fn user_query(text: &str) -> &str {
    if let (Some(start), Some(end)) = (text.find("<user_query>"), text.rfind("</user_query>")) {
        let inner = start + "<user_query>".len();
        if inner <= end {
            return text[inner..end].trim();
        }
    }
    if is_context_block(text) {
        ""
    } else {
        text
    }
}

/// Text made only of `<tag>…</tag>` blocks (snake-case tags).
fn is_context_block(text: &str) -> bool {
    let t = text.trim();
    let Some(rest) = t.strip_prefix('<') else { return false };
    let Some(close) = rest.find('>') else { return false };
    let tag = &rest[..close];
    !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') && t.ends_with('>') && t.contains(&format!("</{tag}>"))
}

/// The text less `<think>…</think>` blocks (reasoning some models inline).
fn strip_think(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<think>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_lists_messages_in_order_and_names_the_workspace() {
        let mut buf = Vec::new();
        for id in [[1u8; 32], [2u8; 32]] {
            buf.extend([0x0a, 32]);
            buf.extend(id);
        }
        let uri = b"file:///home/me/My%20App";
        buf.extend([0x4a, uri.len() as u8]);
        buf.extend(uri);
        buf.extend([0x10, 0x96, 0x01]); // a varint field
        let root = Root::decode(&buf);
        assert_eq!(root.messages, ["01".repeat(32), "02".repeat(32)]);
        assert_eq!(root.workspace.as_deref(), Some("/home/me/My App"));
        // Cut short: what was read stands.
        assert_eq!(Root::decode(&buf[..40]).messages.len(), 1);
        assert!(Root::decode(&[0xff; 12]).messages.is_empty());
    }

    #[test]
    fn user_text_is_the_query_and_context_is_nothing() {
        assert_eq!(user_query("<user_info>OS linux</user_info>\n<user_query>\nfix it\n</user_query>"), "fix it");
        assert_eq!(user_query("<user_info>OS linux</user_info>"), "");
        assert_eq!(user_query("<rules>\nbe nice\n</rules>\n<project_layout>x</project_layout>"), "");
        assert_eq!(user_query("plain <b>bold</b> question"), "plain <b>bold</b> question");
        assert_eq!(strip_think("<think>hmm</think>Answer"), "Answer");
        assert_eq!(strip_think("a <think>cut"), "a ");
    }
}
