//! Trigram keys of case-folded text, and the posting-list encoding of the search index.
//!
//! A message matches a query when its folded text contains the folded query
//! ([`crate::text::fold`]: `char::to_lowercase` one character at a time, final sigma as
//! `σ`). The index folds both sides the same way, so a matching text holds every trigram
//! of the query: the index finds a superset of the matches.
//!
//! A trigram is three folded characters packed into one integer (21 bits each: every
//! Unicode scalar fits), so keys are exact, never hashed.
//!
//! Trigrams that hold whitespace are not indexed, on either side. In prose about every
//! second trigram touches a space, and those are the least selective ones (`e t`, ` th`):
//! leaving them out halves the build's work, and a query is narrowed by the trigrams of
//! its words instead (still a superset: containment is checked). A query with no other
//! trigram (`a b`, `go to`) is answered by scanning, like one under three characters.

use crate::text::fold_char;

/// The three characters of a trigram, packed.
pub(crate) type Trigram = i64;

/// Appends the folded characters of `text` to `out`.
pub(crate) fn fold_into(text: &str, out: &mut Vec<u32>) {
    for c in text.chars() {
        fold_char(c, |l| out.push(u32::from(l)));
    }
}

fn pack(a: u32, b: u32, c: u32) -> Trigram {
    ((i64::from(a) << 42) | (i64::from(b) << 21)) | i64::from(c)
}

fn is_space(c: u32) -> bool {
    if c < 0x80 {
        c == 0x20 || (0x09..=0x0d).contains(&c)
    } else {
        char::from_u32(c).is_some_and(char::is_whitespace)
    }
}

/// The trigram of three folded characters, unless it holds whitespace (not indexed).
fn trigram(w: &[u32]) -> Option<Trigram> {
    (!w.iter().any(|&c| is_space(c))).then(|| pack(w[0], w[1], w[2]))
}

/// The indexed trigrams of `text` in text order, repeats included, into `out` (cleared
/// first): one pass that folds, skips whitespace and packs (the build's hottest loop).
/// Repeats cost less to drop where they meet their posting list (the same id twice in a
/// row) than to sort away here.
pub(crate) fn text_trigrams(text: &str, out: &mut Vec<Trigram>) {
    out.clear();
    // The last two folded characters, and how many non-space ones end here.
    let (mut a, mut b, mut run) = (0u32, 0u32, 0u32);
    let mut push = |c: u32| {
        if is_space(c) {
            run = 0;
        } else {
            run += 1;
            if run >= 3 {
                out.push(pack(a, b, c));
            }
        }
        (a, b) = (b, c);
    };
    for c in text.chars() {
        fold_char(c, |l| push(u32::from(l)));
    }
}

/// The indexed trigrams of a query in query order, without repeats; empty when it has
/// none (under three characters, or only whitespace trigrams): the index cannot answer.
pub(crate) fn query_trigrams(query: &str) -> Vec<Trigram> {
    let mut chars = Vec::new();
    fold_into(query, &mut chars);
    let mut seen = std::collections::HashSet::new();
    chars.windows(3).filter_map(trigram).filter(|t| seen.insert(*t)).collect()
}

/// Appends `v` as an unsigned LEB128 varint.
pub(crate) fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`, advancing it; `None` on a truncated or overlong one (a
/// damaged search file: the caller treats it as empty rather than trusting it).
pub(crate) fn read_varint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// A posting list being written: strictly increasing message ids as varint gaps.
#[derive(Debug, Default)]
pub(crate) struct PostingWriter {
    last: i64,
    /// The encoded ids.
    pub(crate) bytes: Vec<u8>,
}

impl PostingWriter {
    /// Appends `id`; ids not above the last one are ignored (already there). Whether
    /// it was appended.
    pub(crate) fn push(&mut self, id: i64) -> bool {
        if id > self.last || self.bytes.is_empty() {
            push_varint(&mut self.bytes, (id - self.last) as u64);
            self.last = id;
            return true;
        }
        false
    }
}

/// Decodes a posting list (as written by [`PostingWriter`]) onto the end of `out`.
pub(crate) fn decode_postings(bytes: &[u8], out: &mut Vec<i64>) {
    let mut at = 0;
    let mut id = 0i64;
    while at < bytes.len() {
        let Some(gap) = read_varint(bytes, &mut at) else { return };
        id = id.wrapping_add(gap as i64);
        out.push(id);
    }
}

/// Keeps the ids of `acc` (sorted) that are also in `other` (sorted).
pub(crate) fn intersect_in_place(acc: &mut Vec<i64>, other: &[i64]) {
    let mut j = 0;
    acc.retain(|&id| {
        while j < other.len() && other[j] < id {
            j += 1;
        }
        j < other.len() && other[j] == id
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unpack(t: Trigram) -> String {
        [t >> 42, (t >> 21) & 0x1f_ffff, t & 0x1f_ffff]
            .iter()
            .map(|&c| char::from_u32(c as u32).unwrap())
            .collect()
    }

    #[test]
    fn folding_matches_str_to_lowercase_with_sigma_as_sigma() {
        for text in ["Hello WORLD", "ΟΔΟΣ οδος", "İstanbul", "客户迁移 Data", "ÀÉÎ ß ǅ"] {
            let mut folded = Vec::new();
            fold_into(text, &mut folded);
            let expected: Vec<u32> =
                text.to_lowercase().chars().map(|c| if c == 'ς' { 'σ' } else { c }).map(u32::from).collect();
            assert_eq!(folded, expected, "{text}");
        }
    }

    #[test]
    fn query_trigrams_are_distinct_and_folded() {
        let names = |q: &str| query_trigrams(q).into_iter().map(unpack).collect::<Vec<_>>();
        assert!(names("ab").is_empty());
        assert_eq!(names("Abc"), ["abc"]);
        assert_eq!(names("aaaa"), ["aaa"]);
        assert_eq!(names("客户迁移"), ["客户迁", "户迁移"]);
        // The user may type the final form; the text may hold the capital.
        assert_eq!(names("οδος"), names("ΟΔΟΣ"));
        // Whitespace trigrams are not indexed: the words' trigrams narrow the query.
        assert_eq!(names("client migr"), ["cli", "lie", "ien", "ent", "mig", "igr"]);
        assert!(names("a b").is_empty());
        assert!(names("go\u{3000}to").is_empty(), "an ideographic space is whitespace too");
    }

    #[test]
    fn the_trigrams_of_a_text_hold_those_of_any_query_it_contains() {
        let mut keys = Vec::new();
        let text = "Die Straße führt zum ΟΔΟΣ-Projekt; 我们讨论了客户迁移的问题";
        text_trigrams(text, &mut keys);
        // The same trigrams as the query side finds in the whole text.
        let mut whole = query_trigrams(text);
        whole.sort_unstable();
        let mut distinct = keys.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct, whole);
        assert!(keys.iter().all(|&k| !unpack(k).contains(char::is_whitespace)));
        keys.sort_unstable();
        for query in ["STRASSE", "straße", "οδος-p", "客户迁移", "Projekt", "zum οδος", "führt zum"] {
            let inside = crate::text::fold(text).contains(&*crate::text::fold(query));
            let all = query_trigrams(query).iter().all(|t| keys.binary_search(t).is_ok());
            assert!(!inside || all, "{query}");
        }
    }

    #[test]
    fn postings_round_trip_and_intersect() {
        let mut w = PostingWriter::default();
        for id in [1, 5, 5, 300, 70_000, 1 << 40] {
            w.push(id);
        }
        let mut ids = Vec::new();
        decode_postings(&w.bytes, &mut ids);
        assert_eq!(ids, [1, 5, 300, 70_000, 1 << 40]);
        intersect_in_place(&mut ids, &[2, 5, 70_000, 80_000]);
        assert_eq!(ids, [5, 70_000]);
        // A truncated list decodes what is whole and stops.
        let mut cut = Vec::new();
        decode_postings(&w.bytes[..w.bytes.len() - 1], &mut cut);
        assert_eq!(cut, [1, 5, 300, 70_000]);
    }
}
