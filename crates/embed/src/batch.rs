//! How texts are grouped into forward passes.
//!
//! A batch is padded to its longest text, and padding costs as much as real tokens. So
//! texts are sorted by length and cut into runs of similar length: measured on two
//! cores, 32 texts of mixed length ran at ~120 sentences/s in one padded batch and
//! ~170/s in batches of 8, while texts of one length run faster the bigger the batch
//! (58/s one by one, 228/s by 32, 274/s by 64).

use std::ops::Range;

/// Texts in one forward pass at most.
pub const BATCH_SIZE: usize = 64;

/// Padded tokens in one forward pass at most (64 texts of 64 tokens, 16 of 256): bounds
/// the attention scores to ~50 MB however long the texts are.
pub const MAX_BATCH_TOKENS: usize = 4096;

/// A batch's padded size may exceed its real tokens by a quarter at most.
const PADDING_SLACK: (usize, usize) = (5, 4);

/// Cuts `lengths` (token counts, sorted ascending) into consecutive ranges, each a
/// batch within [`BATCH_SIZE`] texts, [`MAX_BATCH_TOKENS`] padded tokens and the padding
/// slack; a text longer than the token budget is a batch of its own.
pub(crate) fn batches(lengths: &[usize]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let (mut start, mut real) = (0, 0);
    for (i, &len) in lengths.iter().enumerate() {
        debug_assert!(i == 0 || lengths[i - 1] <= len, "lengths are sorted");
        let count = i - start + 1;
        // Sorted, so this text is the longest: every row pads to `len`.
        let padded = count * len;
        let too_big = count > BATCH_SIZE || padded > MAX_BATCH_TOKENS;
        let too_padded = padded * PADDING_SLACK.1 > (real + len) * PADDING_SLACK.0;
        if count > 1 && (too_big || too_padded) {
            ranges.push(start..i);
            start = i;
            real = 0;
        }
        real += len;
    }
    if start < lengths.len() {
        ranges.push(start..lengths.len());
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(lengths: &[usize]) -> Vec<Range<usize>> {
        let ranges = batches(lengths);
        // Every text once, in order.
        let flat: Vec<usize> = ranges.iter().flat_map(|r| r.clone()).collect();
        assert_eq!(flat, (0..lengths.len()).collect::<Vec<_>>());
        for r in &ranges {
            let max = lengths[r.end - 1];
            let real: usize = lengths[r.clone()].iter().sum();
            assert!(r.len() <= BATCH_SIZE);
            if r.len() > 1 {
                assert!(r.len() * max <= MAX_BATCH_TOKENS);
                assert!(r.len() * max * 4 <= real * 5, "{r:?} of {lengths:?}");
            }
        }
        ranges
    }

    #[test]
    fn equal_lengths_fill_batches() {
        assert_eq!(check(&[12; 150]), vec![0..64, 64..128, 128..150]);
        assert_eq!(check(&[256; 40]).len(), 3); // 16 a batch: the token budget
    }

    #[test]
    fn mixed_lengths_are_cut_where_padding_grows() {
        let ranges = check(&[3, 3, 4, 8, 8, 9, 20, 21, 256]);
        assert_eq!(ranges, vec![0..3, 3..6, 6..8, 8..9]);
    }

    #[test]
    fn nothing_and_one() {
        assert!(batches(&[]).is_empty());
        assert_eq!(check(&[300]), vec![0..1]);
    }
}
