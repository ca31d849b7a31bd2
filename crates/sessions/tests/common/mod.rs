//! Shared helpers for the session tests: a temporary home with fixture folders copied in.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use memory_bank_sessions::{Env, Library, Roots};

/// Copies the folder `from` (under tests/fixtures) into `to`, recursively.
pub fn copy_fixture(from: &str, to: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(from);
    copy_dir(&src, to);
}

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

/// An environment whose home is `home` and with no tool variables set.
pub fn env_with_home(home: &Path) -> Env {
    Env { home: Some(home.to_path_buf()), vars: Default::default() }
}

/// A library over `home`'s default folders, with its index in `index` (or in memory).
pub fn library(home: &Path, index: Option<&Path>) -> Library {
    let lib = Library::open(index, Roots::new(&env_with_home(home), &[])).unwrap();
    lib.refresh().unwrap();
    lib
}

/// A temp home holding the Claude fixtures at `~/.claude`.
pub fn claude_home() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    copy_fixture("claude", &home.join(".claude"));
    (dir, home)
}
