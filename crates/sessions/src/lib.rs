//! The agent sessions already on the user's disk: readers for Claude Code, Codex, opencode
//! and Gemini CLI, a persistent incremental index, and the lookup actions that the desktop
//! app, the CLI and the MCP server (`memory-bank-mcp`) all call.
//!
//! Source files are opened read-only and never locked or modified. They are live and
//! untrusted: half-written lines, invalid UTF-8 and unknown records are skipped, never
//! fatal, and a file that cannot be read is reported as a [`Problem`]. So are a line over
//! 64 MiB (skipped, the rest of its file read) and a symbolic link out
//! of a session folder (not followed).

#![warn(missing_docs)]

mod actions;
mod archive;
mod error;
mod events;
mod imports;
mod index;
mod jsonl;
mod keyed;
mod library;
mod model;
mod moved;
mod overview;
// Reading a unit without an index: what the tests check the index against.
#[cfg(any(test, feature = "testing"))]
mod replay;
mod search_worker;
mod source;
mod sources;
mod stamp;
#[cfg(feature = "testing")]
pub mod testing;
mod text;

pub use archive::{adopt_archive, archive_path, rekey_archive, Adoption};
pub use moved::adopt_library;
/// The archive's key type (see [`Library::open`]).
pub use memory_bank_sqlcipher_file::DbKey;
pub use index::{search_path, Facets, IndexError, RefreshReport, SessionStatus, SourceCount, WorkspaceCount};
pub use actions::{
    ActionError, ActivityArgs, ErrorCode, ForgetArgs, LatestArgs, ListArgs, OpenArgs, ReadArgs, SearchArgs,
    MAX_MESSAGE_CHARS, MAX_QUERY_CHARS, MIN_MESSAGE_CHARS,
};
pub use imports::{import_chats, import_folders, ImportError, ImportedChats};
pub use library::{Library, Roots};
pub use overview::{source_folders, SourceFolder, SourceFolders, SourceSettings, SOURCE_SETTINGS_FILE};
pub use model::*;
pub use source::{Env, Problem};
