//! A temporary home holding the session fixtures of all four tools in their default
//! places, and the environment that makes the agents' own variables point nowhere else.
#![allow(dead_code)] // each test file uses a different part of it

use std::path::{Path, PathBuf};

/// The variables that move the tools' folders; cleared so only `HOME` decides.
pub const TOOL_VARS: [&str; 4] = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "GEMINI_CLI_HOME"];

fn fixtures() -> PathBuf {
    // The including package may be crates/cli or src-tauri: find the workspace root.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().find(|p| p.join("crates/sessions").is_dir());
    root.expect("inside the workspace").join("crates/sessions/tests/fixtures")
}

/// Copies a folder recursively.
pub fn copy_dir(src: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `home` with Claude Code, Codex, Gemini CLI and opencode (JSON tree) sessions.
pub fn populate(home: &Path) {
    let f = fixtures();
    copy_dir(&f.join("claude"), &home.join(".claude"));
    copy_dir(&f.join("codex/home"), &home.join(".codex"));
    copy_dir(&f.join("gemini/home/.gemini"), &home.join(".gemini"));
    copy_dir(&f.join("opencode/json-tree/storage"), &home.join(".local/share/opencode/storage"));
}

/// One Claude Code record line.
pub fn claude_line(kind: &str, uuid: &str, text: &str, timestamp: &str) -> String {
    let message = if kind == "user" {
        serde_json::json!({"role": "user", "content": text})
    } else {
        serde_json::json!({"id": format!("msg_{uuid}"), "role": "assistant", "content": [{"type": "text", "text": text}]})
    };
    serde_json::json!({"type": kind, "uuid": uuid, "cwd": "/work/live", "timestamp": timestamp, "message": message})
        .to_string()
}
