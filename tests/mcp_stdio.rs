//! `memory-bank mcp` end to end: the real binary over stdio, driven by rmcp's client, over a
//! home holding sessions of all four tools plus big ones written here. Every session tool's
//! shape, limits and errors; no answer over 10 000 characters (a 520-message session, a
//! 1 MB message, pages of long titles); pages that add up; garbage on stdin; and
//! `mcp install` against a fixture home.

use memory_bank_sessions::testing as session_home;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The budget every answer must keep (the 10 000 characters; the server counts bytes).
const BUDGET: usize = 10_000;

const SHOP: &str = "5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10";
const LONG: &str = "aaaaaaaa-0000-4000-8000-000000000520";
const HUGE: &str = "bbbbbbbb-0000-4000-8000-000000000001";
/// Sessions with long titles written for paging.
const PAGED: usize = 130;

struct Home {
    dir: tempfile::TempDir,
    home: PathBuf,
}

/// One Claude Code record in workspace `cwd`.
fn record(kind: &str, cwd: &str, uuid: &str, text: &str, timestamp: &str) -> String {
    let line = session_home::claude_line(kind, uuid, text, timestamp);
    line.replace("\"cwd\":\"/work/live\"", &format!("\"cwd\":{}", json!(cwd)))
}

fn write_session(home: &Path, project: &str, id: &str, lines: &[String]) {
    let folder = home.join(".claude/projects").join(project);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        session_home::populate_home(&home);
        // 520 messages of about 1 500 characters; every tenth mentions a marmot.
        let long: Vec<String> = (0..520)
            .map(|i| {
                let kind = if i % 2 == 0 { "user" } else { "assistant" };
                let animal = if i % 10 == 3 { " marmot" } else { "" };
                let text = format!("message {i}{animal} {}", "lorem ipsum \"quoted\" dolor ".repeat(55));
                record(kind, "/work/long", &format!("m{i}"), &text, &format!("2026-11-25T10:{:02}:{:02}.000Z", i / 60, i % 60))
            })
            .collect();
        write_session(&home, "-work-long", LONG, &long);
        // One message of 1 MB, with a word to find in its middle.
        let huge = format!("{} platypus {}", "x".repeat(500_000), "y\n".repeat(250_000));
        write_session(
            &home,
            "-work-huge",
            HUGE,
            &[
                record("user", "/work/huge", "h1", &huge, "2026-11-26T09:00:00.000Z"),
                record("assistant", "/work/huge", "h2", &format!("echo: {huge}"), "2026-11-26T09:00:01.000Z"),
            ],
        );
        // Sessions whose titles (their first message) are longer than a title may be shown.
        for i in 0..PAGED {
            let title = format!("paged session {i}: {}", "a long first message that becomes the title ".repeat(8));
            let lines = [record(
                "user",
                "/work/paged",
                &format!("p{i}"),
                &title,
                &format!("2026-11-27T{:02}:{:02}:00.000Z", i / 60, i % 60),
            )];
            write_session(&home, "-work-paged", &format!("cccccccc-0000-4000-8000-{i:012}"), &lines);
        }
        Home { dir, home }
    }

    /// `memory-bank ARGS` with `HOME` set to this home and the data folder beside it.
    fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_memory-bank"));
        cmd.args(args).env("HOME", &self.home).env("MEMORY_BANK_DATA_DIR", self.dir.path().join("data"));
        cmd.env_remove("MEMORY_BANK_SESSIONS_INDEX");
        for var in session_home::TOOL_VARS.iter().chain(&["CODEX_HOME", "XDG_CONFIG_HOME", "MEMORY_BANK_LOG"]) {
            cmd.env_remove(var);
        }
        cmd
    }

    /// An MCP client connected to a fresh `memory-bank mcp`.
    async fn client(&self) -> RunningService<RoleClient, ()> {
        let (transport, _stderr) = TokioChildProcess::builder(self.command(&["mcp"])).stderr(Stdio::null()).spawn().unwrap();
        ().serve(transport).await.unwrap()
    }
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)).await.unwrap()
}

/// The JSON of a result, checked: the text is the same JSON as `structuredContent`, and
/// within the budget.
fn json_of(result: &CallToolResult) -> Value {
    assert_eq!(result.content.len(), 1, "{result:?}");
    let text = &result.content[0].as_text().expect("text content").text;
    assert!(text.len() <= BUDGET, "{} characters: {}…", text.len(), &text[..200]);
    let parsed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(Some(&parsed), result.structured_content.as_ref(), "text and structuredContent differ");
    parsed
}

async fn ok(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Value {
    let result = call(client, tool, args.clone()).await;
    assert_eq!(result.is_error, Some(false), "{tool} {args}: {result:?}");
    json_of(&result)
}

/// The `{error, message}` of a failed call.
async fn fails(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Value {
    let result = call(client, tool, args.clone()).await;
    assert_eq!(result.is_error, Some(true), "{tool} {args} should fail: {result:?}");
    json_of(&result)
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

#[tokio::test]
async fn tools_are_listed_read_only_with_their_limits() {
    let h = Home::new();
    let client = h.client().await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("memory-bank"));
    assert!(info.instructions.as_deref().unwrap().contains("nextCursor"));
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "delete_memory", "latest_message", "list_memories", "list_sessions", "open_session", "proposal_status",
            "propose_edit", "propose_memory", "read_transcript", "search_memories", "search_sessions"
        ]
    );
    let session_tools = ["latest_message", "list_sessions", "open_session", "read_transcript", "search_sessions"];
    for tool in tools.iter().filter(|t| session_tools.contains(&t.name.as_ref())) {
        let a = tool.annotations.as_ref().unwrap();
        let hints = (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint);
        assert_eq!(hints, (Some(true), Some(false), Some(true), Some(false)), "{}", tool.name);
        assert!(a.title.is_some() && tool.description.as_ref().unwrap().contains("Returns"));
    }
    let schema = |name: &str| Value::Object((*tools.iter().find(|t| t.name == name).unwrap().input_schema).clone());
    let list = schema("list_sessions");
    assert_eq!(
        (list["properties"]["limit"]["minimum"].as_u64(), list["properties"]["limit"]["maximum"].as_u64()),
        (Some(1), Some(100))
    );
    let read = schema("read_transcript");
    assert_eq!(read["required"], json!(["sessionId"]));
    assert_eq!(read["properties"]["count"]["maximum"], 30);
    assert_eq!(read["properties"]["maxCharsPerMessage"]["minimum"], 200);
    assert_eq!(read["properties"]["maxCharsPerMessage"]["maximum"], 20000);
    let search = schema("search_sessions");
    assert_eq!(search["required"], json!(["query"]));
    assert_eq!(search["properties"]["limit"]["maximum"], 30);
    // Every tool the library reads is one an agent can filter by, and nothing else.
    let every_source: Vec<&str> = memory_bank_sessions::Source::ALL.iter().map(|s| s.as_str()).collect();
    for tool in [&list, &search] {
        assert_eq!(tool["properties"]["source"]["enum"], json!(every_source), "{tool}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn list_pages_add_up_to_total_within_the_budget() {
    let h = Home::new();
    let client = h.client().await;
    let first = ok(&client, "list_sessions", json!({})).await;
    assert_eq!(keys(&first), ["nextCursor", "sessions", "total"]);
    let total = first["total"].as_u64().unwrap();
    assert!(total as usize > PAGED + 8, "{total}");
    let shown = first["sessions"].as_array().unwrap();
    assert!(!shown.is_empty() && shown.len() <= 20, "default 20: {}", shown.len());
    assert_eq!(keys(&shown[0]), ["createdAt", "messageCount", "sessionId", "source", "title", "updatedAt", "workspace"]);
    let mut seen: Vec<String> = Vec::new();
    let mut cursor = Value::Null;
    let mut short_pages = 0;
    loop {
        let page = ok(&client, "list_sessions", json!({"limit": 100, "cursor": cursor})).await;
        assert_eq!(page["total"].as_u64(), Some(total), "every page says how many there are");
        let sessions = page["sessions"].as_array().unwrap();
        for s in sessions {
            assert!(s["title"].as_str().unwrap().chars().count() <= 200, "{}", s["title"]);
            seen.push(s["sessionId"].as_str().unwrap().to_string());
        }
        cursor = page["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
        short_pages += usize::from(sessions.len() < 100);
    }
    assert!(short_pages > 0, "100 long titles pass the budget: a page holds fewer, and says where to go on");
    assert_eq!(seen.len() as u64, total, "the pages add up to total");
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), seen.len(), "no session twice");
    // The same order as `memory-bank sessions list`, over the same index.
    let cli = h.command(&["sessions", "list", "--limit", "200", "--json"]).output().await.unwrap();
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    let cli_ids: Vec<&str> = cli["sessions"].as_array().unwrap().iter().map(|s| s["sessionId"].as_str().unwrap()).collect();
    assert_eq!(seen, cli_ids);
    // Filters.
    let codex = ok(&client, "list_sessions", json!({"source": "codex", "limit": "5"})).await;
    assert!(codex["sessions"].as_array().unwrap().iter().all(|s| s["source"] == "codex"));
    let shop = ok(&client, "list_sessions", json!({"workspace": "shop-api"})).await;
    assert_eq!(shop["sessions"][0]["sessionId"], SHOP);
    let found = ok(&client, "list_sessions", json!({"query": "client migration"})).await;
    assert_eq!((found["total"].as_u64(), found["nextCursor"].is_null()), (Some(1), true));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_520_message_session_is_read_back_in_bounded_pages() {
    let h = Home::new();
    let client = h.client().await;
    let mut before = Value::Null;
    let mut seen: Vec<u64> = Vec::new();
    let mut pages = 0;
    loop {
        let page = ok(
            &client,
            "read_transcript",
            json!({"sessionId": LONG, "count": 30, "before": before, "maxCharsPerMessage": 20000}),
        )
        .await;
        pages += 1;
        assert_eq!(page["messageCount"], 520);
        let messages = page["messages"].as_array().unwrap();
        assert_eq!(page["returned"].as_u64(), Some(messages.len() as u64));
        assert!(!messages.is_empty() && messages.len() < 30, "30 long messages pass the budget: {}", messages.len());
        let indexes: Vec<u64> = messages.iter().map(|m| m["index"].as_u64().unwrap()).collect();
        assert!(indexes.windows(2).all(|w| w[1] == w[0] + 1), "oldest first, contiguous: {indexes:?}");
        if let Some(previous) = before.as_u64() {
            assert_eq!(indexes.last().copied(), Some(previous - 1), "continues right before the last page");
        }
        for m in messages {
            assert_eq!(keys(m), ["index", "messageId", "role", "text", "truncated"]);
            assert_eq!(m["truncated"], false);
        }
        seen.extend(indexes.iter().rev());
        match page.get("olderBefore") {
            Some(older) => {
                assert_eq!(older.as_u64(), Some(indexes[0]));
                before = older.clone();
            }
            None => break,
        }
    }
    assert_eq!(seen, (0..520).rev().collect::<Vec<u64>>(), "every message once, in {pages} pages");
    // The defaults: 10 messages of at most 2 000 characters, as many as fit.
    let page = ok(&client, "read_transcript", json!({"sessionId": LONG})).await;
    let messages = page["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["index"], 519);
    assert!(messages.len() <= 10);
    // A small cap cuts every message and marks it.
    let page = ok(&client, "read_transcript", json!({"sessionId": LONG, "count": 30, "maxCharsPerMessage": 200})).await;
    let messages = page["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 30);
    assert!(messages.iter().all(|m| m["truncated"] == true && m["text"].as_str().unwrap().chars().count() == 200));
    assert_eq!(page["olderBefore"], 490);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_1mb_message_stays_within_the_budget_in_every_tool() {
    let h = Home::new();
    let client = h.client().await;
    let latest = ok(&client, "latest_message", json!({"sessionId": HUGE})).await;
    assert_eq!(keys(&latest), ["index", "messageId", "role", "sessionId", "text", "truncated"]);
    assert_eq!((latest["index"].as_u64(), latest["truncated"].as_bool()), (Some(1), Some(true)));
    assert!(latest["text"].as_str().unwrap().starts_with("echo: xxx"));
    let read = ok(&client, "read_transcript", json!({"sessionId": HUGE, "maxCharsPerMessage": 20000})).await;
    let messages = read["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "one cut message fits, not two");
    assert_eq!((messages[0]["index"].as_u64(), messages[0]["truncated"].as_bool()), (Some(1), Some(true)));
    assert_eq!(read["olderBefore"], 1);
    let older = ok(&client, "read_transcript", json!({"sessionId": HUGE, "before": 1})).await;
    assert_eq!(older["messages"][0]["index"], 0);
    assert!(older.get("olderBefore").is_none(), "the first message is included");
    let open = ok(&client, "open_session", json!({"sessionId": HUGE})).await;
    assert_eq!(open["messageCount"], 2);
    assert!(open["title"].as_str().unwrap().chars().count() <= 200);
    assert_eq!(open["firstMessages"].as_array().unwrap().len(), 2);
    assert!(open["firstMessages"][0]["truncated"].as_bool().unwrap());
    let found = ok(&client, "search_sessions", json!({"query": "platypus"})).await;
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    for hit in hits {
        assert!(hit["snippet"].as_str().unwrap().chars().count() <= 300);
        assert!(hit["snippet"].as_str().unwrap().contains("platypus"));
        assert!(hit["title"].as_str().unwrap().chars().count() <= 200);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn open_latest_and_search_answer_with_their_shapes() {
    let h = Home::new();
    let client = h.client().await;
    let open = ok(&client, "open_session", json!({"sessionId": SHOP})).await;
    assert_eq!(
        keys(&open),
        ["createdAt", "firstMessages", "lastMessages", "messageCount", "sessionId", "source", "title", "updatedAt", "workspace"]
    );
    assert_eq!((open["title"].as_str(), open["messageCount"].as_u64()), (Some("Client migration"), Some(5)));
    let index = |list: &Value| list.as_array().unwrap().iter().map(|m| m["index"].as_u64().unwrap()).collect::<Vec<_>>();
    assert_eq!((index(&open["firstMessages"]), index(&open["lastMessages"])), (vec![0, 1], vec![2, 3, 4]));
    assert_eq!(keys(&open["firstMessages"][0]), ["index", "messageId", "role", "text", "truncated"]);
    let latest = ok(&client, "latest_message", json!({"sessionId": SHOP})).await;
    assert_eq!((latest["index"].as_u64(), latest["text"].as_str()), (Some(4), Some("You're welcome.")));
    let read = ok(&client, "read_transcript", json!({"sessionId": SHOP, "count": 2})).await;
    assert_eq!(keys(&read), ["messageCount", "messages", "olderBefore", "returned", "sessionId", "title"]);
    assert_eq!((read["returned"].as_u64(), read["olderBefore"].as_u64()), (Some(2), Some(3)));
    let hits = ok(&client, "search_sessions", json!({"query": "客户迁移"})).await;
    assert_eq!(keys(&hits), ["hits", "nextCursor"]);
    assert_eq!(keys(&hits["hits"][0]), ["index", "messageId", "role", "sessionId", "snippet", "source", "title"]);
    // An empty session opens, with no messages to show.
    let empty = ok(&client, "open_session", json!({"sessionId": "0e3f1a00-0000-4000-8000-000000000001"})).await;
    assert_eq!((empty["messageCount"].as_u64(), empty["lastMessages"].as_array().map(Vec::len)), (Some(0), Some(0)));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn search_pages_follow_each_other_and_filter() {
    let h = Home::new();
    let client = h.client().await;
    let mut seen = Vec::new();
    let mut cursor = Value::Null;
    let mut short_pages = 0;
    loop {
        let page = ok(&client, "search_sessions", json!({"query": "MARMOT", "limit": 30, "cursor": cursor})).await;
        let hits = page["hits"].as_array().unwrap();
        seen.extend(hits.iter().map(|h| h["messageId"].as_str().unwrap().to_string()));
        cursor = page["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
        short_pages += usize::from(hits.len() < 30);
    }
    let expected: Vec<String> = (0..520).rev().filter(|i| i % 10 == 3).map(|i| format!("m{i}")).collect();
    assert_eq!(seen, expected, "every hit once, newest first");
    assert!(short_pages > 0, "30 long snippets pass the budget");
    for (filters, count) in [
        (json!({"source": "codex"}), 0),
        (json!({"workspace": "/work/shop-api"}), 0),
        (json!({"workspace": "long", "source": "claude-code", "limit": 3}), 3),
    ] {
        let mut args = filters.clone();
        args["query"] = json!("marmot");
        let page = ok(&client, "search_sessions", args).await;
        assert_eq!(page["hits"].as_array().unwrap().len(), count, "{filters}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_arguments_are_error_results_that_say_what_to_do() {
    let h = Home::new();
    let client = h.client().await;
    let missing = fails(&client, "read_transcript", json!({"sessionId": "no-such-session"})).await;
    assert_eq!(keys(&missing), ["error", "message"]);
    assert_eq!(missing["error"], "session_not_found");
    assert!(missing["message"].as_str().unwrap().contains("call list_sessions to find the id"));
    let cases = [
        ("list_sessions", json!({"limit": 0}), "limit must be a whole number from 1 to 100."),
        ("list_sessions", json!({"limit": 101}), "limit must be a whole number from 1 to 100."),
        ("list_sessions", json!({"limit": true}), "limit must be a whole number from 1 to 100."),
        ("list_sessions", json!({"source": "vim"}), "Unknown source"),
        ("list_sessions", json!({"cursor": "page 2"}), "nextCursor"),
        ("list_sessions", json!({"cursor": 2}), "cursor must be a string."),
        ("search_sessions", json!({"query": "x", "limit": 31}), "limit must be a whole number from 1 to 30."),
        ("search_sessions", json!({"query": " "}), "query is required"),
        ("search_sessions", json!({"query": "x".repeat(1001)}), "longer than 1000"),
        ("read_transcript", json!({"sessionId": SHOP, "count": 31}), "count must be a whole number from 1 to 30."),
        ("read_transcript", json!({"sessionId": SHOP, "maxCharsPerMessage": 100}), "from 200 to 20000"),
        ("read_transcript", json!({"sessionId": SHOP, "before": -1}), "before must be a message index"),
        ("read_transcript", json!({"sessionId": 5}), "sessionId must be a session's id"),
        ("latest_message", json!({"sessionId": ""}), "sessionId must be a session's id"),
        ("latest_message", json!({"sessionId": "0e3f1a00-0000-4000-8000-000000000001"}), "has no messages"),
    ];
    for (tool, args, says) in cases {
        let err = fails(&client, tool, args.clone()).await;
        assert!(err["message"].as_str().unwrap().contains(says), "{tool} {args}: {err}");
    }
    // A missing required argument: the SDK's own message, still an error result.
    let result = call(&client, "open_session", json!({})).await;
    assert_eq!(result.is_error, Some(true));
    assert!(result.content[0].as_text().unwrap().text.contains("sessionId"));
    // An unknown tool is a protocol error; the server goes on serving.
    let unknown = client.call_tool(CallToolRequestParams::new("forget_everything")).await;
    assert!(unknown.is_err());
    assert_eq!(ok(&client, "latest_message", json!({"sessionId": SHOP})).await["index"], 4);
    client.cancel().await.unwrap();
}

/// Reads stdout lines until one is the JSON-RPC response with `id`.
async fn response(lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>, id: u64) -> Value {
    let read = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout is only JSON-RPC ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
        panic!("the server ended before answering {id}");
    };
    tokio::time::timeout(Duration::from_secs(60), read).await.expect("an answer in time")
}

#[tokio::test]
async fn garbage_on_stdin_never_ends_the_server() {
    let h = Home::new();
    let mut child = h
        .command(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |bytes: &[u8]| {
        stdin.write_all(bytes).await.unwrap();
        stdin.flush().await.unwrap();
    };
    send(b"this is not json\n\xff\xfe\x00 nor is this\n{\"unterminated\": \n").await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "garbage-test", "version": "1"}}});
    send(format!("{initialize}\n").as_bytes()).await;
    assert_eq!(response(&mut lines, 1).await["result"]["serverInfo"]["name"], "memory-bank");
    send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").await;
    // Garbage between calls: not JSON; JSON that is no message; a call with a wrong type;
    // an unknown method; an unknown tool; lines of 3 MB and of 17 MB (over the SDK's line cap).
    send(b"}{][\n\n   \nnull\n42\n").await;
    send(format!("{}\n{}\n", "z".repeat(3 << 20), "w".repeat(17 << 20)).as_bytes()).await;
    send(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"list_sessions\",\"arguments\":{\"limit\":{\"many\":1}}}}\n").await;
    let wrong = response(&mut lines, 2).await;
    assert_eq!(wrong["result"]["isError"], true, "{wrong}");
    send(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"no/such/method\"}\n").await;
    assert!(response(&mut lines, 3).await["error"]["code"].is_i64());
    send(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}\n").await;
    assert!(response(&mut lines, 4).await["error"]["message"].as_str().unwrap().contains("not found"));
    send(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"latest_message\",\"arguments\":{\"sessionId\":\"5b0e8a52-1f0c-4c0e-9a53-6f3f1d7a2b10\"}}}\n").await;
    let latest = response(&mut lines, 5).await;
    assert_eq!(latest["result"]["structuredContent"]["text"], "You're welcome.", "{latest}");
    // Closing stdin ends the server cleanly.
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status:?}");
}

/// `memory-bank mcp install ARGS` in this home; (exit ok, stdout, stderr).
async fn install(h: &Home, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["mcp", "install"];
    all.extend(args);
    let out = h.command(&all).env("PATH", "/nonexistent").output().await.unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[tokio::test]
async fn install_prints_the_change_is_idempotent_and_removes_cleanly() {
    let h = Home::new();
    let codex = h.home.join(".codex/config.toml");
    let original = std::fs::read_to_string(&codex).ok();
    let (ok, out, _) = install(&h, &["--agent", "codex", "--dry-run"]).await;
    assert!(ok && out.contains("dry run") && out.contains("+[mcp_servers.memory-bank]"), "{out}");
    assert_eq!(std::fs::read_to_string(&codex).ok(), original, "a dry run writes nothing");
    let (ok, out, _) = install(&h, &["--agent", "codex"]).await;
    assert!(ok && out.contains("Codex CLI: "), "{out}");
    let written = std::fs::read_to_string(&codex).unwrap();
    assert!(written.contains(&format!("command = {}", json!(env!("CARGO_BIN_EXE_memory-bank")))), "{written}");
    assert!(written.contains("args = [\"mcp\"]"), "{written}");
    let (ok, out, _) = install(&h, &["--agent", "codex"]).await;
    assert!(ok && out.contains("already installed"), "{out}");
    assert_eq!(std::fs::read_to_string(&codex).unwrap(), written, "the second run changes nothing");
    let (ok, out, _) = install(&h, &["--agent", "codex", "--remove"]).await;
    assert!(ok && out.contains("removed"), "{out}");
    assert_eq!(std::fs::read_to_string(&codex).ok(), original, "removing gives back what was there (a file install created goes)");

    // Claude Code's file holds other state and servers: only our entry comes and goes.
    let claude = h.home.join(".claude.json");
    let before = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
    std::fs::write(&claude, before).unwrap();
    assert!(install(&h, &["--agent", "claude-code"]).await.0);
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(&claude).unwrap()).unwrap();
    assert_eq!(entry["mcpServers"]["memory-bank"]["args"], json!(["mcp"]));
    assert_eq!(entry["mcpServers"]["other"]["command"], "x");
    assert!(install(&h, &["--agent", "claude-code", "--remove"]).await.0);
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), before, "removing gives back the original bytes");
    // Errors: an unknown agent, a file that does not parse (left untouched).
    let (ok, _, err) = install(&h, &["--agent", "vim"]).await;
    assert!(!ok && err.contains("claude-code, codex, opencode, gemini"), "{err}");
    let gemini = h.home.join(".gemini/settings.json");
    std::fs::write(&gemini, "{ not json").unwrap();
    let (ok, _, err) = install(&h, &["--agent", "gemini"]).await;
    assert!(!ok && err.starts_with("memory-bank: error: ") && err.contains("settings.json"), "{err}");
    assert_eq!(std::fs::read_to_string(&gemini).unwrap(), "{ not json");
}

#[tokio::test]
async fn the_memory_tools_read_the_team_bank_by_scope() {
    let h = Home::new();
    let data = h.dir.path().join("data");
    {
        // The person's bank before the agent starts: one memory of their own, one their
        // org's (the local bank's person owns its org).
        let key = memory_bank_access::default_key_source(&data, None);
        let local = memory_bank_access::LocalAccess::open(&data, &key).await.unwrap();
        let save = |text: &str| {
            memory_bank_contract::validate::validate_save(memory_bank_contract::wire::SaveMemoryRequest { content: text.into(), ..Default::default() }).unwrap()
        };
        local.bank().save(local.user_id(), local.org_id(), save("My own deploy checklist")).await.unwrap();
        local.bank().save_to_team(local.user_id(), local.org_id(), save("Team deploys need the VPN")).await.unwrap();
    }
    let client = h.client().await;
    let tools = client.list_all_tools().await.unwrap();
    for name in ["search_memories", "list_memories"] {
        let schema = Value::Object((*tools.iter().find(|t| t.name == name).unwrap().input_schema).clone());
        assert!(schema.to_string().contains("\"mine\"") && schema.to_string().contains("\"team\""), "{name}: {schema}");
    }
    let contents = |answer: &Value, key: &str| {
        let mut found: Vec<String> = answer[key].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect();
        found.sort();
        found
    };
    let both = ok(&client, "search_memories", json!({"query": "deploys"})).await;
    assert_eq!(contents(&both, "results"), ["My own deploy checklist", "Team deploys need the VPN"]);
    let team = ok(&client, "search_memories", json!({"query": "deploys", "scope": "team"})).await;
    assert_eq!(contents(&team, "results"), ["Team deploys need the VPN"]);
    assert_eq!(team["results"][0]["scope"], "org");
    assert!(team["results"][0]["savedBy"].is_string(), "{team}");
    let mine = ok(&client, "list_memories", json!({"scope": "mine"})).await;
    assert_eq!(contents(&mine, "memories"), ["My own deploy checklist"]);
    // A scope that is none of the three is an error result naming them.
    let refused = call(&client, "search_memories", json!({"query": "deploys", "scope": "everyone"})).await;
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let said = &refused.content[0].as_text().expect("text content").text;
    assert!(said.contains("everyone") && said.contains("mine") && said.contains("team"), "{said}");
    client.cancel().await.unwrap();

    // The meta face: `scope` is in the capability's query parameters, and it is honoured.
    let (transport, _stderr) = TokioChildProcess::builder(h.command(&["mcp", "--meta"])).stderr(Stdio::null()).spawn().unwrap();
    let meta: RunningService<RoleClient, ()> = ().serve(transport).await.unwrap();
    let found = ok(&meta, "search_capabilities", json!({"query": "search memories"})).await;
    assert!(found.to_string().contains("\"scope\""), "{found}");
    let team = ok(&meta, "execute_capability", json!({"name": "getMemorySearch", "query": {"q": "deploys", "scope": "team"}})).await;
    assert_eq!(contents(&team, "results"), ["Team deploys need the VPN"]);
    let bad = fails(&meta, "execute_capability", json!({"name": "getMemorySearch", "query": {"q": "deploys", "scope": "everyone"}})).await;
    assert!(bad.to_string().contains("mine, team or all"), "{bad}");
    meta.cancel().await.unwrap();
}

/// The requests of one short session: initialize, initialized, and a session tool call.
fn a_short_session() -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fd-test", "version": "1"}}});
    let latest = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "latest_message", "arguments": {"sessionId": SHOP}}});
    format!("{initialize}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n{latest}\n")
}

/// The answers to [`a_short_session`] among `lines`, checked.
fn answered_a_short_session(lines: &[Value]) {
    let by_id = |id: u64| lines.iter().find(|m| m["id"] == id).unwrap_or_else(|| panic!("no answer {id}: {lines:?}"));
    assert_eq!(by_id(1)["result"]["serverInfo"]["name"], "memory-bank");
    assert_eq!(by_id(2)["result"]["structuredContent"]["text"], "You're welcome.", "{lines:?}");
}

/// stdin and stdout as agents hand them over: pipes (every test above), a socket pair
/// (libuv's clients, e.g. Node), and the fallbacks, stdin a file and stdout a file.
#[tokio::test]
async fn stdin_and_stdout_may_be_a_socket_or_files() {
    let h = Home::new();

    // A socket for both: the server is polled on it, answers, and ends at its EOF.
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let mut child = h
        .command(&["mcp"])
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs.try_clone().unwrap())))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    ours.set_nonblocking(true).unwrap();
    let ours = tokio::net::UnixStream::from_std(ours).unwrap();
    let (read, mut write) = ours.into_split();
    write.write_all(a_short_session().as_bytes()).await.unwrap();
    let mut lines = BufReader::new(read).lines();
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line()).await.unwrap().unwrap().expect("an answer");
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    answered_a_short_session(&answers);
    write.shutdown().await.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status:?}");

    // Files: read and written through tokio's own stdin and stdout.
    let requests = h.dir.path().join("requests.jsonl");
    let answers_file = h.dir.path().join("answers.jsonl");
    std::fs::write(&requests, a_short_session()).unwrap();
    let status = h
        .command(&["mcp"])
        .stdin(std::fs::File::open(&requests).unwrap())
        .stdout(std::fs::File::create(&answers_file).unwrap())
        .stderr(Stdio::null())
        .status()
        .await
        .unwrap();
    assert!(status.success(), "{status:?}");
    let written = std::fs::read_to_string(&answers_file).unwrap();
    let answers: Vec<Value> = written.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    answered_a_short_session(&answers);
}
