//! Telling what a SQLCipher file is from its first bytes, without decrypting anything.

use std::io::Read as _;
use std::path::Path;

/// The first 16 bytes of every plaintext SQLite file; an encrypted one starts with its
/// random salt instead.
const PLAINTEXT_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// What a file is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    /// No file, or not even a header yet: a new file (another process may be creating it).
    Missing,
    /// A plaintext SQLite file.
    Plaintext,
    /// Anything else: encrypted (or not a database at all).
    Encrypted,
}

/// Reads the first bytes of `path` to tell what it is.
pub fn file_state(path: &Path) -> std::io::Result<FileState> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileState::Missing),
        Err(e) => return Err(e),
    };
    let mut head = Vec::with_capacity(16);
    file.by_ref().take(16).read_to_end(&mut head)?;
    Ok(match head.as_slice() {
        head if head == PLAINTEXT_HEADER => FileState::Plaintext,
        // Empty, shorter than a header, or zeros: a file another process is creating this
        // instant (two `memory-bank mcp` starting together). An encrypted file starts with
        // a random 16-byte salt, never with zeros.
        head if head.len() < PLAINTEXT_HEADER.len() || head.iter().all(|b| *b == 0) => FileState::Missing,
        _ => FileState::Encrypted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_told_by_its_first_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.db");
        assert_eq!(file_state(&path).unwrap(), FileState::Missing);
        for (bytes, state) in [
            (&b""[..], FileState::Missing),
            (&b"SQLite"[..], FileState::Missing),
            (&[0u8; 32][..], FileState::Missing),
            (&b"SQLite format 3\0 and the rest"[..], FileState::Plaintext),
            (&[7u8; 32][..], FileState::Encrypted),
        ] {
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(file_state(&path).unwrap(), state, "{bytes:?}");
        }
    }
}
