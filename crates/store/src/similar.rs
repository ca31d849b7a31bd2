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

use std::collections::HashSet;

use memory_bank_contract::wire::SimilarMemory;

use crate::store::SEARCH_CANDIDATE_CAP;
use crate::{rank, terms, Bank, StoreError};

/// Least share of terms two sentences must have in common to count as alike.
pub const SIMILAR_MIN_OVERLAP: f64 = 0.5;

/// Most hints one answer carries.
pub const MAX_SIMILAR: usize = 3;

/// Best full-text matches whose wording is compared: a sentence alike enough to be
/// hinted at ranks among the best matches of its own terms.
const COMPARED: usize = 20;

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
        let candidates = self.store().search_candidates(user_id, &scoped, SEARCH_CANDIDATE_CAP).await?;
        let best: Vec<String> = rank::rank(&wanted, &candidates, COMPARED + 1)
            .into_iter()
            .map(|r| r.id)
            .filter(|id| Some(id.as_str()) != exclude)
            .collect();
        let memories = self.store().memories_by_ids(user_id, &best).await?;
        let wanted: HashSet<String> = wanted.into_iter().map(|t| t.text).collect();
        let mut alike: Vec<(f64, _)> = memories
            .into_iter()
            .map(|m| (overlap(&wanted, &term_set(&m.content)), m))
            .filter(|(score, _)| *score >= SIMILAR_MIN_OVERLAP)
            .collect();
        alike.sort_by(|(a, x), (b, y)| b.total_cmp(a).then(y.created_at.unix_ms().cmp(&x.created_at.unix_ms())));
        Ok(alike.into_iter().take(MAX_SIMILAR).map(|(_, m)| SimilarMemory { id: m.id, content: m.content }).collect())
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
