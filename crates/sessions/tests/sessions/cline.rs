//! The Cline and Roo Code readers on task folders generated here in the extensions' own
//! shapes (`ui_messages.json` rows, `api_conversation_history.json`, history entries):
//! tool uses, images, questions and answers, a cancelled and resumed task, a Roo Code
//! subtask, tasks from two editors and the Cline CLI under one home, per-OS folders,
//! documents cut short, and links out of the root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing::{self as kit, read_unit, ParsedSession, SourceReader, Unit};
use memory_bank_sessions::{Env, ListArgs, Role, Source};
use serde_json::{json, Value};

fn cline() -> &'static dyn SourceReader {
    kit::reader(Source::Cline)
}

fn roo() -> &'static dyn SourceReader {
    kit::reader(Source::RooCode)
}

/// The storage folder of `reader` in `editor` (an index into its default roots: 0 is VS
/// Code, 3 Cursor, 5 the Cline CLI's data folder) under `home`.
fn storage_of(reader: &dyn SourceReader, home: &Path, editor: usize) -> PathBuf {
    reader.default_roots(&kit::env_with_home(home))[editor].clone()
}

const T0: i64 = 1_772_359_200_000; // 2026-03-01T10:00:00Z

fn say(ts: i64, kind: &str, text: &str) -> Value {
    json!({"ts": ts, "type": "say", "say": kind, "text": text})
}

fn ask(ts: i64, kind: &str, text: &str) -> Value {
    json!({"ts": ts, "type": "ask", "ask": kind, "text": text})
}

fn api_req(ts: i64) -> Value {
    say(ts, "api_req_started", &json!({"request": "<task>…</task>", "tokensIn": 2100, "tokensOut": 140, "cost": 0.011}).to_string())
}

/// Writes a task folder; `api` is the API history (none when `None`).
fn write_task(storage: &Path, id: &str, rows: &[Value], api: Option<Value>) -> PathBuf {
    let dir = storage.join("tasks").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ui_messages.json"), Value::from(rows.to_vec()).to_string()).unwrap();
    if let Some(api) = api {
        std::fs::write(dir.join("api_conversation_history.json"), api.to_string()).unwrap();
    }
    std::fs::write(dir.join("task_metadata.json"), r#"{"files_in_context":[],"model_usage":[],"environment_history":[]}"#).unwrap();
    dir
}

/// Cline's first request: the task in `<task>`, then the environment details.
fn cline_api(task: &str, cwd: &str) -> Value {
    json!([{"role": "user", "content": [
        {"type": "text", "text": format!("<task>\n{task}\n</task>")},
        {"type": "text", "text": format!("<environment_details>\n# Current Working Directory ({cwd}) Files\nsrc/\n</environment_details>")}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<thinking>…</thinking>"}]}])
}

fn write_cline_history(storage: &Path, entries: &[(&str, &str)]) {
    let entries: Vec<Value> = entries
        .iter()
        .map(|(id, cwd)| json!({"id": id, "ts": T0, "task": "…", "tokensIn": 1, "tokensOut": 1, "totalCost": 0.0, "cwdOnTaskInitialization": cwd}))
        .collect();
    std::fs::create_dir_all(storage.join("state")).unwrap();
    std::fs::write(storage.join("state/taskHistory.json"), Value::from(entries).to_string()).unwrap();
}

fn read(reader: &dyn SourceReader, root: &Path, id: &str) -> ParsedSession {
    let (units, problems) = kit::discover(reader, root);
    assert!(problems.is_empty(), "{problems:?}");
    let unit = kit::unit_named(&units, &format!("{id}{}ui_messages.json", std::path::MAIN_SEPARATOR));
    kit::read_one(reader, &unit)
}

/// `(role, text)` of every message.
fn said(s: &ParsedSession) -> Vec<(Role, String)> {
    s.messages.iter().map(|m| (m.role, m.text.clone())).collect()
}

fn tools(s: &ParsedSession) -> Vec<(String, i64)> {
    s.tool_calls.iter().map(|t| (t.name.clone(), t.after)).collect()
}

#[test]
fn a_cline_task_reads_as_the_person_saw_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let storage = storage_of(cline(), home, 0);
    let image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk";
    let rows = [
        json!({"ts": T0, "type": "say", "say": "task", "text": "Add a --verbose flag to the CLI", "images": [image], "files": []}),
        api_req(T0 + 1),
        say(T0 + 2, "reasoning", "The flag parsing lives in main.rs."),
        json!({"ts": T0 + 3, "type": "say", "say": "text", "text": "I'll read the entry point first.", "partial": false}),
        say(T0 + 4, "tool", &json!({"tool": "readFile", "path": "src/main.rs", "content": "/home/ana/atlas/src/main.rs"}).to_string()),
        api_req(T0 + 5),
        ask(T0 + 6, "tool", &json!({"tool": "newFileCreated", "path": "src/flags.rs", "content": "pub struct Flags { pub verbose: bool }"}).to_string()),
        ask(T0 + 7, "tool", &json!({"tool": "editedExistingFile", "path": "src/main.rs", "content": "<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE"}).to_string()),
        ask(T0 + 8, "command", "cargo test"),
        say(T0 + 9, "command_output", "running 3 tests\ntest result: ok"),
        say(T0 + 10, "completion_result", "Added `--verbose`; the tests pass."),
        ask(T0 + 11, "completion_result", ""),
        json!({"ts": T0 + 12, "type": "say", "say": "user_feedback", "text": "Also document it in the README", "images": [image]}),
        say(T0 + 13, "checkpoint_created", ""),
        say(T0 + 14, "text", "Documented in README.md."),
    ];
    let id = "1772359200000";
    write_task(&storage, id, &rows, Some(cline_api("Add a --verbose flag to the CLI", "/home/ana/elsewhere")));
    write_cline_history(&storage, &[(id, "/home/ana/atlas")]);

    let s = read(cline(), &storage, id);
    assert_eq!(s.session_id.as_deref(), Some(id));
    let ts = |n: i64| (T0 + n).to_string();
    assert_eq!(
        kit::messages(&s),
        vec![
            (ts(0), Role::User, "Add a --verbose flag to the CLI".into()),
            (ts(3), Role::Assistant, "I'll read the entry point first.".into()),
            (ts(10), Role::Assistant, "Added `--verbose`; the tests pass.".into()),
            (ts(12), Role::User, "Also document it in the README".into()),
            (ts(14), Role::Assistant, "Documented in README.md.".into()),
        ]
    );
    assert_eq!(
        tools(&s),
        vec![
            ("read_file".into(), 1),
            ("write_to_file".into(), 1),
            ("edited_existing_file".into(), 1),
            ("execute_command".into(), 1),
            ("attempt_completion".into(), 1),
        ]
    );
    assert_eq!(s.messages[2].timestamp, Some(T0 + 10));
    assert!(s.messages.iter().all(|m| !m.text.contains("base64")), "images are not text");
    // The history entry names the workspace (the environment details are not read then).
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/atlas"));
    assert_eq!(s.title(), "Add a --verbose flag to the CLI");
    assert!(!s.hidden);
    assert_eq!((s.created, s.updated), (Some(T0), Some(T0 + 14)));
}

#[test]
fn questions_answers_and_plan_mode_replies_are_messages() {
    let dir = tempfile::tempdir().unwrap();
    let storage = storage_of(cline(), dir.path(), 0);
    let rows = [
        say(T0, "task", "Plan the parser rewrite"),
        api_req(T0 + 1),
        ask(T0 + 2, "plan_mode_respond", &json!({"response": "1. Tokenizer\n2. Parser", "options": ["Start with the tokenizer", "Start with the parser"], "selected": "Start with the tokenizer"}).to_string()),
        ask(T0 + 3, "followup", &json!({"question": "Which port should the server use?", "options": ["8080", "3000"]}).to_string()),
        say(T0 + 4, "user_feedback", "Use 9000"),
        // Before questions were JSON.
        ask(T0 + 5, "followup", "Which database?"),
        say(T0 + 6, "user_feedback", "SQLite"),
        ask(T0 + 7, "act_mode_respond", &json!({"response": "Switching to the tokenizer now."}).to_string()),
    ];
    write_task(&storage, "1772359200001", &rows, None);
    let s = read(cline(), &storage, "1772359200001");
    let ts = |n: i64| (T0 + n).to_string();
    assert_eq!(
        kit::messages(&s),
        vec![
            (ts(0), Role::User, "Plan the parser rewrite".into()),
            (ts(2), Role::Assistant, "1. Tokenizer\n2. Parser".into()),
            (format!("{}-answer", ts(2)), Role::User, "Start with the tokenizer".into()),
            (ts(3), Role::Assistant, "Which port should the server use?".into()),
            (ts(4), Role::User, "Use 9000".into()),
            (ts(5), Role::Assistant, "Which database?".into()),
            (ts(6), Role::User, "SQLite".into()),
            (ts(7), Role::Assistant, "Switching to the tokenizer now.".into()),
        ]
    );
    assert_eq!(tools(&s), vec![("ask_followup_question".into(), 2), ("ask_followup_question".into(), 4)]);
    // No history entry, no API history: no workspace.
    assert_eq!(s.workspace, None);
}

#[test]
fn a_cancelled_and_resumed_task_keeps_what_was_shown() {
    let dir = tempfile::tempdir().unwrap();
    let storage = storage_of(cline(), dir.path(), 0);
    let cancelled = json!({"request": "<task>…</task>", "cancelReason": "user_cancelled", "streamingFailedMessage": "aborted"});
    let rows = [
        say(T0, "task", "Migrate the config to TOML"),
        say(T0 + 1, "api_req_started", &cancelled.to_string()),
        // Streamed when the person cancelled: it stays as it was shown.
        json!({"ts": T0 + 2, "type": "say", "say": "text", "text": "I'll start by reading", "partial": true}),
        ask(T0 + 60_000, "resume_task", ""),
        say(T0 + 60_001, "user_feedback", "Continue, but keep the YAML loader"),
        api_req(T0 + 60_002),
        say(T0 + 60_003, "text", "Keeping the YAML loader as a fallback."),
        say(T0 + 60_004, "completion_result", "Config now loads from TOML, YAML still works."),
        ask(T0 + 60_005, "completion_result", ""),
        // Reopened from the history and left there: not activity.
        ask(T0 + 900_000, "resume_completed_task", ""),
    ];
    write_task(&storage, "1772359200002", &rows, Some(cline_api("Migrate the config to TOML", "/home/ana/cfg")));
    let s = read(cline(), &storage, "1772359200002");
    assert_eq!(
        said(&s),
        vec![
            (Role::User, "Migrate the config to TOML".into()),
            (Role::Assistant, "I'll start by reading".into()),
            (Role::User, "Continue, but keep the YAML loader".into()),
            (Role::Assistant, "Keeping the YAML loader as a fallback.".into()),
            (Role::Assistant, "Config now loads from TOML, YAML still works.".into()),
        ]
    );
    assert_eq!((s.created, s.updated), (Some(T0), Some(T0 + 60_005)));
    // No history entry: the first request's environment details name the workspace.
    assert_eq!(s.workspace.as_deref(), Some("/home/ana/cfg"));
}

const PARENT: &str = "0b9c7e52-4a11-4f3e-9d2a-6c1e8f0a7b31";
const CHILD: &str = "5d2e8a10-93b4-4c6f-8e71-2a9b0c3d4e5f";

/// A Roo Code task and the subtask it started, in `storage`.
fn write_roo_tasks(storage: &Path) {
    let parent = [
        json!({"ts": T0, "type": "say", "say": "text", "text": "Build the login page and test it", "images": []}),
        say(T0 + 1, "api_req_started", r#"{"apiProtocol":"anthropic","tokensIn":3000,"tokensOut":200,"cost":0.02}"#),
        say(T0 + 2, "text", "I'll build the page, then hand the tests to a subtask."),
        ask(T0 + 3, "tool", &json!({"tool": "appliedDiff", "path": "src/Login.tsx", "diff": "<<<<<<< SEARCH"}).to_string()),
        ask(T0 + 4, "followup", &json!({"question": "Should the form remember the email?", "suggest": [{"answer": "Yes"}, {"answer": "No", "mode": "code"}]}).to_string()),
        say(T0 + 5, "user_feedback", "Yes"),
        ask(T0 + 6, "tool", &json!({"tool": "newTask", "mode": "code", "content": "Write tests for the login page"}).to_string()),
        say(T0 + 20, "subtask_result", "Tests written: 4 passing"),
        say(T0 + 21, "completion_result", "The login page is done and tested."),
        ask(T0 + 22, "completion_result", ""),
    ];
    let child = [
        json!({"ts": T0 + 7, "type": "say", "say": "text", "text": "Write tests for the login page", "images": []}),
        say(T0 + 8, "api_req_started", r#"{"apiProtocol":"anthropic"}"#),
        ask(T0 + 9, "tool", &json!({"tool": "readFile", "path": "src/Login.tsx", "isOutsideWorkspace": false}).to_string()),
        ask(T0 + 10, "tool", &json!({"tool": "newFileCreated", "path": "src/Login.test.tsx", "content": "test(...)"}).to_string()),
        ask(T0 + 11, "command", "npm test"),
        say(T0 + 12, "completion_result", "Tests written: 4 passing"),
    ];
    let history = |id: &str, task: &str, extra: Value| {
        let mut entry = json!({"id": id, "number": 1, "ts": T0 + 22, "task": task, "tokensIn": 1, "tokensOut": 1,
                               "totalCost": 0.0, "workspace": "/home/ana/shop", "mode": "code"});
        entry.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        entry.to_string()
    };
    let dir = write_task(storage, PARENT, &parent, None);
    std::fs::write(dir.join("history_item.json"), history(PARENT, "Build the login page and test it", json!({"childIds": [CHILD], "status": "completed"}))).unwrap();
    let dir = write_task(storage, CHILD, &child, None);
    std::fs::write(dir.join("history_item.json"), history(CHILD, "Write tests for the login page", json!({"parentTaskId": PARENT, "rootTaskId": PARENT}))).unwrap();
    std::fs::write(storage.join("tasks/_index.json"), r#"{"version":1,"updatedAt":0,"entries":[]}"#).unwrap();
}

#[test]
fn a_roo_code_task_and_its_subtask_are_both_listed() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let storage = storage_of(roo(), &home, 0);
    write_roo_tasks(&storage);

    let parent = read(roo(), &storage, PARENT);
    assert_eq!(
        said(&parent),
        vec![
            (Role::User, "Build the login page and test it".into()),
            (Role::Assistant, "I'll build the page, then hand the tests to a subtask.".into()),
            (Role::Assistant, "Should the form remember the email?".into()),
            (Role::User, "Yes".into()),
            // The subtask's result is a tool result, not a message.
            (Role::Assistant, "The login page is done and tested.".into()),
        ]
    );
    assert_eq!(
        tools(&parent),
        vec![
            ("applied_diff".into(), 1),
            ("ask_followup_question".into(), 1),
            ("new_task".into(), 3),
            ("attempt_completion".into(), 3),
        ]
    );
    assert_eq!(parent.workspace.as_deref(), Some("/home/ana/shop"));

    let child = read(roo(), &storage, CHILD);
    assert!(!child.hidden, "a subtask is a task the person can open");
    assert_eq!(child.title(), "Write tests for the login page");
    assert_eq!(tools(&child).iter().map(|t| t.0.as_str()).collect::<Vec<_>>(), ["read_file", "write_to_file", "execute_command", "attempt_completion"]);

    let lib = kit::library(&home, None);
    let list = lib.list_sessions(ListArgs { source: Some("roo-code".into()), ..Default::default() }).unwrap();
    let mut listed: Vec<(String, String, u64)> =
        list.sessions.into_iter().map(|s| (s.session_id, s.title, s.message_count)).collect();
    listed.sort();
    assert_eq!(
        listed,
        vec![
            (PARENT.into(), "Build the login page and test it".into(), 5),
            (CHILD.into(), "Write tests for the login page".into(), 2),
        ]
    );
}

#[test]
fn tasks_from_two_editors_and_the_cline_cli_are_read_under_one_home() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    for (editor, id, task) in [(0, "1772359200010", "in VS Code"), (3, "1772359200011", "in Cursor"), (5, "1772359200012", "in the CLI")] {
        let storage = storage_of(cline(), &home, editor);
        write_task(&storage, id, &[say(T0, "task", task), say(T0 + 1, "text", "ok")], None);
        write_cline_history(&storage, &[(id, &format!("/work/{editor}"))]);
    }
    // Roo Code in Cursor too: its own source.
    write_roo_tasks(&storage_of(roo(), &home, 3));

    let lib = kit::library(&home, None);
    let list = lib.list_sessions(ListArgs { limit: Some(json!(50)), ..Default::default() }).unwrap();
    let mut listed: Vec<(Source, String, Option<String>)> =
        list.sessions.into_iter().map(|s| (s.source, s.title, s.workspace)).collect();
    listed.sort_by(|a, b| (a.0.as_str(), &a.1).cmp(&(b.0.as_str(), &b.1)));
    assert_eq!(
        listed,
        vec![
            (Source::Cline, "in Cursor".into(), Some("/work/3".into())),
            (Source::Cline, "in VS Code".into(), Some("/work/0".into())),
            (Source::Cline, "in the CLI".into(), Some("/work/5".into())),
            (Source::RooCode, "Build the login page and test it".into(), Some("/home/ana/shop".into())),
            (Source::RooCode, "Write tests for the login page".into(), Some("/home/ana/shop".into())),
        ]
    );
}

#[test]
fn default_folders_follow_the_os_and_the_variables() {
    let home = PathBuf::from("/home/ana");
    let env = |vars: &[(&str, &str)]| Env {
        home: Some(home.clone()),
        vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<HashMap<_, _>>(),
    };
    let user_dir: PathBuf = home.join(if cfg!(target_os = "macos") {
        "Library/Application Support"
    } else if cfg!(windows) {
        "AppData/Roaming"
    } else {
        ".config"
    });
    let global = |editor: &str, id: &str| user_dir.join(editor).join("User/globalStorage").join(id);
    let cline_roots = cline().default_roots(&env(&[]));
    assert_eq!(
        cline_roots,
        vec![
            global("Code", "saoudrizwan.claude-dev"),
            global("Code - Insiders", "saoudrizwan.claude-dev"),
            global("VSCodium", "saoudrizwan.claude-dev"),
            global("Cursor", "saoudrizwan.claude-dev"),
            global("Windsurf", "saoudrizwan.claude-dev"),
            home.join(".cline/data"),
        ]
    );
    let roo_roots = roo().default_roots(&env(&[]));
    assert_eq!(roo_roots.len(), 5);
    assert_eq!(roo_roots[4], global("Windsurf", "rooveterinaryinc.roo-cline"));

    // The variables each OS moves the folders with.
    let moved = cline().default_roots(&env(&[("APPDATA", "/appdata"), ("XDG_CONFIG_HOME", "/xdg"), ("CLINE_DIR", "/opt/cline")]));
    let moved_user_dir = if cfg!(target_os = "macos") { user_dir.clone() } else if cfg!(windows) { "/appdata".into() } else { "/xdg".into() };
    assert_eq!(moved[0], moved_user_dir.join("Code/User/globalStorage/saoudrizwan.claude-dev"));
    assert_eq!(moved[5], PathBuf::from("/opt/cline/data"));
    let moved = cline().default_roots(&env(&[("CLINE_DATA_DIR", "/srv/cline-data")]));
    assert_eq!(moved[5], PathBuf::from("/srv/cline-data"));
    assert!(cline().default_roots(&Env::default()).is_empty());
}

#[test]
fn workspaces_come_from_history_entries_else_environment_details_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let storage_cline = storage_of(cline(), dir.path(), 0);
    // A task recorded on Windows, read here: the path is kept as the extension wrote it.
    write_task(&storage_cline, "1772359200020", &[say(T0, "task", "windows task")], None);
    write_task(&storage_cline, "1772359200021", &[say(T0, "task", "details only")], Some(cline_api("details only", "D:/work/atlas")));
    // Cline's multi-root details name no path.
    write_task(&storage_cline, "1772359200022", &[say(T0, "task", "multi-root")], Some(cline_api("multi-root", "Primary: atlas")));
    write_cline_history(&storage_cline, &[("1772359200020", r"C:\Users\ana\atlas")]);
    assert_eq!(read(cline(), &storage_cline, "1772359200020").workspace.as_deref(), Some(r"C:\Users\ana\atlas"));
    assert_eq!(read(cline(), &storage_cline, "1772359200021").workspace.as_deref(), Some("D:/work/atlas"));
    assert_eq!(read(cline(), &storage_cline, "1772359200022").workspace, None);

    // Roo Code before `history_item.json`: its `<user_message>` request's details.
    let storage_roo = storage_of(roo(), dir.path(), 0);
    let api = json!([{"role": "user", "ts": T0, "content": [
        {"type": "text", "text": "<user_message>\nold roo task\n</user_message>"},
        {"type": "text", "text": "<environment_details>\n# Current Workspace Directory (/Users/ana/shop) Files\n</environment_details>"}]}]);
    write_task(&storage_roo, PARENT, &[say(T0, "text", "old roo task")], Some(api));
    let s = read(roo(), &storage_roo, PARENT);
    assert_eq!((s.workspace.as_deref(), s.title()), (Some("/Users/ana/shop"), "old roo task".into()));
}

#[test]
fn a_tasks_folder_is_a_root_too() {
    let dir = tempfile::tempdir().unwrap();
    let storage = storage_of(roo(), dir.path(), 0);
    write_roo_tasks(&storage);
    let (from_storage, _) = kit::discover(roo(), &storage);
    let (from_tasks, problems) = kit::discover(roo(), &storage.join("tasks"));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(from_storage.len(), 2);
    assert_eq!(from_tasks, from_storage);
}

#[test]
fn odd_rows_lose_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let storage = storage_of(cline(), dir.path(), 0);
    let id = "1772359200030";
    let rows = vec![
        say(T0, "task", "odd rows"),
        Value::from("not a row"),
        Value::from(7),
        Value::Null,
        json!({"ts": T0 + 1, "type": "say", "say": "text", "text": {"not": "text"}}),
        // The same ts twice (two rows in one millisecond).
        say(T0 + 2, "text", "first of two"),
        say(T0 + 2, "text", "second of two"),
        // No ts at all.
        json!({"type": "say", "say": "text", "text": "no time"}),
        ask(T0 + 3, "use_mcp_server", &json!({"serverName": "github", "type": "use_mcp_tool", "toolName": "create_issue", "arguments": "{}"}).to_string()),
        ask(T0 + 4, "use_mcp_server", &json!({"serverName": "docs", "type": "access_mcp_resource", "uri": "docs://index"}).to_string()),
        ask(T0 + 5, "browser_action_launch", "http://localhost:3000"),
        say(T0 + 6, "browser_action", r#"{"action":"click","coordinate":"10,20"}"#),
        ask(T0 + 7, "new_task", "context for the next task"),
        ask(T0 + 8, "tool", &json!({"tool": "hologramTool"}).to_string()),
        ask(T0 + 9, "tool", "not JSON"),
        say(T0 + 10, "hologram", "unknown kind"),
        ask(T0 + 11, "followup", &json!({"options": ["a"]}).to_string()),
        say(T0 + 12, "text", "caf\u{e9} \u{1f389} end"),
    ];
    write_task(&storage, id, &rows, None);
    let s = read(cline(), &storage, id);
    let ts = |n: i64| (T0 + n).to_string();
    assert_eq!(
        kit::messages(&s),
        vec![
            (ts(0), Role::User, "odd rows".into()),
            (ts(2), Role::Assistant, "first of two".into()),
            (format!("{}-2", ts(2)), Role::Assistant, "second of two".into()),
            ("row4".into(), Role::Assistant, "no time".into()),
            (ts(12), Role::Assistant, "caf\u{e9} \u{1f389} end".into()),
        ]
    );
    assert_eq!(s.messages[3].timestamp, None);
    assert_eq!(
        tools(&s).into_iter().map(|t| t.0).collect::<Vec<_>>(),
        ["create_issue", "access_mcp_resource", "browser_action", "browser_action", "new_task", "hologram_tool", "tool", "ask_followup_question"]
    );
    assert_eq!(s.updated, Some(T0 + 12));
}

#[test]
fn a_transcript_cut_short_keeps_its_complete_rows_or_the_last_read() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let storage = storage_of(cline(), &home, 0);
    let id = "1772359200040";
    let rows = [say(T0, "task", "cut me"), say(T0 + 1, "text", "first answer"), say(T0 + 2, "text", "second answer")];
    let path = write_task(&storage, id, &rows, None).join("ui_messages.json");
    let whole = std::fs::read(&path).unwrap();
    let lib = kit::library(&home, None);
    let count = |lib: &memory_bank_sessions::Library| {
        let list = lib.list_sessions(ListArgs { query: Some(id.into()), ..Default::default() }).unwrap();
        list.sessions.iter().map(|s| s.message_count).collect::<Vec<_>>()
    };
    assert_eq!(count(&lib), [3]);

    // Rewritten in place and read while only `[` is there: the index keeps what it read.
    std::fs::write(&path, b"[").unwrap();
    let report = lib.refresh().unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(count(&lib), [3]);
    let unit = kit::unit_named(&kit::discover(cline(), &storage).0, id);
    assert!(read_unit(cline(), &unit).unwrap().is_empty(), "nothing complete to read alone");

    // Cut inside the third row: the two rows before it are read.
    std::fs::write(&path, &whole[..whole.len() - 10]).unwrap();
    lib.refresh().unwrap();
    assert_eq!(count(&lib), [2]);
    std::fs::write(&path, &whole).unwrap();
    lib.refresh().unwrap();
    assert_eq!(count(&lib), [3]);
}

#[test]
fn a_change_to_a_side_file_reads_the_task_again() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let storage = storage_of(roo(), &home, 0);
    write_roo_tasks(&storage);
    let item = storage.join("tasks").join(CHILD).join("history_item.json");
    let fingerprint = || kit::unit_named(&kit::discover(roo(), &storage).0, CHILD).fingerprint;
    let before = fingerprint();
    let lib = kit::library(&home, None);
    let workspace = |lib: &memory_bank_sessions::Library| {
        let list = lib.list_sessions(ListArgs { query: Some(CHILD.into()), ..Default::default() }).unwrap();
        list.sessions[0].workspace.clone()
    };
    assert_eq!(workspace(&lib).as_deref(), Some("/home/ana/shop"));
    std::fs::write(&item, json!({"id": CHILD, "workspace": "/home/ana/shop-v2", "parentTaskId": PARENT}).to_string()).unwrap();
    assert_ne!(fingerprint(), before);
    lib.refresh().unwrap();
    assert_eq!(workspace(&lib).as_deref(), Some("/home/ana/shop-v2"));

    // Cline: the workspace from `state/taskHistory.json` is part of the fingerprint.
    let storage = storage_of(cline(), &home, 0);
    write_task(&storage, "1772359200050", &[say(T0, "task", "hinted")], None);
    write_cline_history(&storage, &[("1772359200050", "/a")]);
    let unit = || kit::unit_named(&kit::discover(cline(), &storage).0, "1772359200050");
    let first = unit();
    assert_eq!(first.workspace_hint.as_deref(), Some("/a"));
    write_cline_history(&storage, &[("1772359200050", "/b")]);
    assert_ne!(unit().fingerprint, first.fingerprint);
}

#[cfg(unix)]
#[test]
fn links_out_of_the_root_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let storage = storage_of(cline(), &dir.path().join("home"), 0);
    write_task(&storage, "1772359200060", &[say(T0, "task", "inside")], None);
    // A task folder elsewhere, linked into `tasks/`, and a transcript linked from outside.
    let outside = write_task(&dir.path().join("elsewhere"), "1772359200061", &[say(T0, "task", "secret")], None);
    std::os::unix::fs::symlink(&outside, storage.join("tasks/1772359200061")).unwrap();
    let linked = storage.join("tasks/1772359200062");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(outside.join("ui_messages.json"), linked.join("ui_messages.json")).unwrap();
    // A link that stays inside the root is followed.
    std::os::unix::fs::symlink(storage.join("tasks/1772359200060"), storage.join("tasks/1772359200063")).unwrap();

    let (units, problems) = kit::discover(cline(), &storage);
    let mut found: Vec<String> = units.iter().map(|u| u.session_hint.clone().unwrap()).collect();
    found.sort();
    assert_eq!(found, ["1772359200060", "1772359200063"]);
    let mut refused: Vec<PathBuf> = problems.iter().map(|p| p.path.clone()).collect();
    refused.sort();
    assert_eq!(refused, [storage.join("tasks/1772359200061"), linked.join("ui_messages.json")]);
    assert!(problems.iter().all(|p| p.message.contains("not followed")), "{problems:?}");
    let texts: Vec<String> = units.iter().flat_map(|u: &Unit| kit::read_one(cline(), u).messages).map(|m| m.text).collect();
    assert!(!texts.iter().any(|t| t == "secret"));
}
