//! The one error type of key handling; every message says what to do.

use memory_bank_store::StoreError;

/// What can go wrong finding a key or opening a bank with it.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The key file cannot be read.
    #[error("cannot read the database key file {path}: {detail}; check the path given with --db-key-file or MEMORY_BANK_DB_KEY_FILE")]
    FileUnreadable {
        /// The key file.
        path: String,
        /// The system's reason.
        detail: String,
    },
    /// The key file can be read by other users.
    #[error("the database key file {path} can be read by other users (mode {mode:04o}); make it private with `chmod 600 {path}` and try again")]
    FileNotPrivate {
        /// The key file.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The key file does not hold a key.
    #[error("the database key file {path} does not hold a key: it must contain 64 hexadecimal characters (32 bytes), e.g. made with `(umask 077; openssl rand -hex 32 > {path})`")]
    FileFormat {
        /// The key file.
        path: String,
    },
    /// The key file cannot be written (rekey).
    #[error("cannot write the database key file {path}: {detail}; the bank keeps its old key")]
    FileWrite {
        /// The key file.
        path: String,
        /// The system's reason.
        detail: String,
    },
    /// The OS keyring does not answer.
    #[error("the OS keyring is not available ({detail}); unlock or start it (GNOME Keyring, KWallet, Keychain, Credential Manager), or give the key in a file with --db-key-file or MEMORY_BANK_DB_KEY_FILE")]
    KeyringUnavailable {
        /// The keyring's reason.
        detail: String,
    },
    /// The file (the bank, the session archive) is encrypted and its key is not in the keyring.
    #[error("the database {path} is encrypted but its key is missing from the OS keyring ({entry}); restore that entry, or point MEMORY_BANK_DB_KEY_FILE at a copy of the key. The file was not changed")]
    KeyringEntryMissing {
        /// The bank file.
        path: String,
        /// The keyring entry, described.
        entry: String,
    },
    /// The file is encrypted and no key source was given.
    #[error("the database {path} is encrypted; give its key with --db-key-file PATH (or MEMORY_BANK_DB_KEY_FILE), or --db-key-keyring to use the OS keyring entry the app made. The file was not changed")]
    NoKey {
        /// The bank file.
        path: String,
    },
    /// The key found does not open the bank.
    #[error("the key in {source_} does not open the bank {path}; put the bank's own key there (a copy of it, or the entry from the machine that encrypted it). The bank was not changed")]
    WrongKey {
        /// The bank file.
        path: String,
        /// Where the key came from, described.
        source_: String,
    },
    /// `db rekey` on a bank that is not encrypted.
    #[error("the bank {path} is not encrypted, so it has no key to change; open it once with a key (--db-key-file or --db-key-keyring) and it is encrypted then")]
    NotEncrypted {
        /// The bank file.
        path: String,
    },
    /// Anything the store reported.
    #[error(transparent)]
    Store(#[from] StoreError),
}
