//! How far the 8-bit copy of the model (`quantize_model`, what the packages carry) is
//! from the F32 one it is made from: load time, the reference similarities, the cosine
//! between the two models' vectors of the same sentences, and whether a search by
//! meaning finds the same memories.
//!
//! ```text
//! scripts/fetch-model.sh && bench/recall/fetch.sh …      # the model, LoCoMo
//! cargo run --release -p memory-bank-embed --example q8_agreement [-- --data locomo10.json]
//! ```
//!
//! The sentences are LoCoMo's 2 541 observations (the memories of
//! `bench/recall/recall.py`), the searches its 1 986 questions, each over the
//! observations of its own conversation (254 a bank) by cosine alone. The F32 model is
//! `default_model_dir()`; its 8-bit copy is made into a temporary folder, then removed.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use memory_bank_embed::{cosine, default_model_dir, quantize_model, Embedder};
use serde_json::Value;

const LOADS: usize = 5;
const TOP: usize = 5;

struct Conversation {
    /// Observation texts and the dialogue turns each cites.
    memories: Vec<(String, HashSet<String>)>,
    /// Question, its category, the turns of its evidence.
    questions: Vec<(String, u64, HashSet<String>)>,
}

fn main() {
    let data = std::env::args()
        .skip_while(|a| a != "--data")
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").expect("HOME"))
                .join(".cache/memory-bank/bench/locomo/locomo10.json")
        });
    let f32_dir = default_model_dir().expect("the F32 model: run scripts/fetch-model.sh");
    let q8_dir =
        std::env::temp_dir().join(format!("memory-bank-q8-agreement-{}", std::process::id()));

    let started = Instant::now();
    let done = quantize_model(&f32_dir, &q8_dir).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "quantized in {:.2} s: {} bytes, {} tensors quantized, {} kept, largest weight error {:.2e}",
        started.elapsed().as_secs_f64(),
        done.bytes,
        done.quantized,
        done.kept,
        done.max_error
    );

    let (f32_model, f32_load) = load(&f32_dir);
    let (q8_model, q8_load) = load(&q8_dir);
    assert!(q8_model.weights_path().ends_with("model.q8.safetensors"));
    println!("load, median of {LOADS}: F32 {f32_load:.0?}, q8 {q8_load:.0?}");

    println!("reference similarities (F32 / q8):");
    for (a, b) in memory_bank_embed::REFERENCE_PAIRS {
        let x = f32_model.embed(&[a, b]).unwrap();
        let y = q8_model.embed(&[a, b]).unwrap();
        println!(
            "  {:.4} / {:.4}  {a:?} ~ {b:?}",
            cosine(&x[0], &x[1]),
            cosine(&y[0], &y[1])
        );
    }

    let conversations = read_locomo(&data);
    let memories: Vec<&str> = conversations
        .iter()
        .flat_map(|c| c.memories.iter().map(|(t, _)| t.as_str()))
        .collect();
    let questions: Vec<&str> = conversations
        .iter()
        .flat_map(|c| c.questions.iter().map(|(q, _, _)| q.as_str()))
        .collect();
    let t = Instant::now();
    let f32_memories = f32_model.embed(&memories).unwrap();
    let f32_questions = f32_model.embed(&questions).unwrap();
    let f32_time = t.elapsed();
    let t = Instant::now();
    let q8_memories = q8_model.embed(&memories).unwrap();
    let q8_questions = q8_model.embed(&questions).unwrap();
    let q8_time = t.elapsed();
    println!(
        "embedded {} observations and {} questions: F32 {:.1} s, q8 {:.1} s",
        memories.len(),
        questions.len(),
        f32_time.as_secs_f64(),
        q8_time.as_secs_f64()
    );
    for (what, a, b) in [
        ("observations", &f32_memories, &q8_memories),
        ("questions", &f32_questions, &q8_questions),
    ] {
        let mut c: Vec<f32> = a.iter().zip(b).map(|(x, y)| cosine(x, y)).collect();
        c.sort_by(f32::total_cmp);
        println!(
            "cosine F32 vs q8, {what} ({}): min {:.4}, 1st percentile {:.4}, median {:.4}, mean {:.4}",
            c.len(),
            c[0],
            c[c.len() / 100],
            c[c.len() / 2],
            c.iter().sum::<f32>() / c.len() as f32
        );
    }

    // Each question searches its own conversation's observations, by cosine alone.
    let (mut m0, mut q0) = (0, 0);
    let (mut searches, mut same_set, mut same_order, mut same_first, mut overlap) = (0, 0, 0, 0, 0);
    let (mut scored, mut hit_f32, mut hit_q8) = (0, 0, 0);
    for conv in &conversations {
        let n = conv.memories.len();
        for (qi, (_, category, evidence)) in conv.questions.iter().enumerate() {
            let a = top(&f32_questions[q0 + qi], &f32_memories[m0..m0 + n]);
            let b = top(&q8_questions[q0 + qi], &q8_memories[m0..m0 + n]);
            searches += 1;
            same_order += usize::from(a == b);
            same_first += usize::from(a[0] == b[0]);
            let sa: HashSet<_> = a.iter().collect();
            let common = b.iter().filter(|i| sa.contains(i)).count();
            overlap += common;
            same_set += usize::from(common == TOP);
            // Scored as recall.py scores: categories 1–4, evidence that a memory cites.
            let cites = |i: &usize| !conv.memories[*i].1.is_disjoint(evidence);
            if (1..=4).contains(category)
                && conv.memories.iter().any(|(_, c)| !c.is_disjoint(evidence))
            {
                scored += 1;
                hit_f32 += usize::from(a.iter().any(cites));
                hit_q8 += usize::from(b.iter().any(cites));
            }
        }
        m0 += n;
        q0 += conv.questions.len();
    }
    let pct = |k: usize, n: usize| 100.0 * k as f64 / n as f64;
    println!(
        "top-{TOP} by cosine, {searches} questions: same {TOP} memories {:.1} %, same order {:.1} %, same first {:.1} %, mean overlap {:.2} of {TOP}",
        pct(same_set, searches),
        pct(same_order, searches),
        pct(same_first, searches),
        overlap as f64 / searches as f64
    );
    println!(
        "hit@{TOP} by cosine alone (categories 1-4, {scored} questions): F32 {:.1} %, q8 {:.1} %",
        pct(hit_f32, scored),
        pct(hit_q8, scored)
    );
    std::fs::remove_dir_all(&q8_dir).unwrap();
}

fn load(dir: &std::path::Path) -> (Embedder, Duration) {
    let mut times = Vec::new();
    let mut model = None;
    for _ in 0..LOADS {
        let t = Instant::now();
        model = Some(Embedder::load(dir).unwrap_or_else(|e| panic!("{e}")));
        times.push(t.elapsed());
    }
    times.sort();
    (model.unwrap(), times[LOADS / 2])
}

/// The indices of the `TOP` memories closest to `query`, best first (ties by index).
fn top(query: &[f32], memories: &[Vec<f32>]) -> Vec<usize> {
    let mut scored: Vec<(f32, usize)> =
        memories.iter().map(|m| cosine(query, m)).zip(0..).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(TOP).map(|(_, i)| i).collect()
}

/// The dialogue ids ("D3:7") in a string or a list of strings, as recall.py reads them
/// (`D:?(\d+):(\d+)`, for the data's few typos).
fn dialogue_ids(value: &Value) -> HashSet<String> {
    let text = match value {
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    let b = text.as_bytes();
    let digits = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (start < i).then_some((start, i))
    };
    let mut ids = HashSet::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'D' {
            let j = if b.get(i + 1) == Some(&b':') {
                i + 2
            } else {
                i + 1
            };
            if let Some((s1, e1)) = digits(j) {
                if b.get(e1) == Some(&b':') {
                    if let Some((s2, e2)) = digits(e1 + 1) {
                        ids.insert(format!("D{}:{}", &text[s1..e1], &text[s2..e2]));
                        i = e2;
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
    ids
}

fn read_locomo(path: &std::path::Path) -> Vec<Conversation> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (bench/recall/fetch.sh fetches it)", path.display()));
    let samples: Vec<Value> = serde_json::from_str(&text).expect("locomo10.json");
    samples
        .iter()
        .map(|sample| {
            let mut sessions: Vec<(u64, &serde_json::Map<String, Value>)> = sample["observation"]
                .as_object()
                .map(|o| {
                    o.iter()
                        .filter_map(|(k, v)| {
                            let n: String = k.chars().filter(char::is_ascii_digit).collect();
                            Some((n.parse().ok()?, v.as_object()?))
                        })
                        .collect()
                })
                .unwrap_or_default();
            sessions.sort_by_key(|s| s.0);
            let mut memories = Vec::new();
            for (_, by_speaker) in sessions {
                let mut speakers: Vec<_> = by_speaker.iter().collect();
                speakers.sort_by_key(|s| s.0);
                for (_, facts) in speakers {
                    for fact in facts.as_array().into_iter().flatten() {
                        let text = fact[0].as_str().unwrap_or_default().to_string();
                        memories.push((text, dialogue_ids(&fact[1])));
                    }
                }
            }
            let questions = sample["qa"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|qa| {
                    let q: String = qa["question"]
                        .as_str()
                        .unwrap_or_default()
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    let q: String = q.chars().take(512).collect();
                    (
                        q,
                        qa["category"].as_u64().unwrap_or(0),
                        dialogue_ids(&qa["evidence"]),
                    )
                })
                .collect();
            Conversation {
                memories,
                questions,
            }
        })
        .collect()
}
