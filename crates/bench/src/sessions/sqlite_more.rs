//! Synthetic goose and Crush databases.
//!
//! goose 1.10+: `~/.local/share/goose/sessions/sessions.db` (schema version 17): `sessions`
//! rows (`YYYYMMDD_<n>` ids, generated names or the CLI's placeholder, `sub_agent` children
//! with `parent_session_id`), one `messages` row per message (`content_json`: text,
//! `thinking`, `toolRequest` items on the agent's messages, `toolResponse` items with the
//! whole output on the user's), and `usage_ledger` rows.
//!
//! Crush: one `crush.db` per project in `<project>/.crush/` (listed in `projects.json`):
//! `sessions` (children for the `agent` tool's runs, keyed by its tool call), `messages`
//! whose `parts` are `{type, data}` items (`text`, `reasoning`, `tool_call`, `finish`, and
//! `tool_result` in `tool` messages), and `files` (versions of the files it edited).

use std::collections::HashMap;
use std::path::Path;

use memory_bank_sessions::testing::crush::SCHEMA as CRUSH_SCHEMA;
use memory_bank_sessions::testing::goose::SCHEMA as GOOSE_SCHEMA;
use rand::Rng;
use rusqlite::{params, Connection};
use serde_json::json;

use super::claude::title;
use super::mix::{Plan, Totals};
use super::text::Gen;

/// SQLite's `datetime('now')` format.
pub fn sqlite_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string()).unwrap_or_default()
}

const VISIBLE: &str = r#"{"userVisible":true,"agentVisible":true}"#;

/// Writes goose's `sessions.db`; returns what was written.
pub fn goose(g: &mut Gen, db: &Path, plans: &[Plan]) -> anyhow::Result<Totals> {
    std::fs::create_dir_all(db.parent().unwrap_or(db))?;
    let conn = Connection::open(db)?;
    conn.pragma_update(None, "journal_mode", "wal")?;
    conn.pragma_update(None, "synchronous", "off")?;
    conn.execute_batch(GOOSE_SCHEMA)?;
    let tx = conn.unchecked_transaction()?;
    let mut t = Totals::default();
    let mut per_day: HashMap<String, u32> = HashMap::new();
    let mut ins_message = tx.prepare(
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut ins_usage = tx.prepare(
        "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cost, cost_source)
         VALUES (?1, ?2, 'claude-sonnet-4-5', 41234, 412, 41646, 38000, 0.0212, 'provider')",
    )?;
    let mut session = |g: &mut Gen, plan: &Plan, kind: &str, parent: Option<&str>| -> anyhow::Result<(String, i64)> {
        let day = super::text::iso(plan.start)[..10].replace('-', "");
        let n = per_day.entry(day.clone()).or_default();
        *n += 1;
        let id = format!("{day}_{n}");
        let (name, user_set) = match g.rng.random_range(0..20) {
            0..=2 => ("CLI Session".to_string(), false),
            3 => (title(g), true),
            _ => (title(g), false),
        };
        tx.execute(
            "INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at, extension_data, provider_name, model_config_json, goose_mode, parent_session_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, '{\"enabled_extensions\":[\"developer\",\"memory\"]}', 'anthropic', '{\"model_name\":\"claude-sonnet-4-5\",\"context_limit\":200000}', 'auto', ?7)",
            params![id, name, user_set, kind, plan.cwd, sqlite_time(plan.start), parent],
        )?;
        Ok((id, plan.start))
    };
    for plan in plans {
        let (id, mut ts) = session(g, plan, "user", None)?;
        let mut size = 0u64;
        let mut insert = |g: &mut Gen, role: &str, content: String, ts: i64, size: &mut u64| -> rusqlite::Result<()> {
            *size += content.len() as u64;
            ins_message.execute(params![format!("msg_{}", g.base62(24)), id, role, content, ts / 1000, VISIBLE]).map(drop)
        };
        while size < plan.target {
            ts += g.rng.random_range(5_000..120_000);
            let words = g.prompt_words();
            let content = json!([{"type": "text", "text": g.text(words)}]).to_string();
            insert(g, "user", content, ts, &mut size)?;
            t.messages += 1;
            let rounds = g.rounds(3.0);
            for round in 0..=rounds {
                let last = round == rounds;
                ts += g.rng.random_range(500..20_000);
                let mut content = Vec::new();
                if g.rng.random_ratio(1, 2) {
                    let words = g.rng.random_range(20..200);
                    content.push(json!({"type": "thinking", "thinking": g.text(words), "signature": g.blob_string(600)}));
                }
                if last || g.rng.random_ratio(2, 5) {
                    let words = if last { g.answer_words() } else { g.rng.random_range(6..40) };
                    content.push(json!({"type": "text", "text": g.text(words)}));
                    t.messages += 1;
                }
                let call = format!("toolu_01{}", g.base62(22));
                if !last {
                    content.push(json!({"type": "toolRequest", "id": call, "toolCall": {"status": "success",
                        "value": {"name": "developer__shell", "arguments": {"command": "cargo test -p parser"}}}}));
                }
                let content = serde_json::Value::Array(content).to_string();
                insert(g, "assistant", content, ts, &mut size)?;
                ins_usage.execute(params![id, ts / 1000])?;
                if last {
                    break;
                }
                let len = g.out_len(2500.0, 1.3, 300_000);
                let result = json!([{"type": "toolResponse", "id": call, "toolResult": {"status": "success",
                    "value": {"content": [{"type": "text", "text": g.code(len)}], "isError": false}}}]).to_string();
                insert(g, "user", result, ts + 900, &mut size)?;
            }
        }
        tx.execute("UPDATE sessions SET updated_at = ?2, accumulated_total_tokens = 412000 WHERE id = ?1", params![id, sqlite_time(ts)])?;
        t.sessions += 1;
        if g.rng.random_ratio(1, 10) {
            // A sub-agent the session delegated to: hidden, two messages.
            let sub = Plan { cwd: plan.cwd.clone(), start: ts, target: 0 };
            let (child, _) = session(g, &sub, "sub_agent", Some(&id))?;
            let len = g.out_len(2500.0, 1.0, 60_000);
            ins_message.execute(params![format!("msg_{}", g.base62(24)), child, "user", json!([{"type": "text", "text": "Find where the parser handles errors"}]).to_string(), ts / 1000, VISIBLE])?;
            ins_message.execute(params![format!("msg_{}", g.base62(24)), child, "assistant", json!([{"type": "text", "text": g.code(len)}]).to_string(), ts / 1000, VISIBLE])?;
            t.hidden += 1;
            t.messages += 2;
        }
    }
    drop((ins_message, ins_usage, session));
    tx.commit()?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    drop(conn);
    t.bytes = std::fs::metadata(db)?.len();
    Ok(t)
}

/// Writes one project's `crush.db`; returns what was written (`unread`: file versions).
pub fn crush(g: &mut Gen, db: &Path, plans: &[Plan]) -> anyhow::Result<Totals> {
    std::fs::create_dir_all(db.parent().unwrap_or(db))?;
    let conn = Connection::open(db)?;
    conn.pragma_update(None, "journal_mode", "wal")?;
    conn.pragma_update(None, "synchronous", "off")?;
    conn.execute_batch(CRUSH_SCHEMA)?;
    let tx = conn.unchecked_transaction()?;
    let mut t = Totals::default();
    let mut ins_message = tx.prepare(
        "INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, finished_at) VALUES (?1, ?2, ?3, ?4, 'claude-sonnet-4-5', 'anthropic', ?5, ?5, ?5)",
    )?;
    let new_session = |tx: &rusqlite::Transaction, id: &str, parent: Option<&str>, title: &str, secs: i64| {
        tx.execute("INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES (?1, ?2, ?3, ?4, ?4)", params![id, parent, title, secs])
    };
    for plan in plans {
        let id = g.uuid();
        let name = if g.rng.random_ratio(1, 10) { "Untitled Session".to_string() } else { title(g) };
        new_session(&tx, &id, None, &name, plan.start / 1000)?;
        let mut secs = plan.start / 1000;
        let mut size = 0u64;
        let mut version = 0i64;
        let mut agents = 0;
        while size < plan.target {
            secs += g.rng.random_range(5..120);
            let words = g.prompt_words();
            let parts = json!([{"type": "text", "data": {"text": g.text(words)}}, {"type": "finish", "data": {"reason": "stop", "time": secs}}]).to_string();
            size += parts.len() as u64;
            ins_message.execute(params![g.uuid(), id, "user", parts, secs])?;
            t.messages += 1;
            let rounds = g.rounds(3.0);
            for round in 0..=rounds {
                let last = round == rounds;
                secs += g.rng.random_range(1..20);
                let mut parts = Vec::new();
                if g.rng.random_ratio(1, 2) {
                    let words = g.rng.random_range(20..200);
                    parts.push(json!({"type": "reasoning", "data": {"thinking": g.text(words), "signature": g.blob_string(500), "started_at": secs, "finished_at": secs}}));
                }
                if last || g.rng.random_ratio(2, 5) {
                    let words = if last { g.answer_words() } else { g.rng.random_range(6..40) };
                    parts.push(json!({"type": "text", "data": {"text": g.text(words)}}));
                    t.messages += 1;
                }
                let call = format!("toolu_01{}", g.base62(22));
                let agent = !last && agents < 3 && g.rng.random_ratio(1, 80);
                let edit = !last && !agent && g.rng.random_ratio(1, 4);
                let (tool, input) = match (agent, edit) {
                    (true, _) => ("agent", json!({"prompt": "Find where the parser handles errors"})),
                    (_, true) => ("edit", json!({"file_path": format!("{}/src/lib.rs", plan.cwd), "old_string": "fn parse()", "new_string": "fn parse() -> Result<()>"})),
                    _ => ("bash", json!({"command": "cargo test -p parser", "timeout": 120000})),
                };
                if !last {
                    parts.push(json!({"type": "tool_call", "data": {"id": call, "name": tool, "input": input.to_string(), "type": "", "finished": true}}));
                }
                parts.push(json!({"type": "finish", "data": {"reason": if last { "end_turn" } else { "tool_use" }, "time": secs}}));
                let parts = serde_json::Value::Array(parts).to_string();
                size += parts.len() as u64;
                ins_message.execute(params![g.uuid(), id, "assistant", parts, secs])?;
                if last {
                    break;
                }
                let len = g.out_len(2500.0, 1.3, 300_000);
                let output = g.code(len);
                if agent {
                    // The agent tool's run: a child session keyed by the tool call.
                    new_session(&tx, &call, Some(&id), "New Agent Session", secs)?;
                    let prompt = json!([{"type": "text", "data": {"text": "Find where the parser handles errors"}}]).to_string();
                    ins_message.execute(params![g.uuid(), call, "user", prompt, secs])?;
                    let answer = json!([{"type": "text", "data": {"text": output}}, {"type": "finish", "data": {"reason": "end_turn", "time": secs}}]).to_string();
                    size += (prompt.len() + answer.len()) as u64;
                    ins_message.execute(params![g.uuid(), call, "assistant", answer, secs])?;
                    agents += 1;
                    t.hidden += 1;
                    t.messages += 2;
                }
                if edit {
                    let len = g.out_len(6000.0, 1.0, 100_000);
                    let content = g.code(len);
                    t.unread += content.len() as u64;
                    size += content.len() as u64;
                    version += 1;
                    tx.execute("INSERT INTO files (id, session_id, path, content, version, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                        params![g.uuid(), id, format!("{}/src/lib.rs", plan.cwd), content, version, secs])?;
                }
                let result = json!([{"type": "tool_result", "data": {"tool_call_id": call, "name": tool, "content": output, "metadata": "", "is_error": false}}]).to_string();
                size += result.len() as u64;
                ins_message.execute(params![g.uuid(), id, "tool", result, secs])?;
            }
        }
        tx.execute("UPDATE sessions SET updated_at = ?2, prompt_tokens = 41234, completion_tokens = 4120, cost = 0.42 WHERE id = ?1", params![id, secs])?;
        t.sessions += 1;
    }
    drop(ins_message);
    tx.commit()?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    drop(conn);
    t.bytes = std::fs::metadata(db)?.len();
    Ok(t)
}
