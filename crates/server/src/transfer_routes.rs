//! Export and import: `GET /v1/export` streams the caller's memories as NDJSON (one
//! [`ExportedMemory`] per line, newest first, with contexts and revisions), and `POST
//! /v1/import` reads such a file back (up to 64 MiB), checking every line first and
//! importing the good ones with their timestamps and (where free) their ids, as
//! imported: the file's claim of how each was confirmed is kept as `importedFrom`.

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use memory_bank_contract::transfer::{parse_import_line, ExportedMemory, ImportReport, OnConflict};
use memory_bank_contract::validate::Cursor;
use memory_bank_contract::{ErrorBody, FieldError};

use crate::auth::OrgCaller;
use crate::routes::{body_bytes, params, Params};
use crate::{ApiError, AppState};

/// Export every memory.
#[utoipa::path(
    get, path = "/v1/export", operation_id = "getExport", tag = "Memory",
    summary = "Every memory of the caller as NDJSON, newest first: one line per memory with id, content, tags, createdAt, updatedAt, contexts and revisions. POST it back to /v1/import.",
    params(("X-Org-Id" = String, Header, description = "The org the caller acts in")),
    responses(
        (status = 200, description = "One ExportedMemory per line", body = ExportedMemory, content_type = "application/x-ndjson"),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn export(State(state): State<AppState>, caller: OrgCaller) -> Response {
    struct Walk {
        state: AppState,
        user_id: String,
        cursor: Option<Cursor>,
        done: bool,
    }
    let start = Walk { state, user_id: caller.user.id, cursor: None, done: false };
    // One page per chunk: memory use stays one page however large the bank is.
    let pages = futures_util::stream::unfold(start, |mut walk| async move {
        if walk.done {
            return None;
        }
        match walk.state.bank.export_page(&walk.user_id, walk.cursor.as_ref()).await {
            Ok((page, next)) => {
                let mut chunk = Vec::new();
                for memory in &page {
                    // Serializing our own types cannot fail.
                    chunk.extend(serde_json::to_vec(memory).unwrap_or_default());
                    chunk.push(b'\n');
                }
                walk.done = next.is_none();
                walk.cursor = next;
                Some((Ok::<_, std::io::Error>(Bytes::from(chunk)), walk))
            }
            Err(err) => {
                tracing::error!(error = %err, "export stopped part way");
                walk.done = true;
                Some((Err(std::io::Error::other("the export could not be completed")), walk))
            }
        }
    });
    ([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(pages)).into_response()
}

/// Import memories.
#[utoipa::path(
    post, path = "/v1/import", operation_id = "postImport", tag = "Memory",
    summary = "Import an export (NDJSON, up to 64 MiB). Every line is checked first (the save limits, the secret check, ids once each, timestamps in order and at most a day ahead); bad lines are reported by number and the good ones imported, timestamps kept, ids kept where free (newIds lists the others), confirmedVia \"import\" with the line's claim kept as importedFrom. onConflict=skip (default) leaves a memory the caller already has; overwrite replaces it. Lines past the memory cap are reported as quota_exceeded.",
    params(
        ("X-Org-Id" = String, Header, description = "The org the caller acts in"),
        ("onConflict" = Option<String>, Query, description = "skip (default) or overwrite"),
    ),
    request_body(content = String, content_type = "application/x-ndjson"),
    responses(
        (status = 200, description = "What became of each line", body = ImportReport),
        (status = 400, description = "A malformed query or a body that is not UTF-8", body = ErrorBody),
        (status = 401, description = "Unauthorized", body = ErrorBody),
        (status = 403, description = "An agent token", body = ErrorBody),
        (status = 404, description = "Organization not found", body = ErrorBody),
        (status = 413, description = "Body over 64 MiB", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn import(
    State(state): State<AppState>,
    caller: OrgCaller,
    query: Params,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<ImportReport>), ApiError> {
    caller.require_person()?;
    let query = params(query)?;
    let on_conflict = match query.get("onConflict").map(String::as_str) {
        None => OnConflict::Skip,
        Some(text) => OnConflict::parse(text).ok_or_else(|| {
            ApiError::InvalidRequest(vec![FieldError::new(
                "onConflict",
                format!("onConflict must be skip or overwrite, got {text:?}"),
            )])
        })?,
    };
    let body = body_bytes(body)?;
    let text = std::str::from_utf8(&body)
        .map_err(|e| ApiError::InvalidRequest(vec![FieldError::new("body", format!("the file is not UTF-8 text: {e}"))]))?;
    let mut report = ImportReport::default();
    let mut lines = Vec::new();
    let now = state.bank.now();
    for (i, line) in text.lines().enumerate() {
        match parse_import_line(i + 1, line, now) {
            Ok(Some(line)) => lines.push(line),
            Ok(None) => {}
            Err(refused) => report.fail(refused),
        }
    }
    let report = state.bank.import(&caller.user.id, &caller.org_id, lines, on_conflict, report).await?;
    Ok((StatusCode::OK, Json(report)))
}
