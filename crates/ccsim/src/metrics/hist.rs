//! A fixed-size log-bucketed histogram of delays (RTT samples, queue sojourn times),
//! for percentiles without keeping the samples: one array allocated when the owner is
//! built, nothing per sample (docs/metrics.md#latency).
//!
//! Values are taken in units of 1024 ps (≈ 1 ns; a shift, not a division, on the hot
//! path). Below 64 units every unit has its own bin; above, each octave [2^e, 2^(e+1))
//! is cut into 32 equal bins (HdrHistogram's layout with 5 significant bits). A bin
//! [lo, hi) is reported by its midpoint, so a percentile is within (hi − lo)/2 ≤ lo/64
//! of the exact one: a **relative error of at most 1/64 ≈ 1.6 %** (plus the 1 ns
//! quantization), clamped to the exact minimum and maximum. Values of 2^40 units
//! (≈ 1126 s) and more share the last bin; a bin's count saturates at 2^32 − 1.

pub use crate::records::DelaySummary;

/// Sub-bins per octave, as a power of two.
const SUB_BITS: u32 = 5;
/// Octaves: values below 2^40 units have their own bins.
const TOP_EXP: u32 = 40;
/// Number of bins.
pub const BINS: usize = ((TOP_EXP - SUB_BITS + 1) as usize) << SUB_BITS;
/// Largest relative error of a percentile above 64 units.
pub const RELATIVE_ERROR: f64 = 1.0 / (2u32 << SUB_BITS) as f64;
/// Picoseconds per unit, as a shift.
const UNIT_SHIFT: u32 = 10;

/// The bin of a value of `v` units: v itself below 2^6, else 32 bins per octave.
/// Branch-free: with s = max(0, ⌊log2 v⌋ − 5), the bin is (v >> s) + 32·s.
#[inline(always)]
fn bin(v: u64) -> usize {
    let e = 63 - (v | 1).leading_zeros();
    let s = e.saturating_sub(SUB_BITS);
    (((v >> s) as usize) + ((s as usize) << SUB_BITS)).min(BINS - 1)
}

/// The midpoint of bin `i`, in units.
fn midpoint(i: usize) -> f64 {
    let s = (i >> SUB_BITS).saturating_sub(1) as u32;
    let lo = ((i - ((s as usize) << SUB_BITS)) as u64) << s;
    lo as f64 + (1u64 << s) as f64 / 2.0
}

/// Delays in picoseconds: the histogram, their sum, exact minimum and maximum.
#[derive(Clone, Debug)]
pub struct DelayHist {
    bins: Box<[u32; BINS]>,
    sum_ps: f64,
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
            bins: Box::new([0u32; BINS]),
            sum_ps: 0.0,
            min_ps: u64::MAX,
            max_ps: 0,
        }
    }

    /// Forget every value (the start of the measurement window).
    pub fn clear(&mut self) {
        // Untouched (no value lowered the minimum, raised the maximum or landed in
        // bin 0): nothing to zero, which spares a run's many idle flows the fill.
        if self.min_ps != u64::MAX || self.max_ps != 0 || self.bins[0] != 0 {
            self.bins.fill(0);
        }
        self.sum_ps = 0.0;
        self.min_ps = u64::MAX;
        self.max_ps = 0;
    }

    /// Add one value, `ps` picoseconds (below 2^63).
    #[inline]
    pub fn add(&mut self, ps: u64) {
        self.add_max(ps);
        // A signed conversion is one instruction; an unsigned one is several.
        self.sum_ps += ps as i64 as f64;
        self.min_ps = self.min_ps.min(ps);
    }

    /// `add` without the sum and the minimum (a queue's sojourn times, whose mean the
    /// link keeps exactly and whose minimum is 0): the percentiles and the maximum.
    #[inline]
    pub fn add_max(&mut self, ps: u64) {
        let b = &mut self.bins[bin(ps >> UNIT_SHIFT)];
        *b = b.saturating_add(1);
        self.max_ps = self.max_ps.max(ps);
    }

    /// Add `n` values of 0 at once.
    pub fn add_zeros(&mut self, n: u64) {
        if n > 0 {
            self.bins[0] = self.bins[0].saturating_add(n.min(u32::MAX as u64) as u32);
            self.min_ps = 0;
        }
    }

    /// The exact minimum, or 0 where only `add_max` added values.
    fn lowest(&self) -> u64 {
        if self.min_ps == u64::MAX {
            0
        } else {
            self.min_ps
        }
    }

    /// How many values (the bins' sum: not counted per value).
    pub fn count(&self) -> u64 {
        self.bins.iter().map(|&c| c as u64).sum()
    }

    /// Summary in seconds; NaN everywhere with no value. Of values added by `add_max`
    /// only, `min` is 0 and `mean` meaningless.
    pub fn summary(&self) -> DelaySummary {
        let n = self.count();
        if n == 0 {
            return DelaySummary::default();
        }
        let s = |ps: u64| ps as f64 / 1e12;
        let [p50, p95, p99] = self.quantiles([0.50, 0.95, 0.99], n);
        DelaySummary {
            n,
            min: s(self.lowest()),
            mean: self.sum_ps / 1e12 / n as f64,
            p50,
            p95,
            p99,
            max: s(self.max_ps),
        }
    }

    /// Nearest-rank quantiles `qs` (increasing) of `n` values, in one pass over the bins.
    fn quantiles<const K: usize>(&self, qs: [f64; K], n: u64) -> [f64; K] {
        let mut out = [f64::NAN; K];
        if n == 0 {
            return out;
        }
        let ranks = qs.map(|q| ((q * n as f64).ceil() as u64).clamp(1, n));
        let (lo, hi) = (self.lowest() as f64 / 1e12, self.max_ps as f64 / 1e12);
        let value = |i: usize| (midpoint(i) * (1u64 << UNIT_SHIFT) as f64 / 1e12).clamp(lo, hi);
        let mut k = 0;
        let mut seen = 0u64;
        let mut next = ranks[0];
        for (i, &c) in self.bins.iter().enumerate() {
            seen += c as u64;
            if seen >= next {
                while k < K && seen >= ranks[k] {
                    out[k] = value(i);
                    k += 1;
                }
                if k == K {
                    break;
                }
                next = ranks[k];
            }
        }
        for o in out.iter_mut().skip(k) {
            *o = value(BINS - 1);
        }
        out
    }

    /// The nearest-rank q-quantile (the smallest value with at least ⌈q·n⌉ values at or
    /// below it), as its bin's midpoint clamped to [min, max], seconds.
    pub fn quantile(&self, q: f64) -> f64 {
        self.quantiles([q], self.count())[0]
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
        for v in (0..100_000u64).chain([1 << 39, (1 << 40) - 1, 1 << 40, u64::MAX]) {
            let b = bin(v);
            assert!(b >= last && b < BINS, "v {v}");
            last = b;
        }
        assert_eq!(bin((1 << 40) - 1), BINS - 1);
        // The bins of one octave are 32 equal steps.
        assert_eq!(
            (bin(64), bin(65), bin(66), bin(127), bin(128)),
            (64, 64, 65, 95, 96)
        );
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
