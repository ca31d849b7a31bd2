//! Rewriting stored search terms when the term scheme changes ([`TERMS_VERSION`]).
//!
//! Terms are derived only from a memory's own text, so an older bank is brought up to
//! date by deriving them again, in id order, a batch per transaction. Progress is
//! stored with each batch, so a rewrite stopped at any point (a CLI command that
//! exits, `kill -9`) resumes where it was. Search works meanwhile: a memory not yet
//! rewritten matches its exact words, as before.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::store::{TermsProgress, TermsRewrite};
use crate::terms::{self, Term, TERMS_VERSION};
use crate::{Bank, StoreError};

/// Memories a rewrite transaction takes.
const BATCH: u32 = 500;

/// Where the rewrite stands, for `db status` and the panel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermsStatus {
    /// The scheme every memory will have when done.
    pub version: i64,
    /// True when every memory has it.
    pub done: bool,
    /// The last memory id rewritten while not done.
    pub done_through: Option<String>,
}

/// How long a search trusts "not every memory is in today's scheme" before reading
/// the rewrite's progress again.
const RECHECK_AFTER: Duration = Duration::from_secs(1);

/// Whether every memory's terms are in today's scheme, as this bank last read it. Once
/// they are, they stay so: every write derives today's terms, and the stored version
/// only grows. So it is read again only while they are not, at most once a
/// [`RECHECK_AFTER`]; meanwhile a search reads every query term's entries, which is
/// always right, only slower.
#[derive(Debug, Default)]
pub(crate) struct SchemeCurrent {
    current: AtomicBool,
    checked_at: Mutex<Option<Instant>>,
}

impl Bank {
    /// The terms a search reads index entries for: [`terms::covering_terms`] once every
    /// memory's terms are in today's scheme, every query term before.
    pub(crate) async fn lookup_terms(&self, query_terms: &[Term]) -> Result<Vec<Term>, StoreError> {
        if self.scheme_is_current().await? {
            Ok(terms::covering_terms(query_terms))
        } else {
            Ok(query_terms.to_vec())
        }
    }

    async fn scheme_is_current(&self) -> Result<bool, StoreError> {
        let state = self.scheme_current();
        if state.current.load(Ordering::Relaxed) {
            return Ok(true);
        }
        {
            let mut checked_at = state.checked_at.lock().unwrap_or_else(|poison| poison.into_inner());
            if checked_at.is_some_and(|at| at.elapsed() < RECHECK_AFTER) {
                return Ok(false);
            }
            *checked_at = Some(Instant::now());
        }
        let current = self.store().terms_progress().await?.version >= TERMS_VERSION;
        if current {
            state.current.store(true, Ordering::Relaxed);
        }
        Ok(current)
    }

    /// Where the rewrite of search terms stands.
    pub async fn terms_status(&self) -> Result<TermsStatus, StoreError> {
        let progress = self.store().terms_progress().await?;
        Ok(TermsStatus { version: TERMS_VERSION, done: progress.version >= TERMS_VERSION, done_through: progress.done_through })
    }

    /// Rewrites one batch of memories whose terms are in an older scheme. Returns how
    /// many memories it read; 0 when every memory is in today's scheme.
    pub async fn rewrite_search_terms_batch(&self) -> Result<usize, StoreError> {
        let progress = self.store().terms_progress().await?;
        if progress.version >= TERMS_VERSION {
            return Ok(0);
        }
        let rows = self.store().memories_for_terms(progress.done_through.as_deref(), BATCH).await?;
        let Some(last) = rows.last().map(|r| r.id.clone()) else {
            // Past the last memory: everything written since the start is in today's scheme.
            let done = TermsProgress { version: TERMS_VERSION, done_through: None };
            self.store().rewrite_terms(&[], &done).await?;
            self.scheme_current().current.store(true, Ordering::Relaxed);
            tracing::info!(version = TERMS_VERSION, "search terms rewritten");
            return Ok(0);
        };
        let rewrites: Vec<TermsRewrite> = rows
            .iter()
            .map(|row| {
                let snippets = row.snippets.iter().map(String::as_str);
                let new = terms::memory_index_text(&row.user_id, &row.content, &row.tags, snippets);
                TermsRewrite { id: row.id.clone(), old: row.search_text.clone(), new }
            })
            .filter(|r| r.old != r.new)
            .collect();
        let next = TermsProgress { version: progress.version, done_through: Some(last) };
        let changed = self.store().rewrite_terms(&rewrites, &next).await?;
        tracing::debug!(read = rows.len(), changed, "search terms batch");
        Ok(rows.len())
    }

    /// Rewrites every memory's terms that are in an older scheme; returns how many
    /// memories were read.
    pub async fn rewrite_search_terms(&self) -> Result<u64, StoreError> {
        let mut read = 0u64;
        loop {
            match self.rewrite_search_terms_batch().await? {
                0 => return Ok(read),
                n => read += n as u64,
            }
        }
    }

    /// [`Bank::rewrite_search_terms`] for a background task: a failure is logged,
    /// and the next start resumes it. `tokio::spawn(bank.clone().rewrite_search_terms_logged())`.
    pub async fn rewrite_search_terms_logged(self) {
        if let Err(err) = self.rewrite_search_terms().await {
            tracing::warn!(error = %err, "rewriting search terms stopped; it resumes at the next start");
        }
    }
}
