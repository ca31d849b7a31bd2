//! stdin and stdout for the stdio server, read and written on the runtime's own thread
//! when they are pipes or sockets, as every agent starts an MCP server.
//!
//! Why: tokio's `stdin()` and `stdout()` do each read and each write on a blocking-pool
//! thread, so every request crossed threads twice more (its line read, its answer
//! written), each the wake-up of a sleeping thread: ≈ 0.1–0.2 ms of a call's round trip
//! on two busy cores (BENCHMARKS.md, "stdio polled, candidates counted as read"). A
//! pipe or a socket can be polled instead. A terminal or a file keeps tokio's way: a
//! terminal made non-blocking would stay so for the shell that shares it.

use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

/// What the server reads requests from.
pub(crate) type Input = Pin<Box<dyn AsyncRead + Send>>;
/// What the server writes answers to.
pub(crate) type Output = Pin<Box<dyn AsyncWrite + Send>>;

/// The process's stdin and stdout: each polled on the runtime when it is a pipe or a
/// socket, else through tokio's blocking-thread reader and writer.
#[cfg(unix)]
pub(crate) fn stdio() -> (Input, Output) {
    use std::os::fd::AsFd as _;
    use tokio::net::unix::pipe;

    let input = polled(std::io::stdin().as_fd(), |file| pipe::Receiver::from_file(file).map(|r| Box::pin(r) as Input), |s| Box::pin(s) as Input)
        .unwrap_or_else(|| Box::pin(tokio::io::stdin()));
    let output = polled(std::io::stdout().as_fd(), |file| pipe::Sender::from_file(file).map(|w| Box::pin(w) as Output), |s| Box::pin(s) as Output)
        .unwrap_or_else(|| Box::pin(tokio::io::stdout()));
    (input, output)
}

#[cfg(not(unix))]
pub(crate) fn stdio() -> (Input, Output) {
    (Box::pin(tokio::io::stdin()), Box::pin(tokio::io::stdout()))
}

/// A copy of `fd`, registered with the runtime, when it is a pipe (`pipe`) or a socket
/// (`socket`); `None` for anything else, or when it cannot be registered.
#[cfg(unix)]
fn polled<T>(
    fd: std::os::fd::BorrowedFd<'_>,
    pipe: impl FnOnce(std::fs::File) -> std::io::Result<T>,
    socket: impl FnOnce(tokio::net::UnixStream) -> T,
) -> Option<T> {
    use std::os::unix::fs::FileTypeExt as _;

    let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let kind = file.metadata().ok()?.file_type();
    if kind.is_fifo() {
        return pipe(file).ok();
    }
    if kind.is_socket() {
        let stream = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(file));
        stream.set_nonblocking(true).ok()?;
        return tokio::net::UnixStream::from_std(stream).ok().map(socket);
    }
    None
}
