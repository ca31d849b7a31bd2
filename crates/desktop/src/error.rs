use memory_bank_client::ClientError;
use memory_bank_contract::ErrorCode;
use serde::Serialize;

/// An error as the UI receives it: a stable code and a readable message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[error("{message}")]
pub struct DesktopError {
    /// Stable code, the same enum the HTTP API answers with.
    pub code: ErrorCode,
    /// What went wrong and what to do.
    pub message: String,
}

impl DesktopError {
    /// Builds an error.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    /// Arguments that do not fit the command (wrong type, out of range, unknown name).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    /// An unexpected fault.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
}

impl From<ClientError> for DesktopError {
    fn from(err: ClientError) -> Self {
        let code = match &err {
            ClientError::Api { body, .. } => body.error,
            ClientError::BadUrl(_) => ErrorCode::InvalidRequest,
            ClientError::Unreachable { .. } => ErrorCode::Unreachable,
            ClientError::Protocol { .. } => ErrorCode::Internal,
        };
        Self::new(code, refusal_sentence(&err).unwrap_or_else(|| err.to_string()))
    }
}

/// A team refusal's own sentence (`docs/teams.md`): the server says why and what to do
/// in `details[0].message` (`TeamRefusal::describe`, or the store's "would have no owner
/// left"), and that sentence is what the person reads, not the client's wrapping of it.
fn refusal_sentence(err: &ClientError) -> Option<String> {
    let ClientError::Api { body, .. } = err else { return None };
    let team = matches!(
        body.error,
        ErrorCode::OrgRoleRequired
            | ErrorCode::OrgMemoryDisabled
            | ErrorCode::OrgAgentsMayNotPropose
            | ErrorCode::OrgNeedsOwner
            | ErrorCode::MemberNotFound
    );
    if !team {
        return None;
    }
    let sentence = body.details.first().map(|d| d.message.trim()).filter(|m| !m.is_empty());
    let sentence = match (sentence, body.error) {
        (Some(sentence), _) => sentence.to_owned(),
        (None, ErrorCode::MemberNotFound) => "that person is not a member of this org (any more)".to_owned(),
        (None, _) => return None,
    };
    Some(as_sentence(&sentence))
}

/// Capitalised (unless it starts with an id, `org_…`), ending in a full stop.
fn as_sentence(text: &str) -> String {
    let first_word = text.split_whitespace().next().unwrap_or_default();
    let mut out = if first_word.chars().all(char::is_alphabetic) {
        let mut chars = text.chars();
        chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
    } else {
        text.to_owned()
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

impl From<memory_bank_store::StoreError> for DesktopError {
    fn from(err: memory_bank_store::StoreError) -> Self {
        Self::internal(format!("the local memory database failed: {err}"))
    }
}

impl From<memory_bank_sessions::ActionError> for DesktopError {
    /// The session lookup actions have their own codes (the CLI and MCP answer them);
    /// the app answers each with its one code here.
    fn from(err: memory_bank_sessions::ActionError) -> Self {
        use memory_bank_sessions::ErrorCode as Session;
        let code = match err.code {
            Session::SessionNotFound => ErrorCode::SessionNotFound,
            Session::NoMessages => ErrorCode::NoMessages,
            Session::InvalidRequest => ErrorCode::InvalidRequest,
            Session::NoOpenSession => ErrorCode::NoOpenSession,
            Session::Index => ErrorCode::Index,
        };
        Self::new(code, err.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memory_bank_contract::{ErrorBody, FieldError};

    fn api(status: u16, error: ErrorCode, details: Vec<FieldError>) -> ClientError {
        ClientError::Api { status, body: ErrorBody { error, details, kind: None, limit: None } }
    }

    #[test]
    fn a_team_refusal_reads_as_the_servers_sentence() {
        let refused = DesktopError::from(api(
            409,
            ErrorCode::OrgNeedsOwner,
            vec![FieldError::new("role", "Acme would have no owner left; make another member its owner first")],
        ));
        assert_eq!(refused.code, ErrorCode::OrgNeedsOwner);
        assert_eq!(refused.message, "Acme would have no owner left; make another member its owner first.");
        let gone = DesktopError::from(api(404, ErrorCode::MemberNotFound, vec![]));
        assert_eq!(gone.message, "That person is not a member of this org (any more).");
        let other = DesktopError::from(api(404, ErrorCode::MemoryNotFound, vec![]));
        assert!(other.message.starts_with("memory not found (404)"), "{}", other.message);
    }
}
