//! Where the model's files are: the folder a person points to, the cache that
//! `scripts/fetch-model.sh` fills, or the folder a package installs beside the binary.

use std::path::{Path, PathBuf};

/// A folder holding the model's files; tried first when set.
pub const MODEL_DIR_ENV: &str = "MEMORY_BANK_MODEL_DIR";

/// The cache root that `scripts/fetch-model.sh` writes to (default
/// `$HOME/.cache/memory-bank/model`); the model is in its `all-minilm-l6-v2` folder.
pub const MODEL_CACHE_ENV: &str = "MEMORY_BANK_MODEL_CACHE";

/// The model's folder name, under the cache root and under `share/memory-bank/model`.
pub const MODEL_NAME: &str = "all-minilm-l6-v2";

/// The weights as published: F32, 90.9 MB (what `scripts/fetch-model.sh` fetches).
pub const WEIGHTS_FILE: &str = "model.safetensors";

/// The 8-bit copy of the weights that [`crate::quantize_model`] makes, 23.0 MB: what the
/// packages carry. [`crate::Embedder::load`] turns it back into F32 tensors.
pub const Q8_WEIGHTS_FILE: &str = "model.q8.safetensors";

/// The weights [`crate::Embedder::load`] reads, either one: the first that is there
/// (the F32 file when both are).
pub const WEIGHTS_FILES: [&str; 2] = [WEIGHTS_FILE, Q8_WEIGHTS_FILE];

/// The files [`crate::Embedder::load`] needs beside one of [`WEIGHTS_FILES`].
/// `1_Pooling/config.json` is read too when present (to check that the model wants mean
/// pooling), but is not required.
pub const MODEL_FILES: [&str; 2] = ["tokenizer.json", "config.json"];

/// What a folder must hold, in words: for messages.
pub(crate) fn model_files_text() -> String {
    format!(
        "{} and {} (or {})",
        MODEL_FILES.join(", "),
        WEIGHTS_FILES[0],
        WEIGHTS_FILES[1]
    )
}

/// The weights file in `dir` that [`crate::Embedder::load`] reads: the first of
/// [`WEIGHTS_FILES`] that is a file there.
pub(crate) fn weights_in(dir: &Path) -> Option<PathBuf> {
    WEIGHTS_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// The folders where the model is looked for, in order:
///
/// 1. `$MEMORY_BANK_MODEL_DIR`, when set and not empty;
/// 2. `${MEMORY_BANK_MODEL_CACHE:-$HOME/.cache/memory-bank/model}/all-minilm-l6-v2`, what
///    `scripts/fetch-model.sh` fills;
/// 3. `<dir of the executable>/../share/memory-bank/model/all-minilm-l6-v2`, where the
///    `.deb` and `.rpm` put it, as [`Q8_WEIGHTS_FILE`] (`/usr/bin/x` →
///    `/usr/share/memory-bank/model/...`).
pub fn model_dir_candidates() -> Vec<PathBuf> {
    let mut dirs = Vec::with_capacity(3);
    if let Some(dir) = non_empty_env(MODEL_DIR_ENV) {
        dirs.push(PathBuf::from(dir));
    }
    let cache_root = non_empty_env(MODEL_CACHE_ENV)
        .map(PathBuf::from)
        .or_else(|| {
            non_empty_env("HOME")
                .or_else(|| non_empty_env("USERPROFILE"))
                .map(|home| {
                    Path::new(&home)
                        .join(".cache")
                        .join("memory-bank")
                        .join("model")
                })
        });
    if let Some(root) = cache_root {
        dirs.push(root.join(MODEL_NAME));
    }
    if let Some(bin_dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        let dir = bin_dir
            .join("..")
            .join("share")
            .join("memory-bank")
            .join("model")
            .join(MODEL_NAME);
        // Without the `..` where it resolves: nicer in messages, same folder.
        dirs.push(dir.canonicalize().unwrap_or(dir));
    }
    dirs
}

/// The first folder of [`model_dir_candidates`] that [`holds_model`]; `None` when none
/// does (run `scripts/fetch-model.sh`).
pub fn default_model_dir() -> Option<PathBuf> {
    model_dir_candidates()
        .into_iter()
        .find(|dir| holds_model(dir))
}

/// Whether `dir` holds every file of [`MODEL_FILES`] and one of [`WEIGHTS_FILES`] (their
/// content is checked on load).
pub fn holds_model(dir: &Path) -> bool {
    MODEL_FILES.iter().all(|name| dir.join(name).is_file()) && weights_in(dir).is_some()
}

fn non_empty_env(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}
