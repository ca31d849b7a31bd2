//! Making the vectors: right after each save and edit, and in the background for every
//! memory that has none (an import, a bank made before meaning search, a write whose
//! vector could not be made, another model). The backfill keeps no progress of its
//! own: a memory without a vector is what is left to do, so a backfill stopped at any
//! point (`kill -9` included) goes on where it was at the next start.

use std::time::Duration;

use memory_bank_contract::wire::{MeaningState, SearchStatus};

use super::{meaning_text, status::MeaningStatus, vector, Meaning};
use crate::store::{TermsSource, VectorRow};
use crate::{Bank, StoreError};

/// Memories embedded per call of the model (and written per transaction).
const BATCH: u32 = 64;

/// How long the backfill waits after the model failed before trying again.
const RETRY: Duration = Duration::from_secs(60);

impl Bank {
    /// Where meaning search stands. Loads the model if it is not loaded yet.
    pub async fn meaning_status(&self) -> Result<MeaningStatus, StoreError> {
        let Some(meaning) = self.meaning() else { return Ok(MeaningStatus::Off) };
        let embed = meaning.embedder();
        match embed.check().await {
            Err(reason) => Ok(MeaningStatus::Unavailable { reason }),
            Ok(location) => {
                let (memories, with_vector) = self.store().vector_coverage(embed.model()).await?;
                Ok(MeaningStatus::On { model: embed.model().to_owned(), location, memories, with_vector })
            }
        }
    }

    /// Whether the user's searches read meaning, and how many of their memories have
    /// their vector. Never loads the model (the panel polls it): a model that failed
    /// when last tried is `unavailable`.
    pub async fn search_status(&self, user_id: &str) -> Result<SearchStatus, StoreError> {
        let memories = self.store().count_memories(crate::BankKey::Personal(user_id)).await?;
        let Some(meaning) = self.meaning() else {
            return Ok(SearchStatus { meaning: MeaningState::Off, memories, with_vector: 0, reason: None });
        };
        let embed = meaning.embedder();
        let with_vector = self.store().vector_summary(user_id, embed.model()).await?.count.min(memories);
        Ok(match embed.problem() {
            Some(reason) => SearchStatus { meaning: MeaningState::Unavailable, memories, with_vector, reason: Some(reason) },
            None => SearchStatus { meaning: MeaningState::On, memories, with_vector, reason: None },
        })
    }

    /// Makes and writes the vector of one memory just written; a failure is logged and
    /// left to the backfill (the memory is found by its words meanwhile).
    pub(crate) async fn remember_meaning(&self, user_id: &str, memory_id: &str, search_text: &str, content: &str, tags: &[String]) {
        let Some(meaning) = self.meaning() else { return };
        let row = TermsSource {
            id: memory_id.to_owned(),
            user_id: user_id.to_owned(),
            content: content.to_owned(),
            tags: tags.to_vec(),
            snippets: Vec::new(),
            search_text: search_text.to_owned(),
        };
        if let Err(why) = write_vectors(self, meaning, &[row]).await {
            tracing::info!(memory_id, %why, "memory.vector_deferred");
            meaning.wake.notify_one();
        }
    }

    /// Tells the backfill there may be memories without a vector (after an import).
    pub(crate) fn wake_backfill(&self) {
        if let Some(meaning) = self.meaning() {
            meaning.wake.notify_one();
        }
    }

    /// Makes the vector of every memory that has none; how many it wrote. Returns at
    /// once, 0, when this bank has no model.
    pub async fn backfill_vectors(&self) -> Result<u64, String> {
        let Some(meaning) = self.meaning() else { return Ok(0) };
        let model = meaning.embedder().model().to_owned();
        let dropped = self.store().drop_other_vectors(&model).await.map_err(|e| e.to_string())?;
        if dropped > 0 {
            tracing::info!(dropped, model, "vectors of another model dropped; making this model's");
        }
        let mut written = 0u64;
        let mut after: Option<String> = None;
        loop {
            let rows = self
                .store()
                .memories_without_vector(&model, after.as_deref(), BATCH)
                .await
                .map_err(|e| e.to_string())?;
            let Some(last) = rows.last().map(|r| r.id.clone()) else { break };
            written += write_vectors(self, meaning, &rows).await?;
            after = Some(last);
        }
        if written > 0 {
            tracing::info!(written, model, "vectors made");
        }
        Ok(written)
    }

    /// [`Bank::backfill_vectors`] for as long as the bank lives: once at start, then
    /// each time a write leaves a memory without a vector, and a minute after the
    /// model failed. `tokio::spawn(bank.clone().backfill_vectors_forever())`.
    pub async fn backfill_vectors_forever(self) {
        let Some(meaning) = self.meaning_arc() else { return };
        loop {
            match self.backfill_vectors().await {
                Ok(_) => meaning.wake.notified().await,
                Err(why) => {
                    tracing::warn!(%why, "making vectors stopped; memories without one are found by their words");
                    tokio::select! {
                        _ = meaning.wake.notified() => {}
                        _ = tokio::time::sleep(RETRY) => {}
                    }
                }
            }
        }
    }
}

/// Embeds `rows` and writes their vectors; how many were written (a memory edited
/// meanwhile is skipped: its edit made its own).
async fn write_vectors(bank: &Bank, meaning: &Meaning, rows: &[TermsSource]) -> Result<u64, String> {
    let embed = meaning.embedder();
    let texts: Vec<String> = rows.iter().map(|r| meaning_text(&r.content, &r.tags)).collect();
    let vectors = embed.embed(texts).await?;
    if vectors.len() != rows.len() {
        return Err(format!("the model gave {} vectors for {} texts", vectors.len(), rows.len()));
    }
    let writes: Vec<VectorRow> = rows
        .iter()
        .zip(vectors)
        .map(|(row, v)| VectorRow {
            memory_id: row.id.clone(),
            user_id: row.user_id.clone(),
            search_text: row.search_text.clone(),
            vector: vector::encode(&v),
        })
        .collect();
    bank.store().put_vectors(embed.model(), &writes).await.map_err(|e| e.to_string())
}
