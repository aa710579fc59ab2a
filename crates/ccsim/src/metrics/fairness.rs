//! Jain's fairness index and study 001's RTT-normalized variant.

/// Jain's fairness index (Σx)² / (n·Σx²) (Jain, Chiu, Hawe 1984); 1 for an empty or
/// all-zero set.
pub fn jain(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

/// RTT-normalized fairness (study 001 §4, the "normalized fairness ratio"):
/// (Σ x_i·RTT_i)² / (n·Σ (x_i·RTT_i)²). A fair share inversely proportional to the
/// RTT — what window-based AIMD converges to — scores 1.
pub fn jain_rtt(xs: &[f64], rtts: &[f64]) -> f64 {
    assert_eq!(xs.len(), rtts.len(), "one RTT per throughput");
    let n = xs.len() as f64;
    let (mut s, mut s2) = (0.0, 0.0);
    for (x, r) in xs.iter().zip(rtts) {
        let y = x * r;
        s += y;
        s2 += y * y;
    }
    if n == 0.0 || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

/// Running sums for Jain's index of values added one at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct JainSums {
    s: f64,
    s2: f64,
    n: u32,
}

impl JainSums {
    pub fn add(&mut self, x: f64) {
        self.s += x;
        self.s2 += x * x;
        self.n += 1;
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// (Σx)² / (n·Σx²); 1 when empty or all zero, as `jain`.
    pub fn value(&self) -> f64 {
        if self.n == 0 || self.s2 == 0.0 {
            1.0
        } else {
            self.s * self.s / (self.n as f64 * self.s2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_known_values() {
        assert_eq!(jain(&[1.0, 1.0, 1.0, 1.0]), 1.0);
        // One of n flows takes everything: 1/n.
        assert!((jain(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // (1+2)² / (2·(1+4)) = 0.9.
        assert!((jain(&[1.0, 2.0]) - 0.9).abs() < 1e-12);
    }

    /// Throughputs inversely proportional to the RTT (100 ms and 280 ms flows of
    /// study 001 §5.3) are perfectly fair once normalized, while plain Jain is not:
    /// x = (2.8, 1.0) gives (3.8)² / (2·(7.84 + 1)) = 0.8167.
    #[test]
    fn rtt_normalized_jain_rewards_inverse_rtt_shares() {
        let x = [2.8, 1.0];
        let rtt = [0.100, 0.280];
        assert!((jain_rtt(&x, &rtt) - 1.0).abs() < 1e-12);
        assert!((jain(&x) - 3.8 * 3.8 / (2.0 * 8.84)).abs() < 1e-12);
        // Equal throughputs with unequal RTTs: y = (0.1, 0.28), (0.38)²/(2·0.0884).
        let j = jain_rtt(&[1.0, 1.0], &rtt);
        assert!((j - 0.38 * 0.38 / (2.0 * 0.0884)).abs() < 1e-12, "{j}");
        // The running sums agree with the slice form.
        let mut a = JainSums::default();
        [1.0 * 0.1, 1.0 * 0.28].iter().for_each(|&y| a.add(y));
        assert!((a.value() - j).abs() < 1e-12);
    }
}
