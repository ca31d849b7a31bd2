//! Authentication: [`resolve`] looks the bearer token up once per request (before the
//! rate limit, which counts it by its id), and the extractors read the answer and check
//! the org.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::Extensions;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use memory_bank_contract::wire::User;
use memory_bank_store::{Bank, TokenKind, TokenOwner};

use crate::{ApiError, AppState};

/// Header naming the org the caller acts in.
pub const ORG_HEADER: &str = "x-org-id";

/// The token of `Authorization: Bearer <token>`, if the request has one.
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get(AUTHORIZATION)?
        .to_str()
        .ok()?
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|token| !token.is_empty())
}

/// Who the request's bearer token belongs to: `None` without a token or for one that is
/// not live. The API router's `resolve` middleware puts it in every request's
/// extensions, ahead of the rate limit; other middleware (the MCP routes') reads it with
/// [`Authenticated::of`] instead of asking the bank again.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Option<TokenOwner>);

impl Authenticated {
    /// The owner found for this request; `None` also when no lookup ran.
    pub fn of(extensions: &Extensions) -> Option<&TokenOwner> {
        extensions.get::<Authenticated>().and_then(|a| a.0.as_ref())
    }
}

/// Looks the bearer token up (one query; none without a token) and records the answer
/// as [`Authenticated`]. A database that cannot answer is 503 here.
pub(crate) async fn resolve(State(bank): State<Bank>, mut request: Request, next: Next) -> Response {
    let owner = match bearer_token(request.headers()) {
        None => None,
        Some(token) => match bank.authenticate(token).await {
            Ok(owner) => owner,
            Err(err) => return ApiError::Store(err).into_response(),
        },
    };
    request.extensions_mut().insert(Authenticated(owner));
    next.run(request).await
}

/// The authenticated caller (`Authorization: Bearer <token>`), or 401.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Who the token belongs to.
    pub user: User,
    /// What the token may do.
    pub kind: TokenKind,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let owner = match parts.extensions.get::<Authenticated>() {
            Some(Authenticated(owner)) => owner.clone(),
            // A router without `resolve` in front (none is built so, but the extractor
            // must not let a request through unchecked).
            None => match bearer_token(&parts.headers) {
                Some(token) => state.bank.authenticate(token).await?,
                None => None,
            },
        };
        let owner = owner.ok_or(ApiError::Unauthorized)?;
        Ok(Caller {
            user: owner.user,
            kind: owner.kind,
        })
    }
}

/// An authenticated caller acting in an org they belong to (`X-Org-Id`).
/// 401 without a valid token; 404 `organization_not_found` for a missing header,
/// an unknown org or a non-member, indistinguishably.
#[derive(Debug, Clone)]
pub struct OrgCaller {
    /// The caller.
    pub user: User,
    /// The org id from the header, membership checked.
    pub org_id: String,
    /// What the token may do.
    pub kind: TokenKind,
}

impl FromRequestParts<AppState> for OrgCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Caller { user, kind } = Caller::from_request_parts(parts, state).await?;
        let org_id = parts
            .headers
            .get(ORG_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|org| !org.is_empty() && org.len() <= 64)
            .ok_or(ApiError::OrganizationNotFound)?
            .to_owned();
        if !state.bank.is_member(&user.id, &org_id).await? {
            return Err(ApiError::OrganizationNotFound);
        }
        Ok(OrgCaller { user, org_id, kind })
    }
}

impl OrgCaller {
    /// Refuses agent tokens: saving, accepting, rejecting and deleting need the person,
    /// whatever door the request came through.
    pub fn require_person(&self) -> Result<(), ApiError> {
        if self.kind == TokenKind::Agent {
            return Err(ApiError::AgentTokenCannotConfirm);
        }
        Ok(())
    }
}
