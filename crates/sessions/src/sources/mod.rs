//! One reader per tool. `session-formats.md` (shared reference) documents each format.
//! Every reader lists its folders through [`crate::source::Root`], so none follows a
//! symbolic link out of the folder it was given.

pub mod aider;
pub mod amp;
pub mod antigravity;
pub mod chatgpt;
pub mod claude;
pub mod claude_ai;
pub mod cline;
pub mod codex;
pub mod copilot;
pub mod crush;
pub mod cursor;
pub mod exports;
pub mod gemini;
pub mod goose;
mod lenient;
pub mod opencode;
pub mod qwen;
pub(crate) mod sqlite;
pub mod windsurf;
pub mod zed;

use crate::model::Source;
use crate::source::SourceReader;

/// The reader for `source`.
pub fn reader(source: Source) -> &'static dyn SourceReader {
    match source {
        Source::ClaudeCode => &claude::ClaudeCode,
        Source::Codex => &codex::Codex,
        Source::Opencode => &opencode::Opencode,
        Source::Gemini => &gemini::Gemini,
        Source::QwenCode => &qwen::QwenCode,
        Source::Cursor => &cursor::Cursor,
        Source::CopilotCli => &copilot::CopilotCli,
        Source::Amp => &amp::Amp,
        Source::Goose => &goose::Goose,
        Source::Crush => &crush::Crush,
        Source::Zed => &zed::Zed,
        Source::Windsurf => &windsurf::Windsurf,
        Source::Antigravity => &antigravity::Antigravity,
        Source::Aider => &aider::Aider,
        Source::Cline => &cline::CLINE,
        Source::RooCode => &cline::ROO_CODE,
        Source::Chatgpt => &chatgpt::CHATGPT,
        Source::ClaudeAi => &claude_ai::CLAUDE_AI,
    }
}

/// Every reader.
pub fn all() -> [&'static dyn SourceReader; 18] {
    Source::ALL.map(reader)
}
