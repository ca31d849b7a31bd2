//! One [`SessionWriter`](super::SessionWriter) per reader.

mod jsonl;
mod opencode_db;
mod opencode_tree;

pub use jsonl::{ClaudeWriter, CodexWriter, GeminiWriter};
pub use opencode_db::OpencodeDbWriter;
pub use opencode_tree::OpencodeTreeWriter;
