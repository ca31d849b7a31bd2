//! A synthetic Zed `threads.db` (`~/.local/share/zed/threads/`): one row per agent thread,
//! its JSON (`"version": "0.3.0"`) zstd-compressed as Zed saves it. A thread holds `User`
//! messages (typed text, sometimes a file `Mention` with the file's contents) and one
//! `Agent` message per turn, its content `Thinking` (signed), `Text` and `ToolUse` items
//! in order with every tool's output in `tool_results`; per-request token usage and the
//! project snapshot. Now and then a `spawn_agent` tool runs a sub-agent, whose thread is
//! a row of its own with `parent_id` (and `subagent_context`).

use std::path::Path;

use rand::Rng;
use rusqlite::{params, Connection};
use serde_json::{json, Map, Value};

use super::claude::title;
use super::mix::{Plan, Totals};
use super::text::{iso, Gen};

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL,
        data_type TEXT NOT NULL, data BLOB NOT NULL);
    ALTER TABLE threads ADD COLUMN parent_id TEXT;
    ALTER TABLE threads ADD COLUMN folder_paths TEXT;
    ALTER TABLE threads ADD COLUMN folder_paths_order TEXT;
    ALTER TABLE threads ADD COLUMN created_at TEXT;
";

/// A thread's JSON as Zed serializes `DbThread`.
pub fn thread_json(title: &str, messages: &[Value], updated: i64, cwd: &str, parent: Option<&str>, usage: Map<String, Value>) -> Vec<u8> {
    let subagent = parent.map_or(Value::Null, |p| json!({"parent_thread_id": p, "tool_use_id": "toolu_spawn", "depth": 1}));
    json!({"title": title, "messages": messages, "updated_at": iso(updated), "detailed_summary": null,
        "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": cwd, "git_state": {"remote_url": "git@github.com:dev/app.git",
            "head_sha": "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750", "current_branch": "main", "diff": null}}], "unsaved_buffer_paths": [], "timestamp": iso(updated)},
        "cumulative_token_usage": {"input_tokens": 412000, "output_tokens": 5120, "cache_creation_input_tokens": 18340, "cache_read_input_tokens": 382110},
        "request_token_usage": usage, "model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"}, "profile": "write", "imported": false,
        "subagent_context": subagent, "speed": null, "thinking_enabled": true, "thinking_effort": null, "draft_prompt": null,
        "ui_scroll_position": null, "version": "0.3.0"})
    .to_string()
    .into_bytes()
}

/// Compresses as Zed does (a zstd frame).
pub fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

/// Saves a thread row as `ThreadsDatabase::save_thread_sync` does.
// One parameter per column of the row.
#[allow(clippy::too_many_arguments)]
pub fn save(conn: &Connection, id: &str, parent: Option<&str>, title: &str, cwd: &str, updated: i64, created: i64, data: &[u8]) -> rusqlite::Result<usize> {
    conn.execute(
        "INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, updated_at, data_type, data, created_at)
         VALUES (?1, ?2, ?3, '0', ?4, ?5, 'zstd', ?6, ?7)
         ON CONFLICT(id) DO UPDATE SET summary = excluded.summary, updated_at = excluded.updated_at, data = excluded.data",
        params![id, parent, cwd, title, iso(updated), data, iso(created)],
    )
}

/// Writes `threads.db`; returns what was written. `target`s are compressed bytes.
pub fn write(g: &mut Gen, db: &Path, plans: &[Plan]) -> anyhow::Result<Totals> {
    std::fs::create_dir_all(db.parent().unwrap_or(db))?;
    let conn = Connection::open(db)?;
    conn.pragma_update(None, "journal_mode", "wal")?;
    conn.pragma_update(None, "synchronous", "off")?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.unchecked_transaction()?;
    let mut t = Totals::default();
    // How much the JSON shrinks, learnt as threads are compressed.
    let (mut raw_total, mut packed_total) = (4u64, 1u64);
    for plan in plans {
        let id = g.uuid();
        let mut messages: Vec<Value> = Vec::new();
        let mut usage = Map::new();
        let mut ts = plan.start;
        let mut size = 0u64;
        let goal = plan.target * raw_total / packed_total;
        let mut children: Vec<(String, Vec<u8>, i64)> = Vec::new();
        // A quarter of the threads run sub-agents, at most two.
        let spawns = g.rng.random_ratio(1, 4);
        while size < goal {
            ts += g.rng.random_range(5_000..120_000);
            let user_id = g.uuid();
            let words = g.prompt_words();
            let mut content = vec![json!({"Text": g.text(words)})];
            if g.rng.random_ratio(1, 6) {
                let len = g.out_len(4000.0, 1.0, 80_000);
                content.push(json!({"Mention": {"uri": {"File": {"abs_path": format!("{}/src/lib.rs", plan.cwd)}}, "content": g.code(len)}}));
            }
            let user = json!({"User": {"id": user_id, "content": content}});
            size += user.to_string().len() as u64;
            messages.push(user);
            t.messages += 1;
            usage.insert(user_id, json!({"input_tokens": 41234, "output_tokens": 412, "cache_creation_input_tokens": 1834, "cache_read_input_tokens": 38211}));
            let mut content = Vec::new();
            let mut results = Map::new();
            let rounds = g.rounds(3.0);
            let mut has_text = false;
            for round in 0..=rounds {
                let last = round == rounds;
                if g.rng.random_ratio(1, 2) {
                    let words = g.rng.random_range(20..200);
                    content.push(json!({"Thinking": {"text": g.text(words), "signature": g.blob_string(500)}}));
                }
                if last || g.rng.random_ratio(2, 5) {
                    let words = if last { g.answer_words() } else { g.rng.random_range(6..40) };
                    content.push(json!({"Text": g.text(words)}));
                    has_text = true;
                }
                if last {
                    break;
                }
                let call = format!("toolu_01{}", g.base62(22));
                let len = g.out_len(2500.0, 1.3, 300_000);
                let output = g.code(len);
                let spawn = spawns && children.len() < 2 && g.rng.random_ratio(1, 40);
                let (name, input) = if spawn {
                    ("spawn_agent", json!({"label": "Explore the parser", "message": "Find where the parser handles errors"}))
                } else {
                    ("terminal", json!({"command": "cargo test -p parser", "cd": plan.cwd}))
                };
                content.push(json!({"ToolUse": {"id": call, "name": name, "raw_input": input.to_string(), "input": input, "is_input_complete": true, "thought_signature": null}}));
                results.insert(call.clone(), json!({"tool_use_id": call, "tool_name": name, "is_error": false, "content": {"Text": output}, "output": output}));
                if spawn {
                    let child = g.uuid();
                    let msgs = [json!({"User": {"id": g.uuid(), "content": [{"Text": "Find where the parser handles errors"}]}}),
                                json!({"Agent": {"content": [{"Text": output}], "tool_results": {}, "reasoning_details": null}})];
                    let json = thread_json("Explore the parser", &msgs, ts, &plan.cwd, Some(&id), Map::new());
                    size += json.len() as u64;
                    children.push((child, json, ts));
                    t.hidden += 1;
                    t.messages += 2;
                }
            }
            if has_text {
                t.messages += 1;
            }
            let agent = json!({"Agent": {"content": content, "tool_results": results, "reasoning_details": null}});
            size += agent.to_string().len() as u64;
            messages.push(agent);
        }
        let name = title(g);
        let raw = thread_json(&name, &messages, ts, &plan.cwd, None, usage);
        let packed = zstd(&raw);
        raw_total += raw.len() as u64;
        packed_total += packed.len() as u64;
        save(&tx, &id, None, &name, &plan.cwd, ts, plan.start, &packed)?;
        for (child, raw, at) in children {
            save(&tx, &child, Some(&id), "Explore the parser", &plan.cwd, at, at, &zstd(&raw))?;
        }
        t.sessions += 1;
    }
    tx.commit()?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    drop(conn);
    t.bytes = std::fs::metadata(db)?.len();
    eprintln!("  zed: JSON {:.0} MB compressed to {:.0} MB", raw_total as f64 / 1e6, packed_total as f64 / 1e6);
    Ok(t)
}
