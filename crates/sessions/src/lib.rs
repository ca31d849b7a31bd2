//! The agent sessions already on the user's disk: readers for Claude Code, Codex, opencode
//! and Gemini CLI, a persistent incremental index, and the lookup actions that the desktop
//! app, the CLI and the MCP server (`memory-bank-mcp`) all call.
//!
//! Source files are opened read-only and never locked or modified. They are live and
//! untrusted: half-written lines, invalid UTF-8 and unknown records are skipped, never
//! fatal, and a file that cannot be read is reported as a [`Problem`]. So are a line over
//! [`jsonl::MAX_LINE_BYTES`] (skipped, the rest of its file read) and a symbolic link out
//! of a session folder (not followed: [`source::Root`]).

#![warn(missing_docs)]

mod events;
pub mod index;
pub mod jsonl;
pub mod library;
pub mod model;
pub mod replay;
mod search_worker;
pub mod source;
pub mod sources;
pub mod text;

pub use events::*;
pub use model::*;
pub use index::{Facets, Index, IndexError, RefreshReport};
pub use library::{ActivityArgs, ActionError, ErrorCode, LatestArgs, Library, ListArgs, OpenArgs, ReadArgs, Roots, SearchArgs};
pub use source::{Env, Problem, SourceReader, Unit, UnitKind, WholeRead};
