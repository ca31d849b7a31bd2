//! The team bank through `serve`'s `/mcp`, with the official Rust MCP SDK over
//! streamable HTTP: the authz matrix's MCP door (roles × scopes). A member's agent reads
//! its team bank beside its person's own and never another org's; an owner never reads a
//! member's own memories; an agent's team proposal waits in the org Inbox and obeys the
//! org's policy; the kill switch refuses with its code; a removed member's token stops at
//! once; and the same through `memory-bank mcp --url` on stdio. (The local bank's stdio door:
//! tests/mcp_stdio.rs and tests/mcp_confirm.rs; HTTP:
//! crates/server/tests/teams.rs.)

#[path = "support/serve_process.rs"]
mod serve_process;

use std::collections::HashMap;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RunningService, ServiceExt};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::RoleClient;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn admin(db: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(BIN).args(["--database-url", db, "admin"]).args(args).output().unwrap();
    assert!(out.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Saves over the HTTP API as the person whose full token this is.
async fn save(url: &str, token: &str, org: &str, body: Value) -> reqwest::StatusCode {
    let response = reqwest::Client::new().post(format!("{url}/v1/memory")).bearer_auth(token).header("X-Org-Id", org).json(&body).send().await.unwrap();
    response.status()
}

type Client = RunningService<RoleClient, ()>;

/// An MCP client on `/mcp` as `token`, acting in `org`; the error when the service refuses.
async fn connect(url: &str, token: &str, org: &str) -> Result<Client, String> {
    let headers = HashMap::from([(HeaderName::from_static("x-org-id"), HeaderValue::from_str(org).unwrap())]);
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{url}/mcp")).auth_header(token.to_owned()).custom_headers(headers);
    ().serve(StreamableHttpClientTransport::from_config(config)).await.map_err(|e| e.to_string())
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)).await.unwrap()
}

fn json_of(result: &CallToolResult) -> Value {
    serde_json::from_str(&result.content[0].as_text().expect("text content").text).unwrap()
}

/// The sorted contents a search or list answers.
async fn contents(client: &Client, tool: &str, args: Value) -> Vec<String> {
    let result = call(client, tool, args).await;
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let answer = json_of(&result);
    let key = if tool == "search_memories" { "results" } else { "memories" };
    let mut found: Vec<String> = answer[key].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect();
    found.sort();
    found
}

#[tokio::test]
async fn the_team_bank_over_mcp_cell_by_cell() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/service.db", dir.path().display());
    let (ada, bob, eve) = (admin(&db, &["user", "add", "ada@example.com"]), admin(&db, &["user", "add", "bob@example.com"]), admin(&db, &["user", "add", "eve@example.com"]));
    let (acme, globex) = (admin(&db, &["org", "add", "Acme"]), admin(&db, &["org", "add", "Globex"]));
    admin(&db, &["member", "add", &acme, &ada]); // the owner
    admin(&db, &["member", "add", &acme, &bob]);
    admin(&db, &["member", "add", &globex, &eve]);
    let (ada_full, bob_full) = (admin(&db, &["token", "issue", &ada]), admin(&db, &["token", "issue", &bob]));
    let eve_full = admin(&db, &["token", "issue", &eve]);
    let (ada_agent, bob_agent, eve_agent) =
        (admin(&db, &["token", "issue", &ada, "--agent"]), admin(&db, &["token", "issue", &bob, "--agent"]), admin(&db, &["token", "issue", &eve, "--agent"]));
    let mut serving = serve_process::start(BIN, &db, &[]).unwrap();
    let url = serving.url.clone();
    assert_eq!(save(&url, &ada_full, &acme, json!({"content": "Staging deploys need the VPN", "scope": "org"})).await, reqwest::StatusCode::CREATED);
    assert_eq!(save(&url, &bob_full, &acme, json!({"content": "Bob deploys on Fridays"})).await, reqwest::StatusCode::CREATED);
    assert_eq!(save(&url, &eve_full, &globex, json!({"content": "Globex deploys through Jenkins", "scope": "org"})).await, reqwest::StatusCode::CREATED);

    // A member's agent: both banks by default, each alone by scope, search and list alike.
    let bob_mcp = connect(&url, &bob_agent, &acme).await.unwrap();
    for tool in ["search_memories", "list_memories"] {
        let args = |scope: Option<&str>| {
            let mut args = if tool == "search_memories" { json!({"query": "deploys"}) } else { json!({}) };
            if let Some(scope) = scope {
                args["scope"] = json!(scope);
            }
            args
        };
        assert_eq!(contents(&bob_mcp, tool, args(None)).await, ["Bob deploys on Fridays", "Staging deploys need the VPN"], "{tool}");
        assert_eq!(contents(&bob_mcp, tool, args(Some("all"))).await, ["Bob deploys on Fridays", "Staging deploys need the VPN"], "{tool}");
        assert_eq!(contents(&bob_mcp, tool, args(Some("team"))).await, ["Staging deploys need the VPN"], "{tool}");
        assert_eq!(contents(&bob_mcp, tool, args(Some("mine"))).await, ["Bob deploys on Fridays"], "{tool}");
    }

    // The owner's agent never reads Bob's own memory; Globex's agent never reads Acme's,
    // and cannot act in Acme at all (the 404 of an unknown org).
    let ada_mcp = connect(&url, &ada_agent, &acme).await.unwrap();
    assert_eq!(contents(&ada_mcp, "search_memories", json!({"query": "deploys"})).await, ["Staging deploys need the VPN"]);
    let eve_mcp = connect(&url, &eve_agent, &globex).await.unwrap();
    assert_eq!(contents(&eve_mcp, "search_memories", json!({"query": "deploys"})).await, ["Globex deploys through Jenkins"]);
    let Err(refused) = connect(&url, &eve_agent, &acme).await else { panic!("not Eve's org") };
    assert!(refused.contains("404") || refused.contains("organization_not_found"), "{refused}");

    // A member's agent proposes to the team bank: it waits in the org Inbox.
    let proposed = json_of(&call(&bob_mcp, "propose_memory", json!({"content": "Releases ship on Tuesdays", "scope": "team"})).await);
    assert_eq!(proposed["status"], "pending", "{proposed}");
    assert!(proposed["message"].as_str().unwrap().contains("org Inbox"), "{proposed}");
    let inbox: Value = reqwest::Client::new()
        .get(format!("{url}/v1/proposals?scope=team"))
        .bearer_auth(&ada_full)
        .header("X-Org-Id", &acme)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(inbox["proposals"][0]["id"], proposed["proposalId"], "{inbox}");
    assert_eq!(inbox["proposals"][0]["proposer"].as_str(), Some(bob.as_str()));

    // The org's policy, enforced on this door too.
    admin(&db, &["org", "policy", &acme, "--agents-may-propose", "off"]);
    let refused = call(&bob_mcp, "propose_memory", json!({"content": "Agents may not say this", "scope": "team"})).await;
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    assert!(json_of(&refused).to_string().contains("org_agents_may_not_propose"), "{refused:?}");
    admin(&db, &["org", "policy", &acme, "--agents-may-propose", "on", "--memory", "off"]);
    let off = call(&bob_mcp, "search_memories", json!({"query": "deploys"})).await;
    assert_eq!(off.is_error, Some(true), "{off:?}");
    assert!(json_of(&off).to_string().contains("org_memory_disabled"), "{off:?}");
    admin(&db, &["org", "policy", &acme, "--memory", "on"]);

    // Removed: the very next call of Bob's agent stops.
    admin(&db, &["member", "remove", &acme, &bob]);
    let gone = bob_mcp.call_tool(CallToolRequestParams::new("search_memories").with_arguments(json!({"query": "deploys"}).as_object().unwrap().clone())).await;
    let stopped = match gone {
        Err(e) => e.to_string(),
        Ok(result) => json_of(&result).to_string(),
    };
    assert!(stopped.contains("404") || stopped.contains("organization_not_found") || stopped.contains("not found"), "{stopped}");
    assert!(!stopped.contains("Staging"), "nothing of the team's: {stopped}");
    assert_eq!(contents(&ada_mcp, "search_memories", json!({"query": "deploys", "scope": "team"})).await, ["Staging deploys need the VPN"]);
    for client in [ada_mcp, eve_mcp] {
        client.cancel().await.unwrap();
    }
    let _ = serving.child.kill();
}

/// The stdio door on a team server (`memory-bank mcp --url`, as an agent is configured
/// for one): a member's agent reads its team bank by scope, its team proposal waits in
/// the org Inbox, and once the member is removed its calls fail without a word of the
/// team's memories.
#[tokio::test]
async fn the_team_bank_over_stdio_mcp_on_a_service() {
    use rmcp::transport::TokioChildProcess;

    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/service.db", dir.path().display());
    let (ada, bob) = (admin(&db, &["user", "add", "ada@example.com"]), admin(&db, &["user", "add", "bob@example.com"]));
    let acme = admin(&db, &["org", "add", "Acme"]);
    admin(&db, &["member", "add", &acme, &ada]);
    admin(&db, &["member", "add", &acme, &bob]);
    let (ada_full, bob_full, bob_agent) =
        (admin(&db, &["token", "issue", &ada]), admin(&db, &["token", "issue", &bob]), admin(&db, &["token", "issue", &bob, "--agent"]));
    let mut serving = serve_process::start(BIN, &db, &[]).unwrap();
    let url = serving.url.clone();
    assert_eq!(save(&url, &ada_full, &acme, json!({"content": "Staging deploys need the VPN", "scope": "org"})).await, reqwest::StatusCode::CREATED);
    assert_eq!(save(&url, &bob_full, &acme, json!({"content": "Bob deploys on Fridays"})).await, reqwest::StatusCode::CREATED);

    let mut command = tokio::process::Command::new(BIN);
    command
        .args(["mcp", "--url", &url, "--token", &bob_agent, "--org", &acme])
        .env("HOME", dir.path().join("home"))
        .env("MEMORY_BANK_DATA_DIR", dir.path().join("data"))
        .env_remove("MEMORY_BANK_DATABASE_URL")
        .env_remove("MEMORY_BANK_LOG");
    let (transport, _stderr) = TokioChildProcess::builder(command).stderr(std::process::Stdio::null()).spawn().unwrap();
    let client: Client = ().serve(transport).await.unwrap();
    assert_eq!(contents(&client, "search_memories", json!({"query": "deploys"})).await, ["Bob deploys on Fridays", "Staging deploys need the VPN"]);
    assert_eq!(contents(&client, "search_memories", json!({"query": "deploys", "scope": "team"})).await, ["Staging deploys need the VPN"]);
    assert_eq!(contents(&client, "list_memories", json!({"scope": "mine"})).await, ["Bob deploys on Fridays"]);
    let proposed = json_of(&call(&client, "propose_memory", json!({"content": "Releases ship on Tuesdays", "scope": "team"})).await);
    assert_eq!(proposed["status"], "pending", "{proposed}");
    assert!(proposed["message"].as_str().unwrap().contains("org Inbox"), "{proposed}");

    admin(&db, &["member", "remove", &acme, &bob]);
    let gone = call(&client, "search_memories", json!({"query": "deploys", "scope": "team"})).await;
    assert_eq!(gone.is_error, Some(true), "{gone:?}");
    let said = gone.content[0].as_text().unwrap().text.clone();
    assert!(!said.contains("Staging"), "{said}");
    assert!(said.contains("organization_not_found") || said.contains("org"), "{said}");
    client.cancel().await.unwrap();
    let _ = serving.child.kill();
}
