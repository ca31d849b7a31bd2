//! The connection loop: HTTP/1.1 over TCP with the limits a service on a shared
//! network needs, and the errors hyper answers by itself rewritten as the API's JSON.
//!
//! `axum::serve` exposes none of hyper's connection settings, so a client that sends
//! half a request head could hold a connection open forever, and any number of them
//! at once. Here every connection has a header-read deadline (which also closes idle
//! keep-alive connections), the number of open connections is capped, and a request
//! head is read into a bounded buffer.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use memory_bank_contract::ErrorBody;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt as _;

use crate::error::code_for_status;

/// Connection limits of a running service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Time a client has to send a whole request head, counted from the moment the
    /// connection is ready for one (opened, or its previous response sent). Also the
    /// idle keep-alive timeout.
    pub header_read_timeout: Duration,
    /// Time a client has to send the whole body once the head arrived; slower is 408.
    pub body_read_timeout: Duration,
    /// Most connections open at once; further clients wait in the OS's accept queue.
    pub max_connections: usize,
    /// Largest request head (request line and headers) read, in bytes; larger heads
    /// are answered 431.
    pub max_head_bytes: usize,
    /// How long shutdown waits for in-flight requests before closing their connections.
    pub drain_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 512,
            max_head_bytes: 64 * 1024,
            drain_timeout: Duration::from_secs(10),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains in-flight
/// requests (at most [`ConnectionLimits::drain_timeout`]).
pub async fn serve_router(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(limits.max_head_bytes.max(8192))
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        // The client's address, for the rate limit of requests without a valid token
        // (and for any handler, as axum's `ConnectInfo<SocketAddr>`).
        let service = TowerToHyperService::new(app.clone().map_request(move |mut request: axum::http::Request<_>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request
        }));
        let connection =
            builder.serve_connection(TokioIo::new(ParseErrorsAsJson::new(stream)), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, "connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.drain_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("shutdown: some requests did not finish in time and were cut off");
    }
    Ok(())
}

/// Rewrites the bare answers hyper sends on its own when a request head cannot be
/// parsed (400, 414, 431 with an empty body) into the API's JSON error shape, so every
/// error a client sees has the same form. Hyper has no hook for these responses; they
/// are recognisable because every answer of our own carries a JSON body, so an error
/// status with `content-length: 0` can only be hyper's.
struct ParseErrorsAsJson<S> {
    inner: S,
    /// A rewritten response still to be written out, and how much of it was.
    pending: Option<(Vec<u8>, usize)>,
}

impl<S> ParseErrorsAsJson<S> {
    fn new(inner: S) -> Self {
        Self {
            inner,
            pending: None,
        }
    }
}

impl<S: AsyncWrite + Unpin> ParseErrorsAsJson<S> {
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
            if *written == bytes.len() {
                self.pending = None;
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// The JSON version of a bare error response hyper wrote, or `None` for anything else.
fn rewrite_bare_error(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let rest = text.strip_prefix("HTTP/1.1 ")?;
    if !text.ends_with("\r\n\r\n")
        || !text
            .to_ascii_lowercase()
            .contains("\r\ncontent-length: 0\r\n")
    {
        return None;
    }
    let status = StatusCode::from_bytes(rest.get(..3)?.as_bytes()).ok()?;
    if !status.is_client_error() && !status.is_server_error() {
        return None;
    }
    let body = serde_json::to_vec(&ErrorBody::code(code_for_status(status))).ok()?;
    let date = text
        .lines()
        .find(|line| line.to_ascii_lowercase().starts_with("date:"));
    let mut out = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        status.as_str(),
        status.canonical_reason().unwrap_or("Error"),
        body.len()
    );
    if let Some(date) = date {
        out.push_str(date);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(&body);
    Some(out)
}

impl<S: AsyncRead + Unpin> AsyncRead for ParseErrorsAsJson<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ParseErrorsAsJson<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if let Some(rewritten) = rewrite_bare_error(buf) {
            self.pending = Some((rewritten, 0));
            // The caller's bytes are taken: they are replaced, and sent by the next
            // write, flush or shutdown if the socket is not ready now.
            let _ = self.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_error_heads_are_rewritten() {
        let bare = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Tue, 01 Dec 2026 08:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(rewrite_bare_error(bare).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 431 "), "{out}");
        assert!(out.contains("content-type: application/json\r\n"));
        assert!(out.contains("date: Tue, 01 Dec 2026"));
        assert!(out.ends_with(r#"{"error":"headers_too_large"}"#), "{out}");
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 27\r\n\r\n";
        assert!(rewrite_bare_error(ours).is_none());
        assert!(
            rewrite_bare_error(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n").is_none()
        );
        assert!(rewrite_bare_error(b"{\"memories\":[]}").is_none());
    }
}
