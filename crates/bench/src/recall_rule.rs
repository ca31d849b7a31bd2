//! `--recall-rule LOCOMO_JSON`: how the recall hook's rule (`memory_bank_store::recall`)
//! fares on LoCoMo, over a grid of its two thresholds, to choose them.
//!
//! Each LoCoMo conversation becomes one person's bank of its observations (short
//! sentences, each citing the dialogue turns it was drawn from), as `bench/recall`
//! loads them. Each answerable question (categories 1–4) is then a prompt:
//!
//! - **hit**: the share of questions for which a memory drawn from the question's
//!   evidence is among those recalled;
//! - **precision**: the share of recalled memories drawn from the question's evidence
//!   (a strict measure: a memory on the topic but from another turn counts as wrong);
//! - **spoke**: the share of questions for which anything was recalled;
//! - **unrelated**: the share of another conversation's questions (the next one's, about
//!   other people and their lives) for which anything was recalled: noise.
//!
//! The file is the one `bench/recall/fetch.sh` puts in the bench cache.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use memory_bank_store::{Bank, MemoryStore, NewMemory, RecallQuery, RecallRule, Recalled};
use memory_bank_store_sqlite::SqliteStore;
use serde_json::Value;

/// One conversation: its bank and its questions.
struct Conversation {
    bank: Bank,
    user_id: String,
    /// Memory id → the dialogue ids it cites.
    cites: HashMap<String, HashSet<String>>,
    /// Answerable questions and their evidence ids.
    questions: Vec<(String, HashSet<String>)>,
}

/// Dialogue ids ("D3:7") in a string or a list of strings (the data has a few typos:
/// "D:11:26", "D8:6; D9:17").
fn dialogue_ids(value: &Value) -> HashSet<String> {
    let text = match value {
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    let mut ids = HashSet::new();
    for piece in text.split(|c: char| c.is_whitespace() || c == ';' || c == ',') {
        let digits: Vec<&str> = piece.trim_start_matches('D').trim_start_matches(':').split(':').collect();
        if let [a, b] = digits[..] {
            if a.chars().all(|c| c.is_ascii_digit()) && b.chars().all(|c| c.is_ascii_digit()) && !a.is_empty() && !b.is_empty() {
                ids.insert(format!("D{a}:{b}"));
            }
        }
    }
    ids
}

async fn load(sample: &Value) -> anyhow::Result<Conversation> {
    let store = SqliteStore::open("sqlite::memory:").await.context("open an in-memory bank")?;
    let bank = Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("person@locomo.invalid").await?;
    let org = bank.add_org("locomo").await?;
    bank.add_member(&org.id, &user.id).await?;
    let mut observations: Vec<(u64, &serde_json::Map<String, Value>)> = sample["observation"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(key, by_speaker)| {
            let number: u64 = key.chars().filter(char::is_ascii_digit).collect::<String>().parse().ok()?;
            Some((number, by_speaker.as_object()?))
        })
        .collect();
    observations.sort_by_key(|(n, _)| *n);
    let mut rows = Vec::new();
    let mut cites = HashMap::new();
    let base = 1_600_000_000_000i64;
    for (number, by_speaker) in observations {
        let mut speakers: Vec<_> = by_speaker.iter().collect();
        speakers.sort_by(|a, b| a.0.cmp(b.0));
        for (_, facts) in speakers {
            for fact in facts.as_array().into_iter().flatten() {
                let Some(text) = fact.get(0).and_then(Value::as_str) else { continue };
                let at = base + number as i64 * 86_400_000 + rows.len() as i64 * 1000;
                let memory = NewMemory::plain(&user.id, &org.id, text.to_owned(), at);
                cites.insert(memory.id.clone(), fact.get(1).map(dialogue_ids).unwrap_or_default());
                rows.push(memory);
            }
        }
    }
    store.insert_memories(&rows).await?;
    let questions = sample["qa"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|qa| qa["category"].as_u64().is_some_and(|c| (1..=4).contains(&c)))
        .filter_map(|qa| Some((qa["question"].as_str()?.to_owned(), dialogue_ids(&qa["evidence"]))))
        .collect();
    Ok(Conversation { bank, user_id: user.id, cites, questions })
}

/// Every memory a permissive rule lets through, with its weight and coverage, so each
/// rule of the grid is applied afterwards to the same candidates.
const PERMISSIVE: RecallRule = RecallRule { min_weight: 0.0, min_coverage: 0.0, max_memories: 32 };

fn apply(found: &[Recalled], min_weight: f64, min_coverage: f64) -> Vec<&Recalled> {
    // `found` is in relevance order already; the rule's filter keeps that order.
    found.iter().filter(|r| r.weight >= min_weight && r.coverage >= min_coverage).take(RecallRule::default().max_memories).collect()
}

#[derive(Default, Clone)]
struct Tally {
    questions: usize,
    hits: usize,
    spoke: usize,
    recalled: usize,
    right: usize,
    unrelated_asked: usize,
    unrelated_spoke: usize,
}

pub async fn run(path: &Path) -> anyhow::Result<()> {
    let data: Value = serde_json::from_slice(&std::fs::read(path).with_context(|| format!("read {}", path.display()))?)
        .with_context(|| format!("{} is not JSON", path.display()))?;
    let samples = data.as_array().context("LoCoMo is a list of conversations")?;
    let mut conversations = Vec::new();
    for sample in samples {
        conversations.push(load(sample).await?);
    }
    let weights = [0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0];
    let coverages = [0.0, 0.2, 0.25, 0.3, 0.4, 0.5];
    let mut tallies = vec![vec![Tally::default(); coverages.len()]; weights.len()];
    let mut timings = Vec::new();
    for (i, own) in conversations.iter().enumerate() {
        let other = &conversations[(i + 1) % conversations.len()];
        for (question, evidence) in &own.questions {
            let started = std::time::Instant::now();
            let query = RecallQuery { prompt: question, folder: "" };
            let found = own.bank.recall(&own.user_id, &query, &PERMISSIVE).await?;
            timings.push(started.elapsed().as_secs_f64() * 1000.0);
            let elsewhere = other.bank.recall(&other.user_id, &query, &PERMISSIVE).await?;
            for (wi, &w) in weights.iter().enumerate() {
                for (ci, &c) in coverages.iter().enumerate() {
                    let t = &mut tallies[wi][ci];
                    let kept = apply(&found, w, c);
                    let right = kept.iter().filter(|r| own.cites.get(&r.id).is_some_and(|ids| !ids.is_disjoint(evidence))).count();
                    t.questions += 1;
                    t.hits += usize::from(right > 0);
                    t.spoke += usize::from(!kept.is_empty());
                    t.recalled += kept.len();
                    t.right += right;
                    t.unrelated_asked += 1;
                    t.unrelated_spoke += usize::from(!apply(&elsewhere, w, c).is_empty());
                }
            }
        }
    }
    let pct = |a: usize, b: usize| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    println!("min_weight min_coverage   hit%  precision%  spoke%  unrelated%  recalled/question");
    for (wi, &w) in weights.iter().enumerate() {
        for (ci, &c) in coverages.iter().enumerate() {
            let t = &tallies[wi][ci];
            println!(
                "{w:>10.2} {c:>12.2} {:>6.1} {:>11.1} {:>7.1} {:>11.1} {:>18.2}",
                pct(t.hits, t.questions),
                pct(t.right, t.recalled),
                pct(t.spoke, t.questions),
                pct(t.unrelated_spoke, t.unrelated_asked),
                t.recalled as f64 / t.questions.max(1) as f64,
            );
        }
    }
    timings.sort_by(f64::total_cmp);
    let at = |q: f64| timings[((timings.len() as f64 - 1.0) * q).round() as usize];
    let memories: usize = conversations.iter().map(|c| c.cites.len()).sum();
    eprintln!(
        "{} conversations, {memories} memories, {} questions; Bank::recall in memory p50 {:.2} ms, p95 {:.2} ms",
        conversations.len(),
        timings.len(),
        at(0.5),
        at(0.95)
    );
    Ok(())
}
