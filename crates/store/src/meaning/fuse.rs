//! One ranking from two: the words' (BM25) and the meaning's (cosine). Each list's
//! scores are scaled to 0..1 over the list itself (min-max: its best is 1, its last is
//! 0), and a memory's fused score is the weighted sum of its two scaled scores (0 for a
//! list it is not in).
//!
//! Why this rule: measured on the recall benchmark (BENCHMARKS.md, "Recall"), it beats
//! reciprocal rank fusion by 3 points of hit@5 and 3 of hit@1, because a clear winner by
//! cosine or by BM25 keeps its lead, where ranks alone count a near tie the same as a
//! rout. And it is flat around its parameters (weights 0.45–0.55, depth 50–200, floor
//! 0–0.45 all within a point), so it is not fitted to the benchmark. The words weigh a
//! little more when no memory is close in meaning ([`WORDS_WEIGHT_UNSURE`]).

use memory_bank_contract::wire::Matched;

use super::index::Near;
use crate::rank::Ranked;

/// What the words' scaled score weighs; the meaning's weighs the rest.
pub const WORDS_WEIGHT: f64 = 0.5;

/// What it weighs when no memory is close in meaning (the best cosine is under
/// [`CLOSE`]): the meaning side is unsure, so the words count a little more. Measured on
/// the recall benchmark, this keeps most of what the words alone find for questions
/// whose answer shares a rare word with them but little meaning, at no cost elsewhere.
pub const WORDS_WEIGHT_UNSURE: f64 = 0.55;

/// A cosine at which a memory is close in meaning to the query.
pub const CLOSE: f32 = 0.75;

/// A memory in the fused ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    /// Memory id.
    pub id: String,
    /// The fused score, 0..=1, higher is better.
    pub score: f64,
    /// Which lists it was in.
    pub matched: Matched,
}

/// Scales `scores` to 0..=1 over their own range; all 1 when they are equal.
fn scaled(scores: impl Iterator<Item = f64> + Clone) -> impl Fn(f64) -> f64 {
    let (low, high) = scores.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s), hi.max(s)));
    move |s| if high > low { (s - low) / (high - low) } else { 1.0 }
}

/// The best `limit` of both lists, highest fused score first; ties go to the better
/// rank by words, then by meaning. `meaning` is closest first.
pub fn fuse(words: &[Ranked], meaning: &[Near], limit: usize) -> Vec<Fused> {
    let by_words = scaled(words.iter().map(|r| r.score));
    let by_meaning = scaled(meaning.iter().map(|n| f64::from(n.cosine)));
    let sure = meaning.first().is_some_and(|n| n.cosine >= CLOSE);
    let weight = if sure { WORDS_WEIGHT } else { WORDS_WEIGHT_UNSURE };
    // (fused, rank by words, rank by meaning, id, matched); usize::MAX: not in that list.
    let mut fused: Vec<(f64, usize, usize, &str, Matched)> = words
        .iter()
        .enumerate()
        .map(|(rank, hit)| (weight * by_words(hit.score), rank, usize::MAX, hit.id.as_str(), Matched::Words))
        .collect();
    for (rank, near) in meaning.iter().enumerate() {
        let part = (1.0 - weight) * by_meaning(f64::from(near.cosine));
        match fused.iter_mut().find(|f| f.3 == near.id) {
            Some(both) => {
                both.0 += part;
                both.2 = rank;
                both.4 = Matched::Both;
            }
            None => fused.push((part, usize::MAX, rank, near.id.as_str(), Matched::Meaning)),
        }
    }
    fused.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    fused.truncate(limit);
    fused
        .into_iter()
        .map(|(score, _, _, id, matched)| Fused { id: id.to_owned(), score: (score * 1e6).round() / 1e6, matched })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(hits: &[(&str, f64)]) -> Vec<Ranked> {
        hits.iter().map(|(id, score)| Ranked { id: (*id).into(), score: *score }).collect()
    }

    fn near(hits: &[(&str, f32)]) -> Vec<Near> {
        hits.iter().map(|(id, cosine)| Near { id: (*id).into(), cosine: *cosine }).collect()
    }

    #[test]
    fn a_memory_in_both_lists_ranks_first_and_says_so() {
        let fused = fuse(&words(&[("a", 9.0), ("b", 5.0), ("x", 1.0)]), &near(&[("c", 0.8), ("b", 0.7), ("y", 0.4)]), 10);
        let got: Vec<_> = fused.iter().map(|f| (f.id.as_str(), f.matched)).collect();
        assert_eq!(got[0], ("b", Matched::Both), "{fused:?}");
        assert!(got.contains(&("a", Matched::Words)));
        assert!(got.contains(&("c", Matched::Meaning)));
        assert_eq!(fused.len(), 5);
    }

    #[test]
    fn a_clear_winner_keeps_its_lead_and_ties_go_to_the_words() {
        // "a" is far ahead by words; "c" barely ahead by meaning: "a" first.
        let fused = fuse(&words(&[("a", 10.0), ("b", 1.0)]), &near(&[("c", 0.61), ("d", 0.60), ("e", 0.40)]), 10);
        assert_eq!(fused[0].id, "a");
        // Equal fused scores (a memory close in meaning: equal weights): the one found by words first.
        let fused = fuse(&words(&[("a", 5.0), ("b", 1.0)]), &near(&[("c", 0.9), ("d", 0.5)]), 10);
        assert_eq!((fused[0].id.as_str(), fused[1].id.as_str()), ("a", "c"));
        assert_eq!(fused[0].score, fused[1].score);
        // None close in meaning: the words weigh more, so the best by words comes first.
        let fused = fuse(&words(&[("a", 5.0), ("b", 1.0)]), &near(&[("c", 0.6), ("d", 0.5)]), 10);
        assert_eq!((fused[0].id.as_str(), fused[1].id.as_str()), ("a", "c"));
        assert!(fused[0].score > fused[1].score);
    }

    #[test]
    fn either_list_alone_keeps_its_order_and_the_limit_holds() {
        let only_words = fuse(&words(&[("a", 3.0), ("b", 2.0), ("c", 1.0)]), &[], 2);
        assert_eq!(only_words.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let only_meaning = fuse(&[], &near(&[("z", 0.9), ("y", 0.5)]), 5);
        assert_eq!(only_meaning.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["z", "y"]);
        assert!(only_meaning.iter().all(|f| f.matched == Matched::Meaning));
        assert!(fuse(&[], &[], 5).is_empty());
    }
}
