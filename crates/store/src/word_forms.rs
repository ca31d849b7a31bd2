//! Word forms: the stem a word is also indexed under, and which words are stopwords.
//!
//! Why: a person saves "Deploys happen on Tuesdays" and an agent asks for `deploy`;
//! exact words alone miss it. Each word is indexed as written *and* as its Snowball
//! stem (rust-stemmers), and a query looks up both, so word forms meet while exact
//! forms still rank first (see `rank.rs`). Stopwords ("what", "does", "the") are
//! indexed as written but never stemmed, and a query leaves them out unless it has
//! nothing else (see [`crate::terms::query_terms`]).
//!
//! Which stemmer: the rule is the word's script, because it is the same at index and
//! query time on every machine and server, needs no setting and no guess from a few
//! words: Latin → English, Cyrillic → Russian, Greek → Greek, Arabic → Arabic,
//! Tamil → Tamil. Other Latin-script languages get the English stemmer, which only
//! takes English endings off (`-s`, `-ing`, `-ed`…); their words still match as written.
//! Words with digits (`v2`, `q3`) are identifiers and are not stemmed. CJK scripts are
//! not words here at all: they keep their bigrams (`terms.rs`).

use std::collections::HashSet;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Appends `c` to `word` as the term scheme writes letters: accents dropped, lowercase.
pub(crate) fn push_folded(word: &mut String, c: char) {
    for base in std::iter::once(c).nfd().filter(|d| !is_combining_mark(*d)) {
        word.extend(base.to_lowercase());
    }
}

/// The scripts with a stemmer (see the module docs for the rule).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Script {
    Latin,
    Cyrillic,
    Greek,
    Arabic,
    Tamil,
}

impl Script {
    const ALL: [Script; 5] = [Script::Latin, Script::Cyrillic, Script::Greek, Script::Arabic, Script::Tamil];

    fn of_letter(c: char) -> Option<Script> {
        match c as u32 {
            0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF => Some(Script::Latin),
            0x400..=0x52F => Some(Script::Cyrillic),
            0x370..=0x3FF | 0x1F00..=0x1FFF => Some(Script::Greek),
            0x600..=0x6FF | 0x750..=0x77F => Some(Script::Arabic),
            0xB80..=0xBFF => Some(Script::Tamil),
            _ => None,
        }
    }

    /// The script of a folded word: one script throughout, and no digits.
    fn of_word(word: &str) -> Option<Script> {
        let mut chars = word.chars();
        let script = Script::of_letter(chars.next()?)?;
        chars.all(|c| Script::of_letter(c) == Some(script)).then_some(script)
    }

    fn index(self) -> usize {
        self as usize
    }

    fn algorithm(self) -> Algorithm {
        match self {
            Script::Latin => Algorithm::English,
            Script::Cyrillic => Algorithm::Russian,
            Script::Greek => Algorithm::Greek,
            Script::Arabic => Algorithm::Arabic,
            Script::Tamil => Algorithm::Tamil,
        }
    }

    /// NLTK's stopword list of the stemmer's language.
    fn stopword_list(self) -> &'static [&'static str] {
        let code = match self {
            Script::Latin => "en",
            Script::Cyrillic => "ru",
            Script::Greek => "el",
            Script::Arabic => "ar",
            Script::Tamil => "ta",
        };
        stop_words::lookup(code).unwrap_or(&[])
    }
}

struct Forms {
    stemmers: Vec<Stemmer>,
    /// Folded the way terms are, so "don't" is "don" and "t", both listed.
    stopwords: HashSet<String>,
}

static FORMS: LazyLock<Forms> = LazyLock::new(|| {
    let mut stopwords = HashSet::new();
    for script in Script::ALL {
        for listed in script.stopword_list() {
            let mut word = String::new();
            for c in listed.nfkc() {
                if c.is_alphanumeric() {
                    push_folded(&mut word, c);
                } else if !word.is_empty() {
                    stopwords.insert(std::mem::take(&mut word));
                }
            }
            if !word.is_empty() {
                stopwords.insert(word);
            }
        }
    }
    Forms { stemmers: Script::ALL.iter().map(|s| Stemmer::create(s.algorithm())).collect(), stopwords }
});

/// True for a folded word on its language's stopword list.
pub(crate) fn is_stopword(word: &str) -> bool {
    FORMS.stopwords.contains(word)
}

/// The stem a folded word is also indexed under; `None` for a stopword, a word
/// with digits or of a script without a stemmer.
pub(crate) fn stem(word: &str) -> Option<String> {
    let script = Script::of_word(word)?;
    if is_stopword(word) {
        return None;
    }
    let stem = FORMS.stemmers[script.index()].stem(word);
    (!stem.is_empty()).then(|| stem.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_word_forms_share_a_stem() {
        for (a, b) in [("deploy", "deploys"), ("deploying", "deployment"), ("migrated", "migrating"), ("prefer", "preferences")] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_eq!(stem("deploys").as_deref(), Some("deploy"));
    }

    #[test]
    fn stopwords_identifiers_and_other_scripts_have_no_stem() {
        for word in ["the", "what", "does", "don", "t", "v2", "q3", "绿茶", "python3"] {
            assert_eq!(stem(word), None, "{word}");
        }
        assert!(is_stopword("what") && is_stopword("и") && !is_stopword("deploy"));
    }

    #[test]
    fn each_script_takes_its_own_stemmer() {
        assert_eq!(stem("развертывания"), stem("развертывание"));
        assert_eq!(Script::of_word("straße"), Some(Script::Latin));
        assert_eq!(Script::of_word("abcвгд"), None);
    }
}
