//! Duplicate hints: which of a user's memories are worded much like a sentence being
//! saved, proposed or accepted. A hint only, shown to the person; nothing is ever
//! merged automatically.
//!
//! The rule: both sentences are reduced to their distinct search terms (the scheme of
//! [`crate::terms`]: normalised words, CJK bigrams), and two memories are alike when
//! their Jaccard overlap, shared terms over all terms of either, is at least
//! [`SIMILAR_MIN_OVERLAP`]. Half is strict enough that sentences sharing only a
//! framing ("The user prefers …") are not flagged, and loose enough to catch a
//! rewording or a contradiction ("I use tabs" / "I use spaces"), which is when the
//! person most wants to edit the old memory instead of keeping both.
//!
//! # Bounded work
//!
//! A save runs this, so its cost must not grow with the bank. Two sentences with
//! Jaccard ≥ ½ share at least half of the new sentence's `a` terms, so any memory alike
//! to it holds at least one of any ⌊a/2⌋ + 1 of those terms. The hint therefore looks
//! up only the sentence's ⌊a/2⌋ + 1 *rarest* terms (their counts capped at
//! [`COUNT_CAP`], stopwords assumed common and not counted), drops the matches whose
//! stored terms cannot reach the overlap, and compares the wording of the rest. That
//! finds every alike memory, exactly as comparing with all of them would, whenever
//! those rare terms are in at most [`SEARCH_CANDIDATE_CAP`] memories together and at
//! most [`COMPARED`] matches pass the term check; past that (a sentence made only of
//! words in thousands of memories) it compares with the newest of them.

use std::collections::HashSet;

use memory_bank_contract::wire::SimilarMemory;

use crate::store::{Candidate, SEARCH_CANDIDATE_CAP};
use crate::{terms, word_forms, Bank, StoreError};

/// Least share of terms two sentences must have in common to count as alike.
pub const SIMILAR_MIN_OVERLAP: f64 = 0.5;

/// Most hints one answer carries.
pub const MAX_SIMILAR: usize = 3;

/// Most memories whose wording is read and compared, those sharing the most terms with
/// the sentence first. Only a short sentence of words common in the bank brings this many
/// past the term check.
const COMPARED: usize = 256;

/// A term's count stops here: past it, a term is common and its exact count is moot.
pub const COUNT_CAP: u32 = 1000;

/// Most terms counted for one sentence (a long one needs only its rarest half).
const COUNTED: usize = 48;

/// Shared terms over all terms of either sentence, 0 when either has none.
pub fn overlap(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

fn term_set(text: &str) -> HashSet<String> {
    terms::exact_terms(text).into_iter().map(|t| t.text).collect()
}

/// How many of `wanted` (scoped exact terms) a candidate's stored terms hold. Its
/// sentence's terms are among its stored ones (with its tags' and snippets'), so this
/// is at least what its wording shares with the sentence.
fn stored_shared(candidate: &Candidate, wanted: &HashSet<&str>) -> usize {
    let stored: HashSet<&str> = candidate.search_text.split(' ').collect();
    stored.iter().filter(|t| wanted.contains(*t)).count()
}

impl Bank {
    /// The user's memories alike to `content` (at most [`MAX_SIMILAR`], most alike
    /// first, newest first among equals), leaving out `exclude`.
    pub async fn similar(&self, user_id: &str, content: &str, exclude: Option<&str>) -> Result<Vec<SimilarMemory>, StoreError> {
        // Words as written, stopwords included: the rule compares wording, not meaning.
        let wanted = terms::exact_terms(content);
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let scoped = terms::scope_terms(user_id, &wanted);
        let rarest = self.rarest_terms(&wanted, &scoped).await?;
        let candidates = self.store().search_candidates(user_id, &rarest, SEARCH_CANDIDATE_CAP).await?;
        // An alike memory shares at least half of the sentence's terms.
        let needed = wanted.len().div_ceil(2);
        let wanted_scoped: HashSet<&str> = scoped.iter().map(String::as_str).collect();
        let mut close: Vec<(usize, Candidate)> = candidates
            .into_iter()
            .filter(|c| Some(c.id.as_str()) != exclude)
            .map(|c| (stored_shared(&c, &wanted_scoped), c))
            .filter(|(shared, _)| *shared >= needed)
            .collect();
        close.sort_by(|(a, x), (b, y)| b.cmp(a).then(y.created_at.cmp(&x.created_at)));
        let compared: Vec<String> = close.into_iter().take(COMPARED).map(|(_, c)| c.id).collect();
        let memories = self.store().memories_by_ids(user_id, &compared).await?;
        let wanted: HashSet<String> = wanted.into_iter().map(|t| t.text).collect();
        let mut alike: Vec<(f64, _)> = memories
            .into_iter()
            .map(|m| (overlap(&wanted, &term_set(&m.content)), m))
            .filter(|(score, _)| *score >= SIMILAR_MIN_OVERLAP)
            .collect();
        alike.sort_by(|(a, x), (b, y)| b.total_cmp(a).then(y.created_at.unix_ms().cmp(&x.created_at.unix_ms())));
        Ok(alike.into_iter().take(MAX_SIMILAR).map(|(_, m)| SimilarMemory { id: m.id, content: m.content }).collect())
    }

    /// The ⌊a/2⌋ + 1 rarest of the sentence's `a` terms (scoped), by their capped
    /// counts; stopwords, and terms past the first [`COUNTED`], count as common.
    async fn rarest_terms(&self, wanted: &[terms::Term], scoped: &[String]) -> Result<Vec<String>, StoreError> {
        let needed = wanted.len() / 2 + 1;
        let counted: Vec<usize> =
            (0..wanted.len()).filter(|&i| !word_forms::is_stopword(&wanted[i].text)).take(COUNTED).collect();
        let mut counts = vec![COUNT_CAP; wanted.len()];
        if needed < wanted.len() && !counted.is_empty() {
            let terms: Vec<String> = counted.iter().map(|&i| scoped[i].clone()).collect();
            for (&i, n) in counted.iter().zip(self.store().term_counts(&terms, COUNT_CAP).await?) {
                counts[i] = n;
            }
        }
        let mut order: Vec<usize> = (0..wanted.len()).collect();
        // Rarest first; among equals, a longer term (likely the rarer word) first.
        order.sort_by(|&i, &j| counts[i].cmp(&counts[j]).then(wanted[j].text.len().cmp(&wanted[i].text.len())));
        Ok(order.into_iter().take(needed).map(|i| scoped[i].clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alike(a: &str, b: &str) -> f64 {
        overlap(&term_set(a), &term_set(b))
    }

    #[test]
    fn a_rewording_or_a_contradiction_is_alike() {
        assert!(alike("I prefer tabs for indentation", "I prefer tabs for indentation.") == 1.0);
        assert!(alike("I use tabs", "I use spaces") >= SIMILAR_MIN_OVERLAP);
        assert!(alike("Deploys go out on Friday", "deploys go out on Fridays only") >= SIMILAR_MIN_OVERLAP);
        assert!(alike("我喜欢喝绿茶", "我很喜欢喝绿茶") >= SIMILAR_MIN_OVERLAP);
    }

    #[test]
    fn a_shared_framing_alone_is_not() {
        assert!(alike("The user prefers dark mode", "The user prefers short answers") < SIMILAR_MIN_OVERLAP);
        assert!(alike("Use tabs", "Use spaces") < SIMILAR_MIN_OVERLAP);
        assert!(alike("我喜欢喝绿茶", "我在上海工作") < SIMILAR_MIN_OVERLAP);
        assert_eq!(alike("", "anything"), 0.0);
        assert_eq!(alike("😀", "😀"), 0.0);
    }
}
