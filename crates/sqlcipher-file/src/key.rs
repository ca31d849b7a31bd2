//! The key of a SQLCipher file: 32 random bytes, given to SQLCipher as a raw key.
//!
//! A raw key (`x'…'`) rather than a passphrase: the key is already random, so SQLCipher's
//! PBKDF2 stretching (256 000 rounds per connection) would only slow every pooled
//! connection down without making anything harder to guess.
//!
//! The type never prints its bytes (`Debug` says `DbKey(…)`), and the only text form,
//! [`DbKey::to_hex`], is for storing it where it belongs (the OS keyring, a key file).

use std::fmt;

use rand::RngCore as _;

/// Length of a key in bytes.
pub const KEY_BYTES: usize = 32;


/// A SQLCipher raw key.
#[derive(Clone, PartialEq, Eq)]
pub struct DbKey([u8; KEY_BYTES]);

/// Why a text is not a key: it must be 64 hexadecimal characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a database key is 64 hexadecimal characters (32 bytes), e.g. made with `openssl rand -hex 32`")]
pub struct KeyFormatError;

impl DbKey {
    /// A new key from the operating system's random source (through a CSPRNG seeded from it).
    pub fn generate() -> Self {
        let mut bytes = [0u8; KEY_BYTES];
        rand::rng().fill_bytes(&mut bytes);
        Self(bytes)
    }

    /// Parses 64 hexadecimal characters (either case); surrounding whitespace, such as
    /// the newline `openssl rand -hex 32 > file` writes, is ignored.
    pub fn from_hex(text: &str) -> Result<Self, KeyFormatError> {
        let text = text.trim();
        if text.len() != KEY_BYTES * 2 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(KeyFormatError);
        }
        let mut bytes = [0u8; KEY_BYTES];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| KeyFormatError)?;
        }
        Ok(Self(bytes))
    }

    /// The key as 64 lowercase hexadecimal characters, to store it. Never log it.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// SQLCipher's raw-key literal, `x'…'`. PRAGMA and ATTACH … KEY take it as text; it
    /// holds hexadecimal digits only, so it cannot change the statement it is put in.
    /// Bind it as a parameter (`ATTACH … KEY ?`); never log it.
    pub fn raw_literal(&self) -> String {
        format!("x'{}'", self.to_hex())
    }

    /// The value of `PRAGMA key = …` / `PRAGMA rekey = …`: the raw-key literal as a string.
    /// Public for other SQLite drivers on the same SQLCipher (rusqlite): run
    /// `PRAGMA key = <this>` as the connection's very first statement. Never log it.
    pub fn pragma_value(&self) -> String {
        format!("\"{}\"", self.raw_literal())
    }
}

impl fmt::Debug for DbKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DbKey(…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_only_hex_of_the_right_length_is_a_key() {
        let key = DbKey::generate();
        assert_eq!(DbKey::from_hex(&key.to_hex()), Ok(key.clone()));
        assert_eq!(DbKey::from_hex(&format!("{}\n", key.to_hex().to_uppercase())), Ok(key.clone()));
        assert_eq!(DbKey::from_hex(&key.to_hex()[..62]), Err(KeyFormatError));
        assert_eq!(DbKey::from_hex(&format!("{}0", key.to_hex())), Err(KeyFormatError));
        assert_eq!(DbKey::from_hex(&format!("{}zz", &key.to_hex()[..62])), Err(KeyFormatError));
        assert_eq!(DbKey::from_hex(&format!("{}'\"", &key.to_hex()[..62])), Err(KeyFormatError));
        assert_ne!(DbKey::generate(), DbKey::generate());
    }

    #[test]
    fn debug_never_shows_the_key() {
        let key = DbKey::generate();
        assert_eq!(format!("{key:?}"), "DbKey(…)");
        assert!(!format!("{key:?}").contains(&key.to_hex()[..8]));
    }
}
