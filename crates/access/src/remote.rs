//! A memory service reached over HTTP with a token (a team server, or the app's
//! embedded service), in one org.

use async_trait::async_trait;
use memory_bank_client::{Client, ClientError};
use memory_bank_contract::teams::BankScope;
use memory_bank_contract::wire::{
    AcceptProposalRequest, ListResponse, Memory, Proposal, ProposalResponse, ProposeRequest, SearchResult,
};
use memory_bank_contract::ErrorCode;

use crate::{AccessError, MemoryAccess};

/// A service, a token and the org to act in.
#[derive(Debug, Clone)]
pub struct RemoteAccess {
    client: Client,
    org: String,
    may_confirm: bool,
    /// Ask the service to search by words only (`wordsOnly`), as the person chose with
    /// `--words-only` or `MEMORY_BANK_WORDS_ONLY`, the same choice the local bank obeys.
    words_only: bool,
}

impl RemoteAccess {
    /// Acts in `org` through `client`, whose token the service says may (or may not)
    /// confirm proposals. It searches by words only when `MEMORY_BANK_WORDS_ONLY` says so.
    pub fn new(client: Client, org: impl Into<String>, may_confirm: bool) -> Self {
        Self { client, org: org.into(), may_confirm, words_only: memory_bank_meaning::words_only_from_env() }
    }

    /// Searches by words only (or by words and meaning, the service's default).
    pub fn with_words_only(mut self, words_only: bool) -> Self {
        self.words_only = words_only;
        self
    }

    /// Checks the token with `GET /v1/me` and picks `org`, or the caller's only org.
    pub async fn connect(client: Client, org: Option<&str>) -> Result<Self, AccessError> {
        let me = client.me().await.map_err(client_error)?;
        let org = match org {
            Some(org) => org.to_owned(),
            None if me.orgs.len() == 1 => me.orgs[0].id.clone(),
            None => {
                let names: Vec<String> = me.orgs.iter().map(|o| format!("{} ({})", o.id, o.name)).collect();
                return Err(AccessError::new(
                    ErrorCode::OrganizationNotFound,
                    format!("this token's user is in {} orgs; choose one with --org or MEMORY_BANK_ORG: {}", me.orgs.len(), names.join(", ")),
                ));
            }
        };
        Ok(Self::new(client, org, me.may_confirm))
    }
}

fn client_error(err: ClientError) -> AccessError {
    let (code, details) = match &err {
        ClientError::Api { body, .. } => (body.error, body.details.clone()),
        ClientError::Unreachable { .. } => (ErrorCode::ServiceUnavailable, Vec::new()),
        ClientError::BadUrl(_) => (ErrorCode::InvalidRequest, Vec::new()),
        ClientError::Protocol { .. } => (ErrorCode::Internal, Vec::new()),
    };
    AccessError { code, message: err.to_string(), details }
}

#[async_trait]
impl MemoryAccess for RemoteAccess {
    fn describe(&self) -> String {
        format!("the memory service at {}", self.client.base_url())
    }

    fn may_confirm(&self) -> bool {
        self.may_confirm
    }

    async fn search(&self, query: &str, limit: u32, scope: Option<BankScope>) -> Result<Vec<SearchResult>, AccessError> {
        Ok(self.client.search(&self.org, query, Some(limit), self.words_only, scope).await.map_err(client_error)?.results)
    }

    async fn list(&self, limit: u32, cursor: Option<&str>, scope: Option<BankScope>) -> Result<ListResponse, AccessError> {
        self.client.list(&self.org, Some(limit), cursor, scope).await.map_err(client_error)
    }

    async fn memory(&self, id: &str) -> Result<Memory, AccessError> {
        self.client.memory(&self.org, id).await.map_err(client_error)
    }

    async fn propose(&self, request: ProposeRequest) -> Result<Proposal, AccessError> {
        Ok(self.client.propose(&self.org, &request).await.map_err(client_error)?.proposal)
    }

    async fn proposal(&self, id: &str) -> Result<Proposal, AccessError> {
        Ok(self.client.proposal(&self.org, id).await.map_err(client_error)?.proposal)
    }

    async fn accept(&self, id: &str, edits: AcceptProposalRequest) -> Result<ProposalResponse, AccessError> {
        self.client.accept_proposal(&self.org, id, &edits).await.map_err(client_error)
    }

    async fn reject(&self, id: &str) -> Result<Proposal, AccessError> {
        Ok(self.client.reject_proposal(&self.org, id).await.map_err(client_error)?.proposal)
    }
}
