//! Middleware that holds for every route: the `Host` and `Origin` check
//! ([`crate::host_check`]), the request-target and body limits, and the rule that every
//! error is the API's JSON shape, whichever layer made it.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use memory_bank_contract::limits::MAX_BODY_BYTES;
use memory_bank_contract::{ErrorBody, FieldError};

use crate::error::code_for_status;
pub use crate::host_check::{AllowedHost, HostCheck};
use crate::ApiError;

/// Longest request target (path and query) read, in bytes; longer is 414. The longest
/// legitimate one, a 512-character search query percent-encoded, is under 6 KiB.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// Most header bytes (names and values) read; more is 431. Hyper's own bound, its
/// read buffer, is loose: a read may run past it.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Bounds the request target and reads the body (at most [`MAX_BODY_BYTES`], within
/// the body-read timeout) before any handler runs, so no handler waits on a slow client.
pub(crate) async fn bound_request(
    State(timeout): State<Duration>,
    request: Request,
    next: Next,
) -> Response {
    let target_len = request
        .uri()
        .path_and_query()
        .map_or(0, |pq| pq.as_str().len());
    if target_len > MAX_URI_BYTES {
        return ApiError::UriTooLong.into_response();
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return ApiError::HeadersTooLarge.into_response();
    }
    let (parts, body) = request.into_parts();
    let limit = body_limit(&parts.method, parts.uri.path());
    let read = axum::body::to_bytes(body, limit + 1);
    let bytes: Bytes = match tokio::time::timeout(timeout, read).await {
        Err(_) => return ApiError::RequestTimeout.into_response(),
        Ok(Err(_)) => return ApiError::PayloadTooLarge.into_response(),
        Ok(Ok(bytes)) if bytes.len() > limit => {
            return ApiError::PayloadTooLarge.into_response()
        }
        Ok(Ok(bytes)) => bytes,
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The most body bytes a request may send: an import file may be large, every other
/// body is one JSON object.
pub(crate) fn body_limit(method: &axum::http::Method, path: &str) -> usize {
    if method == axum::http::Method::POST && path == "/v1/import" {
        memory_bank_contract::transfer::MAX_IMPORT_BYTES
    } else {
        MAX_BODY_BYTES
    }
}

/// Gives every error answer the JSON shape: errors made by axum's extractors and
/// fallbacks (plain text) are rewritten here, keeping their status.
pub(crate) async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), 4096)
        .await
        .unwrap_or_default();
    let text: String = String::from_utf8_lossy(&text).chars().take(200).collect();
    let mut body = ErrorBody::code(code_for_status(status));
    if status == axum::http::StatusCode::BAD_REQUEST && !text.trim().is_empty() {
        body.details.push(FieldError::new("request", text.trim()));
    }
    (status, axum::Json(body)).into_response()
}

/// The answer to a handler that panicked: a JSON 500, the process keeps serving.
pub(crate) fn panic_response(_panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked; answered 500");
    ApiError::Internal.into_response()
}
