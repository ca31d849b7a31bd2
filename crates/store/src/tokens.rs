//! API tokens: 256 random bits, shown once, stored only as a SHA-256 hash.
//!
//! A fast hash is right here: the secret has full entropy, so there is nothing for a
//! slow password hash to protect, and every request hashes once.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// What a token may do, stored beside its hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// Issued by an admin for a person or their app: every action.
    Full,
    /// Issued for an agent (`admin token issue --agent`): may search, list and
    /// propose, never save, confirm or delete on its own.
    Agent,
    /// The desktop app's embedded service, one per run: every action. Revoked when the
    /// run ends, and at the next start for a run that ended without cleaning up.
    Local,
}

impl TokenKind {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Full => "full",
            TokenKind::Agent => "agent",
            TokenKind::Local => "local",
        }
    }

    /// Reads the stored spelling; an unknown one (written by a newer release) is the
    /// least privileged kind.
    pub fn from_stored(text: &str) -> Self {
        match text {
            "full" => TokenKind::Full,
            "local" => TokenKind::Local,
            _ => TokenKind::Agent,
        }
    }
}

/// Prefix that makes a leaked token easy to recognise (and to scan for).
pub const TOKEN_PREFIX: &str = "mbk_";

/// A new random token (`mbk_` + 43 URL-safe characters = 256 bits).
pub fn generate() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{TOKEN_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// The hex SHA-256 of a token: the only form that is stored.
pub fn hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_long_and_hashed_stably() {
        let (a, b) = (generate(), generate());
        assert_ne!(a, b);
        assert_eq!(a.len(), TOKEN_PREFIX.len() + 43);
        assert_eq!(hash(&a), hash(&a));
        assert_eq!(hash(&a).len(), 64);
        assert!(!hash(&a).contains(&a[TOKEN_PREFIX.len()..]));
    }
}
