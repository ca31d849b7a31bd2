//! The session commands of the desktop app (Tauri's mock runtime, no window) answer
//! exactly what `memory-bank sessions … --json` answers on the same home; the watcher
//! picks up a new session and emits `sessions-changed`; and "Remember…" saves a memory
//! with its citation, refusing secrets.

use memory_bank_sessions::testing as session_home;

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tauri::Listener;

#[path = "support/mock_app.rs"]
mod mock_app;
use mock_app::call;

/// The `memory-bank` binary of this build (built first if this test runs alone).
fn cli() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join(format!("memory-bank{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let status = Command::new(env!("CARGO")).args(["build", "-p", "memory-bank"]).status().unwrap();
        assert!(status.success(), "could not build the memory-bank CLI");
    }
    bin
}

fn cli_json(home: &std::path::Path, index: &std::path::Path, args: &[&str]) -> Value {
    let out = Command::new(cli())
        .arg("sessions")
        .args(args)
        .args(["--json", "--index"])
        .arg(index)
        .env("HOME", home)
        // The CLI's own archive key, so the test never reaches the machine's keyring.
        .env("MEMORY_BANK_DB_KEY_FILE", key_file(index))
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A key file beside `index`, made on first use.
fn key_file(index: &std::path::Path) -> PathBuf {
    let path = index.with_extension("key");
    if !path.exists() {
        std::fs::write(&path, format!("{}\n", memory_bank_sessions::DbKey::generate().to_hex())).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    }
    path
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

const SHOP: &str = "5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10";

#[test]
fn session_commands_match_the_cli_and_remember_saves_a_citation() {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    session_home::populate_home(&home);
    // SAFETY: set before any thread of this test binary reads the environment.
    unsafe {
        std::env::set_var("HOME", &home);
        std::env::set_var("MEMORY_BANK_DATA_DIR", dir.path().join("data"));
        for var in session_home::TOOL_VARS.iter().chain(&["MEMORY_BANK_URL", "MEMORY_BANK_TOKEN"]) {
            std::env::remove_var(var);
        }
    }
    let (app, window) = mock_app::start("dev.memorybank.sessions-test");
    let changes = Arc::new(AtomicUsize::new(0));
    let seen = changes.clone();
    app.listen_any("sessions-changed", move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
    });

    // The first refresh runs in the background.
    wait_for("the first index", || {
        call(&window, "list_sessions", json!({})).unwrap()["total"].as_u64() > Some(10)
    });

    let cli_index = dir.path().join("cli-index.sqlite");
    let pairs: [(&str, Value, Vec<&str>); 7] = [
        ("list_sessions", json!({"limit": 200}), vec!["list", "--limit", "200"]),
        ("list_sessions", json!({"source": "gemini", "limit": 5}), vec!["list", "--source", "gemini", "--limit", "5"]),
        ("open_session", json!({"sessionId": SHOP}), vec!["open", SHOP]),
        ("read_transcript", json!({"sessionId": SHOP, "count": 3}), vec!["read", SHOP, "--count", "3"]),
        ("read_transcript", json!({"sessionId": SHOP, "count": "x", "before": 2}), vec!["read", SHOP, "--count", "x", "--before", "2"]),
        ("latest_message", json!({"sessionId": SHOP}), vec!["latest", SHOP]),
        ("search_messages", json!({"query": "迁移", "limit": 50}), vec!["search", "迁移", "--limit", "50"]),
    ];
    for (command, args, cli_args) in pairs {
        let from_app = call(&window, command, args.clone()).unwrap();
        let from_cli = cli_json(&home, &cli_index, &cli_args);
        assert_eq!(from_app, from_cli, "{command} {args}");
    }
    // With no sessionId, the open session is read; checking another session (a memory's
    // citation) does not change which one is open.
    let other = call(&window, "find_session", json!({"sessionId": "9d3c1a77-7d5e-4b8e-8d0e-0c4b6b6e2a01"})).unwrap();
    assert_eq!(other["title"], "绿茶与迁移");
    let open = call(&window, "read_transcript", json!({})).unwrap();
    assert_eq!(open["sessionId"], SHOP);
    assert_eq!(call(&window, "find_session", json!({"sessionId": "nope"})).unwrap_err()["code"], "session_not_found");
    let err = call(&window, "open_session", json!({"sessionId": "nope"})).unwrap_err();
    assert_eq!(err["code"], "session_not_found");
    let activity = call(&window, "session_activity", json!({"sessionId": SHOP, "fromIndex": 0, "toIndex": 4})).unwrap();
    assert_eq!(activity, json!({"activity": [{"afterIndex": 1, "tools": ["Read"]}]}));
    let facets = call(&window, "session_facets", json!(null)).unwrap();
    assert_eq!(facets["sources"].as_array().unwrap().len(), 4);
    // A bad argument to a session command answers the one code for it (the same on the
    // CLI, MCP and HTTP), whether the action or the argument types refuse it.
    for (command, args) in [
        ("list_sessions", json!({"limit": 0})),
        ("read_transcript", json!({"sessionId": SHOP, "maxCharsPerMessage": 5})),
        ("search_messages", json!({"query": "  "})),
        ("open_session", json!({"sessionId": 5})),
        ("session_activity", json!({"sessionId": SHOP, "fromIndex": -1})),
    ] {
        let err = call(&window, command, args.clone()).unwrap_err();
        assert_eq!(err["code"], "invalid_request", "{command} {args}: {err}");
    }
    // Every granted command is routed to its typed arguments: a body that is not an
    // object of them is refused before anything runs.
    for command in memory_bank_app_lib::APP_COMMANDS {
        let err = call(&window, command, json!([1])).unwrap_err();
        assert_eq!(err["code"], "invalid_request", "{command}: {err}");
    }

    // A new session file appears without a restart, and the UI is told.
    let before = changes.load(Ordering::SeqCst);
    let project = home.join(".claude/projects/-work-live");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("live-session.jsonl"),
        session_home::claude_line("user", "n1", "written while the app runs", "2026-11-29T12:00:00.000Z") + "\n",
    )
    .unwrap();
    wait_for("the watcher", || {
        call(&window, "list_sessions", json!({"limit": 1})).unwrap()["sessions"][0]["sessionId"] == "live-session"
    });
    wait_for("sessions-changed", || {
        changes.load(Ordering::SeqCst) > before
    });

    // Its file deleted by its tool: the session stays, archived; Forget removes it.
    std::fs::remove_file(project.join("live-session.jsonl")).unwrap();
    wait_for("the archived session", || {
        call(&window, "open_session", json!({"sessionId": "live-session"})).is_ok_and(|s| s["archived"] == true)
    });
    let archived = call(&window, "list_sessions", json!({"status": "archived"})).unwrap();
    assert_eq!(archived["sessions"][0]["sessionId"], "live-session", "{archived}");
    assert!(archived["sessions"][0]["archivedAt"].is_string());
    let forgotten = call(&window, "forget_session", json!({"sessionId": "live-session"})).unwrap();
    assert_eq!(forgotten["sessionId"], "live-session");
    assert_eq!(call(&window, "open_session", json!({"sessionId": "live-session"})).unwrap_err()["code"], "session_not_found");
    assert_eq!(call(&window, "forget_session", json!({"sessionId": "live-session"})).unwrap_err()["code"], "session_not_found");
    // With "keep sessions" off (Settings → Session history), a deleted file's session goes.
    let state = call(&window, "set_prefs", json!({"keepArchivedSessions": false})).unwrap();
    assert_eq!(state["prefs"]["keepArchivedSessions"], false);
    std::fs::write(
        project.join("short-lived.jsonl"),
        session_home::claude_line("user", "s1", "gone soon", "2026-11-29T12:30:00.000Z") + "\n",
    )
    .unwrap();
    wait_for("the short-lived session", || call(&window, "open_session", json!({"sessionId": "short-lived"})).is_ok());
    std::fs::remove_file(project.join("short-lived.jsonl")).unwrap();
    wait_for("the short-lived session to go", || {
        call(&window, "open_session", json!({"sessionId": "short-lived"})).is_err_and(|e| e["code"] == "session_not_found")
    });
    call(&window, "set_prefs", json!({"keepArchivedSessions": true})).unwrap();

    // A folder added in settings is read too (and kept in the preferences).
    let extra = dir.path().join("copied-claude/projects/-old");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(
        extra.join("from-another-machine.jsonl"),
        session_home::claude_line("user", "o1", "from the old laptop", "2026-11-29T13:00:00.000Z") + "\n",
    )
    .unwrap();
    let root = dir.path().join("copied-claude").to_string_lossy().into_owned();
    let state = call(&window, "set_session_roots", json!({"roots": [{"source": "claude-code", "path": root}]})).unwrap();
    assert_eq!(state["prefs"]["sessionRoots"], json!([{"source": "claude-code", "path": root}]));
    wait_for("the added folder", || {
        call(&window, "open_session", json!({"sessionId": "from-another-machine"})).is_ok()
    });
    let err = call(&window, "set_session_roots", json!({"roots": [{"source": "codex", "path": "relative/dir"}]})).unwrap_err();
    assert_eq!(err["code"], "invalid_request");
    // The whole disk and the home folder itself are refused, and the folders kept.
    let home = std::env::var("HOME").unwrap();
    for broad in ["/".to_owned(), home.clone(), format!("{home}/")] {
        let err = call(
            &window,
            "set_session_roots",
            json!({"roots": [{"source": "codex", "path": broad}]}),
        )
        .unwrap_err();
        assert_eq!(err["code"], "invalid_request", "{broad}");
    }
    let state = call(&window, "get_state", json!({})).unwrap();
    assert_eq!(
        state["prefs"]["sessionRoots"],
        json!([{"source": "claude-code", "path": root}])
    );

    // Every source is listed with its folders, found or not; one turned off is not read
    // (its sessions hidden, not archived) until it is turned on again.
    let sources = call(&window, "session_sources", json!({})).unwrap();
    let claude = sources.as_array().unwrap().iter().find(|s| s["source"] == "claude-code").unwrap().clone();
    assert_eq!((claude["found"].as_bool(), claude["enabled"].as_bool()), (Some(true), Some(true)), "{claude}");
    assert!(claude["folders"].as_array().unwrap().iter().any(|f| f["path"] == root.as_str() && f["added"] == true), "{claude}");
    assert_eq!(sources.as_array().unwrap().len(), memory_bank_sessions::Source::ALL.len());
    let off = call(&window, "set_source_enabled", json!({"source": "claude-code", "enabled": false})).unwrap();
    assert_eq!(off.as_array().unwrap().iter().find(|s| s["source"] == "claude-code").unwrap()["enabled"], false);
    wait_for("claude-code's sessions to be hidden", || {
        call(&window, "open_session", json!({"sessionId": "from-another-machine"})).is_err_and(|e| e["code"] == "session_not_found")
    });
    call(&window, "set_source_enabled", json!({"source": "claude-code", "enabled": true})).unwrap();
    wait_for("claude-code's sessions back", || call(&window, "open_session", json!({"sessionId": "from-another-machine"})).is_ok());
    let back = call(&window, "open_session", json!({"sessionId": "from-another-machine"})).unwrap();
    assert!(back["archivedAt"].is_null(), "not archived while off: {back}");

    // "Remember…": the memory is saved with its citation, in the org given.
    let state = call(&window, "get_state", json!({})).unwrap();
    let org = state["activeOrgId"].as_str().unwrap().to_owned();
    let message = call(&window, "latest_message", json!({"sessionId": SHOP})).unwrap();
    let saved = call(
        &window,
        "save_memory",
        json!({"orgId": org, "content": "Shop API migrates to Postgres 17", "tags": ["db"],
               "contexts": [{"snippet": message["text"], "conversationId": SHOP,
                             "messageId": message["messageId"], "origin": "searched_conversation"}]}),
    )
    .unwrap();
    let listed = call(&window, "list_memories", json!({"orgId": org})).unwrap();
    let memory = &listed["memories"][0];
    assert_eq!(memory["id"], saved["id"]);
    assert_eq!(memory["contexts"][0]["citation"], json!({"conversationId": SHOP, "messageId": "a5"}));
    assert_eq!(memory["contexts"][0]["origin"], "searched_conversation");
    let refused = call(
        &window,
        "save_memory",
        json!({"orgId": org, "content": "deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789"}),
    )
    .unwrap_err();
    assert_eq!(refused["code"], "looks_like_secret");
    let refused = call(
        &window,
        "save_memory",
        json!({"orgId": org, "content": "db access", "contexts": [{"snippet": "postgres://admin:hunter22@db/app"}]}),
    )
    .unwrap_err();
    assert_eq!(refused["code"], "looks_like_secret");
    // Tags and citation ids are stored too, so they are checked too.
    for fields in [
        json!({"tags": ["deploy", "AKIAIOSFODNN7EXAMPLE"]}),
        json!({"contexts": [{"snippet": "ok", "messageId": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"}]}),
        json!({"contexts": [{"snippet": "ok", "conversationId": "mbk_0123456789abcdefghijklmnop"}]}),
    ] {
        let mut args = json!({"orgId": org, "content": "plain words"});
        args.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        let refused = call(&window, "save_memory", args.clone()).unwrap_err();
        assert_eq!(refused["code"], "looks_like_secret", "{args}");
    }
    let listed = call(&window, "list_memories", json!({"orgId": org})).unwrap();
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "nothing secret was saved");
    memory_bank_app_lib::shutdown(app.handle());
}
