//! BIC TCP (Xu, Harfoush, Rhee, "Binary Increase Congestion Control for Fast,
//! Long-Distance Networks", INFOCOM 2004), with the Linux `tcp_bic.c` defaults and its
//! refinements: binary search toward W_max, additive increase capped at S_max far from
//! it, slow "max probing" just past it, fast convergence, Reno below a low window.
//!
//! Both forms use `BicConfig::increment` (the increase per RTT at window w given W_max),
//! `w_max_after` and `reduced`: per ACK cwnd += increment/cwnd, which is `increment`
//! per RTT in the rate form.

use super::contract::{
    Ack, Algorithm, Congestion, CongestionControl, CongestionKind, FluidLaw, Window,
};
use super::params::Params;

/// BIC's parameters (Linux `tcp_bic.c` defaults).
#[derive(Clone, Copy, Debug)]
pub struct BicConfig {
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

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig {
            beta: 0.8,
            smax: 16.0,
            low_window: 14.0,
            b: 4.0,
            smooth_part: 20.0,
            fast_convergence: true,
        }
    }
}

impl BicConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = BicConfig::default();
        let bp = BicConfig {
            beta: p.pos("beta", d.beta, 0.999)?,
            smax: p.pos("smax", d.smax, 1e9)?,
            low_window: p.num("low_window", d.low_window, 0.0, 1e12)?,
            b: p.num("b", d.b, 2.0, 1e6)?,
            smooth_part: p.pos("smooth_part", d.smooth_part, 1e9)?,
            fast_convergence: p.flag("fast_convergence", d.fast_convergence)?,
        };
        Ok(bp)
    }

    /// Window increase per RTT at window `w` with W_max `w_max` (0: no loss yet)
    /// (Linux `bictcp_update`, as a rate).
    pub fn increment(&self, w: f64, w_max: f64) -> f64 {
        let p = self;
        if w <= p.low_window {
            return 1.0;
        }
        let inc = if w < w_max {
            // Paper §3 binary search increase: aim at the point 1/B of the way from w to
            // W_max; capped at S_max (additive increase when far away).
            let dist = (w_max - w) / p.b;
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
            let over = w - w_max;
            if over < p.b {
                p.b / p.smooth_part
            } else if over < p.smax * (p.b - 1.0) {
                over / (p.b - 1.0)
            } else {
                p.smax
            }
        };
        if w_max == 0.0 {
            // No loss seen yet: grow at least 5% per RTT (Linux: cnt ≤ 20).
            inc.max(w / 20.0)
        } else {
            inc
        }
    }

    /// Paper §3 fast convergence (Linux form): losing at `w` below the previous W_max
    /// means the share shrank; release bandwidth by lowering W_max to (1 + β)/2 of w.
    pub fn w_max_after(&self, w: f64, w_max: f64) -> f64 {
        if w < w_max && self.fast_convergence {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        }
    }

    /// The window after a loss at `w`: β·w (w/2 at or below the low window).
    pub fn reduced(&self, w: f64) -> f64 {
        if w <= self.low_window {
            w / 2.0
        } else {
            self.beta * w
        }
    }
}

/// The per-ACK form.
pub struct Bic {
    pub p: BicConfig,
    /// W_max, the window at the last loss (0: none yet).
    pub w_max: f64,
}

impl Bic {
    pub fn new(p: BicConfig) -> Self {
        Bic { p, w_max: 0.0 }
    }

    /// Window increase per RTT at window `w` (see `BicConfig::increment`).
    pub fn increment(&self, w: f64) -> f64 {
        self.p.increment(w, self.w_max)
    }
}

impl Algorithm for Bic {
    const NAMES: &'static [&'static str] = &["bic"];
    type Config = BicConfig;
    type Fluid = BicFluid;
    fn config(p: &mut Params) -> Result<BicConfig, String> {
        BicConfig::from_params(p)
    }
    fn packet(cfg: &BicConfig) -> Box<dyn CongestionControl> {
        Box::new(Bic::new(*cfg))
    }
    fn fluid(cfg: &BicConfig) -> Option<BicFluid> {
        Some(BicFluid {
            p: *cfg,
            w_max: 0.0,
        })
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let acked = w.slow_start(ack.acked);
        if acked > 0.0 {
            // An increment of `inc` per RTT is inc/cwnd per acked segment.
            let inc = self.increment(w.cwnd);
            w.additive_increase(inc, acked);
        }
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        let cwnd = w.cwnd;
        self.w_max = self.p.w_max_after(cwnd, self.w_max);
        if ev.kind == CongestionKind::Timeout {
            // Linux resets BIC's state on entering loss state (after ssthresh).
            self.w_max = 0.0;
        }
        self.p.reduced(cwnd).max(2.0)
    }
}

/// The rate form: the same W_max memory.
#[derive(Clone, Copy, Debug)]
pub struct BicFluid {
    pub p: BicConfig,
    /// W_max, the window at the last loss (0: none yet).
    pub w_max: f64,
}

impl FluidLaw for BicFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {
        self.w_max = 0.0;
    }
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        w + self.p.increment(w, self.w_max) * dt / rtt
    }
    fn on_loss(&mut self, w: f64, _t: f64) -> f64 {
        self.w_max = self.p.w_max_after(w, self.w_max);
        self.p.reduced(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::units::Time;

    #[test]
    fn binary_search_toward_w_max() {
        let mut b = Bic::new(BicConfig::default());
        let mut st = state(1000.0, 1e9);
        let mut now = Time::ZERO;
        st.ssthresh = b.on_congestion(&st, &cong(now, CongestionKind::FastRetransmit, 1000));
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
        let mut b = Bic::new(BicConfig::default());
        let mut st = state(1000.0, 1e9);
        let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 0);
        b.on_congestion(&st, &ev);
        st.cwnd = 900.0;
        b.on_congestion(&st, &ev);
        assert!((b.w_max - 900.0 * 0.9).abs() < 1e-9);
        // Reno-like below the low window.
        assert_eq!(b.increment(10.0), 1.0);
        // A timeout forgets W_max (Linux bictcp_state on TCP_CA_Loss).
        b.on_congestion(&st, &cong(Time::ZERO, CongestionKind::Timeout, 0));
        assert_eq!(b.w_max, 0.0);
    }

    #[test]
    fn fluid_searches_toward_w_max() {
        // After a loss at 1000 (β = 0.8 → 800), binary search closes (W_max − W)/4 per
        // RTT but at most S_max = 16: the first 10 RTTs add 160 (distance/4 ≥ 16 until
        // W ≈ 936), and W never passes W_max during the search's slow approach.
        let mut l = BicFluid {
            p: BicConfig::default(),
            w_max: 0.0,
        };
        let integrate = |l: &mut BicFluid, mut w: f64, secs: f64| {
            for _ in 0..(secs / 1e-3).round() as usize {
                w = l.grow(w, 0.0, 0.1, 1e-3);
            }
            w
        };
        let w = l.on_loss(1000.0, 0.0);
        assert!((w - 800.0).abs() < 1e-9);
        let w = integrate(&mut l, w, 0.8);
        assert!((w - 928.0).abs() < 0.5, "{w}");
        let w = integrate(&mut l, w, 2.0);
        assert!(w > 980.0 && w < 1001.0, "{w}");
    }
}
