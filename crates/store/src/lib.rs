//! Storage for Memory Bank: one trait ([`MemoryStore`]) that every backend implements,
//! the search term scheme they all index ([`terms`]), the ranking they share ([`rank`]),
//! and [`Bank`], the store-agnostic logic the HTTP server and the CLI call.
//!
//! Backends live in their own crates (`memory-bank-store-sqlite`, …) and must pass the
//! shared suite in [`suite`] (feature `test-suite`).

mod bank;
mod edits;
mod error;
pub mod events;
pub mod import_ids;
pub mod meaning;
mod orgs;
mod proposals;
mod search_terms;
pub mod rank;
pub mod recall;
pub mod similar;
mod store;
mod team_bank;
mod team_inbox;
pub mod stored;
pub mod teams;
pub mod terms;
pub mod tokens;
pub mod word_forms;
pub mod transfer;
pub mod offboarding;

#[cfg(feature = "test-suite")]
pub mod suite;
#[cfg(feature = "test-suite")]
mod suite_citing;
#[cfg(feature = "test-suite")]
mod suite_confirm;
#[cfg(feature = "test-suite")]
mod suite_counts;
#[cfg(feature = "test-suite")]
mod suite_edits;
#[cfg(feature = "test-suite")]
mod suite_offboarding;
#[cfg(feature = "test-suite")]
mod suite_proposals;
#[cfg(feature = "test-suite")]
mod suite_similar;
#[cfg(feature = "test-suite")]
mod suite_team_inbox;
#[cfg(feature = "test-suite")]
mod suite_teams;
#[cfg(feature = "test-suite")]
mod suite_transfer;
#[cfg(feature = "test-suite")]
mod suite_word_forms;
#[cfg(feature = "test-suite")]
pub mod suite_meaning;

pub use bank::{Bank, Clock, SystemClock};
pub use error::StoreError;
pub use events::{BankEvent, BankEvents, CreatedVia};
pub use search_terms::TermsStatus;
pub use meaning::{Embed, Meaning};
pub use meaning::status::MeaningStatus;
pub use proposals::{Accepted, ProposalError};
pub use team_inbox::Saved;
pub use recall::{RecallQuery, RecallRule, Recalled};
pub use store::{
    BankKey, Candidate, Change, RowKey, TermRows, Worded, Decision, EnsureOutcome, ImportKind, ImportOutcome, ImportRow, MemoryStore, MemoryUpdate, NewContext, NewMemory, Offboard,
    OptimizeOutcome, SaveChecks, StoredVector, TermsProgress, TermsRewrite, TermsSource, TokenOwner, VectorRow, VectorSummary,
    SEARCH_CANDIDATE_CAP,
};
pub use teams::TeamStore;
pub use tokens::TokenKind;
