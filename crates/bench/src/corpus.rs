//! Synthetic memories: 12-word sentences from a 20 000-word vocabulary drawn with
//! Zipf(1) frequencies (so rank-1 words are in most rows, as in real text), plus
//! 1 % Chinese rows, spread uniformly over the users.

use rand::rngs::StdRng;
use rand::Rng;

/// Vocabulary size.
pub const VOCABULARY: usize = 20_000;

/// Pronounceable pseudo-word for a rank (distinct per rank, no real-word collisions).
pub fn word(rank: usize) -> String {
    const SYLLABLES: [&str; 24] = ["ka", "lo", "mi", "re", "tu", "sa", "ne", "po", "vi", "da", "zu", "fe",
        "gi", "ho", "ju", "ly", "qu", "wo", "xi", "be", "co", "dy", "ge", "hu"];
    let mut n = rank + 24; // at least two syllables
    let mut out = String::new();
    while n > 0 {
        out.push_str(SYLLABLES[n % 24]);
        n /= 24;
    }
    out
}

const HANZI: &str = "我们客户迁移计划数据库服务器部署测试发布版本绿茶咖啡北京上海会议项目团队文档设计接口性能缓存";

/// Draws word ranks with Zipf(1) frequencies.
pub struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    /// Zipf over `n` ranks.
    pub fn new(n: usize) -> Self {
        let mut total = 0.0;
        let cumulative = (1..=n)
            .map(|k| {
                total += 1.0 / k as f64;
                total
            })
            .collect();
        Self { cumulative }
    }

    /// A rank in 0..n.
    pub fn sample(&self, rng: &mut StdRng) -> usize {
        let target = rng.random::<f64>() * self.cumulative[self.cumulative.len() - 1];
        self.cumulative.partition_point(|&c| c < target)
    }
}

/// One memory's content.
pub fn sentence(zipf: &Zipf, rng: &mut StdRng) -> String {
    if rng.random_ratio(1, 100) {
        let chars: Vec<char> = HANZI.chars().collect();
        return (0..16).map(|_| chars[rng.random_range(0..chars.len())]).collect();
    }
    (0..12).map(|_| word(zipf.sample(rng))).collect::<Vec<_>>().join(" ")
}
