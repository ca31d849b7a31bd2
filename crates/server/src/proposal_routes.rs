//! The proposal routes: agents (any token) propose; only a person (a full token)
//! accepts or rejects: the owner in their own Inbox, an org's admins and owners in the
//! org Inbox (`docs/teams.md`). Thin adapters over [`memory_bank_store::Bank`]'s proposals.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use memory_bank_contract::limits::MAX_LIST_LIMIT;
use memory_bank_contract::validate::{self, Cursor};
use memory_bank_contract::wire::{ProposalListResponse, ProposalResponse, ProposalStatus};
use memory_bank_contract::{ErrorBody, FieldError};

use crate::auth::OrgCaller;
use crate::routes::{body_bytes, params, Params};
use crate::{ApiError, AppState};

/// Propose a memory to save, or one to delete.
#[utoipa::path(
    post, path = "/v1/proposals", operation_id = "postProposals", tag = "Memory",
    summary = "Propose a memory for the person to confirm: {action?: save|delete|edit, content (save: 1-8000 chars; edit: the new wording), tags?, contexts? (save), memoryId (delete, edit), scope?: user|org}. scope org (or an edit or delete of a team memory) waits in the org Inbox for its admins and owners. Nothing is saved or deleted until someone entitled accepts it in Memory Bank; poll GET /v1/proposals/{id} for the outcome.",
    params(("X-Org-Id" = String, Header, description = "The org the caller acts in")),
    request_body = memory_bank_contract::wire::ProposeRequest,
    responses(
        (status = 201, description = "Waiting for the person", body = ProposalResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 422, description = "Text that looks like a secret (API key, token, private key, password in a URL); nothing stored", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "The org turned memory off (org_memory_disabled), or does not let agents propose to its team bank (org_agents_may_not_propose)", body = ErrorBody),
        (status = 404, description = "Organization, or the memory to delete, not found", body = ErrorBody),
        (status = 409, description = "too_many_proposals: 200 proposals already wait for the person; nothing stored", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn post_proposal(
    State(state): State<AppState>,
    caller: OrgCaller,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<ProposalResponse>), ApiError> {
    let input = validate::parse_propose_body(&body_bytes(body)?)?;
    let proposal = state.bank.propose_as(&caller.user.id, &caller.org_id, input, caller.kind).await?;
    let similar = proposal.similar.clone();
    Ok((StatusCode::CREATED, Json(ProposalResponse { proposal, memory: None, similar })))
}

/// List proposals.
#[utoipa::path(
    get, path = "/v1/proposals", operation_id = "getProposals", tag = "Memory",
    summary = "The caller's Inbox (scope=mine, the default) or the org Inbox (scope=team: proposals to the team bank), newest first; status=pending for what waits.",
    description = "With scope=team an admin or owner lists every proposal to the org's team bank, theirs to accept or reject; a member lists only the team proposals they made themselves (their agents' included), pending or decided, to follow them: they cannot decide them. The answer's yourRole says which.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("scope" = Option<String>, Query, description = "mine (the default) or team (a member: their own team proposals only)"),
        ("status" = Option<String>, Query, description = "pending, accepted, rejected or expired; all when absent"),
        ("limit" = Option<u32>, Query, description = "1-100, default 20"),
        ("cursor" = Option<String>, Query, description = "nextCursor from the previous page"),
    ),
    responses(
        (status = 200, description = "One page", body = ProposalListResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "The org turned memory off (org_memory_disabled)", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn list_proposals(
    State(state): State<AppState>,
    caller: OrgCaller,
    query: Params,
) -> Result<Json<ProposalListResponse>, ApiError> {
    let query = params(query)?;
    let mut errors = Vec::new();
    let status = match query.get("status").map(|s| s.trim()) {
        None | Some("") => None,
        Some("pending") => Some(ProposalStatus::Pending),
        Some("accepted") => Some(ProposalStatus::Accepted),
        Some("rejected") => Some(ProposalStatus::Rejected),
        Some("expired") => Some(ProposalStatus::Expired),
        Some(other) => {
            errors.push(FieldError::new("status", format!("status must be pending, accepted, rejected or expired, got {other:?}")));
            None
        }
    };
    let team = match query.get("scope").map(|s| s.trim()) {
        None | Some("") | Some("mine") => false,
        Some("team") => true,
        Some(other) => {
            errors.push(FieldError::new("scope", format!("scope must be mine or team, got {other:?}")));
            false
        }
    };
    let limit = validate::parse_list(query.get("limit").map(String::as_str), None).map(|l| l.limit);
    let limit = limit.unwrap_or_else(|e| {
        errors.extend(e);
        MAX_LIST_LIMIT
    });
    let cursor = query.get("cursor").map(|c| {
        Cursor::decode_for(memory_bank_contract::ids::PROPOSAL_PREFIX, c).ok_or_else(|| {
            FieldError::new("cursor", "cursor is not one this server issued; pass nextCursor from a previous page")
        })
    });
    let cursor = match cursor.transpose() {
        Ok(cursor) => cursor,
        Err(e) => {
            errors.push(e);
            None
        }
    };
    if !errors.is_empty() {
        return Err(ApiError::InvalidRequest(errors));
    }
    let (user, org) = (&caller.user.id, &caller.org_id);
    Ok(Json(if team {
        state.bank.list_team_proposals(user, org, status, Some(limit), cursor.as_ref()).await?
    } else {
        state.bank.list_proposals_for(user, org, status, Some(limit), cursor.as_ref()).await?
    }))
}

/// One proposal.
#[utoipa::path(
    get, path = "/v1/proposals/{id}", operation_id = "getProposalsById", tag = "Memory",
    summary = "Where a proposal stands: pending, accepted (with the memory id), rejected or expired.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "prop_… id"),
    ),
    responses(
        (status = 200, description = "The proposal", body = ProposalResponse),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Proposal not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn get_proposal(
    State(state): State<AppState>,
    caller: OrgCaller,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<ProposalResponse>, ApiError> {
    let Ok(Path(id)) = id else { return Err(ApiError::ProposalNotFound) };
    let proposal = state.bank.proposal_for(&caller.user.id, &caller.org_id, &id).await?;
    let similar = proposal.similar.clone();
    Ok(Json(ProposalResponse { proposal, memory: None, similar }))
}

/// Accept a proposal.
#[utoipa::path(
    post, path = "/v1/proposals/{id}/accept", operation_id = "postProposalsByIdAccept", tag = "Memory",
    summary = "The person accepts: a save stores the draft with the optional edits {content?, tags?, contexts?, editInstead?}, an edit rewrites the memory, a delete removes it; in one transaction. An edit or delete whose memory changed since it was proposed needs memoryNow (the version the person saw). Not for agent tokens.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "prop_… id"),
    ),
    request_body = memory_bank_contract::wire::AcceptProposalRequest,
    responses(
        (status = 200, description = "Accepted", body = ProposalResponse),
        (status = 400, description = "Edits outside the memory limits, or editInstead not one of the proposal's similar memories", body = ErrorBody),
        (status = 422, description = "The edits hold text that looks like a secret; nothing stored", body = ErrorBody),
        (status = 403, description = "An agent token; a team proposal, for a member (org_role_required: its admins and owners decide it)", body = ErrorBody),
        (status = 404, description = "Proposal not found", body = ErrorBody),
        (status = 409, description = "Decided already, or expired (proposal_not_pending); or the memory changed since it was proposed (memory_changed)", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn accept_proposal(
    State(state): State<AppState>,
    caller: OrgCaller,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ProposalResponse>, ApiError> {
    caller.require_person()?;
    let Ok(Path(id)) = id else { return Err(ApiError::ProposalNotFound) };
    let edits = validate::parse_accept_body(&body_bytes(body)?).map_err(ApiError::InvalidRequest)?;
    let accepted = state.bank.accept_proposal_for(&caller.user.id, &caller.org_id, &id, edits).await?;
    Ok(Json(ProposalResponse { proposal: accepted.proposal, memory: accepted.memory, similar: accepted.similar }))
}

/// Reject a proposal.
#[utoipa::path(
    post, path = "/v1/proposals/{id}/reject", operation_id = "postProposalsByIdReject", tag = "Memory",
    summary = "The person rejects: nothing is saved or deleted. Not for agent tokens.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "prop_… id"),
    ),
    responses(
        (status = 200, description = "Rejected", body = ProposalResponse),
        (status = 403, description = "An agent token; a team proposal, for a member (org_role_required)", body = ErrorBody),
        (status = 404, description = "Proposal not found", body = ErrorBody),
        (status = 409, description = "Decided already, or expired", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn reject_proposal(
    State(state): State<AppState>,
    caller: OrgCaller,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<ProposalResponse>, ApiError> {
    caller.require_person()?;
    let Ok(Path(id)) = id else { return Err(ApiError::ProposalNotFound) };
    let proposal = state.bank.reject_proposal_for(&caller.user.id, &caller.org_id, &id).await?;
    Ok(Json(ProposalResponse { proposal, memory: None, similar: Vec::new() }))
}
