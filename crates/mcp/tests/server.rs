//! The server in process, over an in-memory pipe: the tools a server built with sessions
//! offers, that each call runs the library's action (a session written after the first
//! refresh is listed once the refresh is stale), and that a server without backends has
//! no tools. The real binary over stdio is tested in the repository's tests/mcp_stdio.rs.

mod common;

use std::sync::Arc;

use common::connect;

use memory_bank_mcp::{MemoryBankMcp, Sessions};
use memory_bank_sessions::{Env, Library, Roots};
use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};

fn claude_line(uuid: &str, text: &str) -> String {
    json!({"type": "user", "uuid": uuid, "cwd": "/work/app", "timestamp": "2026-11-01T10:00:00.000Z",
           "message": {"role": "user", "content": text}})
    .to_string()
        + "\n"
}


#[tokio::test]
async fn a_server_with_sessions_serves_the_session_tools() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let project = home.join(".claude/projects/-work-app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("s1.jsonl"), claude_line("u1", "first session")).unwrap();
    let env = Env { home: Some(home.clone()), vars: Default::default() };
    let sessions = Arc::new(Sessions::new(move || Library::open(None, Roots::new(&env, &[]), None)));
    sessions.ready().unwrap();
    let server = MemoryBankMcp::new().with_sessions(sessions);
    let names: Vec<String> = server.tools().into_iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["latest_message", "list_sessions", "open_session", "read_transcript", "search_sessions"]);

    let client = connect(server).await;
    let list = |client: &rmcp::service::RunningService<rmcp::RoleClient, ()>| {
        let request =
            CallToolRequestParams::new("list_sessions").with_arguments(json!({"limit": 5}).as_object().unwrap().clone());
        let peer = client.peer().clone();
        async move { peer.call_tool(request).await.unwrap().structured_content.unwrap() }
    };
    let first: Value = list(&client).await;
    assert_eq!((first["total"].as_u64(), first["nextCursor"].is_null()), (Some(1), true));
    assert_eq!(first["sessions"][0]["title"], "first session");
    // A new session: listed once the last refresh is older than FRESH_FOR.
    std::fs::write(project.join("s2.jsonl"), claude_line("u2", "second session")).unwrap();
    tokio::time::sleep(memory_bank_mcp::sessions::FRESH_FOR).await;
    assert_eq!(list(&client).await["total"], 2);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_without_backends_has_no_tools() {
    let server = MemoryBankMcp::new();
    assert!(server.tools().is_empty());
    let client = connect(server).await;
    assert!(client.list_all_tools().await.unwrap().is_empty());
    let info = client.peer_info().unwrap();
    assert!(!info.instructions.as_deref().unwrap_or("").contains("Session tools"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_session_its_tool_deleted_is_kept_and_marked_archived_by_every_session_tool() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let project = home.join(".claude/projects/-work-app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("old.jsonl"), claude_line("u1", "an old platypus question")).unwrap();
    std::fs::write(project.join("live.jsonl"), claude_line("u2", "a live question")).unwrap();
    let env = Env { home: Some(home.clone()), vars: Default::default() };
    let sessions = Arc::new(Sessions::new(move || Library::open(None, Roots::new(&env, &[]), None)));
    let library = sessions.ready().unwrap();
    // Claude Code's cleanup deletes the old transcript.
    std::fs::remove_file(project.join("old.jsonl")).unwrap();
    assert_eq!(library.refresh().unwrap().sessions_archived, 1);
    let client = connect(MemoryBankMcp::new().with_sessions(sessions)).await;
    let call = |name: &'static str, args: Value| {
        let peer = client.peer().clone();
        async move {
            let request = CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
            peer.call_tool(request).await.unwrap().structured_content.unwrap()
        }
    };
    let list = call("list_sessions", json!({})).await;
    let old = list["sessions"].as_array().unwrap().iter().find(|s| s["sessionId"] == "old").unwrap().clone();
    assert_eq!(old["archived"], true);
    assert!(old["archivedAt"].is_string(), "{old}");
    let live = list["sessions"].as_array().unwrap().iter().find(|s| s["sessionId"] == "live").unwrap().clone();
    assert!(live.get("archived").is_none(), "only archived sessions say so: {live}");
    let only_live = call("list_sessions", json!({"status": "live"})).await;
    assert_eq!(only_live["total"], 1);
    let open = call("open_session", json!({"sessionId": "old"})).await;
    assert_eq!((open["archived"].clone(), open["firstMessages"][0]["text"].clone()), (json!(true), json!("an old platypus question")));
    assert_eq!(call("read_transcript", json!({"sessionId": "old"})).await["archived"], true);
    assert_eq!(call("latest_message", json!({"sessionId": "old"})).await["archived"], true);
    let hits = call("search_sessions", json!({"query": "platypus"})).await;
    assert_eq!((hits["hits"][0]["sessionId"].clone(), hits["hits"][0]["archived"].clone()), (json!("old"), json!(true)));
    client.cancel().await.unwrap();
}
