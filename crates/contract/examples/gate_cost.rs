//! What the gate costs one save: limits, control characters and the secret check over
//! every stored text, timed call by call for a few sizes of save (BENCHMARKS.md,
//! "What the gate costs a save").
//!
//! Run: `cargo run --release -p memory-bank-contract --example gate_cost [CALLS]`

use std::hint::black_box;
use std::time::{Duration, Instant};

use memory_bank_contract::validate::validate_save;
use memory_bank_contract::wire::{ContextInput, SaveMemoryRequest};

const WORDS: &[&str] = &[
    "the", "deploy", "staging", "billing", "service", "prefers", "tabs", "over", "spaces", "on", "Tuesdays", "with",
    "Vercel", "database", "migration", "to", "CockroachDB", "my", "daughter", "is", "allergic", "peanuts", "API",
    "v2", "release", "notes", "and", "review", "Q3", "renewal",
];
const HAN: &[char] = &['迁', '移', '计', '划', '客', '户', '部', '署', '数', '据', '库', '的', '我', '喜', '欢'];

/// A deterministic stream of words (a linear congruential generator: the inputs are the
/// same on every run and every checkout, so before and after time the same text).
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn text(&mut self, chars: usize, han_every: u64) -> String {
        let mut out = String::new();
        while out.chars().count() < chars {
            if !out.is_empty() {
                out.push(' ');
            }
            if han_every > 0 && self.next() % han_every == 0 {
                for _ in 0..4 {
                    out.push(HAN[(self.next() % HAN.len() as u64) as usize]);
                }
            } else {
                out.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
            }
        }
        out.chars().take(chars).collect::<String>().trim().to_owned()
    }
}

fn cases() -> Vec<(&'static str, SaveMemoryRequest)> {
    let mut words = Words(28);
    let plain = |content: String| SaveMemoryRequest { content, ..Default::default() };
    let sentence = plain(words.text(80, 0));
    let paragraph = plain(words.text(1_000, 0));
    let longest = plain(words.text(8_000, 0));
    let chinese = plain(words.text(2_000, 2));
    let everything = SaveMemoryRequest {
        content: words.text(8_000, 8),
        tags: Some((0..32).map(|i| format!("tag-{i}-{}", words.text(40, 0)).chars().take(64).collect()).collect()),
        contexts: Some(
            (0..16)
                .map(|i| ContextInput {
                    snippet: words.text(4_000, 8),
                    conversation_id: Some(format!("6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c{i:02}")),
                    message_id: Some(format!("e4000000-0000-4000-8000-0000000000{i:02}")),
                    ..Default::default()
                })
                .collect(),
        ),
        ..Default::default()
    };
    vec![
        ("sentence, 80 chars", sentence),
        ("paragraph, 1 000 chars", paragraph),
        ("longest content, 8 000 chars", longest),
        ("Chinese and English, 2 000 chars", chinese),
        ("every field at its limit, 72 000 chars", everything),
    ]
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at].as_secs_f64() * 1e6
}

fn main() {
    let calls: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(2_000);
    println!("| save | p50 µs | p95 µs |");
    println!("|---|---|---|");
    for (name, request) in cases() {
        // Warm the detector's lazily built regexes and the caches first.
        for _ in 0..calls / 10 + 1 {
            let refused = validate_save(black_box(request.clone())).is_err();
            assert!(!refused, "{name}: the sample text must be admitted");
        }
        let mut times = Vec::with_capacity(calls);
        for _ in 0..calls {
            let input = request.clone();
            let started = Instant::now();
            black_box(validate_save(black_box(input)).is_ok());
            times.push(started.elapsed());
        }
        times.sort();
        println!("| {name} | {:.1} | {:.1} |", percentile(&times, 0.5), percentile(&times, 0.95));
    }
}
