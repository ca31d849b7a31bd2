//! Writes the 8-bit copy of the model that the packages carry (see
//! `memory_bank_embed::quantize_model`):
//!
//! ```text
//! cargo run --release -p memory-bank-embed --example quantize -- SRC_DIR DEST_DIR
//! ```
//!
//! SRC_DIR holds the F32 model as `scripts/fetch-model.sh` leaves it; DEST_DIR gets
//! `model.q8.safetensors`, `tokenizer.json`, `config.json` and `1_Pooling/config.json`
//! (files 0600, folders 0700). `scripts/package.sh` and `scripts/test.sh` run it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [src, dest] = args.as_slice() else {
        eprintln!("usage: quantize SRC_DIR DEST_DIR   (SRC_DIR: the F32 model from scripts/fetch-model.sh)");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    match memory_bank_embed::quantize_model(src, dest) {
        Ok(done) => {
            eprintln!(
                "==> {}: {} bytes ({} tensors as bytes and row scales, {} kept; largest error {:.2e}) in {:.1} s",
                done.weights.display(),
                done.bytes,
                done.quantized,
                done.kept,
                done.max_error,
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
