//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 1995): once per RTT compare the expected and the actual
//! rate; keep between α and β segments queued in the network.
//!
//! Both forms use `VegasConfig::diff` and `VegasConfig::per_rtt`: once per RTT the
//! window moves by +1, 0 or −1 segment; as a rate that is ±1/R, the Vegas model of
//! Low, Peterson & Wang ("Understanding Vegas: a duality model", J. ACM 2002, §2:
//! w(t + 1) = w(t) ± 1/D(t) per unit time). The rate form takes the current RTT from
//! the fluid engine (propagation plus queueing) and BaseRTT as the least it has seen.
//! Not in the rate form: Vegas's own slow-start exit at γ (the fluid engine's slow
//! start is the same for every law) and the Reno round of the per-ACK form when a
//! round had no sample.
//!
//! Forms (`form`, by the TCP profile; docs/algorithms.md): `"paper"` (ns2, ns3:
//! ns-3's TcpVegas computes the same) measures diff against the round's RTT,
//! cwnd·(RTT − BaseRTT)/RTT; `"linux"` (`tcp_vegas.c`, `tcp_vegas_cong_avoid`) divides
//! by BaseRTT, cwnd·(RTT − BaseRTT)/BaseRTT, which is larger by RTT/BaseRTT, so Linux
//! holds fewer segments queued for the same α and β.

use super::contract::{Ack, Algorithm, Congestion, CongestionControl, FluidLaw, Round, Window};
use super::params::Params;
use super::profile::Profile;
use crate::units::Time;

/// Vegas's thresholds, in segments queued.
#[derive(Clone, Copy, Debug)]
pub struct VegasConfig {
    /// Lower and upper bounds on the segments kept queued (paper §3.2: α = 1, β = 3 in
    /// the original experiments, as ns-2's ns-default.tcl `v_alpha_ 1`, `v_beta_ 3`;
    /// Linux uses α = 2, β = 4, ccsim's default under every profile).
    pub alpha: f64,
    pub beta: f64,
    /// Slow-start exit threshold (paper §3.3: γ = 1).
    pub gamma: f64,
    /// Linux's diff (see the module doc).
    pub linux: bool,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
            linux: false,
        }
    }
}

impl VegasConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = VegasConfig::default();
        let vp = VegasConfig {
            alpha: p.num("alpha", d.alpha, 0.0, 1e9)?,
            beta: p.num("beta", d.beta, 0.0, 1e9)?,
            gamma: p.num("gamma", d.gamma, 0.0, 1e9)?,
            linux: p.choice(
                "form",
                &["paper", "linux"],
                if p.profile() == Profile::Linux {
                    "linux"
                } else {
                    "paper"
                },
            )? == "linux",
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

    /// Linux `tcp_vegas_cong_avoid`: diff = cwnd·(rtt − baseRTT)/baseRTT.
    pub fn diff_linux(cwnd: f64, base_rtt: f64, rtt: f64) -> f64 {
        cwnd * (rtt - base_rtt) / base_rtt
    }

    /// The diff of this configuration's form.
    pub fn diff_of(&self, cwnd: f64, base_rtt: f64, rtt: f64) -> f64 {
        if self.linux {
            Self::diff_linux(cwnd, base_rtt, rtt)
        } else {
            Self::diff(cwnd, base_rtt, rtt)
        }
    }

    /// Paper §3.2: the window change per RTT — below α grow by one segment, above β
    /// shrink by one, else hold.
    pub fn per_rtt(&self, diff: f64) -> f64 {
        if diff < self.alpha {
            1.0
        } else if diff > self.beta {
            -1.0
        } else {
            0.0
        }
    }
}

/// The per-ACK form.
pub struct Vegas {
    pub p: VegasConfig,
}

impl Vegas {
    pub fn new(p: VegasConfig) -> Self {
        Vegas { p }
    }
}

impl Algorithm for Vegas {
    const NAMES: &'static [&'static str] = &["vegas"];
    type Config = VegasConfig;
    type Fluid = VegasFluid;
    fn config(p: &mut Params) -> Result<VegasConfig, String> {
        VegasConfig::from_params(p)
    }
    fn packet(cfg: &VegasConfig) -> Box<dyn CongestionControl> {
        Box::new(Vegas::new(*cfg))
    }
    fn fluid(cfg: &VegasConfig) -> Option<VegasFluid> {
        Some(VegasFluid::new(*cfg))
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        // Vegas grows exponentially in slow start (per ACK, as Reno) and changes the
        // window in congestion avoidance only once per RTT (on_round).
        w.slow_start(ack.acked);
    }
    fn on_round(&mut self, w: &mut Window, r: &Round) {
        if r.in_recovery() {
            return;
        }
        // The RTT of the round is its minimum sample (as Linux tcp_vegas.c), the one
        // least inflated by delayed ACKs; BaseRTT the minimum ever seen.
        let (Some(rtt), base) = (r.min_rtt, r.rtt.min) else {
            // No sample this round: fall back to Reno's one segment per RTT.
            if !w.in_slow_start() {
                w.cwnd += 1.0;
            }
            return;
        };
        if rtt == Time::ZERO || base == Time::ZERO {
            return;
        }
        let diff = self
            .p
            .diff_of(w.cwnd, base.as_secs_f64(), rtt.as_secs_f64());
        if w.in_slow_start() {
            // §3.3: leave slow start when the queue exceeds γ, with the window cut to
            // the rate that fits (Expected rate·BaseRTT + 1, as Linux).
            if diff > self.p.gamma {
                let target = w.cwnd * base.as_secs_f64() / rtt.as_secs_f64();
                w.cwnd = w.cwnd.min(target + 1.0).max(2.0);
                w.ssthresh = (w.cwnd - 1.0).max(2.0);
            }
            return;
        }
        let step = self.p.per_rtt(diff);
        if step > 0.0 {
            w.cwnd += step;
        } else if step < 0.0 {
            // Shrinking keeps the sender out of slow start.
            w.cwnd = (w.cwnd + step).max(2.0);
            w.ssthresh = w.ssthresh.min((w.cwnd - 1.0).max(2.0));
        }
    }
    fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
        // On loss Vegas falls back to Reno's halving.
        (w.cwnd / 2.0).max(2.0)
    }
}

/// The rate form: BaseRTT, the least RTT seen.
#[derive(Clone, Copy, Debug)]
pub struct VegasFluid {
    pub p: VegasConfig,
    base: f64,
}

impl VegasFluid {
    pub fn new(p: VegasConfig) -> Self {
        VegasFluid {
            p,
            base: f64::INFINITY,
        }
    }
}

impl FluidLaw for VegasFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {
        self.base = f64::INFINITY;
    }
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        self.base = self.base.min(rtt);
        let diff = self.p.diff_of(w, self.base, rtt);
        // ±1 segment per RTT, never shrinking below 2 (as the per-ACK form).
        (w + self.p.per_rtt(diff) * dt / rtt).max(w.min(2.0))
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
    use crate::cc::{CaState, CongestionKind};

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

    /// Linux tcp_vegas_cong_avoid: diff = cwnd·(RTT − BaseRTT)/BaseRTT; the paper (and
    /// ns-2, ns-3) cwnd·(RTT − BaseRTT)/RTT. At cwnd 100, BaseRTT 100 ms, RTT 104.1 ms
    /// the paper's diff is 3.94 (hold, ≤ β = 4), Linux's 4.1 (shrink by one).
    #[test]
    fn linux_diff_divides_by_base_rtt() {
        assert!((VegasConfig::diff_linux(100.0, 0.1, 0.11) - 10.0).abs() < 1e-9);
        assert!((VegasConfig::diff(100.0, 0.1, 0.11) - 100.0 / 11.0).abs() < 1e-9);
        for (linux, want) in [(false, 100.0), (true, 99.0)] {
            let mut v = Vegas::new(VegasConfig {
                linux,
                ..VegasConfig::default()
            });
            let mut st = state(100.0, 50.0);
            let r = round(
                Time::from_secs(1),
                Time::from_micros(104_100),
                Time::from_millis(100),
            );
            v.on_round(&mut st, &r);
            assert_eq!(st.cwnd, want, "linux {linux}");
        }
    }

    #[test]
    fn diff_rule() {
        let mut v = Vegas::new(VegasConfig::default());
        // cwnd 100, base 100 ms: RTT 101 ms queues ≈ 0.99 < α → +1.
        assert_eq!(step(&mut v, 100.0, 101), 101.0);
        // RTT 103 ms: diff ≈ 2.91, between α and β → hold.
        assert_eq!(step(&mut v, 100.0, 103), 100.0);
        // RTT 110 ms: diff ≈ 9.1 > β → −1.
        assert_eq!(step(&mut v, 100.0, 110), 99.0);
        assert!((VegasConfig::diff(100.0, 0.1, 0.11) - 100.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn slow_start_exit_on_gamma_and_halving_on_loss() {
        let mut v = Vegas::new(VegasConfig::default());
        let mut st = state(50.0, 1e9);
        // diff = 50·(1 − 100/110) ≈ 4.5 > γ: leave slow start at Expected·BaseRTT + 1.
        let r = round(Time::ZERO, Time::from_millis(110), Time::from_millis(100));
        v.on_round(&mut st, &r);
        assert!((st.cwnd - (50.0 * 100.0 / 110.0 + 1.0)).abs() < 1e-9);
        assert!(!st.in_slow_start());
        let s = v.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 0));
        assert!((s - st.cwnd / 2.0).abs() < 1e-9);
        // A round that closes inside fast recovery does nothing.
        let w = st.cwnd;
        let mut r = round(Time::ZERO, Time::from_millis(100), Time::from_millis(100));
        r.ca_state = CaState::Recovery;
        v.on_round(&mut st, &r);
        assert_eq!(st.cwnd, w);
        r.ca_state = CaState::Open;
        v.on_round(&mut st, &r);
        assert_eq!(st.cwnd, w + 1.0);
    }

    /// Rate form at a fixed RTT: with no queue it is Reno's +1 per RTT; with the RTT at
    /// 1.5·BaseRTT (diff = W/3) it shrinks 1 per RTT until W/3 ≤ β, i.e. W = 3β = 12,
    /// and holds there (the per-ACK form's fixed point too).
    #[test]
    fn fluid_moves_one_segment_per_rtt_toward_alpha_beta() {
        let mut l = VegasFluid::new(VegasConfig::default());
        l.observe_rtt(0.1);
        let (mut w, dt) = (50.0, 1e-3);
        for _ in 0..1000 {
            w = l.grow(w, 0.0, 0.1, dt);
        }
        assert!((w - 60.0).abs() < 1e-9, "{w}");
        for _ in 0..10_000 {
            w = l.grow(w, 0.0, 0.15, dt);
        }
        assert!((w - 12.0).abs() < 0.01, "{w}");
        let mut v = Vegas::new(VegasConfig::default());
        let mut st = state(60.0, 1.0);
        let mut now = Time::ZERO;
        for _ in 0..100 {
            one_rtt(
                &mut v,
                &mut st,
                &mut now,
                Time::from_millis(150),
                Time::from_millis(100),
            );
        }
        assert!((st.cwnd - 12.0).abs() <= 1.0, "{}", st.cwnd);
        assert_eq!(l.on_loss(12.0, 0.0), 6.0);
    }
}
