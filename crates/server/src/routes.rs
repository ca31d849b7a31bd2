//! The route handlers: thin adapters from HTTP to [`memory_bank_store::Bank`].

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use memory_bank_contract::teams::BankScope;
use memory_bank_contract::validate;
use memory_bank_contract::wire::{HealthResponse, ListResponse, MeResponse, ProposalResponse, SaveMemoryResponse, SearchResponse};
use memory_bank_contract::{ErrorBody, FieldError};

use memory_bank_store::{BankKey, Saved, StoreError};

use crate::auth::{Caller, OrgCaller};
use crate::{ApiError, AppState};

pub(crate) type Params = Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>;

pub(crate) fn params(raw: Params) -> Result<HashMap<String, String>, ApiError> {
    raw.map(|Query(map)| map).map_err(|e| {
        ApiError::InvalidRequest(vec![FieldError::new("query", format!("the query string is malformed: {}", e.body_text()))])
    })
}

/// The banks the caller reads with `scope`: a member who left since the token was
/// checked is the same 404 as any org they are not in; the org's kill switch is a 403.
pub(crate) async fn readable_banks<'a>(state: &AppState, caller: &'a OrgCaller, scope: BankScope) -> Result<Vec<BankKey<'a>>, ApiError> {
    state.bank.banks_for(&caller.user.id, &caller.org_id, scope).await.map_err(org_refusal)
}

/// A refused org read as the API says it: not a member is the 404 of any org they are
/// not in.
fn org_refusal(err: StoreError) -> ApiError {
    match err {
        StoreError::NotFound(_) => ApiError::OrganizationNotFound,
        other => other.into(),
    }
}

/// The body of a request, or the error its rejection means.
pub(crate) fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
        _ => ApiError::InvalidRequest(vec![FieldError::new("body", rejection.body_text())]),
    })
}

/// Save a memory.
#[utoipa::path(
    post, path = "/v1/memory", operation_id = "postMemory", tag = "Memory",
    summary = "Save a memory: {content (1-8000 chars), tags?: string[] (<=32, 1-64 each), contexts?: [{snippet (1-4000), conversationId?, messageId?, origin?: active_conversation|searched_conversation}] (<=16), scope?: user|org}. scope org saves to the org's team bank (admins and owners; a member's becomes a proposal in the org Inbox, answered 202). Save only sentences the human confirmed; never secrets. ?similar=true adds the duplicate hint to the answer.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("similar" = Option<bool>, Query, description = "true: the answer names the bank's other memories worded much like this one (costs about a search; default false). A proposal always carries its hint."),
    ),
    request_body = memory_bank_contract::wire::SaveMemoryRequest,
    responses(
        (status = 201, description = "Saved", body = SaveMemoryResponse),
        (status = 202, description = "scope org from a member: proposed to the org Inbox, waiting for its admins and owners", body = memory_bank_contract::wire::ProposalResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 422, description = "Text that looks like a secret (API key, token, private key, password in a URL); nothing stored", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token: propose instead (POST /v1/proposals); the org turned memory off (org_memory_disabled)", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
        (status = 413, description = "Body over 256 KiB", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn save_memory(
    State(state): State<AppState>,
    caller: OrgCaller,
    query: Params,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    caller.require_person()?;
    let hinted = validate::parse_save_params(params(query)?.get("similar").map(String::as_str)).map_err(ApiError::InvalidRequest)?;
    let body = body_bytes(body)?;
    // The gate (limits, characters, the secret detector the Remember dialog uses): a
    // client that skips the dialog's checks is refused here.
    let input = validate::parse_save_body(&body)?;
    // The hint costs about a search, so only a door that shows it asks (the CLI; the
    // app shows it while the person types, through `POST /v1/memory/similar`).
    let saved = if hinted {
        state.bank.save_hinted(&caller.user.id, &caller.org_id, input).await?
    } else {
        (state.bank.save_or_propose(&caller.user.id, &caller.org_id, input).await?, Vec::new())
    };
    let (memory, similar) = match saved {
        (Saved::Memory(memory), similar) => (*memory, similar),
        (Saved::Proposed(proposal), _) => {
            let answer = ProposalResponse { similar: proposal.similar.clone(), proposal: *proposal, memory: None };
            return Ok((StatusCode::ACCEPTED, Json(answer)).into_response());
        }
    };
    Ok((StatusCode::CREATED, Json(SaveMemoryResponse { memory, similar })).into_response())
}

/// Memories worded like a sentence.
#[utoipa::path(
    post, path = "/v1/memory/similar", operation_id = "postMemorySimilar", tag = "Memory",
    summary = "The caller's memories worded much like a sentence not saved yet: {content, excludeId?}. Hints only (at most 3, most alike first); [] when none. Ask before saving a near-duplicate; edit the old memory instead if the person prefers.",
    params(("X-Org-Id" = String, Header, description = "The org the caller acts in")),
    request_body = memory_bank_contract::wire::FindSimilarRequest,
    responses(
        (status = 200, description = "Alike memories", body = memory_bank_contract::wire::SimilarResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn similar_memory(
    State(state): State<AppState>,
    caller: OrgCaller,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<memory_bank_contract::wire::SimilarResponse>, ApiError> {
    let request = validate::parse_similar_body(&body_bytes(body)?).map_err(ApiError::InvalidRequest)?;
    let similar = state.bank.similar(&caller.user.id, &request.content, request.exclude_id.as_deref()).await?;
    Ok(Json(memory_bank_contract::wire::SimilarResponse { similar }))
}

/// Memories that cite a session.
#[utoipa::path(
    get, path = "/v1/memory/citing", operation_id = "getMemoryCiting", tag = "Memory",
    summary = "The caller's memories that cite a session (a context whose citation names conversationId), newest first. No match is 200 with [].",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("conversationId" = String, Query, description = "The session id, 1-128 characters"),
        ("limit" = Option<u32>, Query, description = "1-100, default 100"),
    ),
    responses(
        (status = 200, description = "Memories", body = memory_bank_contract::wire::CitingResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn citing_memory(
    State(state): State<AppState>,
    caller: OrgCaller,
    query: Params,
) -> Result<Json<memory_bank_contract::wire::CitingResponse>, ApiError> {
    let query = params(query)?;
    let (conversation_id, limit) =
        validate::parse_citing(query.get("conversationId").map(String::as_str), query.get("limit").map(String::as_str))
            .map_err(ApiError::InvalidRequest)?;
    let memories = state.bank.citing(&caller.user.id, &conversation_id, limit).await?;
    Ok(Json(memory_bank_contract::wire::CitingResponse { memories }))
}

/// Whether search reads meaning, and how far the caller's vectors are made.
#[utoipa::path(
    get, path = "/v1/memory/search/status", operation_id = "getMemorySearchStatus", tag = "Memory",
    summary = "Whether search reads meaning too (on, off, unavailable with the reason), and how many of the caller's memories are found by meaning already.",
    params(("X-Org-Id" = String, Header, description = "The org the caller acts in")),
    responses(
        (status = 200, description = "Status", body = memory_bank_contract::wire::SearchStatus),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn search_status(State(state): State<AppState>, caller: OrgCaller) -> Result<Json<memory_bank_contract::wire::SearchStatus>, ApiError> {
    Ok(Json(state.bank.search_status(&caller.user.id).await?))
}

/// Search memories.
#[utoipa::path(
    get, path = "/v1/memory/search", operation_id = "getMemorySearch", tag = "Memory",
    summary = "Search the caller's memories by words (content, snippets, tags); best match first. No match is 200 with [].",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("q" = String, Query, description = "Words to look for, 1-512 characters"),
        ("limit" = Option<u32>, Query, description = "1-50, default 20"),
        ("wordsOnly" = Option<bool>, Query, description = "true: by words only, never by meaning (default false)"),
        ("scope" = Option<String>, Query, description = "mine (your own), team (the org's team bank) or all (both, default)"),
    ),
    responses(
        (status = 200, description = "Results", body = SearchResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn search_memory(State(state): State<AppState>, caller: OrgCaller, query: Params) -> Result<Json<SearchResponse>, ApiError> {
    let query = params(query)?;
    let get = |name: &str| query.get(name).map(String::as_str);
    let request = validate::parse_search(get("q"), get("limit"), get("wordsOnly")).map_err(ApiError::InvalidRequest)?;
    let scope = validate::parse_scope(get("scope")).map_err(ApiError::InvalidRequest)?;
    // The same checks as `readable_banks`, made while the banks are searched.
    let results = state.bank.search_for(&caller.user.id, &caller.org_id, scope, &request).await.map_err(org_refusal)?;
    Ok(Json(SearchResponse { results }))
}

/// List memories, newest first.
#[utoipa::path(
    get, path = "/v1/memory", operation_id = "getMemory", tag = "Memory",
    summary = "List the caller's memories and their org's team memories (scope), newest first. Pass nextCursor as cursor for the next page.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("limit" = Option<u32>, Query, description = "1-100, default 20"),
        ("cursor" = Option<String>, Query, description = "nextCursor from the previous page"),
        ("scope" = Option<String>, Query, description = "mine (your own), team (the org's team bank) or all (both, default)"),
    ),
    responses(
        (status = 200, description = "One page", body = ListResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn list_memory(State(state): State<AppState>, caller: OrgCaller, query: Params) -> Result<Json<ListResponse>, ApiError> {
    let query = params(query)?;
    let request = validate::parse_list(query.get("limit").map(String::as_str), query.get("cursor").map(String::as_str))
        .map_err(ApiError::InvalidRequest)?;
    let scope = validate::parse_scope(query.get("scope").map(String::as_str)).map_err(ApiError::InvalidRequest)?;
    let banks = readable_banks(&state, &caller, scope).await?;
    Ok(Json(state.bank.list_in(&banks, &request).await?))
}

/// One memory.
#[utoipa::path(
    get, path = "/v1/memory/{id}", operation_id = "getMemoryById", tag = "Memory",
    summary = "One of the caller's memories, or of their org's team bank, with its contexts.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "mem_… id"),
    ),
    responses(
        (status = 200, description = "The memory", body = SaveMemoryResponse),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Memory or organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn get_memory(
    State(state): State<AppState>,
    caller: OrgCaller,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<SaveMemoryResponse>, ApiError> {
    let Ok(Path(id)) = id else { return Err(ApiError::MemoryNotFound) };
    let banks = readable_banks(&state, &caller, BankScope::All).await?;
    let memory = state.bank.memory_in(&banks, &id).await?.ok_or(ApiError::MemoryNotFound)?;
    Ok(Json(SaveMemoryResponse { memory, similar: Vec::new() }))
}

/// Delete a memory.
#[utoipa::path(
    delete, path = "/v1/memory/{id}", operation_id = "deleteMemoryById", tag = "Memory",
    summary = "Delete one of the caller's memories, or, for the org's admins and owners, a team memory, with its contexts. Delete only after the human confirms.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "mem_… id"),
    ),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token, or a member for a team memory (org_role_required): propose the delete instead", body = ErrorBody),
        (status = 404, description = "Memory or organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn delete_memory(
    State(state): State<AppState>,
    caller: OrgCaller,
    id: Result<Path<String>, PathRejection>,
) -> Result<StatusCode, ApiError> {
    caller.require_person()?;
    // An id that is not even UTF-8 (`%FF`) names no memory: the same 404 as any other.
    let Ok(Path(id)) = id else {
        return Err(ApiError::MemoryNotFound);
    };
    if state.bank.delete_for(&caller.user.id, &caller.org_id, &id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::MemoryNotFound)
    }
}

/// The caller and their orgs.
#[utoipa::path(
    get, path = "/v1/me", operation_id = "getMe", tag = "Account",
    responses(
        (status = 200, description = "The caller", body = MeResponse),
        (status = 401, description = "Unauthorized", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn me(
    State(state): State<AppState>,
    Caller { user, kind }: Caller,
) -> Result<Json<MeResponse>, ApiError> {
    let orgs = state.bank.user_orgs(&user.id).await?;
    Ok(Json(MeResponse { user, orgs, may_confirm: kind != memory_bank_store::TokenKind::Agent }))
}

/// Liveness and database reachability.
#[utoipa::path(
    get, path = "/healthz", operation_id = "getHealthz", tag = "Service",
    responses(
        (status = 200, description = "Healthy", body = HealthResponse),
        (status = 503, description = "Database unreachable", body = ErrorBody),
    )
)]
pub async fn healthz(State(state): State<AppState>) -> Result<Json<HealthResponse>, ApiError> {
    state.bank.store().ping().await?;
    Ok(Json(HealthResponse { status: "ok".into() }))
}
