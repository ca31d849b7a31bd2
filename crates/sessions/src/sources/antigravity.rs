//! Google Antigravity (the editor, a Windsurf descendant, and its CLI `agy`): agent
//! conversations. Found on this computer, not read: the conversations are encrypted or in
//! an unpublished binary schema.
//!
//! **On disk** (the same on every OS, under the home folder; no variable moves them):
//!
//! * the editor, `~/.gemini/antigravity/`:
//!   * `conversations/<conversation uuid>.pb`: the conversation, AES-GCM encrypted at rest
//!     (byte entropy 8.0, a different nonce-like prefix per file, no container header);
//!     the running language server decrypts it and serves it over a local API;
//!   * newer versions: `conversations/<uuid>.db`, SQLite whose `steps` table holds each
//!     step as plain protobuf (`step_payload`) with no published schema;
//!   * `implicit/<uuid>.pb`: background trajectories, encrypted the same way;
//!   * `brain/<uuid>/`: Markdown artifacts the agent writes (`task.md`,
//!     `implementation_plan.md`, `walkthrough.md`, `*.md.resolved` snapshots, their
//!     `*.metadata.json`) and `.system_generated/messages/*.json` system notices: readable,
//!     but plans and checklists, not the conversation;
//!   * the editor's `Antigravity/User/globalStorage/state.vscdb` keeps UI state, not the
//!     messages;
//! * the CLI, `~/.gemini/antigravity-cli/`: `history.jsonl` (one line per prompt:
//!   `display`, `timestamp` ms, `workspace`, `conversationId`), `conversations/<uuid>.db`
//!   (as above; older `.pb` encrypted), and `brain/<uuid>/.system_generated/logs/
//!   transcript_full.jsonl` (and a truncated `transcript.jsonl`): a readable step log
//!   (`step_index`, `source` `USER_EXPLICIT`/`MODEL`/`SYSTEM`, `type` `USER_INPUT`/
//!   `PLANNER_RESPONSE`/`CONVERSATION_HISTORY`/tool steps, `status`, `content`,
//!   `created_at`), reverse-engineered only, not read yet.
//!
//! Sources: agentgrep's Antigravity IDE and CLI backend notes (observed 2026-06-21,
//! `agy` 1.0.10); `xiufengsun/TokenTracker` issue #183 (entropy measurements, the `.db`
//! layout); `jhlee0409/claude-code-history-viewer` issue #564 and its
//! `providers/antigravity_cli.rs` at fe46b65; `mjacobs/agy-reader` (AES-GCM, the daemon
//! API); `googlecodelabs/feedback` issue #1640 (no official export).
//!
//! **What reading it would take.** The editor's key and trajectory schema, or the running
//! language server's local API; for the `.db` steps, the step protobuf schema. The CLI's
//! `transcript_full.jsonl` could be read as it is (a JSON Lines reader keyed by the brain
//! folder's uuid, workspace from `history.jsonl`), once a real file confirms its shape.

use std::path::{Path, PathBuf};

use crate::model::Source;
use crate::source::{Env, LineParser, NoLines, Problem, SourceReader, Unit, WholeSession};

/// Finds Antigravity's conversation folders; reads nothing (see the module docs).
pub struct Antigravity;

impl SourceReader for Antigravity {
    fn source(&self) -> Source {
        Source::Antigravity
    }

    fn default_roots(&self, env: &Env) -> Vec<PathBuf> {
        let Some(home) = env.home.as_ref() else { return Vec::new() };
        let gemini = home.join(".gemini");
        vec![gemini.join("antigravity").join("conversations"), gemini.join("antigravity-cli").join("conversations")]
    }

    /// The conversations are encrypted or unpublished protobuf: no unit can be read.
    fn unreadable(&self) -> Option<&'static str> {
        Some("Antigravity keeps its conversations encrypted (conversations/*.pb) or in an unpublished binary format (conversations/*.db); Memory Bank cannot read them")
    }

    fn discover(&self, _root: &Path, _units: &mut Vec<Unit>, _problems: &mut Vec<Problem>) {}

    fn line_parser(&self, _unit: &Unit) -> Box<dyn LineParser> {
        Box::new(NoLines)
    }

    fn parse_whole(&self, _unit: &Unit) -> std::io::Result<Vec<WholeSession>> {
        Ok(Vec::new())
    }
}
