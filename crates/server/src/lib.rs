//! The Memory Bank HTTP API.
//!
//! [`router`] builds the axum app over a [`Bank`]; [`serve`] runs it on a listener until
//! a shutdown signal, with the connection limits of [`transport`]. Errors map to status
//! and JSON in one place ([`ApiError`]), and [`guards`] makes sure that holds for errors
//! made outside the handlers too; authentication and org membership are extractors
//! ([`auth`]). Logs carry ids, counts and lengths only, never content, snippets or
//! query text; [`metrics`] (`serve --metrics`) counts requests and what the bank did,
//! with labels from fixed sets only.

pub mod auth;
mod edit_routes;
mod error;
pub mod guards;
mod host_check;
pub mod local;
pub mod metrics;
mod proposal_routes;
mod rate_limit;
mod routes;
mod org_routes;
mod team_routes;
mod transfer_routes;
pub mod transport;

use std::future::Future;
use std::time::Instant;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post, put};
use axum::{Json, Router};
use memory_bank_contract::limits::MAX_BODY_BYTES;
use memory_bank_store::Bank;
use tokio::net::TcpListener;
use utoipa::OpenApi;

pub use error::ApiError;
pub use guards::{AllowedHost, HostCheck};
pub use metrics::{metrics_access, Metrics, MetricsAccess, MetricsConfigError};
pub use rate_limit::{RateLimit, RateLimiter, Tracked};
pub use transport::ConnectionLimits;

/// How a service instance is exposed.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// Which `Host` headers it answers.
    pub host_check: HostCheck,
    /// Its connection limits.
    pub limits: ConnectionLimits,
    /// More routes served beside the API, behind the same guards (`serve` adds the MCP
    /// endpoints this way; they live in a crate that depends on this one).
    pub extra_routes: Option<Router>,
    /// Request rate limit (per token, and per address without one); `None` turns it off
    /// (the desktop app's own service).
    pub rate_limit: Option<RateLimiter>,
    /// `GET /metrics` and the counting behind it; `None`: no such route (a 404). What the
    /// bank does is counted when the bank was given to [`Metrics::observe`] first.
    pub metrics: Option<Metrics>,
}

/// Shared state of every handler.
#[derive(Clone)]
pub struct AppState {
    /// The service logic over the configured store.
    pub bank: Bank,
}

/// The OpenAPI document, generated from the handlers' annotations.
#[derive(OpenApi)]
#[openapi(
    info(title = "Memory Bank API", description = "A plaintext memory for AI agents: save, search, list and delete sentences."),
    paths(
        routes::save_memory, routes::similar_memory, routes::citing_memory, routes::search_memory, routes::search_status, routes::list_memory, routes::get_memory, routes::delete_memory,
        edit_routes::patch_memory, edit_routes::list_revisions, edit_routes::restore_revision,
        transfer_routes::export, transfer_routes::import,
        proposal_routes::post_proposal, proposal_routes::list_proposals, proposal_routes::get_proposal,
        proposal_routes::accept_proposal, proposal_routes::reject_proposal, team_routes::org_audit, team_routes::org_export,
        org_routes::org_members, org_routes::put_org_member, org_routes::delete_org_member, org_routes::get_org_policy,
        org_routes::put_org_policy, routes::me, routes::healthz
    ),
    modifiers(&BearerAuth),
    tags((name = "Memory", description = "The caller's memories"))
)]
pub struct ApiDoc;

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()));
    }
}

/// Builds the API router with no `Host` or `Origin` check and no rate limit (tests and
/// embedding; `serve` sets both).
pub fn router(bank: Bank) -> Router {
    router_with(bank, &ServeOptions::default())
}

/// Builds the API router with `options`' [`HostCheck`] and body-read timeout.
pub fn router_with(bank: Bank, options: &ServeOptions) -> Router {
    let resolver = bank.clone();
    let scraped = bank.clone();
    let router = Router::new()
        .route("/v1/memory", get(routes::list_memory).post(routes::save_memory))
        .route("/v1/memory/search", get(routes::search_memory))
        .route("/v1/memory/search/status", get(routes::search_status))
        .route("/v1/memory/similar", post(routes::similar_memory))
        .route("/v1/memory/citing", get(routes::citing_memory))
        .route("/v1/memory/{id}", get(routes::get_memory).delete(routes::delete_memory).patch(edit_routes::patch_memory))
        .route("/v1/memory/{id}/revisions", get(edit_routes::list_revisions))
        .route("/v1/export", get(transfer_routes::export))
        .route(
            "/v1/import",
            post(transfer_routes::import).layer(DefaultBodyLimit::max(memory_bank_contract::transfer::MAX_IMPORT_BYTES)),
        )
        .route("/v1/memory/{id}/revisions/{revision_id}/restore", post(edit_routes::restore_revision))
        .route("/v1/proposals", get(proposal_routes::list_proposals).post(proposal_routes::post_proposal))
        .route("/v1/proposals/{id}", get(proposal_routes::get_proposal))
        .route("/v1/proposals/{id}/accept", post(proposal_routes::accept_proposal))
        .route("/v1/proposals/{id}/reject", post(proposal_routes::reject_proposal))
        .route("/v1/orgs/{id}/audit", get(team_routes::org_audit))
        .route("/v1/orgs/{id}/export", get(team_routes::org_export))
        .route("/v1/orgs/{id}/members", get(org_routes::org_members))
        .route("/v1/orgs/{id}/members/{user_id}", put(org_routes::put_org_member).delete(org_routes::delete_org_member))
        .route("/v1/orgs/{id}/policy", get(org_routes::get_org_policy).put(org_routes::put_org_policy))
        .route("/v1/me", get(routes::me))
        .route("/healthz", get(routes::healthz))
        .route("/v1/openapi.json", get(|| async { Json(ApiDoc::openapi()) }))
        .with_state(AppState { bank })
        .merge(options.extra_routes.clone().unwrap_or_default())
        .fallback(|| async { ApiError::NotFound })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(
            options.limits.body_read_timeout,
            guards::bound_request,
        ));
    // Before the body is read: a caller over its limit costs no read and no more queries.
    let router = match &options.rate_limit {
        Some(limiter) => router.layer(middleware::from_fn_with_state(limiter.clone(), rate_limit::limit)),
        None => router,
    };
    // The token, looked up once for the limit and the handlers (after the Host check: a
    // refused request costs no query).
    let router = router.layer(middleware::from_fn_with_state(resolver, auth::resolve));
    let router = match &options.metrics {
        Some(metrics) => router.merge(metrics_route(metrics, scraped, options)),
        None => router,
    };
    let router = router
        .layer(middleware::from_fn_with_state(
            options.host_check.clone(),
            host_check::check_host,
        ))
        .layer(middleware::from_fn(log_request))
        .layer(middleware::from_fn(guards::json_errors))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            guards::panic_response,
        ));
    // Outermost, so every answer is counted: the guards' refusals and a panic's 500 too.
    match &options.metrics {
        Some(metrics) => router.layer(middleware::from_fn_with_state(metrics.clone(), metrics::track)),
        None => router,
    }
}

/// `GET /metrics`, merged after the token lookup: a scrape's `Authorization` holds the
/// metrics token, never looked up as an API token, and the rate limit counts it by the
/// client's address like any request without a token. The `Host` check and the request
/// bounds apply as everywhere.
fn metrics_route(metrics: &Metrics, bank: Bank, options: &ServeOptions) -> Router {
    let route = Router::new()
        .route("/metrics", get(metrics::scrape))
        .with_state(metrics::Scrape { metrics: metrics.clone(), bank })
        .layer(middleware::from_fn_with_state(options.limits.body_read_timeout, guards::bound_request));
    match &options.rate_limit {
        Some(limiter) => route.layer(middleware::from_fn_with_state(limiter.clone(), rate_limit::limit)),
        None => route,
    }
}

/// Logs method, route template, status and latency: never the query string.
async fn log_request(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_owned()).unwrap_or_else(|| "-".into());
    let method = request.method().clone();
    let started = Instant::now();
    let response = next.run(request).await;
    tracing::info!(%method, route, status = response.status().as_u16(), ms = started.elapsed().as_millis() as u64, "http");
    response
}

/// Serves the API on `listener` until `shutdown` resolves, then drains in-flight requests.
pub async fn serve(
    listener: TcpListener,
    bank: Bank,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router_with(bank, &options);
    transport::serve_router(listener, app, options.limits, shutdown).await
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
}
