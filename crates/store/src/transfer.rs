//! Export and import, the bank's half: pages of [`ExportedMemory`] (each memory with
//! its revisions, newest first) for `GET /v1/export`, and importing checked lines in
//! batches, one transaction each, for `POST /v1/import`.

use std::collections::HashMap;

use memory_bank_contract::transfer::{ExportedMemory, ImportLineError, ImportReport, OnConflict, ValidImport};
use memory_bank_contract::validate::Cursor;

use crate::{terms, Bank, ImportOutcome, ImportRow, StoreError};

/// Memories per export page (one list query and one revisions query each).
pub const EXPORT_PAGE: u32 = 500;
/// Lines per import transaction: big enough to be quick, small enough not to hold the
/// database's write lock for long.
pub const IMPORT_BATCH: usize = 500;

impl Bank {
    /// One page of the user's export, newest first, strictly after `cursor`; the
    /// cursor of the next page, `None` after the last.
    pub async fn export_page(
        &self,
        user_id: &str,
        cursor: Option<&Cursor>,
    ) -> Result<(Vec<ExportedMemory>, Option<Cursor>), StoreError> {
        let memories = self.store().list_memories(user_id, cursor, EXPORT_PAGE).await?;
        let next = (memories.len() == EXPORT_PAGE as usize)
            .then(|| memories.last())
            .flatten()
            .map(|m| Cursor { created_at_ms: m.created_at.unix_ms(), id: m.id.clone() });
        let ids: Vec<String> = memories.iter().map(|m| m.id.clone()).collect();
        let mut revisions: HashMap<String, Vec<_>> = HashMap::new();
        for revision in self.store().revisions(user_id, &ids).await? {
            revisions.entry(revision.memory_id.clone()).or_default().push(revision);
        }
        let page = memories
            .into_iter()
            .map(|m| {
                let kept = revisions.remove(&m.id).unwrap_or_default();
                ExportedMemory::new(m, kept)
            })
            .collect();
        Ok((page, next))
    }

    /// Imports checked lines for the user in `org_id`, [`IMPORT_BATCH`] per
    /// transaction, and reports what became of each (lines that failed their checks
    /// are already in `report`).
    pub async fn import(
        &self,
        user_id: &str,
        org_id: &str,
        lines: Vec<ValidImport>,
        on_conflict: OnConflict,
        mut report: ImportReport,
    ) -> Result<ImportReport, StoreError> {
        // The whole import is refused when its new memories would pass the cap.
        let mut new = 0u64;
        for chunk in lines.chunks(IMPORT_BATCH) {
            let ids: Vec<String> = chunk.iter().map(|l| l.memory.id.clone()).collect();
            new += (ids.len() - self.store().memories_by_ids(user_id, &ids).await?.len()) as u64;
        }
        self.check_quota(user_id, new).await?;
        for batch in lines.chunks(IMPORT_BATCH) {
            let rows: Vec<ImportRow> = batch
                .iter()
                .map(|line| {
                    let m = &line.memory;
                    let search_text = terms::index_text(
                        user_id,
                        std::iter::once(m.content.as_str())
                            .chain(m.tags.iter().flatten().map(String::as_str))
                            .chain(m.contexts.iter().map(|c| c.snippet.as_str())),
                    );
                    ImportRow { memory: m.clone(), search_text }
                })
                .collect();
            let outcomes = self.store().import_memories(user_id, org_id, &rows, on_conflict).await?;
            for (line, outcome) in batch.iter().zip(outcomes) {
                match outcome {
                    ImportOutcome::Imported => report.imported += 1,
                    ImportOutcome::Skipped => report.skipped += 1,
                    ImportOutcome::Overwritten => report.overwritten += 1,
                    ImportOutcome::IdInUse => report.fail(ImportLineError {
                        line: line.line,
                        error: "id_in_use".into(),
                        message: "another memory in this service already uses this id (or one of its context or revision ids); \
                                  import it under new ids instead"
                            .into(),
                    }),
                }
            }
        }
        tracing::info!(
            user_id,
            org_id,
            imported = report.imported,
            skipped = report.skipped,
            overwritten = report.overwritten,
            failed = report.failed_count,
            "memory.import"
        );
        Ok(report)
    }
}
