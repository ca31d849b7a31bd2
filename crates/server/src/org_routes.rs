//! An org's members and policy for its own people (`docs/teams.md`): what the owners'
//! page in Settings reads and changes. Thin adapters over [`memory_bank_store::Bank`]'s
//! role-checked calls (`members_for`, `change_role_by`, `remove_member_by`,
//! `policy_for`, `set_policy_by`), where who may do what is decided once. Changes need a
//! person's token; anyone outside the org gets the 404 of an unknown org.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use memory_bank_contract::body::parse_object;
use memory_bank_contract::teams::{ChangeRoleRequest, OrgMembersResponse, OrgPolicy, Role};
use memory_bank_contract::ErrorBody;
use memory_bank_store::TokenKind;

use crate::auth::Caller;
use crate::routes::body_bytes;
use crate::{ApiError, AppState};

/// The caller is a member of the org (else the 404 of an unknown org, before anything
/// else is said) with a person's token: an agent token never changes who may confirm.
pub(crate) async fn member_in_person(state: &AppState, caller: &Caller, org_id: &str) -> Result<Role, ApiError> {
    let role = state.bank.member_role(&caller.user.id, org_id).await?.ok_or(ApiError::OrganizationNotFound)?;
    if caller.kind == TokenKind::Agent {
        return Err(ApiError::AgentTokenCannotConfirm);
    }
    Ok(role)
}

/// The org's members.
#[utoipa::path(
    get, path = "/v1/orgs/{id}/members", operation_id = "getOrgMembers", tag = "Teams",
    summary = "The org's members (owners first, then admins, then members, each by email) and the caller's own role. Admins and owners, with a person's token.",
    params(("id" = String, Path, description = "org_… id")),
    responses(
        (status = 200, description = "The members", body = OrgMembersResponse),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token, or a member (org_role_required)", body = ErrorBody),
        (status = 404, description = "Organization not found (or not a member)", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn org_members(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<OrgMembersResponse>, ApiError> {
    let Ok(Path(org_id)) = id else { return Err(ApiError::OrganizationNotFound) };
    member_in_person(&state, &caller, &org_id).await?;
    Ok(Json(state.bank.members_for(&caller.user.id, &org_id).await?))
}

/// Change a member's role.
#[utoipa::path(
    put, path = "/v1/orgs/{id}/members/{userId}", operation_id = "putOrgMember", tag = "Teams",
    summary = "Give a member a role: {role: owner|admin|member}. Owners change any role; admins move people between member and admin. An org keeps one owner at least (409 org_needs_owner). Answers the members as they are now.",
    params(("id" = String, Path, description = "org_… id"), ("userId" = String, Path, description = "usr_… id")),
    request_body = ChangeRoleRequest,
    responses(
        (status = 200, description = "The members now", body = OrgMembersResponse),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token; a member, or an admin touching an owner's role (org_role_required)", body = ErrorBody),
        (status = 404, description = "Organization not found (organization_not_found), or the user is not a member (member_not_found)", body = ErrorBody),
        (status = 409, description = "It would leave the org without an owner (org_needs_owner); nothing changed", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn put_org_member(
    State(state): State<AppState>,
    caller: Caller,
    ids: Result<Path<(String, String)>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<OrgMembersResponse>, ApiError> {
    let Ok(Path((org_id, member))) = ids else { return Err(ApiError::OrganizationNotFound) };
    let request: ChangeRoleRequest = parse_object(&body_bytes(body)?).map_err(ApiError::InvalidRequest)?;
    member_in_person(&state, &caller, &org_id).await?;
    if !state.bank.change_role_by(&caller.user.id, &org_id, &member, request.role).await? {
        return Err(ApiError::MemberNotFound);
    }
    Ok(Json(state.bank.members_for(&caller.user.id, &org_id).await?))
}

/// Remove a member.
#[utoipa::path(
    delete, path = "/v1/orgs/{id}/members/{userId}", operation_id = "deleteOrgMember", tag = "Teams",
    summary = "Remove a member from the org: their tokens stop reaching it at once; their own memories stay theirs and the team memories they saved stay the org's. Owners remove anyone, admins members and admins; anyone may leave. An org keeps one owner at least (409 org_needs_owner).",
    params(("id" = String, Path, description = "org_… id"), ("userId" = String, Path, description = "usr_… id")),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token; a member removing someone else, or an admin removing an owner (org_role_required)", body = ErrorBody),
        (status = 404, description = "Organization not found, or the user is not a member (member_not_found)", body = ErrorBody),
        (status = 409, description = "The org's last owner (org_needs_owner); nothing changed", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn delete_org_member(
    State(state): State<AppState>,
    caller: Caller,
    ids: Result<Path<(String, String)>, PathRejection>,
) -> Result<StatusCode, ApiError> {
    let Ok(Path((org_id, member))) = ids else { return Err(ApiError::OrganizationNotFound) };
    member_in_person(&state, &caller, &org_id).await?;
    if state.bank.remove_member_by(&caller.user.id, &org_id, &member).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::MemberNotFound)
    }
}

/// The org's policy.
#[utoipa::path(
    get, path = "/v1/orgs/{id}/policy", operation_id = "getOrgPolicy", tag = "Teams",
    summary = "The org's policy, for any member (agent tokens too): memoryEnabled (its kill switch), agentsMayPropose (to the team bank), maxMemories (the team bank's cap, or null).",
    params(("id" = String, Path, description = "org_… id")),
    responses(
        (status = 200, description = "The policy", body = OrgPolicy),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Organization not found (or not a member)", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn get_org_policy(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<OrgPolicy>, ApiError> {
    let Ok(Path(org_id)) = id else { return Err(ApiError::OrganizationNotFound) };
    Ok(Json(state.bank.policy_for(&caller.user.id, &org_id).await?))
}

/// Set the org's policy.
#[utoipa::path(
    put, path = "/v1/orgs/{id}/policy", operation_id = "putOrgPolicy", tag = "Teams",
    summary = "Replace the org's policy: {memoryEnabled, agentsMayPropose, maxMemories (null or absent: no cap of its own)}. Owners, with a person's token. Answers the policy now in force.",
    params(("id" = String, Path, description = "org_… id")),
    request_body = OrgPolicy,
    responses(
        (status = 200, description = "The policy now", body = OrgPolicy),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token, or not an owner (org_role_required)", body = ErrorBody),
        (status = 404, description = "Organization not found (or not a member)", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn put_org_policy(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<OrgPolicy>, ApiError> {
    let Ok(Path(org_id)) = id else { return Err(ApiError::OrganizationNotFound) };
    let policy: OrgPolicy = parse_object(&body_bytes(body)?).map_err(ApiError::InvalidRequest)?;
    member_in_person(&state, &caller, &org_id).await?;
    Ok(Json(state.bank.set_policy_by(&caller.user.id, &org_id, &policy).await?))
}
