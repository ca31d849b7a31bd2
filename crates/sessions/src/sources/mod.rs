//! One reader per tool. `session-formats.md` (shared reference) documents each format.
//! Every reader lists its folders through [`crate::source::Root`], so none follows a
//! symbolic link out of the folder it was given.

pub mod claude;
pub mod codex;
pub mod gemini;
mod lenient;
pub mod opencode;

use crate::model::Source;
use crate::source::SourceReader;

/// The reader for `source`.
pub fn reader(source: Source) -> &'static dyn SourceReader {
    match source {
        Source::ClaudeCode => &claude::ClaudeCode,
        Source::Codex => &codex::Codex,
        Source::Opencode => &opencode::Opencode,
        Source::Gemini => &gemini::Gemini,
    }
}

/// Every reader.
pub fn all() -> [&'static dyn SourceReader; 4] {
    Source::ALL.map(reader)
}
