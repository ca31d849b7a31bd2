//! Settings → Data: export every memory to a file, and import an export back.
//!
//! The file is chosen in the system's file dialog, opened by Rust ([`FilePicker`]): the
//! web view never names a path, so a page that ran script in it still could not make the
//! app write or read an arbitrary file. The file format is the service's export (NDJSON,
//! `GET /v1/export`), written to a temporary file beside the chosen one and renamed over
//! it only when complete, so a failed export never leaves half a file under that name.
//!
//! An import is sent in slices of [`IMPORT_SLICE_LINES`] lines, so a large file (10⁵
//! memories) reports progress as it goes and no request holds the service for long; the
//! service checks each line (limits, secrets) and the reports are added up, with line
//! numbers counted over the whole file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use memory_bank_contract::transfer::{ImportReport, OnConflict, MAX_IMPORT_BYTES};
use memory_bank_contract::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::{Core, DesktopError};

/// Lines per import request: large enough that requests are few, small enough that the
/// progress bar moves every second or so on a 10⁵-memory file.
pub const IMPORT_SLICE_LINES: usize = 2_000;

/// The system's file dialog (Tauri's dialog plugin in the app). Blocking: called off the
/// async runtime's workers.
pub trait FilePicker: Send + Sync + 'static {
    /// Where to write an export, `suggested_name` offered; `None` when cancelled.
    fn export_path(&self, suggested_name: &str) -> Option<PathBuf>;
    /// Which export file to import; `None` when cancelled.
    fn import_path(&self) -> Option<PathBuf>;
    /// Which chat export (ChatGPT's or Claude.ai's zip, or its conversations.json) to import
    /// into the session history; `None` when cancelled.
    fn chat_export_path(&self) -> Option<PathBuf>;
}

/// `import_chats`: the file read and what the import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportChatsOutcome {
    /// The file read; null when the person cancelled the dialog.
    pub path: Option<String>,
    /// What was kept (null when cancelled).
    pub imported: Option<memory_bank_sessions::ImportedChats>,
}

/// Export or import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TransferKind {
    /// Memories to a file.
    Export,
    /// A file to memories.
    Import,
}

/// How far an export or import is (the `transfer-progress` event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TransferProgress {
    /// Which one.
    pub kind: TransferKind,
    /// Memories written (export) or lines sent (import) so far.
    pub done: u64,
    /// Lines in the file (import); unknown (null) for an export.
    pub total: Option<u64>,
}

/// What an export did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExportOutcome {
    /// The file written; null when the person cancelled the dialog.
    pub path: Option<String>,
    /// Memories in it.
    pub memories: u64,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportOutcome {
    /// The file read; null when the person cancelled the dialog.
    pub path: Option<String>,
    /// The service's reports added up, line numbers counted over the whole file.
    pub report: ImportReport,
}

/// `import_memories`: what to do with a memory the bank already has.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportArgs {
    /// The org the import is made in.
    pub org_id: String,
    /// `skip` (the default: importing a file twice changes nothing) or `overwrite`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "\"skip\" | \"overwrite\" | undefined", optional))]
    pub on_conflict: Option<OnConflict>,
}

fn file_error(path: &Path, what: &str, err: std::io::Error) -> DesktopError {
    DesktopError::new(ErrorCode::File, format!("cannot {what} {}: {err}", path.display()))
}

impl Core {
    /// Writes every memory of the signed-in user to `path` (NDJSON, the service's
    /// export), reporting each 1 000 memories; how many it wrote.
    pub async fn export_to_file(
        &self,
        org_id: &str,
        path: &Path,
        progress: &(dyn Fn(TransferProgress) + Send + Sync),
    ) -> Result<u64, DesktopError> {
        let client = self.client().await?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        // Private (0600), like every file we make: it holds every memory; renamed into place.
        let mut file =
            crate::private_files::temp_file_in(dir, ".memory-bank-export-", ".tmp").map_err(|e| file_error(dir, "write in", e))?;
        let mut written = 0u64;
        let mut reported = 0u64;
        let result = client
            .export(org_id, |chunk| {
                file.write_all(chunk)?;
                written += memchr_count(chunk);
                if written >= reported + 1_000 {
                    reported = written;
                    progress(TransferProgress { kind: TransferKind::Export, done: written, total: None });
                }
                Ok(())
            })
            .await;
        result?;
        file.as_file().sync_all().map_err(|e| file_error(path, "write", e))?;
        file.persist(path).map_err(|e| file_error(path, "write", e.error))?;
        progress(TransferProgress { kind: TransferKind::Export, done: written, total: None });
        tracing::info!(memories = written, "memory.export_to_file");
        Ok(written)
    }

    /// Imports an export file into the signed-in user's bank, [`IMPORT_SLICE_LINES`]
    /// lines per request, reporting after each; the reports added up.
    pub async fn import_from_file(
        &self,
        org_id: &str,
        path: &Path,
        on_conflict: OnConflict,
        progress: &(dyn Fn(TransferProgress) + Send + Sync),
    ) -> Result<ImportReport, DesktopError> {
        let size = std::fs::metadata(path).map_err(|e| file_error(path, "read", e))?.len();
        if size > MAX_IMPORT_BYTES as u64 {
            let message = format!(
                "{} is {} MiB; an import file may have at most {} MiB: split it into smaller files",
                path.display(),
                size / (1024 * 1024),
                MAX_IMPORT_BYTES / (1024 * 1024)
            );
            return Err(DesktopError::new(ErrorCode::PayloadTooLarge, message));
        }
        let bytes = std::fs::read(path).map_err(|e| file_error(path, "read", e))?;
        let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
        let total = lines.len() as u64;
        let client = self.client().await?;
        let mut report = ImportReport::default();
        let mut done = 0u64;
        progress(TransferProgress { kind: TransferKind::Import, done, total: Some(total) });
        for slice in lines.chunks(IMPORT_SLICE_LINES) {
            let body: Vec<u8> = slice.concat();
            let part = client.import(org_id, body, on_conflict).await?;
            report.add(part, done as usize);
            done += slice.len() as u64;
            progress(TransferProgress { kind: TransferKind::Import, done, total: Some(total) });
        }
        tracing::info!(
            imported = report.imported,
            skipped = report.skipped,
            new_ids = report.new_id_count,
            failed = report.failed_count,
            "memory.import_from_file"
        );
        Ok(report)
    }
}

fn memchr_count(chunk: &[u8]) -> u64 {
    chunk.iter().filter(|b| **b == b'\n').count() as u64
}
