//! The 8-bit copy of the weights that the packages carry, and its reading back.
//!
//! `model.safetensors` is 90.9 MB of F32 and does not compress (gzip -9 leaves 83.1 MB,
//! xz 82.1 MB), so a `.deb` carrying it would grow by ≈ 83 MB. [`quantize_model`] writes
//! `model.q8.safetensors` instead: 23.0 MB, 21.0 MB under gzip -9 or xz, and the `.deb`
//! and `.rpm` grow by 21.3 MB with it and the tokenizer. Every large 2-D weight (the word
//! and position embeddings, the 36 linear layers and the unused pooler: 39 tensors)
//! becomes one signed byte a number plus one F32 scale for each of its rows; LayerNorm
//! weights, biases and small tensors (65) stay as they are.
//!
//! # The format
//!
//! A safetensors file whose metadata has `memory_bank_q8` = `1`. A quantized tensor
//! `name` of shape `(rows, columns)` is stored as `name`, dtype `I8`, same shape, and
//! `name.q8_scale`, dtype `F32`, shape `(rows)`; its value at `(r, c)` is
//! `name[r, c] × name.q8_scale[r]`. Each row's scale is its largest magnitude / 127
//! (symmetric: 0 stays 0, and no offset is stored), so the rounding error of a number is
//! at most half a step of its own row. A row is an output of a linear layer (a row of
//! candle's `(out, in)` weight) or one token of an embedding, so one outlier weight
//! coarsens only its own row. Every other tensor is copied with its dtype.
//!
//! [`crate::Embedder::load`] reads the file back into F32 tensors ([`read_q8`]): the
//! network then runs exactly as with the F32 file, on weights that each differ by at most
//! half a step. What that changes in the vectors is measured in `BENCHMARKS.md`
//! (`examples/q8_agreement.rs`) and checked by `tests/quantized.rs`.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use candle_core::safetensors::Load as _;
use candle_core::{Device, Tensor};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};

use crate::error::EmbedError;
use crate::locate::{MODEL_FILES, Q8_WEIGHTS_FILE, WEIGHTS_FILE};

/// The metadata key that marks a file as [`quantize_model`]'s, and its format version.
const FORMAT_KEY: &str = "memory_bank_q8";
const FORMAT_VERSION: &str = "1";

/// `name` + this names the F32 scales of the quantized tensor `name`, one per row.
const SCALE_SUFFIX: &str = ".q8_scale";

/// 2-D tensors with fewer numbers than this stay F32 (the token type embeddings, 768).
const MIN_QUANTIZED: usize = 4096;

/// The largest magnitude a byte holds, symmetric around 0.
const LEVELS: f32 = 127.0;

/// The pooling configuration, copied with the model when the source folder has it.
const POOLING_CONFIG: [&str; 2] = ["1_Pooling", "config.json"];

/// What [`quantize_model`] wrote.
#[derive(Debug, Clone)]
pub struct Quantized {
    /// The weights file written: `<dest>/model.q8.safetensors`.
    pub weights: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Tensors stored as bytes and scales.
    pub quantized: usize,
    /// Tensors copied as they are (LayerNorm weights, biases, small tensors).
    pub kept: usize,
    /// The largest difference between a quantized number and the F32 one it stands for.
    pub max_error: f32,
}

/// Writes an 8-bit copy of the model in `src` (a folder holding `model.safetensors`,
/// `tokenizer.json`, `config.json` and optionally `1_Pooling/config.json`, as
/// `scripts/fetch-model.sh` leaves it) to `dest`: `model.q8.safetensors` (see the
/// [module docs](self) for the format) and the same tokenizer and configuration files.
///
/// `dest` and its `1_Pooling` folder are created `0700` when missing, every file is
/// written `0600` (to a temporary file renamed into place, so a reader never sees half a
/// file). `dest` may be `src`: then only the weights file is added. `dest` then loads
/// with [`crate::Embedder::load`] like `src`.
pub fn quantize_model(src: &Path, dest: &Path) -> Result<Quantized, EmbedError> {
    let source = src.join(WEIGHTS_FILE);
    for path in std::iter::once(source.clone()).chain(MODEL_FILES.iter().map(|n| src.join(n))) {
        if !path.is_file() {
            return Err(EmbedError::MissingFile { path });
        }
    }
    let bad = |reason: String| EmbedError::BadFile {
        path: source.clone(),
        reason,
    };
    let bytes = std::fs::read(&source).map_err(|e| bad(e.to_string()))?;
    let (data, report) = quantize_bytes(&bytes).map_err(bad)?;
    drop(bytes);

    let same_folder = match (src.canonicalize(), dest.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let pooling_src = src.join(POOLING_CONFIG[0]).join(POOLING_CONFIG[1]);
    let with_pooling = pooling_src.is_file();
    make_dir(dest)?;
    if with_pooling {
        make_dir(&dest.join(POOLING_CONFIG[0]))?;
    }
    let weights = dest.join(Q8_WEIGHTS_FILE);
    write_private(&weights, &data)?;
    if !same_folder {
        let mut copies: Vec<(PathBuf, PathBuf)> = MODEL_FILES
            .iter()
            .map(|name| (src.join(name), dest.join(name)))
            .collect();
        if with_pooling {
            copies.push((
                pooling_src,
                dest.join(POOLING_CONFIG[0]).join(POOLING_CONFIG[1]),
            ));
        }
        for (from, to) in copies {
            let text = std::fs::read(&from).map_err(|e| EmbedError::BadFile {
                path: from.clone(),
                reason: e.to_string(),
            })?;
            write_private(&to, &text)?;
        }
    }
    Ok(Quantized {
        weights,
        bytes: data.len() as u64,
        ..report
    })
}

/// The quantized file's bytes for the F32 safetensors `bytes`, and what was done.
fn quantize_bytes(bytes: &[u8]) -> Result<(Vec<u8>, Quantized), String> {
    let tensors = SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
    let mut report = Quantized {
        weights: PathBuf::new(),
        bytes: 0,
        quantized: 0,
        kept: 0,
        max_error: 0.0,
    };
    // Owned bytes for the quantized tensors and their scales; the others are borrowed.
    let mut owned: Vec<QuantizedTensor> = Vec::new();
    let mut views: Vec<(String, TensorView<'_>)> = Vec::new();
    for (name, view) in tensors.iter() {
        if name.ends_with(SCALE_SUFFIX) {
            return Err(format!("{name}: already a quantized file"));
        }
        match view.shape() {
            &[rows, columns]
                if view.dtype() == Dtype::F32 && rows * columns >= MIN_QUANTIZED && columns > 0 =>
            {
                let (values, scales, error) = quantize_rows(&f32s(view.data()), columns);
                report.max_error = report.max_error.max(error);
                report.quantized += 1;
                owned.push(QuantizedTensor {
                    name: name.to_string(),
                    shape: vec![rows, columns],
                    values,
                    scales,
                });
            }
            _ => {
                report.kept += 1;
                views.push((name.to_string(), view));
            }
        }
    }
    for t in &owned {
        let view =
            TensorView::new(Dtype::I8, t.shape.clone(), &t.values).map_err(|e| e.to_string())?;
        views.push((t.name.clone(), view));
        let scale_view =
            TensorView::new(Dtype::F32, vec![t.shape[0]], &t.scales).map_err(|e| e.to_string())?;
        views.push((format!("{}{SCALE_SUFFIX}", t.name), scale_view));
    }
    let metadata = HashMap::from([(FORMAT_KEY.to_string(), FORMAT_VERSION.to_string())]);
    let data = safetensors::serialize(views, Some(metadata)).map_err(|e| e.to_string())?;
    Ok((data, report))
}

/// A tensor as [`quantize_bytes`] writes it: its bytes (`I8`) and its rows' scales (`F32`).
struct QuantizedTensor {
    name: String,
    shape: Vec<usize>,
    values: Vec<u8>,
    scales: Vec<u8>,
}

/// Per-row symmetric quantization of a row-major matrix `columns` wide: the bytes (as
/// `u8`, two's complement), the scales (F32 little-endian) and the largest error.
fn quantize_rows(values: &[f32], columns: usize) -> (Vec<u8>, Vec<u8>, f32) {
    let mut bytes = Vec::with_capacity(values.len());
    let mut scales = Vec::with_capacity(values.len() / columns * 4);
    let mut max_error = 0.0f32;
    for row in values.chunks_exact(columns) {
        let largest = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let scale = largest / LEVELS;
        scales.extend_from_slice(&scale.to_le_bytes());
        for &v in row {
            let q = if scale > 0.0 {
                (v / scale).round().clamp(-LEVELS, LEVELS)
            } else {
                0.0
            };
            max_error = max_error.max((q * scale - v).abs());
            bytes.push(q as i8 as u8);
        }
    }
    (bytes, scales, max_error)
}

/// The tensors of a [`quantize_model`] file, every quantized one back in F32 (its bytes
/// times its row's scale); the other tensors as stored. For
/// [`candle_nn::VarBuilder::from_tensors`].
pub(crate) fn read_q8(bytes: &[u8]) -> Result<HashMap<String, Tensor>, String> {
    let file = SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| e.to_string())?;
    let version = header
        .metadata()
        .as_ref()
        .and_then(|m| m.get(FORMAT_KEY).cloned());
    if version.as_deref() != Some(FORMAT_VERSION) {
        return Err(format!(
            "not an 8-bit copy made by this version (metadata {FORMAT_KEY} is {version:?}, expected \"{FORMAT_VERSION}\")"
        ));
    }
    let mut tensors = HashMap::new();
    for (name, view) in file.iter() {
        if name.ends_with(SCALE_SUFFIX) {
            continue;
        }
        let tensor = if view.dtype() == Dtype::I8 {
            let &[rows, columns] = view.shape() else {
                return Err(format!("{name}: an I8 tensor must be 2-D"));
            };
            let scale_name = format!("{name}{SCALE_SUFFIX}");
            let scales = file
                .tensor(&scale_name)
                .map_err(|e| format!("{scale_name}: {e}"))?;
            if scales.dtype() != Dtype::F32 || scales.shape() != [rows] {
                return Err(format!("{scale_name}: expected F32 of shape [{rows}]"));
            }
            let scales = f32s(scales.data());
            let mut values = Vec::with_capacity(rows * columns);
            for (row, &scale) in view.data().chunks_exact(columns.max(1)).zip(&scales) {
                values.extend(row.iter().map(|&b| f32::from(b as i8) * scale));
            }
            Tensor::from_vec(values, (rows, columns), &Device::Cpu)
        } else {
            view.load(&Device::Cpu)
        }
        .map_err(|e| format!("{name}: {e}"))?;
        tensors.insert(name.to_string(), tensor);
    }
    Ok(tensors)
}

/// Little-endian F32s (safetensors' byte order).
fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn make_dir(dir: &Path) -> Result<(), EmbedError> {
    memory_bank_private_files::create_dir_all(dir).map_err(|e| EmbedError::Write {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Writes `path` whole and private (`0600`): a temporary file beside it, renamed over it.
fn write_private(path: &Path, data: &[u8]) -> Result<(), EmbedError> {
    let failed = |e: std::io::Error| EmbedError::Write {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file =
        memory_bank_private_files::temp_file_in(dir, ".quantize-", ".tmp").map_err(failed)?;
    file.write_all(data).map_err(failed)?;
    file.as_file().sync_all().map_err(failed)?;
    file.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny safetensors file: one matrix to quantize, one bias and one small matrix to keep.
    fn sample() -> Vec<u8> {
        let matrix: Vec<f32> = (0..64 * 64)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 70.0)
            .collect();
        let mut matrix_bytes: Vec<u8> = matrix.iter().flat_map(|v| v.to_le_bytes()).collect();
        // One row all zeros: its scale is 0 and it reads back as zeros.
        matrix_bytes[..64 * 4].fill(0);
        let bias: Vec<u8> = [0.5f32, -0.25]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let small: Vec<u8> = [1.0f32; 6].iter().flat_map(|v| v.to_le_bytes()).collect();
        let views = vec![
            (
                "m.weight",
                TensorView::new(Dtype::F32, vec![64, 64], &matrix_bytes).unwrap(),
            ),
            (
                "m.bias",
                TensorView::new(Dtype::F32, vec![2], &bias).unwrap(),
            ),
            (
                "t.weight",
                TensorView::new(Dtype::F32, vec![2, 3], &small).unwrap(),
            ),
        ];
        safetensors::serialize(views, None).unwrap()
    }

    #[test]
    fn round_trip_within_half_a_step_per_row() {
        let source = sample();
        let (q8, report) = quantize_bytes(&source).unwrap();
        assert_eq!((report.quantized, report.kept), (1, 2));
        let original = candle_core::safetensors::load_buffer(&source, &Device::Cpu).unwrap();
        let back = read_q8(&q8).unwrap();
        assert_eq!(back.len(), 3, "the scales are not tensors of the model");
        let a = original["m.weight"].to_vec2::<f32>().unwrap();
        let b = back["m.weight"].to_vec2::<f32>().unwrap();
        assert!(b[0].iter().all(|&v| v == 0.0));
        for (row_a, row_b) in a.iter().zip(&b) {
            let step = row_a.iter().fold(0.0f32, |m, v| m.max(v.abs())) / 127.0;
            for (x, y) in row_a.iter().zip(row_b) {
                assert!((x - y).abs() <= step / 2.0 + 1e-7, "{x} vs {y}");
            }
        }
        // The kept tensors are bit for bit what they were.
        for name in ["m.bias", "t.weight"] {
            assert_eq!(
                original[name]
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f32>()
                    .unwrap(),
                back[name].flatten_all().unwrap().to_vec1::<f32>().unwrap()
            );
        }
        assert!(
            report.max_error > 0.0 && report.max_error < 0.004,
            "{}",
            report.max_error
        );
    }

    #[test]
    fn a_plain_file_is_not_taken_for_a_quantized_one() {
        let err = read_q8(&sample()).unwrap_err();
        assert!(err.contains(FORMAT_KEY), "{err}");
        let (q8, _) = quantize_bytes(&sample()).unwrap();
        assert!(quantize_bytes(&q8).unwrap_err().contains("already"));
    }
}
