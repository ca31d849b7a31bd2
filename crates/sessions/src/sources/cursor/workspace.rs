//! The per-workspace stores, `User/workspaceStorage/<id>/state.vscdb` (VS Code's
//! `ItemTable(key, value)`), each with `workspace.json` naming the folder (`{"folder":
//! "file:///…"}`, or `{"workspace": "file:///….code-workspace"}` for a multi-root one).
//!
//! Current versions keep only composer heads there (`composer.composerData`:
//! `{allComposers: [...]}` or, later, `selectedComposerIds`), which map an older composer
//! to its folder ([`Folders`]). Older ones kept whole conversations, read here as one
//! [`UnitKind::Whole`](crate::source::UnitKind) unit per workspace database:
//!
//! * the chat panel (before composers, Cursor ≤ 0.42):
//!   `workbench.panel.aichat.view.aichat.chatdata` = `{tabs: [{tabId, chatTitle,
//!   lastSendTime, bubbles: [{id, type: "user"|"ai", text, …}]}]}`, one session per tab;
//! * composers with their conversation inline (0.4x, before the global `cursorDiskKV`):
//!   `allComposers[]` entries with a non-empty `conversation`. One the global store also
//!   holds (`composerData:<id>`) is read there, not here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde::Deserialize;

use crate::events::{Event, Merge, MetaEvent, TitleRank};
use crate::jsonl::parse_line_as;
use crate::model::Role;
use crate::source::{WholeRead, WholeSession};
use crate::text::join_text;

use super::super::lenient::{List, Scalar};
use super::composer::{file_uri_path, session, ComposerData};
use crate::sources::sqlite::{self, bytes_at};

const CHAT_DATA: &str = "workbench.panel.aichat.view.aichat.chatdata";
const COMPOSER_DATA: &str = "composer.composerData";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AllComposers {
    #[serde(default)]
    all_composers: List<ComposerData>,
}

#[derive(Debug, Default, Deserialize)]
struct ChatData {
    #[serde(default)]
    tabs: List<Tab>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tab {
    #[serde(default)]
    tab_id: Scalar,
    #[serde(default)]
    chat_title: Scalar,
    #[serde(default)]
    last_send_time: Scalar,
    #[serde(default)]
    bubbles: List<TabBubble>,
}

#[derive(Debug, Default, Deserialize)]
struct TabBubble {
    #[serde(default)]
    id: Scalar,
    #[serde(default, rename = "type")]
    kind: Scalar,
    #[serde(default)]
    text: Scalar,
}

/// Reads one workspace database's own conversations.
pub(super) fn read(path: &Path) -> std::io::Result<WholeRead> {
    read_db(path).map_err(sqlite::io_err)
}

fn read_db(path: &Path) -> rusqlite::Result<WholeRead> {
    let conn = sqlite::open(path)?;
    let _snapshot = conn.unchecked_transaction()?;
    if !sqlite::tables(&conn)?.contains("ItemTable") {
        return Ok(WholeRead { sessions: Vec::new(), present: Some(Vec::new()), mark: None });
    }
    let folder = path.parent().and_then(folder_of);
    let mut sessions = Vec::new();
    let chat: ChatData = item(&conn, CHAT_DATA)?.as_deref().and_then(parse_line_as).unwrap_or_default();
    for tab in chat.tabs.0.iter().filter_map(|t| t.0.as_ref()) {
        if let Some(s) = tab_session(tab, folder.as_deref()) {
            sessions.push(s);
        }
    }
    let composers: AllComposers = item(&conn, COMPOSER_DATA)?.as_deref().and_then(parse_line_as).unwrap_or_default();
    let inline: Vec<&ComposerData> =
        composers.all_composers.0.iter().filter_map(|c| c.0.as_ref()).filter(|c| !c.conversation.0.is_empty()).collect();
    if !inline.is_empty() {
        let global = global_composers(path);
        for data in inline {
            let Some(id) = data.composer_id.as_str().filter(|s| !s.is_empty()) else { continue };
            if global.contains(id) {
                continue;
            }
            let mut facts = data.facts(id);
            facts.workspace = facts.workspace.or_else(|| folder.clone());
            let bubbles = data.conversation.0.iter().enumerate().filter_map(|(i, b)| Some((format!("{id}#{i}"), b.0.as_ref()?)));
            sessions.push(session(facts, bubbles));
        }
    }
    let present = Some(sessions.iter().map(|s| s.key.clone()).collect());
    Ok(WholeRead { sessions, present, mark: None })
}

/// One chat panel tab.
fn tab_session(tab: &Tab, folder: Option<&str>) -> Option<WholeSession> {
    let id = tab.tab_id.as_str().filter(|s| !s.is_empty())?.to_string();
    let updated = tab.last_send_time.time();
    let mut events = vec![Event::Meta(MetaEvent {
        session_id: Some(id.clone()),
        title: tab.chat_title.as_str().map(str::trim).filter(|t| !t.is_empty()).map(|t| (TitleRank::Generated, t.to_string())),
        workspace: folder.map(str::to_string),
        created: None,
        updated,
        hidden: false,
    })];
    for (i, bubble) in tab.bubbles.0.iter().enumerate() {
        let Some(bubble) = &bubble.0 else { continue };
        let role = match bubble.kind.as_str() {
            Some("user") => Role::User,
            Some("ai") | Some("assistant") => Role::Assistant,
            _ => continue,
        };
        let Some(text) = bubble.text.as_str().and_then(|t| join_text([t])) else { continue };
        let key = bubble.id.as_str().filter(|s| !s.is_empty()).map_or_else(|| format!("{id}#{i}"), str::to_string);
        events.push(Event::message(key.clone(), key, role, text, None, Merge::Replace));
    }
    Some(WholeSession { key: id, events })
}

fn item(conn: &Connection, key: &str) -> rusqlite::Result<Option<Vec<u8>>> {
    let mut stmt = conn.prepare_cached("SELECT value FROM ItemTable WHERE key = ?1")?;
    let mut rows = stmt.query([key])?;
    Ok(match rows.next()? {
        Some(row) => bytes_at(row, Some(0)).map(<[u8]>::to_vec),
        None => None,
    })
}

/// The ids of the composers the global store holds (`User/globalStorage/state.vscdb`
/// beside `workspaceStorage`); empty when it cannot be read.
fn global_composers(workspace_db: &Path) -> std::collections::HashSet<String> {
    let Some(user) = workspace_db.parent().and_then(Path::parent).and_then(Path::parent) else { return Default::default() };
    let global = user.join("globalStorage").join("state.vscdb");
    if !plain_file(&global) {
        return Default::default();
    }
    let read = || -> rusqlite::Result<std::collections::HashSet<String>> {
        let conn = sqlite::open(&global)?;
        if !sqlite::tables(&conn)?.contains("cursorDiskKV") {
            return Ok(Default::default());
        }
        let mut stmt = conn.prepare("SELECT key FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'")?;
        let keys = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(keys.filter_map(Result::ok).filter_map(|k| k.strip_prefix("composerData:").map(str::to_owned)).collect())
    };
    read().unwrap_or_default()
}

/// A regular file that is not a symbolic link (side files named by the databases are read
/// only when they are plainly inside the folder).
fn plain_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// The folder a workspace storage folder stands for, from its `workspace.json`.
pub(super) fn folder_of(dir: &Path) -> Option<String> {
    #[derive(Deserialize)]
    struct WorkspaceJson {
        #[serde(default)]
        folder: Scalar,
        #[serde(default)]
        workspace: Scalar,
    }
    let file = dir.join("workspace.json");
    if !plain_file(&file) || std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return None;
    }
    let bytes = std::fs::read(&file).ok()?;
    if bytes.len() > 1 << 20 {
        return None;
    }
    let json: WorkspaceJson = parse_line_as(&bytes)?;
    json.folder.as_str().or(json.workspace.as_str()).and_then(file_uri_path)
}

/// Finds the folder of composers the global store does not place, lazily: the
/// `workspace.json` of the workspace storage id their head names, else the workspace whose
/// `composer.composerData` lists them (every workspace database is read once, and only
/// when some composer needs it).
pub(super) struct Folders {
    storage: Option<PathBuf>,
    by_composer: Option<HashMap<String, String>>,
}

impl Folders {
    /// For the global store at `global_db` (`User/globalStorage/state.vscdb`).
    pub fn new(global_db: &Path) -> Folders {
        let storage = global_db.parent().and_then(Path::parent).map(|user| user.join("workspaceStorage"));
        Folders { storage, by_composer: None }
    }

    pub fn of_composer(&mut self, id: &str, workspace_id: Option<&str>) -> Option<String> {
        let storage = self.storage.clone()?;
        if let Some(ws) = workspace_id.filter(|w| is_plain_name(w)) {
            if let Some(folder) = folder_of(&storage.join(ws)) {
                return Some(folder);
            }
        }
        self.by_composer.get_or_insert_with(|| scan(&storage)).get(id).cloned()
    }
}

/// A single path component that names a folder in place (no separators, not `.`/`..`).
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// Composer id → folder, from every workspace database's composer heads.
fn scan(storage: &Path) -> HashMap<String, String> {
    let mut map = HashMap::new();
    let Ok(entries) = std::fs::read_dir(storage) else { return map };
    for entry in entries.filter_map(Result::ok) {
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue; // links are not followed
        }
        let dir = entry.path();
        let db = dir.join("state.vscdb");
        if !plain_file(&db) {
            continue;
        }
        let Some(folder) = folder_of(&dir) else { continue };
        let read = || -> rusqlite::Result<Option<Vec<u8>>> {
            let conn = sqlite::open(&db)?;
            if !sqlite::tables(&conn)?.contains("ItemTable") {
                return Ok(None);
            }
            item(&conn, COMPOSER_DATA)
        };
        let Ok(Some(bytes)) = read() else { continue };
        let all: AllComposers = parse_line_as(&bytes).unwrap_or_default();
        for head in all.all_composers.0.iter().filter_map(|h| h.0.as_ref()) {
            if let Some(id) = head.composer_id.as_str().filter(|s| !s.is_empty()) {
                map.entry(id.to_string()).or_insert_with(|| folder.clone());
            }
        }
    }
    map
}
