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
        Self::new(code, err.to_string())
    }
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
