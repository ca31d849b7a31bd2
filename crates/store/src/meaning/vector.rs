//! How a vector is stored: 8 bits a component and one scale, 388 bytes for 384
//! dimensions instead of 1 536. The model's vectors are unit length, so rounding each
//! component to 1/127 of the largest moves a cosine by well under 0.01 (tested below),
//! far less than the gap between a related sentence and an unrelated one.

/// Bytes before the components: the scale, an `f32`, little-endian.
const HEADER: usize = 4;

/// A stored vector, decoded: `scale * components[i]` is component `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    /// What one step of a component is worth.
    pub scale: f32,
    /// The components, in steps.
    pub components: Vec<i8>,
}

/// The stored bytes of `vector`.
pub fn encode(vector: &[f32]) -> Vec<u8> {
    let largest = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if largest > 0.0 && largest.is_finite() { largest / 127.0 } else { 1.0 };
    let mut bytes = Vec::with_capacity(HEADER + vector.len());
    bytes.extend_from_slice(&scale.to_le_bytes());
    bytes.extend(vector.iter().map(|x| {
        let step = if x.is_finite() { (x / scale).round().clamp(-127.0, 127.0) } else { 0.0 };
        step as i8 as u8
    }));
    bytes
}

/// The vector in `bytes`, or `None` when they are not one of `dimensions` components
/// (a row written by another model, or damaged): such a row is skipped, never trusted.
pub fn decode(bytes: &[u8], dimensions: usize) -> Option<Quantized> {
    if bytes.len() != HEADER + dimensions {
        return None;
    }
    let scale = f32::from_le_bytes(bytes[..HEADER].try_into().ok()?);
    if !scale.is_finite() || scale <= 0.0 {
        return None;
    }
    Some(Quantized { scale, components: bytes[HEADER..].iter().map(|&b| b as i8).collect() })
}

/// A query in the stored vectors' form, so a comparison is a product of small integers
/// (which the compiler vectorises on every x86-64 and ARM64): `(scale, components)`.
pub fn quantize_query(query: &[f32]) -> (f32, Vec<i8>) {
    let bytes = encode(query);
    let scale = f32::from_le_bytes(bytes[..HEADER].try_into().unwrap_or([0, 0, 128, 63]));
    (scale, bytes[HEADER..].iter().map(|&b| b as i8).collect())
}

/// The dot product of two vectors of steps.
#[inline]
pub fn dot_steps(a: &[i8], b: &[i8]) -> i32 {
    let mut lanes = [0i32; 16];
    let chunks = a.len().min(b.len()) / 16 * 16;
    for (x, y) in a[..chunks].chunks_exact(16).zip(b[..chunks].chunks_exact(16)) {
        for i in 0..16 {
            lanes[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let tail: i32 = a[chunks..].iter().zip(&b[chunks..]).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
    lanes.iter().sum::<i32>() + tail
}

/// The dot product of a query (full precision) with stored components.
#[inline]
pub fn dot(query: &[f32], components: &[i8]) -> f32 {
    // Eight lanes so the compiler vectorises the loop; the order of the sums is fixed,
    // so every run gives the same score.
    let mut lanes = [0f32; 8];
    let chunks = query.len() / 8 * 8;
    for (q, c) in query[..chunks].chunks_exact(8).zip(components[..chunks].chunks_exact(8)) {
        for i in 0..8 {
            lanes[i] += q[i] * f32::from(c[i]);
        }
    }
    let mut sum: f32 = lanes.iter().sum();
    for (q, c) in query[chunks..].iter().zip(&components[chunks..]) {
        sum += q * f32::from(*c);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: u32, n: usize) -> Vec<f32> {
        // A deterministic spread of values, then normalised.
        let mut x = seed.wrapping_mul(2_654_435_761) | 1;
        let v: Vec<f32> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x as f32 / u32::MAX as f32) - 0.5
            })
            .collect();
        let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.into_iter().map(|a| a / norm).collect()
    }

    #[test]
    fn a_stored_vector_keeps_its_cosines_within_a_hundredth() {
        for seed in 1..50 {
            let (a, b) = (unit(seed, 384), unit(seed + 1000, 384));
            let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            let stored = decode(&encode(&b), 384).unwrap();
            let approx = dot(&a, &stored.components) * stored.scale;
            assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
            let itself = dot(&b, &stored.components) * stored.scale;
            assert!((itself - 1.0).abs() < 0.01, "{itself}");
            // Both sides in steps: still within two hundredths.
            let (scale, steps) = quantize_query(&a);
            let both = dot_steps(&steps, &stored.components) as f32 * scale * stored.scale;
            assert!((exact - both).abs() < 0.02, "{exact} vs {both}");
        }
    }

    #[test]
    fn bytes_of_another_length_or_a_bad_scale_are_refused() {
        let bytes = encode(&unit(7, 384));
        assert_eq!(bytes.len(), 388);
        assert!(decode(&bytes, 384).is_some());
        assert!(decode(&bytes, 768).is_none());
        assert!(decode(&bytes[..100], 384).is_none());
        let mut bad = bytes.clone();
        bad[..4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(decode(&bad, 384).is_none());
        assert!(decode(&encode(&[0.0; 384]), 384).is_some(), "a zero vector stores");
    }
}
