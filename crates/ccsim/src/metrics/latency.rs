//! Study 001's ideal latency (§5.4): "the latency of a flow that does slow start until
//! it reaches its fair share of the bandwidth and then continues with a constant
//! window". Normalized latency = flow completion time / ideal latency.
//!
//! The model made exact (docs/metrics.md): the flow's packets leave its fair-share
//! link spaced τ_f = packet bits / fair rate. Round k (from 0) starts at k·R, R the
//! unloaded round-trip time, and sends w_k = w0·2^k segments (no delayed ACKs) while
//! w_k < W_f = R/τ_f, the fair-share window; its j-th segment finishes at
//! k·R + j·τ_f. From the first round whose window reaches W_f the flow sends without
//! pause at the fair rate. The last segment then needs the one-way latency D to the
//! receiver. At a fair share of the whole link, a lone flow with a large enough
//! buffer and ssthresh follows this model to within a packet time per round.

/// Path quantities of one flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IdealPath {
    /// Unloaded round-trip time R, s: two-way propagation plus the serialization of a
    /// data packet on each forward link and of an ACK on each reverse link.
    pub rtt: f64,
    /// τ_f, s: one full data packet at the flow's fair rate (min over its links of
    /// link rate / flows sharing it).
    pub spacing: f64,
    /// D, s: forward propagation plus serialization on the forward links other than
    /// the fair-share one (whose serialization is counted in the spacing).
    pub one_way: f64,
}

/// Ideal latency, s, of a flow of `segments` segments with initial window `init_cwnd`.
pub fn ideal_latency(segments: u64, init_cwnd: f64, p: &IdealPath) -> f64 {
    assert!(p.rtt > 0.0 && p.spacing > 0.0 && init_cwnd >= 1.0);
    if segments == 0 {
        return 0.0;
    }
    let w_fair = p.rtt / p.spacing;
    let (mut sent, mut w, mut k) = (0u64, init_cwnd, 0u32);
    loop {
        let start = k as f64 * p.rtt;
        if w >= w_fair {
            // Constant window from here on: back-to-back at the fair rate.
            return start + (segments - sent) as f64 * p.spacing + p.one_way;
        }
        let this_round = w.floor().max(1.0) as u64;
        if sent + this_round >= segments {
            return start + (segments - sent) as f64 * p.spacing + p.one_way;
        }
        sent += this_round;
        w *= 2.0; // slow start: one more segment per ACK (RFC 5681 §3.1)
        k += 1;
    }
}

/// Segments needed for `bytes` of payload at `mss` bytes each.
pub fn segments(bytes: u64, mss: u32) -> u64 {
    bytes.div_ceil(mss as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: IdealPath = IdealPath {
        rtt: 0.1,
        spacing: 0.001,
        one_way: 0.05,
    };

    /// One segment: its serialization plus the one-way latency.
    #[test]
    fn one_segment() {
        assert!((ideal_latency(1, 1.0, &P) - 0.051).abs() < 1e-12);
    }

    /// 7 = 1 + 2 + 4 segments in slow start: the last is the 4th of round 2.
    #[test]
    fn pure_slow_start_rounds() {
        let t = ideal_latency(7, 1.0, &P);
        assert!((t - (0.2 + 0.004 + 0.05)).abs() < 1e-12, "{t}");
        // An 8th segment opens round 3.
        let t = ideal_latency(8, 1.0, &P);
        assert!((t - (0.3 + 0.001 + 0.05)).abs() < 1e-12, "{t}");
        // Initial window 4: 4 + 8 covers 12 segments in two rounds.
        let t = ideal_latency(12, 4.0, &P);
        assert!((t - (0.1 + 0.008 + 0.05)).abs() < 1e-12, "{t}");
    }

    /// Fair window W_f = R/τ_f = 10: rounds of 1, 2, 4, 8 (15 segments), then the
    /// window 16 ≥ 10 sends the other 100 back to back: 4·R + 100·τ_f + D.
    #[test]
    fn constant_window_after_reaching_the_fair_share() {
        let p = IdealPath { spacing: 0.01, ..P };
        let t = ideal_latency(115, 1.0, &p);
        assert!((t - (0.4 + 1.0 + 0.05)).abs() < 1e-12, "{t}");
        // A long flow tends to size × τ_f: the fair rate.
        let n = 1_000_000;
        let t = ideal_latency(n, 1.0, &p);
        assert!((t - (0.4 + (n - 15) as f64 * 0.01 + 0.05)).abs() < 1e-6);
        assert!((t / (n as f64 * 0.01) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn segment_count_rounds_up() {
        assert_eq!(segments(1460, 1460), 1);
        assert_eq!(segments(1461, 1460), 2);
        assert_eq!(segments(0, 1460), 0);
    }
}
