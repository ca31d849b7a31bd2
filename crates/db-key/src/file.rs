//! The key file: 64 hexadecimal characters, readable by its owner only.

use std::io::Write as _;
use std::path::Path;

use memory_bank_private_files::ReadPrivateError;
use memory_bank_store_sqlite::DbKey;

use crate::KeyError;

/// Reads the key in `path`, refusing a file that other users can read (on Unix: any
/// group or other permission bit).
pub fn read_key_file(path: &Path) -> Result<DbKey, KeyError> {
    let text = read_secret(path)?;
    DbKey::from_hex(&text).map_err(|_| KeyError::FileFormat { path: path.display().to_string() })
}

/// The text of a key file, through the one check every secret file passes.
fn read_secret(path: &Path) -> Result<String, KeyError> {
    let shown = path.display().to_string();
    memory_bank_private_files::read_private(path).map_err(|e| match e {
        ReadPrivateError::Unreadable(detail) => KeyError::FileUnreadable { path: shown, detail },
        ReadPrivateError::NotPrivate { mode } => KeyError::FileNotPrivate { path: shown, mode },
    })
}

/// Writes `key` to `path` (mode 0600), replacing it in one step: a new file beside it,
/// flushed, then renamed over it.
pub fn write_key_file(path: &Path, key: &DbKey) -> Result<(), KeyError> {
    write_private(path, &format!("{}\n", key.to_hex()))
}

/// The keys in a file of retired keys (one per line); none when there is no file. Held
/// to the key file's rules: private, and only keys.
pub(crate) fn read_retired(path: &Path) -> Result<Vec<DbKey>, KeyError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    // The same checks as a key file, on the whole text first (mode, readable).
    let shown = path.display().to_string();
    let text = read_secret(path)?;
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| DbKey::from_hex(l).map_err(|_| KeyError::FileFormat { path: shown.clone() })).collect()
}

/// Writes the retired `keys` to `path` (mode 0600), in one step.
pub(crate) fn write_retired(path: &Path, keys: &[DbKey]) -> Result<(), KeyError> {
    write_private(path, &keys.iter().map(|k| format!("{}\n", k.to_hex())).collect::<String>())
}

fn write_private(path: &Path, text: &str) -> Result<(), KeyError> {
    let failed = |e: std::io::Error| KeyError::FileWrite { path: path.display().to_string(), detail: e.to_string() };
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".tmp");
    let temporary = path.with_file_name(name);
    let _ = std::fs::remove_file(&temporary);
    let mut file = memory_bank_private_files::open_options().write(true).create_new(true).open(&temporary).map_err(failed)?;
    file.write_all(text.as_bytes()).and_then(|()| file.sync_all()).map_err(failed)?;
    std::fs::rename(&temporary, path).map_err(failed)?;
    Ok(())
}
