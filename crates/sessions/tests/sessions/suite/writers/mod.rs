//! One [`SessionWriter`](super::SessionWriter) per reader.

mod aider;
mod cline;
mod exports;
mod jsonl;
mod opencode_db;
mod opencode_tree;
mod qwen;

pub use aider::AiderWriter;
pub use cline::{ClineWriter, RooCodeWriter};
pub use exports::{ChatgptWriter, ClaudeAiWriter};
pub use jsonl::{ClaudeWriter, CodexWriter, GeminiWriter};
pub use qwen::QwenWriter;
pub use opencode_db::OpencodeDbWriter;
pub use opencode_tree::OpencodeTreeWriter;
