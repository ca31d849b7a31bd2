//! Recall: the few memories that clearly bear on what the person just asked an agent,
//! for a hook that puts them in the agent's context unasked (an opt-in; see
//! `memory-bank recall`).
//!
//! Why not the search: search answers whenever anything shares a word with the query,
//! best first, because the person (or agent) asked. A hook speaks on every prompt
//! without being asked, so it must say nothing unless a memory plainly concerns the
//! prompt; noise would teach people to turn it off. It must also stay well under the
//! agent's patience (150 ms at 10⁴ memories, hook process included), so it reads words
//! only: no model is loaded.
//!
//! # The rule
//!
//! Prompt and memory are reduced to their concepts ([`terms::concept_terms`]: a word by
//! its stem, CJK bigrams, stopwords left out). A concept weighs its rarity in the
//! person's bank, `ln(1 + N/df) / ln(1 + N)`: 1 for a concept one memory holds, near 0
//! for one most hold. A memory is recalled when
//!
//! - the concepts it shares with the prompt weigh at least [`RecallRule::min_weight`]
//!   together (one rare concept, or a few less rare ones), and
//! - they are at least [`RecallRule::min_coverage`] of the memory's own concepts (the
//!   memory is *about* what the prompt is about, not merely mentioning one word of it).
//!
//! The best [`RecallRule::max_memories`] go, by shared weight times coverage; a memory
//! that looks like it holds a secret never does (the gate's detector). The
//! thresholds were chosen on LoCoMo's questions (BENCHMARKS.md, "Recall hook").
//!
//! # Bounded work
//!
//! One statement reads each prompt concept's row list up to [`COUNT_CAP`] (the duplicate
//! hint's read): the counts give the weights, and the lists the candidates, scored here
//! before any sentence is read. Concepts at the cap are too common to pull candidates in
//! (they still count when shared). Then only the [`READ`] best candidates' sentences
//! are read. A prompt counts at most [`PROMPT_CONCEPTS`] concepts, from its first
//! [`PROMPT_CHARS`] characters.

use std::collections::{HashMap, HashSet};

use memory_bank_contract::secrets::find_secrets;
use memory_bank_contract::Timestamp;

use crate::similar::COUNT_CAP;
use crate::terms::{self, Term};
use crate::{Bank, StoreError, TermRows};

/// Most characters of a prompt read (a pasted log says what it is about early on).
pub const PROMPT_CHARS: usize = 4000;

/// Most concepts of a prompt looked up.
pub const PROMPT_CONCEPTS: usize = 64;

/// Most candidates whose sentences are read and judged.
const READ: usize = 32;

/// When a memory counts as bearing on a prompt (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecallRule {
    /// Least total weight of the shared concepts.
    pub min_weight: f64,
    /// Least share of the memory's concepts found in the prompt.
    pub min_coverage: f64,
    /// Most memories recalled.
    pub max_memories: usize,
}

impl Default for RecallRule {
    fn default() -> Self {
        RecallRule { min_weight: 1.25, min_coverage: 0.3, max_memories: 5 }
    }
}

/// A recalled memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    /// Memory id.
    pub id: String,
    /// The sentence.
    pub content: String,
    /// When it was saved.
    pub created_at: Timestamp,
    /// The total weight of the concepts it shares with the prompt.
    pub weight: f64,
    /// The share of its concepts found in the prompt.
    pub coverage: f64,
}

impl Recalled {
    /// Shared weight times coverage: higher is more clearly about the prompt.
    pub fn relevance(&self) -> f64 {
        self.weight * self.coverage
    }
}

/// What a recall is about.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecallQuery<'a> {
    /// What the person asked (or, at a session's start, the project's name).
    pub prompt: &'a str,
    /// Words of where they work (a folder's name): shared with a memory, they count
    /// for it, but never pull one in or pass one alone; a memory must share something
    /// with the prompt itself.
    pub folder: &'a str,
}

impl Bank {
    /// The user's memories that clearly bear on `query` (best first, at most
    /// `rule.max_memories`): see the module docs. Never a proposal: only saved memories
    /// are read. The prompt may be anything an agent passes on; an empty or
    /// stopword-only one recalls nothing.
    pub async fn recall(&self, user_id: &str, query: &RecallQuery<'_>, rule: &RecallRule) -> Result<Vec<Recalled>, StoreError> {
        let head: String = query.prompt.chars().take(PROMPT_CHARS).collect();
        let mut prompt = terms::concept_terms(&head);
        prompt.truncate(PROMPT_CONCEPTS);
        if prompt.is_empty() || rule.max_memories == 0 {
            return Ok(Vec::new());
        }
        let folder: Vec<Term> = terms::concept_terms(query.folder).into_iter().filter(|c| !prompt.contains(c)).take(8).collect();
        let total = self.store().count_memories(crate::BankKey::Personal(user_id)).await?;
        if total == 0 {
            return Ok(Vec::new());
        }
        let looked_up: Vec<Term> = prompt.iter().chain(&folder).cloned().collect();
        let scoped = terms::scope_terms(user_id, &looked_up);
        let lists = self.store().term_rows(crate::BankKey::Personal(user_id), &scoped, COUNT_CAP).await?;
        let weight = Weights::new(total);
        let mut weights = Shared::default();
        let mut pulled: HashMap<&str, f64> = HashMap::new();
        for (i, (concept, list)) in looked_up.iter().zip(&lists).enumerate() {
            // A common concept weighs as one at the cap; its rows pull nothing (below).
            let (keys, count): (HashSet<&str>, u64) = match list {
                TermRows::Common => (HashSet::new(), u64::from(COUNT_CAP)),
                TermRows::Rows(keys) => {
                    let keys: HashSet<&str> = keys.iter().map(String::as_str).collect();
                    let count = keys.len() as u64;
                    (keys, count)
                }
            };
            if count == 0 {
                continue;
            }
            let w = weight.of(count);
            let from_prompt = i < prompt.len();
            if from_prompt {
                weights.prompt.insert(concept, w);
            } else {
                weights.folder.insert(concept, w);
            }
            if from_prompt && keys.len() < COUNT_CAP as usize {
                for key in keys {
                    *pulled.entry(key).or_default() += w;
                }
            }
        }
        // Those a rule could still pass, heaviest first (newest first among equals).
        let mut best: Vec<(f64, &str)> = pulled.into_iter().map(|(k, w)| (w, k)).collect();
        best.sort_by(|(a, x), (b, y)| b.total_cmp(a).then(y.len().cmp(&x.len())).then(y.cmp(x)));
        let keys: Vec<String> = best.into_iter().take(READ).map(|(_, k)| k.to_owned()).collect();
        let worded = self.store().worded_rows(crate::BankKey::Personal(user_id), &keys).await?;
        let mut recalled: Vec<Recalled> = worded
            .into_iter()
            // What looks like a secret is never recalled: the gate refuses such texts
            // today, but an older or imported bank may hold one.
            .filter(|w| find_secrets(&w.content).is_empty())
            .filter_map(|w| {
                let (weight, coverage) = judge(&terms::concept_terms(&w.content), &weights, rule)?;
                Some(Recalled { id: w.id, content: w.content, created_at: w.created_at, weight, coverage })
            })
            .collect();
        recalled.sort_by(|a, b| b.relevance().total_cmp(&a.relevance()).then(b.created_at.cmp(&a.created_at)));
        recalled.truncate(rule.max_memories);
        Ok(recalled)
    }
}

/// The weights of the concepts of a prompt and of its folder that any memory holds.
#[derive(Debug, Default)]
pub struct Shared<'a> {
    /// The prompt's.
    pub prompt: HashMap<&'a Term, f64>,
    /// The folder's (those not in the prompt).
    pub folder: HashMap<&'a Term, f64>,
}

/// A concept's weight from how many of the bank's memories hold it.
struct Weights {
    total: f64,
    scale: f64,
}

impl Weights {
    fn new(total: u64) -> Weights {
        let total = total as f64;
        Weights { total, scale: (1.0 + total).ln() }
    }

    /// `ln(1 + N/df) / ln(1 + N)`, in (0, 1]; a count at the cap is taken as the cap.
    fn of(&self, holding: u64) -> f64 {
        let df = (holding.max(1) as f64).min(self.total.max(1.0));
        (1.0 + self.total / df).ln() / self.scale
    }
}

/// The shared weight and coverage of a memory with these concepts, or `None` when the
/// rule refuses it, or when it shares nothing with the prompt itself.
pub fn judge(memory: &[Term], weights: &Shared<'_>, rule: &RecallRule) -> Option<(f64, f64)> {
    if !memory.iter().any(|c| weights.prompt.contains_key(c)) {
        return None;
    }
    let shared: Vec<f64> =
        memory.iter().filter_map(|c| weights.prompt.get(c).or_else(|| weights.folder.get(c)).copied()).collect();
    let weight: f64 = shared.iter().sum();
    let coverage = shared.len() as f64 / memory.len() as f64;
    (weight >= rule.min_weight && coverage >= rule.min_coverage).then_some((weight, coverage))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn concepts(text: &str) -> Vec<Term> {
        terms::concept_terms(text)
    }

    #[test]
    fn a_weight_is_one_for_a_concept_one_memory_holds_and_falls_as_more_do() {
        let w = Weights::new(10_000);
        assert!((w.of(1) - 1.0).abs() < 1e-9);
        assert!(w.of(10) < w.of(1) && w.of(1000) < w.of(10));
        assert!(w.of(10_000) < 0.1);
        // A bank of one: its only memory's concepts weigh 1.
        assert!((Weights::new(1).of(1) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_memory_about_the_prompt_passes_and_one_sharing_a_word_does_not() {
        let prompt = concepts("How do I deploy the billing service to staging?");
        let weights = Shared { prompt: prompt.iter().map(|c| (c, 0.7)).collect(), folder: HashMap::new() };
        let rule = RecallRule::default();
        // deploy, stage: 2 of 4 concepts, 1.4 together.
        assert!(judge(&concepts("Staging deploys need the VPN."), &weights, &rule).is_some());
        // service only: 1 of 6, 0.7.
        assert_eq!(judge(&concepts("The person likes short answers about any service they run."), &weights, &rule), None);
        // Nothing shared.
        assert_eq!(judge(&concepts("Tea, not coffee."), &weights, &rule), None);
    }

    #[test]
    fn one_rare_shared_concept_and_a_common_one_are_enough_for_a_short_memory() {
        let prompt = concepts("add retries to the upload client");
        let weights = Shared {
            prompt: prompt.iter().map(|c| (c, if c.text.starts_with("retri") { 1.0 } else { 0.3 })).collect(),
            folder: HashMap::new(),
        };
        let rule = RecallRule::default();
        // retri (1.0) and upload (0.3) of 4.
        assert!(judge(&concepts("Retried uploads back off."), &weights, &rule).is_some());
        // retri alone: 1.0.
        assert_eq!(judge(&concepts("Retries back off."), &weights, &rule), None);
    }

    #[test]
    fn the_folder_counts_for_a_memory_but_never_passes_one_alone() {
        let prompt = concepts("how do I deploy?");
        let folder = concepts("billing");
        let rule = RecallRule::default();
        let weights = Shared {
            prompt: prompt.iter().map(|c| (c, 0.7)).collect(),
            folder: folder.iter().map(|c| (c, 0.7)).collect(),
        };
        // deploy alone: 0.7; with billing: 1.4 over 2 of 4 concepts.
        assert!(judge(&concepts("Billing deploys need the VPN."), &weights, &rule).is_some());
        let without = Shared { prompt: weights.prompt.clone(), folder: HashMap::new() };
        assert_eq!(judge(&concepts("Billing deploys need the VPN."), &without, &rule), None);
        // billing alone shares nothing with the prompt.
        assert_eq!(judge(&concepts("Billing invoices are monthly."), &weights, &rule), None);
    }
}
