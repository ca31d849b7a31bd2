//! Windsurf (Codeium's editor, now also shipped as Devin Desktop): Cascade conversations.
//! Found on this computer, not read: what is on disk cannot be read without a key only
//! Windsurf holds.
//!
//! **On disk** (the same on every OS, under the home folder: `~/.codeium/windsurf`,
//! `%USERPROFILE%\.codeium\windsurf` on Windows; `~/.codeium/windsurf-next` for Windsurf
//! Next; `~/.codeium/cascade` for the Codeium extension in other editors; no variable moves
//! them):
//!
//! * `cascade/<conversation uuid>.pb`: one file per Cascade conversation, often megabytes,
//!   high-entropy binary (no protobuf structure, no gzip/zlib/zstd header, no readable text):
//!   encrypted at rest. Windsurf's language server decrypts it and serves the trajectory
//!   over a local gRPC API (random port and per-session nonce) only while Windsurf runs;
//! * `implicit/<uuid>.pb` (background context), `chat_state/*.pb` (legacy chat state),
//!   `memories/<uuid>.pb` (Cascade memories): the same opaque binary;
//! * readable, but not conversations: `brain/<uuid>/plan.md` (plans the agent wrote) and
//!   `memories/global_rules.md` (the person's global rules);
//! * the editor's own `Windsurf/User/globalStorage/state.vscdb` (VS Code layout) keeps UI
//!   state, not the messages.
//!
//! Sources: agentgrep's Windsurf backend notes (observed 2026-06-21), the reverse-engineered
//! protos of `AlexStrNik/windsurf-api` (which talks to the running language server), and
//! `vshulcz/deja-vu` issue #308.
//!
//! **What reading it would take.** Either the decryption key and the trajectory's protobuf
//! schema (neither is published; the key lives inside Windsurf's language server), or
//! Windsurf running with its local API reachable (the port and nonce it hands its own
//! extension), which a background indexer cannot count on. So the roots are the
//! conversation folders (the app can say Windsurf is here) and nothing is listed.

use std::path::{Path, PathBuf};

use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, SourceReader, Unit, WholeSession};

/// Finds Windsurf's Cascade folders; reads nothing (see the module docs).
pub struct Windsurf;

impl SourceReader for Windsurf {
    fn source(&self) -> Source {
        Source::Windsurf
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        let Some(home) = env.home.as_ref() else { return Vec::new() };
        let codeium = home.join(".codeium");
        vec![codeium.join("windsurf").join("cascade"), codeium.join("windsurf-next").join("cascade")]
    }

    fn unreadable(&self) -> Option<&'static str> {
        Some("Windsurf keeps its Cascade conversations encrypted (cascade/*.pb), with a key only Windsurf holds; Memory Bank cannot read them")
    }

    /// The `.pb` conversations are encrypted: no unit can be read from them.
    fn discover(&self, _root: &Path, _units: &mut Vec<Unit>, _problems: &mut Vec<Problem>) {}

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, _unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(Vec::new())
    }
}
