//! Compound TCP (Tan, Song, Zhang, Sridharan, "A Compound TCP Approach for High-speed
//! and Long Distance Networks", INFOCOM 2006; draft-sridharan-tcpm-ctcp-02): the send
//! window is win = cwnd + dwnd, a Reno loss-based part plus a delay-based part that
//! grows binomially while the queue is short and retreats as it builds.
//!
//! `CcState.cwnd` is the total window (the sender sends by it); the Reno part is
//! `st.cwnd − dwnd`, recovered on each event because the sender rewrites `st.cwnd`.

use super::{
    slow_start, AckInfo, CcState, CongestionControl, CongestionInfo, CongestionKind, Params,
    RecoveryFlag, RoundInfo,
};
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub struct CtcpParams {
    /// Binomial increase α·win^k of the delay part (draft §3: α = 1/8, k = 0.75).
    pub alpha: f64,
    pub k: f64,
    /// Multiplicative decrease of the total window on loss (draft §3: β = 1/2).
    pub beta: f64,
    /// Queue (segments) above which dwnd retreats (draft §3: γ = 30).
    pub gamma: f64,
    /// Retreat rate of dwnd per segment of queue (paper: ζ = 1).
    pub zeta: f64,
    /// The delay part acts only once the window reaches this (draft §4: 38 segments,
    /// where HSTCP also departs from Reno).
    pub low_window: f64,
}

impl Default for CtcpParams {
    fn default() -> Self {
        CtcpParams {
            alpha: 0.125,
            k: 0.75,
            beta: 0.5,
            gamma: 30.0,
            zeta: 1.0,
            low_window: 38.0,
        }
    }
}

impl CtcpParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = CtcpParams::default();
        Ok(CtcpParams {
            alpha: p.num("alpha", d.alpha, 0.0, 1e6)?,
            k: p.num("k", d.k, 0.0, 1.0)?,
            beta: p.pos("beta", d.beta, 0.999)?,
            gamma: p.num("gamma", d.gamma, 0.0, 1e9)?,
            zeta: p.num("zeta", d.zeta, 0.0, 1e6)?,
            low_window: p.num("low_window", d.low_window, 0.0, 1e12)?,
        })
    }

    /// Draft §3 eq. (3), once per RTT: with win = cwnd + dwnd and
    /// diff = win·(1 − baseRTT/RTT),
    ///   dwnd + max(α·win^k − 1, 0)   if diff < γ,
    ///   max(dwnd − ζ·diff, 0)         if diff ≥ γ.
    /// (The −1 offsets the Reno part's own one segment per RTT, so win grows by α·win^k.)
    pub fn dwnd_round(&self, cwnd: f64, dwnd: f64, diff: f64) -> f64 {
        let win = cwnd + dwnd;
        if diff < self.gamma {
            dwnd + (self.alpha * win.powf(self.k) - 1.0).max(0.0)
        } else {
            (dwnd - self.zeta * diff).max(0.0)
        }
    }

    /// Draft §3 eq. (3), on loss: dwnd = max(win·(1 − β) − cwnd/2, 0), so the total
    /// window becomes win·(1 − β) while the Reno part halves.
    pub fn dwnd_loss(&self, cwnd: f64, dwnd: f64) -> f64 {
        ((cwnd + dwnd) * (1.0 - self.beta) - cwnd / 2.0).max(0.0)
    }
}

pub struct Compound {
    pub p: CtcpParams,
    pub dwnd: f64,
    recovery: RecoveryFlag,
}

impl Compound {
    pub fn new(p: CtcpParams) -> Self {
        Compound {
            p,
            dwnd: 0.0,
            recovery: RecoveryFlag::default(),
        }
    }

    /// The Reno part of the total window the sender holds.
    fn reno_part(&self, st: &CcState) -> f64 {
        (st.cwnd - self.dwnd).max(1.0)
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        self.recovery.clear();
        if st.in_slow_start() {
            // Draft §3: dwnd is zero during slow start; the Reno part slow-starts.
            self.dwnd = 0.0;
            let left = slow_start(st, ack.acked);
            if left > 0.0 {
                st.cwnd += left / st.cwnd;
            }
            return;
        }
        let mut cwnd = self.reno_part(st);
        // Draft §3: cwnd = cwnd + 1/win per ACK (per acked segment), win = cwnd + dwnd.
        cwnd += ack.acked as f64 / (cwnd + self.dwnd);
        st.cwnd = cwnd + self.dwnd;
    }
    fn on_round(&mut self, st: &mut CcState, r: &RoundInfo) {
        if self.recovery.get() || st.in_slow_start() {
            return;
        }
        let cwnd = self.reno_part(st);
        if cwnd + self.dwnd < self.p.low_window {
            return;
        }
        // RTT of the round: its mean sample (the draft's "current RTT" estimate).
        let (Some(rtt), base) = (r.mean_rtt_round, r.base_rtt) else {
            return;
        };
        if rtt == Time::ZERO || base == Time::ZERO {
            return;
        }
        let win = cwnd + self.dwnd;
        // Draft §3: Expected = win/baseRTT, Actual = win/RTT,
        // diff = (Expected − Actual)·baseRTT.
        let diff = win * (1.0 - base.as_secs_f64() / rtt.as_secs_f64());
        self.dwnd = self.p.dwnd_round(cwnd, self.dwnd, diff);
        st.cwnd = cwnd + self.dwnd;
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        let cwnd = self.reno_part(st);
        match ev.kind {
            CongestionKind::Timeout => {
                // After a timeout the delay part starts over (it is zero in slow start);
                // the Reno part halves from the total window.
                self.dwnd = 0.0;
                st.ssthresh = (st.cwnd * (1.0 - self.p.beta)).max(2.0);
            }
            _ => {
                self.dwnd = self.p.dwnd_loss(cwnd, self.dwnd);
                // The sender resumes with cwnd = ssthresh after recovery: the total.
                st.ssthresh = (cwnd / 2.0 + self.dwnd).max(2.0);
                if ev.kind == CongestionKind::Ecn {
                    st.cwnd = st.ssthresh;
                }
            }
        }
        self.recovery.on_congestion(ev.kind);
    }
    fn on_recovery_exit(&mut self, _st: &mut CcState, _now: Time) {
        self.recovery.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;

    #[test]
    fn dwnd_rule() {
        let p = CtcpParams::default();
        // diff < γ: dwnd += α·win^k − 1; win = 100 + 156 = 256, 256^0.75 = 64 → +7.
        assert!((p.dwnd_round(100.0, 156.0, 10.0) - 163.0).abs() < 1e-9);
        // Small windows: α·win^k < 1 adds nothing.
        assert_eq!(p.dwnd_round(10.0, 0.0, 0.0), 0.0);
        // diff ≥ γ: dwnd −= ζ·diff, floored at 0.
        assert!((p.dwnd_round(100.0, 156.0, 40.0) - 116.0).abs() < 1e-9);
        assert_eq!(p.dwnd_round(100.0, 20.0, 40.0), 0.0);
        // Loss: dwnd = win·(1 − β) − cwnd/2 = 128 − 50 = 78; total 128 = win/2.
        assert!((p.dwnd_loss(100.0, 156.0) - 78.0).abs() < 1e-9);
        assert_eq!(p.dwnd_loss(100.0, 0.0), 0.0);
    }

    #[test]
    fn total_window_through_the_trait() {
        let mut c = Compound::new(CtcpParams::default());
        let mut st = state(100.0, 50.0);
        let base = Time::from_millis(100);
        // No queue (RTT = base): dwnd grows by α·win^k − 1 and st.cwnd is the total.
        c.on_round(&mut st, &round(Time::ZERO, base, base));
        let inc = 0.125 * 100f64.powf(0.75) - 1.0;
        assert!((c.dwnd - inc).abs() < 1e-9);
        assert!((st.cwnd - (100.0 + inc)).abs() < 1e-9);
        // A per-ACK increase goes to the Reno part: 1/win.
        let w = st.cwnd;
        c.on_ack(&mut st, &ack_at(Time::ZERO, 1, Some(base), base));
        assert!((st.cwnd - w - 1.0 / w).abs() < 1e-9);
        // A long queue (RTT = 2·base): diff = win/2 ≥ γ, dwnd shrinks to 0.
        c.on_round(&mut st, &round(Time::ZERO, Time::from_millis(200), base));
        assert_eq!(c.dwnd, 0.0);
        // Loss with dwnd > 0: the total becomes (1 − β)·win.
        c.dwnd = 100.0;
        st.cwnd = 300.0;
        c.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 300),
        );
        assert!((c.dwnd - 50.0).abs() < 1e-9);
        assert!((st.ssthresh - 150.0).abs() < 1e-9);
        // The sender's recovery then sets cwnd = ssthresh; the Reno part is 100.
        st.cwnd = st.ssthresh;
        c.on_recovery_exit(&mut st, Time::ZERO);
        assert!((c.reno_part(&st) - 100.0).abs() < 1e-9);
        // Inside recovery, rounds leave the windows alone.
        c.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 150),
        );
        let (w, d) = (st.cwnd, c.dwnd);
        c.on_round(&mut st, &round(Time::ZERO, base, base));
        assert_eq!((st.cwnd, c.dwnd), (w, d));
    }
}
