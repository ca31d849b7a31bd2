//! The bank's key type lives in `memory-bank-sqlcipher-key`, which the session archive
//! (rusqlite, no sqlx) shares; re-exported here so every path to it keeps working.

pub use memory_bank_sqlcipher_key::{DbKey, KeyFormatError};
