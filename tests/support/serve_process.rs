//! Starts the real `memory-bank serve` binary on a free loopback port, shared by the
//! CLI test files (SQLite and MySQL).
#![allow(dead_code)] // each test file uses a different part of it

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `memory-bank serve`: the process, its URL, and the rest of its stderr.
pub struct Serving {
    pub child: Child,
    pub url: String,
    pub stderr: mpsc::Receiver<String>,
}

/// Starts `BIN --database-url URL serve` on 127.0.0.1:0 with extra `env`, and waits for
/// its "serving http://…" line. Err(exit status + stderr) if it exits instead.
pub fn start(bin: &str, database_url: &str, env: &[(&str, &str)]) -> Result<Serving, String> {
    start_with_args(bin, database_url, &["--listen", "127.0.0.1:0"], env)
}

/// Like [`start`] with `serve`'s arguments given (`--listen` among them).
pub fn start_with_args(bin: &str, database_url: &str, serve_args: &[&str], env: &[(&str, &str)]) -> Result<Serving, String> {
    let mut child = Command::new(bin)
        .args(["--database-url", database_url, "serve"])
        .args(serve_args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => {
                if let Some(rest) = line.split("serving http://").nth(1) {
                    let url = format!("http://{}", rest.split_whitespace().next().unwrap());
                    return Ok(Serving { child, url, stderr: rx });
                }
                seen.push(line);
            }
            Err(_) => {
                let status = child.wait().unwrap();
                return Err(format!("exit {status}: {}", seen.join("\n")));
            }
        }
    }
}
