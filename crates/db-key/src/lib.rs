//! The key of an encrypted SQLite bank, in one place: where it lives, how a bank is
//! opened, checked and rekeyed with it, and what to tell the person when it is wrong.
//!
//! A key lives in one of two places ([`KeySource`]):
//!
//! - a **key file** (`--db-key-file` / `MEMORY_BANK_DB_KEY_FILE`): 64 hexadecimal
//!   characters, readable by its owner only (a file others can read is refused). The
//!   one secret this project ever keeps in a plain file, for servers and scripts that
//!   have no keyring;
//! - the **OS keyring** (Secret Service, Keychain, Credential Manager): a random key is
//!   made on first use. The desktop app and `memory-bank mcp` use it by default.
//!
//! Whatever goes wrong, a bank that exists is never replaced: a missing or wrong key is
//! an error that names the fix ([`KeyError`]), and the file is left as it was.

mod bank;
mod error;
mod file;
mod keyring_entry;

pub use bank::{keyring_unavailable_note, keyring_unavailable_noted, open_bank, rekey_bank, resolve_key, status, BankStatus, KeySource};
pub use error::KeyError;
pub use file::{read_key_file, write_key_file};
pub use keyring_entry::{KeyringEntry, KEYRING_SERVICE};
pub use memory_bank_store_sqlite::{DbKey, FileState};
