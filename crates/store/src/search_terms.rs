//! Rewriting stored search terms when the term scheme changes ([`TERMS_VERSION`]).
//!
//! Terms are derived only from a memory's own text, so an older bank is brought up to
//! date by deriving them again, in id order, a batch per transaction. Progress is
//! stored with each batch, so a rewrite stopped at any point (a CLI command that
//! exits, `kill -9`) resumes where it was. Search works meanwhile: a memory not yet
//! rewritten matches its exact words, as before.

use crate::store::{TermsProgress, TermsRewrite};
use crate::terms::{self, TERMS_VERSION};
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

impl Bank {
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
