//! Which `Host` and `Origin` headers the service answers, on every route (`/v1`, `/mcp`
//! and the rest alike).
//!
//! DNS rebinding: a web page on `evil.example` points its name at the service's address
//! and calls it; the browser then sends `Host: evil.example`. A page of another site
//! calling the service sends its own `Origin`. Neither can happen to a request addressed
//! by an IP address or `localhost`, so those are safe names; any other name must be
//! given (`serve --allowed-host`). An `Origin` is accepted only for the request's own
//! host or a given name: every client of this service (the app, the CLI, agents) sends
//! none.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::extract::{Request, State};
use axum::http::header::{HOST, ORIGIN};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::ApiError;

/// One name `serve --allowed-host` gives: a host name (or address), with or without a
/// port. Without a port it matches the name on any port (a proxy in front usually sends
/// no port at all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHost {
    host: String,
    port: Option<u16>,
}

impl AllowedHost {
    fn matches(&self, host: &str, port: Option<u16>) -> bool {
        self.host == host && (self.port.is_none() || self.port == port)
    }
}

impl FromStr for AllowedHost {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let example = "give a host name such as memory.example.com, or memory.example.com:8443 for one port only";
        if text.is_empty() {
            return Err(format!("an allowed host is empty; {example}"));
        }
        if text.contains("://") || text.contains('/') {
            return Err(format!("{text:?} is a URL; {example}, without scheme or path"));
        }
        if text.contains('*') || text.contains('@') {
            return Err(format!("{text:?} is not a host name; {example} (no wildcards)"));
        }
        let (host, port) = split(text).ok_or_else(|| format!("{text:?} is not a host name; {example}"))?;
        if host.is_empty() {
            return Err(format!("{text:?} has no host name; {example}"));
        }
        Ok(AllowedHost { host, port })
    }
}

impl std::fmt::Display for AllowedHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.port {
            Some(port) => write!(f, "{}:{port}", self.host),
            None => f.write_str(&self.host),
        }
    }
}

/// `host[:port]` as a lower-case host (IPv6 in brackets, one trailing dot dropped) and
/// its port; `None` when the host is not a DNS name or an IP address, or the port is not
/// a number up to 65535.
fn split(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.to_ascii_lowercase();
    // `after` is empty or `:port`.
    let (host, after) = match authority.strip_prefix('[') {
        Some(rest) => {
            let (v6, after) = rest.split_once(']')?;
            v6.parse::<std::net::Ipv6Addr>().ok()?;
            (format!("[{v6}]"), after)
        }
        None => {
            let at = authority.find(':').unwrap_or(authority.len());
            (authority[..at].to_owned(), &authority[at..])
        }
    };
    let port = match after {
        "" => None,
        _ => {
            let digits = after.strip_prefix(':').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?;
            Some(digits.parse::<u16>().ok()?)
        }
    };
    let host = host.strip_suffix('.').map(str::to_owned).unwrap_or(host);
    let is_name = !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    (host.starts_with('[') || is_name).then_some((host, port))
}

/// An IP address literal (`10.0.0.5`, `[fd00::1]`).
fn ip_literal(host: &str) -> Option<IpAddr> {
    host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host).parse().ok()
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost" || ip_literal(host).is_some_and(|ip| ip.is_loopback())
}

/// Which `Host` (and so `Origin`) headers the service answers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HostCheck {
    /// Any `Host` and any `Origin`: for a router embedded behind something that checks
    /// them itself, and tests. `serve` never uses it.
    #[default]
    Any,
    /// A service on a loopback address (the desktop app's embedded service, and `serve`
    /// on 127.0.0.1): only loopback names with its own port (`127.0.0.1:PORT`,
    /// `localhost:PORT`, `[::1]:PORT`), and `allowed` (a proxy in front that forwards
    /// its own name).
    Loopback {
        /// The port the service listens on.
        port: u16,
        /// More names to answer (`serve --allowed-host`).
        allowed: Vec<AllowedHost>,
    },
    /// A service on a network address: requests addressed by any IP address or by
    /// `localhost`, and by the `allowed` names. With none, a DNS name is refused with a
    /// 403 that says to add it.
    Network {
        /// The names to answer (`serve --allowed-host`).
        allowed: Vec<AllowedHost>,
    },
}

impl HostCheck {
    /// The embedded service's check: loopback names on `port` only.
    pub fn loopback(port: u16) -> HostCheck {
        HostCheck::Loopback { port, allowed: Vec::new() }
    }

    /// `serve`'s check for a service listening on `address`.
    pub fn for_listener(address: SocketAddr, allowed: Vec<AllowedHost>) -> HostCheck {
        if address.ip().is_loopback() {
            HostCheck::Loopback { port: address.port(), allowed }
        } else {
            HostCheck::Network { allowed }
        }
    }

    fn allowed(&self) -> &[AllowedHost] {
        match self {
            HostCheck::Any => &[],
            HostCheck::Loopback { allowed, .. } | HostCheck::Network { allowed } => allowed,
        }
    }

    /// Whether the service answers a request whose `Host` is `host[:port]`.
    fn allows_host(&self, host: &str, port: Option<u16>) -> bool {
        let safe = match self {
            HostCheck::Any => return true,
            HostCheck::Loopback { port: own, .. } => is_loopback_name(host) && port == Some(*own),
            HostCheck::Network { .. } => host == "localhost" || ip_literal(host).is_some(),
        };
        safe || self.allowed().iter().any(|a| a.matches(host, port))
    }

    /// What is wrong with the request's `Host` or `Origin`, if anything.
    fn refusal(&self, headers: &HeaderMap) -> Option<ApiError> {
        if *self == HostCheck::Any {
            return None;
        }
        let host = headers.get(HOST).and_then(|h| h.to_str().ok()).and_then(split);
        let Some((host, port)) = host.filter(|(h, p)| self.allows_host(h, *p)) else {
            return Some(ApiError::HostNotAllowed);
        };
        let origin = headers.get(ORIGIN)?;
        let Some((origin_host, origin_port)) = origin.to_str().ok().and_then(parse_origin) else {
            return Some(ApiError::OriginNotAllowed);
        };
        // The request's own host (the port as the Host names it; a Host without one is
        // the default port of the page's scheme), or a given name.
        let same_site = origin_host == host && port.is_none_or(|p| p == origin_port);
        let given = self.allowed().iter().any(|a| a.matches(&origin_host, Some(origin_port)));
        (!(same_site || given)).then_some(ApiError::OriginNotAllowed)
    }
}

/// `scheme://host[:port]` as the host and the port (the scheme's default when none is
/// written). `null`, other schemes and anything with a path are `None`.
fn parse_origin(origin: &str) -> Option<(String, u16)> {
    let (scheme, authority) = origin.trim().split_once("://")?;
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    if authority.contains('/') {
        return None;
    }
    let (host, port) = split(authority)?;
    Some((host, port.unwrap_or(default_port)))
}

/// Refuses requests whose `Host` or `Origin` the configured [`HostCheck`] does not
/// allow, before anything else reads them.
pub(crate) async fn check_host(State(check): State<HostCheck>, request: Request, next: Next) -> Response {
    if let Some(refusal) = check.refusal(request.headers()) {
        return refusal.into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            headers.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        headers
    }

    fn code(check: &HostCheck, host: Option<&str>, origin: Option<&str>) -> &'static str {
        match check.refusal(&headers(host, origin)) {
            None => "ok",
            Some(ApiError::HostNotAllowed) => "host",
            Some(ApiError::OriginNotAllowed) => "origin",
            Some(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn allowed_hosts_parse_names_and_ports_and_refuse_urls() {
        assert_eq!("Memory.Example.COM".parse::<AllowedHost>().unwrap().to_string(), "memory.example.com");
        assert_eq!("memory.example.com:8443".parse::<AllowedHost>().unwrap().to_string(), "memory.example.com:8443");
        assert_eq!("[FD00::1]:8787".parse::<AllowedHost>().unwrap().to_string(), "[fd00::1]:8787");
        for bad in ["", "https://memory.example.com", "memory.example.com/v1", "*.example.com", "me@x", "x:99999", "x:"] {
            let err = bad.parse::<AllowedHost>().unwrap_err();
            assert!(err.contains("memory.example.com"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn loopback_answers_its_own_names_and_port_and_the_given_names() {
        let check = HostCheck::for_listener("127.0.0.1:8787".parse().unwrap(), vec!["memory.example.com".parse().unwrap()]);
        assert_eq!(code(&check, Some("127.0.0.1:8787"), None), "ok");
        assert_eq!(code(&check, Some("localhost:8787"), None), "ok");
        assert_eq!(code(&check, Some("[::1]:8787"), None), "ok");
        assert_eq!(code(&check, Some("localhost:8788"), None), "host");
        assert_eq!(code(&check, Some("localhost"), None), "host");
        assert_eq!(code(&check, Some("evil.example:8787"), None), "host");
        assert_eq!(code(&check, Some("10.0.0.5:8787"), None), "host");
        assert_eq!(code(&check, None, None), "host");
        // A proxy that forwards its own name.
        assert_eq!(code(&check, Some("memory.example.com"), Some("https://memory.example.com")), "ok");
        assert_eq!(code(&check, Some("Memory.Example.com."), None), "ok");
    }

    #[test]
    fn network_answers_addresses_and_the_given_names_only() {
        let bare = HostCheck::for_listener("0.0.0.0:8787".parse().unwrap(), vec![]);
        assert_eq!(code(&bare, Some("10.0.0.5:8787"), None), "ok");
        assert_eq!(code(&bare, Some("[fd00::1]:8787"), None), "ok");
        assert_eq!(code(&bare, Some("localhost:8787"), None), "ok");
        assert_eq!(code(&bare, Some("memory.example.com"), None), "host");
        let named = HostCheck::for_listener(
            "0.0.0.0:8787".parse().unwrap(),
            vec!["memory.example.com".parse().unwrap(), "other.example:8443".parse().unwrap()],
        );
        assert_eq!(code(&named, Some("memory.example.com"), None), "ok");
        assert_eq!(code(&named, Some("memory.example.com:9000"), None), "ok");
        assert_eq!(code(&named, Some("other.example:8443"), None), "ok");
        assert_eq!(code(&named, Some("other.example:8444"), None), "host");
        assert_eq!(code(&named, Some("memory.example.com.evil.example"), None), "host");
    }

    #[test]
    fn an_origin_must_be_the_request_own_host_or_a_given_name() {
        let check = HostCheck::for_listener("0.0.0.0:8787".parse().unwrap(), vec!["app.example.com".parse().unwrap()]);
        assert_eq!(code(&check, Some("10.0.0.5:8787"), Some("http://10.0.0.5:8787")), "ok");
        assert_eq!(code(&check, Some("10.0.0.5:8787"), Some("http://10.0.0.5:3000")), "origin");
        assert_eq!(code(&check, Some("10.0.0.5:8787"), Some("http://evil.example")), "origin");
        assert_eq!(code(&check, Some("10.0.0.5:8787"), Some("https://app.example.com")), "ok");
        assert_eq!(code(&check, Some("app.example.com"), Some("https://app.example.com")), "ok");
        assert_eq!(code(&check, Some("app.example.com:443"), Some("https://app.example.com")), "ok");
        assert_eq!(code(&check, Some("10.0.0.5:8787"), Some("null")), "origin");
        assert_eq!(code(&check, Some("10.0.0.5:8787"), Some("http://10.0.0.5:8787/path")), "origin");
        assert_eq!(code(&check, Some("10.0.0.5:8787"), Some("file://")), "origin");
        let local = HostCheck::loopback(8787);
        assert_eq!(code(&local, Some("127.0.0.1:8787"), Some("http://127.0.0.1:8787")), "ok");
        assert_eq!(code(&local, Some("127.0.0.1:8787"), Some("http://localhost:3000")), "origin");
        assert_eq!(code(&local, Some("127.0.0.1:8787"), Some("http://evil.example")), "origin");
        assert_eq!(code(&HostCheck::Any, Some("x"), Some("http://evil.example")), "ok");
    }
}
