//! Random numbers and sines, the same on every machine: a seed alone decides a generated level
//! and the points two levels' floors are compared at.

/// splitmix64: a few lines, fast, and the same sequence on every machine.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An independent stream seeded from this one.
    pub(crate) fn fork(&mut self) -> Rng {
        Rng(self.next_u64())
    }

    /// Uniform in 0..n (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    pub(crate) fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    pub(crate) fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }

    /// A rotation about y in the MAP's units (4096 = 360°): the originals only use quarter turns.
    pub(crate) fn quarter_turn(&mut self) -> u32 {
        self.below(4) as u32 * 1024
    }
}

/// Sine and cosine of `turns` × 360° from their Taylor series: the platform's maths library's
/// results may differ in the last bit between platforms, and a seed must give the same bytes
/// everywhere. (The libm crate's would do as well; the stored digests were made with this.)
pub(crate) fn sin_cos_turns(turns: f32) -> (f32, f32) {
    let (sin, cos) = series_sin_cos(turns as f64);
    (sin as f32, cos as f32)
}

/// [`sin_cos_turns`] in f64, within 1e-12.
pub(crate) fn series_sin_cos(turns: f64) -> (f64, f64) {
    let x = (turns - turns.round()) * std::f64::consts::TAU;
    let (mut sin, mut cos) = (0.0, 0.0);
    let (mut sin_term, mut cos_term) = (x, 1.0);
    for k in 1..=12 {
        sin += sin_term;
        cos += cos_term;
        let k = k as f64;
        sin_term *= -x * x / ((2.0 * k) * (2.0 * k + 1.0));
        cos_term *= -x * x / ((2.0 * k - 1.0) * (2.0 * k));
    }
    (sin, cos)
}
