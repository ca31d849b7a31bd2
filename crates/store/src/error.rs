use thiserror::Error;

/// Why a storage call failed. Each message says what to do about it.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The database cannot be reached (down, restarting, network); retrying later may work.
    #[error("the database is unavailable: {0}; check that it is running and reachable, then retry")]
    Unavailable(String),
    /// The database rolled the work back to settle a conflict with another writer at
    /// the same moment: an InnoDB deadlock, or on a Galera cluster another node's
    /// write or schema change. Nothing of it was kept; running it again may work.
    #[error("the database rolled this back to settle a conflict with another writer ({0}); nothing was changed, retry")]
    Contended(String),
    /// A referenced row (user, org, token) does not exist.
    #[error("{0} not found")]
    NotFound(String),
    /// A uniqueness rule was violated (e.g. the email is taken).
    #[error("{0}")]
    Conflict(String),
    /// The full-text search index is missing, so search would silently find nothing.
    #[error(
        "the full-text search index is missing from the {backend} database; run `memory-bank db migrate` \
         (with the same --database-url) to create it, then start again"
    )]
    SearchIndexMissing {
        /// Backend name, e.g. `sqlite`.
        backend: &'static str,
    },
    /// Applying migrations failed.
    #[error("database migration failed: {0}")]
    Migration(String),
    /// The user has as many memories as the service allows; nothing was saved.
    #[error("you have {limit} memories, the most this service keeps per person; delete some first")]
    QuotaExceeded {
        /// The per-user cap.
        limit: u64,
    },
    /// The input was rejected before reaching the database.
    #[error("{0}")]
    Invalid(String),
    /// Text did not pass the gate (limits, characters, secrets): a revision being restored
    /// that holds what a save would refuse. Nothing was changed.
    #[error("{}", .0.describe())]
    Refused(memory_bank_contract::gate::Refused),
    /// The bank file is encrypted and was opened without a key.
    #[error("the bank {path} is encrypted and no key was given; give it its key (see `memory-bank db status`)")]
    KeyMissing {
        /// The bank file.
        path: String,
    },
    /// The key given does not open the bank (or the file is not a bank at all).
    #[error("the key given does not open the bank {path} (or it is not a Memory Bank file); nothing was changed")]
    KeyRejected {
        /// The bank file.
        path: String,
    },
    /// The change needs the bank to itself (encrypting it, rekeying it) and another
    /// connection has it open.
    #[error(
        "the bank {path} is open in another process (the Memory Bank app, an agent's `memory-bank mcp`, \
         `memory-bank serve`); close them and try again"
    )]
    InUse {
        /// The bank file.
        path: String,
    },
    /// A team action the caller's role or the org's policy does not allow; nothing was
    /// changed.
    #[error("{}", .0.describe())]
    TeamRefused(memory_bank_contract::teams::TeamRefusal),
    /// Any other database failure.
    #[error("database error: {0}")]
    Database(String),
}
