//! Duplicate hints: which memories of a bank (a person's own, or an org's team bank, which
//! every member reads) are worded much like a sentence being saved, proposed or accepted
//! there. A hint only, shown to the person; nothing is ever merged automatically.
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
//! Jaccard ≥ ½ share at least half of the new sentence's `a` terms: ⌈a/2⌉ of them. The
//! hint counts how many memories hold each of the sentence's terms, stopping at
//! [`COUNT_CAP`] (stopwords are taken as common without counting). Say `m` terms are
//! common (at the cap); an alike memory then holds at least ⌈a/2⌉ − `m` of the uncommon
//! ones, and when that is one or more, those are counted from the uncommon terms' row
//! lists (each read once, under [`COUNT_CAP`] entries) and only their sentences are read;
//! past `WORDED_AT_ONCE` of them, their terms are checked first for ⌈a/2⌉ of the
//! sentence's, common ones included, and only the sentences of those that pass are read.
//! A sentence made mostly of common words (⌈a/2⌉ ≤ `m`) falls back to the
//! memories holding any of its ⌊a/2⌋ + 1 rarest terms, which every alike memory holds,
//! the newest [`SEARCH_CANDIDATE_CAP`] of them. Then the matches whose stored terms cannot
//! reach the overlap are dropped and the wording of the rest is compared, at most
//! [`COMPARED`] of them. So the hints are exactly those of comparing the sentence with
//! every memory, but for a sentence of common words in a bank holding thousands of them.

use std::collections::HashSet;

use rustc_hash::{FxHashMap, FxHashSet};

use memory_bank_contract::validate::ValidSave;
use memory_bank_contract::wire::{Scope, SimilarMemory};

use crate::store::{Candidate, RowKey, TermRows, Worded, SEARCH_CANDIDATE_CAP};
use crate::{terms, word_forms, Bank, BankKey, ProposalError, Saved, StoreError};

/// Least share of terms two sentences must have in common to count as alike.
pub const SIMILAR_MIN_OVERLAP: f64 = 0.5;

/// Most hints one answer carries.
pub const MAX_SIMILAR: usize = 3;

/// Most memories whose wording is read and compared, those sharing the most terms with
/// the sentence first. Only a short sentence of words common in the bank brings this many
/// past the term check.
const COMPARED: usize = 256;

/// A term's count stops here: past it, a term is common and its exact count is moot.
pub const COUNT_CAP: u32 = 500;

/// Most terms counted for one sentence (a long one needs only its rarest half).
const COUNTED: usize = 48;

/// Most rows whose sentences are read without checking their terms first: a check is
/// one more statement, worth it only when it spares reading many sentences.
pub(crate) const WORDED_AT_ONCE: usize = 32;

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

/// Most terms [`CommonTerms`] keeps; past it, it starts again empty.
const MOST_KNOWN_COMMON: usize = 65_536;

/// Scoped terms (so per bank) that held [`COUNT_CAP`] rows or more when the hint last
/// read them. The hint does not read them again: a sentence's common words are most of
/// what its term lists cost (at 10⁴ memories, 500 rows each of a 12-term sentence's
/// ~4 common ones; BENCHMARKS.md).
///
/// Why a stale entry (a term that deletes made uncommon) cannot change a hint: an alike
/// memory holds at least ⌈a/2⌉ of the sentence's `a` terms, so at least ⌈a/2⌉ − `m` of
/// any `a` − `m` of them, whichever `m` are set aside as common. Setting one more aside
/// only lowers the count a memory needs, so more memories are compared, never fewer.
/// The fallback's prefix (any ⌊a/2⌋ + 1 terms) holds a term of every alike memory too.
#[derive(Debug, Default)]
pub(crate) struct CommonTerms(std::sync::Mutex<FxHashSet<String>>);

impl CommonTerms {
    fn known(&self) -> std::sync::MutexGuard<'_, FxHashSet<String>> {
        self.0.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// Whether `scoped` was found common.
    pub(crate) fn is_common(&self, scoped: &str) -> bool {
        self.known().contains(scoped)
    }

    /// Keeps these terms as common.
    pub(crate) fn learn<'a>(&self, scoped: impl IntoIterator<Item = &'a String>) {
        let mut known = self.known();
        for term in scoped {
            if known.len() >= MOST_KNOWN_COMMON {
                known.clear();
            }
            known.insert(term.clone());
        }
    }
}

/// Counts how many of a sentence's exact terms ([`terms::candidate_term`]) a candidate's terms hold,
/// each once. Its sentence's terms are among its stored ones (with its tags' and
/// snippets'), so this is at least what its wording shares with the sentence.
///
/// A sentence of common words brings up to [`SEARCH_CANDIDATE_CAP`] candidates of ~25
/// stored terms each: a set of each one's terms cost 2 ms of such a hint at 10⁴
/// memories (BENCHMARKS.md), so each stored term is looked up once, in a map keyed by a fast
/// hash (the terms are the bank's own), and marked with the candidate's round.
struct SharedTerms<'a> {
    index: FxHashMap<&'a str, usize>,
    /// The round in which each wanted term was last found.
    seen: Vec<usize>,
    round: usize,
}

impl<'a> SharedTerms<'a> {
    fn new(wanted: &'a [String]) -> Self {
        let index: FxHashMap<&str, usize> = wanted.iter().enumerate().map(|(i, t)| (t.as_str(), i)).collect();
        SharedTerms { seen: vec![0; wanted.len()], index, round: 0 }
    }

    fn count(&mut self, candidate: &Candidate) -> usize {
        self.round += 1;
        let mut shared = 0;
        for term in candidate.terms.split(' ') {
            if let Some(&i) = self.index.get(term) {
                if self.seen[i] != self.round {
                    self.seen[i] = self.round;
                    shared += 1;
                }
            }
        }
        shared
    }
}

impl Bank {
    /// The user's memories alike to `content` (at most [`MAX_SIMILAR`], most alike
    /// first, newest first among equals), leaving out `exclude`.
    pub async fn similar(&self, user_id: &str, content: &str, exclude: Option<&str>) -> Result<Vec<SimilarMemory>, StoreError> {
        self.similar_up_to(BankKey::Personal(user_id), content, exclude, MAX_SIMILAR).await
    }

    /// The memories of `bank` alike to `content`, as [`Bank::similar`]. The caller checks
    /// that whoever sees the hint may read that bank.
    pub async fn similar_in(&self, bank: BankKey<'_>, content: &str, exclude: Option<&str>) -> Result<Vec<SimilarMemory>, StoreError> {
        self.similar_up_to(bank, content, exclude, MAX_SIMILAR).await
    }

    /// Saves what a person confirmed, as [`Bank::save_or_propose`], with the hint its
    /// answer carries: the memories of the bank it goes to (theirs, or with `scope: org`
    /// the team's) alike to it, other than itself. The hint is read beside the insert,
    /// not after it, so a save costs the longer of the two rather than both; it is the
    /// same hint however they interleave: one more alike memory is read, and the new one
    /// left out. A team hint is only returned once the save or proposal went through,
    /// which checked that the person is a member, so may read the team bank.
    pub async fn save_hinted(&self, user_id: &str, org_id: &str, input: ValidSave) -> Result<(Saved, Vec<SimilarMemory>), ProposalError> {
        let bank = match input.scope {
            Scope::User => BankKey::Personal(user_id),
            Scope::Org => BankKey::Team(org_id),
        };
        let content = input.content.clone();
        let hint = self.similar_up_to(bank, &content, None, MAX_SIMILAR + 1);
        let (saved, hint) = tokio::join!(self.save_or_propose(user_id, org_id, input), hint);
        let saved = saved?;
        let mut hint = hint?;
        if let Saved::Memory(memory) = &saved {
            hint.retain(|alike| alike.id != memory.id);
        }
        hint.truncate(MAX_SIMILAR);
        Ok((saved, hint))
    }

    async fn similar_up_to(&self, bank: BankKey<'_>, content: &str, exclude: Option<&str>, most: usize) -> Result<Vec<SimilarMemory>, StoreError> {
        // Words as written, stopwords included: the rule compares wording, not meaning.
        let wanted = terms::exact_terms(content);
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        // A bank's terms are scoped with its owner's code: the person's, or the org's.
        let scoped = terms::scope_terms(bank.owner(), &wanted);
        let worded = match self.uncommon_sharing(bank, &wanted, &scoped).await? {
            Sharing::Found(worded) => worded,
            Sharing::MostlyCommon(counts) => self.worded_by_rarest(bank, &wanted, &scoped, &counts, exclude).await?,
        };
        let wanted: HashSet<String> = wanted.into_iter().map(|t| t.text).collect();
        let mut alike: Vec<(f64, Worded)> = worded
            .into_iter()
            .filter(|w| Some(w.id.as_str()) != exclude)
            .map(|w| (overlap(&wanted, &term_set(&w.content)), w))
            .filter(|(score, _)| *score >= SIMILAR_MIN_OVERLAP)
            .collect();
        alike.sort_by(|(a, x), (b, y)| b.total_cmp(a).then(y.created_at.cmp(&x.created_at)));
        Ok(alike.into_iter().take(most).map(|(_, w)| SimilarMemory { id: w.id, content: w.content }).collect())
    }

    /// Reads each term's rows (up to [`COUNT_CAP`]) and, unless the sentence is mostly
    /// common words, finds every memory holding enough of its uncommon ones: counted
    /// here from those lists, then only the survivors' sentences read (see the module docs).
    async fn uncommon_sharing(&self, bank: BankKey<'_>, wanted: &[terms::Term], scoped: &[String]) -> Result<Sharing, StoreError> {
        // A stopword, or a term found common before, is not looked up: it counts as common.
        let common_terms = self.common_terms();
        let counted: Vec<usize> = (0..wanted.len())
            .filter(|&i| !word_forms::is_stopword(&wanted[i].text) && !common_terms.is_common(&scoped[i]))
            .take(COUNTED)
            .collect();
        let mut rows: Vec<TermRows> = vec![TermRows::Common; wanted.len()];
        if !counted.is_empty() {
            let terms: Vec<String> = counted.iter().map(|&i| scoped[i].clone()).collect();
            let lists = self.store().term_rows(bank, &terms, COUNT_CAP).await?;
            common_terms.learn(terms.iter().zip(&lists).filter(|(_, list)| **list == TermRows::Common).map(|(term, _)| term));
            for (&i, list) in counted.iter().zip(lists) {
                rows[i] = list;
            }
        }
        let counts: Vec<u32> = rows.iter().map(|r| r.count(COUNT_CAP)).collect();
        let uncommon: Vec<&Vec<RowKey>> = rows
            .iter()
            .filter_map(|r| match r {
                TermRows::Rows(keys) if keys.len() < COUNT_CAP as usize => Some(keys),
                _ => None,
            })
            .collect();
        let common = wanted.len() - uncommon.len();
        let required = wanted.len().div_ceil(2).saturating_sub(common);
        if required == 0 {
            return Ok(Sharing::MostlyCommon(counts));
        }
        // How many of the lists hold each row, a row counted once a list (the last list
        // that counted it is kept beside the count): thousands of keys, so a fast hash.
        let mut shared: FxHashMap<&str, (usize, usize)> = FxHashMap::default();
        for (list_no, list) in uncommon.iter().enumerate() {
            for key in list.iter() {
                let (lists, last) = shared.entry(key.as_str()).or_insert((0, usize::MAX));
                if *last != list_no {
                    *last = list_no;
                    *lists += 1;
                }
            }
        }
        let mut enough: Vec<(usize, &str)> =
            shared.into_iter().filter(|(_, (n, _))| *n >= required).map(|(k, (n, _))| (n, k)).collect();
        // Most shared first, then the newest (a later row's key is longer, or larger).
        enough.sort_by(|(a, x), (b, y)| b.cmp(a).then(y.len().cmp(&x.len())).then(y.cmp(x)));
        let keys: Vec<RowKey> = enough.into_iter().take(SEARCH_CANDIDATE_CAP as usize).map(|(_, k)| k.to_owned()).collect();
        if keys.len() <= WORDED_AT_ONCE {
            return Ok(Sharing::Found(self.store().worded_rows(bank, &keys).await?));
        }
        Ok(Sharing::Found(self.worded_if_close(bank, wanted, &keys).await?))
    }

    /// Of many rows, the sentences of those whose terms hold at least ⌈a/2⌉ of the
    /// sentence's `a` terms, common ones included: a bound on what their sentences share
    /// (their terms also hold their tags' and snippets'), so no alike memory is left out.
    /// When few of a sentence's terms are uncommon, one of them is enough to be counted
    /// in, and a tenth of the saves at 10⁴ read hundreds of sentences: checking their
    /// terms first is what keeps those saves cheap (BENCHMARKS.md).
    async fn worded_if_close(&self, bank: BankKey<'_>, wanted: &[terms::Term], keys: &[RowKey]) -> Result<Vec<Worded>, StoreError> {
        let rows = self.store().candidate_rows(bank, keys).await?;
        let wanted_terms: Vec<String> = wanted.iter().map(terms::candidate_term).collect();
        let mut shared_terms = SharedTerms::new(&wanted_terms);
        let needed = wanted.len().div_ceil(2);
        let close: Vec<String> = rows.into_iter().filter(|c| shared_terms.count(c) >= needed).map(|c| c.id).collect();
        let memories = self.store().memories_by_ids(bank, &close).await?;
        Ok(memories.into_iter().map(|m| Worded { id: m.id, created_at: m.created_at, content: m.content }).collect())
    }

    /// For a sentence of mostly common words: the newest memories holding any of its
    /// ⌊a/2⌋ + 1 rarest terms (every alike memory holds one), those whose stored terms can
    /// reach the overlap, with their sentences.
    async fn worded_by_rarest(
        &self,
        bank: BankKey<'_>,
        wanted: &[terms::Term],
        scoped: &[String],
        counts: &[u32],
        exclude: Option<&str>,
    ) -> Result<Vec<Worded>, StoreError> {
        let mut order: Vec<usize> = (0..wanted.len()).collect();
        // Rarest first; among equals, a longer term (likely the rarer word) first.
        order.sort_by(|&i, &j| counts[i].cmp(&counts[j]).then(wanted[j].text.len().cmp(&wanted[i].text.len())));
        let rarest: Vec<String> = order.into_iter().take(wanted.len() / 2 + 1).map(|i| scoped[i].clone()).collect();
        let candidates = self.store().search_candidates(bank, &rarest, SEARCH_CANDIDATE_CAP).await?;
        let needed = wanted.len().div_ceil(2);
        let wanted_terms: Vec<String> = wanted.iter().map(terms::candidate_term).collect();
        let mut shared_terms = SharedTerms::new(&wanted_terms);
        let mut close: Vec<(usize, Candidate)> = candidates
            .into_iter()
            .filter(|c| Some(c.id.as_str()) != exclude)
            .map(|c| (shared_terms.count(&c), c))
            .filter(|(shared, _)| *shared >= needed)
            .collect();
        close.sort_by(|(a, x), (b, y)| b.cmp(a).then(y.created_at.cmp(&x.created_at)));
        let compared: Vec<String> = close.into_iter().take(COMPARED).map(|(_, c)| c.id).collect();
        let memories = self.store().memories_by_ids(bank, &compared).await?;
        Ok(memories.into_iter().map(|m| Worded { id: m.id, created_at: m.created_at, content: m.content }).collect())
    }
}

/// What counting the sentence's terms decided.
enum Sharing {
    /// Every memory holding enough of the uncommon terms, with its sentence.
    Found(Vec<Worded>),
    /// Too few uncommon terms to require any: each term's capped count.
    MostlyCommon(Vec<u32>),
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
    fn a_candidate_shares_each_wanted_term_once() {
        let wanted: Vec<String> = ["udeploy", "ufriday", "uvpn"].map(String::from).to_vec();
        let mut shared = SharedTerms::new(&wanted);
        let candidate = |text: &str| Candidate { id: "mem_1".into(), created_at: memory_bank_contract::Timestamp::from_unix_ms(0), terms: text.into() };
        // A repeated term counts once; a stem or another word's term not at all.
        assert_eq!(shared.count(&candidate("udeploy sdeploy udeploy ufriday uvpns")), 2);
        // Each candidate is counted afresh.
        assert_eq!(shared.count(&candidate("uvpn")), 1);
        assert_eq!(shared.count(&candidate("ufriday uvpn udeploy")), 3);
        assert_eq!(shared.count(&candidate("")), 0);
    }

    #[test]
    fn a_term_found_common_is_kept_until_the_list_is_full() {
        let common = CommonTerms::default();
        assert!(!common.is_common("uxdeploy"));
        common.learn(&["uxdeploy".to_owned(), "uxfriday".to_owned()]);
        assert!(common.is_common("uxdeploy") && common.is_common("uxfriday"));
        assert!(!common.is_common("uydeploy"), "another bank's term is its own");
        let many: Vec<String> = (0..MOST_KNOWN_COMMON).map(|i| format!("ux{i}")).collect();
        common.learn(&many);
        assert!(!common.is_common("uxdeploy"), "a full list starts again");
        assert!(common.is_common(&many[MOST_KNOWN_COMMON - 1]));
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
