//! The agent door: Memory Bank's MCP server.
//!
//! Why a crate of its own: MCP is a third door onto the same actions as the desktop app
//! and the CLI, and it must not grow actions of its own. So the tools here only map their
//! arguments onto the plain crates' actions (`memory_bank_sessions::Library` for sessions)
//! and shape the answers for agents: JSON in `structuredContent` and the same JSON as text,
//! never longer than [`bounded::MAX_RESULT_BYTES`], with errors as `isError` results whose
//! message tells the agent what to do next. The `memory-bank mcp` command (crates/cli) and
//! the tests start it; the SDK is the official `rmcp`, its minor version pinned.
//!
//! - [`server`]: [`MemoryBankMcp`], the handler, built from the backends it serves, each
//!   adding its tool router; [`serve_stdio`].
//! - [`sessions`]: the session tools and [`Sessions`], the library they read, refreshed off
//!   the request path so the server answers `initialize` at once.
//! - [`bounded`]: the output budget and the helpers that fit answers into it.
//! - [`args`]: lenient reading and clear checking of tool arguments.
//! - [`http`]: `/mcp` and `/mcp/agent` on `serve`; [`http_input`]: their answers to
//!   input that is not one JSON-RPC message, and to rmcp's other refusals.
//! - [`caller`]: whose bank a call acts on, and the binding that ties a confirmation
//!   form to the person who was asked.
//! - [`http`]: `/mcp` and `/mcp/agent` for `memory-bank serve`, each session bound to the
//!   token and org that opened it.
//!
//! Modules read one way: `bounded` and `args` at the bottom, then `caller` and `shape`,
//! then `confirm`, then the tool groups (`memory`, `sessions`, `meta`), `server`, `http`.
//!
//! A malformed line on stdin (not JSON) is ignored, JSON that is not a JSON-RPC message is
//! answered with "Invalid Request", an unknown tool with a JSON-RPC error and arguments of
//! the wrong type with an `isError` result: none of them ends the server (rmcp's
//! behaviour, checked by the stdio tests).

#![warn(missing_docs)]

pub mod args;
pub mod bounded;
pub mod caller;
pub mod catalogue;
mod confirm;
pub mod http;
pub mod http_input;
pub mod memory;
mod prompts;
pub mod meta;
pub mod server;
pub mod sessions;
mod shape;
mod stdio;

pub use caller::{Caller, MemoryBackend};
pub use server::{serve_stdio, MemoryBankMcp};
pub use sessions::Sessions;
