//! The search term scheme every backend indexes, decided in the app so that SQLite
//! FTS5 and MariaDB/MySQL FULLTEXT see exactly the same tokens.
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
//! 4. prefixes every term with the owner's code (`u` + 10 hex digits of FNV-1a), so
//!    each posting list holds one user's rows (a common word stays cheap) and every
//!    token is long and never a stopword.
//!
//! The result is only ASCII letters/digits plus CJK/other letters separated by single
//! spaces, so it is safe to quote as FTS5 phrases or pass to MySQL's NATURAL/BOOLEAN
//! mode, and the SQLite store can index it with FTS5's `ascii` tokenizer unchanged.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

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
            Class::Word => {
                for base in std::iter::once(c).nfd().filter(|d| !is_combining_mark(*d)) {
                    word.extend(base.to_lowercase());
                }
            }
            Class::Gap => {}
        }
        previous = class;
    }
    flush(&mut word, &mut cjk, &mut out);
    out
}

/// Terms to index for `text` (unscoped, in order, with repeats).
pub fn document_terms(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for run in runs(text) {
        match run {
            Run::Word(w) => terms.push(w),
            Run::Cjk(chars) => {
                terms.extend(chars.iter().map(|c| c.to_string()));
                terms.extend(chars.windows(2).map(|pair| pair.iter().collect::<String>()));
            }
        }
    }
    terms
}

/// Distinct terms of a query (unscoped, first-seen order). Empty when the query has
/// no letters or digits at all (punctuation, emoji): such a query matches nothing.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    let mut push = |t: String| {
        if !terms.contains(&t) {
            terms.push(t);
        }
    };
    for run in runs(query) {
        match run {
            Run::Word(w) => push(w),
            Run::Cjk(chars) if chars.len() == 1 => push(chars[0].to_string()),
            Run::Cjk(chars) => chars.windows(2).for_each(|pair| push(pair.iter().collect())),
        }
    }
    terms
}

/// Prefixes each term with the user's code.
pub fn scope_terms(user_id: &str, terms: &[String]) -> Vec<String> {
    let code = user_code(user_id);
    terms.iter().map(|t| format!("{code}{t}")).collect()
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
            out.push_str(&code);
            out.push_str(&term);
        }
    }
    out
}

/// Splits a stored `search_text` back into unscoped terms.
pub fn stored_terms(search_text: &str) -> impl Iterator<Item = &str> {
    search_text.split(' ').filter(|t| t.len() > USER_CODE_LEN).map(|t| &t[USER_CODE_LEN..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Vec<String> {
        query_terms(text)
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
        assert!(doc.contains(&"python".to_owned()) && doc.contains(&"编程".to_owned()) && doc.contains(&"编".to_owned()));
        assert!(document_terms("客户迁移计划").contains(&"迁移".to_owned()));
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
        let text = index_text("usr_1", ["Hello, wörld!", "绿茶"]);
        let code = user_code("usr_1");
        assert_eq!(code.len(), USER_CODE_LEN);
        assert_eq!(text, format!("{code}hello {code}world {code}绿 {code}茶 {code}绿茶"));
        assert_eq!(stored_terms(&text).collect::<Vec<_>>(), ["hello", "world", "绿", "茶", "绿茶"]);
        assert!(text.chars().all(|c| c == ' ' || c.is_alphanumeric()));
        assert_ne!(user_code("usr_1"), user_code("usr_2"));
    }

    #[test]
    fn very_long_runs_are_truncated() {
        let long = "a".repeat(500);
        assert_eq!(q(&long)[0].chars().count(), MAX_TERM_CHARS);
    }
}
