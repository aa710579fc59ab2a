//! Burstiness as the coefficient of variation of a flow's throughput (study 002 §7.3,
//! after Ha et al. 2006).
//!
//! Study 002: "an arithmetic mean and standard deviation of the throughput of each flow
//! are taken at 5-second intervals, and used to generate the ratio of the standard
//! deviation to the mean". It does not say how often the throughput is sampled inside
//! a window. ccsim samples every `cov_sample` (default 100 ms: one to two RTTs of
//! study 002's 50 and 100 ms paths, fine enough to see a halving, coarse enough that
//! one sample holds hundreds of packets at 500 Mb/s) and uses the population standard
//! deviation (divide by n). Both choices are documented in docs/metrics.md.

/// Welford's running mean and variance of one window's samples (numerically stable:
/// no Σx² − (Σx)²/n cancellation for nearly constant throughput).
#[derive(Clone, Copy, Debug, Default)]
pub struct Window {
    n: u32,
    mean: f64,
    m2: f64,
}

impl Window {
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    pub fn len(&self) -> u32 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// σ/μ with the population σ; `None` for an empty window or a zero mean (a flow
    /// that sent nothing has no defined burstiness).
    pub fn cov(&self) -> Option<f64> {
        if self.n == 0 || self.mean <= 0.0 {
            return None;
        }
        Some((self.m2 / self.n as f64).max(0.0).sqrt() / self.mean)
    }
}

/// σ/μ of `samples` (population σ); `None` when empty or the mean is not positive.
pub fn cov(samples: &[f64]) -> Option<f64> {
    let mut w = Window::default();
    samples.iter().for_each(|&x| w.push(x));
    w.cov()
}

/// Per-window CoVs of a sample series: consecutive groups of `per_window` samples
/// (an incomplete last group is left out). Windows with a zero mean give `None`.
pub fn windowed_cov(samples: &[f64], per_window: usize) -> Vec<Option<f64>> {
    assert!(per_window > 0);
    samples.chunks_exact(per_window).map(cov).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square wave between a and b (half the samples each) has mean (a+b)/2 and
    /// population σ |a−b|/2: CoV = |a−b|/(a+b). With 100 and 50 Mb/s: 1/3.
    #[test]
    fn square_wave_has_the_closed_form_cov() {
        let s: Vec<f64> = (0..50)
            .map(|i| if i % 2 == 0 { 100e6 } else { 50e6 })
            .collect();
        let c = cov(&s).unwrap();
        assert!((c - 1.0 / 3.0).abs() < 1e-12, "{c}");
    }

    /// A constant throughput has CoV 0; an on/off flow sending in one of n samples has
    /// σ/μ = √(n−1) (mean x/n, σ = x·√(n−1)/n).
    #[test]
    fn constant_and_single_burst() {
        assert_eq!(cov(&[3.0; 50]), Some(0.0));
        let mut s = vec![0.0; 50];
        s[7] = 1e9;
        assert!((cov(&s).unwrap() - 49f64.sqrt()).abs() < 1e-9);
        assert_eq!(cov(&[0.0; 5]), None);
        assert_eq!(cov(&[]), None);
    }

    /// 5 s windows of 100 ms samples: a first window constant, a second alternating
    /// 2:1, a third idle, and a partial fourth left out.
    #[test]
    fn windows_are_separate() {
        let mut s = vec![10.0; 50];
        s.extend((0..50).map(|i| if i % 2 == 0 { 2.0 } else { 1.0 }));
        s.extend([0.0; 50]);
        s.extend([1.0; 20]);
        let w = windowed_cov(&s, 50);
        assert_eq!(w.len(), 3);
        assert_eq!(w[0], Some(0.0));
        assert!((w[1].unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(w[2], None);
    }

    /// Welford stays exact where the naive Σx² formula cancels: samples 1e9 ± 1.
    #[test]
    fn stable_for_nearly_constant_large_values() {
        let s: Vec<f64> = (0..1000)
            .map(|i| 1e9 + if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let c = cov(&s).unwrap();
        assert!((c - 1e-9).abs() < 1e-15, "{c}");
    }
}
