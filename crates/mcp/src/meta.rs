//! The meta face (`memory-bank mcp --meta`, and `/mcp/agent` on `serve`): exactly two
//! tools, `search_capabilities` and `execute_capability`, over the
//! [`catalogue`](crate::catalogue), as the seed design's agent door has them. Running a
//! capability calls the same code as the matching tool of the full face, so
//! `postMemory` and `deleteMemoryById` go through the same confirmation as
//! `propose_memory` and `delete_memory`.

use memory_bank_contract::teams::BankScope;
use std::time::Duration;

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::bounded::{self, fit_count};
use crate::catalogue;
use crate::confirm::Retry;
use crate::MemoryBankMcp;

/// What the server tells agents about the meta face.
pub const INSTRUCTIONS: &str = "Memory Bank capabilities: find one with search_capabilities (e.g. \"save a memory\", \
\"search memories\", \"list sessions\"), then run it by its exact name with execute_capability. Saving or deleting a \
memory needs the person's confirmation: only a status of \"saved\" or \"deleted\" means it happened.";

/// How long one capability may run.
const CAPABILITY_TIMEOUT: Duration = Duration::from_secs(180);

/// Arguments of `search_capabilities`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchCapabilitiesParams {
    /// What you want to do, in a few words (at least 1 character).
    pub query: String,
    /// How many matches, 1–20 (default 5).
    #[schemars(range(min = 1, max = 20))]
    pub limit: Option<u32>,
    /// `read` for capabilities that only read, `write` for the others.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// Arguments of `execute_capability`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExecuteCapabilityParams {
    /// The exact name search_capabilities returned, e.g. postMemory.
    pub name: String,
    /// Values of the capability's pathParams, e.g. {"id": "mem_…"}.
    pub path: Option<Map<String, Value>>,
    /// Values of its queryParams, e.g. {"q": "tea"}.
    pub query: Option<Map<String, Value>>,
    /// Its JSON body, when hasBody is true.
    pub body: Option<Value>,
}

#[tool_router(router = meta_tools, vis = "pub(crate)")]
impl MemoryBankMcp {
    #[tool(
        name = "search_capabilities",
        description = "Find Memory Bank capabilities by what you want to do. Returns {matches: [{name, method, path, score, \
summary, pathParams, queryParams, hasBody, bodySchema?, querySchema?, readOnly}], hint?}; run one with execute_capability.",
        annotations(title = "Search capabilities", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn search_capabilities(&self, Parameters(p): Parameters<SearchCapabilitiesParams>) -> Result<CallToolResult, McpError> {
        if p.query.trim().is_empty() {
            return Ok(bounded::failure("invalid_capability_arguments", "query needs at least 1 character: say what you want to do"));
        }
        let limit = p.limit.unwrap_or(5);
        if !(1..=20).contains(&limit) {
            return Ok(bounded::failure("invalid_capability_arguments", &format!("limit must be from 1 to 20, got {limit}")));
        }
        let read_only = match p.kind.as_deref().map(str::trim) {
            None | Some("") => None,
            Some("read") => Some(true),
            Some("write") => Some(false),
            Some(other) => {
                return Ok(bounded::failure("invalid_capability_arguments", &format!("type must be read or write, got {other:?}")))
            }
        };
        let matches = catalogue::search(&p.query, limit as usize, read_only, self.sessions.is_some());
        let (_, mut answer) = fit_count(matches.len(), |k| json!({"matches": &matches[..k]}));
        if matches.is_empty() {
            answer["hint"] = json!("No matches. Try broader or different keywords.");
        }
        Ok(bounded::answer(&answer))
    }

    #[tool(
        name = "execute_capability",
        description = "Run a capability found with search_capabilities: {name, path?, query?, body?}. Saving or deleting a \
memory asks the person first; the answer's status says what happened.",
        annotations(title = "Execute a capability", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn execute_capability(
        &self,
        Parameters(p): Parameters<ExecuteCapabilityParams>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(capability) = catalogue::find(p.name.trim(), self.sessions.is_some()) else {
            return Ok(bounded::failure(
                "unknown_capability",
                &format!("no capability is named {:?}; call search_capabilities and use a name it returns", p.name),
            )
            .into());
        };
        let path = p.path.unwrap_or_default();
        let query = p.query.unwrap_or_default();
        let run = self.run_capability(&capability.name, path, query, p.body, Retry { state, responses }, context);
        match tokio::time::timeout(CAPABILITY_TIMEOUT, run).await {
            Ok(result) => result,
            Err(_) => Ok(bounded::failure("capability_timeout", "the capability did not finish within 180 s; try again").into()),
        }
    }
}

/// A string argument, or an `invalid_capability_arguments` answer naming it.
fn text(from: &Map<String, Value>, name: &str, place: &str) -> Result<String, CallToolResult> {
    match from.get(name) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(invalid(&format!("{place}.{name} must be a string, got {other}"))),
        None => Err(invalid(&format!("{place}.{name} is required"))),
    }
}

/// An optional whole-number argument (a number or a numeric string, as a query string has it).
fn number(from: &Map<String, Value>, name: &str) -> Result<Option<u32>, CallToolResult> {
    match from.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()).map(Some).ok_or_else(|| invalid(&format!("{name} must be a whole number"))),
        Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| invalid(&format!("{name} must be a whole number, got {s:?}"))),
        Some(other) => Err(invalid(&format!("{name} must be a whole number, got {other}"))),
    }
}

/// The optional `scope` of a search or a list: mine, team or all.
fn scope(from: &Map<String, Value>) -> Result<Option<BankScope>, CallToolResult> {
    match from.get("scope") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => BankScope::parse(s).map(Some).ok_or_else(|| invalid(&format!("scope is mine, team or all, got {s:?}"))),
        Some(other) => Err(invalid(&format!("scope is mine, team or all, got {other}"))),
    }
}

fn invalid(message: &str) -> CallToolResult {
    bounded::failure("invalid_capability_arguments", message)
}

/// Deserializes a capability's arguments into a tool's parameters.
fn params<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, CallToolResult> {
    serde_json::from_value(value).map_err(|e| invalid(&e.to_string()))
}

impl MemoryBankMcp {
    async fn run_capability(
        &self,
        name: &str,
        path: Map<String, Value>,
        query: Map<String, Value>,
        body: Option<Value>,
        retry: Retry,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        macro_rules! arg {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(answer) => return Ok(CallToolResult::into(answer)),
                }
            };
        }
        match name {
            "postMemory" => {
                let Some(Value::Object(body)) = body else {
                    return Ok(invalid("postMemory needs a JSON object body {content, tags?, contexts?}").into());
                };
                let request = arg!(crate::memory::propose_request_from_body(&body).map_err(|m| invalid(&m)));
                Ok(self.propose_and_confirm(&context, request, retry).await)
            }
            "getMemorySearch" => {
                let q = arg!(text(&query, "q", "query"));
                Ok(self.search_answer(&context, &q, arg!(number(&query, "limit")), arg!(scope(&query))).await.into())
            }
            "getMemory" => {
                let cursor = query.get("cursor").and_then(Value::as_str).map(str::to_owned);
                Ok(self.list_answer(&context, arg!(number(&query, "limit")), cursor, arg!(scope(&query))).await.into())
            }
            "deleteMemoryById" => {
                let id = arg!(text(&path, "id", "path"));
                Ok(self.delete_and_confirm(&context, &id, retry).await)
            }
            "getProposalsById" => Ok(self.status_answer(&context, &arg!(text(&path, "id", "path"))).await.into()),
            "getSessions" => self.list_sessions(Parameters(arg!(params(Value::Object(query))))).await.map(Into::into),
            "getSessionsBySessionId" => {
                let session_id = arg!(text(&path, "sessionId", "path"));
                self.open_session(Parameters(arg!(params(json!({"sessionId": session_id}))))).await.map(Into::into)
            }
            "getSessionsBySessionIdMessages" => {
                let mut args = query;
                args.insert("sessionId".into(), Value::String(arg!(text(&path, "sessionId", "path"))));
                self.read_transcript(Parameters(arg!(params(Value::Object(args))))).await.map(Into::into)
            }
            "getSessionsBySessionIdLatest" => {
                let session_id = arg!(text(&path, "sessionId", "path"));
                self.latest_message(Parameters(arg!(params(json!({"sessionId": session_id}))))).await.map(Into::into)
            }
            "getSessionsSearch" => self.search_sessions(Parameters(arg!(params(Value::Object(query))))).await.map(Into::into),
            other => Ok(bounded::failure("unknown_capability", &format!("{other} cannot run here; call search_capabilities")).into()),
        }
    }
}
