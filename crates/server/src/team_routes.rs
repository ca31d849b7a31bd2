//! Team routes (`docs/teams.md`): an org's audit log and its export (the team bank and
//! the log), read by its admins and owners.

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use memory_bank_contract::transfer::ExportedAuditLine;
use memory_bank_contract::validate::Cursor;
use memory_bank_contract::teams::{AuditPage, TeamRefusal};
use memory_bank_contract::{ErrorBody, FieldError};
use memory_bank_store::teams::MAX_AUDIT_PAGE;
use memory_bank_store::{BankKey, StoreError};

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
    admin_in_person(&state, &caller, &org_id).await?;
    let mut entries = state.bank.org_audit(&org_id, before, limit + 1).await?;
    let more = entries.len() > limit as usize;
    entries.truncate(limit as usize);
    let next_before = more.then(|| entries.last().map(|e| e.seq)).flatten();
    Ok(Json(AuditPage { entries, next_before }))
}

/// Export the org's team bank and its audit log.
#[utoipa::path(
    get, path = "/v1/orgs/{id}/export", operation_id = "getOrgExport", tag = "Teams",
    summary = "The org's team bank as NDJSON, newest first (one line per memory, as GET /v1/export writes them, with savedBy and confirmedBy), then its audit log, newest first, one {\"audit\": {...}} line each (ids and lengths only). Admins and owners, with a person's token.",
    params(("id" = String, Path, description = "org_… id")),
    responses(
        (status = 200, description = "Memory lines, then audit lines", body = ExportedAuditLine, content_type = "application/x-ndjson"),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token, or a member who is not an admin or owner (org_role_required)", body = ErrorBody),
        (status = 404, description = "Organization not found (or not a member)", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn org_export(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Ok(Path(org_id)) = id else { return Err(ApiError::OrganizationNotFound) };
    admin_in_person(&state, &caller, &org_id).await?;
    /// Where the walk is: the team bank's pages, then the log's, then done.
    enum Walk {
        Memories(Option<Cursor>),
        Audit(Option<i64>),
        Done,
    }
    // One page per chunk: memory use stays one page however large the bank or log is.
    let pages = futures_util::stream::unfold((state, org_id, Walk::Memories(None)), |(state, org_id, walk)| async move {
        let lines = |items: &[serde_json::Value]| {
            let mut chunk = Vec::new();
            for item in items {
                chunk.extend(item.to_string().into_bytes());
                chunk.push(b'\n');
            }
            Bytes::from(chunk)
        };
        let stopped = |err: StoreError| {
            tracing::error!(error = %err, "org export stopped part way");
            Err(std::io::Error::other("the export could not be completed"))
        };
        match walk {
            Walk::Done => None,
            Walk::Memories(cursor) => match state.bank.export_page_of(BankKey::Team(&org_id), cursor.as_ref()).await {
                Ok((page, next)) => {
                    let items: Vec<serde_json::Value> = page.iter().map(|m| serde_json::to_value(m).unwrap_or_default()).collect();
                    let walk = if next.is_some() { Walk::Memories(next) } else { Walk::Audit(None) };
                    Some((Ok(lines(&items)), (state, org_id, walk)))
                }
                Err(err) => Some((stopped(err), (state, org_id, Walk::Done))),
            },
            Walk::Audit(before) => match state.bank.org_audit(&org_id, before, MAX_AUDIT_PAGE).await {
                Ok(entries) => {
                    let next = (entries.len() == MAX_AUDIT_PAGE as usize).then(|| entries.last().map(|e| e.seq)).flatten();
                    let items: Vec<serde_json::Value> = entries
                        .into_iter()
                        .map(|audit| serde_json::to_value(ExportedAuditLine { audit }).unwrap_or_default())
                        .collect();
                    let walk = if next.is_some() { Walk::Audit(next) } else { Walk::Done };
                    Some((Ok(lines(&items)), (state, org_id, walk)))
                }
                Err(err) => Some((stopped(err), (state, org_id, Walk::Done))),
            },
        }
    });
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(pages)).into_response())
}

/// The caller is an admin or owner of the org with a person's token: anyone outside it
/// gets the 404 of an unknown org first, an agent token 403, a member 403 with the code.
async fn admin_in_person(state: &AppState, caller: &Caller, org_id: &str) -> Result<(), ApiError> {
    let role = crate::org_routes::member_in_person(state, caller, org_id).await?;
    if !role.may_read_audit() {
        return Err(StoreError::TeamRefused(TeamRefusal::NeedsAdmin).into());
    }
    Ok(())
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
