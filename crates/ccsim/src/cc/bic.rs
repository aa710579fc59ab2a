//! BIC TCP (Xu, Harfoush, Rhee, "Binary Increase Congestion Control for Fast,
//! Long-Distance Networks", INFOCOM 2004), with the Linux `tcp_bic.c` defaults and its
//! refinements: binary search toward W_max, additive increase capped at S_max far from
//! it, slow "max probing" just past it, fast convergence, Reno below a low window.

use super::{
    ecn_reduce, slow_start, AckInfo, CcState, CongestionControl, CongestionInfo, CongestionKind,
    Params,
};

#[derive(Clone, Copy, Debug)]
pub struct BicParams {
    /// Multiplicative decrease factor: cwnd ← β·cwnd (paper §3: β = 0.8; Linux 819/1024).
    pub beta: f64,
    /// Largest increase per RTT, S_max (Linux `max_increment` = 16; the paper uses 32).
    pub smax: f64,
    /// Below this window BIC behaves as Reno (Linux `low_window` = 14).
    pub low_window: f64,
    /// Binary-search divisor: each RTT moves 1/B of the way to W_max (Linux BICTCP_B =
    /// 4; the paper's midpoint is B = 2).
    pub b: f64,
    /// Near W_max the increase is B/smooth_part per RTT (Linux `smooth_part` = 20), the
    /// role the paper gives to S_min.
    pub smooth_part: f64,
    /// Paper §3 "fast convergence": a flow losing below its last W_max lowers W_max.
    pub fast_convergence: bool,
}

impl Default for BicParams {
    fn default() -> Self {
        BicParams {
            beta: 0.8,
            smax: 16.0,
            low_window: 14.0,
            b: 4.0,
            smooth_part: 20.0,
            fast_convergence: true,
        }
    }
}

impl BicParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = BicParams::default();
        let bp = BicParams {
            beta: p.pos("beta", d.beta, 0.999)?,
            smax: p.pos("smax", d.smax, 1e9)?,
            low_window: p.num("low_window", d.low_window, 0.0, 1e12)?,
            b: p.num("b", d.b, 2.0, 1e6)?,
            smooth_part: p.pos("smooth_part", d.smooth_part, 1e9)?,
            fast_convergence: p.flag("fast_convergence", d.fast_convergence)?,
        };
        Ok(bp)
    }
}

pub struct Bic {
    pub p: BicParams,
    /// W_max, the window at the last loss (0: none yet).
    pub w_max: f64,
}

impl Bic {
    pub fn new(p: BicParams) -> Self {
        Bic { p, w_max: 0.0 }
    }

    /// Window increase per RTT at window `w` (Linux `bictcp_update`, as a rate).
    pub fn increment(&self, w: f64) -> f64 {
        let p = &self.p;
        if w <= p.low_window {
            return 1.0;
        }
        let inc = if w < self.w_max {
            // Paper §3 binary search increase: aim at the point 1/B of the way from w to
            // W_max; capped at S_max (additive increase when far away).
            let dist = (self.w_max - w) / p.b;
            if dist > p.smax {
                p.smax
            } else if dist <= 1.0 {
                p.b / p.smooth_part
            } else {
                dist
            }
        } else {
            // Paper §3 max probing: past W_max grow slowly at first, then faster
            // (the mirror image of the search), capped at S_max.
            let over = w - self.w_max;
            if over < p.b {
                p.b / p.smooth_part
            } else if over < p.smax * (p.b - 1.0) {
                over / (p.b - 1.0)
            } else {
                p.smax
            }
        };
        if self.w_max == 0.0 {
            // No loss seen yet: grow at least 5% per RTT (Linux: cnt ≤ 20).
            inc.max(w / 20.0)
        } else {
            inc
        }
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        let mut acked = ack.acked as f64;
        if st.in_slow_start() {
            acked = slow_start(st, ack.acked);
        }
        if acked > 0.0 {
            // An increment of `inc` per RTT is inc/cwnd per acked segment.
            st.cwnd += acked * self.increment(st.cwnd) / st.cwnd;
        }
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        let w = st.cwnd;
        // Paper §3 fast convergence (Linux form): losing below the previous W_max means
        // the share shrank; release bandwidth by lowering W_max to (1 + β)/2 of cwnd.
        self.w_max = if w < self.w_max && self.p.fast_convergence {
            w * (1.0 + self.p.beta) / 2.0
        } else {
            w
        };
        st.ssthresh = if w <= self.p.low_window {
            (w / 2.0).max(2.0)
        } else {
            (w * self.p.beta).max(2.0)
        };
        if ev.kind == CongestionKind::Timeout {
            // Linux resets BIC's state on entering loss state (after ssthresh).
            self.w_max = 0.0;
        }
        ecn_reduce(st, ev.kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::units::Time;

    #[test]
    fn binary_search_toward_w_max() {
        let mut b = Bic::new(BicParams::default());
        let mut st = state(1000.0, 1e9);
        let mut now = Time::ZERO;
        b.on_congestion(&mut st, &cong(now, CongestionKind::FastRetransmit, 1000));
        assert_eq!(b.w_max, 1000.0);
        assert!((st.ssthresh - 800.0).abs() < 1e-9);
        st.cwnd = st.ssthresh;
        let rtt = Time::from_millis(100);
        // Far from W_max (distance/B = 50 > S_max): additive increase of S_max per RTT.
        let w0 = st.cwnd;
        one_rtt(&mut b, &mut st, &mut now, rtt, rtt);
        assert!((st.cwnd - w0 - 16.0).abs() < 0.5, "{}", st.cwnd - w0);
        // Drive until within B·S_max of W_max, then each RTT covers 1/B of the distance.
        while (b.w_max - st.cwnd) / 4.0 > 16.0 {
            one_rtt(&mut b, &mut st, &mut now, rtt, rtt);
        }
        let mut prev = b.w_max - st.cwnd;
        for _ in 0..6 {
            one_rtt(&mut b, &mut st, &mut now, rtt, rtt);
            let d = b.w_max - st.cwnd;
            if prev / 4.0 <= 1.0 {
                break;
            }
            // Distance shrinks by about (1 − 1/B) per RTT and never overshoots.
            assert!(d > 0.0, "overshot W_max");
            assert!((d / prev - 0.75).abs() < 0.06, "ratio {}", d / prev);
            prev = d;
        }
        // It plateaus: 20 more RTTs only creep past W_max.
        for _ in 0..20 {
            one_rtt(&mut b, &mut st, &mut now, rtt, rtt);
        }
        assert!((st.cwnd - b.w_max).abs() < 12.0, "{}", st.cwnd);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut b = Bic::new(BicParams::default());
        let mut st = state(1000.0, 1e9);
        b.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 0),
        );
        st.cwnd = 900.0;
        b.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 0),
        );
        assert!((b.w_max - 900.0 * 0.9).abs() < 1e-9);
        // Reno-like below the low window.
        assert_eq!(b.increment(10.0), 1.0);
    }
}
