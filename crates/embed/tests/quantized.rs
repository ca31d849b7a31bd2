//! The 8-bit copy the packages carry (`quantize_model`), made here from the real F32
//! model (found as `tests/model.rs` finds it; without it these tests fail and say to run
//! `scripts/fetch-model.sh`) into a temporary folder, against the F32 model.

use std::path::PathBuf;
use std::sync::OnceLock;

use memory_bank_embed::{
    cosine, default_model_dir, holds_model, model_dir_candidates, quantize_model, EmbedError,
    Embedder, Q8_WEIGHTS_FILE, WEIGHTS_FILE,
};
use memory_bank_private_files::testing::{mode, not_private, open_umask};

/// How far a q8 similarity may be from the F32 one. Measured (BENCHMARKS.md,
/// `examples/q8_agreement.rs`): the four pairs move by 0.0009–0.0050 (0.6151 → 0.6101,
/// 0.6007 → 0.5966, 0.0912 → 0.0940, −0.0264 → −0.0255).
const SIMILARITY_TOLERANCE: f32 = 0.01;

/// The least cosine between a sentence's F32 and q8 vectors. Measured over LoCoMo's
/// 2 541 observations and 1 986 questions: minimum 0.9991, median 0.9996.
const MIN_AGREEMENT: f32 = 0.995;

/// Memories and questions of the lengths a bank holds, in several forms.
const SENTENCES: [&str; 16] = [
    "The user prefers dark mode",
    "Deploys go out on Tuesdays after the standup, never on Fridays",
    "My daughter is allergic to peanuts and we keep an epinephrine pen in the kitchen drawer",
    "The staging database is rebuilt from the nightly snapshot at three in the morning",
    "Use British spelling in every document that goes to the client",
    "The spare key is under the blue flower pot by the back door",
    "When a build fails on CI, look at the cache step first: it is the usual cause, and clearing it fixes most",
    "Call me Sam",
    "Where does the user keep the spare house key?",
    "What indentation style does the user like?",
    "Caroline attended an LGBTQ support group recently and found the transgender stories inspiring.",
    "Melanie painted a lake sunrise last year which holds special meaning to her.",
    "When did Caroline go to the LGBTQ support group?",
    "🙂 日本語のテキスト ñ",
    "",
    "k8s HPA scales the api-gateway between 3 and 12 replicas at 70 % CPU",
];

struct Models {
    f32: Embedder,
    q8: Embedder,
    /// The size of `model.q8.safetensors`.
    q8_bytes: u64,
}

fn f32_dir() -> PathBuf {
    default_model_dir().unwrap_or_else(|| {
        panic!(
            "the all-MiniLM-L6-v2 model is not on this machine (looked in {:?}): run scripts/fetch-model.sh \
             (or set MEMORY_BANK_MODEL_DIR to a folder holding it), then run the tests again",
            model_dir_candidates()
        )
    })
}

fn temp_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memory-bank-embed-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Both models, the q8 one quantized once for the whole test binary into a folder that
/// is checked, loaded from and removed.
fn models() -> &'static Models {
    static MODELS: OnceLock<Models> = OnceLock::new();
    MODELS.get_or_init(|| {
        let src = f32_dir();
        // A fresh folder, two levels down: both made by the quantizer.
        let root = temp_dir("q8");
        let q8_dir = root.join("all-minilm-l6-v2");
        let done = quantize_model(&src, &q8_dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(done.weights, q8_dir.join(Q8_WEIGHTS_FILE));
        assert_eq!(done.bytes, std::fs::metadata(&done.weights).unwrap().len());
        assert!(
            !q8_dir.join(WEIGHTS_FILE).exists(),
            "only the 8-bit weights are in the copy"
        );
        assert!(holds_model(&q8_dir));
        for name in ["tokenizer.json", "config.json", "1_Pooling/config.json"] {
            assert_eq!(
                std::fs::read(q8_dir.join(name)).unwrap(),
                std::fs::read(src.join(name)).unwrap(),
                "{name} is copied as it is"
            );
        }
        let models = Models {
            f32: Embedder::load(&src).unwrap_or_else(|e| panic!("{e}")),
            q8: Embedder::load(&q8_dir).unwrap_or_else(|e| panic!("{e}")),
            q8_bytes: done.bytes,
        };
        std::fs::remove_dir_all(&root).unwrap();
        models
    })
}

fn similarity(model: &Embedder, a: &str, b: &str) -> f32 {
    let v = model.embed(&[a, b]).unwrap();
    cosine(&v[0], &v[1])
}

#[test]
fn the_copy_is_a_quarter_of_the_size_and_loads_alone() {
    let m = models();
    let f32 = std::fs::metadata(f32_dir().join(WEIGHTS_FILE))
        .unwrap()
        .len();
    // 23.0 MB against 90.9 MB: one byte a weight, plus a scale a row.
    assert!(
        m.q8_bytes * 10 < f32 * 3,
        "{} bytes against {f32}",
        m.q8_bytes
    );
    assert!(m.q8.weights_path().ends_with(Q8_WEIGHTS_FILE));
    assert!(m.f32.weights_path().ends_with(WEIGHTS_FILE));
    assert_eq!(m.q8.dimensions(), 384);
}

#[test]
fn the_reference_similarities_hold() {
    let m = models();
    for (i, (a, b)) in memory_bank_embed::REFERENCE_PAIRS.into_iter().enumerate() {
        let (x, y) = (similarity(&m.f32, a, b), similarity(&m.q8, a, b));
        assert!(
            (x - y).abs() <= SIMILARITY_TOLERANCE,
            "{a:?} / {b:?}: F32 {x}, q8 {y}"
        );
        // The same bounds as tests/model.rs.
        if i < 2 {
            assert!((y - [0.61, 0.60][i]).abs() <= 0.03, "{a:?} / {b:?}: q8 {y}");
        } else {
            assert!(y.abs() < 0.15, "{a:?} / {b:?}: q8 {y}");
        }
    }
}

#[test]
fn vectors_agree_with_the_f32_ones() {
    let m = models();
    let a = m.f32.embed(&SENTENCES).unwrap();
    let b = m.q8.embed(&SENTENCES).unwrap();
    for ((text, x), y) in SENTENCES.iter().zip(&a).zip(&b) {
        assert_eq!(y.len(), 384);
        let norm = y.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{text:?}: norm {norm}");
        let c = cosine(x, y);
        assert!(c >= MIN_AGREEMENT, "{text:?}: cosine F32 / q8 {c}");
    }
    // A search ranks the same: the paraphrase first, well ahead.
    let query = &b[8]; // the spare house key
    let best = (0..8).max_by(|&i, &j| cosine(query, &b[i]).total_cmp(&cosine(query, &b[j])));
    assert_eq!(best, Some(5));
}

#[test]
fn files_are_private_and_the_f32_file_wins_when_both_are_there() {
    // Under the common umask 022 (left so for this test binary: every file its tests
    // make goes through the quantizer or is a throwaway) the files come out 0600 and the
    // folders 0700 by construction, not by the mask.
    open_umask();
    let root = temp_dir("q8-modes");
    let dir = root.join("model");
    quantize_model(&f32_dir(), &dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(not_private(&dir), Vec::<(PathBuf, u32)>::new());
    assert_eq!(mode(&dir.join("1_Pooling")), 0o700);
    assert_eq!(mode(&dir.join(Q8_WEIGHTS_FILE)), 0o600);

    // Both weights in one folder: model.safetensors is read. (A link: no 90 MB copy.)
    std::os::unix::fs::symlink(f32_dir().join(WEIGHTS_FILE), dir.join(WEIGHTS_FILE)).unwrap();
    let both = Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(both.weights_path().ends_with(WEIGHTS_FILE));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_broken_copy_says_which_file() {
    let dir = temp_dir("q8-broken");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["tokenizer.json", "config.json"] {
        std::fs::copy(f32_dir().join(name), dir.join(name)).unwrap();
    }
    // Not a safetensors file at all, then a real safetensors file that is not a q8 copy.
    std::fs::write(dir.join(Q8_WEIGHTS_FILE), b"not a model").unwrap();
    let err = Embedder::load(&dir).err().expect("a broken q8 file fails");
    assert!(matches!(err, EmbedError::BadFile { .. }), "{err:?}");
    assert!(err.to_string().contains(Q8_WEIGHTS_FILE), "{err}");

    std::fs::write(dir.join(Q8_WEIGHTS_FILE), tiny_plain_safetensors()).unwrap();
    let err = Embedder::load(&dir)
        .err()
        .expect("a plain file under the q8 name fails");
    assert!(err.to_string().contains("memory_bank_q8"), "{err}");

    // Without any weights: the message names both files.
    std::fs::remove_file(dir.join(Q8_WEIGHTS_FILE)).unwrap();
    assert!(!holds_model(&dir));
    let err = Embedder::load(&dir).err().expect("no weights fails");
    assert!(matches!(err, EmbedError::MissingFile { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(WEIGHTS_FILE) && message.contains(Q8_WEIGHTS_FILE),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // The quantizer itself wants the F32 weights.
    let err = quantize_model(&dir, &temp_dir("q8-nowhere")).expect_err("no source");
    assert!(matches!(err, EmbedError::MissingFile { .. }), "{err:?}");
}

/// A valid safetensors file with one F32 tensor and no metadata.
fn tiny_plain_safetensors() -> Vec<u8> {
    let header = br#"{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header);
    out.extend_from_slice(&1.0f32.to_le_bytes());
    out
}
