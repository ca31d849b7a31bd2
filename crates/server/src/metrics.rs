//! `GET /metrics` (`serve --metrics`): what the service does, in Prometheus's text
//! exposition format (0.0.4), for a monitoring system to scrape.
//!
//! **What is counted.** Every request by its route template (axum's matched route,
//! `/v1/memory/{id}`, never the path with the id in it), method and status, and its
//! latency in a histogram per route and method ([`track`], the outermost layer, so 403s,
//! 429s and panics' 500s are counted too); `/mcp` and `/mcp/agent` are routes like the
//! others, and MCP tool calls are counted by tool name ([`Metrics::tool_call`], from the
//! MCP crate). What the bank did comes from the bank itself ([`BankEvent`]), so every
//! door (the API, the MCP tools, imports) is counted once: memories created, searches,
//! proposals created, accepted and rejected, memories refused for the per-user cap.
//! 429s are counted by the rate limiter. How many proposals wait is read from the store
//! at scrape time (see [`Pending`]).
//!
//! **What never is.** No label value comes from a request: routes are the templates the
//! router was built with (or `unmatched`), methods one of a fixed list (or `OTHER`),
//! statuses numbers, tool names the MCP server's own (or `unknown`), and the bank's
//! events have no field that could hold a user id, an org id, an email, a token or a
//! word anyone wrote. So the text cannot carry them, whatever the requests carried.
//!
//! **Who may read it.** Off unless `serve --metrics`: without it there is no route, and
//! `/metrics` is a 404 like any unknown path. With a token file
//! ([`MetricsAccess::Token`]) every scrape must send `Authorization: Bearer <token>`,
//! compared in constant time; a service on a network address refuses to start without
//! one ([`metrics_access`]). On loopback without one ([`MetricsAccess::Open`]) local
//! scrapers need nothing, but a request that came through a proxy (`X-Forwarded-For`,
//! `Forwarded`, `X-Real-IP`, or a `Host` that is not a loopback name) is refused: a
//! service on 127.0.0.1 behind a TLS proxy would otherwise publish its metrics to
//! whoever reaches the proxy.
//!
//! **What a scrape costs.** Scrapes skip the token lookup and the per-token accounting
//! of the memory routes, but not the rate limit: they are counted against the client's
//! address like any request without a token. Rendering walks fixed label sets (a few KB),
//! and the store is asked for the pending count at most once per [`PENDING_MAX_AGE`]
//! however often anyone scrapes, one scrape at a time, for at most
//! [`PENDING_QUERY_TIMEOUT`].

use std::borrow::Cow;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::header::{CONTENT_TYPE, HOST};
use axum::http::{HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use memory_bank_store::{Bank, BankEvent, BankEvents, CreatedVia};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use subtle::ConstantTimeEq;

use crate::ApiError;

/// The prefix of every metric name.
pub const PREFIX: &str = "memory_bank";

/// How long a pending-proposals count is served before the store is asked again.
pub const PENDING_MAX_AGE: Duration = Duration::from_secs(30);

/// How long a scrape waits for the pending-proposals count; past it the gauge is left out.
pub const PENDING_QUERY_TIMEOUT: Duration = Duration::from_secs(5);

/// The shortest token a token file may hold.
pub const MIN_TOKEN_LEN: usize = 16;

/// Request latency buckets, in seconds: a search or a save takes milliseconds, an
/// import or a search by meaning on a cold model up to seconds.
const LATENCY_BUCKETS: [f64; 14] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// The route label of a request no route matched (404s, and paths under `/mcp/…` other
/// than `/mcp/agent`, which axum matches as a nested service without a template).
const UNMATCHED: &str = "unmatched";

/// Who may scrape.
#[derive(Clone)]
pub enum MetricsAccess {
    /// Anyone who reaches the loopback port directly (a request through a proxy is
    /// refused).
    Open,
    /// Whoever sends this token as `Authorization: Bearer <token>`.
    Token(MetricsToken),
}

impl std::fmt::Debug for MetricsAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MetricsAccess::Open => f.write_str("Open"),
            MetricsAccess::Token(_) => f.write_str("Token(…)"),
        }
    }
}

/// The metrics token: never printed, compared in constant time.
#[derive(Clone)]
pub struct MetricsToken(Arc<[u8]>);

impl MetricsToken {
    /// Whether `given` is this token. Constant time in the token's bytes (a length that
    /// differs is told apart at once; the length of a random token is no secret).
    fn matches(&self, given: &str) -> bool {
        bool::from(self.0.as_ref().ct_eq(given.as_bytes()))
    }
}

/// Why `serve --metrics` cannot start as configured. Each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum MetricsConfigError {
    /// A token file without `--metrics`.
    #[error(
        "--metrics-token-file is given but metrics are off; add --metrics (or MEMORY_BANK_METRICS=1) to serve /metrics, \
         or leave the token file out"
    )]
    TokenWithoutMetrics,
    /// `--metrics` on a network address without a token file.
    #[error(
        "serve --metrics on {listen} needs a token, because that is not a loopback address and anyone who reaches it could \
         read the metrics. Put a secret in a file only you can read, e.g. `(umask 077; openssl rand -hex 32 > \
         /etc/memory-bank/metrics-token)`, and add --metrics-token-file /etc/memory-bank/metrics-token (or \
         MEMORY_BANK_METRICS_TOKEN_FILE); scrapers then send it as `Authorization: Bearer <token>`. Or listen on \
         127.0.0.1 and scrape from this machine"
    )]
    NeedsToken {
        /// The listen address.
        listen: SocketAddr,
    },
    /// The token file cannot be read.
    #[error("cannot read the metrics token file {path}: {detail}; check the path given with --metrics-token-file or MEMORY_BANK_METRICS_TOKEN_FILE")]
    TokenFileUnreadable {
        /// The file.
        path: String,
        /// The system's reason.
        detail: String,
    },
    /// Other users may read the token file.
    #[error("the metrics token file {path} can be read by other users (mode {mode:04o}); make it private with `chmod 600 {path}` and try again")]
    TokenFileNotPrivate {
        /// The file.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The token file holds no usable token.
    #[error(
        "the metrics token file {path} holds no usable token: it must hold one line of at least {MIN_TOKEN_LEN} visible \
         characters without spaces, e.g. made with `(umask 077; openssl rand -hex 32 > {path})`"
    )]
    TokenFileFormat {
        /// The file.
        path: String,
    },
}

/// Who may scrape a service listening on `listen`, or why it must not start: metrics
/// off (`enabled` false) is `None`; a token file is read (private, like the bank's key
/// file) and required of every scrape; without one only a loopback address may serve
/// them. The token is never logged or printed.
pub fn metrics_access(enabled: bool, listen: SocketAddr, token_file: Option<&Path>) -> Result<Option<MetricsAccess>, MetricsConfigError> {
    match (enabled, token_file) {
        (false, None) => Ok(None),
        (false, Some(_)) => Err(MetricsConfigError::TokenWithoutMetrics),
        (true, Some(path)) => Ok(Some(MetricsAccess::Token(read_token_file(path)?))),
        (true, None) if listen.ip().is_loopback() => Ok(Some(MetricsAccess::Open)),
        (true, None) => Err(MetricsConfigError::NeedsToken { listen }),
    }
}

fn read_token_file(path: &Path) -> Result<MetricsToken, MetricsConfigError> {
    use memory_bank_private_files::ReadPrivateError;
    let shown = || path.display().to_string();
    let text = memory_bank_private_files::read_private(path).map_err(|e| match e {
        ReadPrivateError::Unreadable(detail) => MetricsConfigError::TokenFileUnreadable { path: shown(), detail },
        ReadPrivateError::NotPrivate { mode } => MetricsConfigError::TokenFileNotPrivate { path: shown(), mode },
    })?;
    let token = text.trim();
    // Visible ASCII only: it travels in a header, and a scraper's config holds it as is.
    if token.len() < MIN_TOKEN_LEN || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(MetricsConfigError::TokenFileFormat { path: shown() });
    }
    Ok(MetricsToken(Arc::from(token.as_bytes())))
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: Cow<'static, str>,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LatencyLabels {
    route: Cow<'static, str>,
    method: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CreatedLabels {
    via: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabels {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    tool: Cow<'static, str>,
}

/// Why a request or a memory was refused, as the refusal counter names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 429 `rate_limited`.
    RateLimited,
    /// `quota_exceeded`: one per memory past the per-user cap.
    QuotaExceeded,
}

impl Refusal {
    fn as_str(self) -> &'static str {
        match self {
            Refusal::RateLimited => "rate_limited",
            Refusal::QuotaExceeded => "quota_exceeded",
        }
    }
}

/// The gauge of proposals waiting over every person, read from the store at scrape time
/// (at most once per [`PENDING_MAX_AGE`]). Why not kept current by counting proposals
/// made and decided: proposals also expire (after 7 days, with no event), the service
/// restarts, and several instances may serve one database; the store's count is right
/// in all three. Left out of the text (rather than shown stale or as 0) while the store
/// cannot answer.
#[derive(Debug)]
struct Pending {
    /// The last count; negative while none is known.
    value: AtomicI64,
}

impl Collector for Pending {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let value = self.value.load(Ordering::Relaxed);
        if value < 0 {
            return Ok(());
        }
        let gauge = ConstGauge::new(value);
        let metric = encoder.encode_descriptor(
            "proposals_pending",
            "Proposals waiting for their person's decision (pending and not expired), over every person; read from the store at most every 30 s.",
            None,
            gauge.metric_type(),
        )?;
        gauge.encode(metric)
    }
}

/// The service's metrics. Clones share them.
#[derive(Clone)]
pub struct Metrics(Arc<Inner>);

struct Inner {
    access: MetricsAccess,
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<LatencyLabels, Histogram>,
    created: Family<CreatedLabels, Counter>,
    searches: Counter,
    proposals_created: Counter,
    proposals_accepted: Counter,
    proposals_rejected: Counter,
    refusals: Family<RefusalLabels, Counter>,
    tool_calls: Family<ToolLabels, Counter>,
    pending: Arc<Pending>,
    /// When the store was last asked for the pending count; held for the whole refresh,
    /// so concurrent scrapes wait for one query instead of each sending theirs.
    pending_asked: tokio::sync::Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").field("access", &self.0.access).finish_non_exhaustive()
    }
}

impl Metrics {
    /// A registry with every metric, served to `access`.
    pub fn new(access: MetricsAccess) -> Metrics {
        let mut registry = Registry::with_prefix(PREFIX);
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("http_requests", "HTTP requests answered, by route template, method and status", requests.clone());
        let latency = Family::<LatencyLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(LATENCY_BUCKETS)) as fn() -> Histogram,
        );
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's arrival to its response head, by route template and method",
            latency.clone(),
        );
        let created = Family::<CreatedLabels, Counter>::default();
        registry.register(
            "memories_created",
            "Memories created: saved (save), accepted from an agent's proposal (proposal) or imported (import)",
            created.clone(),
        );
        let searches = Counter::default();
        registry.register("searches", "Searches of memories, through the API and the MCP tools", searches.clone());
        let proposals_created = Counter::default();
        registry.register("proposals_created", "Proposals agents made", proposals_created.clone());
        let proposals_accepted = Counter::default();
        registry.register("proposals_accepted", "Proposals their person accepted", proposals_accepted.clone());
        let proposals_rejected = Counter::default();
        registry.register("proposals_rejected", "Proposals their person rejected", proposals_rejected.clone());
        let refusals = Family::<RefusalLabels, Counter>::default();
        registry.register(
            "refusals",
            "Refusals: requests over the rate limit (rate_limited, 429) and memories past the per-person cap (quota_exceeded)",
            refusals.clone(),
        );
        let tool_calls = Family::<ToolLabels, Counter>::default();
        registry.register("mcp_tool_calls", "MCP tool calls on /mcp and /mcp/agent, by tool name", tool_calls.clone());
        let pending = Arc::new(Pending { value: AtomicI64::new(-1) });
        registry.register_collector(Box::new(Arc::clone(&pending)));
        // Every fixed label shown from the start (at 0), so a rate over them is defined
        // before the first event.
        for via in [CreatedVia::Save, CreatedVia::Proposal, CreatedVia::Import] {
            created.get_or_create_owned(&CreatedLabels { via: via.as_str() });
        }
        for reason in [Refusal::RateLimited, Refusal::QuotaExceeded] {
            refusals.get_or_create_owned(&RefusalLabels { reason: reason.as_str() });
        }
        Metrics(Arc::new(Inner {
            access,
            registry,
            requests,
            latency,
            created,
            searches,
            proposals_created,
            proposals_accepted,
            proposals_rejected,
            refusals,
            tool_calls,
            pending,
            pending_asked: tokio::sync::Mutex::new(None),
        }))
    }

    /// `bank`, telling these metrics what it does (memories created, searches,
    /// proposals, quota refusals). Give every part of the service this bank (the API's
    /// router and the MCP routes alike), so each door is counted.
    pub fn observe(&self, bank: Bank) -> Bank {
        bank.with_events(Arc::new(self.clone()))
    }

    /// The metrics of the service a request is served by, if it has them on: the MCP
    /// routes find them here to count tool calls.
    pub fn of(extensions: &axum::http::Extensions) -> Option<&Metrics> {
        extensions.get::<Metrics>()
    }

    /// Counts a call of an MCP tool. `tool` must be the name the MCP server itself gave
    /// the tool (its router's key), or `unknown`: never the name a client sent.
    pub fn tool_call(&self, tool: Cow<'static, str>) {
        self.0.tool_calls.get_or_create(&ToolLabels { tool }).inc();
    }

    /// Counts a refusal.
    pub fn refused(&self, refusal: Refusal, count: u64) {
        self.0.refusals.get_or_create(&RefusalLabels { reason: refusal.as_str() }).inc_by(count);
    }

    /// The exposition text now (without asking the store: see [`Metrics::render`]).
    pub fn text(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail; the encoder's error type is fmt's.
        if prometheus_client::encoding::prometheus_text::encode(&mut text, &self.0.registry).is_err() {
            tracing::error!("metrics: the registry could not be encoded");
        }
        text
    }

    /// The exposition text, with the pending count brought up to date first (at most
    /// once per [`PENDING_MAX_AGE`]).
    pub async fn render(&self, bank: &Bank) -> String {
        self.refresh_pending(bank).await;
        self.text()
    }

    async fn refresh_pending(&self, bank: &Bank) {
        let mut asked = self.0.pending_asked.lock().await;
        if asked.is_some_and(|at| at.elapsed() < PENDING_MAX_AGE) {
            return;
        }
        *asked = Some(Instant::now());
        let count = tokio::time::timeout(PENDING_QUERY_TIMEOUT, bank.store().count_pending_proposals(bank.now())).await;
        let value = match count {
            Ok(Ok(n)) => i64::try_from(n).unwrap_or(i64::MAX),
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "metrics: cannot count the pending proposals; proposals_pending is left out until the store answers");
                -1
            }
            Err(_) => {
                tracing::warn!(
                    timeout_s = PENDING_QUERY_TIMEOUT.as_secs(),
                    "metrics: counting the pending proposals took too long; proposals_pending is left out until it answers in time"
                );
                -1
            }
        };
        self.0.pending.value.store(value, Ordering::Relaxed);
    }

    /// Whether a scrape with these headers may read the metrics.
    fn admit(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        match &self.0.access {
            MetricsAccess::Token(token) => match crate::auth::bearer_token(headers) {
                Some(given) if token.matches(given) => Ok(()),
                _ => Err(ApiError::Unauthorized),
            },
            MetricsAccess::Open if through_a_proxy(headers) => Err(ApiError::MetricsNeedToken),
            MetricsAccess::Open => Ok(()),
        }
    }
}

impl BankEvents for Metrics {
    fn record(&self, event: BankEvent) {
        let m = &self.0;
        match event {
            BankEvent::MemoriesCreated { via, count } => {
                m.created.get_or_create(&CreatedLabels { via: via.as_str() }).inc_by(count);
            }
            BankEvent::Searched => {
                m.searches.inc();
            }
            BankEvent::ProposalCreated => {
                m.proposals_created.inc();
            }
            BankEvent::ProposalAccepted => {
                m.proposals_accepted.inc();
            }
            BankEvent::ProposalRejected => {
                m.proposals_rejected.inc();
            }
            BankEvent::QuotaRefused { count } => self.refused(Refusal::QuotaExceeded, count),
        }
    }
}

/// Whether a request shows that a proxy forwarded it: a forwarding header, or a `Host`
/// that is not a loopback name (a local scraper calls 127.0.0.1, [::1] or localhost).
fn through_a_proxy(headers: &HeaderMap) -> bool {
    let forwarded = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip"].iter().any(|h| headers.contains_key(*h));
    let host = headers.get(HOST).and_then(|h| h.to_str().ok()).map(host_name);
    forwarded || !host.is_some_and(|h| h.eq_ignore_ascii_case("localhost") || h.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()))
}

/// The host name of a `Host` header, without its port or an IPv6 address's brackets.
fn host_name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(rest),
        None => host.split(':').next().unwrap_or(host),
    }
}

/// The method as a label: one of a fixed list, never what a client made up.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Counts every request by route template, method and status, and times it; puts the
/// metrics in the request's extensions for the layers and routes inside ([`Metrics::of`]).
pub(crate) async fn track(State(metrics): State<Metrics>, mut request: Request, next: Next) -> Response {
    let route: Cow<'static, str> = match request.extensions().get::<MatchedPath>() {
        // A template the router was built with: a fixed set.
        Some(path) => Cow::Owned(path.as_str().to_owned()),
        None => Cow::Borrowed(UNMATCHED),
    };
    let method = method_label(request.method());
    request.extensions_mut().insert(metrics.clone());
    let started = Instant::now();
    let response = next.run(request).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = response.status().as_u16();
    metrics.0.latency.get_or_create(&LatencyLabels { route: route.clone(), method }).observe(seconds);
    metrics.0.requests.get_or_create(&RequestLabels { route, method, status }).inc();
    response
}

/// What the `/metrics` route needs.
#[derive(Clone)]
pub(crate) struct Scrape {
    pub(crate) metrics: Metrics,
    pub(crate) bank: Bank,
}

/// `GET /metrics`.
pub(crate) async fn scrape(State(scrape): State<Scrape>, headers: HeaderMap) -> Result<Response, ApiError> {
    scrape.metrics.admit(&headers)?;
    let text = scrape.metrics.render(&scrape.bank).await;
    let content_type = HeaderValue::from_static(prometheus_client::encoding::prometheus_text::CONTENT_TYPE);
    Ok(([(CONTENT_TYPE, content_type)], text).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn a_request_through_a_proxy_is_told_from_a_local_scrape() {
        for local in ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "LOCALHOST", "127.0.0.2"] {
            assert!(!through_a_proxy(&headers(&[("host", local)])), "{local}");
        }
        for proxied in ["memory.example.com", "10.0.0.5:8787", "[fd00::1]:8787"] {
            assert!(through_a_proxy(&headers(&[("host", proxied)])), "{proxied}");
        }
        assert!(through_a_proxy(&headers(&[])), "no Host at all");
        for header in ["x-forwarded-for", "forwarded", "x-real-ip", "x-forwarded-host"] {
            assert!(through_a_proxy(&headers(&[("host", "127.0.0.1:8787"), (header, "203.0.113.7")])), "{header}");
        }
    }

    #[test]
    fn methods_are_labelled_from_a_fixed_list() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "OTHER");
    }

    #[test]
    fn the_token_is_compared_whole_and_never_printed() {
        let token = MetricsToken(Arc::from(b"0123456789abcdef0123".as_slice()));
        assert!(token.matches("0123456789abcdef0123"));
        assert!(!token.matches("0123456789abcdef012"));
        assert!(!token.matches("0123456789abcdef01234"));
        assert!(!token.matches(""));
        assert_eq!(format!("{:?}", MetricsAccess::Token(token)), "Token(…)");
    }
}
