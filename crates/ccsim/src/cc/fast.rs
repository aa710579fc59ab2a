//! FAST TCP (Jin, Wei, Low, "FAST TCP: Motivation, Architecture, Algorithms,
//! Performance", INFOCOM 2004; Wei, Jin, Low, Hegde, IEEE/ACM ToN 2006): a delay-based
//! window law whose equilibrium keeps α packets of this flow queued:
//!   w ← min{2w, (1 − γ)·w + γ·(baseRTT/RTT·w + α)}      (paper eq. (6)).
//!
//! Both forms use `FastConfig::update`. The per-ACK form applies it once per round;
//! the rate form moves the window by update(w) − w = min{w, γ·(α − w·q/RTT)} per RTT
//! (q = RTT − baseRTT), whose rest point w·q/RTT = α — α packets queued — is the
//! paper's equilibrium. The rate form takes the current RTT from the fluid engine and
//! baseRTT as the least it has seen.

use super::contract::{Ack, Algorithm, Congestion, CongestionControl, FluidLaw, Round, Window};
use super::params::Params;

/// FAST's parameters.
#[derive(Clone, Copy, Debug)]
pub struct FastConfig {
    /// Packets each flow keeps queued in equilibrium. The paper's experiments use
    /// α = 200 packets (INFOCOM 2004 §5); ns-2 and small-BDP studies often use less.
    pub alpha: f64,
    /// Smoothing of the update, γ ∈ (0, 1] (paper: γ = 0.5).
    pub gamma: f64,
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig {
            alpha: 200.0,
            gamma: 0.5,
        }
    }
}

impl FastConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = FastConfig::default();
        Ok(FastConfig {
            alpha: p.num("alpha", d.alpha, 0.0, 1e12)?,
            gamma: p.pos("gamma", d.gamma, 1.0)?,
        })
    }

    /// Paper eq. (6): one update of the window from the current RTT and baseRTT.
    pub fn update(&self, w: f64, base_rtt: f64, rtt: f64) -> f64 {
        let g = self.gamma;
        (2.0 * w).min((1.0 - g) * w + g * (base_rtt / rtt * w + self.alpha))
    }
}

/// The per-ACK form (it acts once per round).
pub struct Fast {
    pub p: FastConfig,
}

impl Fast {
    pub fn new(p: FastConfig) -> Self {
        Fast { p }
    }
}

impl Algorithm for Fast {
    const NAMES: &'static [&'static str] = &["fast"];
    type Config = FastConfig;
    type Fluid = FastFluid;
    fn config(p: &mut Params) -> Result<FastConfig, String> {
        FastConfig::from_params(p)
    }
    fn packet(cfg: &FastConfig) -> Box<dyn CongestionControl> {
        Box::new(Fast::new(*cfg))
    }
    fn fluid(cfg: &FastConfig) -> Option<FastFluid> {
        Some(FastFluid::new(*cfg))
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }
    fn on_ack(&mut self, _w: &mut Window, _ack: &Ack) {
        // FAST changes the window once per RTT only; its min{2w, ·} bound replaces slow
        // start (at most doubling per RTT while the queue is short).
    }
    fn on_round(&mut self, w: &mut Window, r: &Round) {
        if r.in_recovery() {
            return;
        }
        // RTT: the round's mean sample (the paper averages per-ACK samples; a round
        // mean is that average over one window). Without a sample, the smoothed RTT.
        let rtt = r
            .mean_rtt
            .unwrap_or(r.rtt.srtt)
            .max(r.rtt.min)
            .as_secs_f64();
        let base = r.rtt.min.as_secs_f64();
        if rtt <= 0.0 || base <= 0.0 {
            return;
        }
        w.cwnd = self.p.update(w.cwnd, base, rtt).max(2.0);
        // Keep ssthresh at the window so that the sender and tools see congestion
        // avoidance: FAST has no separate slow-start phase.
        w.ssthresh = w.cwnd;
    }
    fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
        // On loss FAST halves as Reno (paper §4: loss recovery is Reno/NewReno's).
        (w.cwnd / 2.0).max(2.0)
    }
}

/// The rate form: baseRTT, the least RTT seen.
#[derive(Clone, Copy, Debug)]
pub struct FastFluid {
    pub p: FastConfig,
    base: f64,
}

impl FastFluid {
    pub fn new(p: FastConfig) -> Self {
        FastFluid {
            p,
            base: f64::INFINITY,
        }
    }
}

impl FluidLaw for FastFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {
        self.base = f64::INFINITY;
    }
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        self.base = self.base.min(rtt);
        let per_rtt = self.p.update(w, self.base, rtt) - w;
        // Never below 2 segments, as the per-ACK form.
        (w + per_rtt * dt / rtt).max(w.min(2.0))
    }
    fn on_loss(&mut self, w: f64, _t: f64) -> f64 {
        w / 2.0
    }
    #[inline]
    fn observe_rtt(&mut self, rtt: f64) {
        self.base = self.base.min(rtt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::cc::CongestionKind;
    use crate::units::Time;

    /// A single bottleneck of `c` packets/s with propagation RTT `base`: the queue is
    /// what the window holds beyond the pipe, and it adds q/c to the RTT.
    fn rtt_model(w: f64, c: f64, base: f64) -> f64 {
        let q = (w - c * base).max(0.0);
        base + q / c
    }

    #[test]
    fn equilibrium_queue_is_alpha() {
        for (alpha, c, base) in [(200.0, 10_000.0, 0.1), (50.0, 83_333.0, 0.05)] {
            let p = FastConfig { alpha, gamma: 0.5 };
            let mut f = Fast::new(p);
            let mut st = state(10.0, 1e9);
            let base_t = Time::from_secs_f64(base);
            for _ in 0..200 {
                let rtt = Time::from_secs_f64(rtt_model(st.cwnd, c, base));
                f.on_round(&mut st, &round(Time::ZERO, rtt, base_t));
            }
            let q = st.cwnd - c * base;
            assert!(
                (q - alpha).abs() < 0.01 * alpha,
                "queue {q} vs alpha {alpha}"
            );
            // The rate form has the same rest point.
            let mut l = FastFluid::new(p);
            let (mut w, dt) = (10.0, base / 100.0);
            for _ in 0..20_000 {
                let r = rtt_model(w, c, base);
                l.observe_rtt(r);
                w = l.grow(w, 0.0, r, dt);
            }
            let q = w - c * base;
            assert!(
                (q - alpha).abs() < 0.01 * alpha,
                "fluid queue {q} vs {alpha}"
            );
        }
    }

    #[test]
    fn update_law() {
        let p = FastConfig::default();
        // No queue: (1 − γ)w + γ(w + α) = w + γα, capped at 2w.
        assert!((p.update(1000.0, 0.1, 0.1) - 1100.0).abs() < 1e-9);
        assert!((p.update(10.0, 0.1, 0.1) - 20.0).abs() < 1e-9);
        // RTT twice the base: 0.5·1000 + 0.5·(500 + 200) = 850.
        assert!((p.update(1000.0, 0.1, 0.2) - 850.0).abs() < 1e-9);
        let mut f = Fast::new(p);
        let st = state(1000.0, 1000.0);
        let s = f.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 1000));
        assert_eq!(s, 500.0);
    }
}
