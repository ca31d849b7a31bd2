//! Error codes and the JSON error body every non-2xx response carries.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Machine-readable error code, serialized as the `error` field. One enum for every door:
/// the HTTP API answers the codes down to [`ErrorCode::Internal`]; the desktop app's
/// commands answer those too, plus the ones after it, which never leave the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Missing, unknown or revoked bearer token (401).
    Unauthorized,
    /// Missing `X-Org-Id`, unknown org, or the caller is not a member (404).
    OrganizationNotFound,
    /// The memory does not exist or is not the caller's (404).
    MemoryNotFound,
    /// The proposal does not exist or is not the caller's (404).
    ProposalNotFound,
    /// The proposal was already accepted, rejected, or has expired (409).
    ProposalNotPending,
    /// An edit or delete proposal's memory changed since the agent proposed it; the
    /// proposal's `proposedAgainst` and `memoryNow` show both (409). Nothing changed.
    MemoryChanged,
    /// The person has as many pending proposals as the service keeps; they decide some
    /// in the Inbox, or the oldest expire (409). Nothing was stored.
    TooManyProposals,
    /// An agent token may search, list and propose, but saving, accepting, rejecting
    /// and deleting need the person (403).
    AgentTokenCannotConfirm,
    /// Team memories: the action needs an admin or owner of the org (403).
    OrgRoleRequired,
    /// The org turned memory off, its kill switch (403).
    OrgMemoryDisabled,
    /// The org does not let agents propose to its team bank (403).
    OrgAgentsMayNotPropose,
    /// The user is not a member of the org (404).
    MemberNotFound,
    /// The change would leave the org without an owner; make another member an owner
    /// first (409). Nothing changed.
    OrgNeedsOwner,
    /// The request failed validation; `details` says where (400).
    InvalidRequest,
    /// A field looks like it holds a secret (an API key, a token, a password);
    /// `kind` says what it looks like and `details` names the field (422).
    LooksLikeSecret,
    /// The caller has as many memories as this service allows; `limit` says how many
    /// (409). Nothing was saved.
    QuotaExceeded,
    /// Too many requests with this token; retry after the `Retry-After` seconds (429).
    RateLimited,
    /// The request body is larger than the limit (413).
    PayloadTooLarge,
    /// No such route (404).
    NotFound,
    /// The route exists but not with this method (405).
    MethodNotAllowed,
    /// The request head or body did not arrive in time (408).
    RequestTimeout,
    /// The request line's target is longer than the service reads (414).
    UriTooLong,
    /// The request's headers are larger than the service reads (431).
    HeadersTooLarge,
    /// The `Host` header names a host this service does not answer for (403), so a web
    /// page cannot reach it through DNS rebinding: a service on loopback answers only its
    /// own loopback address, one on a network address IP addresses, `localhost` and the
    /// names `serve --allowed-host` gives. `details` says what to do.
    HostNotAllowed,
    /// The `Origin` header names another site than this service's (403): a web page
    /// elsewhere may not call it. `details` says what to do.
    OriginNotAllowed,
    /// The `Accept` header leaves out a type the route answers with (406); `details`
    /// says what to send.
    NotAcceptable,
    /// The body's `Content-Type` is not one the route reads (415); `details` says which.
    UnsupportedMediaType,
    /// No open MCP session has the `Mcp-Session-Id` sent: it ended, the server
    /// restarted, or it is another caller's (404). Start a new one with `initialize`.
    McpSessionNotFound,
    /// The database cannot be reached right now; retry later (503).
    ServiceUnavailable,
    /// An unexpected server fault (500).
    Internal,
    // The desktop app's own codes (never an HTTP status).
    /// The memory service could not be reached (offline, refused, timed out).
    Unreachable,
    /// The OS keyring refused to read, store or delete a team server's token.
    Keyring,
    /// Not signed in, or no team server is set up.
    NoAccount,
    /// No listed agent session has that id.
    SessionNotFound,
    /// The agent session has no messages yet.
    NoMessages,
    /// No session id was given and no session is open.
    NoOpenSession,
    /// The session index itself failed.
    Index,
    /// An agent's config file cannot be read, parsed or written; it was not changed.
    AgentConfig,
    /// An agent's config file changed since its diff was shown: plan again.
    AgentConfigChanged,
    /// The `memory-bank` binary that agents should run cannot be found.
    CliNotFound,
    /// The file the person chose to export to or import from cannot be written or read.
    File,
}

impl ErrorCode {
    /// The wire spelling, e.g. `memory_not_found`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::OrganizationNotFound => "organization_not_found",
            ErrorCode::MemoryNotFound => "memory_not_found",
            ErrorCode::ProposalNotFound => "proposal_not_found",
            ErrorCode::ProposalNotPending => "proposal_not_pending",
            ErrorCode::MemoryChanged => "memory_changed",
            ErrorCode::TooManyProposals => "too_many_proposals",
            ErrorCode::AgentTokenCannotConfirm => "agent_token_cannot_confirm",
            ErrorCode::OrgRoleRequired => "org_role_required",
            ErrorCode::OrgMemoryDisabled => "org_memory_disabled",
            ErrorCode::OrgAgentsMayNotPropose => "org_agents_may_not_propose",
            ErrorCode::MemberNotFound => "member_not_found",
            ErrorCode::OrgNeedsOwner => "org_needs_owner",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::LooksLikeSecret => "looks_like_secret",
            ErrorCode::QuotaExceeded => "quota_exceeded",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::UriTooLong => "uri_too_long",
            ErrorCode::HeadersTooLarge => "headers_too_large",
            ErrorCode::HostNotAllowed => "host_not_allowed",
            ErrorCode::OriginNotAllowed => "origin_not_allowed",
            ErrorCode::NotAcceptable => "not_acceptable",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::McpSessionNotFound => "mcp_session_not_found",
            ErrorCode::ServiceUnavailable => "service_unavailable",
            ErrorCode::Internal => "internal",
            ErrorCode::Unreachable => "unreachable",
            ErrorCode::Keyring => "keyring",
            ErrorCode::NoAccount => "no_account",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::NoMessages => "no_messages",
            ErrorCode::NoOpenSession => "no_open_session",
            ErrorCode::Index => "index",
            ErrorCode::AgentConfig => "agent_config",
            ErrorCode::AgentConfigChanged => "agent_config_changed",
            ErrorCode::CliNotFound => "cli_not_found",
            ErrorCode::File => "file",
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

/// Most `details` one error body lists; a small request must never produce a huge
/// answer, whatever it holds.
pub const MAX_ERROR_DETAILS: usize = 20;

/// `details` cut to [`MAX_ERROR_DETAILS`] entries, the last one saying how many more
/// problems there were.
pub fn cap_details(mut details: Vec<FieldError>) -> Vec<FieldError> {
    if details.len() > MAX_ERROR_DETAILS {
        let more = details.len() - (MAX_ERROR_DETAILS - 1);
        details.truncate(MAX_ERROR_DETAILS - 1);
        details.push(FieldError::new(
            "body",
            format!("and {more} more problems; fix these first"),
        ));
    }
    details
}

/// The body of every error response: `{"error": code, "details"?: [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// The error code.
    pub error: ErrorCode,
    /// Validation details for `invalid_request` (at most [`MAX_ERROR_DETAILS`]); for a
    /// few other codes (`host_not_allowed`, `origin_not_allowed`) one entry saying what
    /// to do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<FieldError>,
    /// For `looks_like_secret`: what the first finding looks like ("GitHub token").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// For `quota_exceeded`: the most memories the caller may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

impl ErrorBody {
    /// A body with no details.
    pub fn code(error: ErrorCode) -> Self {
        Self { error, details: Vec::new(), kind: None, limit: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_is_the_serde_spelling() {
        let every = [
            ErrorCode::Unauthorized, ErrorCode::OrganizationNotFound, ErrorCode::MemoryNotFound, ErrorCode::ProposalNotFound,
            ErrorCode::ProposalNotPending, ErrorCode::MemoryChanged, ErrorCode::TooManyProposals, ErrorCode::AgentTokenCannotConfirm, ErrorCode::InvalidRequest,
            ErrorCode::LooksLikeSecret, ErrorCode::QuotaExceeded, ErrorCode::RateLimited, ErrorCode::PayloadTooLarge, ErrorCode::NotFound, ErrorCode::MethodNotAllowed,
            ErrorCode::RequestTimeout, ErrorCode::UriTooLong, ErrorCode::HeadersTooLarge, ErrorCode::HostNotAllowed,
            ErrorCode::OriginNotAllowed, ErrorCode::NotAcceptable, ErrorCode::UnsupportedMediaType, ErrorCode::McpSessionNotFound,
            ErrorCode::ServiceUnavailable, ErrorCode::Internal, ErrorCode::Unreachable, ErrorCode::Keyring,
            ErrorCode::NoAccount, ErrorCode::SessionNotFound, ErrorCode::NoMessages, ErrorCode::NoOpenSession,
            ErrorCode::Index, ErrorCode::AgentConfig, ErrorCode::AgentConfigChanged, ErrorCode::CliNotFound,
            ErrorCode::OrgRoleRequired, ErrorCode::OrgMemoryDisabled, ErrorCode::OrgAgentsMayNotPropose,
            ErrorCode::MemberNotFound, ErrorCode::OrgNeedsOwner,
        ];
        for code in every {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }

    #[test]
    fn details_are_capped_with_a_count_of_the_rest() {
        let many: Vec<FieldError> = (0..1000)
            .map(|i| FieldError::new(format!("tags[{i}]"), "empty"))
            .collect();
        let capped = cap_details(many);
        assert_eq!(capped.len(), MAX_ERROR_DETAILS);
        assert_eq!(
            capped[MAX_ERROR_DETAILS - 2].path,
            format!("tags[{}]", MAX_ERROR_DETAILS - 2)
        );
        assert!(capped
            .last()
            .unwrap()
            .message
            .starts_with(&format!("and {} more", 1000 - (MAX_ERROR_DETAILS - 1))));
        let few = vec![FieldError::new("q", "empty")];
        assert_eq!(cap_details(few.clone()), few);
    }
}
