//! A synthetic opencode 1.2+ store: `opencode.db` with opencode's tables (`project`,
//! `session`, `message`, `part`), user messages with text (and now and then a synthetic
//! file part), assistant messages made of step-start, reasoning, tool parts with large
//! outputs, text and step-finish parts, and task sub-agent child sessions.

use std::path::Path;

use rand::Rng;
use rusqlite::params;

use super::claude::title;
use super::text::Gen;

/// One session to write.
pub struct Plan {
    /// `ses_…`.
    pub id: String,
    /// Workspace.
    pub cwd: String,
    /// Epoch ms.
    pub start: i64,
    /// Bytes of message and part JSON to write.
    pub target: u64,
}

/// Writes every session into `db` (created fresh with opencode's schema, the tests' own,
/// in WAL mode, then checkpointed and closed so only the main file remains). Returns
/// messages with text written.
pub fn write_db(g: &mut Gen, db: &Path, plans: &[Plan]) -> anyhow::Result<u64> {
    let conn = memory_bank_sessions::testing::opencode::create_db(db);
    conn.pragma_update(None, "synchronous", "off")?;
    conn.pragma_update(None, "foreign_keys", "off")?;
    let tx = conn.unchecked_transaction()?;
    let mut messages = 0u64;
    let mut counter = 0u64;
    {
        let mut ins_session = tx.prepare(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
             VALUES (?1, '4b0ea68d7af9a6031a7ffda7ad66e0cb83315750', ?2, 'brave-otter', ?3, ?4, '1.3.2', ?5, ?6)",
        )?;
        let mut ins_message = tx.prepare(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
        )?;
        let mut ins_part = tx.prepare(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
        )?;
        for plan in plans {
            let mut ts = plan.start;
            let mut bytes = 0u64;
            let mut body = String::with_capacity(1 << 16);
            let mut id = |g: &mut Gen, prefix: &str, ts: i64| {
                counter += 1;
                format!("{prefix}_{:012x}{}", ((ts as u64) << 12 | (counter & 0xfff)) & 0xffff_ffff_ffff, g.base62(14))
            };
            let mut part = |g: &mut Gen, msg: &str, ts: i64, data: &str, bytes: &mut u64| -> rusqlite::Result<()> {
                let pid = id(g, "prt", ts);
                *bytes += data.len() as u64;
                ins_part.execute(params![pid, msg, plan.id, ts, data]).map(|_| ())
            };
            let mut turns = 0;
            while bytes < plan.target {
                turns += 1;
                ts += g.rng.random_range(5_000..100_000);
                let mid = format!("msg_{:012x}{}", (ts as u64) << 12 & 0xffff_ffff_ffff, g.base62(14));
                let data = format!("{{\"role\":\"user\",\"time\":{{\"created\":{ts}}},\"agent\":\"build\",\"model\":{{\"providerID\":\"anthropic\",\"modelID\":\"claude-sonnet-4-5\"}}}}");
                ins_message.execute(params![mid, plan.id, ts, data])?;
                body.clear();
                body.push_str("{\"type\":\"text\",\"text\":\"");
                let n = 6 + (g.rng.random::<f64>().powi(3) * 200.0) as usize;
                g.prose(n, &mut body);
                body.push_str(&format!("\",\"time\":{{\"start\":{ts},\"end\":{ts}}}}}"));
                part(g, &mid, ts, &body, &mut bytes)?;
                messages += 1;
                if g.rng.random_ratio(1, 10) {
                    body.clear();
                    body.push_str("{\"type\":\"text\",\"synthetic\":true,\"text\":\"Called the Read tool with the following input: {\\\"filePath\\\":\\\"src/main.ts\\\"}\\n");
                    let n = g.out_len(4000.0, 1.0, 80_000);
                    g.output(n, &mut body);
                    body.push_str("\"}");
                    part(g, &mid, ts, &body, &mut bytes)?;
                }
                // The assistant answer: one message, several steps.
                ts += g.rng.random_range(1_000..30_000);
                let aid = format!("msg_{:012x}{}", (ts as u64) << 12 & 0xffff_ffff_ffff, g.base62(14));
                let data = format!("{{\"role\":\"assistant\",\"time\":{{\"created\":{ts},\"completed\":{}}},\"parentID\":\"{mid}\",\"modelID\":\"claude-sonnet-4-5\",\"providerID\":\"anthropic\",\"mode\":\"build\",\"agent\":\"build\",\"path\":{{\"cwd\":\"{}\",\"root\":\"{}\"}},\"cost\":0.0123,\"tokens\":{{\"input\":12,\"output\":345,\"reasoning\":120,\"cache\":{{\"read\":40211,\"write\":1200}}}},\"finish\":\"stop\"}}", ts + 20_000, plan.cwd, plan.cwd);
                ins_message.execute(params![aid, plan.id, ts, data])?;
                let steps = 1 + (g.normal().abs() * 2.5) as usize;
                let mut has_text = false;
                for step in 0..steps {
                    let last = step + 1 == steps;
                    part(g, &aid, ts, "{\"type\":\"step-start\",\"snapshot\":\"4b0ea68d7af9a6031a7ffda7ad66e0cb83315750\"}", &mut bytes)?;
                    if g.rng.random_ratio(1, 2) {
                        body.clear();
                        body.push_str("{\"type\":\"reasoning\",\"text\":\"");
                        let n = g.rng.random_range(20..200);
                        g.prose(n, &mut body);
                        body.push_str(&format!("\",\"time\":{{\"start\":{ts},\"end\":{ts}}}}}"));
                        part(g, &aid, ts, &body, &mut bytes)?;
                    }
                    if last || g.rng.random_ratio(1, 3) {
                        body.clear();
                        body.push_str("{\"type\":\"text\",\"text\":\"");
                        let n = if last { 20 + (g.rng.random::<f64>().powi(2) * 400.0) as usize } else { g.rng.random_range(5..40) };
                        g.prose(n, &mut body);
                        body.push_str(&format!("\",\"time\":{{\"start\":{ts},\"end\":{ts}}}}}"));
                        part(g, &aid, ts, &body, &mut bytes)?;
                        has_text = true;
                    }
                    if !last {
                        body.clear();
                        body.push_str(&format!("{{\"type\":\"tool\",\"callID\":\"toolu_01{}\",\"tool\":\"bash\",\"state\":{{\"status\":\"completed\",\"input\":{{\"command\":\"npm test\",\"description\":\"Run tests\"}},\"output\":\"", g.base62(22)));
                        let n = g.out_len(2500.0, 1.3, 300_000);
                        let at = body.len();
                        g.output(n, &mut body);
                        let preview: String = body[at..].chars().take(2000).collect();
                        let preview = preview.trim_end_matches('\\');
                        body.push_str(&format!("\",\"title\":\"npm test\",\"metadata\":{{\"output\":\"{preview}\",\"exit\":0,\"description\":\"Run tests\"}},\"time\":{{\"start\":{ts},\"end\":{}}}}}}}", ts + 900));
                        part(g, &aid, ts, &body, &mut bytes)?;
                    }
                    part(g, &aid, ts, "{\"type\":\"step-finish\",\"reason\":\"tool-calls\",\"cost\":0.01,\"tokens\":{\"input\":12,\"output\":345,\"reasoning\":0,\"cache\":{\"read\":40211,\"write\":1200}}}", &mut bytes)?;
                }
                if has_text {
                    messages += 1;
                }
            }
            let child = turns > 3 && g.rng.random_ratio(1, 12);
            let t = if g.rng.random_ratio(1, 15) { format!("New session - {}", super::text::iso(plan.start)) } else { title(g) };
            let parent: Option<&str> = child.then_some("ses_ffffffffffffparentsession0");
            ins_session.execute(params![plan.id, parent, plan.cwd, t, plan.start, ts])?;
        }
    }
    tx.commit()?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = delete;")?;
    drop(conn);
    Ok(messages)
}
