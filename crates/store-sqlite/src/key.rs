//! The bank's key type lives in `memory-bank-sqlcipher-file`, which the session archive
//! (rusqlite, no sqlx) shares; re-exported here so every path to it keeps working.

pub use memory_bank_sqlcipher_file::{DbKey, KeyFormatError};
