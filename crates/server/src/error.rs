//! The one error type of the HTTP layer and its mapping to status + JSON body.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use memory_bank_contract::{ErrorBody, ErrorCode, FieldError};
use memory_bank_store::StoreError;

/// Everything a handler can fail with. Converted to a response in one place.
#[derive(Debug)]
pub enum ApiError {
    /// 401: no, unknown or revoked token.
    Unauthorized,
    /// 404: org header missing, org unknown, or caller not a member.
    OrganizationNotFound,
    /// 404: the memory is not the caller's to see (whatever the reason).
    MemoryNotFound,
    /// 400 with details.
    InvalidRequest(Vec<FieldError>),
    /// 413.
    PayloadTooLarge,
    /// 404 for unknown routes.
    NotFound,
    /// 405.
    MethodNotAllowed,
    /// A storage failure: 503 when the database is unreachable or the index is
    /// missing, 500 otherwise.
    Store(StoreError),
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        ApiError::Store(err)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, details) = match self {
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, vec![]),
            ApiError::OrganizationNotFound => (StatusCode::NOT_FOUND, ErrorCode::OrganizationNotFound, vec![]),
            ApiError::MemoryNotFound => (StatusCode::NOT_FOUND, ErrorCode::MemoryNotFound, vec![]),
            ApiError::InvalidRequest(details) => (StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest, details),
            ApiError::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::PayloadTooLarge, vec![]),
            ApiError::NotFound => (StatusCode::NOT_FOUND, ErrorCode::NotFound, vec![]),
            ApiError::MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, ErrorCode::MethodNotAllowed, vec![]),
            ApiError::Store(err) => match err {
                StoreError::Unavailable(_) | StoreError::SearchIndexMissing { .. } => {
                    tracing::error!(error = %err, "storage unavailable");
                    (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::ServiceUnavailable, vec![])
                }
                other => {
                    tracing::error!(error = %other, "storage failure");
                    (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, vec![])
                }
            },
        };
        (status, Json(ErrorBody { error: code, details })).into_response()
    }
}
