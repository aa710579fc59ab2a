//! Seeded random streams and the distributions scenarios can name.
//!
//! One seed per run; every stream is derived from it by a name (`"flow/3/start"`,
//! `"link/7/loss"`), so adding a stream never shifts the numbers another one draws.

use rand::{Rng as _, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub type Rng = Xoshiro256PlusPlus;

/// SplitMix64 step: a well-mixed 64-bit hash used to derive stream seeds.
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A random stream for `name` under the run's `seed`.
pub fn stream(seed: u64, name: &str) -> Rng {
    // FNV-1a over the name, then mixed with the seed.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    Rng::seed_from_u64(splitmix64(seed ^ splitmix64(h)))
}

/// The seed of flow `flow`'s congestion-control stream (BBR's random phase), for the
/// instance that starts at `start_ps` picoseconds.
pub fn cc_seed(seed: u64, flow: u32, start_ps: u64) -> u64 {
    splitmix64(next_u64(&mut stream(seed, "cc")) ^ ((flow as u64) << 40) ^ start_ps)
}

/// The seed of flow `flow`'s receiving application's wake-up latencies
/// (`tcp.read_latency`), for the instance that starts at `start_ps` picoseconds.
pub fn read_seed(seed: u64, flow: u32, start_ps: u64) -> u64 {
    splitmix64(next_u64(&mut stream(seed, "reads")) ^ ((flow as u64) << 40) ^ start_ps)
}

/// Uniform in [0, 1).
pub fn unit(rng: &mut Rng) -> f64 {
    rng.gen::<f64>()
}

/// Uniform in (0, 1]: safe for `ln`.
pub fn unit_open0(rng: &mut Rng) -> f64 {
    1.0 - rng.gen::<f64>()
}

pub fn exponential(rng: &mut Rng, mean: f64) -> f64 {
    -mean * unit_open0(rng).ln()
}

/// Standard normal by Box–Muller.
pub fn normal(rng: &mut Rng, mean: f64, sd: f64) -> f64 {
    let u1 = unit_open0(rng);
    let u2 = unit(rng);
    mean + sd * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// A real-valued distribution, in the scenario's base unit (seconds, bytes, ...).
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Fixed(f64),
    Uniform(f64, f64),
    Exponential {
        mean: f64,
    },
    /// Pareto with tail index `shape` (> 1) and the given mean: scale = mean·(shape−1)/shape.
    Pareto {
        shape: f64,
        mean: f64,
    },
    Normal {
        mean: f64,
        sd: f64,
    },
}

impl Dist {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match *self {
            Dist::Fixed(v) => v,
            Dist::Uniform(a, b) => a + (b - a) * unit(rng),
            Dist::Exponential { mean } => exponential(rng, mean),
            Dist::Pareto { shape, mean } => {
                let scale = mean * (shape - 1.0) / shape;
                scale / unit_open0(rng).powf(1.0 / shape)
            }
            Dist::Normal { mean, sd } => normal(rng, mean, sd),
        }
    }
    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Fixed(v) => v,
            Dist::Uniform(a, b) => 0.5 * (a + b),
            Dist::Exponential { mean } | Dist::Pareto { mean, .. } | Dist::Normal { mean, .. } => {
                mean
            }
        }
    }
    pub fn is_fixed(&self) -> bool {
        matches!(self, Dist::Fixed(_))
    }
}

/// A measured distribution by its quantiles: `v[k]` at cumulative probability `p[k]`, p
/// from 0 to 1 increasing, v non-decreasing; the CDF is the straight line between
/// neighbouring points (uniform within each interval).
#[derive(Clone, Debug, PartialEq)]
pub struct Quantiles {
    pub p: Box<[f64]>,
    pub v: Box<[f64]>,
}

impl Quantiles {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        let (p, v) = (&self.p, &self.v);
        let u = unit(rng);
        // the interval [p[i], p[i+1]) that holds u
        let i = p.partition_point(|&x| x <= u).clamp(1, p.len() - 1) - 1;
        let w = p[i + 1] - p[i];
        let f = if w > 0.0 { (u - p[i]) / w } else { 0.0 };
        v[i] + f * (v[i + 1] - v[i])
    }

    /// Uniform within each interval: its probability times its midpoint.
    pub fn mean(&self) -> f64 {
        (1..self.p.len())
            .map(|i| (self.p[i] - self.p[i - 1]) * 0.5 * (self.v[i] + self.v[i - 1]))
            .sum()
    }
}

/// The law of a per-packet delay (`tcp.read_latency`, `topology.bottleneck_jitter`): a
/// `Dist` or a measured quantile table. A type of its own, not a `Dist` variant: any
/// variant with a table (a Box, or an index with its lookup) made the event loop, which
/// holds `Dist`s nowhere hot, compile to 1.2 % more instructions per event and run 4-9 %
/// slower in every bench configuration (callgrind and timings, 2026-12-05).
#[derive(Clone, Debug, PartialEq)]
pub enum Law {
    Dist(Dist),
    Quantiles(Box<Quantiles>),
}

impl Law {
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match self {
            Law::Dist(d) => d.sample(rng),
            Law::Quantiles(q) => q.sample(rng),
        }
    }
    pub fn mean(&self) -> f64 {
        match self {
            Law::Dist(d) => d.mean(),
            Law::Quantiles(q) => q.mean(),
        }
    }
}

/// Raw 64 bits, for callers that need them.
pub fn next_u64(rng: &mut Rng) -> u64 {
    rng.next_u64()
}

/// The seed of replication `k` of a run whose seed is `seed`: `seed + k` (modulo
/// 2^63, so that it can be written back into a scenario: TOML integers are signed
/// 64-bit). The one rule of every sweep, batch and replication: every point of a
/// sweep sees the same seeds (common random numbers), and replication k is the run
/// `--set seed=<seed + k>` reproduces by hand. Streams are derived from the seed by
/// hashing (`stream`), so consecutive seeds give unrelated streams.
pub fn replication_seed(seed: u64, k: usize) -> u64 {
    seed.wrapping_add(k as u64) & (u64::MAX >> 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| stream(1, "x").next_u64()).collect();
        assert!(a.iter().all(|&v| v == a[0]));
        assert_ne!(stream(1, "x").next_u64(), stream(1, "y").next_u64());
        assert_ne!(stream(1, "x").next_u64(), stream(2, "x").next_u64());
    }

    #[test]
    fn quantiles_follow_their_piecewise_linear_cdf() {
        // P(X <= v[k]) = p[k] at every listed point, and inside an interval the CDF is
        // linear: P(X <= 0.5 ms) = 0.9 + 0.05 * (0.5 - 0.4) / (0.6 - 0.4) = 0.925.
        let d = Law::Quantiles(Box::new(Quantiles {
            p: vec![0.0, 0.5, 0.9, 0.95, 1.0].into(),
            v: vec![50e-6, 100e-6, 400e-6, 600e-6, 2e-3].into(),
        }));
        let mut r = stream(11, "q");
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut r)).collect();
        let below = |x: f64| xs.iter().filter(|&&s| s <= x).count() as f64 / n as f64;
        for (x, p) in [
            (100e-6, 0.5),
            (400e-6, 0.9),
            (500e-6, 0.925),
            (600e-6, 0.95),
            (75e-6, 0.25),
        ] {
            // binomial standard error <= 0.0008; allow 5
            assert!(
                (below(x) - p).abs() < 0.004,
                "P(X <= {x}) = {} != {p}",
                below(x)
            );
        }
        assert!(xs.iter().all(|&s| (50e-6..=2e-3).contains(&s)));
        // mean = sum of interval probability x midpoint:
        // 0.5*75 + 0.4*250 + 0.05*500 + 0.05*1300 = 227.5 us
        assert!((d.mean() - 227.5e-6).abs() < 1e-12);
        let m = xs.iter().sum::<f64>() / n as f64;
        assert!(
            (m - d.mean()).abs() < 0.01 * d.mean(),
            "{m} vs {}",
            d.mean()
        );
    }

    #[test]
    fn sample_means_match() {
        let mut r = stream(7, "t");
        let n = 200_000;
        for d in [
            Dist::Uniform(2.0, 4.0),
            Dist::Exponential { mean: 0.2 },
            Dist::Normal { mean: 5.0, sd: 1.0 },
        ] {
            let m: f64 = (0..n).map(|_| d.sample(&mut r)).sum::<f64>() / n as f64;
            // Standard error is at most sd/sqrt(n) ~ 0.0023·sd; allow 5 standard errors.
            assert!(
                (m - d.mean()).abs() < 0.012 * d.mean().max(1.0),
                "{d:?}: {m}"
            );
        }
    }
}
