//! One reader per tool. `session-formats.md` (shared reference) documents each format.
//! Every reader lists its folders through [`crate::source::Root`], so none follows a
//! symbolic link out of the folder it was given.

pub mod aider;
pub mod chatgpt;
pub mod claude;
pub mod claude_ai;
pub mod cline;
pub mod codex;
pub mod exports;
pub mod gemini;
mod lenient;
pub mod opencode;
pub mod qwen;

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
        Source::Aider => &aider::Aider,
        Source::Cline => &cline::CLINE,
        Source::RooCode => &cline::ROO_CODE,
        Source::Chatgpt => &chatgpt::CHATGPT,
        Source::ClaudeAi => &claude_ai::CLAUDE_AI,
    }
}

/// Every reader.
pub fn all() -> [&'static dyn SourceReader; 10] {
    Source::ALL.map(reader)
}
