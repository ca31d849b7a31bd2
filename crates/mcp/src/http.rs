//! MCP over streamable HTTP for `memory-bank serve`: the memory tools at `/mcp` and the
//! meta face at `/mcp/agent`, for remote agents (no session tools: sessions live on each
//! person's machine).
//!
//! Authenticated with the service's own bearer tokens, agent tokens included: a
//! middleware resolves the caller and their org before rmcp sees the request, and the
//! tools act on that caller's bank. rmcp hands each tool the request's HTTP parts, so
//! the caller travels in their extensions. The service's `Host` rules, body cap and
//! connection limits apply as to every other route (the router is merged into the
//! API's before its layers).
//!
//! **Sessions belong to whoever opened them.** A legacy (before 2026-07-28) client gets
//! an `Mcp-Session-Id` at `initialize`, and everything it sends afterwards names it:
//! tool calls, the GET stream, DELETE, and the answers to the confirmation forms the
//! server sends on that session. rmcp routes those by the id alone, so here each
//! session is bound to a digest of the token and org that opened it, and a request
//! naming it under any other token or org is a 404, as for a session that does not
//! exist. Otherwise anyone with a valid token who learnt the id could answer another
//! person's form and save a memory of their choosing in that person's bank.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use memory_bank_access::LocalAccess;
use memory_bank_contract::limits::MAX_BODY_BYTES;
use memory_bank_contract::{ErrorBody, ErrorCode};
use memory_bank_store::Bank;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionId;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};

use crate::caller::Caller;
use crate::MemoryBankMcp;

/// The header that names a legacy session.
const SESSION_HEADER: &str = "mcp-session-id";

/// `/mcp` (memory tools) and `/mcp/agent` (the meta face) over `bank`, confirmation forms
/// staying open `confirm_timeout` (see [`MemoryBankMcp::with_confirm_timeout`]).
pub fn routes(bank: Bank, confirm_timeout: Duration) -> Router {
    // Host checks are the API router's (`HostCheck`), not rmcp's: one rule for all routes.
    let config = || {
        let mut config = StreamableHttpServerConfig::default().disable_allowed_hosts();
        config.max_request_body_bytes = MAX_BODY_BYTES;
        config
    };
    let sessions = Arc::new(LocalSessionManager::default());
    let server = move || MemoryBankMcp::new().with_caller_memory().with_confirm_timeout(confirm_timeout);
    let full = StreamableHttpService::new(move || Ok(server()), sessions.clone(), config());
    let meta = StreamableHttpService::new(move || Ok(server().meta_face()), sessions.clone(), config());
    let gate = Gate { bank, owners: Owners::new(sessions) };
    Router::new()
        .nest_service("/mcp/agent", meta)
        .nest_service("/mcp", full)
        .layer(middleware::from_fn_with_state(gate, authenticate))
        .layer(middleware::from_fn(crate::http_input::answer_bad_input))
}

/// What the middleware needs: the bank (to authenticate) and who owns which session.
#[derive(Clone)]
struct Gate {
    bank: Bank,
    owners: Owners,
}

/// Which caller binding opened each live legacy session. Entries of sessions rmcp has
/// closed meanwhile (idle timeout, the client gone) are dropped whenever one is added,
/// so the table is never larger than the sessions alive plus those closed since.
#[derive(Clone)]
struct Owners {
    bound: Arc<Mutex<HashMap<String, String>>>,
    sessions: Arc<LocalSessionManager>,
}

impl Owners {
    fn new(sessions: Arc<LocalSessionManager>) -> Owners {
        Owners { bound: Arc::default(), sessions }
    }

    fn owner(&self, session: &str) -> Option<String> {
        self.bound.lock().unwrap_or_else(|e| e.into_inner()).get(session).cloned()
    }

    async fn bind(&self, session: String, binding: String) {
        let live: Vec<SessionId> = self.sessions.sessions.read().await.keys().cloned().collect();
        let mut bound = self.bound.lock().unwrap_or_else(|e| e.into_inner());
        bound.retain(|id, _| live.iter().any(|l| l.as_ref() == id.as_str()));
        bound.insert(session, binding);
    }

    fn forget(&self, session: &str) {
        self.bound.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
    }
}

fn refuse(status: StatusCode, error: ErrorCode) -> Response {
    (status, Json(ErrorBody::code(error))).into_response()
}

/// Resolves the bearer token and the org (`X-Org-Id`, or the caller's only org), and
/// holds every request naming a session to the binding that opened it.
async fn authenticate(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    let bank = &gate.bank;
    let Some(token) = memory_bank_server::auth::bearer_token(request.headers()).map(str::to_owned) else {
        return refuse(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized);
    };
    // The API router's `resolve` looked the token up already; asked again only when it
    // did not run (a router built without it).
    let found = match request.extensions().get::<memory_bank_server::auth::Authenticated>() {
        Some(resolved) => Ok(resolved.0.clone()),
        None => bank.authenticate(&token).await,
    };
    let owner = match found {
        Ok(Some(owner)) => owner,
        Ok(None) => return refuse(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized),
        Err(_) => return refuse(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::ServiceUnavailable),
    };
    let Ok(orgs) = bank.user_orgs(&owner.user.id).await else {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::ServiceUnavailable);
    };
    let wanted = request.headers().get("x-org-id").and_then(|v| v.to_str().ok()).map(str::trim).map(str::to_owned);
    let org = match wanted {
        Some(wanted) => orgs.into_iter().find(|o| o.id == wanted),
        None if orgs.len() == 1 => orgs.into_iter().next(),
        None => None,
    };
    let Some(org) = org else { return refuse(StatusCode::NOT_FOUND, ErrorCode::OrganizationNotFound) };
    let binding = binding_of(&token, &org.id);
    let named = session_named(request.headers());
    if let Some(session) = &named {
        if gate.owners.owner(session).as_deref() != Some(binding.as_str()) {
            // Exactly what a session that does not exist gets: nothing tells the two apart.
            return crate::http_input::session_not_found();
        }
    }
    let closing = request.method() == Method::DELETE;
    let access = LocalAccess::for_caller(bank.clone(), owner.user.id, org.id, owner.kind);
    request.extensions_mut().insert(Caller { access: Arc::new(access), binding: binding.clone() });
    let response = next.run(request).await;
    match named {
        // A session opened by this request (its initialize): bound before the client can
        // learn its id, which only this response carries.
        None => {
            if let Some(opened) = session_named(response.headers()) {
                gate.owners.bind(opened, binding).await;
            }
        }
        Some(session) if closing && response.status().is_success() => gate.owners.forget(&session),
        Some(_) => {}
    }
    response
}

fn session_named(headers: &HeaderMap) -> Option<String> {
    headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// Who is asking, as a digest: the token itself never stays in memory longer than the
/// request, and two tokens of one person are two callers (an agent token is not the
/// person who was shown the form).
fn binding_of(token: &str, org_id: &str) -> String {
    let digest = Sha256::new().chain_update(b"mcp-binding\0").chain_update(token).chain_update(b"\0").chain_update(org_id).finalize();
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}
