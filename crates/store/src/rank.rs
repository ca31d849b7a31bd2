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
use memchr::memmem;
use memory_bank_contract::Timestamp;

use crate::terms::{read_candidate_terms, Form, Term};

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
    let mut tally = Tally::new(query_terms);
    for candidate in candidates {
        tally.add(0, &candidate.id, candidate.created_at, &candidate.terms);
    }
    tally.rank(limit).into_iter().map(|(ranked, _)| ranked).collect()
}

/// BM25's first pass, over candidates as a store reads them: each one's frequency of
/// every query term and its length are kept, its text is not. Why: a common word brings
/// a thousand candidates, and copying each one's terms out of the store cost ≈ 0.07 ms of
/// its 0.8 (BENCHMARKS.md, "stdio polled, candidates counted as read"). [`rank`] is
/// this over a list.
pub struct Tally<'q> {
    lookup: Lookup<'q>,
    weight: Vec<f64>,
    /// Per candidate, the frequency of each query term: one row of `width` each.
    tf: Vec<u32>,
    /// Per candidate: its length in terms (at least 1), when it was made, its bank.
    rows: Vec<(usize, Timestamp, usize)>,
    /// The candidates' ids end to end; `id_ends[i]` is where the `i`th ends.
    ids: String,
    id_ends: Vec<usize>,
}

impl<'q> Tally<'q> {
    pub fn new(query_terms: &'q [Term]) -> Self {
        Tally {
            lookup: Lookup::new(query_terms),
            weight: query_terms.iter().map(|t| if t.form == Form::Stem { STEM_WEIGHT } else { 1.0 }).collect(),
            tf: Vec::new(),
            rows: Vec::new(),
            ids: String::new(),
            id_ends: Vec::new(),
        }
    }

    /// One candidate of the bank `bank` (an index the caller gives, returned with the
    /// ranking): its id, time and stored terms (as [`Candidate::terms`]).
    pub fn add(&mut self, bank: usize, id: &str, created_at: Timestamp, terms: &str) {
        let at = self.tf.len();
        self.tf.resize(at + self.weight.len(), 0);
        let len = self.lookup.count(terms, &mut self.tf[at..]);
        self.rows.push((len.max(1), created_at, bank));
        self.ids.push_str(id);
        self.id_ends.push(self.ids.len());
    }

    fn id(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.id_ends[i - 1] };
        &self.ids[start..self.id_ends[i]]
    }

    /// The best `limit` of the candidates added, each with its bank, as [`rank`] orders
    /// them.
    pub fn rank(&self, limit: usize) -> Vec<(Ranked, usize)> {
        let width = self.weight.len();
        if width == 0 || self.rows.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut doc_freq = vec![0u32; width];
        for row in self.tf.chunks_exact(width) {
            for (df, &f) in doc_freq.iter_mut().zip(row) {
                *df += u32::from(f > 0);
            }
        }
        let n = self.rows.len() as f64;
        let avg_len = self.rows.iter().map(|&(len, ..)| len as f64).sum::<f64>() / n;
        let idf: Vec<f64> = doc_freq.iter().map(|&df| (1.0 + (n - df as f64 + 0.5) / (df as f64 + 0.5)).ln()).collect();

        // (score, candidate's index, its time)
        let mut scored: Vec<(f64, usize, Timestamp)> = self
            .tf
            .chunks_exact(width)
            .zip(&self.rows)
            .enumerate()
            .filter_map(|(i, (tf, &(len, created_at, _)))| {
                let norm = K1 * (1.0 - B + B * len as f64 / avg_len);
                let score: f64 = tf
                    .iter()
                    .zip(idf.iter().zip(&self.weight))
                    .filter(|(f, _)| **f > 0)
                    .map(|(&f, (idf, weight))| weight * idf * (f as f64 * (K1 + 1.0)) / (f as f64 + norm))
                    .sum();
                (score > 0.0).then_some((score, i, created_at))
            })
            .collect();
        let best_first = |(sa, a, ta): &(f64, usize, Timestamp), (sb, b, tb): &(f64, usize, Timestamp)| {
            sb.total_cmp(sa).then_with(|| tb.cmp(ta)).then_with(|| self.id(*b).cmp(self.id(*a)))
        };
        // The best `limit` first (a total order, so the same ones a full sort keeps), then
        // only they are sorted.
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, best_first);
            scored.truncate(limit);
        }
        scored.sort_by(best_first);
        scored
            .into_iter()
            .map(|(score, i, _)| (Ranked { id: self.id(i).to_owned(), score: (score * 1e6).round() / 1e6 }, self.rows[i].2))
            .collect()
    }
}

/// Counts a candidate's query terms. A candidate holds ~25–40 stored terms and a common
/// word brings ~1 000 candidates. A short query's few texts are found in the stored
/// text with memchr's SIMD search, and only an occurrence that is a whole stored term's
/// text counts: that cost a fifth of comparing every stored term with them, which was
/// 0.45–0.6 ms of a common word's 2.5 ms search (BENCHMARKS.md). A long query's terms
/// are looked up in a map, each stored term once.
enum Lookup<'a> {
    /// Each distinct text of the query, and the query terms (index, form) it is.
    Few(Vec<(memmem::Finder<'a>, Vec<(usize, Form)>)>),
    Many(HashMap<(Form, &'a str), usize>),
}

/// Most query terms found by their text.
const FEW_TERMS: usize = 8;

impl<'a> Lookup<'a> {
    fn new(query_terms: &'a [Term]) -> Self {
        if query_terms.len() > FEW_TERMS {
            return Lookup::Many(query_terms.iter().enumerate().map(|(i, t)| ((t.form, t.text.as_str()), i)).collect());
        }
        let mut texts: Vec<(memmem::Finder<'a>, Vec<(usize, Form)>)> = Vec::new();
        for (i, term) in query_terms.iter().enumerate() {
            match texts.iter_mut().find(|(finder, _)| finder.needle() == term.text.as_bytes()) {
                Some((_, forms)) => forms.push((i, term.form)),
                None if !term.text.is_empty() => texts.push((memmem::Finder::new(term.text.as_bytes()), vec![(i, term.form)])),
                None => {}
            }
        }
        Lookup::Few(texts)
    }

    /// Adds each query term's count in a candidate's `terms` to `tf`; returns its length
    /// in words as written (its terms that are not stems, as before stems were indexed).
    /// Terms as [`read_candidate_terms`] reads them.
    fn count(&self, terms: &str, tf: &mut [u32]) -> usize {
        match self {
            Lookup::Many(index) => {
                let mut len = 0;
                for (form, term) in read_candidate_terms(terms) {
                    len += usize::from(form == Form::Exact);
                    if let Some(&i) = index.get(&(form, term)) {
                        tf[i] += 1;
                    }
                }
                len
            }
            Lookup::Few(texts) => {
                let bytes = terms.as_bytes();
                for (finder, forms) in texts {
                    let mut from = 0;
                    // Overlapping occurrences too: `aa` twice in `uaaa`, once at a term's start.
                    while let Some(found) = finder.find(&bytes[from..]) {
                        let at = from + found;
                        from = at + 1;
                        if let Some(form) = whole_term_at(bytes, at, finder.needle().len()) {
                            if let Some(&(i, _)) = forms.iter().find(|(_, f)| *f == form) {
                                tf[i] += 1;
                            }
                        }
                    }
                }
                stored_lengths(bytes)
            }
        }
    }
}

/// The form of the term whose text is exactly `bytes[at..at + n]`, if it is one: a form
/// letter right before it, at the terms' start or after a space, and a space or the end
/// right after it.
fn whole_term_at(bytes: &[u8], at: usize, n: usize) -> Option<Form> {
    let start = at.checked_sub(1)?;
    let starts_term = start == 0 || bytes[start - 1] == b' ';
    let ends_term = at + n == bytes.len() || bytes[at + n] == b' ';
    (starts_term && ends_term && bytes[start] != b' ').then(|| if bytes[start] == b's' { Form::Stem } else { Form::Exact })
}

/// How many of the terms in `bytes` are not stems: each space-separated term with a
/// text after its letter, whose letter is not `s`.
fn stored_lengths(bytes: &[u8]) -> usize {
    let mut len = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b' ', bytes).chain(std::iter::once(bytes.len())) {
        let term = &bytes[start..end];
        len += usize::from(term.len() > 1 && term[0] != b's');
        start = end + 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terms::{candidate_terms, index_text, query_terms};
    use memory_bank_contract::Timestamp;

    fn cand(id: &str, ms: i64, text: &str) -> Candidate {
        Candidate { id: id.into(), created_at: Timestamp::from_unix_ms(ms), terms: candidate_terms(&index_text("u", [text])) }
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

    /// The best few are the head of the whole order, ties (same score and time) included.
    #[test]
    fn the_best_few_are_the_head_of_the_whole_ranking() {
        let texts = ["tea", "tea and cake", "green tea tea", "cake", "tea tea tea and more tea", "tea and green cake"];
        let cands: Vec<_> = (0..60).map(|i| cand(&format!("m{:02}", (i * 37) % 60), i % 7, texts[i as usize % texts.len()])).collect();
        for query in ["tea", "green tea", "cake tea"] {
            let all = rank(&query_terms(query), &cands, usize::MAX);
            assert!(all.len() > 40 && all.windows(2).any(|w| w[0].score == w[1].score), "ties are ranked: {query}");
            for limit in [1, 2, 7, 20, all.len() - 1, all.len(), all.len() + 5] {
                assert_eq!(rank(&query_terms(query), &cands, limit), all[..limit.min(all.len())], "{query}, {limit}");
            }
            assert!(rank(&query_terms(query), &cands, 0).is_empty());
        }
    }

    /// The counting of short queries (found by text) equals reading every term, on drawn
    /// texts made to trip it: terms inside others, texts that are or hold a form letter,
    /// repeats and stems.
    #[test]
    fn short_queries_count_as_every_stored_term_read_does() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let pieces = ["a", "ab", "aba", "ba", "u", "s", "su", "us", "tea", "te", "ea", "b"];
        for _ in 0..2000 {
            let terms: Vec<String> = (0..1 + next(8))
                .map(|_| {
                    let letter = if next(3) == 0 { 's' } else { 'u' };
                    let text: String = (0..1 + next(3)).map(|_| pieces[next(pieces.len() as u64) as usize]).collect();
                    format!("{letter}{text}")
                })
                .collect();
            let terms = terms.join(" ");
            let query: Vec<Term> = (0..1 + next(3))
                .map(|_| {
                    let text: String = (0..1 + next(2)).map(|_| pieces[next(pieces.len() as u64) as usize]).collect();
                    if next(2) == 0 { Term::exact(&text) } else { Term { form: Form::Stem, text } }
                })
                .collect();
            let mut expected = vec![0u32; query.len()];
            let mut expected_len = 0;
            for (form, term) in read_candidate_terms(&terms) {
                expected_len += usize::from(form == Form::Exact);
                if let Some(i) = query.iter().position(|t| t.form == form && t.text == term) {
                    expected[i] += 1;
                }
            }
            let mut tf = vec![0u32; query.len()];
            let len = Lookup::new(&query).count(&terms, &mut tf);
            assert_eq!((tf, len), (expected, expected_len), "{query:?} in {terms:?}");
        }
    }

    /// Candidates of two banks are ranked as one list, each winner with its own bank.
    #[test]
    fn a_tally_of_two_banks_ranks_them_as_one_list_with_each_winner_s_bank() {
        let mine = [cand("a", 1, "green tea"), cand("b", 2, "coffee"), cand("e", 5, "tea in green cups")];
        let team = [cand("c", 3, "green tea and green apples"), cand("d", 4, "tea")];
        let query = query_terms("green tea");
        let mut tally = Tally::new(&query);
        for (bank, list) in [(0, &mine[..]), (1, &team[..])] {
            for c in list {
                tally.add(bank, &c.id, c.created_at, &c.terms);
            }
        }
        let ranked = tally.rank(10);
        let in_one_list: Vec<Candidate> = mine.iter().chain(&team).cloned().collect();
        assert_eq!(ranked.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>(), rank(&query, &in_one_list, 10));
        let mut ids: Vec<&str> = ranked.iter().map(|(r, _)| r.id.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, ["a", "c", "d", "e"], "every candidate holding a term, once");
        for (r, bank) in &ranked {
            assert_eq!(*bank, usize::from(team.iter().any(|c| c.id == r.id)), "{}", r.id);
        }
        assert_eq!(tally.rank(2).len(), 2);
        assert!(tally.rank(0).is_empty() && Tally::new(&query).rank(10).is_empty());
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
