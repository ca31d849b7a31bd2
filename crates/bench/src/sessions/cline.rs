//! Synthetic Cline and Roo Code tasks: `<editor>/User/globalStorage/<extension id>/tasks/<id>/`
//! with `ui_messages.json` (the rows the extension shows: the task, `api_req_started`
//! rows whose `request` holds the turn's whole request with tool results and environment
//! details, reasoning, text, tool and command rows with their output, checkpoints,
//! completion results, the person's feedback), `api_conversation_history.json` (what the
//! model got, tool calls as XML in the assistant's text, results as user text) and
//! `task_metadata.json`, compact JSON as `JSON.stringify` writes it. Cline keeps the
//! history entries in `state/taskHistory.json`; Roo Code in each task's
//! `history_item.json` and `tasks/_index.json`, and its `new_task` tool starts subtasks
//! (child tasks with `parentTaskId`, listed like any task).

use std::path::Path;

use rand::Rng;
use serde_json::{json, Value};

use super::mix::Totals;
use super::text::Gen;

/// Which extension.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ext {
    Cline,
    Roo,
}

/// A task written: its history entry, and the subtasks it started (to be written).
pub struct Task {
    pub entry: Value,
    pub subtasks: usize,
}

fn environment(g: &mut Gen, ext: Ext, cwd: &str, ts: i64, files: bool) -> String {
    let heading = if ext == Ext::Cline { "# Current Working Directory" } else { "# Current Workspace Directory" };
    let mut s = format!("<environment_details>\n# VSCode Visible Files\nsrc/lib.rs\n\n# VSCode Open Tabs\nsrc/lib.rs\nsrc/parser.rs\n\n# Current Time\n{}\n\n# Current Mode\nACT MODE\n", super::text::iso(ts));
    if files {
        s.push_str(&format!("\n{heading} ({cwd}) Files\n"));
        for _ in 0..g.rng.random_range(20..120) {
            let words = 2;
            s.push_str(&format!("src/{}.rs\n", g.text(words).replace([' ', '.', '\n'], "_")));
        }
    }
    s.push_str("</environment_details>");
    s
}

/// Writes one task folder of about `target` bytes under `tasks`; `parent` makes it a subtask.
// One parameter per field of the task it writes.
#[allow(clippy::too_many_arguments)]
pub fn task(g: &mut Gen, ext: Ext, tasks: &Path, id: &str, cwd: &str, start: i64, target: u64, parent: Option<&str>) -> std::io::Result<(Totals, Task)> {
    let mut t = Totals { sessions: 1, ..Totals::default() };
    let mut rows: Vec<Value> = Vec::new();
    let mut api: Vec<Value> = Vec::new();
    let mut size = 0u64;
    let mut ts = start;
    let mut first = String::new();
    let mut files = Vec::new();
    let mut subtasks = 0;
    let row = |rows: &mut Vec<Value>, size: &mut u64, v: Value| {
        *size += v.to_string().len() as u64;
        rows.push(v);
    };
    while size < target {
        ts += g.rng.random_range(5_000..120_000);
        let words = g.prompt_words();
        let prompt = g.text(words);
        let env = environment(g, ext, cwd, ts, first.is_empty());
        let (say, request) = if first.is_empty() {
            first = prompt.clone();
            let (say, tag) = if ext == Ext::Cline { ("task", "task") } else { ("text", "user_message") };
            (say, format!("<{tag}>\n{prompt}\n</{tag}>"))
        } else {
            ("user_feedback", format!("<feedback>\n{prompt}\n</feedback>"))
        };
        row(&mut rows, &mut size, json!({"ts": ts, "type": "say", "say": say, "text": prompt, "images": [], "files": []}));
        t.messages += 1;
        api.push(json!({"role": "user", "content": [{"type": "text", "text": request}, {"type": "text", "text": env}]}));
        size += (request.len() + env.len()) as u64;
        let mut request = format!("{request}\n\n{env}");
        let rounds = g.rounds(3.0);
        for round in 0..=rounds {
            let last = round == rounds;
            ts += g.rng.random_range(500..20_000);
            let req = json!({"request": request, "tokensIn": 41234, "tokensOut": 412, "cacheWrites": 1834, "cacheReads": 38211, "cost": 0.0423});
            row(&mut rows, &mut size, json!({"ts": ts, "type": "say", "say": "api_req_started", "text": req.to_string()}));
            let mut said = String::new();
            if g.rng.random_ratio(1, 2) {
                let words = g.rng.random_range(20..200);
                let reasoning = g.text(words);
                said.push_str(&format!("<thinking>\n{reasoning}\n</thinking>\n\n"));
                row(&mut rows, &mut size, json!({"ts": ts + 1, "type": "say", "say": "reasoning", "text": reasoning, "partial": false}));
            }
            if last {
                let words = g.answer_words();
                let answer = g.text(words);
                said.push_str(&format!("<attempt_completion>\n<result>\n{answer}\n</result>\n</attempt_completion>"));
                row(&mut rows, &mut size, json!({"ts": ts + 2, "type": "say", "say": "completion_result", "text": answer, "partial": false}));
                row(&mut rows, &mut size, json!({"ts": ts + 3, "type": "ask", "ask": "completion_result", "text": "", "partial": false}));
                t.messages += 1;
                api.push(json!({"role": "assistant", "content": [{"type": "text", "text": said}]}));
                break;
            }
            if g.rng.random_ratio(2, 5) {
                let words = g.rng.random_range(6..40);
                let text = g.text(words);
                said.push_str(&text);
                said.push_str("\n\n");
                row(&mut rows, &mut size, json!({"ts": ts + 2, "type": "say", "say": "text", "text": text, "partial": false}));
                t.messages += 1;
            }
            let len = g.out_len(2500.0, 1.3, 300_000);
            let output = g.code(len);
            let path = format!("src/{}.rs", ["lib", "parser", "main", "index", "query"][g.rng.random_range(0..5)]);
            let result = match g.rng.random_range(0..10) {
                // Roo Code's subtasks: the child task is written by the caller.
                0 if ext == Ext::Roo && parent.is_none() && subtasks < 2 && g.rng.random_ratio(1, 3) => {
                    row(&mut rows, &mut size, json!({"ts": ts + 3, "type": "ask", "ask": "tool", "text": json!({"tool": "newTask", "mode": "code", "content": "Write the tests for the parser"}).to_string()}));
                    said.push_str("<new_task>\n<mode>code</mode>\n<message>Write the tests for the parser</message>\n</new_task>");
                    row(&mut rows, &mut size, json!({"ts": ts + 4, "type": "say", "say": "subtask_result", "text": output}));
                    subtasks += 1;
                    format!("[new_task completed] Result: {output}")
                }
                0..=3 => {
                    row(&mut rows, &mut size, json!({"ts": ts + 3, "type": "say", "say": "tool", "text": json!({"tool": "readFile", "path": path, "content": format!("{cwd}/{path}")}).to_string()}));
                    said.push_str(&format!("<read_file>\n<path>{path}</path>\n</read_file>"));
                    files.push(path.clone());
                    format!("[read_file for '{path}'] Result:\n{output}")
                }
                4..=5 => {
                    row(&mut rows, &mut size, json!({"ts": ts + 3, "type": "ask", "ask": "tool", "text": json!({"tool": "editedExistingFile", "path": path, "diff": output}).to_string()}));
                    said.push_str(&format!("<replace_in_file>\n<path>{path}</path>\n<diff>\n{output}\n</diff>\n</replace_in_file>"));
                    row(&mut rows, &mut size, json!({"ts": ts + 4, "type": "say", "say": "checkpoint_created", "lastCheckpointHash": g.base62(40).to_lowercase(), "isCheckpointCheckedOut": false}));
                    format!("[replace_in_file for '{path}'] Result:\nThe content was successfully saved to {path}.")
                }
                _ => {
                    row(&mut rows, &mut size, json!({"ts": ts + 3, "type": "ask", "ask": "command", "text": "cargo test -p parser"}));
                    row(&mut rows, &mut size, json!({"ts": ts + 4, "type": "say", "say": "command_output", "text": output}));
                    said.push_str("<execute_command>\n<command>cargo test -p parser</command>\n<requires_approval>false</requires_approval>\n</execute_command>");
                    format!("[execute_command for 'cargo test -p parser'] Result:\nCommand executed.\nOutput:\n{output}")
                }
            };
            api.push(json!({"role": "assistant", "content": [{"type": "text", "text": said}]}));
            let env = environment(g, ext, cwd, ts, false);
            size += (said.len() + result.len() + env.len()) as u64;
            api.push(json!({"role": "user", "content": [{"type": "text", "text": result}, {"type": "text", "text": env}]}));
            request = format!("{result}\n\n{env}");
        }
    }
    let dir = tasks.join(id);
    std::fs::create_dir_all(&dir)?;
    let ui = serde_json::to_string(&rows).map_err(std::io::Error::other)?;
    let history = serde_json::to_string(&api).map_err(std::io::Error::other)?;
    let in_context: Vec<Value> = files.iter().map(|f| json!({"path": f, "record_state": "active", "record_source": "read_tool", "cline_read_date": start, "cline_edit_date": null, "user_edit_date": null})).collect();
    let metadata = json!({"files_in_context": in_context, "model_usage": [{"ts": ts, "model_id": "claude-sonnet-4-5", "model_provider_id": "anthropic", "mode": "act"}], "environment_history": []}).to_string();
    std::fs::write(dir.join("ui_messages.json"), &ui)?;
    std::fs::write(dir.join("api_conversation_history.json"), &history)?;
    std::fs::write(dir.join("task_metadata.json"), &metadata)?;
    t.bytes = (ui.len() + history.len() + metadata.len()) as u64;
    t.unread = (history.len() + metadata.len()) as u64;
    let mut entry = json!({"id": id, "number": 1, "ts": ts, "task": first, "tokensIn": 41234, "tokensOut": 4120, "cacheWrites": 1834,
        "cacheReads": 382110, "totalCost": 0.423, "size": t.bytes, "isFavorited": false});
    if ext == Ext::Cline {
        entry["ulid"] = json!(g.base62(26).to_uppercase());
        entry["cwdOnTaskInitialization"] = json!(cwd);
        entry["shadowGitConfigWorkTree"] = json!(cwd);
        entry["conversationHistoryDeletedRange"] = json!([2, 3]);
        entry["modelId"] = json!("claude-sonnet-4-5");
    } else {
        entry["workspace"] = json!(cwd);
        entry["mode"] = json!("code");
        if let Some(parent) = parent {
            entry["parentTaskId"] = json!(parent);
            entry["rootTaskId"] = json!(parent);
        }
        let item = entry.to_string();
        std::fs::write(dir.join("history_item.json"), &item)?;
        t.bytes += item.len() as u64;
        t.unread += item.len() as u64;
    }
    Ok((t, Task { entry, subtasks }))
}

/// Writes the history every task is listed in: Cline's `state/taskHistory.json`, Roo
/// Code's `tasks/_index.json`. Returns its bytes.
pub fn history(ext: Ext, storage: &Path, tasks: &[Task]) -> std::io::Result<u64> {
    let entries: Vec<&Value> = tasks.iter().map(|t| &t.entry).collect();
    let (path, text) = match ext {
        Ext::Cline => (storage.join("state/taskHistory.json"), serde_json::to_string(&entries).map_err(std::io::Error::other)?),
        Ext::Roo => (storage.join("tasks/_index.json"), json!({"version": 1, "updatedAt": super::NOW_MS, "entries": entries}).to_string()),
    };
    std::fs::create_dir_all(path.parent().unwrap_or(storage))?;
    std::fs::write(&path, &text)?;
    Ok(text.len() as u64)
}
