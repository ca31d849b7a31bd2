//! The search term scheme every backend indexes, decided in the app so that SQLite
//! FTS5 and the MariaDB/MySQL store's index table hold exactly the same tokens.
//!
//! Why not the engines' tokenizers: FTS5 `unicode61` and InnoDB both treat an unspaced
//! CJK run as one token (`绿茶` misses `我喜欢喝绿茶`), InnoDB drops terms under three
//! characters and stopwords (`Go`, `AI`, `the who`), and raw user text in a MATCH is
//! query syntax. So the app:
//!
//! 1. normalises (NFKC, lowercase, strips accents from non-CJK letters),
//! 2. splits into runs of letters/digits, keeping CJK apart from other scripts,
//! 3. indexes CJK runs as unigrams plus overlapping bigrams (queries use bigrams,
//!    or the unigram for a single character),
//! 4. indexes each word also as its stem, and leaves stopwords out of queries
//!    ([`crate::word_forms`]),
//! 5. prefixes every term with the owner's code (`u` + 10 hex digits of FNV-1a; `s` instead
//!    of `u` for a stem), so
//!    each posting list holds one user's rows (a common word stays cheap) and every
//!    token is long and never a stopword.
//!
//! The result is only ASCII letters/digits plus CJK/other letters separated by single
//! spaces, so it is safe to quote as FTS5 phrases or pass to MySQL's NATURAL/BOOLEAN
//! mode, and the SQLite store can index it with FTS5's `ascii` tokenizer unchanged.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::word_forms;

/// Longest term kept, in characters (InnoDB ignores tokens over 84 characters;
/// 11 for the user code plus 64 stays under it).
pub const MAX_TERM_CHARS: usize = 64;

/// Length of [`user_code`]'s output.
pub const USER_CODE_LEN: usize = 11;

/// `u` + 10 hex digits (40 bits) of FNV-1a-64 of the user id.
pub fn user_code(user_id: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in user_id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("u{:010x}", hash & 0xff_ffff_ffff)
}

/// True for characters written without spaces between words (Han, kana, Hangul…).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF   // Hiragana, Katakana
        | 0x31F0..=0x31FF // Katakana extensions
        | 0x3400..=0x4DBF // CJK Extension A
        | 0x4E00..=0x9FFF // CJK Unified Ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0x1100..=0x11FF // Hangul Jamo
        | 0x3130..=0x318F // Hangul compatibility Jamo
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0x20000..=0x3134F // Extensions B–H
    )
}

#[derive(PartialEq, Clone, Copy)]
enum Class {
    Cjk,
    Word,
    Gap,
}

/// A run of the text: a word of non-CJK letters/digits, or a run of CJK characters.
enum Run {
    Word(String),
    Cjk(Vec<char>),
}

fn runs(text: &str) -> Vec<Run> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush = |word: &mut String, cjk: &mut Vec<char>, out: &mut Vec<Run>| {
        if !word.is_empty() {
            out.push(Run::Word(word.chars().take(MAX_TERM_CHARS).collect()));
            word.clear();
        }
        if !cjk.is_empty() {
            out.push(Run::Cjk(std::mem::take(cjk)));
        }
    };
    let mut previous = Class::Gap;
    for c in text.nfkc() {
        let class = if is_cjk(c) {
            Class::Cjk
        } else if c.is_alphanumeric() {
            Class::Word
        } else if is_combining_mark(c) && previous == Class::Word {
            continue; // an accent on the letter before it: dropped, the word goes on
        } else {
            Class::Gap
        };
        if class != previous {
            flush(&mut word, &mut cjk, &mut out);
        }
        match class {
            Class::Cjk => cjk.push(c),
            Class::Word => word_forms::push_folded(&mut word, c),
            Class::Gap => {}
        }
        previous = class;
    }
    flush(&mut word, &mut cjk, &mut out);
    out
}

/// The scheme [`index_text`] writes today. A stored `search_text` of an older one is
/// rewritten from the memory's own text (`Bank::rewrite_search_terms`).
///
/// 1. words, CJK unigrams and bigrams, scoped by owner;
/// 2. as 1, plus each word's stem ([`crate::word_forms`]).
pub const TERMS_VERSION: i64 = 2;

/// How a term matches: as written, or by its stem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// The word as written (folded), a CJK unigram or bigram.
    Exact,
    /// The Snowball stem of a word ([`crate::word_forms::stem`]).
    Stem,
}

impl Form {
    /// First letter of the scope code: `u` for exact terms (the scheme's first
    /// version, so old rows still match), `s` for stems.
    fn code_letter(self) -> char {
        match self {
            Form::Exact => 'u',
            Form::Stem => 's',
        }
    }
}

/// One search term, unscoped.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Term {
    /// Exact or stem.
    pub form: Form,
    /// The term's letters.
    pub text: String,
}

impl Term {
    /// An exact term.
    pub fn exact(text: impl Into<String>) -> Term {
        Term { form: Form::Exact, text: text.into() }
    }

    fn stem(text: String) -> Term {
        Term { form: Form::Stem, text }
    }
}

/// Terms to index for `text` (unscoped, in order, with repeats): every word as
/// written and, where it has one, its stem; CJK unigrams and bigrams.
pub fn document_terms(text: &str) -> Vec<Term> {
    let mut terms = Vec::new();
    for run in runs(text) {
        match run {
            Run::Word(w) => {
                let stem = word_forms::stem(&w);
                terms.push(Term::exact(w));
                terms.extend(stem.map(Term::stem));
            }
            Run::Cjk(chars) => {
                terms.extend(chars.iter().map(|c| Term::exact(c.to_string())));
                terms.extend(chars.windows(2).map(|pair| Term::exact(pair.iter().collect::<String>())));
            }
        }
    }
    terms
}

/// Distinct exact terms of a text, stopwords included (first-seen order): the
/// duplicate hint's wording comparison (`similar.rs`), which compares words as
/// written. Empty when the text has no letters or digits.
pub fn exact_terms(text: &str) -> Vec<Term> {
    let mut terms: Vec<Term> = Vec::new();
    for run in runs(text) {
        let found: Vec<String> = match run {
            Run::Word(w) => vec![w],
            Run::Cjk(chars) if chars.len() == 1 => vec![chars[0].to_string()],
            Run::Cjk(chars) => chars.windows(2).map(|pair| pair.iter().collect()).collect(),
        };
        for text in found {
            let term = Term::exact(text);
            if !terms.contains(&term) {
                terms.push(term);
            }
        }
    }
    terms
}

/// Distinct terms of a search query (unscoped, first-seen order): its words as
/// written and their stems, CJK bigrams (or the unigram of a single character).
///
/// Stopwords never pull in candidates: a query with any other word leaves them out
/// ("what does the user prefer" looks up `user` and `prefer`), and a query made only
/// of stopwords ("The Who") looks them up as written. Empty when the query has no
/// letters or digits at all (punctuation, emoji): such a query matches nothing.
pub fn query_terms(query: &str) -> Vec<Term> {
    let all = exact_terms(query);
    let meaningful: Vec<Term> = all.iter().filter(|t| !word_forms::is_stopword(&t.text)).cloned().collect();
    if meaningful.is_empty() {
        return all;
    }
    let mut terms = meaningful.clone();
    for term in &meaningful {
        if let Some(stem) = word_forms::stem(&term.text).map(Term::stem) {
            if !terms.contains(&stem) {
                terms.push(stem);
            }
        }
    }
    terms
}

/// Of a query's terms ([`query_terms`]), those whose index entries hold every memory
/// any of them matches, in a bank whose terms are all in today's scheme: an exact term
/// is left out when its own stem is among them, as every memory holding a word as
/// written is indexed under that word's stem too ([`document_terms`]). So a search
/// reads "deploy"'s entries and not also "deploys"'s, and finds the same memories: for
/// a common word, half the index entries (BENCHMARKS.md). Ranking still weighs every
/// query term ([`crate::rank`]); only which entries are read changes.
///
/// Not for a bank with memories of the first scheme (no stems) left to rewrite: those
/// match by their exact words only.
pub fn covering_terms(query_terms: &[Term]) -> Vec<Term> {
    let stems: Vec<&str> = query_terms.iter().filter(|t| t.form == Form::Stem).map(|t| t.text.as_str()).collect();
    query_terms
        .iter()
        .filter(|t| {
            t.form == Form::Stem || !word_forms::stem(&t.text).is_some_and(|stem| stems.contains(&stem.as_str()))
        })
        .cloned()
        .collect()
}

/// Distinct concepts of a text (unscoped, first-seen order): each word once, by its
/// stem where it has one (so "deploys" and "deploying" are one concept) and as written
/// otherwise, CJK bigrams (or the unigram of a lone character), stopwords left out even
/// when nothing else is left. Recall (`recall.rs`) compares prompts and memories by these.
pub fn concept_terms(text: &str) -> Vec<Term> {
    let mut concepts: Vec<Term> = Vec::new();
    for term in exact_terms(text) {
        if word_forms::is_stopword(&term.text) {
            continue;
        }
        let concept = match word_forms::stem(&term.text) {
            Some(stem) => Term::stem(stem),
            None => term,
        };
        if !concepts.contains(&concept) {
            concepts.push(concept);
        }
    }
    concepts
}

/// Prefixes each term with the user's code for its form.
pub fn scope_terms(user_id: &str, terms: &[Term]) -> Vec<String> {
    let code = user_code(user_id);
    terms.iter().map(|t| scoped(&code, t)).collect()
}

fn scoped(code: &str, term: &Term) -> String {
    let mut out = String::with_capacity(code.len() + term.text.len());
    out.push(term.form.code_letter());
    out.push_str(&code[1..]);
    out.push_str(&term.text);
    out
}

/// The stored `search_text` of a memory: its content, tags and snippets, scoped to
/// the owner, space-separated.
pub fn index_text<'a>(user_id: &str, parts: impl IntoIterator<Item = &'a str>) -> String {
    let code = user_code(user_id);
    let mut out = String::new();
    for part in parts {
        for term in document_terms(part) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&scoped(&code, &term));
        }
    }
    out
}

/// The stored `search_text` of a memory from its sentence, tags and snippets: the one
/// derivation a save, an edit, an import and a terms rewrite all call, so each gives a
/// memory the same terms.
pub fn memory_index_text<'a>(
    user_id: &str,
    content: &'a str,
    tags: &'a [String],
    snippets: impl IntoIterator<Item = &'a str>,
) -> String {
    index_text(user_id, std::iter::once(content).chain(tags.iter().map(String::as_str)).chain(snippets))
}

/// A memory's terms as a search candidate carries them ([`crate::Candidate::terms`]): its
/// stored `search_text` without the owner code, each term its form's letter then its text
/// (`udeploys sdeploy`). A bank's candidates share one code, so it tells ranking nothing,
/// and without it a common word's thousand candidates are far fewer bytes to read.
///
/// The rule, byte for byte what the SQLite store's `memory_candidate` trigger computes in
/// SQL (a test there holds them equal): the ten characters after the first letter are the
/// owner's hex digits, and every `u` or `s` followed by them at a term's start loses them.
pub fn candidate_terms(search_text: &str) -> String {
    let hex: String = search_text.chars().skip(1).take(USER_CODE_LEN - 1).collect();
    if hex.contains(' ') {
        // No index_text makes this (its first term is longer): the SQL's replaces, as written.
        return code_stripped_by_replace(search_text, &hex);
    }
    // One pass, term by term: with no space in the code, each replace can only match
    // a whole term's start, so this is the same (a test holds it so on drawn texts).
    let mut out = String::with_capacity(search_text.len());
    for (i, term) in search_text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match term.as_bytes().first() {
            Some(b'u' | b's') if term[1..].starts_with(hex.as_str()) => {
                out.push_str(&term[..1]);
                out.push_str(&term[1 + hex.len()..]);
            }
            _ => out.push_str(term),
        }
    }
    out
}

/// The `memory_candidate` trigger's SQL, in Rust.
fn code_stripped_by_replace(search_text: &str, hex: &str) -> String {
    let stripped = format!(" {search_text}").replace(&format!(" u{hex}"), " u").replace(&format!(" s{hex}"), " s");
    stripped[1..].to_owned()
}

/// A query term as [`candidate_terms`] holds it: its form's letter, then its text.
pub fn candidate_term(term: &Term) -> String {
    let mut out = String::with_capacity(1 + term.text.len());
    out.push(term.form.code_letter());
    out.push_str(&term.text);
    out
}

/// Splits a candidate's terms ([`candidate_terms`]) into terms with their form.
pub fn read_candidate_terms(terms: &str) -> impl Iterator<Item = (Form, &str)> {
    terms.split(' ').filter(|t| t.len() > 1).map(|t| {
        let form = if t.starts_with('s') { Form::Stem } else { Form::Exact };
        (form, &t[1..])
    })
}

/// Splits a stored `search_text` back into unscoped terms, with their form.
pub fn stored_terms(search_text: &str) -> impl Iterator<Item = (Form, &str)> {
    search_text.split(' ').filter(|t| t.len() > USER_CODE_LEN).map(|t| {
        let form = if t.starts_with('s') { Form::Stem } else { Form::Exact };
        (form, &t[USER_CODE_LEN..])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Vec<String> {
        exact_terms(text).into_iter().map(|t| t.text).collect()
    }

    fn looked_up(query: &str) -> Vec<String> {
        query_terms(query).into_iter().map(|t| format!("{}{}", t.form.code_letter(), t.text)).collect()
    }

    #[test]
    fn queries_look_up_words_and_their_stems_without_stopwords() {
        assert_eq!(looked_up("Deploys"), ["udeploys", "sdeploy"]);
        assert_eq!(looked_up("what does the user prefer?"), ["uuser", "uprefer", "suser", "sprefer"]);
        // Only stopwords: looked up as written, never nothing.
        assert_eq!(looked_up("The Who"), ["uthe", "uwho"]);
        assert_eq!(looked_up("客户迁移"), ["u客户", "u户迁", "u迁移"]);
    }

    #[test]
    fn covering_terms_leave_out_exact_words_whose_stem_is_looked_up() {
        let covering = |query: &str| -> Vec<String> {
            covering_terms(&query_terms(query)).into_iter().map(|t| format!("{}{}", t.form.code_letter(), t.text)).collect()
        };
        assert_eq!(covering("Deploys"), ["sdeploy"]);
        assert_eq!(covering("what does the user prefer?"), ["suser", "sprefer"]);
        assert_eq!(covering("The Who"), ["uthe", "uwho"], "stopwords have no stem");
        assert_eq!(covering("python3 deploys 客户迁移"), ["upython3", "u客户", "u户迁", "u迁移", "sdeploy"]);
        assert!(covering("😀").is_empty());
    }

    /// The rule `covering_terms` rests on: a text's index holds one of a query's terms
    /// exactly when it holds one of the covering terms, for texts and queries drawn from
    /// word forms, stopwords, identifiers and other scripts.
    #[test]
    fn covering_terms_match_the_same_texts_as_every_query_term() {
        const WORDS: [&str; 22] = [
            "deploy", "Deploys", "deploying", "deployment", "the", "what", "v2", "python3", "migrated", "migrating",
            "Straße", "strasse", "развертывания", "развертывание", "и", "客户迁移", "迁移", "abcвгд", "preferences",
            "prefer", "running", "ran",
        ];
        let mut seed = 0x9e37_79b9_u64;
        let mut draw = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let text: Vec<&str> = (0..1 + draw(4)).map(|_| WORDS[draw(WORDS.len())]).collect();
            let query: Vec<&str> = (0..1 + draw(3)).map(|_| WORDS[draw(WORDS.len())]).collect();
            let (text, query) = (text.join(" "), query.join(" "));
            let indexed: std::collections::HashSet<Term> = document_terms(&text).into_iter().collect();
            let all = query_terms(&query);
            let covering = covering_terms(&all);
            assert!(covering.iter().all(|t| all.contains(t)), "{query:?}");
            assert_eq!(
                all.iter().any(|t| indexed.contains(t)),
                covering.iter().any(|t| indexed.contains(t)),
                "text {text:?}, query {query:?}"
            );
        }
    }

    #[test]
    fn short_words_survive_and_are_lowercased() {
        assert_eq!(q("Go UI AI"), ["go", "ui", "ai"]);
        assert_eq!(q("C++ e-mail"), ["c", "e", "mail"]);
    }

    #[test]
    fn cjk_runs_become_bigrams_and_separate_from_latin() {
        assert_eq!(q("迁移"), ["迁移"]);
        assert_eq!(q("客户迁移"), ["客户", "户迁", "迁移"]);
        assert_eq!(q("茶"), ["茶"]);
        let doc = document_terms("我喜欢Python编程");
        assert!(doc.contains(&Term::exact("python")) && doc.contains(&Term::exact("编程")) && doc.contains(&Term::exact("编")));
        assert!(document_terms("客户迁移计划").contains(&Term::exact("迁移")));
        assert!(document_terms("客户迁移计划").iter().all(|t| t.form == Form::Exact));
        assert_eq!(q("東京タワー"), ["東京", "京タ", "タワ", "ワー"]);
    }

    #[test]
    fn accents_and_widths_fold() {
        assert_eq!(q("Café ＡＩ"), ["cafe", "ai"]);
        assert_eq!(q("İstanbul"), ["istanbul"]);
    }

    #[test]
    fn syntax_characters_and_emoji_yield_no_terms() {
        for hostile in ["\"", "*", "-", "(", ")", "\0", "😀", "\"*-()^:"] {
            assert!(q(hostile).is_empty(), "{hostile:?}");
        }
        assert_eq!(q("OR AND NOT"), ["or", "and", "not"]);
        assert_eq!(q("user_id:u1"), ["user", "id", "u1"]);
    }

    #[test]
    fn scoped_text_is_plain_tokens_with_the_user_code() {
        let text = index_text("usr_1", ["The wörlds!", "绿茶"]);
        let code = user_code("usr_1");
        let hex = &code[1..];
        assert_eq!(code.len(), USER_CODE_LEN);
        assert_eq!(text, format!("{code}the {code}worlds s{hex}world {code}绿 {code}茶 {code}绿茶"));
        let stored: Vec<_> = stored_terms(&text).collect();
        assert_eq!(stored[..3], [(Form::Exact, "the"), (Form::Exact, "worlds"), (Form::Stem, "world")]);
        assert_eq!(stored.len(), 6);
        assert!(text.chars().all(|c| c == ' ' || c.is_alphanumeric()));
        assert_ne!(user_code("usr_1"), user_code("usr_2"));
    }

    #[test]
    fn candidate_terms_are_the_stored_ones_without_the_owner_code() {
        let text = index_text("usr_1", ["The wörlds!", "绿茶"]);
        let terms = candidate_terms(&text);
        assert_eq!(terms, "uthe uworlds sworld u绿 u茶 u绿茶");
        assert_eq!(read_candidate_terms(&terms).collect::<Vec<_>>(), stored_terms(&text).collect::<Vec<_>>());
        let exact = Term::exact("worlds");
        assert!(terms.split(' ').any(|t| t == candidate_term(&exact)));
        assert_eq!(candidate_terms(""), "");
        // A term's text holding the code is left whole: the code goes only at a term's start.
        let code = user_code("usr_1");
        let tricky = format!("{code}a{} {code}", &code[1..]);
        assert_eq!(candidate_terms(&tricky), format!("ua{} u", &code[1..]));
    }

    /// The one-pass strip equals the trigger's two replaces on drawn texts: codes inside
    /// terms, terms of another code, short first terms, spaces in runs, non-ASCII.
    #[test]
    fn candidate_terms_strip_as_the_trigger_s_replaces_do() {
        let mut seed = 33u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let pieces = ["u", "s", " ", "  ", "0a1b2c3d4e", "0a1b2", "c3d4e", "9f", "tea", "é", "绿"];
        for _ in 0..5000 {
            let text: String = (0..next(12)).map(|_| pieces[next(pieces.len() as u64) as usize]).collect();
            let hex: String = text.chars().skip(1).take(USER_CODE_LEN - 1).collect();
            assert_eq!(candidate_terms(&text), code_stripped_by_replace(&text, &hex), "{text:?}");
        }
    }

    #[test]
    fn very_long_runs_are_truncated() {
        let long = "a".repeat(500);
        assert_eq!(q(&long)[0].chars().count(), MAX_TERM_CHARS);
    }
}
