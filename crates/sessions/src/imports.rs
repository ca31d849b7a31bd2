//! Importing a chat export (ChatGPT's, Claude.ai's): its conversations are kept, one file
//! each, in `<data folder>/imports/<source>/`, where their readers find them
//! (`sources::exports`), so they are listed, read, searched, cited and archived like any
//! other session.
//!
//! Why copies, one per conversation: the export's zip is the person's file, and may be
//! moved or deleted; a conversation is the unit that changes between two exports, so
//! importing a newer export rewrites only the conversations that changed (ids stay the
//! export's own, so a re-import is the same sessions), and never loses one a later export
//! no longer has (ChatGPT and Claude.ai drop deleted chats from later exports; the copy
//! stays). A conversation already kept from a later export is not replaced by an older one.
//!
//! The export is read as a stream: `conversations.json` can be hundreds of megabytes, and
//! only one conversation is in memory at a time.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde::Serialize;
use serde_json::Value;

use crate::model::Source;
use crate::sources::{chatgpt::CHATGPT, claude_ai::CLAUDE_AI};

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportedChats {
    /// Whose export it was (the first conversation's kind decides).
    pub source: Option<Source>,
    /// Conversations in the export.
    pub conversations: u64,
    /// New ones, kept now.
    pub added: u64,
    /// Ones kept before that the export has a later version of.
    pub updated: u64,
    /// Ones kept before, unchanged (or kept from a later export).
    pub unchanged: u64,
    /// Entries that are not a conversation of either export (read past).
    pub skipped: u64,
}

/// Why an import failed; nothing half-written is left (each conversation's file is
/// replaced atomically), and what was kept before stays.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not a zip holding `conversations.json`, nor such a JSON file.
    #[error("{path} is not a ChatGPT or Claude.ai export: {why}. Choose the .zip the export email linked to (or the conversations.json inside it).")]
    NotAnExport {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A conversation could not be kept.
    #[error("cannot keep the imported conversations in {path}: {source}")]
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Imports the export at `file` (its zip, or its `conversations.json`) into `data_dir`.
pub fn import_chats(file: &Path, data_dir: &Path) -> Result<ImportedChats, ImportError> {
    let read_error = |source| ImportError::Read { path: file.to_path_buf(), source };
    let not_export = |why: String| ImportError::NotAnExport { path: file.to_path_buf(), why };
    let mut opened = std::fs::File::open(file).map_err(read_error)?;
    let mut magic = [0u8; 4];
    let is_zip = opened.read(&mut magic).map_err(read_error)? == 4 && magic == *b"PK\x03\x04";
    drop(opened);
    let mut report = ImportedChats::default();
    let mut keep = |conversation: Value| keep(conversation, data_dir, &mut report);
    if is_zip {
        let archive = std::fs::File::open(file).map_err(read_error)?;
        let mut zip = zip::ZipArchive::new(std::io::BufReader::new(archive)).map_err(|e| not_export(e.to_string()))?;
        let names: Vec<String> = zip
            .file_names()
            .filter(|name| {
                let base = name.rsplit('/').next().unwrap_or(name);
                base.starts_with("conversations") && base.ends_with(".json")
            })
            .map(str::to_owned)
            .collect();
        if names.is_empty() {
            return Err(not_export("the zip holds no conversations.json".into()));
        }
        for name in names {
            let entry = zip.by_name(&name).map_err(|e| not_export(e.to_string()))?;
            each_conversation(std::io::BufReader::new(entry), &mut keep).map_err(|e| either(e, &not_export))?;
        }
    } else {
        let reader = std::io::BufReader::new(std::fs::File::open(file).map_err(read_error)?);
        each_conversation(reader, &mut keep).map_err(|e| either(e, &not_export))?;
    }
    if report.source.is_none() {
        return Err(not_export("it holds no ChatGPT or Claude.ai conversation".into()));
    }
    Ok(report)
}

/// A stream error: a write that failed, or input that is not the expected JSON.
enum StreamError {
    Json(serde_json::Error),
    Write(ImportError),
}

fn either(error: StreamError, not_export: &dyn Fn(String) -> ImportError) -> ImportError {
    match error {
        StreamError::Json(e) => not_export(format!("its conversations are not a JSON list ({e})")),
        StreamError::Write(e) => e,
    }
}

/// Calls `each` on every element of the JSON array `reader` holds, one at a time.
fn each_conversation(
    reader: impl Read,
    each: &mut dyn FnMut(Value) -> Result<(), ImportError>,
) -> Result<(), StreamError> {
    struct Each<'a> {
        each: &'a mut dyn FnMut(Value) -> Result<(), ImportError>,
        failed: Option<ImportError>,
    }
    impl<'de> Visitor<'de> for &mut Each<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of conversations")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(conversation) = seq.next_element::<Value>()? {
                if let Err(e) = (self.each)(conversation) {
                    self.failed = Some(e);
                    return Err(serde::de::Error::custom("stopped: a conversation could not be kept"));
                }
            }
            Ok(())
        }
    }
    impl<'de> DeserializeSeed<'de> for &mut Each<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }
    let mut state = Each { each, failed: None };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let parsed = (&mut state).deserialize(&mut de);
    if let Some(failed) = state.failed.take() {
        return Err(StreamError::Write(failed));
    }
    parsed.map_err(StreamError::Json)
}

/// Keeps one exported conversation, unless it is kept already as it is, or from a later export.
fn keep(conversation: Value, data_dir: &Path, report: &mut ImportedChats) -> Result<(), ImportError> {
    let Some((reader, id)) = [&CHATGPT, &CLAUDE_AI].into_iter().find_map(|r| Some((r, (r.id)(&conversation)?))) else {
        report.skipped += 1;
        return Ok(());
    };
    report.source.get_or_insert(reader.source);
    report.conversations += 1;
    let folder = reader.folder(data_dir);
    let path = folder.join(format!("{}.json", file_stem(&id)));
    let write_error = |source| ImportError::Write { path: path.clone(), source };
    let bytes = serde_json::to_vec(&conversation).map_err(|e| write_error(std::io::Error::other(e)))?;
    match std::fs::read(&path) {
        Ok(kept) if kept == bytes => {
            report.unchanged += 1;
            return Ok(());
        }
        Ok(kept) => {
            let kept: Value = serde_json::from_slice(&kept).unwrap_or(Value::Null);
            if (reader.updated)(&kept) > (reader.updated)(&conversation) {
                report.unchanged += 1;
                return Ok(());
            }
            report.updated += 1;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => report.added += 1,
        Err(e) => return Err(write_error(e)),
    }
    memory_bank_private_files::create_dir_all(&folder).map_err(write_error)?;
    let mut file = memory_bank_private_files::temp_file_in(&folder, ".import-", ".tmp").map_err(write_error)?;
    std::io::Write::write_all(&mut file, &bytes).map_err(write_error)?;
    file.as_file().sync_all().map_err(write_error)?;
    file.persist(&path).map_err(|e| write_error(e.error))?;
    Ok(())
}

/// A file name for a conversation id: its letters, digits, `-` and `_`, else a digest.
fn file_stem(id: &str) -> String {
    let clean = id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') && !id.is_empty() && id.len() <= 128;
    if clean {
        return id.to_owned();
    }
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(id.as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Where imports are kept in `data_dir`, per source: folders every door reads (the app adds
/// them to its roots when its data folder is not the environment's).
pub fn import_folders(data_dir: &Path) -> Vec<(Source, PathBuf)> {
    [&CHATGPT, &CLAUDE_AI].iter().map(|r| (r.source, r.folder(data_dir))).collect()
}
