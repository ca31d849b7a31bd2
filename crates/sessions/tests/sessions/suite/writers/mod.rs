//! One [`SessionWriter`](super::SessionWriter) per reader.

mod aider;
mod amp;
mod cline;
mod copilot;
mod cursor;
mod crush;
mod exports;
mod goose;
mod jsonl;
mod opencode_db;
mod opencode_tree;
mod qwen;
mod sqlite_rows;
mod zed;

pub use aider::AiderWriter;
pub use amp::AmpWriter;
pub use cline::{ClineWriter, RooCodeWriter};
pub use copilot::CopilotCliWriter;
pub use cursor::CursorWriter;
pub use crush::CrushWriter;
pub use exports::{ChatgptWriter, ClaudeAiWriter};
pub use goose::{GooseJsonlWriter, GooseWriter};
pub use jsonl::{ClaudeWriter, CodexWriter, GeminiWriter};
pub use qwen::QwenWriter;
pub use opencode_db::OpencodeDbWriter;
pub use opencode_tree::OpencodeTreeWriter;
pub use zed::ZedWriter;
