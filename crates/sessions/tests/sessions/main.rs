//! The session history's integration tests, built as one binary (one link step instead of
//! one per file). Their helpers come from the crate's test kit, `memory_bank_sessions::testing`.

mod activity;
mod adopt;
mod amp;
mod aider;
mod archive;
mod archive_encryption;
mod claude;
mod cline;
mod codex;
mod concurrent_open;
mod copilot;
mod cursor;
mod crush;
mod exports;
mod confinement;
mod files;
mod gemini;
mod goose;
mod index;
mod index_encryption;
mod opencode;
mod paging;
mod qwen;
mod search_index;
mod search_props;
mod sources;
mod tail_props;
mod wipe;
mod zed;
mod suite;
