//! Export and import, the bank's half: pages of [`ExportedMemory`] (each memory with
//! its revisions, newest first) for `GET /v1/export`, and importing checked lines in
//! batches, one transaction each, for `POST /v1/import`.
//!
//! What is decided here for the whole request rather than per line: a memory id met
//! on an earlier line is reported (a file holds each memory once), and at the memory
//! cap the new lines that fit are imported in file order and each one past it is
//! reported as `quota_exceeded`, so the import's promise (bad lines reported, the good
//! ones imported) holds for the cap too, and a file sent in slices (the app's import)
//! behaves as one sent whole.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use memory_bank_contract::transfer::{ExportedMemory, ImportLineError, ImportNewId, ImportReport, OnConflict, ValidImport};
use memory_bank_contract::validate::Cursor;

use crate::import_ids::import_id;
use crate::events::{BankEvent, CreatedVia};
use crate::{terms, Bank, ImportKind, ImportRow, StoreError};

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
        self.export_page_of(crate::BankKey::Personal(user_id), cursor).await
    }

    /// One page of a bank's export (a person's, or an org's team bank: each line then
    /// says who saved and who confirmed it), as [`Bank::export_page`].
    pub async fn export_page_of(
        &self,
        bank: crate::BankKey<'_>,
        cursor: Option<&Cursor>,
    ) -> Result<(Vec<ExportedMemory>, Option<Cursor>), StoreError> {
        let user_id = bank.owner();
        let memories = self.store().list_memories(bank, cursor, EXPORT_PAGE).await?;
        let next = (memories.len() == EXPORT_PAGE as usize)
            .then(|| memories.last())
            .flatten()
            .map(|m| Cursor { created_at_ms: m.created_at.unix_ms(), id: m.id.clone() });
        let ids: Vec<String> = memories.iter().map(|m| m.id.clone()).collect();
        let mut revisions: HashMap<String, Vec<_>> = HashMap::new();
        for revision in self.store().revisions(user_id, &ids).await? {
            revisions.entry(revision.revision.memory_id.clone()).or_default().push(revision);
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
    /// are already in `report`; the report lists lines in file order).
    pub async fn import(
        &self,
        user_id: &str,
        org_id: &str,
        lines: Vec<ValidImport>,
        on_conflict: OnConflict,
        mut report: ImportReport,
    ) -> Result<ImportReport, StoreError> {
        let lines = once_each(lines, &mut report);
        let lines = self.within_quota(user_id, lines, &mut report).await?;
        for batch in lines.chunks(IMPORT_BATCH) {
            let rows: Vec<ImportRow> = batch
                .iter()
                .map(|line| {
                    let m = &line.memory;
                    let search_text = terms::memory_index_text(
                        user_id,
                        &m.content,
                        m.tags.as_deref().unwrap_or_default(),
                        m.contexts.iter().map(|c| c.snippet.as_str()),
                    );
                    ImportRow { memory: m.clone(), search_text }
                })
                .collect();
            let outcomes = self.store().import_memories(user_id, org_id, &rows, on_conflict).await?;
            for (line, outcome) in batch.iter().zip(outcomes) {
                match outcome.kind {
                    ImportKind::Imported => report.imported += 1,
                    ImportKind::Skipped => report.skipped += 1,
                    ImportKind::Overwritten => report.overwritten += 1,
                }
                if outcome.kind != ImportKind::Skipped && outcome.id != line.memory.id {
                    report.new_id(ImportNewId { line: line.line, id: outcome.id });
                }
            }
        }
        if report.imported > 0 {
            self.record(BankEvent::MemoriesCreated { via: CreatedVia::Import, count: report.imported });
        }
        report.failed.sort_by_key(|f| f.line);
        report.new_ids.sort_by_key(|n| n.line);
        if report.imported + report.overwritten > 0 {
            // Their vectors are made in the background, a batch per call of the model,
            // so an import stays as fast as before; their words match at once.
            self.wake_backfill();
        }
        tracing::info!(
            user_id,
            org_id,
            imported = report.imported,
            skipped = report.skipped,
            overwritten = report.overwritten,
            new_ids = report.new_id_count,
            failed = report.failed_count,
            "memory.import"
        );
        Ok(report)
    }

    /// The lines that fit under the user's memory cap: every line the user has already
    /// (it adds nothing), and new ones in file order while there is room; each new line
    /// past the cap is reported. Counted before the write, like a save's check.
    async fn within_quota(
        &self,
        user_id: &str,
        lines: Vec<ValidImport>,
        report: &mut ImportReport,
    ) -> Result<Vec<ValidImport>, StoreError> {
        let Some(limit) = self.max_memories_per_user() else { return Ok(lines) };
        let mut has = HashSet::new();
        for chunk in lines.chunks(IMPORT_BATCH) {
            let ids: Vec<String> =
                chunk.iter().flat_map(|l| [l.memory.id.clone(), import_id(user_id, &l.memory.id)]).collect();
            has.extend(self.store().memories_by_ids(crate::BankKey::Personal(user_id), &ids).await?.into_iter().map(|m| m.id));
        }
        let adding = u64::try_from(lines.len()).unwrap_or(u64::MAX);
        let have = self.count_against(crate::BankKey::Personal(user_id), adding, limit).await?;
        let mut room = limit.saturating_sub(have);
        let mut refused = 0u64;
        let kept = lines
            .into_iter()
            .filter(|line| {
                let id = &line.memory.id;
                if has.contains(id) || has.contains(&import_id(user_id, id)) {
                    return true;
                }
                if room > 0 {
                    room -= 1;
                    return true;
                }
                refused += 1;
                report.fail(ImportLineError {
                    line: line.line,
                    error: "quota_exceeded".into(),
                    message: format!(
                        "this service keeps at most {limit} memories per person, and this line would pass that; \
                         delete some memories, then import the file again (what was imported is skipped)"
                    ),
                });
                false
            })
            .collect();
        if refused > 0 {
            tracing::info!(user_id, have, refused, limit, "memory.quota_exceeded");
            self.record(BankEvent::QuotaRefused { count: refused });
        }
        Ok(kept)
    }
}

/// The lines whose memory id no earlier line of the request has; each later one is
/// reported.
fn once_each(lines: Vec<ValidImport>, report: &mut ImportReport) -> Vec<ValidImport> {
    let mut first: HashMap<String, usize> = HashMap::new();
    lines
        .into_iter()
        .filter(|line| match first.entry(line.memory.id.clone()) {
            Entry::Vacant(free) => {
                free.insert(line.line);
                true
            }
            Entry::Occupied(earlier) => {
                report.fail(ImportLineError {
                    line: line.line,
                    error: "invalid_request".into(),
                    message: format!(
                        "this line repeats the id of line {} ({}); a file holds each memory once: remove one of the two",
                        earlier.get(),
                        line.memory.id
                    ),
                });
                false
            }
        })
        .collect()
}
