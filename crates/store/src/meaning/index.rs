//! One person's vectors in memory, so a search reads no vector from the database: it
//! compares the query with every vector of theirs (10⁵ of them take a few
//! milliseconds) and keeps the closest.
//!
//! The database stays the only source. Before each search the copy catches up by
//! reading the rows written since the last `seq` it saw (by this process or another
//! one, such as the desktop app beside `memory-bank mcp`), and reloads everything when
//! the number of rows differs from its own (rows deleted elsewhere, or a Galera node's
//! interleaved sequence). A vector whose memory was deleted meanwhile can only surface
//! as a candidate, and the bank drops candidates it cannot read back.

use std::collections::HashMap;

use super::vector::{self, Quantized};

/// A person's vectors, one row per memory.
#[derive(Debug, Default)]
pub struct OwnerIndex {
    ids: Vec<String>,
    scales: Vec<f32>,
    /// `dimensions` components per row, row after row.
    components: Vec<i8>,
    position: HashMap<String, usize>,
    /// The highest `seq` read.
    pub(crate) seen_seq: i64,
    dimensions: usize,
}

/// A memory close in meaning to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Near {
    /// Memory id.
    pub id: String,
    /// Cosine of the query and the memory, in -1..=1.
    pub cosine: f32,
}

impl OwnerIndex {
    /// An empty index for vectors of `dimensions` components.
    pub fn new(dimensions: usize) -> Self {
        OwnerIndex { dimensions, ..Default::default() }
    }

    /// How many memories it holds.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Adds or replaces the vector of `id`; bytes of the wrong shape are skipped
    /// (`false`).
    pub fn upsert(&mut self, id: &str, bytes: &[u8]) -> bool {
        let Some(Quantized { scale, components }) = vector::decode(bytes, self.dimensions) else {
            return false;
        };
        match self.position.get(id) {
            Some(&row) => {
                self.scales[row] = scale;
                self.components[row * self.dimensions..(row + 1) * self.dimensions].copy_from_slice(&components);
            }
            None => {
                self.position.insert(id.to_owned(), self.ids.len());
                self.ids.push(id.to_owned());
                self.scales.push(scale);
                self.components.extend_from_slice(&components);
            }
        }
        true
    }

    /// Removes the vector of `id`, if held.
    pub fn remove(&mut self, id: &str) {
        let Some(row) = self.position.remove(id) else { return };
        let last = self.ids.len() - 1;
        if row != last {
            let moved = self.ids[last].clone();
            self.position.insert(moved, row);
            let d = self.dimensions;
            self.components.copy_within(last * d..(last + 1) * d, row * d);
        }
        self.ids.swap_remove(row);
        self.scales.swap_remove(row);
        self.components.truncate(last * self.dimensions);
    }

    /// The `limit` memories closest to `query` (a unit vector) with a cosine of at
    /// least `floor`, closest first; ties by id, newest first. A large index is scanned
    /// on two threads.
    pub fn nearest(&self, query: &[f32], limit: usize, floor: f32) -> Vec<Near> {
        if query.len() != self.dimensions || limit == 0 || self.is_empty() {
            return Vec::new();
        }
        let (query_scale, steps) = vector::quantize_query(query);
        let rows = self.len();
        let best = if rows >= PARALLEL_FROM {
            let half = rows / 2;
            let (low, high) = std::thread::scope(|scope| {
                let high = scope.spawn(|| self.best_in(half..rows, &steps, query_scale, limit, floor));
                let low = self.best_in(0..half, &steps, query_scale, limit, floor);
                (low, high.join().unwrap_or_default())
            });
            let mut both = low;
            for candidate in high {
                self.keep(&mut both, candidate, limit);
            }
            both
        } else {
            self.best_in(0..rows, &steps, query_scale, limit, floor)
        };
        best.into_iter().map(|(cosine, row)| Near { id: self.ids[row].clone(), cosine }).collect()
    }

    /// The best `limit` of `rows`, closest first.
    fn best_in(&self, rows: std::ops::Range<usize>, steps: &[i8], query_scale: f32, limit: usize, floor: f32) -> Vec<(f32, usize)> {
        let d = self.dimensions;
        let mut best: Vec<(f32, usize)> = Vec::with_capacity(limit + 1);
        for row in rows {
            let cosine = vector::dot_steps(steps, &self.components[row * d..(row + 1) * d]) as f32 * query_scale * self.scales[row];
            if cosine < floor || (best.len() == limit && cosine < best[limit - 1].0) {
                continue;
            }
            self.keep(&mut best, (cosine, row), limit);
        }
        best
    }

    /// Puts `candidate` in its place in `best` (closest first, then the greatest id),
    /// keeping at most `limit`.
    fn keep(&self, best: &mut Vec<(f32, usize)>, (cosine, row): (f32, usize), limit: usize) {
        let at = best.partition_point(|(c, r)| *c > cosine || (*c == cosine && self.ids[*r] > self.ids[row]));
        best.insert(at, (cosine, row));
        best.truncate(limit);
    }
}

/// Vectors from which a scan is split over two threads (below it a thread costs more
/// than it saves: 20 000 vectors take about a millisecond).
const PARALLEL_FROM: usize = 20_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(i: usize, d: usize) -> Vec<f32> {
        let mut v = vec![0.0; d];
        v[i] = 1.0;
        v
    }

    #[test]
    fn a_large_index_scanned_on_two_threads_finds_what_one_thread_finds() {
        let d = 16;
        let mut index = OwnerIndex::new(d);
        let mut x: u32 = 7;
        for i in 0..PARALLEL_FROM + 5_000 {
            let v: Vec<f32> = (0..d)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    (x % 1000) as f32 / 1000.0 - 0.5
                })
                .collect();
            index.upsert(&format!("m{i:06}"), &vector::encode(&v));
        }
        let query: Vec<f32> = (0..d).map(|i| if i % 3 == 0 { 0.5 } else { -0.1 }).collect();
        let (scale, steps) = vector::quantize_query(&query);
        let alone: Vec<usize> = index.best_in(0..index.len(), &steps, scale, 50, -1.0).into_iter().map(|(_, r)| r).collect();
        let split: Vec<String> = index.nearest(&query, 50, -1.0).into_iter().map(|n| n.id).collect();
        assert_eq!(split, alone.iter().map(|&r| index.ids[r].clone()).collect::<Vec<_>>());
    }

    #[test]
    fn nearest_keeps_the_closest_above_the_floor_and_follows_upserts_and_removals() {
        let d = 8;
        let mut index = OwnerIndex::new(d);
        for i in 0..d {
            assert!(index.upsert(&format!("m{i}"), &vector::encode(&axis(i, d))));
        }
        let mut query = axis(2, d);
        query[3] = 0.5;
        let norm = (1.25f32).sqrt();
        query.iter_mut().for_each(|x| *x /= norm);
        let ids = |index: &OwnerIndex, floor| index.nearest(&query, 3, floor).into_iter().map(|n| n.id).collect::<Vec<_>>();
        assert_eq!(ids(&index, 0.1), ["m2", "m3"], "the rest have cosine 0, below the floor");
        assert_eq!(ids(&index, -1.0), ["m2", "m3", "m7"], "then ties, the greatest id first");
        index.remove("m2");
        assert_eq!(ids(&index, 0.1), ["m3"]);
        index.upsert("m7", &vector::encode(&axis(2, d)));
        assert_eq!(ids(&index, 0.1), ["m7", "m3"]);
        assert_eq!(index.len(), 7);
        assert!(!index.upsert("bad", &[1, 2, 3]), "the wrong shape is refused");
        for i in 0..d {
            index.remove(&format!("m{i}"));
        }
        assert!(index.is_empty());
        assert!(index.nearest(&query, 3, -1.0).is_empty());
    }
}
