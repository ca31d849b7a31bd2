//! Confirmation for clients on MCP 2026-07-28, where a server may no longer send
//! `elicitation/create`: the form travels in an `input_required` answer and the client
//! calls the tool again with the person's answer (the multi-round-trip request). Driven
//! by rmcp's own client, which fulfils those rounds through its `ClientHandler`, against
//! the real `memory-bank mcp` over a local bank, and against `memory-bank serve`'s
//! stateless `/mcp` over streamable HTTP.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, InputRequest, InputResponses, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{json, Value};

/// What the scripted person answers to every form, and the forms they were shown.
#[derive(Clone)]
struct Person {
    elicitation: bool,
    answer: ElicitResult,
    shown: Arc<Mutex<Vec<String>>>,
    forms: Arc<Mutex<Vec<Value>>>,
}

impl Person {
    fn answering(answer: ElicitResult) -> Person {
        Person { elicitation: true, answer, shown: Arc::default(), forms: Arc::default() }
    }

    fn without_elicitation() -> Person {
        Person { elicitation: false, answer: ElicitResult::new(ElicitationAction::Cancel), shown: Arc::default(), forms: Arc::default() }
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.elicitation {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("mrtr-test-client", "1.0.0"))
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = &request {
            self.shown.lock().unwrap().push(message.clone());
            self.forms.lock().unwrap().push(serde_json::to_value(requested_schema).unwrap());
        }
        Ok(self.answer.clone())
    }
}

struct Bank {
    dir: tempfile::TempDir,
}

impl Bank {
    fn new() -> Bank {
        Bank { dir: tempfile::tempdir().unwrap() }
    }

    async fn client(&self, person: Person) -> RunningService<RoleClient, Person> {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_memory-bank"));
        cmd.arg("mcp").env("HOME", self.dir.path().join("home")).env("MEMORY_BANK_DATA_DIR", self.dir.path().join("data"));
        for var in ["MEMORY_BANK_URL", "MEMORY_BANK_TOKEN", "MEMORY_BANK_ORG", "MEMORY_BANK_LOG"] {
            cmd.env_remove(var);
        }
        let (transport, _stderr) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
        connect(person, transport).await
    }
}

/// Connects the way a 2026-07-28 client does: `server/discover`, no `initialize`, and
/// the capabilities sent with every request.
async fn connect<T, E, A>(person: Person, transport: T) -> RunningService<RoleClient, Person>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    person.serve_with_lifecycle(transport, lifecycle).await.unwrap()
}

fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    CallToolRequestParams::new(tool.to_string()).with_arguments(args)
}

fn json_of(result: &CallToolResult) -> Value {
    serde_json::from_str(&result.content[0].as_text().expect("text content").text).unwrap()
}

async fn call(client: &RunningService<RoleClient, Person>, tool: &str, args: Value) -> CallToolResult {
    client.call_tool(params(tool, args)).await.unwrap()
}

async fn memories(client: &RunningService<RoleClient, Person>) -> Vec<Value> {
    let page = json_of(&call(client, "list_memories", json!({})).await);
    page["memories"].as_array().unwrap().clone()
}

#[tokio::test]
async fn the_client_negotiates_2026_07_28() {
    let bank = Bank::new();
    let client = bank.client(Person::without_elicitation()).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28, "this file tests the multi-round-trip protocol");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_edited_accept_saves_exactly_what_the_person_accepted() {
    let bank = Bank::new();
    let person = Person::answering(
        ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"content": "The build uses Rust 1.95, edited.", "tags": "build, rust"})),
    );
    let shown = Arc::clone(&person.shown);
    let client = bank.client(person).await;
    let args =
        json!({"content": "The build uses Rust 1.95.", "tags": ["build"], "snippet": "we pinned 1.95", "sessionId": "s-1"});
    let result = call(&client, "propose_memory", args).await;
    let answer = json_of(&result);
    assert_eq!(answer["status"], "saved", "{answer}");
    assert_eq!(answer["memory"]["content"], "The build uses Rust 1.95, edited.");
    assert_eq!(answer["memory"]["tags"], json!(["build", "rust"]));
    assert_eq!(answer["memory"]["confirmedVia"], "elicitation");
    assert_eq!(answer["memory"]["proposedBy"], "mrtr-test-client");
    let shown = shown.lock().unwrap().clone();
    assert_eq!(shown.len(), 1, "one form, shown once: {shown:?}");
    assert!(shown[0].contains("we pinned 1.95"), "the form shows what it cites: {}", shown[0]);
    let saved = memories(&client).await;
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0]["content"], "The build uses Rust 1.95, edited.");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn decline_and_cancel_save_nothing() {
    let bank = Bank::new();
    for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
        let client = bank.client(Person::answering(ElicitResult::new(action))).await;
        let answer = json_of(&call(&client, "propose_memory", json!({"content": "Never keep this."})).await);
        assert_eq!(answer["status"], "declined", "{answer}");
        assert!(memories(&client).await.is_empty());
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn the_first_round_is_an_input_required_form_and_the_proposal_waits_meanwhile() {
    let bank = Bank::new();
    let client = bank.client(Person::answering(ElicitResult::new(ElicitationAction::Accept))).await;
    let CallToolResponse::InputRequired(round) =
        client.call_tool_once(params("propose_memory", json!({"content": "Tabs, not spaces."}))).await.unwrap()
    else {
        panic!("a 2026-07-28 client with elicitation gets the form as input_required");
    };
    let requests = round.input_requests.expect("the form");
    let Some(InputRequest::Elicitation(form)) = requests.get("confirm") else {
        panic!("one elicitation named confirm: {requests:?}")
    };
    let form = serde_json::to_value(form).unwrap();
    assert_eq!(form["method"], "elicitation/create");
    assert_eq!(form["params"]["requestedSchema"]["properties"]["content"]["default"], "Tabs, not spaces.");
    let state = round.request_state.expect("a request state");
    let (proposal_id, tag) = state
        .strip_prefix("proposal:")
        .and_then(|rest| rest.split_once(':'))
        .expect("the state names the stored proposal and a tag");
    let (proposal_id, tag) = (proposal_id.to_owned(), tag.to_owned());

    // Until the person answers, nothing is saved and the proposal is in the Inbox.
    assert!(memories(&client).await.is_empty());
    let status = json_of(&call(&client, "proposal_status", json!({"proposalId": proposal_id})).await);
    assert_eq!(status["status"], "pending");

    // A state this server never gave, or one given for another call, confirms nothing.
    let accept: InputResponses =
        [("confirm".to_owned(), serde_json::to_value(ElicitResult::new(ElicitationAction::Accept)).unwrap())].into();
    let untagged = format!("proposal:{proposal_id}");
    let retagged = format!("proposal:{proposal_id}:{}", "0".repeat(tag.len()));
    for (forged, content) in [
        ("proposal:prop_doesnotexist", "Tabs, not spaces."),
        ("nonsense", "Tabs, not spaces."),
        (state.as_str(), "Spaces, not tabs."),
        // The handle alone, or with a tag this server did not make for this caller.
        (untagged.as_str(), "Tabs, not spaces."),
        (retagged.as_str(), "Tabs, not spaces."),
    ] {
        let retry = params("propose_memory", json!({"content": content})).with_input_responses(accept.clone());
        let mut retry = retry;
        retry.request_state = Some(forged.to_owned());
        let CallToolResponse::Complete(result) = client.call_tool_once(retry).await.unwrap() else {
            panic!("a forged state gets a final answer")
        };
        assert_eq!(result.is_error, Some(true), "{forged} / {content}: {result:?}");
        assert_eq!(json_of(&result)["error"], "invalid_request");
    }
    assert!(memories(&client).await.is_empty(), "a forged retry saved something");

    // The genuine retry saves it, once; retrying the same state again changes nothing.
    let mut retry = params("propose_memory", json!({"content": "Tabs, not spaces."})).with_input_responses(accept.clone());
    retry.request_state = Some(state.clone());
    let CallToolResponse::Complete(done) = client.call_tool_once(retry.clone()).await.unwrap() else { panic!("final answer") };
    assert_eq!(json_of(&done)["status"], "saved", "{done:?}");
    let CallToolResponse::Complete(again) = client.call_tool_once(retry).await.unwrap() else { panic!("final answer") };
    assert_eq!(json_of(&again)["status"], "saved", "a replayed retry reports the outcome: {again:?}");
    assert_eq!(memories(&client).await.len(), 1, "a replayed retry saved a second copy");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn without_elicitation_the_proposal_waits_in_the_inbox() {
    let bank = Bank::new();
    let client = bank.client(Person::without_elicitation()).await;
    let answer = json_of(&call(&client, "propose_memory", json!({"content": "Ask me in the app."})).await);
    assert_eq!(answer["status"], "pending", "{answer}");
    assert!(answer["proposalId"].as_str().unwrap().starts_with("prop_"));
    assert!(memories(&client).await.is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_delete_is_confirmed_in_the_client_and_an_unchecked_box_keeps_the_memory() {
    let bank = Bank::new();
    let saver = bank.client(Person::answering(ElicitResult::new(ElicitationAction::Accept))).await;
    let saved = json_of(&call(&saver, "propose_memory", json!({"content": "Delete me later."})).await);
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    saver.cancel().await.unwrap();

    let keeper =
        bank.client(Person::answering(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"delete": false})))).await;
    let kept = json_of(&call(&keeper, "delete_memory", json!({"id": id})).await);
    assert_eq!(kept["status"], "declined", "{kept}");
    assert_eq!(memories(&keeper).await.len(), 1);
    keeper.cancel().await.unwrap();

    let deleter =
        bank.client(Person::answering(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"delete": true})))).await;
    let deleted = json_of(&call(&deleter, "delete_memory", json!({"id": id})).await);
    assert_eq!(deleted["status"], "deleted", "{deleted}");
    assert!(memories(&deleter).await.is_empty());
    deleter.cancel().await.unwrap();
}

#[tokio::test]
async fn the_meta_face_confirms_the_same_way() {
    let bank = Bank::new();
    let person = Person::answering(ElicitResult::new(ElicitationAction::Accept));
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_memory-bank"));
    cmd.args(["mcp", "--meta"])
        .env("HOME", bank.dir.path().join("home"))
        .env("MEMORY_BANK_DATA_DIR", bank.dir.path().join("data"));
    let (transport, _stderr) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
    let client = connect(person, transport).await;
    let run = json!({"name": "postMemory", "body": {"content": "Meta saves after a yes."}});
    let answer = json_of(&call(&client, "execute_capability", run).await);
    assert_eq!(answer["status"], "saved", "{answer}");
    assert_eq!(answer["memory"]["confirmedVia"], "elicitation");
    client.cancel().await.unwrap();
}

/// `memory-bank admin ARGS` against the service database, its one line of output.
fn admin(db: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memory-bank"))
        .args(["--database-url", db, "admin"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "admin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[tokio::test]
async fn serve_confirms_over_stateless_http_and_an_agent_token_still_cannot() {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;

    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/service.db", dir.path().display());
    let user = admin(&db, &["user", "add", "ada@example.com"]);
    let org = admin(&db, &["org", "add", "Acme"]);
    admin(&db, &["member", "add", &org, &user]);
    let full = admin(&db, &["token", "issue", &user]);
    let agent = admin(&db, &["token", "issue", &user, "--agent"]);
    let mut serving = serve_process::start(env!("CARGO_BIN_EXE_memory-bank"), &db, &[]).unwrap();
    let over_http = |token: &str| {
        let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", serving.url)).auth_header(token.to_owned());
        StreamableHttpClientTransport::from_config(config)
    };
    let edited =
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"content": "Deploys happen on Tuesdays.", "tags": ""}));

    // Each round is its own HTTP request; the proposal between them lives in the bank.
    let client = connect(Person::answering(edited.clone()), over_http(&full)).await;
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2026_07_28);
    let answer = json_of(&call(&client, "propose_memory", json!({"content": "Deploys happen on Fridays."})).await);
    assert_eq!(answer["status"], "saved", "{answer}");
    assert_eq!(answer["memory"]["content"], "Deploys happen on Tuesdays.");
    assert_eq!(answer["memory"]["confirmedVia"], "elicitation");
    client.cancel().await.unwrap();

    // An agent token may not confirm, even when its client would say yes: no form is
    // shown, the proposal waits for the person in the Inbox.
    let person = Person::answering(edited);
    let shown = Arc::clone(&person.shown);
    let client = connect(person, over_http(&agent)).await;
    let answer = json_of(&call(&client, "propose_memory", json!({"content": "Agents cannot save this alone."})).await);
    assert_eq!(answer["status"], "pending", "{answer}");
    assert!(shown.lock().unwrap().is_empty(), "a form was shown that could not take effect");
    let listed = json_of(&call(&client, "list_memories", json!({})).await);
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1, "only the confirmed memory: {listed}");
    client.cancel().await.unwrap();
    serving.child.kill().unwrap();
}

#[tokio::test]
async fn propose_edit_changes_the_memory_once_the_person_accepts_in_the_client() {
    let bank = Bank::new();
    let saver = bank.client(Person::answering(ElicitResult::new(ElicitationAction::Accept))).await;
    let saved = json_of(&call(&saver, "propose_memory", json!({"content": "The standup is at 9:30."})).await);
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    saver.cancel().await.unwrap();

    let person = Person::answering(
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"content": "The standup is at 9:45, on Mondays 10:00.", "tags": "team"})),
    );
    let shown = Arc::clone(&person.shown);
    let client = bank.client(person).await;
    let answer = json_of(&call(&client, "propose_edit", json!({"id": id, "content": "The standup is at 9:45."})).await);
    assert_eq!(answer["status"], "saved", "{answer}");
    assert_eq!((answer["memory"]["id"].as_str(), answer["memory"]["content"].as_str()), (Some(id.as_str()), Some("The standup is at 9:45, on Mondays 10:00.")));
    assert_eq!(answer["memory"]["tags"], json!(["team"]));
    assert!(shown.lock().unwrap()[0].contains("change one of your memories"), "{:?}", shown.lock().unwrap());
    let listed = memories(&client).await;
    assert_eq!(listed.len(), 1, "an edit, not a second memory");
    let unknown = call(&client, "propose_edit", json!({"id": "mem_01kdddddddddddddddddddddddd", "content": "x"})).await;
    assert_eq!(unknown.is_error, Some(true));
    assert_eq!(json_of(&unknown)["error"], "memory_not_found");
    client.cancel().await.unwrap();

    // Declined: nothing changes.
    let client = bank.client(Person::answering(ElicitResult::new(ElicitationAction::Decline))).await;
    let answer = json_of(&call(&client, "propose_edit", json!({"id": id, "content": "Never mind."})).await);
    assert_eq!(answer["status"], "declined");
    assert_eq!(memories(&client).await[0]["content"], "The standup is at 9:45, on Mondays 10:00.");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_form_names_alike_memories_and_can_reword_one_instead() {
    let bank = Bank::new();
    let saver = bank.client(Person::answering(ElicitResult::new(ElicitationAction::Accept))).await;
    let saved = json_of(&call(&saver, "propose_memory", json!({"content": "I use tabs for indentation."})).await);
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    saver.cancel().await.unwrap();

    let person = Person::answering(
        ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"content": "I use spaces for indentation.", "saveAs": id})),
    );
    let (shown, forms) = (Arc::clone(&person.shown), Arc::clone(&person.forms));
    let client = bank.client(person).await;
    let answer = json_of(&call(&client, "propose_memory", json!({"content": "I use spaces for indentation."})).await);
    assert_eq!(answer["status"], "edited", "{answer}");
    assert_eq!((answer["memory"]["id"].as_str(), answer["memory"]["content"].as_str()), (Some(id.as_str()), Some("I use spaces for indentation.")));
    let message = shown.lock().unwrap()[0].clone();
    assert!(message.contains("You already have:\n• “I use tabs for indentation.”"), "{message}");
    let choice = forms.lock().unwrap()[0]["properties"]["saveAs"].clone();
    assert_eq!(choice["default"], "new", "{choice}");
    let options: Vec<&str> = choice["oneOf"].as_array().unwrap().iter().map(|o| o["const"].as_str().unwrap()).collect();
    assert_eq!(options, ["new", id.as_str()]);
    assert_eq!(memories(&client).await.len(), 1, "reworded, not added");
    client.cancel().await.unwrap();

    // A choice that was not offered (another id) is ignored: the sentence is saved as new.
    let person = Person::answering(
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"saveAs": "mem_01kdddddddddddddddddddddddd"})),
    );
    let client = bank.client(person).await;
    let answer = json_of(&call(&client, "propose_memory", json!({"content": "I use spaces for indentation in Go."})).await);
    assert_eq!(answer["status"], "saved", "{answer}");
    assert_eq!(answer["similar"][0]["id"], id.as_str(), "the answer still names the alike memory");
    assert_eq!(memories(&client).await.len(), 2, "never merged on its own");
    client.cancel().await.unwrap();
}

/// A secret the person types into the form (or the client puts there) is refused by the
/// same gate as every save, on every MCP door: `memory-bank mcp` on the local bank, the
/// same with `--url` to a service, and the service's own `/mcp`. Nothing is saved, the
/// agent is told why, and the proposal still waits in the Inbox.
#[tokio::test]
async fn a_secret_typed_into_the_form_is_refused_on_every_mcp_door() {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use rmcp::transport::StreamableHttpClientTransport;

    let secrets = [
        json!({"content": "The deploy key is AKIAQWERTYUIOPASDFGH", "tags": ""}),
        json!({"content": "fine words", "tags": format!("ghp_{}", "a1B2".repeat(9))}),
        json!({"content": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA", "tags": ""}),
        json!({"content": "hidden AKIAQWERTY\u{200b}UIOPASDFGH", "tags": ""}),
    ];
    let refused = |answer: &Value, door: &str| {
        assert_eq!(answer["status"], "pending", "{door}: {answer}");
        assert!(answer["message"].as_str().unwrap().contains("refused"), "{door}: {answer}");
    };

    // stdio, the person's local bank.
    let bank = Bank::new();
    for form in &secrets {
        let client = bank.client(Person::answering(ElicitResult::new(ElicitationAction::Accept).with_content(form.clone()))).await;
        let result = call(&client, "propose_memory", json!({"content": "A harmless draft"})).await;
        assert_eq!(result.is_error, Some(true), "{result:?}");
        refused(&json_of(&result), "stdio");
        assert!(memories(&client).await.is_empty(), "stdio saved a secret");
        client.cancel().await.unwrap();
    }

    // A service: stdio with --url, and its /mcp.
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}/service.db", dir.path().display());
    let user = admin(&db, &["user", "add", "ada@example.com"]);
    let org = admin(&db, &["org", "add", "Acme"]);
    admin(&db, &["member", "add", &org, &user]);
    let full = admin(&db, &["token", "issue", &user]);
    let mut serving = serve_process::start(env!("CARGO_BIN_EXE_memory-bank"), &db, &[]).unwrap();
    for form in &secrets {
        let person = || Person::answering(ElicitResult::new(ElicitationAction::Accept).with_content(form.clone()));
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_memory-bank"));
        cmd.args(["mcp", "--url", &serving.url, "--token", &full])
            .env("HOME", dir.path().join("home"))
            .env("MEMORY_BANK_DATA_DIR", dir.path().join("data"));
        let (transport, _stderr) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
        let client = connect(person(), transport).await;
        refused(&json_of(&call(&client, "propose_memory", json!({"content": "A harmless draft"})).await), "stdio --url");
        client.cancel().await.unwrap();

        let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", serving.url)).auth_header(full.clone());
        let client = connect(person(), StreamableHttpClientTransport::from_config(config)).await;
        refused(&json_of(&call(&client, "propose_memory", json!({"content": "A harmless draft"})).await), "/mcp");
        assert!(memories(&client).await.is_empty(), "a secret was saved through a service");
        let pending = json_of(&call(&client, "list_memories", json!({})).await);
        assert_eq!(pending["memories"], json!([]));
        client.cancel().await.unwrap();
    }
    serving.child.kill().unwrap();
}

/// A proposal to the team's bank is decided in the org Inbox by the org's admins and
/// owners, never by a form in the proposer's client: a new memory, an edit and a delete
/// of a team memory each come back pending, no form is shown, and nothing changes.
#[tokio::test]
async fn a_team_proposal_is_never_confirmed_in_the_proposers_client() {
    let bank = Bank::new();
    let team_id = {
        let data = bank.dir.path().join("data");
        let key = memory_bank_access::default_key_source(&data, None);
        let local = memory_bank_access::LocalAccess::open(&data, &key).await.unwrap();
        let save = memory_bank_contract::validate::validate_save(memory_bank_contract::wire::SaveMemoryRequest {
            content: "Team deploys need the VPN".into(),
            ..Default::default()
        })
        .unwrap();
        local.bank().save_to_team(local.user_id(), local.org_id(), save).await.unwrap().id
    };
    let person = Person::answering(ElicitResult::new(ElicitationAction::Accept));
    let shown = Arc::clone(&person.shown);
    let client = bank.client(person).await;
    let calls = [
        ("propose_memory", json!({"content": "Team releases ship on Tuesdays", "scope": "team"})),
        ("propose_edit", json!({"id": team_id, "content": "Team deploys need the office VPN"})),
        ("delete_memory", json!({"id": team_id})),
    ];
    for (tool, args) in calls {
        let answer = json_of(&call(&client, tool, args).await);
        assert_eq!(answer["status"], "pending", "{tool}: {answer}");
        assert!(answer["message"].as_str().unwrap().contains("org Inbox"), "{tool}: {answer}");
        let status = json_of(&call(&client, "proposal_status", json!({"proposalId": answer["proposalId"]})).await);
        assert_eq!(status["status"], "pending", "{tool}: {status}");
    }
    assert!(shown.lock().unwrap().is_empty(), "no form for a team proposal");
    let listed: Vec<Value> = memories(&client).await.iter().map(|m| m["content"].clone()).collect();
    assert_eq!(listed, [json!("Team deploys need the VPN")], "nothing changed");
    client.cancel().await.unwrap();
}
