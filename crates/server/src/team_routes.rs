//! Team routes (`docs/teams.md`): an org's audit log, read by its admins and owners.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::Json;
use memory_bank_contract::teams::{AuditPage, TeamRefusal};
use memory_bank_contract::{ErrorBody, FieldError};
use memory_bank_store::teams::MAX_AUDIT_PAGE;
use memory_bank_store::{StoreError, TokenKind};

use crate::auth::Caller;
use crate::routes::{params, Params};
use crate::{ApiError, AppState};

/// Lines a page holds when `limit` is not given.
const DEFAULT_AUDIT_PAGE: u32 = 50;

/// An org's audit log, newest first.
#[utoipa::path(
    get, path = "/v1/orgs/{id}/audit", operation_id = "getOrgAudit", tag = "Teams",
    summary = "The org's audit log, newest first: who proposed, accepted, rejected, saved, edited or deleted which team memory, and when; ids and lengths only, never content. Admins and owners, with a person's token. Pass nextBefore as before for the next page.",
    params(
        ("id" = String, Path, description = "org_… id"),
        ("limit" = Option<u32>, Query, description = "1-200, default 50"),
        ("before" = Option<i64>, Query, description = "nextBefore from the previous page"),
    ),
    responses(
        (status = 200, description = "One page", body = AuditPage),
        (status = 400, description = "Invalid request", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token, or a member who is not an admin or owner (org_role_required)", body = ErrorBody),
        (status = 404, description = "Organization not found (or not a member)", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn org_audit(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<String>, PathRejection>,
    query: Params,
) -> Result<Json<AuditPage>, ApiError> {
    let Ok(Path(org_id)) = id else { return Err(ApiError::OrganizationNotFound) };
    let query = params(query)?;
    let (limit, before) = page(query.get("limit").map(String::as_str), query.get("before").map(String::as_str))?;
    // Not a member, or no such org: the same 404, before anything else is said.
    let role = state.bank.member_role(&caller.user.id, &org_id).await?.ok_or(ApiError::OrganizationNotFound)?;
    if caller.kind == TokenKind::Agent {
        return Err(ApiError::AgentTokenCannotConfirm);
    }
    if !role.may_read_audit() {
        return Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin).into());
    }
    let mut entries = state.bank.org_audit(&org_id, before, limit + 1).await?;
    let more = entries.len() > limit as usize;
    entries.truncate(limit as usize);
    let next_before = more.then(|| entries.last().map(|e| e.seq)).flatten();
    Ok(Json(AuditPage { entries, next_before }))
}

/// `limit` (1–[`MAX_AUDIT_PAGE`]) and `before` (a line's `seq`), with what to send instead.
fn page(limit: Option<&str>, before: Option<&str>) -> Result<(u32, Option<i64>), ApiError> {
    let mut errors = Vec::new();
    let limit = match limit.map(|l| l.trim().parse::<u32>()) {
        None => DEFAULT_AUDIT_PAGE,
        Some(Ok(n)) if (1..=MAX_AUDIT_PAGE).contains(&n) => n,
        Some(_) => {
            errors.push(FieldError::new("limit", format!("limit is a whole number from 1 to {MAX_AUDIT_PAGE}")));
            DEFAULT_AUDIT_PAGE
        }
    };
    let before = match before.map(|b| b.trim().parse::<i64>()) {
        None => None,
        Some(Ok(seq)) if seq > 0 => Some(seq),
        Some(_) => {
            errors.push(FieldError::new("before", "before is nextBefore from a previous page; omit it to start at the newest"));
            None
        }
    };
    if errors.is_empty() {
        Ok((limit, before))
    } else {
        Err(ApiError::InvalidRequest(errors))
    }
}
