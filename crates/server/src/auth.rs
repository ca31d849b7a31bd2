//! Extractors that authenticate the caller and check their org.

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use memory_bank_contract::wire::User;
use memory_bank_store::TokenKind;

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
        let token = bearer_token(&parts.headers).ok_or(ApiError::Unauthorized)?;
        let owner = state
            .bank
            .authenticate(token)
            .await?
            .ok_or(ApiError::Unauthorized)?;
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
