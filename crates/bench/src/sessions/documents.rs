//! Synthetic whole-JSON sessions: Amp threads and the two chat exports.
//!
//! Amp: `~/.local/share/amp/threads/T-<uuid>.json`, pretty-printed (`JSON.stringify(thread,
//! null, 2)`): prompts with `meta.sentAt`, replies with `thinking` (signed), `text` and
//! `tool_use` blocks and `usage`, tool results as user messages (`run.result`), `Task`
//! sub-agents whose work is inside their result, `meta.traces`, `env.initial.trees`.
//!
//! ChatGPT export (one conversation per file, as `sessions import` keeps them in
//! `<data dir>/imports/chatgpt/`): a `mapping` tree from `client-created-root`, a hidden
//! system message, prompts, `thoughts` and `reasoning_recap` messages, code sent to
//! `python` and its `execution_output`, answers with metadata, and regenerated answers
//! left on a side branch (`current_node` is the last answer).
//!
//! Claude.ai export (`imports/claude-ai/`): `chat_messages` with `text` and `content`
//! blocks (`text`, `thinking`, `tool_use` / `tool_result` for web search), attachments
//! with their extracted text, `parent_message_uuid` links.

use std::path::Path;

use rand::Rng;
use serde_json::{json, Value};

use super::claude::title;
use super::mix::Totals;
use super::text::{file_uri, iso, Gen};

/// One Amp thread file of about `target` bytes.
pub fn amp(g: &mut Gen, file: &Path, id: &str, cwd: &str, start: i64, target: u64) -> std::io::Result<Totals> {
    let mut t = Totals { sessions: 1, ..Totals::default() };
    let mut messages: Vec<Value> = Vec::new();
    let mut traces: Vec<Value> = Vec::new();
    let mut ts = start;
    // Indentation makes the file about a fifth bigger than the compact JSON counted here.
    let mut size = 0u64;
    let push = |messages: &mut Vec<Value>, m: Value, size: &mut u64| {
        *size += m.to_string().len() as u64 * 6 / 5;
        messages.push(m);
    };
    while size + 2_000 < target {
        ts += g.rng.random_range(5_000..120_000);
        let n = messages.len();
        let words = g.prompt_words();
        let prompt = g.text(words);
        push(&mut messages, json!({"role": "user", "messageId": n, "content": [{"type": "text", "text": prompt}],
                    "userState": {"currentlyVisibleFiles": []}, "agentMode": "smart", "meta": {"sentAt": ts}}), &mut size);
        t.messages += 1;
        traces.push(json!({"name": "agent", "id": g.base62(5), "startTime": iso(ts), "context": {"messageId": n}, "endTime": iso(ts + 9_000)}));
        let rounds = g.rounds(3.0);
        for round in 0..=rounds {
            let last = round == rounds;
            ts += g.rng.random_range(500..20_000);
            let mut content = Vec::new();
            if g.rng.random_ratio(1, 2) {
                let words = g.rng.random_range(20..200);
                let thinking = g.text(words);
                let len = g.rng.random_range(300..1500);
                content.push(json!({"type": "thinking", "thinking": thinking, "signature": g.blob_string(len), "provider": "anthropic"}));
            }
            if last || g.rng.random_ratio(2, 5) {
                let words = if last { g.answer_words() } else { g.rng.random_range(6..40) };
                content.push(json!({"type": "text", "text": g.text(words)}));
                t.messages += 1;
            }
            let call = format!("toolu_01{}", g.base62(22));
            let task = !last && g.rng.random_ratio(1, 25);
            let edit = !last && !task && g.rng.random_ratio(1, 4);
            if !last {
                let (name, input) = if task {
                    ("Task", json!({"prompt": "Find where the parser handles errors", "description": "Explore the parser"}))
                } else if edit {
                    let n = g.out_len(600.0, 1.0, 20_000);
                    let (old, new) = (g.code(n), g.code(n));
                    ("edit_file", json!({"path": format!("{cwd}/src/lib.rs"), "old_str": old, "new_str": new}))
                } else {
                    ("Bash", json!({"cmd": "cargo test -p parser"}))
                };
                content.push(json!({"type": "tool_use", "complete": true, "id": call, "name": name, "input": input}));
            }
            let stop = if last { "end_turn" } else { "tool_use" };
            push(&mut messages, json!({"role": "assistant", "messageId": 0, "content": content,
                        "state": {"type": "complete", "stopReason": stop},
                        "usage": {"model": "claude-sonnet-4-5", "maxInputTokens": 168000, "inputTokens": 12, "outputTokens": 410,
                                  "cacheCreationInputTokens": 1834, "cacheReadInputTokens": 48211, "totalInputTokens": 50057, "timestamp": iso(ts)}}), &mut size);
            if last {
                break;
            }
            let len = g.out_len(2500.0, 1.3, 300_000);
            let out = g.code(len);
            let run = if task {
                json!({"status": "done", "result": out.clone(), "progress": [{"message": out, "tool_uses": []}]})
            } else if edit {
                json!({"status": "done", "result": {"diff": out, "lineRange": [12, 40]}})
            } else {
                json!({"status": "done", "result": {"output": out, "exitCode": 0}})
            };
            push(&mut messages, json!({"role": "user", "messageId": 0, "content": [{"type": "tool_result", "toolUseID": call, "run": run}]}), &mut size);
        }
    }
    // Message ids count up in order.
    for (i, m) in messages.iter_mut().enumerate() {
        m["messageId"] = json!(i);
    }
    let name = cwd.rsplit('/').next().unwrap_or("project");
    let thread = json!({"v": messages.len() * 3 + 1, "id": id, "created": start, "messages": messages, "agentMode": "smart",
        "nextMessageId": messages.len(), "meta": {"traces": traces},
        "env": {"initial": {"trees": [{"displayName": name, "uri": file_uri(cwd)}],
            "platform": {"os": "linux", "osVersion": "Debian GNU/Linux 12 (bookworm)", "cpuArchitecture": "x64", "webBrowser": false,
                         "client": "CLI", "clientVersion": "0.0.1773432280-gcd86a7", "clientType": "cli"},
            "tags": ["model:claude-sonnet-4-5"]}},
        "title": title(g)});
    let text = serde_json::to_string_pretty(&thread).map_err(std::io::Error::other)?;
    std::fs::write(file, &text)?;
    t.bytes = text.len() as u64;
    Ok(t)
}

/// One ChatGPT conversation file of about `target` bytes.
pub fn chatgpt(g: &mut Gen, file: &Path, id: &str, start: i64, target: u64) -> std::io::Result<Totals> {
    let mut t = Totals { sessions: 1, ..Totals::default() };
    let secs = |ms: i64| ms as f64 / 1000.0;
    let mut mapping = serde_json::Map::new();
    let mut size = 0u64;
    let mut ts = start;
    let mut parent = "client-created-root".to_string();
    let mut children: Vec<(String, Vec<String>)> = vec![(parent.clone(), Vec::new())];
    let mut nodes: Vec<(String, String, Value)> = Vec::new();
    let mut add = |parent: &str, message: Value, g: &mut Gen, size: &mut u64| -> String {
        let id = g.uuid();
        *size += message.to_string().len() as u64 + 120;
        nodes.push((id.clone(), parent.to_string(), message));
        id
    };
    let system = json!({"id": g.uuid(), "author": {"role": "system", "name": null, "metadata": {}}, "create_time": null,
        "content": {"content_type": "text", "parts": [""]}, "status": "finished_successfully", "end_turn": true, "weight": 0.0,
        "metadata": {"is_visually_hidden_from_conversation": true}, "recipient": "all"});
    parent = add(&parent, system, g, &mut size);
    let message = |g: &mut Gen, role: &str, ts: i64, content: Value, recipient: &str| {
        json!({"id": g.uuid(), "author": {"role": role, "name": if role == "tool" { json!("python") } else { Value::Null }, "metadata": {}},
            "create_time": secs(ts), "update_time": null, "content": content, "status": "finished_successfully", "end_turn": role == "assistant" && recipient == "all",
            "weight": 1.0, "metadata": {"model_slug": "gpt-4o", "default_model_slug": "gpt-4o", "request_id": g.base62(16), "timestamp_": "absolute",
                "finish_details": {"type": "stop", "stop_tokens": [200002]}, "citations": [], "content_references": []},
            "recipient": recipient, "channel": null})
    };
    while size < target {
        ts += g.rng.random_range(20_000..600_000);
        let words = g.prompt_words();
        let content = json!({"content_type": "text", "parts": [g.text(words)]});
        let prompt = message(g, "user", ts, content, "all");
        parent = add(&parent, prompt, g, &mut size);
        t.messages += 1;
        if g.rng.random_ratio(1, 3) {
            let words = g.rng.random_range(30..250);
            let thoughts = json!({"content_type": "thoughts", "thoughts": [{"summary": "Planning the answer", "content": g.text(words), "chunks": [], "finished": true}], "source_analysis_msg_id": g.uuid()});
            parent = add(&parent, message(g, "assistant", ts + 2_000, thoughts, "all"), g, &mut size);
            let recap = json!({"content_type": "reasoning_recap", "content": "Thought for 14 seconds"});
            parent = add(&parent, message(g, "assistant", ts + 3_000, recap, "all"), g, &mut size);
        }
        if g.rng.random_ratio(1, 6) {
            let len = g.out_len(800.0, 0.8, 8_000);
            let code = json!({"content_type": "code", "language": "unknown", "response_format_name": null, "text": g.code(len)});
            parent = add(&parent, message(g, "assistant", ts + 4_000, code, "python"), g, &mut size);
            let len = g.out_len(2000.0, 1.2, 60_000);
            let out = json!({"content_type": "execution_output", "text": g.code(len)});
            parent = add(&parent, message(g, "tool", ts + 6_000, out, "all"), g, &mut size);
        }
        if g.rng.random_ratio(1, 6) {
            // An answer regenerated: the first one stays on a side branch.
            let words = g.answer_words();
            let content = json!({"content_type": "text", "parts": [g.text(words)]});
            let old = message(g, "assistant", ts + 8_000, content, "all");
            add(&parent, old, g, &mut size);
        }
        let words = g.answer_words();
        let content = json!({"content_type": "text", "parts": [g.text(words)]});
        let answer = message(g, "assistant", ts + 9_000, content, "all");
        parent = add(&parent, answer, g, &mut size);
        t.messages += 1;
    }
    for (id, parent, _) in &nodes {
        match children.iter_mut().find(|(p, _)| p == parent) {
            Some((_, c)) => c.push(id.clone()),
            None => children.push((parent.clone(), vec![id.clone()])),
        }
    }
    let kids = |id: &str| children.iter().find(|(p, _)| p == id).map(|(_, c)| c.clone()).unwrap_or_default();
    mapping.insert("client-created-root".into(), json!({"id": "client-created-root", "message": null, "parent": null, "children": kids("client-created-root")}));
    for (id, parent, message) in nodes.iter() {
        mapping.insert(id.clone(), json!({"id": id, "message": message, "parent": parent, "children": kids(id)}));
    }
    let conversation = json!({"title": title(g), "create_time": secs(start), "update_time": secs(ts + 9_000), "mapping": mapping,
        "moderation_results": [], "current_node": parent, "plugin_ids": null, "conversation_id": id, "conversation_template_id": null,
        "gizmo_id": null, "gizmo_type": null, "is_archived": false, "is_starred": null, "safe_urls": [], "blocked_urls": [],
        "default_model_slug": "gpt-4o", "conversation_origin": null, "voice": null, "async_status": null, "disabled_tool_ids": [],
        "is_do_not_remember": false, "memory_scope": "global_enabled", "sugar_item_id": null, "id": id});
    let text = conversation.to_string();
    std::fs::write(file, &text)?;
    t.bytes = text.len() as u64;
    Ok(t)
}

/// One Claude.ai conversation file of about `target` bytes.
pub fn claude_ai(g: &mut Gen, file: &Path, id: &str, start: i64, target: u64) -> std::io::Result<Totals> {
    let mut t = Totals { sessions: 1, ..Totals::default() };
    let mut messages: Vec<Value> = Vec::new();
    let mut size = 0u64;
    let mut ts = start;
    let mut parent = "00000000-0000-4000-8000-000000000000".to_string();
    while size < target {
        ts += g.rng.random_range(20_000..600_000);
        let words = g.prompt_words();
        let prompt = g.text(words);
        let attachments = if g.rng.random_ratio(1, 8) {
            let len = g.out_len(6000.0, 1.0, 120_000);
            let text = g.code(len);
            json!([{"file_name": "notes.md", "file_size": text.len(), "file_type": "text/markdown", "extracted_content": text}])
        } else {
            json!([])
        };
        let uuid = g.uuid();
        let human = json!({"uuid": uuid, "text": prompt, "content": [{"start_timestamp": iso(ts), "stop_timestamp": iso(ts), "type": "text", "text": prompt, "citations": []}],
            "sender": "human", "created_at": iso(ts), "updated_at": iso(ts), "attachments": attachments, "files": [], "parent_message_uuid": parent});
        size += human.to_string().len() as u64;
        messages.push(human);
        t.messages += 1;
        parent = uuid;
        let mut content = Vec::new();
        let at = iso(ts + 3_000);
        if g.rng.random_ratio(1, 3) {
            let words = g.rng.random_range(30..250);
            content.push(json!({"start_timestamp": at, "stop_timestamp": at, "type": "thinking", "thinking": g.text(words), "summaries": [{"summary": "Thinking about the question"}], "cut_off": false}));
        }
        if g.rng.random_ratio(1, 6) {
            content.push(json!({"start_timestamp": at, "stop_timestamp": at, "type": "tool_use", "name": "web_search", "input": {"query": "rust sqlite wal checkpoint"}, "message": "Searching the web"}));
            let len = g.out_len(3000.0, 1.0, 40_000);
            let result = g.code(len);
            content.push(json!({"start_timestamp": at, "stop_timestamp": at, "type": "tool_result", "name": "web_search", "content": [{"type": "knowledge", "title": "SQLite WAL", "url": "https://sqlite.org/wal.html", "text": result}], "is_error": false}));
        }
        let words = g.answer_words();
        let answer = g.text(words);
        content.push(json!({"start_timestamp": at, "stop_timestamp": at, "type": "text", "text": answer, "citations": []}));
        let uuid = g.uuid();
        let assistant = json!({"uuid": uuid, "text": answer, "content": content, "sender": "assistant", "created_at": at, "updated_at": at,
            "attachments": [], "files": [], "parent_message_uuid": parent});
        size += assistant.to_string().len() as u64;
        messages.push(assistant);
        t.messages += 1;
        parent = uuid;
    }
    let conversation = json!({"uuid": id, "name": title(g), "summary": "", "created_at": iso(start), "updated_at": iso(ts + 3_000),
        "account": {"uuid": "5f0c1e7a-8d2b-4c55-9a0e-2b7d3f6a9c10"}, "chat_messages": messages, "current_leaf_message_uuid": parent});
    let text = conversation.to_string();
    std::fs::write(file, &text)?;
    t.bytes = text.len() as u64;
    Ok(t)
}
