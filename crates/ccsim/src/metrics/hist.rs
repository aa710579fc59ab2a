//! A fixed-size log-bucketed histogram of delays (RTT samples, queue sojourn times),
//! for percentiles without keeping the samples: one array allocated when the owner is
//! built, nothing per sample (docs/metrics.md#latency).
//!
//! Values are taken in whole nanoseconds. Below 32 ns every nanosecond has its own
//! bin; above, each octave [2^e, 2^(e+1)) is cut into 32 equal bins (HdrHistogram's
//! layout with 5 significant bits). A bin [lo, hi) is reported by its midpoint, so a
//! percentile is within (hi − lo)/2 ≤ lo/64 of the exact one: a **relative error of
//! at most 1/64 ≈ 1.6 %** (plus the 1 ns quantization), clamped to the exact minimum
//! and maximum. Values of 2^40 ns (≈ 1100 s) and more share the last bin.

pub use crate::records::DelaySummary;

/// Sub-bins per octave, as a power of two.
const SUB_BITS: u32 = 5;
const SUB: usize = 1 << SUB_BITS;
/// Octaves above the linear range: 2^5 .. 2^40 ns.
const TOP_EXP: u32 = 40;
/// Number of bins.
pub const BINS: usize = SUB + (TOP_EXP - SUB_BITS) as usize * SUB;
/// Largest relative error of a percentile above 32 ns.
pub const RELATIVE_ERROR: f64 = 1.0 / (2 * SUB) as f64;

/// The bin of a value of `ns` nanoseconds.
#[inline(always)]
fn bin(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let e = 63 - ns.leading_zeros();
    if e >= TOP_EXP {
        return BINS - 1;
    }
    let sub = (ns >> (e - SUB_BITS)) as usize & (SUB - 1);
    SUB + (e - SUB_BITS) as usize * SUB + sub
}

/// The midpoint of bin `i`, ns.
fn midpoint(i: usize) -> f64 {
    if i < SUB {
        return i as f64 + 0.5;
    }
    let k = i - SUB;
    let shift = (k / SUB) as u32;
    let lo = ((SUB + k % SUB) as u64) << shift;
    lo as f64 + (1u64 << shift) as f64 / 2.0
}

/// Delays in picoseconds: count, sum, exact minimum and maximum, and the histogram.
#[derive(Clone, Debug)]
pub struct DelayHist {
    bins: Box<[u32]>,
    n: u64,
    sum_ps: u128,
    min_ps: u64,
    max_ps: u64,
}

impl Default for DelayHist {
    fn default() -> Self {
        Self::new()
    }
}

impl DelayHist {
    pub fn new() -> Self {
        DelayHist {
            bins: vec![0u32; BINS].into_boxed_slice(),
            n: 0,
            sum_ps: 0,
            min_ps: u64::MAX,
            max_ps: 0,
        }
    }

    /// Forget every value (the start of the measurement window).
    pub fn clear(&mut self) {
        if self.n > 0 {
            self.bins.fill(0);
        }
        self.n = 0;
        self.sum_ps = 0;
        self.min_ps = u64::MAX;
        self.max_ps = 0;
    }

    /// Add one value, `ps` picoseconds.
    #[inline]
    pub fn add(&mut self, ps: u64) {
        let b = &mut self.bins[bin(ps / 1000)];
        *b = b.saturating_add(1);
        self.n += 1;
        self.sum_ps += ps as u128;
        self.min_ps = self.min_ps.min(ps);
        self.max_ps = self.max_ps.max(ps);
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Summary in seconds; NaN everywhere with no value.
    pub fn summary(&self) -> DelaySummary {
        if self.n == 0 {
            return DelaySummary::default();
        }
        let s = |ps: u64| ps as f64 / 1e12;
        DelaySummary {
            n: self.n,
            min: s(self.min_ps),
            mean: self.sum_ps as f64 / 1e12 / self.n as f64,
            p50: self.quantile(0.50),
            p95: self.quantile(0.95),
            p99: self.quantile(0.99),
            max: s(self.max_ps),
        }
    }

    /// The nearest-rank q-quantile (the smallest value with at least ⌈q·n⌉ values at or
    /// below it), as its bin's midpoint clamped to [min, max], seconds.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0u64;
        let mut at = BINS - 1;
        for (i, &c) in self.bins.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                at = i;
                break;
            }
        }
        let v = midpoint(at) / 1e9;
        v.clamp(self.min_ps as f64 / 1e12, self.max_ps as f64 / 1e12)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact nearest-rank quantile of sorted values.
    fn exact(sorted: &[u64], q: f64) -> f64 {
        let n = sorted.len();
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        sorted[rank - 1] as f64 / 1e12
    }

    #[test]
    fn bins_cover_the_range_in_order() {
        let mut last = 0;
        for ns in (0..100_000u64).chain([1 << 39, (1 << 40) - 1, 1 << 40, u64::MAX]) {
            let b = bin(ns);
            assert!(b >= last && b < BINS, "ns {ns}");
            last = b;
        }
        // Each bin's midpoint lies in the bin.
        for i in 0..BINS - 1 {
            assert_eq!(bin(midpoint(i) as u64), i);
        }
    }

    #[test]
    fn percentiles_match_exact_on_known_distributions() {
        // Exponential delays with mean 20 ms (M/M/1-like sojourns) and a uniform
        // 30..300 ms mix, from a fixed LCG: every percentile within 1/64 of exact.
        let mut x: u64 = 12345;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let exp: Vec<u64> = (0..200_000)
            .map(|_| (-(next()).ln() * 20e-3 * 1e12) as u64)
            .collect();
        let uni: Vec<u64> = (0..50_000)
            .map(|_| ((30e-3 + 270e-3 * next()) * 1e12) as u64)
            .collect();
        for vals in [exp, uni] {
            let mut h = DelayHist::new();
            for &v in &vals {
                h.add(v);
            }
            let mut s = vals.clone();
            s.sort_unstable();
            for q in [0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
                let (e, g) = (exact(&s, q), h.quantile(q));
                assert!(
                    (g - e).abs() <= e * RELATIVE_ERROR + 1e-9,
                    "q {q}: hist {g} exact {e}"
                );
            }
            let sm = h.summary();
            let mean = s.iter().map(|&v| v as f64).sum::<f64>() / s.len() as f64 * 1e-12;
            assert!((sm.mean - mean).abs() < 1e-12 * mean.max(1.0));
            assert_eq!(sm.min, s[0] as f64 / 1e12);
            assert_eq!(sm.max, s[s.len() - 1] as f64 / 1e12);
        }
    }

    #[test]
    fn empty_and_constant() {
        let mut h = DelayHist::new();
        assert!(h.summary().p50.is_nan());
        for _ in 0..10 {
            h.add(100_000_000_000); // 100 ms
        }
        let s = h.summary();
        // Clamped to [min, max]: exact for a constant.
        assert_eq!((s.p50, s.p99, s.min, s.max), (0.1, 0.1, 0.1, 0.1));
        h.clear();
        assert_eq!(h.count(), 0);
        h.add(0);
        assert_eq!(h.summary().p50, 0.0);
    }
}
