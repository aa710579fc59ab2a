//! The loss-synchronization module of study 004 §4.3: at each congestion event k a
//! synchronization level m_k (how many flows record a loss) and a drop policy (which
//! ones). The selected flows' loss rates sum to the excess arrival rate (eq. 8).

use crate::random::{normal, unit, Rng};
use crate::scenario::fluid::{Level, Policy};

/// Draw m_k for an event with `n` active flows (eq. 7 and 9: m_k ∈ [⌈X·N⌉, N], ≥ 1).
pub fn draw_level(level: Level, min_level: f64, n: usize, rng: &mut Rng) -> usize {
    if n == 0 {
        return 0;
    }
    let lo = ((min_level * n as f64).ceil() as usize).clamp(1, n);
    let m = match level {
        Level::All => n as f64,
        Level::Fixed(m) => m as f64,
        Level::Band => {
            let (a, b) = (lo as f64, n as f64);
            normal(rng, 0.5 * (a + b), 0.25 * (b - a))
        }
        Level::Normal { mean, sd } => normal(rng, mean, sd),
    };
    (m.round().max(0.0) as usize).clamp(lo, n)
}

/// Choose `m` of the candidates (`rates[i] > 0`) by the policy; writes their indices
/// into `out`. `scratch` is reused between events to avoid allocation.
pub fn select(
    policy: Policy,
    m: usize,
    rates: &[f64],
    rng: &mut Rng,
    scratch: &mut Vec<usize>,
    out: &mut Vec<usize>,
) {
    scratch.clear();
    scratch.extend((0..rates.len()).filter(|&i| rates[i] > 0.0));
    out.clear();
    let m = m.min(scratch.len());
    match policy {
        Policy::HighestRate => {
            // Highest arrival rate first; ties broken by index so runs are reproducible.
            scratch.sort_by(|&a, &b| rates[b].total_cmp(&rates[a]).then(a.cmp(&b)));
            out.extend_from_slice(&scratch[..m]);
        }
        Policy::Random => {
            // Partial Fisher–Yates.
            for k in 0..m {
                let j = k
                    + ((unit(rng) * (scratch.len() - k) as f64) as usize)
                        .min(scratch.len() - k - 1);
                scratch.swap(k, j);
            }
            out.extend_from_slice(&scratch[..m]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::stream;

    #[test]
    fn levels_are_clipped_to_the_study_range() {
        let mut r = stream(1, "t");
        for _ in 0..1000 {
            let m = draw_level(Level::Normal { mean: 1.0, sd: 5.0 }, 0.3, 10, &mut r);
            assert!((3..=10).contains(&m), "{m}");
        }
        assert_eq!(draw_level(Level::All, 0.0, 7, &mut r), 7);
        assert_eq!(draw_level(Level::Fixed(1), 1.0, 7, &mut r), 7);
        assert_eq!(draw_level(Level::Fixed(20), 0.0, 7, &mut r), 7);
    }

    #[test]
    fn highest_rate_first() {
        let mut r = stream(1, "t");
        let (mut s, mut o) = (Vec::new(), Vec::new());
        select(
            Policy::HighestRate,
            2,
            &[1.0, 5.0, 0.0, 3.0],
            &mut r,
            &mut s,
            &mut o,
        );
        assert_eq!(o, vec![1, 3]);
        select(
            Policy::Random,
            9,
            &[1.0, 5.0, 0.0, 3.0],
            &mut r,
            &mut s,
            &mut o,
        );
        o.sort();
        assert_eq!(o, vec![0, 1, 3]);
    }
}
