//! Errors that say which file is wrong and what to do about it.

use std::path::PathBuf;

use crate::locate::{model_files_text, MODEL_DIR_ENV};

/// What went wrong loading the model or embedding text.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A file of the model is not there.
    #[error(
        "the model file {} is missing: run scripts/fetch-model.sh, or set {MODEL_DIR_ENV} to a folder holding {}",
        path.display(),
        model_files_text()
    )]
    MissingFile { path: PathBuf },
    /// A file of the model is there but cannot be used.
    #[error(
        "the model file {} cannot be used ({reason}): run scripts/fetch-model.sh to fetch it again, or set {MODEL_DIR_ENV} to a folder holding a good copy",
        path.display()
    )]
    BadFile { path: PathBuf, reason: String },
    /// No folder of [`crate::model_dir_candidates`] holds the model.
    #[error(
        "the all-MiniLM-L6-v2 model was not found (looked in: {}): run scripts/fetch-model.sh, or set {MODEL_DIR_ENV} to a folder holding {}",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        model_files_text()
    )]
    NotFound { searched: Vec<PathBuf> },
    /// [`crate::quantize_model`] could not write its copy.
    #[error("cannot write {}: {reason}", path.display())]
    Write { path: PathBuf, reason: String },
    /// The tokenizer refused a text.
    #[error("tokenizing failed: {0}")]
    Tokenize(String),
    /// The model's forward pass failed.
    #[error("the model's forward pass failed: {0}")]
    Inference(String),
}

impl From<candle_core::Error> for EmbedError {
    fn from(err: candle_core::Error) -> Self {
        EmbedError::Inference(err.to_string())
    }
}
