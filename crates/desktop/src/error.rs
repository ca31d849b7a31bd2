use memory_bank_client::ClientError;
use serde::Serialize;

/// An error as the UI receives it: a stable code and a readable message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct DesktopError {
    /// Stable code (`unauthorized`, `unreachable`, `no_account`, …).
    pub code: String,
    /// What went wrong and what to do.
    pub message: String,
}

impl DesktopError {
    /// Builds an error.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self { code: code.into(), message: message.into() }
    }
}

impl From<ClientError> for DesktopError {
    fn from(err: ClientError) -> Self {
        let code = match &err {
            ClientError::Api { body, .. } => body.error.as_str(),
            ClientError::BadUrl(_) => "invalid_request",
            ClientError::Unreachable { .. } => "unreachable",
            ClientError::Protocol { .. } => "internal",
        };
        Self::new(code, err.to_string())
    }
}

impl From<memory_bank_store::StoreError> for DesktopError {
    fn from(err: memory_bank_store::StoreError) -> Self {
        Self::new("internal", format!("the local memory database failed: {err}"))
    }
}
