//! Editing a memory and its history: `PATCH /v1/memory/{id}`, `GET
//! /v1/memory/{id}/revisions`, `POST /v1/memory/{id}/revisions/{revisionId}/restore`.
//! Only the person edits (an agent token proposes an edit instead); another user's id
//! is the same 404 as an unknown one.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::Json;
use memory_bank_contract::edit::{parse_edit_body, RevisionListResponse};
use memory_bank_contract::wire::{ConfirmedVia, SaveMemoryResponse};
use memory_bank_contract::ErrorBody;

use crate::auth::OrgCaller;
use crate::routes::body_bytes;
use crate::{ApiError, AppState};

/// Edit a memory.
#[utoipa::path(
    patch, path = "/v1/memory/{id}", operation_id = "patchMemoryById", tag = "Memory",
    summary = "Edit one of the caller's memories, or, for the org's admins and owners, a team memory: {content?, tags?} (at least one; the save limits apply; [] clears the tags). Same id and createdAt, new updatedAt, contexts kept; the previous version is kept as a revision.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "mem_… id"),
    ),
    request_body = memory_bank_contract::edit::EditMemoryRequest,
    responses(
        (status = 200, description = "The edited memory", body = SaveMemoryResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 422, description = "Text that looks like a secret (API key, token, private key, password in a URL); nothing stored", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token, or a member for a team memory (org_role_required): propose the edit instead (POST /v1/proposals, action edit)", body = ErrorBody),
        (status = 404, description = "Memory or organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn patch_memory(
    State(state): State<AppState>,
    caller: OrgCaller,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SaveMemoryResponse>, ApiError> {
    caller.require_person()?;
    let Ok(Path(id)) = id else { return Err(ApiError::MemoryNotFound) };
    let edit = parse_edit_body(&body_bytes(body)?)?;
    let memory = state.bank.edit_for(&caller.user.id, &caller.org_id, &id, edit).await?.ok_or(ApiError::MemoryNotFound)?;
    // Hints compare with the caller's own memories; a team memory gets none yet.
    let similar = match memory.scope {
        memory_bank_contract::wire::Scope::User => state.bank.similar(&caller.user.id, &memory.content, Some(&memory.id)).await?,
        memory_bank_contract::wire::Scope::Org => Vec::new(),
    };
    Ok(Json(SaveMemoryResponse { memory, similar }))
}

/// A memory's earlier versions.
#[utoipa::path(
    get, path = "/v1/memory/{id}/revisions", operation_id = "getMemoryRevisions", tag = "Memory",
    summary = "The earlier versions of one of the caller's memories, or of a team memory of the org, most recently replaced first.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "mem_… id"),
    ),
    responses(
        (status = 200, description = "Its revisions", body = RevisionListResponse),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Memory or organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn list_revisions(
    State(state): State<AppState>,
    caller: OrgCaller,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<RevisionListResponse>, ApiError> {
    let Ok(Path(id)) = id else { return Err(ApiError::MemoryNotFound) };
    let revisions = state.bank.revisions_for(&caller.user.id, &caller.org_id, &id).await?.ok_or(ApiError::MemoryNotFound)?;
    Ok(Json(RevisionListResponse { revisions }))
}

/// Make an earlier version current again.
#[utoipa::path(
    post, path = "/v1/memory/{id}/revisions/{revisionId}/restore", operation_id = "postMemoryRevisionRestore", tag = "Memory",
    summary = "Restore an earlier version of one of the caller's memories, or, for the org's admins and owners, of a team memory: an edit like any other (the version it replaces becomes a revision; a team one is in the org's audit log).",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("id" = String, Path, description = "mem_… id"),
        ("revisionId" = String, Path, description = "mrev_… id"),
    ),
    responses(
        (status = 200, description = "The restored memory", body = SaveMemoryResponse),
        (status = 422, description = "That version holds text that looks like a secret: it stays in the history, never current again", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token, or a member for a team memory (org_role_required)", body = ErrorBody),
        (status = 404, description = "Memory, revision or organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn restore_revision(
    State(state): State<AppState>,
    caller: OrgCaller,
    ids: Result<Path<(String, String)>, PathRejection>,
) -> Result<Json<SaveMemoryResponse>, ApiError> {
    caller.require_person()?;
    let Ok(Path((id, revision_id))) = ids else { return Err(ApiError::MemoryNotFound) };
    let memory = state
        .bank
        .restore_revision_for(&caller.user.id, &caller.org_id, &id, &revision_id, Some(ConfirmedVia::App))
        .await?
        .ok_or(ApiError::MemoryNotFound)?;
    Ok(Json(SaveMemoryResponse { memory, similar: Vec::new() }))
}

