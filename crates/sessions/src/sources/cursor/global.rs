//! The editor's global store, `User/globalStorage/state.vscdb`: one [`UnitKind::Whole`]
//! unit holding every composer (since Cursor 0.43), read through [`super::ro`].
//!
//! `cursorDiskKV(key, value)` holds `composerData:<composerId>` (the composer: title,
//! times, workspace, and the conversation as `fullConversationHeadersOnly` bubble ids or,
//! before, an inline `conversation`) and `bubbleId:<composerId>:<bubbleId>` (one message
//! each). The database is often gigabytes (checkpoints, code diffs, `agentKv:` blobs), so
//! only `composerData:` and `bubbleId:` rows are fetched, by key range on the table's key
//! index, one composer at a time.
//!
//! **Changes only.** Cursor keeps a catalog of composers with their `lastUpdatedAt`: the
//! `composerHeaders` table (2025 on; `composerId, workspaceId, createdAt, lastUpdatedAt,
//! isArchived, isSubagent, …, value` with the head's JSON) or, before it, the global
//! `ItemTable` key `composer.composerHeaders` (`{allComposers: [heads]}`). With a catalog the
//! mark is the latest `lastUpdatedAt`, and a later read takes only the composers updated at
//! or after it (the boundary millisecond again), plus any composer the catalog lacks.
//! Without one (older versions) every read is whole. `present` lists every
//! `composerData:` key, so a composer Cursor deleted is archived.
//!
//! The workspace is the composer's `workspaceIdentifier.uri.fsPath` (head or data), else
//! the `workspace.json` of `workspaceStorage/<workspaceId>`, else the workspace database
//! whose `composer.composerData` lists the composer (older versions; [`super::workspace`]).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rusqlite::Connection;

use crate::jsonl::parse_line_as;
use crate::source::{WholeRead, WholeSession};

use super::composer::{session, Bubble, ComposerData, Facts};
use crate::sources::sqlite::{self, bytes_at, int_at, text_at, time_at};
use super::workspace;

const COMPOSER_PREFIX: &str = "composerData:";

/// Reads the composers changed since `since` (all when `None`).
pub(super) fn read(path: &Path, since: Option<i64>) -> std::io::Result<WholeRead> {
    read_db(path, since).map_err(sqlite::io_err)
}

fn read_db(path: &Path, since: Option<i64>) -> rusqlite::Result<WholeRead> {
    let conn = sqlite::open(path)?;
    // One snapshot for every query; rolled back at the end, nothing was written.
    let _snapshot = conn.unchecked_transaction()?;
    let tables = sqlite::tables(&conn)?;
    if !tables.contains("cursorDiskKV") {
        // A database being created, or one without composers.
        return Ok(WholeRead { sessions: Vec::new(), present: Some(Vec::new()), mark: None });
    }
    let ids = composer_ids(&conn)?;
    let catalog = catalog(&conn, &tables)?;
    let mark = catalog.values().filter_map(|h| h.facts.updated).max().map(|m| m.max(since.unwrap_or(m)));
    let changed = |id: &String| match (since, catalog.get(id)) {
        (Some(since), Some(head)) => head.facts.updated.is_none_or(|u| u >= since),
        _ => true,
    };
    let mut lazy = workspace::Folders::new(path);
    let mut sessions = Vec::new();
    for id in ids.iter().filter(|id| changed(id)) {
        let Some(data) = composer_data(&conn, id)? else { continue };
        let head = catalog.get(id);
        let mut facts = match head {
            Some(head) => head.facts.clone().or(&data.facts(id)),
            None => data.facts(id),
        };
        if facts.workspace.is_none() {
            facts.workspace = lazy.of_composer(id, head.and_then(|h| h.workspace_id.as_deref()));
        }
        sessions.push(read_session(&conn, facts, &data)?);
    }
    Ok(WholeRead { sessions, present: Some(ids), mark: if catalog.is_empty() { None } else { mark } })
}

/// Every `composerData:` key's composer id (keys only: the key index alone is read).
fn composer_ids(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT key FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'")?;
    let mut rows = stmt.query([])?;
    let mut ids = Vec::new();
    while let Some(row) = rows.next()? {
        if let Some(id) = text_at(row, Some(0)).and_then(|k| k.strip_prefix(COMPOSER_PREFIX).map(str::to_owned)) {
            if !id.is_empty() {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// A composer's head in the catalog, with its workspace storage id.
#[derive(Debug, Clone)]
struct Head {
    facts: Facts,
    workspace_id: Option<String>,
}

/// The composers' heads: the `composerHeaders` table, else the `composer.composerHeaders`
/// item; empty when neither exists.
fn catalog(conn: &Connection, tables: &HashSet<String>) -> rusqlite::Result<HashMap<String, Head>> {
    let mut heads = HashMap::new();
    if tables.contains("composerHeaders") {
        let mut stmt = conn.prepare("SELECT * FROM composerHeaders")?;
        let cols: HashMap<String, usize> =
            stmt.column_names().iter().enumerate().map(|(i, n)| (n.to_ascii_lowercase(), i)).collect();
        let col = |n: &str| cols.get(n).copied();
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let Some(id) = text_at(row, col("composerid")).filter(|s| !s.is_empty()) else { continue };
            let value: ComposerData = bytes_at(row, col("value")).and_then(parse_line_as).unwrap_or_default();
            let mut facts = value.facts(&id);
            facts.created = time_at(row, col("createdat")).or(facts.created);
            facts.updated = time_at(row, col("lastupdatedat")).or(facts.updated);
            facts.hidden |= int_at(row, col("issubagent")).is_some_and(|n| n != 0);
            let workspace_id = col("workspaceid")
                .and_then(|i| text_at(row, Some(i)))
                .or_else(|| value.workspace_identifier.0.as_ref().and_then(|w| w.id.as_str().map(str::to_owned)));
            heads.insert(id, Head { facts, workspace_id });
        }
    }
    if heads.is_empty() && tables.contains("ItemTable") {
        #[derive(Default, serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct AllComposers {
            #[serde(default)]
            all_composers: super::super::lenient::List<ComposerData>,
        }
        let value: Option<Vec<u8>> = conn
            .query_row("SELECT value FROM ItemTable WHERE key = 'composer.composerHeaders'", [], |r| Ok(bytes_at(r, Some(0)).map(<[u8]>::to_vec)))
            .or_else(|e| if e == rusqlite::Error::QueryReturnedNoRows { Ok(None) } else { Err(e) })?;
        let all: AllComposers = value.as_deref().and_then(parse_line_as).unwrap_or_default();
        for head in all.all_composers.0.iter().filter_map(|h| h.0.as_ref()) {
            let Some(id) = head.composer_id.as_str().filter(|s| !s.is_empty()) else { continue };
            let facts = head.facts(id);
            let workspace_id = head.workspace_identifier.0.as_ref().and_then(|w| w.id.as_str().map(str::to_owned));
            heads.insert(id.to_string(), Head { facts, workspace_id });
        }
    }
    Ok(heads)
}

fn composer_data(conn: &Connection, id: &str) -> rusqlite::Result<Option<ComposerData>> {
    let mut stmt = conn.prepare_cached("SELECT value FROM cursorDiskKV WHERE key = ?1")?;
    let mut rows = stmt.query([format!("{COMPOSER_PREFIX}{id}")])?;
    let Some(row) = rows.next()? else { return Ok(None) };
    // A composer whose JSON is cut or broken is read as empty (no messages), not skipped:
    // it is still present, and reads whole once Cursor writes it again.
    Ok(Some(bytes_at(row, Some(0)).and_then(parse_line_as).unwrap_or_default()))
}

/// The composer's session: its bubbles in conversation order, those its headers name
/// (fetched by key range), else its inline conversation. Bubbles whose JSON is cut or
/// broken are left out until they are written whole; bubbles no header names (an edited
/// turn's old branch) are not part of the conversation.
fn read_session(conn: &Connection, facts: Facts, data: &ComposerData) -> rusqlite::Result<WholeSession> {
    let order: Vec<&str> = data.header_ids().collect();
    if order.is_empty() {
        let id = facts.id.clone();
        let inline = data.conversation.0.iter().enumerate().filter_map(|(i, b)| Some((format!("{id}#{i}"), b.0.as_ref()?)));
        return Ok(session(facts, inline));
    }
    let prefix = format!("bubbleId:{}:", facts.id);
    let end = format!("bubbleId:{};", facts.id);
    let mut stmt = conn.prepare_cached("SELECT key, value FROM cursorDiskKV WHERE key >= ?1 AND key < ?2")?;
    let mut rows = stmt.query([&prefix, &end])?;
    let mut found: HashMap<String, Bubble> = HashMap::new();
    while let Some(row) = rows.next()? {
        let Some(bubble_id) = text_at(row, Some(0)).and_then(|k| k.strip_prefix(&prefix).map(str::to_owned)) else { continue };
        if let Some(bubble) = bytes_at(row, Some(1)).and_then(parse_line_as::<Bubble>) {
            found.insert(bubble_id, bubble);
        }
    }
    let ordered: Vec<(String, Bubble)> = order.into_iter().filter_map(|b| found.remove(b).map(|bubble| (b.to_string(), bubble))).collect();
    Ok(session(facts, ordered.iter().map(|(id, b)| (id.clone(), b))))
}
