//! Request rate limits (`serve --rate-limit`, `--rate-burst`): `per_second` requests a
//! second on average with bursts of `burst`, past that **429** `{"error":"rate_limited"}`
//! with `Retry-After`, before the body is read.
//!
//! Who is counted: an authenticated request by its token's id (resolved once, by
//! [`crate::auth::resolve`], and reused by the handlers), anything else (no token, or one
//! that is not live) by its client address, an IPv6 client by its /64 (one host holds a
//! whole /64). Made-up tokens so cost no memory of their own: the token table holds
//! live tokens only, and the address table at most [`MAX_ADDRESSES`] entries. At that
//! cap, addresses not in the table share one more entry (one budget between them) until
//! the minutely sweep forgets the ones gone quiet; addresses already in the table and
//! every authenticated token keep their own.
//!
//! Behind a proxy every client has the proxy's address, so unauthenticated requests
//! share one budget there; authenticated ones are counted per token all the same.
//!
//! `/metrics` (`serve --metrics`) is limited too, always by address: its token is the
//! metrics token, never looked up as an API token. Each 429 is counted in the metrics'
//! `refusals_total{reason="rate_limited"}`.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::{DashMapStateStore, ShrinkableKeyedStateStore};
use governor::state::StateStore;
use governor::{DefaultKeyedRateLimiter, NotUntil, Quota};

use crate::auth::Authenticated;
use crate::ApiError;

/// Most client addresses the limiter tracks (about: concurrent first requests may pass
/// it by a few). 100 000 entries are a few MB.
pub const MAX_ADDRESSES: usize = 100_000;

/// A limit: the sustained rate and the burst above it.
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

    fn quota(self) -> Quota {
        Quota::per_second(self.per_second).allow_burst(self.burst)
    }
}

/// Whom an unauthenticated request is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Client {
    V4(u32),
    /// The first 64 bits of an IPv6 address.
    V6(u64),
    /// Every address past the cap, and a request with no known address.
    Others,
}

impl Client {
    fn of(address: Option<IpAddr>) -> Client {
        match address.map(|ip| ip.to_canonical()) {
            Some(IpAddr::V4(ip)) => Client::V4(ip.into()),
            Some(IpAddr::V6(ip)) => Client::V6((u128::from(ip) >> 64) as u64),
            None => Client::Others,
        }
    }
}

/// The address table: governor's concurrent map, which sends a new address to
/// [`Client::Others`] once it holds `cap` entries.
struct Addresses {
    map: Arc<DashMapStateStore<Client>>,
    cap: usize,
}

impl StateStore for Addresses {
    type Key = Client;

    fn measure_and_replace<T, F, E>(&self, key: &Client, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        let key = if self.map.len() < self.cap || self.map.contains_key(key) { key } else { &Client::Others };
        self.map.measure_and_replace(key, f)
    }
}

impl ShrinkableKeyedStateStore<Client> for Addresses {
    fn retain_recent(&self, drop_below: Nanos) {
        self.map.retain_recent(drop_below);
    }

    fn shrink_to_fit(&self) {
        ShrinkableKeyedStateStore::shrink_to_fit(&*self.map);
    }

    fn len(&self) -> usize {
        self.map.len()
    }

    fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

type AddressLimiter = governor::RateLimiter<Client, Addresses, DefaultClock, NoOpMiddleware>;

/// The limiter of one service. Clones share it.
#[derive(Clone)]
pub struct RateLimiter(Arc<Tables>);

struct Tables {
    tokens: DefaultKeyedRateLimiter<String>,
    addresses: AddressLimiter,
}

/// How many entries a [`RateLimiter`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracked {
    /// Live tokens (by id).
    pub tokens: usize,
    /// Client addresses, the shared entry past the cap included.
    pub addresses: usize,
}

impl RateLimiter {
    /// A limiter of `limit` per token and per address, tracking at most
    /// [`MAX_ADDRESSES`] addresses.
    pub fn new(limit: RateLimit) -> RateLimiter {
        RateLimiter::with_max_addresses(limit, MAX_ADDRESSES)
    }

    /// Like [`RateLimiter::new`] with another cap on addresses (at least 1).
    pub fn with_max_addresses(limit: RateLimit, cap: usize) -> RateLimiter {
        let addresses = Addresses { map: Arc::default(), cap: cap.max(1) };
        let tables = Arc::new(Tables {
            tokens: DefaultKeyedRateLimiter::keyed(limit.quota()),
            addresses: governor::RateLimiter::new(limit.quota(), addresses, DefaultClock::default()),
        });
        let weak = Arc::downgrade(&tables);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            // Forget the keys that went quiet once a minute.
            runtime.spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(60));
                loop {
                    tick.tick().await;
                    let Some(tables) = weak.upgrade() else { return };
                    tables.tokens.retain_recent();
                    tables.tokens.shrink_to_fit();
                    tables.addresses.retain_recent();
                    tables.addresses.shrink_to_fit();
                }
            });
        }
        RateLimiter(tables)
    }

    /// How many tokens and addresses it tracks now.
    pub fn tracked(&self) -> Tracked {
        Tracked { tokens: self.0.tokens.len(), addresses: self.0.addresses.len() }
    }

    fn check(&self, request: &Request) -> Result<(), NotUntil<<DefaultClock as Clock>::Instant>> {
        match request.extensions().get::<Authenticated>().and_then(|a| a.0.as_ref()) {
            Some(owner) => self.0.tokens.check_key(&owner.token_id),
            None => {
                let address = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
                self.0.addresses.check_key(&Client::of(address))
            }
        }
    }
}

impl fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimiter").field("tracked", &self.tracked()).finish()
    }
}

pub(crate) async fn limit(State(limiter): State<RateLimiter>, request: Request, next: Next) -> Response {
    match limiter.check(&request) {
        Ok(()) => next.run(request).await,
        Err(not_until) => {
            if let Some(metrics) = crate::metrics::Metrics::of(request.extensions()) {
                metrics.refused(crate::metrics::Refusal::RateLimited, 1);
            }
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let retry_after_secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            ApiError::RateLimited { retry_after_secs: retry_after_secs.max(1) }.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_counted_by_ipv4_address_and_ipv6_slash_64() {
        let of = |ip: &str| Client::of(Some(ip.parse().unwrap()));
        assert_eq!(of("10.0.0.5"), of("::ffff:10.0.0.5"), "a mapped IPv4 address is that address");
        assert_ne!(of("10.0.0.5"), of("10.0.0.6"));
        assert_eq!(of("2001:db8:1:2::1"), of("2001:db8:1:2:ffff::9"), "one /64, one client");
        assert_ne!(of("2001:db8:1:2::1"), of("2001:db8:1:3::1"));
        assert_eq!(Client::of(None), Client::Others);
    }

    #[test]
    fn past_the_cap_new_addresses_share_one_entry_and_known_ones_keep_theirs() {
        let limit = RateLimit { per_second: NonZeroU32::new(1).unwrap(), burst: NonZeroU32::new(2).unwrap() };
        let limiter = RateLimiter::with_max_addresses(limit, 3);
        let check = |i: u32| limiter.0.addresses.check_key(&Client::V4(i)).is_ok();
        for i in 0..3 {
            assert!(check(i));
        }
        // 1000 more addresses: one shared entry, whose burst of 2 they spend at once.
        let passed = (100..1100).filter(|i| check(*i)).count();
        assert_eq!(passed, 2);
        assert_eq!(limiter.tracked(), Tracked { tokens: 0, addresses: 4 });
        assert!(check(0), "a known address keeps its own budget at the cap");
        assert!(!check(0), "and spends it alone");
    }
}
