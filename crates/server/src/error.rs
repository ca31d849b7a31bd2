//! The one error type of the HTTP layer and its mapping to status + JSON body.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use memory_bank_contract::{ErrorBody, ErrorCode, FieldError};
use memory_bank_contract::gate::Refused;
use memory_bank_contract::wire::{MemoryVersion, ProposalStatus};
use memory_bank_store::{ProposalError, StoreError};

/// Everything a handler can fail with. Converted to a response in one place.
#[derive(Debug)]
pub enum ApiError {
    /// 401: no, unknown or revoked token.
    Unauthorized,
    /// 404: org header missing, org unknown, or caller not a member.
    OrganizationNotFound,
    /// 404: the memory is not the caller's to see (whatever the reason).
    MemoryNotFound,
    /// 404: the proposal is not the caller's to see (whatever the reason).
    ProposalNotFound,
    /// 409: the proposal was decided already or expired; says which.
    ProposalNotPending(ProposalStatus),
    /// 422: a field looks like a secret.
    LooksLikeSecret(Vec<memory_bank_contract::secrets::SecretFinding>),
    /// 409: an edit or delete proposal's memory changed since it was proposed.
    MemoryChanged {
        /// What the proposal was made against.
        proposed_against: MemoryVersion,
        /// The memory now.
        memory_now: MemoryVersion,
    },
    /// 409: the person has as many pending proposals as the service keeps.
    TooManyProposals {
        /// The cap.
        limit: u32,
    },
    /// 403: an agent token tried to save, accept, reject or delete.
    AgentTokenCannotConfirm,
    /// 400 with details.
    InvalidRequest(Vec<FieldError>),
    /// 413.
    PayloadTooLarge,
    /// 404 for unknown routes.
    NotFound,
    /// 405.
    MethodNotAllowed,
    /// 408: the body did not arrive in time.
    RequestTimeout,
    /// 414: the request target is longer than [`crate::guards::MAX_URI_BYTES`].
    UriTooLong,
    /// 431: the headers are larger than [`crate::guards::MAX_HEADER_BYTES`].
    HeadersTooLarge,
    /// 403: a `Host` this service does not answer for.
    HostNotAllowed,
    /// 403: an `Origin` of another site than this service's.
    OriginNotAllowed,
    /// 401: `/metrics` without a token was asked through a proxy (`serve --metrics` on
    /// loopback serves local scrapers only).
    MetricsNeedToken,
    /// 500: a fault in the service itself (a handler panicked).
    Internal,
    /// 404: the user is not a member of the org.
    MemberNotFound,
    /// 429: this token sent more requests than the limit; retry after this many seconds.
    RateLimited {
        /// Whole seconds until the next request is allowed (at least 1).
        retry_after_secs: u64,
    },
    /// A storage failure: 503 when the database is unreachable or the index is
    /// missing, 500 otherwise.
    Store(StoreError),
}

impl From<ProposalError> for ApiError {
    fn from(err: ProposalError) -> Self {
        match err {
            ProposalError::NotFound => ApiError::ProposalNotFound,
            ProposalError::NotPending(status) => ApiError::ProposalNotPending(status),
            ProposalError::MemoryNotFound => ApiError::MemoryNotFound,
            ProposalError::Refused(refused) => refused.into(),
            ProposalError::MemoryChanged { proposed_against, memory_now } => ApiError::MemoryChanged { proposed_against, memory_now },
            ProposalError::TooMany { limit } => ApiError::TooManyProposals { limit },
            ProposalError::Store(err) => err.into(),
        }
    }
}

/// What the gate refused: 400 for limits and characters, 422 for a secret.
impl From<Refused> for ApiError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::Invalid(details) => ApiError::InvalidRequest(details),
            Refused::LooksLikeSecret(found) => ApiError::LooksLikeSecret(found),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Refused(refused) => refused.into(),
            // What a memory route's bank call finds missing is the caller's membership of
            // the org (removed since the extractor checked): the 404 of an unknown org.
            StoreError::NotFound(_) => ApiError::OrganizationNotFound,
            other => ApiError::Store(other),
        }
    }
}

/// A sentence as an error message quotes it: enough to recognise, never a whole page.
fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(200).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    format!("“{shown}”")
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let kind = match &self {
            ApiError::LooksLikeSecret(found) => found.first().map(|f| f.kind.to_owned()),
            _ => None,
        };
        let (status, code, details) = match self {
            ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, vec![]),
            ApiError::OrganizationNotFound => (StatusCode::NOT_FOUND, ErrorCode::OrganizationNotFound, vec![]),
            ApiError::MemoryNotFound => (StatusCode::NOT_FOUND, ErrorCode::MemoryNotFound, vec![]),
            ApiError::ProposalNotFound => (StatusCode::NOT_FOUND, ErrorCode::ProposalNotFound, vec![]),
            ApiError::ProposalNotPending(status) => (
                StatusCode::CONFLICT,
                ErrorCode::ProposalNotPending,
                vec![FieldError::new("status", format!("the proposal is {} already", status.as_str()))],
            ),
            // Well-formed, refused for what it says: 422, not 400.
            ApiError::LooksLikeSecret(found) => {
                (StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::LooksLikeSecret, memory_bank_contract::secrets::as_details(&found))
            }
            ApiError::MemoryChanged { proposed_against, memory_now } => (
                StatusCode::CONFLICT,
                ErrorCode::MemoryChanged,
                vec![FieldError::new(
                    "memoryNow",
                    format!(
                        "the memory changed since this was proposed: it said {} then and says {} now; nothing was changed. \
                         Look at both (GET the proposal: proposedAgainst and memoryNow), then accept again with \
                         \"memoryNow\" set to the version you saw to apply it anyway, or reject it",
                        quoted(&proposed_against.content),
                        quoted(&memory_now.content)
                    ),
                )],
            ),
            ApiError::TooManyProposals { limit } => {
                let body = ErrorBody {
                    limit: Some(u64::from(limit)),
                    details: vec![FieldError::new(
                        "proposal",
                        format!(
                            "{limit} proposals are already waiting for the person in Memory Bank's Inbox; nothing was stored. \
                             Wait until they decide some (proposals expire after {} days)",
                            memory_bank_contract::limits::PROPOSAL_TTL_DAYS
                        ),
                    )],
                    ..ErrorBody::code(ErrorCode::TooManyProposals)
                };
                return (StatusCode::CONFLICT, Json(body)).into_response();
            }
            ApiError::AgentTokenCannotConfirm => (StatusCode::FORBIDDEN, ErrorCode::AgentTokenCannotConfirm, vec![]),
            ApiError::InvalidRequest(details) => (
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidRequest,
                memory_bank_contract::cap_details(details),
            ),
            ApiError::PayloadTooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                vec![],
            ),
            ApiError::NotFound => (StatusCode::NOT_FOUND, ErrorCode::NotFound, vec![]),
            ApiError::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                ErrorCode::MethodNotAllowed,
                vec![],
            ),
            ApiError::RequestTimeout => (
                StatusCode::REQUEST_TIMEOUT,
                ErrorCode::RequestTimeout,
                vec![],
            ),
            ApiError::UriTooLong => (StatusCode::URI_TOO_LONG, ErrorCode::UriTooLong, vec![]),
            ApiError::HeadersTooLarge => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                ErrorCode::HeadersTooLarge,
                vec![],
            ),
            ApiError::HostNotAllowed => (
                StatusCode::FORBIDDEN,
                ErrorCode::HostNotAllowed,
                vec![FieldError::new(
                    "Host",
                    "this service does not answer for this host name (a guard against DNS rebinding); call it by its IP \
                     address or localhost, or start `memory-bank serve` with --allowed-host NAME to answer for NAME",
                )],
            ),
            ApiError::OriginNotAllowed => (
                StatusCode::FORBIDDEN,
                ErrorCode::OriginNotAllowed,
                vec![FieldError::new(
                    "Origin",
                    "web pages of another site may not call this service; call it from a program (no Origin header), \
                     or start `memory-bank serve` with --allowed-host NAME to accept pages served from NAME",
                )],
            ),
            ApiError::MetricsNeedToken => (
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                vec![FieldError::new(
                    "Authorization",
                    "this request came through a proxy, and these metrics are served without a token to this machine only; \
                     start `memory-bank serve` with --metrics-token-file FILE and send that token as Authorization: Bearer, \
                     or scrape 127.0.0.1 from this machine",
                )],
            ),
            ApiError::Internal => (
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                vec![],
            ),
            ApiError::Store(StoreError::QuotaExceeded { limit }) => {
                let body = ErrorBody { limit: Some(limit), ..ErrorBody::code(ErrorCode::QuotaExceeded) };
                return (StatusCode::CONFLICT, Json(body)).into_response();
            }
            ApiError::RateLimited { retry_after_secs } => {
                let headers = [(axum::http::header::RETRY_AFTER, retry_after_secs.to_string())];
                return (StatusCode::TOO_MANY_REQUESTS, headers, Json(ErrorBody::code(ErrorCode::RateLimited))).into_response();
            }
            ApiError::Store(StoreError::TeamRefused(refusal)) => {
                (StatusCode::FORBIDDEN, refusal.code(), vec![FieldError::new("orgId", refusal.describe())])
            }
            ApiError::Store(StoreError::Conflict(why)) => (StatusCode::CONFLICT, ErrorCode::OrgNeedsOwner, vec![FieldError::new("role", why)]),
            ApiError::MemberNotFound => (StatusCode::NOT_FOUND, ErrorCode::MemberNotFound, vec![]),
            ApiError::Store(err) => match err {
                StoreError::Unavailable(_) | StoreError::Contended(_) | StoreError::SearchIndexMissing { .. } => {
                    tracing::error!(error = %err, "storage unavailable");
                    (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::ServiceUnavailable, vec![])
                }
                other => {
                    tracing::error!(error = %other, "storage failure");
                    (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, vec![])
                }
            },
        };
        (status, Json(ErrorBody { details, kind, ..ErrorBody::code(code) })).into_response()
    }
}

/// The error code an answer with this status carries when nothing more specific is
/// known: errors made outside the handlers (by axum's extractors or by hyper) get the
/// JSON shape through this.
pub(crate) fn code_for_status(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::BAD_REQUEST => ErrorCode::InvalidRequest,
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::FORBIDDEN => ErrorCode::HostNotAllowed,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::NOT_ACCEPTABLE => ErrorCode::NotAcceptable,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::REQUEST_TIMEOUT => ErrorCode::RequestTimeout,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::URI_TOO_LONG => ErrorCode::UriTooLong,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => ErrorCode::HeadersTooLarge,
        StatusCode::SERVICE_UNAVAILABLE => ErrorCode::ServiceUnavailable,
        _ => ErrorCode::Internal,
    }
}
