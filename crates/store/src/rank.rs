//! Ranking of full-text candidates, done in the app so every backend orders results
//! identically and the engines' own scores (incomparable between SQLite and MySQL,
//! and slow to compute for common terms) are never needed.
//!
//! Okapi BM25 over the candidate set: `idf` from how many candidates hold a term,
//! term frequency saturated with `k1`, normalised by document length with `b`.
//! A word counts once as written and once more, at [`STEM_WEIGHT`], by its stem: a
//! memory that holds the query's exact form ranks above one that holds only another
//! form of it, all else equal.

use std::collections::HashMap;

use crate::store::Candidate;
use crate::terms::{stored_terms, Form, Term};

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// What a stem match adds, against 1 for the exact form (which also matches its
/// stem, so it always ranks first). Chosen on the recall benchmark (BENCHMARKS.md).
pub const STEM_WEIGHT: f64 = 1.0;

/// A candidate with its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// Memory id.
    pub id: String,
    /// BM25 score, > 0 for any candidate holding a query term.
    pub score: f64,
}

/// Scores candidates against the query's (unscoped) terms and returns the best
/// `limit`, highest score first, newest first among equal scores. Candidates that
/// hold none of the terms (a user-code hash collision) are dropped.
pub fn rank(query_terms: &[Term], candidates: &[Candidate], limit: usize) -> Vec<Ranked> {
    if query_terms.is_empty() || candidates.is_empty() {
        return Vec::new();
    }
    let lookup = Lookup::new(query_terms);
    let weight: Vec<f64> =
        query_terms.iter().map(|t| if t.form == Form::Stem { STEM_WEIGHT } else { 1.0 }).collect();
    // Per candidate: frequency of each query term, and its length in terms.
    let mut freqs: Vec<(Vec<u32>, usize)> = Vec::with_capacity(candidates.len());
    let mut doc_freq = vec![0u32; query_terms.len()];
    for candidate in candidates {
        let mut tf = vec![0u32; query_terms.len()];
        let mut len = 0usize;
        for (form, term) in stored_terms(&candidate.search_text) {
            // Length in words as written, as before stems were indexed.
            len += usize::from(form == Form::Exact);
            if let Some(i) = lookup.find(form, term) {
                tf[i] += 1;
            }
        }
        for (i, &f) in tf.iter().enumerate() {
            if f > 0 {
                doc_freq[i] += 1;
            }
        }
        freqs.push((tf, len.max(1)));
    }
    let n = candidates.len() as f64;
    let avg_len = freqs.iter().map(|(_, len)| *len as f64).sum::<f64>() / n;
    let idf: Vec<f64> = doc_freq.iter().map(|&df| (1.0 + (n - df as f64 + 0.5) / (df as f64 + 0.5)).ln()).collect();

    let mut scored: Vec<(f64, &Candidate)> = candidates
        .iter()
        .zip(&freqs)
        .filter_map(|(candidate, (tf, len))| {
            let norm = K1 * (1.0 - B + B * *len as f64 / avg_len);
            let score: f64 = tf
                .iter()
                .zip(idf.iter().zip(&weight))
                .filter(|(f, _)| **f > 0)
                .map(|(&f, (idf, weight))| weight * idf * (f as f64 * (K1 + 1.0)) / (f as f64 + norm))
                .sum();
            (score > 0.0).then_some((score, candidate))
        })
        .collect();
    scored.sort_by(|(sa, a), (sb, b)| {
        sb.total_cmp(sa).then_with(|| b.created_at.cmp(&a.created_at)).then_with(|| b.id.cmp(&a.id))
    });
    scored.truncate(limit);
    scored
        .into_iter()
        .map(|(score, c)| Ranked { id: c.id.clone(), score: (score * 1e6).round() / 1e6 })
        .collect()
}

/// Which query term a stored term is. A candidate holds ~40 stored terms and a common
/// word brings ~1 000 candidates, so this runs ~40 000 times a search: comparing with
/// each of a short query's few terms costs a fraction of hashing every stored term
/// (0.76 ms of ranking at 10⁴ memories, BENCHMARKS.md); a map pays only for a long query.
enum Lookup<'a> {
    Few(&'a [Term]),
    Many(HashMap<(Form, &'a str), usize>),
}

/// Most query terms compared one by one.
const FEW_TERMS: usize = 8;

impl<'a> Lookup<'a> {
    fn new(query_terms: &'a [Term]) -> Self {
        if query_terms.len() <= FEW_TERMS {
            Lookup::Few(query_terms)
        } else {
            Lookup::Many(query_terms.iter().enumerate().map(|(i, t)| ((t.form, t.text.as_str()), i)).collect())
        }
    }

    fn find(&self, form: Form, term: &str) -> Option<usize> {
        match self {
            Lookup::Few(terms) => terms.iter().position(|t| t.form == form && t.text == term),
            Lookup::Many(index) => index.get(&(form, term)).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::{index_text, query_terms};
    use memory_bank_contract::Timestamp;

    fn cand(id: &str, ms: i64, text: &str) -> Candidate {
        Candidate { id: id.into(), created_at: Timestamp::from_unix_ms(ms), search_text: index_text("u", [text]) }
    }

    #[test]
    fn more_matching_terms_rank_higher_and_ties_go_newest_first() {
        let cands = [
            cand("a", 1, "green tea in the morning"),
            cand("b", 2, "coffee in the morning"),
            cand("c", 3, "green tea and green apples"),
            cand("d", 4, "coffee in the morning"),
        ];
        let ranked = rank(&query_terms("green tea"), &cands, 10);
        let ids: Vec<_> = ranked.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["c", "a"]);
        let ranked = rank(&query_terms("coffee"), &cands, 10);
        assert_eq!(ranked.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["d", "b"]);
        assert_eq!(ranked[0].score, ranked[1].score);
    }

    #[test]
    fn a_long_query_ranks_as_a_short_one_does() {
        // Past FEW_TERMS the terms are looked up in a map: the same scores either way.
        let cands = [cand("a", 1, "green tea in the morning"), cand("b", 2, "green tea and green apples")];
        let short = rank(&query_terms("green tea"), &cands, 10);
        let mut long = query_terms("green tea");
        long.extend(query_terms("zebra yak walrus otter lynx heron"));
        assert!(long.len() > FEW_TERMS);
        assert_eq!(rank(&long, &cands, 10), short);
    }

    #[test]
    fn limit_applies_after_ranking() {
        let cands: Vec<_> = (0..30).map(|i| cand(&format!("m{i:02}"), i, if i == 3 { "tea tea tea" } else { "tea and cake" })).collect();
        let ranked = rank(&query_terms("tea"), &cands, 5);
        assert_eq!(ranked.len(), 5);
        assert_eq!(ranked[0].id, "m03");
    }

    #[test]
    fn word_forms_match_and_the_exact_form_ranks_first() {
        let cands = [
            cand("a", 3, "Deploys to production happen on Tuesdays"),
            cand("b", 2, "We deploy the website with Vercel"),
            cand("c", 1, "The billing service owns invoices"),
        ];
        let ids = |q: &str| rank(&query_terms(q), &cands, 10).into_iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids("deploy"), ["b", "a"]);
        assert_eq!(ids("deploys"), ["a", "b"]);
        assert_eq!(ids("deploying"), ["a", "b"], "stem-only matches tie, newest first");
    }
}
