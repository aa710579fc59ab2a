//! FAST TCP (Jin, Wei, Low, "FAST TCP: Motivation, Architecture, Algorithms,
//! Performance", INFOCOM 2004; Wei, Jin, Low, Hegde, IEEE/ACM ToN 2006): a delay-based
//! window law whose equilibrium keeps α packets of this flow queued:
//!   w ← min{2w, (1 − γ)·w + γ·(baseRTT/RTT·w + α)}      (paper eq. (6)).

use super::{
    ecn_reduce, AckInfo, CcState, CongestionControl, CongestionInfo, Params, RecoveryFlag,
    RoundInfo,
};
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub struct FastParams {
    /// Packets each flow keeps queued in equilibrium. The paper's experiments use
    /// α = 200 packets (INFOCOM 2004 §5); ns-2 and small-BDP studies often use less.
    pub alpha: f64,
    /// Smoothing of the update, γ ∈ (0, 1] (paper: γ = 0.5).
    pub gamma: f64,
}

impl Default for FastParams {
    fn default() -> Self {
        FastParams {
            alpha: 200.0,
            gamma: 0.5,
        }
    }
}

impl FastParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = FastParams::default();
        Ok(FastParams {
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

pub struct Fast {
    pub p: FastParams,
    recovery: RecoveryFlag,
}

impl Fast {
    pub fn new(p: FastParams) -> Self {
        Fast {
            p,
            recovery: RecoveryFlag::default(),
        }
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }
    fn on_ack(&mut self, _st: &mut CcState, _ack: &AckInfo) {
        // FAST changes the window once per RTT only; its min{2w, ·} bound replaces slow
        // start (at most doubling per RTT while the queue is short).
        self.recovery.clear();
    }
    fn on_round(&mut self, st: &mut CcState, r: &RoundInfo) {
        if self.recovery.get() {
            return;
        }
        // RTT: the round's mean sample (the paper averages per-ACK samples; a round
        // mean is that average over one window). Without a sample, the smoothed RTT.
        let rtt = r
            .mean_rtt_round
            .unwrap_or(r.srtt)
            .max(r.base_rtt)
            .as_secs_f64();
        let base = r.base_rtt.as_secs_f64();
        if rtt <= 0.0 || base <= 0.0 {
            return;
        }
        st.cwnd = self.p.update(st.cwnd, base, rtt).max(2.0);
        // Keep ssthresh at the window so that the sender and tools see congestion
        // avoidance: FAST has no separate slow-start phase.
        st.ssthresh = st.cwnd;
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        // On loss FAST halves as Reno (paper §4: loss recovery is Reno/NewReno's).
        st.ssthresh = (st.cwnd / 2.0).max(2.0);
        self.recovery.on_congestion(ev.kind);
        ecn_reduce(st, ev.kind);
    }
    fn on_recovery_exit(&mut self, _st: &mut CcState, _now: Time) {
        self.recovery.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::cc::CongestionKind;

    /// A single bottleneck of `c` packets/s with propagation RTT `base`: the queue is
    /// what the window holds beyond the pipe, and it adds q/c to the RTT.
    fn rtt_model(w: f64, c: f64, base: f64) -> f64 {
        let q = (w - c * base).max(0.0);
        base + q / c
    }

    #[test]
    fn equilibrium_queue_is_alpha() {
        for (alpha, c, base) in [(200.0, 10_000.0, 0.1), (50.0, 83_333.0, 0.05)] {
            let mut f = Fast::new(FastParams { alpha, gamma: 0.5 });
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
        }
    }

    #[test]
    fn update_law() {
        let p = FastParams::default();
        // No queue: (1 − γ)w + γ(w + α) = w + γα, capped at 2w.
        assert!((p.update(1000.0, 0.1, 0.1) - 1100.0).abs() < 1e-9);
        assert!((p.update(10.0, 0.1, 0.1) - 20.0).abs() < 1e-9);
        // RTT twice the base: 0.5·1000 + 0.5·(500 + 200) = 850.
        assert!((p.update(1000.0, 0.1, 0.2) - 850.0).abs() < 1e-9);
        let mut f = Fast::new(p);
        let mut st = state(1000.0, 1000.0);
        f.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 1000),
        );
        assert_eq!(st.ssthresh, 500.0);
    }
}
