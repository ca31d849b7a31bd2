//! The Inbox and Settings → Agents commands on Tauri's mock runtime (no window), over the
//! real embedded service: a proposal an agent made shows in `list_proposals` and through
//! the `inbox-changed` event, Accept saves the edited sentence with `confirmedVia: app`
//! (refusing secrets), Reject saves nothing; the agent commands show a diff, apply
//! exactly it, and remove it again, on config files in a temporary home.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use memory_bank_contract::validate::validate_propose;
use memory_bank_contract::wire::{ContextInput, ProposeRequest};
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;
use serde_json::{json, Value};
use tauri::Listener;

#[path = "support/mock_app.rs"]
mod mock_app;
use mock_app::call;

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn inbox_and_agent_commands_work_over_the_local_service() {
    keyring::set_default_credential_builder(keyring::mock::default_credential_builder());
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let bin = dir.path().join("bin");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    // The CLI binary the agents are set up to run, found on PATH (the app's own folder,
    // looked at first, is the test binary's, which has none).
    let cli = bin.join(format!("memory-bank{}", std::env::consts::EXE_SUFFIX));
    std::fs::write(&cli, "#!/bin/sh\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // SAFETY: set before any thread of this test binary reads the environment.
    unsafe {
        std::env::set_var("HOME", &home);
        std::env::set_var("PATH", &bin);
        std::env::set_var("XDG_DATA_HOME", home.join(".local/share"));
        std::env::set_var("MEMORY_BANK_DATA_DIR", &data);
        for name in
            ["MEMORY_BANK_URL", "MEMORY_BANK_TOKEN", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME"]
        {
            std::env::remove_var(name);
        }
    }

    let (app, window) = mock_app::start("dev.memorybank.test.inbox");
    let changes: Arc<Mutex<Vec<Value>>> = Arc::default();
    let seen = changes.clone();
    app.listen_any("inbox-changed", move |event| seen.lock().unwrap().push(serde_json::from_str(event.payload()).unwrap()));
    let state = call(&window, "get_state", json!({})).unwrap();
    let org = state["activeOrgId"].as_str().unwrap().to_owned();
    let user = state["user"]["id"].as_str().unwrap().to_owned();
    assert_eq!(call(&window, "list_proposals", json!({"orgId": org})).unwrap(), json!({"proposals": [], "nextCursor": null}));

    // An agent proposes, through the same database the embedded service uses.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let bank = rt.block_on(async {
        // The app encrypted its bank with a key it made in the (mock) keyring: the same
        // key must open it here, and nothing else.
        let url = format!("sqlite://{}", data.join("memory.db").display());
        assert!(SqliteStore::open(&url).await.is_err(), "the local bank is encrypted");
        let store = memory_bank_db_key::open_bank(&url, &memory_bank_access::default_key_source(&data, None)).await.unwrap();
        Bank::new(Arc::new(store))
    });
    let propose = |content: &str| {
        let request = ProposeRequest {
            content: Some(content.into()),
            tags: Some(vec!["drinks".into()]),
            contexts: Some(vec![ContextInput {
                snippet: "I always drink tea".into(),
                conversation_id: Some("ses_1".into()),
                message_id: Some("msg_2".into()),
                origin: None,
            }]),
            proposed_by: Some("claude-code".into()),
            ..Default::default()
        };
        rt.block_on(bank.propose(&user, &org, validate_propose(request).unwrap())).unwrap().id
    };
    let accepted = propose("Ada prefers tea");
    let rejected = propose("Not worth keeping");
    wait_for("inbox-changed with two pending", || changes.lock().unwrap().iter().any(|c| c == &json!({"pending": 2})));

    let listed = call(&window, "list_proposals", json!({"orgId": org})).unwrap();
    let proposals = listed["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 2);
    assert_eq!(proposals[1]["content"], "Ada prefers tea");
    assert_eq!(proposals[1]["proposedBy"], "claude-code");
    assert_eq!(proposals[1]["contexts"][0]["citation"], json!({"conversationId": "ses_1", "messageId": "msg_2"}));

    let secret = call(
        &window,
        "accept_proposal",
        json!({"orgId": org, "id": accepted, "edits": {"content": "token ghp_0123456789abcdefghijABCDEFGHIJ0123"}}),
    )
    .unwrap_err();
    assert_eq!(secret["code"], "looks_like_secret");
    let answer = call(
        &window,
        "accept_proposal",
        json!({"orgId": org, "id": accepted, "edits": {"content": "Ada prefers green tea", "tags": []}}),
    )
    .unwrap();
    assert_eq!(answer["proposal"]["status"], "accepted");
    assert_eq!(answer["memory"]["content"], "Ada prefers green tea");
    assert_eq!(answer["memory"]["tags"], json!([]));
    assert_eq!(answer["memory"]["confirmedVia"], "app");
    assert_eq!(answer["memory"]["proposedBy"], "claude-code");
    assert_eq!(
        call(&window, "reject_proposal", json!({"orgId": org, "id": rejected})).unwrap()["proposal"]["status"],
        "rejected"
    );
    let listed = call(&window, "list_memories", json!({"orgId": org})).unwrap();
    let contents: Vec<&str> = listed["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(contents, ["Ada prefers green tea"]);
    wait_for("inbox-changed with none pending", || changes.lock().unwrap().last() == Some(&json!({"pending": 0})));
    let missing = call(&window, "reject_proposal", json!({"orgId": org, "id": rejected})).unwrap_err();
    assert_eq!(missing["code"], "proposal_not_pending");

    let saved =
        call(&window, "save_memory", json!({"orgId": org, "content": "Remembered in the app", "confirmedVia": "cli"})).unwrap();
    assert_eq!(saved["confirmedVia"], "app", "Remember… is confirmed in the app, whatever the caller says");

    // Settings → Agents, on the temporary home.
    let overview = call(&window, "agent_statuses", json!({})).unwrap();
    assert_eq!(overview["cli"], json!({"path": cli, "problem": null}));
    let agents: Vec<&str> = overview["agents"].as_array().unwrap().iter().map(|a| a["agent"].as_str().unwrap()).collect();
    assert_eq!(agents, ["claude-code", "codex", "opencode", "gemini", "claude-desktop", "cursor", "vscode", "windsurf", "zed", "goose"]);
    assert_eq!(overview["agents"][0]["configPath"], json!(home.join(".claude.json")));
    assert_eq!(overview["agents"][0]["installed"], false);
    let plan = call(&window, "plan_agent_change", json!({"agent": "claude-code", "action": "install"})).unwrap();
    assert_eq!(plan["change"], "create");
    let diff = plan["diff"].as_str().unwrap();
    assert!(diff.contains("\"memory-bank\""), "{diff}");
    assert!(!home.join(".claude.json").exists(), "planning writes nothing");
    let stale =
        call(&window, "apply_agent_change", json!({"agent": "claude-code", "action": "install", "diff": "other"})).unwrap_err();
    assert_eq!(stale["code"], "agent_config_changed");
    let applied =
        call(&window, "apply_agent_change", json!({"agent": "claude-code", "action": "install", "diff": diff})).unwrap();
    assert_eq!(applied["written"], true);
    assert_eq!(applied["overview"]["agents"][0]["installed"], true);
    assert_eq!(applied["overview"]["agents"][0]["entryMatches"], true);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(file["mcpServers"]["memory-bank"]["command"], json!(cli));
    let remove = call(&window, "plan_agent_change", json!({"agent": "claude-code", "action": "remove"})).unwrap();
    call(&window, "apply_agent_change", json!({"agent": "claude-code", "action": "remove", "diff": remove["diff"]})).unwrap();
    assert_eq!(call(&window, "agent_statuses", json!({})).unwrap()["agents"][0]["installed"], false);
    let unknown = call(&window, "plan_agent_change", json!({"agent": "vim", "action": "install"})).unwrap_err();
    assert!(unknown.to_string().contains("vim"), "{unknown}");

    memory_bank_app_lib::shutdown(app.handle());
}
