//! TCP Prague (draft-briscoe-iccrg-prague-congestion-control-04; the L4S team's Linux
//! `tcp_prague.c`, v0.6): DCTCP's scalable ECN response for the L4S service (RFC 9331),
//! made fit for the Internet.
//!
//! - ECN: ECT(1) on data (RFC 9331 §4.1), the per-packet echo (see [`EcnStyle::L4s`]);
//!   α is DCTCP's EWMA with g = 1/16 (cc/dctcp.rs), starting at 1 and frozen until the
//!   first CE arrives (Linux `saw_ce`).
//! - On ECN-Echo, at most once per round trip: cwnd ← cwnd·(1 − α/2) (Linux
//!   `prague_enter_cwr`).
//! - On a loss: Reno's halving (Linux `prague_enter_loss`, cwnd/2).
//! - Growth: slow start, then one segment per RTT, counted only over the segments that
//!   were not CE-marked (Linux `acked -= ece_delta`).
//! - Reduced RTT dependence (the draft's; Linux `RTT_CONTROL_RATE`, the default): after
//!   `rtt_transition` rounds of congestion avoidance, a flow whose SRTT R is below the
//!   target R_t = 25 ms adds (R/R_t)² segments per RTT instead of one, so its rate grows
//!   by 1/R_t² segments/s² whatever its RTT, as a flow at R_t would; it then updates α
//!   and reduces at most once per R_t.
//! - Pacing: Prague is always paced (Linux sets `SK_PACING_NEEDED`); a flow with no
//!   `tcp.pacing` gets the rate pacer at 200 % of cwnd/SRTT in slow start and 100 %
//!   after (net/topology.rs).
//!
//! Differences from the source: windows in f64 rather than Linux's 2⁻²⁰ fixed point; the
//! pacing factor switches at ssthresh, not at ssthresh/2; the classic-ECN-AQM detection
//! and fallback (`prague_ecn_fallback`, off by default in Linux) is not modelled; the
//! per-packet echo stands in for AccECN (AccECN, draft-ietf-tcpm-accurate-ecn, is not modelled). No fluid form.

use super::contract::{
    Ack, Algorithm, Congestion, CongestionControl, CongestionKind, EcnStyle, NoFluid, Round, Window,
};
use super::dctcp::{reduced, AlphaEstimator, G};
use super::params::Params;
use super::reno;
use crate::units::Time;

/// Prague's parameters.
#[derive(Clone, Copy, Debug)]
pub struct PragueConfig {
    /// EWMA gain g, (0, 1]; 1/16 as DCTCP.
    pub g: f64,
    /// The RTT R_t that flows with a shorter SRTT behave as, seconds; 0 turns the RTT
    /// independence off. Linux `prague_rtt_target` = 25 ms.
    pub rtt_target: f64,
    /// Rounds of congestion avoidance before the RTT independence applies (Linux
    /// `prague_rtt_transition` = 500).
    pub rtt_transition: f64,
}

impl PragueConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        Ok(PragueConfig {
            g: p.pos("g", G, 1.0)?,
            rtt_target: p.num("rtt_target_ms", 25.0, 0.0, 10_000.0)? / 1e3,
            rtt_transition: p.num("rtt_transition", 500.0, 0.0, 1e9)?.round(),
        })
    }

    /// Reduced RTT dependence (Linux `prague_rate_scaled_ai_ack_increase`): the additive increase
    /// per RTT, (R/R_t)² below the target, else 1 (no scaling at or above it).
    pub fn ai_per_rtt(&self, srtt: f64) -> f64 {
        if self.rtt_target > 0.0 && srtt > 0.0 && srtt < self.rtt_target {
            (srtt / self.rtt_target).powi(2)
        } else {
            reno::INCREASE_PER_RTT
        }
    }
}

/// The per-ACK form.
pub struct Prague {
    pub p: PragueConfig,
    pub est: AlphaEstimator,
    /// A CE mark has been echoed: there is an L4S AQM on the path (Linux `saw_ce`).
    saw_ce: bool,
    /// Rounds closed in congestion avoidance (Linux `round`).
    rounds_ca: u64,
    /// When α was last updated and the last ECN reduction (Linux `alpha_stamp`,
    /// `cwr_stamp`).
    alpha_at: Time,
    cwr_at: Option<Time>,
    /// SRTT of the latest ACK, seconds.
    srtt: f64,
}

impl Prague {
    pub fn new(p: PragueConfig) -> Self {
        Prague {
            p,
            est: AlphaEstimator::new(p.g, 1.0),
            saw_ce: false,
            rounds_ca: 0,
            alpha_at: Time::ZERO,
            cwr_at: None,
            srtt: 0.0,
        }
    }

    /// Whether the reduced RTT dependence is in force (Linux `prague_is_rtt_indep`).
    fn rtt_indep(&self, w: &Window) -> bool {
        self.p.rtt_target > 0.0
            && !w.in_slow_start()
            && self.rounds_ca as f64 >= self.p.rtt_transition
    }

    fn target(&self) -> Time {
        Time::from_secs_f64(self.p.rtt_target)
    }
}

impl Algorithm for Prague {
    const NAMES: &'static [&'static str] = &["prague"];
    type Config = PragueConfig;
    type Fluid = NoFluid;
    fn config(p: &mut Params) -> Result<PragueConfig, String> {
        PragueConfig::from_params(p)
    }
    fn packet(cfg: &PragueConfig) -> Box<dyn CongestionControl> {
        Box::new(Prague::new(*cfg))
    }
}

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.srtt = ack.rtt.srtt.as_secs_f64();
        self.est.on_ack(ack.acked, ack.ece);
        if ack.ece {
            self.saw_ce = true;
            return; // marked segments do not grow the window (Linux `prague_update_cwnd`)
        }
        let left = w.slow_start(ack.acked);
        if left > 0.0 {
            let ai = if self.rtt_indep(w) {
                self.p.ai_per_rtt(self.srtt)
            } else {
                reno::INCREASE_PER_RTT
            };
            w.additive_increase(ai, left);
        }
    }
    /// Linux `tcp_prague.c`: `prague_e2e_rtt_elapsed` is `!before(snd_una, next_seq)`,
    /// DCTCP's rule.
    fn rounds_cover(&self) -> Option<bool> {
        Some(false)
    }

    fn on_round(&mut self, w: &mut Window, round: &Round) {
        if !w.in_slow_start() {
            self.rounds_ca += 1;
        }
        if !self.saw_ce {
            self.est.end_window();
            self.est.alpha = 1.0; // no AQM seen yet: α stays at its initial 1
            return;
        }
        // RTT-independent mode: α is updated at most once per R_t (Linux
        // `prague_should_update_ewma`).
        if self.rtt_indep(w) && round.now < self.alpha_at + self.target() {
            return;
        }
        if self.est.end_window().is_some() {
            self.alpha_at = round.now;
        }
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        match ev.kind {
            CongestionKind::Ecn => {
                // Linux `prague_enter_cwr`: in RTT-independent mode no more than one
                // reduction per R_t.
                if self.rtt_indep(w) && self.cwr_at.is_some_and(|t| ev.now < t + self.target()) {
                    return w.cwnd;
                }
                self.cwr_at = Some(ev.now);
                reduced(w.cwnd, self.est.alpha)
            }
            // A loss halves the window, as Reno (Linux `prague_enter_loss`).
            CongestionKind::FastRetransmit | CongestionKind::Timeout => reno::ssthresh(w.cwnd),
        }
    }
    fn ecn(&self) -> EcnStyle {
        EcnStyle::L4s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::cc::Profile;
    use crate::units::Time;

    fn cfg() -> PragueConfig {
        PragueConfig::from_params(&mut Params::new(
            "prague",
            &Default::default(),
            Profile::Linux,
        ))
        .unwrap()
    }

    /// Reduced RTT dependence: below R_t the increase per RTT is (R/R_t)², so the rate
    /// W/R grows by (R/R_t)²/R per RTT, i.e. 1/R_t² per second², for every R < R_t.
    #[test]
    fn rtt_independent_increase_gives_the_same_rate_growth() {
        let c = cfg();
        assert_eq!(c.ai_per_rtt(0.025), 1.0);
        assert_eq!(c.ai_per_rtt(0.1), 1.0);
        for r in [0.001, 0.005, 0.0125, 0.02] {
            let rate_growth = c.ai_per_rtt(r) / r / r; // segments/s per second
            assert!((rate_growth - 1.0 / (0.025f64 * 0.025)).abs() < 1e-6, "{r}");
        }
        assert!((c.ai_per_rtt(0.0125) - 0.25).abs() < 1e-12);
    }

    /// Marked ACKs do not grow the window; unmarked ones grow it as Reno until the
    /// transition, then by (R/R_t)² per RTT.
    #[test]
    fn growth_counts_unmarked_segments_and_scales_after_the_transition() {
        let mut pr = Prague::new(PragueConfig {
            rtt_transition: 3.0,
            ..cfg()
        });
        let mut w = state(20.0, 10.0);
        let mut now = Time::ZERO;
        let rtt = Time::from_millis(5);
        let mut marked = Ack::new(now, 1.0);
        marked.ece = true;
        pr.on_ack(&mut w, &marked);
        assert_eq!(w.cwnd, 20.0);
        // one_rtt delivers floor(cwnd) single-segment ACKs: n/cwnd segments per RTT.
        for _ in 0..3 {
            let before = w.cwnd;
            let n = before.floor();
            one_rtt(&mut pr, &mut w, &mut now, rtt, rtt);
            assert!(
                (w.cwnd - before - n / before).abs() < 0.03,
                "{}",
                w.cwnd - before
            );
        }
        let before = w.cwnd;
        let n = before.floor();
        one_rtt(&mut pr, &mut w, &mut now, rtt, rtt);
        let expect = (5.0f64 / 25.0).powi(2) * n / before;
        assert!(
            ((w.cwnd - before) - expect).abs() < 1e-3,
            "{} vs {expect}",
            w.cwnd - before
        );
    }

    #[test]
    fn reductions_ecn_by_alpha_loss_by_half() {
        let mut pr = Prague::new(cfg());
        let w = state(100.0, 50.0);
        // α starts at 1: the first ECN reduction halves, as DCTCP's would.
        let e = pr.on_congestion(&w, &cong(Time::ZERO, CongestionKind::Ecn, 100));
        assert_eq!(e, 50.0);
        pr.est.alpha = 0.1;
        let e = pr.on_congestion(&w, &cong(Time(1), CongestionKind::Ecn, 100));
        assert!((e - 95.0).abs() < 1e-12);
        let l = pr.on_congestion(&w, &cong(Time(2), CongestionKind::Timeout, 100));
        assert_eq!(l, 50.0);
        assert_eq!(pr.ecn(), EcnStyle::L4s);
    }

    /// α does not move before a CE has been seen (Linux `saw_ce`).
    #[test]
    fn alpha_frozen_until_the_first_mark() {
        let mut pr = Prague::new(cfg());
        let mut w = state(10.0, 5.0);
        let mut now = Time::ZERO;
        let rtt = Time::from_millis(50);
        one_rtt(&mut pr, &mut w, &mut now, rtt, rtt);
        assert_eq!(pr.est.alpha, 1.0);
        let mut m = Ack::new(now, 1.0);
        m.ece = true;
        pr.on_ack(&mut w, &m);
        one_rtt(&mut pr, &mut w, &mut now, rtt, rtt);
        assert!(pr.est.alpha < 1.0);
    }
}
