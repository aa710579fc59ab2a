//! TCP-Illinois (Liu, Başar, Srikant, "TCP-Illinois: A loss- and delay-based congestion
//! control algorithm for high-speed networks", Performance Evaluation 2008), with the
//! Linux `tcp_illinois.c` defaults: AIMD whose α and β are functions of the average
//! queueing delay d_a relative to the largest seen, d_m.

use super::{
    ecn_reduce, slow_start, AckInfo, CcState, CongestionControl, CongestionInfo, CongestionKind,
    Params, RecoveryFlag, RoundInfo,
};
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub struct IllinoisParams {
    pub alpha_min: f64,
    pub alpha_max: f64,
    pub beta_min: f64,
    pub beta_max: f64,
    /// Below this window Illinois is Reno (α = 1, β = 1/2). Linux: 15.
    pub win_thresh: f64,
    /// Rounds of low delay before α returns to α_max. Linux: 5.
    pub theta: u32,
}

impl Default for IllinoisParams {
    fn default() -> Self {
        // Paper §III / Linux: α ∈ [0.3, 10], β ∈ [1/8, 1/2].
        IllinoisParams {
            alpha_min: 0.3,
            alpha_max: 10.0,
            beta_min: 0.125,
            beta_max: 0.5,
            win_thresh: 15.0,
            theta: 5,
        }
    }
}

impl IllinoisParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = IllinoisParams::default();
        let ip = IllinoisParams {
            alpha_min: p.pos("alpha_min", d.alpha_min, 1e6)?,
            alpha_max: p.pos("alpha_max", d.alpha_max, 1e6)?,
            beta_min: p.num("beta_min", d.beta_min, 0.0, 0.999)?,
            beta_max: p.num("beta_max", d.beta_max, 0.0, 0.999)?,
            win_thresh: p.num("win_thresh", d.win_thresh, 0.0, 1e12)?,
            theta: p.num("theta", d.theta as f64, 0.0, 1e6)? as u32,
        };
        if ip.alpha_max < ip.alpha_min {
            return Err(format!(
                "alpha_max: must be at least alpha_min ({}), got {}",
                ip.alpha_min, ip.alpha_max
            ));
        }
        if ip.beta_max < ip.beta_min {
            return Err(format!(
                "beta_max: must be at least beta_min ({}), got {}",
                ip.beta_min, ip.beta_max
            ));
        }
        Ok(ip)
    }

    /// Paper eq. (4): α = α_max for d_a ≤ d_1, else κ1/(κ2 + d_a) with
    /// κ1 = (d_m − d_1)·α_min·α_max/(α_max − α_min) and
    /// κ2 = (d_m − d_1)·α_min/(α_max − α_min) − d_1, so α(d_1) = α_max, α(d_m) = α_min.
    /// d_1 = d_m/100 (Linux; the paper leaves d_1 small, "0.01 d_m").
    pub fn alpha_of(&self, da: f64, dm: f64) -> f64 {
        let d1 = dm / 100.0;
        if da <= d1 {
            return self.alpha_max;
        }
        let span = self.alpha_max - self.alpha_min;
        if span <= 0.0 {
            return self.alpha_min;
        }
        let k1 = (dm - d1) * self.alpha_min * self.alpha_max / span;
        let k2 = (dm - d1) * self.alpha_min / span - d1;
        (k1 / (k2 + da)).clamp(self.alpha_min, self.alpha_max)
    }

    /// Paper eq. (5): β = β_min for d_a ≤ d_2, β_max for d_a ≥ d_3, linear between
    /// (β = κ3 + κ4·d_a); d_2 = d_m/10, d_3 = 8·d_m/10.
    pub fn beta_of(&self, da: f64, dm: f64) -> f64 {
        let d2 = dm / 10.0;
        let d3 = 0.8 * dm;
        if da <= d2 {
            self.beta_min
        } else if da >= d3 {
            self.beta_max
        } else {
            let k3 = (self.beta_min * d3 - self.beta_max * d2) / (d3 - d2);
            let k4 = (self.beta_max - self.beta_min) / (d3 - d2);
            k3 + k4 * da
        }
    }
}

pub struct Illinois {
    pub p: IllinoisParams,
    pub alpha: f64,
    pub beta: f64,
    /// Largest RTT sample seen (never aged, as Linux), for d_m = max − base.
    pub max_rtt: Time,
    /// Whether d_a has left the low-delay zone since α was last α_max, and the low
    /// rounds counted since (Linux `rtt_above`, `rtt_low`).
    rtt_above: bool,
    rtt_low: u32,
    recovery: RecoveryFlag,
}

impl Illinois {
    pub fn new(p: IllinoisParams) -> Self {
        Illinois {
            p,
            alpha: 1.0,
            beta: 0.5,
            max_rtt: Time::ZERO,
            rtt_above: false,
            rtt_low: 0,
            recovery: RecoveryFlag::default(),
        }
    }

    /// Once-per-RTT choice of α and β from the round's average delay.
    pub fn update(&mut self, cwnd: f64, da: f64, dm: f64) {
        if cwnd < self.p.win_thresh {
            self.alpha = 1.0;
            self.beta = 0.5;
            return;
        }
        self.alpha = if da <= dm / 100.0 {
            // Linux: α jumps back to α_max only after θ rounds of low delay, so one
            // lucky RTT does not cause a burst of increase.
            if !self.rtt_above {
                self.p.alpha_max
            } else {
                self.rtt_low += 1;
                if self.rtt_low < self.p.theta {
                    self.alpha
                } else {
                    self.rtt_low = 0;
                    self.rtt_above = false;
                    self.p.alpha_max
                }
            }
        } else {
            self.rtt_above = true;
            self.p.alpha_of(da, dm)
        };
        self.beta = self.p.beta_of(da, dm);
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        self.recovery.clear();
        if let Some(r) = ack.rtt {
            self.max_rtt = self.max_rtt.max(r);
        }
        let mut acked = ack.acked as f64;
        if st.in_slow_start() {
            acked = slow_start(st, ack.acked);
        }
        if acked > 0.0 {
            // Paper eq. (1): cwnd ← cwnd + α/cwnd per ACK.
            st.cwnd += acked * self.alpha / st.cwnd;
        }
    }
    fn on_round(&mut self, st: &mut CcState, r: &RoundInfo) {
        if self.recovery.get() {
            return;
        }
        let Some(mean) = r.mean_rtt_round else {
            return;
        };
        // d_a: average queueing delay over the round; d_m: the largest seen.
        let base = r.base_rtt.as_secs_f64();
        let da = (mean.as_secs_f64() - base).max(0.0);
        let dm = (self.max_rtt.max(mean).as_secs_f64() - base).max(0.0);
        self.update(st.cwnd, da, dm);
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        // Paper eq. (1): cwnd ← (1 − β)·cwnd.
        st.ssthresh = (st.cwnd * (1.0 - self.beta)).max(2.0);
        if ev.kind == CongestionKind::Timeout {
            // Linux: entering loss state resets α, β to Reno's.
            self.alpha = 1.0;
            self.beta = 0.5;
            self.rtt_above = false;
            self.rtt_low = 0;
        }
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

    #[test]
    fn alpha_and_beta_at_thresholds() {
        let p = IllinoisParams::default();
        let dm = 0.1;
        // α_max at and below d_1 = d_m/100; α_min at d_m; decreasing between.
        assert_eq!(p.alpha_of(0.0, dm), 10.0);
        assert_eq!(p.alpha_of(0.001, dm), 10.0);
        assert!((p.alpha_of(0.001 + 1e-12, dm) - 10.0).abs() < 1e-6);
        assert!((p.alpha_of(dm, dm) - 0.3).abs() < 1e-12);
        let mid = p.alpha_of(0.05, dm);
        assert!(mid > 0.3 && mid < 10.0);
        // κ1/(κ2 + d_a) is hyperbolic: at d_a = d_m/2 it is below the arithmetic mean.
        assert!(mid < (10.0 + 0.3) / 2.0);
        // β_min at and below d_2 = d_m/10; β_max at and above d_3 = 0.8 d_m; linear.
        assert_eq!(p.beta_of(0.005, dm), 0.125);
        assert!((p.beta_of(0.01, dm) - 0.125).abs() < 1e-12);
        assert!((p.beta_of(0.08, dm) - 0.5).abs() < 1e-12);
        assert_eq!(p.beta_of(0.09, dm), 0.5);
        assert_eq!(p.beta_of(0.1, dm), 0.5);
        assert!((p.beta_of(0.045, dm) - (0.125 + 0.5) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn rounds_set_alpha_beta_and_theta_delays_alpha_max() {
        let mut il = Illinois::new(IllinoisParams::default());
        let mut st = state(100.0, 50.0);
        let base = Time::from_millis(100);
        // A 200 ms sample makes d_m = 100 ms.
        il.on_ack(
            &mut st,
            &ack_at(Time::ZERO, 1, Some(Time::from_millis(200)), base),
        );
        il.on_round(&mut st, &round(Time::ZERO, Time::from_millis(190), base));
        assert!((il.beta - 0.5).abs() < 1e-12);
        assert!(il.alpha < 0.35);
        il.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 100),
        );
        assert!((st.ssthresh - st.cwnd * 0.5).abs() < 1e-9);
        il.on_recovery_exit(&mut st, Time::ZERO);
        // Delay back to zero: α stays for θ − 1 rounds, then α_max.
        let a = il.alpha;
        for _ in 0..4 {
            il.on_round(&mut st, &round(Time::ZERO, base, base));
            assert_eq!(il.alpha, a);
            assert_eq!(il.beta, 0.125);
        }
        il.on_round(&mut st, &round(Time::ZERO, base, base));
        assert_eq!(il.alpha, 10.0);
        // α per RTT: one window of ACKs adds ≈ α.
        let w = st.cwnd;
        il.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, base));
        assert!((st.cwnd - w - 10.0 / w).abs() < 1e-9);
        // Small windows are Reno.
        il.update(10.0, 0.05, 0.1);
        assert_eq!((il.alpha, il.beta), (1.0, 0.5));
    }
}
