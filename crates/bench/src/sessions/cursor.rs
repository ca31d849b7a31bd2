//! A synthetic Cursor global store: `~/.config/Cursor/User/globalStorage/state.vscdb` with
//! VS Code's `ItemTable`, `cursorDiskKV` (`composerData:<id>` with the conversation as
//! `fullConversationHeadersOnly`, and one `bubbleId:<composer>:<bubble>` row per bubble:
//! the person's (with Lexical `richText`), the agent's text, thinking, and tool bubbles
//! whose `toolFormerData` holds params and the tool's whole result), the `composerHeaders`
//! catalog, `task_v2` sub-agents as hidden `task-<toolCallId>` composers, and the rows the
//! reader never fetches (`checkpointId:`, `messageRequestContext:`, `agentKv:blob:`).
//! Beside it, one `workspaceStorage/<id>/` per workspace with `workspace.json` and a small
//! `state.vscdb` naming the composers shown there.

use std::path::Path;

use rand::Rng;
use rusqlite::{params, Connection};
use serde_json::{json, Value};

use super::claude::title;
use super::mix::{Plan, Totals};
use super::text::{file_uri, iso, Gen};

/// The tables of Cursor's global `state.vscdb`.
pub const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE IF NOT EXISTS cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE IF NOT EXISTS composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER,
        lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER, checkpointAt INTEGER,
        value TEXT, subagentTypeName TEXT);
";

/// The workspace storage id Cursor derives for a folder (an MD5 in Cursor; any stable hex here).
pub fn workspace_id(cwd: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in cwd.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}{:016x}", h.rotate_left(29) ^ 0x5bd1_e995)
}

/// A bubble as Cursor writes it (`_v` 3), with the fields readers meet and a few heavy ones.
pub fn bubble(id: &str, kind: u8, text: &str, created: i64) -> Value {
    let rich = if kind == 1 {
        json!({"root": {"children": [{"children": [{"detail": 0, "format": 0, "mode": "normal", "style": "", "text": text, "type": "text", "version": 1}],
            "direction": "ltr", "format": "", "indent": 0, "type": "paragraph", "version": 1}], "direction": "ltr", "format": "", "indent": 0, "type": "root", "version": 1}})
        .to_string()
    } else {
        String::new()
    };
    json!({"_v": 3, "type": kind, "bubbleId": id, "text": text, "richText": rich, "createdAt": iso(created), "requestId": "",
        "codeBlocks": [], "toolResults": [], "suggestedCodeBlocks": [], "isAgentic": true, "unifiedMode": 2, "capabilityType": 15,
        "tokenCount": {"inputTokens": 0, "outputTokens": 0}, "context": {"fileSelections": [], "folderSelections": [], "terminalFiles": []},
        "timingInfo": {"clientStartTime": 1_000_000 + created % 1_000_000, "clientRpcSendTime": created, "clientSettleTime": created + 900},
        "cursorRules": [], "attachedCodeChunks": [], "approximateLintErrors": [], "lints": [], "isRefunded": false})
}

/// A composer's rows: its bubbles, its data and its head.
struct Composer<'a> {
    id: String,
    cwd: &'a str,
    created: i64,
    ts: i64,
    headers: Vec<Value>,
    hidden: bool,
}

impl Composer<'_> {
    fn put(&mut self, conn: &Connection, g: &mut Gen, kind: u8, mut bubble_of: impl FnMut(&str) -> Value) -> rusqlite::Result<u64> {
        let bubble_id = g.uuid();
        self.ts += g.rng.random_range(200..8_000);
        let value = bubble_of(&bubble_id).to_string();
        conn.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![format!("bubbleId:{}:{bubble_id}", self.id), value])?;
        self.headers.push(json!({"bubbleId": bubble_id, "type": kind}));
        Ok(value.len() as u64)
    }

    fn save(&self, conn: &Connection, g: &mut Gen) -> rusqlite::Result<()> {
        let ws = workspace_id(self.cwd);
        let identifier = json!({"id": ws, "uri": {"$mid": 1, "fsPath": self.cwd, "external": file_uri(self.cwd), "path": self.cwd, "scheme": "file"}});
        let name = title(g);
        let data = json!({"_v": 10, "composerId": self.id, "name": name, "richText": "", "text": "", "status": "completed",
            "createdAt": self.created, "lastUpdatedAt": self.ts, "fullConversationHeadersOnly": self.headers, "conversationMap": {},
            "context": {"fileSelections": [], "folderSelections": [], "mentions": {}}, "isAgentic": true, "unifiedMode": "agent",
            "originalFileStates": {}, "codeBlockData": {}, "workspaceIdentifier": identifier, "isSubagent": self.hidden,
            "modelConfig": {"modelName": "claude-4.5-sonnet-thinking", "maxMode": false}, "usageData": {}, "hasChangedContext": false});
        let head = json!({"type": "head", "composerId": self.id, "name": name, "createdAt": self.created, "lastUpdatedAt": self.ts,
            "unifiedMode": "agent", "workspaceIdentifier": identifier});
        conn.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![format!("composerData:{}", self.id), data.to_string()])?;
        conn.execute(
            "INSERT OR REPLACE INTO composerHeaders (composerId, workspaceId, createdAt, lastUpdatedAt, isArchived, isSubagent, recency, checkpointAt, value, subagentTypeName)
             VALUES (?1, ?2, ?3, ?4, 0, ?5, ?4, NULL, ?6, ?7)",
            params![self.id, ws, self.created, self.ts, self.hidden, head.to_string(), self.hidden.then_some("explore")],
        )?;
        Ok(())
    }
}

/// Writes the global store at `user/globalStorage/state.vscdb` and the workspace stores;
/// returns what was written (`unread`: the rows the reader never fetches, by value size).
pub fn write(g: &mut Gen, user: &Path, plans: &[Plan]) -> anyhow::Result<Totals> {
    let db = user.join("globalStorage/state.vscdb");
    std::fs::create_dir_all(db.parent().unwrap_or(user))?;
    let conn = Connection::open(&db)?;
    conn.pragma_update(None, "journal_mode", "wal")?;
    conn.pragma_update(None, "synchronous", "off")?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.unchecked_transaction()?;
    for (key, value) in [("cursorAuth/cachedSignUpType", "\"Auth_0\"".to_string()), ("workbench.panel.aichat.numberOfVisibleViews", "1".into()),
        ("src.vs.platform.reactivestorage.browser.reactiveStorageServiceImpl.persistentStorage.applicationUser", json!({"composerState": {"defaultModel": "claude-4.5-sonnet-thinking"}, "aiSettings": {"modelOverrideEnabled": []}}).to_string())] {
        tx.execute("INSERT INTO ItemTable VALUES (?1, ?2)", params![key, value])?;
    }
    let mut t = Totals::default();
    let mut by_workspace: Vec<(&str, Vec<String>)> = Vec::new();
    for plan in plans {
        let mut c = Composer { id: g.uuid(), cwd: &plan.cwd, created: plan.start, ts: plan.start, headers: Vec::new(), hidden: false };
        let mut size = 0u64;
        let mut subs = 0;
        while size < plan.target {
            c.ts += g.rng.random_range(5_000..120_000);
            let words = g.prompt_words();
            let prompt = g.text(words);
            let ts = c.ts;
            size += c.put(&tx, g, 1, |id| bubble(id, 1, &prompt, ts))?;
            t.messages += 1;
            let rounds = g.rounds(3.0);
            for round in 0..=rounds {
                let last = round == rounds;
                if g.rng.random_ratio(1, 2) {
                    let words = g.rng.random_range(20..200);
                    let thinking = json!({"text": g.text(words), "signature": g.blob_string(400)});
                    let ts = c.ts;
                    size += c.put(&tx, g, 2, |id| {
                        let mut b = bubble(id, 2, "", ts);
                        b["thinking"] = thinking.clone();
                        b
                    })?;
                }
                if last || g.rng.random_ratio(2, 5) {
                    let words = if last { g.answer_words() } else { g.rng.random_range(6..40) };
                    let text = g.text(words);
                    let ts = c.ts;
                    size += c.put(&tx, g, 2, |id| bubble(id, 2, &text, ts))?;
                    t.messages += 1;
                }
                if last {
                    break;
                }
                let call = format!("toolu_01{}", g.base62(22));
                let len = g.out_len(2500.0, 1.3, 300_000);
                let output = g.code(len);
                let (name, params, result) = match g.rng.random_range(0..40) {
                    0 if subs < 3 => {
                        // A sub-agent: its own hidden composer, `task-<toolCallId>`.
                        t.hidden += 1;
                        subs += 1;
                        let mut sub = Composer { id: format!("task-{call}"), cwd: &plan.cwd, created: c.ts, ts: c.ts, headers: Vec::new(), hidden: true };
                        let ts = sub.ts;
                        size += sub.put(&tx, g, 1, |id| bubble(id, 1, "Find where the parser handles errors", ts))?;
                        size += sub.put(&tx, g, 2, |id| bubble(id, 2, &output, ts))?;
                        t.messages += 2;
                        sub.save(&tx, g)?;
                        ("task_v2", json!({"description": "Explore the parser", "prompt": "Find where the parser handles errors", "subagentType": "explore"}), json!({"summary": output}))
                    }
                    1..=13 => ("read_file_v2", json!({"targetFile": format!("{}/src/lib.rs", plan.cwd), "offset": 1, "limit": 400}), json!({"contents": output, "totalLinesInFile": 812})),
                    14..=23 => {
                        let key = format!("checkpointId:{}:{}", c.id, g.uuid());
                        let checkpoint = json!({"files": [{"uri": {"fsPath": format!("{}/src/lib.rs", plan.cwd)}, "originalModelDiffWrtV0": [{"original": {"startLineNumber": 12, "endLineNumberExclusive": 40}, "modified": output}]}], "nonExistentFiles": [], "newlyCreatedFolders": [], "activeInlineDiffs": []}).to_string();
                        t.unread += checkpoint.len() as u64;
                        size += checkpoint.len() as u64;
                        tx.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![key, checkpoint])?;
                        ("edit_file_v2", json!({"relativeWorkspacePath": "src/lib.rs", "streamingContent": output}), json!({"diff": {"chunks": [{"diffString": output}]}, "isApplied": true}))
                    }
                    _ => ("run_terminal_command_v2", json!({"command": "cargo test -p parser", "cwd": plan.cwd, "isBackground": false}), json!({"output": output, "exitCode": 0, "rejected": false})),
                };
                let former = json!({"tool": 15, "toolIndex": 0, "modelCallId": g.uuid(), "toolCallId": call, "status": "completed",
                    "rawArgs": params.to_string(), "name": name, "params": params.to_string(), "result": result.to_string(), "additionalData": {}, "userDecision": "accepted"});
                let ts = c.ts;
                size += c.put(&tx, g, 2, |id| {
                    let mut b = bubble(id, 2, "", ts);
                    b["toolFormerData"] = former.clone();
                    b
                })?;
                if g.rng.random_ratio(1, 4) {
                    // The agent's raw request state, partly binary, never read.
                    let len = g.rng.random_range(2_000..30_000);
                    let blob = g.blob_string(len).into_bytes();
                    t.unread += blob.len() as u64;
                    size += blob.len() as u64;
                    tx.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![format!("agentKv:blob:{}", g.base62(40)), blob])?;
                }
            }
            let context = json!({"terminalFiles": [], "cursorRules": [], "attachedFoldersListDirResults": [], "gitDiff": "", "summarizedComposers": []}).to_string();
            t.unread += context.len() as u64;
            tx.execute("INSERT INTO cursorDiskKV VALUES (?1, ?2)", params![format!("messageRequestContext:{}:{}", c.id, g.uuid()), context])?;
        }
        c.save(&tx, g)?;
        t.sessions += 1;
        match by_workspace.iter_mut().find(|(w, _)| *w == plan.cwd) {
            Some((_, ids)) => ids.push(c.id.clone()),
            None => by_workspace.push((plan.cwd.as_str(), vec![c.id.clone()])),
        }
    }
    tx.commit()?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    drop(conn);
    t.bytes = std::fs::metadata(&db)?.len();
    for (cwd, ids) in by_workspace {
        let dir = user.join("workspaceStorage").join(workspace_id(cwd));
        std::fs::create_dir_all(&dir)?;
        let folder = json!({"folder": file_uri(cwd)}).to_string();
        std::fs::write(dir.join("workspace.json"), &folder)?;
        let conn = Connection::open(dir.join("state.vscdb"))?;
        conn.pragma_update(None, "journal_mode", "wal")?;
        conn.execute_batch("CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);")?;
        let selected = json!({"selectedComposerIds": ids.iter().rev().take(3).collect::<Vec<_>>(), "lastFocusedComposerIds": ids.iter().rev().take(1).collect::<Vec<_>>(), "hasMigratedComposerData": true});
        conn.execute("INSERT INTO ItemTable VALUES ('composer.composerData', ?1)", [selected.to_string()])?;
        conn.execute("INSERT INTO ItemTable VALUES ('workbench.explorer.treeViewState', '{\"expanded\":[\"src\"]}')", [])?;
        drop(conn);
        t.bytes += folder.len() as u64 + std::fs::metadata(dir.join("state.vscdb"))?.len();
    }
    Ok(t)
}
