//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 1995): once per RTT compare the expected and the actual
//! rate; keep between α and β segments queued in the network.

use super::{
    ecn_reduce, slow_start, AckInfo, CcState, CongestionControl, CongestionInfo, Params,
    RecoveryFlag, RoundInfo,
};
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub struct VegasParams {
    /// Lower and upper bounds on the segments kept queued (paper §3.2: α = 1, β = 3 in
    /// the original experiments; Linux and ns-2 use α = 2, β = 4).
    pub alpha: f64,
    pub beta: f64,
    /// Slow-start exit threshold (paper §3.3: γ = 1).
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
        }
    }
}

impl VegasParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = VegasParams::default();
        let vp = VegasParams {
            alpha: p.num("alpha", d.alpha, 0.0, 1e9)?,
            beta: p.num("beta", d.beta, 0.0, 1e9)?,
            gamma: p.num("gamma", d.gamma, 0.0, 1e9)?,
        };
        if vp.beta < vp.alpha {
            return Err(format!(
                "beta: must be at least alpha ({}), got {}",
                vp.alpha, vp.beta
            ));
        }
        Ok(vp)
    }

    /// Paper §3.2: Diff = (Expected − Actual)·BaseRTT = cwnd·(1 − BaseRTT/RTT), the
    /// segments this flow keeps in queues.
    pub fn diff(cwnd: f64, base_rtt: f64, rtt: f64) -> f64 {
        cwnd * (1.0 - base_rtt / rtt)
    }
}

pub struct Vegas {
    pub p: VegasParams,
    recovery: RecoveryFlag,
}

impl Vegas {
    pub fn new(p: VegasParams) -> Self {
        Vegas {
            p,
            recovery: RecoveryFlag::default(),
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        self.recovery.clear();
        // Vegas grows exponentially in slow start (per ACK, as Reno) and changes the
        // window in congestion avoidance only once per RTT (on_round).
        if st.in_slow_start() {
            slow_start(st, ack.acked);
        }
    }
    fn on_round(&mut self, st: &mut CcState, r: &RoundInfo) {
        if self.recovery.get() {
            return;
        }
        // The RTT of the round is its minimum sample (as Linux tcp_vegas.c), the one
        // least inflated by delayed ACKs; BaseRTT the minimum ever seen.
        let (Some(rtt), base) = (r.min_rtt_round, r.base_rtt) else {
            // No sample this round: fall back to Reno's one segment per RTT.
            if !st.in_slow_start() {
                st.cwnd += 1.0;
            }
            return;
        };
        if rtt == Time::ZERO || base == Time::ZERO {
            return;
        }
        let diff = VegasParams::diff(st.cwnd, base.as_secs_f64(), rtt.as_secs_f64());
        if st.in_slow_start() {
            // §3.3: leave slow start when the queue exceeds γ, with the window cut to
            // the rate that fits (Expected rate·BaseRTT + 1, as Linux).
            if diff > self.p.gamma {
                let target = st.cwnd * base.as_secs_f64() / rtt.as_secs_f64();
                st.cwnd = st.cwnd.min(target + 1.0).max(2.0);
                st.ssthresh = (st.cwnd - 1.0).max(2.0);
            }
            return;
        }
        // §3.2: below α grow by one segment, above β shrink by one, else hold.
        if diff < self.p.alpha {
            st.cwnd += 1.0;
        } else if diff > self.p.beta {
            st.cwnd = (st.cwnd - 1.0).max(2.0);
            st.ssthresh = st.ssthresh.min((st.cwnd - 1.0).max(2.0));
        }
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        // On loss Vegas falls back to Reno's halving.
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

    fn step(v: &mut Vegas, cwnd: f64, rtt_ms: u64) -> f64 {
        let mut st = state(cwnd, 1.0);
        let r = round(
            Time::ZERO,
            Time::from_millis(rtt_ms),
            Time::from_millis(100),
        );
        v.on_round(&mut st, &r);
        st.cwnd
    }

    #[test]
    fn diff_rule() {
        let mut v = Vegas::new(VegasParams::default());
        // cwnd 100, base 100 ms: RTT 101 ms queues ≈ 0.99 < α → +1.
        assert_eq!(step(&mut v, 100.0, 101), 101.0);
        // RTT 103 ms: diff ≈ 2.91, between α and β → hold.
        assert_eq!(step(&mut v, 100.0, 103), 100.0);
        // RTT 110 ms: diff ≈ 9.1 > β → −1.
        assert_eq!(step(&mut v, 100.0, 110), 99.0);
        assert!((VegasParams::diff(100.0, 0.1, 0.11) - 100.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn slow_start_exit_on_gamma_and_halving_on_loss() {
        let mut v = Vegas::new(VegasParams::default());
        let mut st = state(50.0, 1e9);
        // diff = 50·(1 − 100/110) ≈ 4.5 > γ: leave slow start at Expected·BaseRTT + 1.
        let r = round(Time::ZERO, Time::from_millis(110), Time::from_millis(100));
        v.on_round(&mut st, &r);
        assert!((st.cwnd - (50.0 * 100.0 / 110.0 + 1.0)).abs() < 1e-9);
        assert!(!st.in_slow_start());
        // In recovery the round does nothing.
        v.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 0),
        );
        assert!((st.ssthresh - st.cwnd / 2.0).abs() < 1e-9);
        let w = st.cwnd;
        v.on_round(
            &mut st,
            &round(Time::ZERO, Time::from_millis(100), Time::from_millis(100)),
        );
        assert_eq!(st.cwnd, w);
    }
}
