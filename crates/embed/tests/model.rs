//! The real all-MiniLM-L6-v2, no stand-in: these tests need its files, found through
//! `default_model_dir()`. Without them every test fails and says to run
//! `scripts/fetch-model.sh` (they are never skipped).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use memory_bank_embed::{
    cosine, default_model_dir, model_dir_candidates, EmbedError, Embedder, DIMENSIONS,
};

/// One model for the whole test binary, shared across the test threads.
fn embedder() -> &'static Arc<Embedder> {
    static EMBEDDER: OnceLock<Arc<Embedder>> = OnceLock::new();
    EMBEDDER.get_or_init(|| {
        let dir = default_model_dir().unwrap_or_else(|| {
            panic!(
                "the all-MiniLM-L6-v2 model is not on this machine (looked in {:?}): run scripts/fetch-model.sh \
                 (or set MEMORY_BANK_MODEL_DIR to a folder holding it), then run the tests again",
                model_dir_candidates()
            )
        });
        Arc::new(Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}")))
    })
}

fn embed_one(text: &str) -> Vec<f32> {
    embedder().embed(&[text]).unwrap().remove(0)
}

fn similarity(a: &str, b: &str) -> f32 {
    let v = embedder().embed(&[a, b]).unwrap();
    cosine(&v[0], &v[1])
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[test]
fn vectors_have_384_dimensions_and_unit_length() {
    assert_eq!(embedder().dimensions(), DIMENSIONS);
    let vectors = embedder()
        .embed(&["I prefer tabs over spaces for indentation", "Hello"])
        .unwrap();
    assert_eq!(vectors.len(), 2);
    for v in &vectors {
        assert_eq!(v.len(), 384);
        assert!((norm(v) - 1.0).abs() < 1e-4, "norm {}", norm(v));
        assert!(v.iter().all(|x| x.is_finite()));
    }
    assert!(embedder().embed(&[]).unwrap().is_empty());
}

#[test]
fn reference_similarities_hold() {
    // The published model, fp32, mean pooling: ≈ 0.61 and ≈ 0.60 (docs: search notes).
    let tabs = similarity(
        "I prefer tabs over spaces for indentation",
        "What indentation style does the user like?",
    );
    assert!((tabs - 0.61).abs() <= 0.03, "tabs/indentation: {tabs}");
    let peanuts = similarity(
        "My daughter is allergic to peanuts",
        "Which food allergies are in the family?",
    );
    assert!(
        (peanuts - 0.60).abs() <= 0.03,
        "peanuts/allergies: {peanuts}"
    );
    for (a, b) in [
        (
            "I prefer tabs over spaces for indentation",
            "Which food allergies are in the family?",
        ),
        (
            "My daughter is allergic to peanuts",
            "What indentation style does the user like?",
        ),
    ] {
        let unrelated = similarity(a, b);
        assert!(unrelated.abs() < 0.15, "{a:?} / {b:?}: {unrelated}");
    }
}

#[test]
fn a_paraphrase_ranks_above_unrelated_sentences() {
    let query = embed_one("Where does the user keep the spare house key?");
    let memories = [
        "The backup key to the front door is under the flower pot",
        "The quarterly report is due on Friday",
        "We migrated the database to PostgreSQL last spring",
        "My favourite colour is green",
        "The cat needs her vaccination in March",
    ];
    let vectors = embedder().embed(&memories).unwrap();
    let scores: Vec<f32> = vectors.iter().map(|v| cosine(&query, v)).collect();
    for (i, score) in scores.iter().enumerate().skip(1) {
        assert!(
            scores[0] > *score + 0.1,
            "paraphrase {} vs {:?} {}",
            scores[0],
            memories[i],
            score
        );
    }
}

#[test]
fn a_batch_gives_what_one_by_one_gives() {
    // Lengths mixed so that the texts are regrouped into several padded batches.
    let mut texts: Vec<String> = (0..24)
        .map(|i| {
            format!(
                "Memory number {i}: {}",
                "the user likes short answers and ".repeat(i % 7)
            )
        })
        .collect();
    texts.push(String::new());
    texts.push("A".into());
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let batched = embedder().embed(&refs).unwrap();
    assert_eq!(batched.len(), refs.len());
    for (text, together) in refs.iter().zip(&batched) {
        let alone = embed_one(text);
        let worst = alone
            .iter()
            .zip(together)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{text:?}: differs by {worst}");
    }
}

#[test]
fn empty_and_very_long_texts_do_not_panic() {
    let empty = embed_one("");
    assert_eq!(empty.len(), 384);
    assert!((norm(&empty) - 1.0).abs() < 1e-4);

    let long = "The user keeps notes about every project in plain text files. ".repeat(170);
    assert!(long.len() >= 10_000);
    let long_vector = embed_one(&long[..10_000]);
    assert_eq!(long_vector.len(), 384);
    assert!((norm(&long_vector) - 1.0).abs() < 1e-4);
    // Cut at 256 tokens: more of the same text changes nothing.
    let longer = embed_one(&long);
    assert!(cosine(&long_vector, &longer) > 0.9999);

    let odd = embed_one("🙂 日本語のテキスト \u{0} \t\n ñ");
    assert!(odd.iter().all(|x| x.is_finite()));
}

#[test]
fn shared_across_threads() {
    let expected = embed_one("The user's favourite editor is Helix");
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let embedder = Arc::clone(embedder());
            std::thread::spawn(move || {
                embedder
                    .embed(&["The user's favourite editor is Helix"])
                    .unwrap()
                    .remove(0)
            })
        })
        .collect();
    for handle in handles {
        let got = handle.join().unwrap();
        assert!(cosine(&expected, &got) > 0.9999);
    }
}

#[test]
fn a_missing_model_says_what_to_do() {
    let dir =
        std::env::temp_dir().join(format!("memory-bank-embed-missing-{}", std::process::id()));
    let err = Embedder::load(&dir)
        .err()
        .expect("loading from a folder without the model fails");
    assert!(matches!(err, EmbedError::MissingFile { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("model.safetensors"), "{message}");
    assert!(message.contains("scripts/fetch-model.sh"), "{message}");
    assert!(message.contains("MEMORY_BANK_MODEL_DIR"), "{message}");

    // A file that is there but broken is named too.
    let broken = tempdir_with_broken_model();
    let err = Embedder::load(&broken)
        .err()
        .expect("a broken config fails");
    assert!(matches!(err, EmbedError::BadFile { .. }), "{err:?}");
    assert!(err.to_string().contains("config.json"), "{err}");
    std::fs::remove_dir_all(&broken).unwrap();
}

fn tempdir_with_broken_model() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memory-bank-embed-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["model.safetensors", "tokenizer.json"] {
        std::fs::write(dir.join(name), b"not a model").unwrap();
    }
    std::fs::write(dir.join("config.json"), b"{ not json").unwrap();
    assert!(Path::new(&dir).is_dir());
    dir
}
