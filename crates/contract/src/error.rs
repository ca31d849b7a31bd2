//! Error codes and the JSON error body every non-2xx response carries.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Machine-readable error code, serialized as the `error` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Missing, unknown or revoked bearer token (401).
    Unauthorized,
    /// Missing `X-Org-Id`, unknown org, or the caller is not a member (404).
    OrganizationNotFound,
    /// The memory does not exist or is not the caller's (404).
    MemoryNotFound,
    /// The request failed validation; `details` says where (400).
    InvalidRequest,
    /// The request body is larger than the limit (413).
    PayloadTooLarge,
    /// No such route (404).
    NotFound,
    /// The route exists but not with this method (405).
    MethodNotAllowed,
    /// The database cannot be reached right now; retry later (503).
    ServiceUnavailable,
    /// An unexpected server fault (500).
    Internal,
}

impl ErrorCode {
    /// The wire spelling, e.g. `memory_not_found`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::OrganizationNotFound => "organization_not_found",
            ErrorCode::MemoryNotFound => "memory_not_found",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::ServiceUnavailable => "service_unavailable",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One validation problem: where (`path`, e.g. `contexts[3].snippet`) and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FieldError {
    /// JSON path of the offending field, or the query parameter name.
    pub path: String,
    /// Human-readable explanation, saying what would be accepted.
    pub message: String,
}

impl FieldError {
    /// Builds a field error.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), message: message.into() }
    }
}

/// The body of every error response: `{"error": code, "details"?: [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// The error code.
    pub error: ErrorCode,
    /// Validation details; present only for `invalid_request`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<FieldError>,
}
