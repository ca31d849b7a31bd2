//! Property tests of message search over text whose case folding changes its length
//! (`İ` folds to two characters, the Kelvin sign to one byte instead of three), final
//! and capital sigma, combining marks, emoji sequences and CJK: search never fails,
//! finds the message the query was put in, and every snippet is a piece of the message
//! (whitespace runs shown as one space) no longer than documented. Both search paths
//! are checked: scanning the stored texts (before the search index has caught up) and
//! the trigram index.

use memory_bank_sessions::testing as common;

use memory_bank_sessions::{Roots, Source, SNIPPET_AFTER, SNIPPET_BEFORE};
use memory_bank_sessions::testing::{Index};
use proptest::prelude::*;
use serde_json::json;

/// Pieces of text, many of them ones whose folded form differs in length.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "İ", "ẞ", "ß", "ς", "Σ", "σ", "ΟΔΟΣ", "e\u{301}", "\u{301}", "\u{212A}", "\u{212B}", "ǅ", "ΐ",
            "ﬀ", "👩\u{200D}💻", "👨\u{200D}👩\u{200D}👧", "🎉", "客户", "迁移", "Plan", "the", "x", "Ω",
        ])
        .prop_map(str::to_string),
        2 => prop::sample::select(vec![" ", "  ", "\n", "\t", "\r\n", "\u{3000}", "\u{2028}"]).prop_map(str::to_string),
        2 => "[a-zA-Z0-9.,!?]{1,8}",
        // Runs long enough to move a match past the snippet's context.
        1 => (prop::sample::select(vec!["İ", "\u{212A}", "ẞ", "Σ"]), 20..90usize).prop_map(|(c, n)| c.repeat(n)),
        1 => any::<char>().prop_map(String::from),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|p| p.concat())
}

/// A query of pieces without whitespace (the stored text is trimmed, and a query with
/// whitespace at an end could never be found in it).
fn needle() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 1..5)
        .prop_map(|p| p.concat().split_whitespace().collect::<String>())
        .prop_filter("not empty", |n| !n.is_empty())
}

/// The test's own case folding: per character, final sigma as sigma.
fn fold(s: &str) -> String {
    s.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c == 'ς' { 'σ' } else { c })
        .collect()
}

fn one_space(s: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    out
}

fn line(uuid: &str, text: &str, minute: u32) -> String {
    json!({"type":"user","uuid":uuid,"cwd":"/work/app","timestamp":format!("2026-11-01T10:{minute:02}:00.000Z"),
           "message":{"role":"user","content":text}})
    .to_string()
}

/// Searches for each query and checks every hit against the stored texts.
fn check(
    index: &Index,
    keys: &[String],
    texts: &[(String, String)],
    queries: &[String],
) -> Result<(), TestCaseError> {
    for query in queries {
        let hits = index.search(keys, query, 200).unwrap();
        prop_assert!(
            hits.iter().any(|h| h.message_id == "target"),
            "{query:?} not found: {hits:?}"
        );
        for hit in &hits {
            let text = &texts
                .iter()
                .find(|(id, _)| *id == hit.message_id)
                .unwrap()
                .1;
            let core = hit.snippet.strip_prefix('…').unwrap_or(&hit.snippet);
            let core = core.strip_suffix('…').unwrap_or(core);
            prop_assert!(
                one_space(text).contains(core),
                "{:?} is not in {text:?}",
                hit.snippet
            );
            prop_assert!(
                fold(core).contains(&fold(query)),
                "{:?} lacks {query:?}",
                hit.snippet
            );
            let longest = SNIPPET_BEFORE + fold(query).chars().count() + SNIPPET_AFTER + 2;
            prop_assert!(
                hit.snippet.chars().count() <= longest,
                "{:?} is too long",
                hit.snippet
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn search_finds_the_message_and_snippets_are_pieces_of_it(
        before in text(),
        after in text(),
        others in prop::collection::vec(text(), 0..3),
        needle in needle(),
    ) {
        let h = common::TempHome::new();
        let target = format!("{before}{needle}{after}");
        let mut lines: Vec<String> = others.iter().enumerate().map(|(i, t)| line(&format!("o{i}"), t, i as u32)).collect();
        lines.push(line("target", &target, 30));
        h.write("-work-app", "s1", &lines);
        let roots: Vec<(Source, std::path::PathBuf)> = Roots::new(&common::env_with_home(&h.home), &[]).0;
        let keys: Vec<String> = roots.iter().map(|(_, p)| p.to_string_lossy().into_owned()).collect();
        let mut index = Index::open(&h.index, memory_bank_sessions::testing::suite_key().as_ref()).unwrap();
        index.refresh(&roots).unwrap();
        // The texts as stored (the reader trims them).
        let found = index.find(&keys, "s1", None).unwrap().unwrap();
        let texts: Vec<(String, String)> = index
            .messages_before(found.row, 100, 100)
            .unwrap()
            .into_iter()
            .map(|m| (m.message_id, m.text))
            .collect();
        let queries = [needle.clone(), needle.to_lowercase(), fold(&needle)];
        prop_assert!(!index.search_is_caught_up().unwrap());
        check(&index, &keys, &texts, &queries)?;
        index.index_for_search(&|| false).unwrap();
        prop_assert!(index.search_is_caught_up().unwrap());
        check(&index, &keys, &texts, &queries)?;
    }
}
