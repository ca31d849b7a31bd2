//! Per-token request rate limits (`serve --rate-limit`, `--rate-burst`): each bearer
//! token may send `per_second` requests a second on average with bursts of `burst`;
//! past that the answer is **429** `{"error":"rate_limited"}` with `Retry-After`, before
//! the body is read or the database touched. Requests without a token are not limited
//! here (they are refused with 401 without a query). The limiter forgets tokens that
//! went quiet once a minute, so a flood of made-up tokens cannot grow it for long.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

use crate::ApiError;

/// A per-token limit: the sustained rate and the burst above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests per second, on average.
    pub per_second: NonZeroU32,
    /// Requests allowed at once before the rate applies.
    pub burst: NonZeroU32,
}

impl RateLimit {
    /// `serve`'s default: 20 a second, bursts of 40.
    pub const DEFAULT: RateLimit = RateLimit { per_second: NonZeroU32::new(20).unwrap(), burst: NonZeroU32::new(40).unwrap() };
}

/// The shared limiter of one service.
#[derive(Clone)]
pub(crate) struct Limiter(Arc<DefaultKeyedRateLimiter<String>>);

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Limiter {
        let limiter = Arc::new(DefaultKeyedRateLimiter::keyed(Quota::per_second(limit.per_second).allow_burst(limit.burst)));
        let weak = Arc::downgrade(&limiter);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return Limiter(limiter) };
        runtime.spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let Some(limiter) = weak.upgrade() else { return };
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        });
        Limiter(limiter)
    }
}

pub(crate) async fn limit(State(limiter): State<Limiter>, request: Request, next: Next) -> Response {
    let Some(token) = crate::auth::bearer_token(request.headers()) else { return next.run(request).await };
    match limiter.0.check_key(&token.to_owned()) {
        Ok(()) => next.run(request).await,
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let retry_after_secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            ApiError::RateLimited { retry_after_secs: retry_after_secs.max(1) }.into_response()
        }
    }
}
