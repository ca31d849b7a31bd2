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

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use memory_bank_access::{LocalAccess, MemoryAccess};
use memory_bank_contract::limits::MAX_BODY_BYTES;
use memory_bank_contract::{ErrorBody, ErrorCode};
use memory_bank_store::Bank;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::MemoryBankMcp;

/// The caller a request authenticated, as the tools read it.
#[derive(Clone)]
pub struct Caller {
    /// Their bank, in their org.
    pub access: Arc<dyn MemoryAccess>,
}

/// `/mcp` (memory tools) and `/mcp/agent` (the meta face) over `bank`.
pub fn routes(bank: Bank) -> Router {
    // Host checks are the API router's (`HostCheck`), not rmcp's: one rule for all routes.
    let config = || {
        let mut config = StreamableHttpServerConfig::default().disable_allowed_hosts();
        config.max_request_body_bytes = MAX_BODY_BYTES;
        config
    };
    let sessions = Arc::new(LocalSessionManager::default());
    let full = StreamableHttpService::new(|| Ok(MemoryBankMcp::new().with_caller_memory()), sessions.clone(), config());
    let meta = StreamableHttpService::new(|| Ok(MemoryBankMcp::new().with_caller_memory().meta_face()), sessions, config());
    Router::new()
        .nest_service("/mcp/agent", meta)
        .nest_service("/mcp", full)
        .layer(middleware::from_fn_with_state(bank, authenticate))
        .layer(middleware::from_fn(crate::http_input::answer_bad_input))
}

fn refuse(status: StatusCode, error: ErrorCode) -> Response {
    (status, Json(ErrorBody::code(error))).into_response()
}

/// Resolves the bearer token and the org (`X-Org-Id`, or the caller's only org).
async fn authenticate(State(bank): State<Bank>, mut request: Request, next: Next) -> Response {
    let Some(token) = memory_bank_server::auth::bearer_token(request.headers()).map(str::to_owned) else {
        return refuse(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized);
    };
    let owner = match bank.authenticate(&token).await {
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
    let access = LocalAccess::for_caller(bank, owner.user.id, org.id, owner.kind);
    request.extensions_mut().insert(Caller { access: Arc::new(access) });
    next.run(request).await
}
