//! A typed client for the Memory Bank HTTP API.
//!
//! Every memory call takes the org explicitly, so a caller can capture the org that
//! was active when the user acted and send exactly that, whatever is active later.

use std::time::Duration;

mod orgs;

use memory_bank_contract::teams::BankScope;
use memory_bank_contract::edit::{EditMemoryRequest, RevisionListResponse};
use memory_bank_contract::transfer::{ImportReport, OnConflict};
use memory_bank_contract::wire::{
    AcceptProposalRequest, ListResponse, MeResponse, Memory, ProposalListResponse, ProposalResponse, ProposalStatus, ProposeRequest,
    SaveMemoryRequest, SaveMemoryResponse, SearchResponse, FindSimilarRequest, SimilarResponse, CitingResponse,
};
use memory_bank_contract::{ErrorBody, ErrorCode};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;
use thiserror::Error;

/// Why a call failed, worded for the person who has to fix it.
#[derive(Debug, Error)]
pub enum ClientError {
    /// The configured URL is not a usable base URL.
    #[error("{0:?} is not a valid service URL; use something like http://127.0.0.1:8787")]
    BadUrl(String),
    /// The service could not be reached at all.
    #[error("cannot reach the memory service at {url} ({reason}); start it with `memory-bank serve` or check --url / MEMORY_BANK_URL")]
    Unreachable {
        /// Base URL used.
        url: String,
        /// Transport error text.
        reason: String,
    },
    /// The service answered with an error.
    #[error("{}", describe(*status, body))]
    Api {
        /// HTTP status.
        status: u16,
        /// Parsed error body.
        body: ErrorBody,
    },
    /// The service answered something that is not the API's JSON.
    #[error("the service at {url} answered {status} with an unexpected body ({reason}); is that really a Memory Bank service?")]
    Protocol {
        /// Base URL used.
        url: String,
        /// HTTP status.
        status: u16,
        /// Decode error text.
        reason: String,
    },
}

impl ClientError {
    /// The API error code, if the service sent one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Api { body, .. } => Some(body.error),
            _ => None,
        }
    }
}

fn describe(status: u16, body: &ErrorBody) -> String {
    match body.error {
        ErrorCode::Unauthorized => "the service rejected the token (401): it is missing, unknown or revoked; issue one with \
            `memory-bank admin token issue USER_ID` and pass it with --token or MEMORY_BANK_TOKEN"
            .into(),
        ErrorCode::OrganizationNotFound => "organization not found, or you are not a member of it (404); check --org / \
            MEMORY_BANK_ORG (`memory-bank memory whoami` lists your orgs)"
            .into(),
        ErrorCode::MemoryNotFound => "memory not found (404): it does not exist, was already deleted, or is not yours".into(),
        ErrorCode::ProposalNotFound => "proposal not found (404): it does not exist or is not yours".into(),
        ErrorCode::ProposalNotPending => {
            let why = body.details.first().map(|d| d.message.as_str()).unwrap_or("it was decided already");
            format!("the proposal cannot change (409): {why}")
        }
        ErrorCode::AgentTokenCannotConfirm => "this is an agent token (403): it may search, list and propose, but saving, \
            accepting, rejecting and deleting need the person; propose instead, and confirm in Memory Bank"
            .into(),
        ErrorCode::LooksLikeSecret => {
            let details: Vec<String> = body.details.iter().map(|d| format!("{}: {}", d.path, d.message)).collect();
            format!("this looks like a secret (400): {}", details.join("; "))
        }
        ErrorCode::InvalidRequest => {
            let details: Vec<String> = body.details.iter().map(|d| format!("{}: {}", d.path, d.message)).collect();
            format!("invalid request (400): {}", details.join("; "))
        }
        // The service says why and what to do in the details (TeamRefusal::describe).
        ErrorCode::OrgRoleRequired | ErrorCode::OrgMemoryDisabled | ErrorCode::OrgAgentsMayNotPropose | ErrorCode::OrgNeedsOwner => {
            let why = body.details.first().map(|d| d.message.as_str()).unwrap_or("the org's policy or your role does not allow it");
            format!("refused by the org ({status} {}): {why}", body.error)
        }
        ErrorCode::PayloadTooLarge => "the request is larger than the service accepts (413, 256 KiB); shorten it".into(),
        ErrorCode::ServiceUnavailable => "the service cannot reach its database right now (503); retry shortly, and check the \
            service's log"
            .into(),
        code => format!("the service failed ({status} {code}); check the service's log"),
    }
}

/// How many times one request waits out a 429 before the error is reported.
const MAX_RATE_LIMIT_WAITS: u32 = 5;

/// The `Retry-After` of a 429 (whole seconds), at least 1 s and at most 30 s.
fn retry_after(response: &reqwest::Response) -> Duration {
    let seconds = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(1);
    Duration::from_secs(seconds.clamp(1, 30))
}

/// How long an export or an import may take: far longer than one API call, since a
/// bank of 10⁵ memories is tens of megabytes.
pub const TRANSFER_TIMEOUT: Duration = Duration::from_secs(600);

/// What a delete found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// The memory was deleted now.
    Deleted,
    /// There was nothing to delete (404): already gone, or never visible to this caller.
    NotFound,
}

/// What a save came to (`POST /v1/memory`).
#[derive(Debug, Clone, PartialEq)]
pub enum SaveOutcome {
    /// Saved (201).
    Saved(Box<SaveMemoryResponse>),
    /// A member's save to the team bank, proposed to the org Inbox instead (202).
    Proposed(Box<ProposalResponse>),
}

/// A client bound to one service URL and token.
#[derive(Debug, Clone)]
pub struct Client {
    base: reqwest::Url,
    token: String,
    http: reqwest::Client,
}

impl Client {
    /// A client for `base_url` authenticating with `token`.
    pub fn new(base_url: &str, token: &str) -> Result<Self, ClientError> {
        let mut base = reqwest::Url::parse(base_url.trim()).map_err(|_| ClientError::BadUrl(base_url.into()))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(ClientError::BadUrl(base_url.into()));
        }
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let mut http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            // Below the service's 10 s keep-alive, so a pooled connection is never one
            // the service is closing.
            .pool_idle_timeout(Duration::from_secs(5));
        // A proxy (HTTP_PROXY, ALL_PROXY) is for reaching other machines: sending a
        // request for this machine there would hand the proxy the bearer token and
        // fail anyway. Remote services keep the configured proxies and NO_PROXY.
        if is_loopback(&base) {
            http = http.no_proxy();
        }
        let http = http.build().map_err(|e| ClientError::Unreachable {
            url: base_url.into(),
            reason: e.to_string(),
        })?;
        Ok(Self {
            base,
            token: token.trim().to_owned(),
            http,
        })
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    fn request(&self, method: Method, path: &str, org: Option<&str>) -> Result<RequestBuilder, ClientError> {
        let url = self.base.join(path).map_err(|_| ClientError::BadUrl(self.base.to_string()))?;
        let mut builder = self.http.request(method, url).bearer_auth(&self.token);
        if let Some(org) = org {
            builder = builder.header("X-Org-Id", org);
        }
        Ok(builder)
    }

    async fn send(&self, builder: RequestBuilder) -> Result<(StatusCode, bytes_body::Body), ClientError> {
        let mut builder = builder;
        let mut waits = 0;
        let response = loop {
            let again = builder.try_clone();
            let response = builder
                .send()
                .await
                .map_err(|e| ClientError::Unreachable { url: self.base.to_string(), reason: error_chain(&e) })?;
            // Rate-limited: wait as long as the service asks (within reason) and send
            // it again, instead of failing a request that would pass a moment later.
            match (response.status(), again) {
                (StatusCode::TOO_MANY_REQUESTS, Some(again)) if waits < MAX_RATE_LIMIT_WAITS => {
                    waits += 1;
                    tokio::time::sleep(retry_after(&response)).await;
                    builder = again;
                }
                _ => break response,
            }
        };
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| ClientError::Unreachable { url: self.base.to_string(), reason: error_chain(&e) })?;
        if !status.is_success() {
            let body: ErrorBody =
                serde_json::from_slice(&body).map_err(|e| ClientError::Protocol {
                    url: self.base.to_string(),
                    status: status.as_u16(),
                    reason: e.to_string(),
                })?;
            return Err(ClientError::Api {
                status: status.as_u16(),
                body,
            });
        }
        Ok((status, bytes_body::Body(body.to_vec())))
    }

    async fn json<T: DeserializeOwned>(&self, builder: RequestBuilder) -> Result<T, ClientError> {
        let (status, body) = self.send(builder).await?;
        serde_json::from_slice(&body.0).map_err(|e| ClientError::Protocol {
            url: self.base.to_string(),
            status: status.as_u16(),
            reason: e.to_string(),
        })
    }

    /// `GET /v1/me`: checks the token and lists the caller's orgs.
    pub async fn me(&self) -> Result<MeResponse, ClientError> {
        self.json(self.request(Method::GET, "v1/me", None)?).await
    }

    /// `POST /v1/memory` in `org`, without the duplicate hint (see [`Self::save_or_propose`]).
    pub async fn save(&self, org: &str, request: &SaveMemoryRequest) -> Result<SaveMemoryResponse, ClientError> {
        self.json(self.request(Method::POST, "v1/memory", Some(org))?.json(request)).await
    }

    /// `POST /v1/memory` in `org`, where a save to the team bank may come back proposed.
    /// With `hinted`, the answer also names the memories worded much like it
    /// (`?similar=true`): for a door that shows them after saving, as the CLI does.
    pub async fn save_or_propose(&self, org: &str, request: &SaveMemoryRequest, hinted: bool) -> Result<SaveOutcome, ClientError> {
        let mut builder = self.request(Method::POST, "v1/memory", Some(org))?;
        if hinted {
            builder = builder.query(&[("similar", "true")]);
        }
        let (status, body) = self.send(builder.json(request)).await?;
        let protocol = |e: serde_json::Error| ClientError::Protocol { url: self.base.to_string(), status: status.as_u16(), reason: e.to_string() };
        Ok(if status == StatusCode::ACCEPTED {
            SaveOutcome::Proposed(Box::new(serde_json::from_slice(&body.0).map_err(protocol)?))
        } else {
            SaveOutcome::Saved(Box::new(serde_json::from_slice(&body.0).map_err(protocol)?))
        })
    }

    /// `POST /v1/memory/similar` in `org`: the caller's memories worded like `request.content`.
    pub async fn similar(&self, org: &str, request: &FindSimilarRequest) -> Result<SimilarResponse, ClientError> {
        self.json(self.request(Method::POST, "v1/memory/similar", Some(org))?.json(request)).await
    }

    /// `GET /v1/memory/citing` in `org`: the caller's memories that cite a session.
    pub async fn citing(&self, org: &str, conversation_id: &str) -> Result<CitingResponse, ClientError> {
        let params = [("conversationId", conversation_id)];
        self.json(self.request(Method::GET, "v1/memory/citing", Some(org))?.query(&params)).await
    }

    /// `GET /v1/memory/search/status` in `org`: whether search reads meaning, and how far.
    pub async fn search_status(&self, org: &str) -> Result<memory_bank_contract::wire::SearchStatus, ClientError> {
        self.json(self.request(Method::GET, "v1/memory/search/status", Some(org))?).await
    }

    /// `GET /v1/memory/search` in `org`; by words only when `words_only`; over the
    /// banks `scope` names (`None`: the service's default, both).
    pub async fn search(
        &self,
        org: &str,
        query: &str,
        limit: Option<u32>,
        words_only: bool,
        scope: Option<BankScope>,
    ) -> Result<SearchResponse, ClientError> {
        let mut params = vec![("q", query.to_owned())];
        params.extend(limit.map(|l| ("limit", l.to_string())));
        if words_only {
            params.push(("wordsOnly", "true".to_owned()));
        }
        params.extend(scope.map(|s| ("scope", s.as_str().to_owned())));
        self.json(self.request(Method::GET, "v1/memory/search", Some(org))?.query(&params)).await
    }

    /// `GET /v1/memory` in `org`: one page of the banks `scope` names (`None`: both).
    pub async fn list(&self, org: &str, limit: Option<u32>, cursor: Option<&str>, scope: Option<BankScope>) -> Result<ListResponse, ClientError> {
        let mut params = Vec::new();
        params.extend(limit.map(|l| ("limit", l.to_string())));
        params.extend(cursor.map(|c| ("cursor", c.to_owned())));
        params.extend(scope.map(|s| ("scope", s.as_str().to_owned())));
        self.json(self.request(Method::GET, "v1/memory", Some(org))?.query(&params)).await
    }

    /// `DELETE /v1/memory/{id}` in `org`. A 404 is reported as [`DeleteOutcome::NotFound`].
    pub async fn delete(&self, org: &str, id: &str) -> Result<DeleteOutcome, ClientError> {
        let mut url = self.base.join("v1/memory/").map_err(|_| ClientError::BadUrl(self.base.to_string()))?;
        url.path_segments_mut().map_err(|_| ClientError::BadUrl(self.base.to_string()))?.pop_if_empty().push(id);
        let builder = self.http.delete(url).bearer_auth(&self.token).header("X-Org-Id", org);
        match self.send(builder).await {
            Ok(_) => Ok(DeleteOutcome::Deleted),
            Err(ClientError::Api { body, .. }) if body.error == ErrorCode::MemoryNotFound => {
                Ok(DeleteOutcome::NotFound)
            }
            Err(other) => Err(other),
        }
    }
}

/// Whether `url` names this machine: `localhost` (and `*.localhost`), 127.0.0.0/8, `::1`.
pub fn is_loopback(url: &reqwest::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        None => false,
    }
}

impl Client {
    /// `GET /v1/memory/{id}` in `org`.
    pub async fn memory(&self, org: &str, id: &str) -> Result<Memory, ClientError> {
        let mut url = self.base.join("v1/memory/").map_err(|_| ClientError::BadUrl(self.base.to_string()))?;
        url.path_segments_mut().map_err(|_| ClientError::BadUrl(self.base.to_string()))?.pop_if_empty().push(id);
        let response: SaveMemoryResponse = self.json(self.http.get(url).bearer_auth(&self.token).header("X-Org-Id", org)).await?;
        Ok(response.memory)
    }

    /// `PATCH /v1/memory/{id}` in `org`: the new content and/or tags.
    pub async fn edit(&self, org: &str, id: &str, request: &EditMemoryRequest) -> Result<Memory, ClientError> {
        let url = self.memory_url(id, &[])?;
        let response: SaveMemoryResponse = self.json(self.http.patch(url).bearer_auth(&self.token).header("X-Org-Id", org).json(request)).await?;
        Ok(response.memory)
    }

    /// `GET /v1/memory/{id}/revisions` in `org`: earlier versions, newest first.
    pub async fn revisions(&self, org: &str, id: &str) -> Result<RevisionListResponse, ClientError> {
        let url = self.memory_url(id, &["revisions"])?;
        self.json(self.http.get(url).bearer_auth(&self.token).header("X-Org-Id", org)).await
    }

    /// `POST /v1/memory/{id}/revisions/{revision}/restore` in `org`.
    pub async fn restore_revision(&self, org: &str, id: &str, revision: &str) -> Result<Memory, ClientError> {
        let url = self.memory_url(id, &["revisions", revision, "restore"])?;
        let response: SaveMemoryResponse = self.json(self.http.post(url).bearer_auth(&self.token).header("X-Org-Id", org)).await?;
        Ok(response.memory)
    }

    /// `GET /v1/export` in `org`: hands each chunk of the NDJSON to `sink` as it
    /// arrives, so a bank of any size is written out without being held in memory.
    pub async fn export(&self, org: &str, sink: impl FnMut(&[u8]) -> std::io::Result<()>) -> Result<(), ClientError> {
        self.stream_export(self.request(Method::GET, "v1/export", Some(org))?, sink).await
    }

    /// Streams the NDJSON answer of an export request into `sink` as it arrives.
    async fn stream_export(&self, builder: RequestBuilder, mut sink: impl FnMut(&[u8]) -> std::io::Result<()>) -> Result<(), ClientError> {
        let unreachable = |e: &reqwest::Error| ClientError::Unreachable { url: self.base.to_string(), reason: error_chain(e) };
        let builder = builder.timeout(TRANSFER_TIMEOUT);
        let mut response = builder.send().await.map_err(|e| unreachable(&e))?;
        if !response.status().is_success() {
            let status = response.status().as_u16();
            let body = response.bytes().await.map_err(|e| unreachable(&e))?;
            let body: ErrorBody = serde_json::from_slice(&body)
                .map_err(|e| ClientError::Protocol { url: self.base.to_string(), status, reason: e.to_string() })?;
            return Err(ClientError::Api { status, body });
        }
        while let Some(chunk) = response.chunk().await.map_err(|e| unreachable(&e))? {
            sink(&chunk).map_err(|e| ClientError::Unreachable { url: self.base.to_string(), reason: format!("cannot write the export: {e}") })?;
        }
        Ok(())
    }

    /// `POST /v1/import` in `org`: an NDJSON file as exported.
    pub async fn import(&self, org: &str, ndjson: Vec<u8>, on_conflict: OnConflict) -> Result<ImportReport, ClientError> {
        let on_conflict = if on_conflict == OnConflict::Overwrite { "overwrite" } else { "skip" };
        let builder = self
            .request(Method::POST, "v1/import", Some(org))?
            .query(&[("onConflict", on_conflict)])
            .header("content-type", "application/x-ndjson")
            .timeout(TRANSFER_TIMEOUT)
            .body(ndjson);
        self.json(builder).await
    }

    /// `POST /v1/proposals` in `org`: something for the person to confirm.
    pub async fn propose(&self, org: &str, request: &ProposeRequest) -> Result<ProposalResponse, ClientError> {
        self.json(self.request(Method::POST, "v1/proposals", Some(org))?.json(request)).await
    }

    /// `GET /v1/proposals/{id}` in `org`.
    pub async fn proposal(&self, org: &str, id: &str) -> Result<ProposalResponse, ClientError> {
        self.json(self.http.get(self.proposal_url(id, None)?).bearer_auth(&self.token).header("X-Org-Id", org)).await
    }

    /// `GET /v1/proposals?status=…` in `org`: one page, newest first.
    pub async fn list_proposals(
        &self,
        org: &str,
        status: Option<ProposalStatus>,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<ProposalListResponse, ClientError> {
        let mut params = Vec::new();
        params.extend(status.map(|s| ("status", s.as_str().to_owned())));
        params.extend(limit.map(|l| ("limit", l.to_string())));
        params.extend(cursor.map(|c| ("cursor", c.to_owned())));
        self.json(self.request(Method::GET, "v1/proposals", Some(org))?.query(&params)).await
    }

    /// `POST /v1/proposals/{id}/accept` in `org`, with the person's edits.
    pub async fn accept_proposal(&self, org: &str, id: &str, edits: &AcceptProposalRequest) -> Result<ProposalResponse, ClientError> {
        let url = self.proposal_url(id, Some("accept"))?;
        self.json(self.http.post(url).bearer_auth(&self.token).header("X-Org-Id", org).json(edits)).await
    }

    /// `POST /v1/proposals/{id}/reject` in `org`.
    pub async fn reject_proposal(&self, org: &str, id: &str) -> Result<ProposalResponse, ClientError> {
        let url = self.proposal_url(id, Some("reject"))?;
        self.json(self.http.post(url).bearer_auth(&self.token).header("X-Org-Id", org)).await
    }

    /// `v1/proposals/{id}[/{verb}]`, the id as one escaped path segment.
    /// `v1/memory/{id}/{more…}`, each segment percent-encoded.
    fn memory_url(&self, id: &str, more: &[&str]) -> Result<reqwest::Url, ClientError> {
        let bad = || ClientError::BadUrl(self.base.to_string());
        let mut url = self.base.join("v1/memory/").map_err(|_| bad())?;
        {
            let mut segments = url.path_segments_mut().map_err(|_| bad())?;
            segments.pop_if_empty().push(id);
            segments.extend(more);
        }
        Ok(url)
    }

    fn proposal_url(&self, id: &str, verb: Option<&str>) -> Result<reqwest::Url, ClientError> {
        let bad = || ClientError::BadUrl(self.base.to_string());
        let mut url = self.base.join("v1/proposals/").map_err(|_| bad())?;
        {
            let mut segments = url.path_segments_mut().map_err(|_| bad())?;
            segments.pop_if_empty().push(id);
            segments.extend(verb);
        }
        Ok(url)
    }
}

fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls_are_recognised() {
        for url in [
            "http://127.0.0.1:8787",
            "http://127.8.9.1",
            "http://localhost:1",
            "http://LOCALHOST./",
            "http://app.localhost",
            "http://[::1]:80",
            "http://[::ffff:127.0.0.1]",
        ] {
            assert!(is_loopback(&reqwest::Url::parse(url).unwrap()), "{url}");
        }
        for url in [
            "http://10.0.0.1",
            "https://memory.example.com",
            "http://localhost.example.com",
            "http://[::2]",
        ] {
            assert!(!is_loopback(&reqwest::Url::parse(url).unwrap()), "{url}");
        }
    }
}

mod bytes_body {
    /// A response body already read.
    pub struct Body(pub Vec<u8>);
}
