//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004; Leith, Shorten, Lee, "H-TCP: A framework for congestion control in
//! high-speed and long-distance networks", 2005): the increase grows with the time
//! Δ since the last congestion event; the decrease adapts to RTT_min/RTT_max.
//!
//! Both forms use `HtcpConfig::increase` (α(Δ) with the backoff and RTT scaling) and
//! `HtcpConfig::backoff`: per ACK cwnd += α/cwnd, which is α per RTT in the rate form;
//! on a loss cwnd ← β·cwnd. (Until this was one function the fluid law ignored the RTT
//! scaling: at Δ = 5 s it added 45 packets per RTT at every RTT where the per-ACK form
//! adds 4.5 at 10 ms and 90 at 200 ms.)
//!
//! Forms (`form`, by the TCP profile; docs/algorithms.md): `"paper"` (ns2, ns3) adapts
//! β = RTT_min/RTT_max at every congestion event; `"linux"` (`tcp_htcp.c`,
//! `htcp_beta_update`) uses β = β_min at the first congestion event (modeswitch = 0)
//! and whenever RTT_min ≤ 10 ms. Linux's bandwidth switch (β_min again when the
//! throughput moved by more than 20 % between events) is not modelled.

use super::contract::{Ack, Algorithm, Congestion, CongestionControl, FluidLaw, Window};
use super::params::Params;
use super::profile::Profile;
use crate::units::Time;

/// H-TCP's parameters.
#[derive(Clone, Copy, Debug)]
pub struct HtcpConfig {
    /// Δ_L, seconds: below it H-TCP is Reno (paper: 1 s).
    pub delta_l: f64,
    /// Clamp of the adaptive backoff β = RTT_min/RTT_max (paper: [0.5, 0.8]).
    pub beta_min: f64,
    pub beta_max: f64,
    /// Adaptive backoff on (paper); off gives β = beta_min always.
    pub adaptive_backoff: bool,
    /// RTT scaling (Leith & Shorten 2004 §4; Linux `use_rtt_scaling`, on by
    /// default): α ← α·RTT_min/RTT_ref, the factor clamped to [0.1, 2], so that the
    /// window grows at the same rate per second whatever the RTT.
    pub rtt_scaling: bool,
    /// Linux's backoff rule (`backoff_linux`).
    pub linux: bool,
}

/// Linux `htcp_beta_update`: below this RTT_min the backoff stays β_min, seconds.
pub const LINUX_ADAPTIVE_MIN_RTT_S: f64 = 0.010;

/// RTT_ref of the RTT scaling (Linux: 100 ms), seconds.
pub const RTT_REF_S: f64 = 0.1;

impl Default for HtcpConfig {
    fn default() -> Self {
        HtcpConfig {
            delta_l: 1.0,
            beta_min: 0.5,
            beta_max: 0.8,
            adaptive_backoff: true,
            rtt_scaling: true,
            linux: false,
        }
    }
}

impl HtcpConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = HtcpConfig::default();
        let hp = HtcpConfig {
            delta_l: p.num("delta_l", d.delta_l, 0.0, 1e6)?,
            beta_min: p.pos("beta_min", d.beta_min, 0.999)?,
            beta_max: p.pos("beta_max", d.beta_max, 0.999)?,
            adaptive_backoff: p.flag("adaptive_backoff", d.adaptive_backoff)?,
            rtt_scaling: p.flag("rtt_scaling", d.rtt_scaling)?,
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
        if hp.beta_max < hp.beta_min {
            return Err(format!(
                "beta_max: must be at least beta_min ({}), got {}",
                hp.beta_min, hp.beta_max
            ));
        }
        Ok(hp)
    }

    /// Leith & Shorten eq. (4): α(Δ) = 1 for Δ ≤ Δ_L, else
    /// 1 + 10(Δ − Δ_L) + ((Δ − Δ_L)/2)².
    pub fn alpha_raw(&self, delta: f64) -> f64 {
        if delta <= self.delta_l {
            1.0
        } else {
            let d = delta - self.delta_l;
            1.0 + 10.0 * d + (d / 2.0).powi(2)
        }
    }

    /// The increase with the backoff folded in, α ← 2(1 − β)·α(Δ) (Leith, Shorten &
    /// Lee §III-B), so that a flow with backoff β has the throughput of AIMD(α(Δ), 0.5).
    pub fn alpha(&self, delta: f64, beta: f64) -> f64 {
        2.0 * (1.0 - beta) * self.alpha_raw(delta)
    }

    /// The increase per RTT actually applied, Δ seconds after the last congestion
    /// event with backoff β: `alpha` times the RTT scaling factor
    /// clamp(RTT_min/RTT_ref, 0.1, 2) when `rtt_scaling` is on and an RTT_min (seconds)
    /// is known.
    pub fn increase(&self, delta: f64, beta: f64, rtt_min: Option<f64>) -> f64 {
        let alpha = self.alpha(delta, beta);
        match rtt_min {
            Some(m) if self.rtt_scaling => alpha * (m / RTT_REF_S).clamp(0.1, 2.0),
            _ => alpha,
        }
    }

    /// Leith & Shorten §III adaptive backoff: β = RTT_min/RTT_max clamped to
    /// [β_min, β_max], so the queue the flow built drains while the link stays busy;
    /// β_min when off or without an RTT_max (seconds, > 0).
    pub fn backoff(&self, rtt_min: f64, rtt_max: f64) -> f64 {
        if self.adaptive_backoff && rtt_max > 0.0 {
            (rtt_min / rtt_max).clamp(self.beta_min, self.beta_max)
        } else {
            self.beta_min
        }
    }

    /// The backoff of a congestion event: `backoff`, or with the Linux form β_min at
    /// the `first` event and whenever RTT_min ≤ 10 ms (`htcp_beta_update`).
    pub fn backoff_at(&self, first: bool, rtt_min: f64, rtt_max: f64) -> f64 {
        if self.linux && (first || rtt_min <= LINUX_ADAPTIVE_MIN_RTT_S) {
            self.beta_min
        } else {
            self.backoff(rtt_min, rtt_max)
        }
    }
}

/// The per-ACK form.
pub struct Htcp {
    pub p: HtcpConfig,
    /// β of the last congestion event (β_min before any).
    pub beta: f64,
    /// Time of the last congestion event (or of the first ACK, before any).
    pub last_congestion: Option<Time>,
    /// Smallest RTT sample seen, largest since the last congestion event.
    pub rtt_min: Option<Time>,
    pub rtt_max: Option<Time>,
    /// Congestion events so far.
    pub events: u64,
}

impl Htcp {
    pub fn new(p: HtcpConfig) -> Self {
        Htcp {
            beta: p.beta_min,
            p,
            last_congestion: None,
            rtt_min: None,
            rtt_max: None,
            events: 0,
        }
    }
}

impl Algorithm for Htcp {
    const NAMES: &'static [&'static str] = &["htcp"];
    type Config = HtcpConfig;
    type Fluid = HtcpFluid;
    fn config(p: &mut Params) -> Result<HtcpConfig, String> {
        HtcpConfig::from_params(p)
    }
    fn packet(cfg: &HtcpConfig) -> Box<dyn CongestionControl> {
        Box::new(Htcp::new(*cfg))
    }
    fn fluid(cfg: &HtcpConfig) -> Option<HtcpFluid> {
        Some(HtcpFluid::new(*cfg, 0.0, 0.0))
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if let Some(r) = ack.rtt.latest {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
            self.rtt_max = Some(self.rtt_max.map_or(r, |m| m.max(r)));
        }
        let start = *self.last_congestion.get_or_insert(ack.now);
        let acked = w.slow_start(ack.acked);
        if acked > 0.0 {
            let delta = ack.now.saturating_sub(start).as_secs_f64();
            let alpha = self
                .p
                .increase(delta, self.beta, self.rtt_min.map(Time::as_secs_f64));
            // cwnd ← cwnd + α/cwnd per ACK (per acked segment).
            w.additive_increase(alpha, acked);
        }
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        self.beta = match (self.rtt_min, self.rtt_max) {
            (Some(lo), Some(hi)) => {
                self.p
                    .backoff_at(self.events == 0, lo.as_secs_f64(), hi.as_secs_f64())
            }
            _ => self.p.beta_min,
        };
        self.events += 1;
        // RTT_max is measured afresh each congestion epoch (it is the RTT when the
        // queue is full, which the previous epoch no longer reports).
        self.rtt_max = None;
        // Δ counts from the congestion event (Leith & Shorten: "time elapsed since the
        // last congestion event").
        self.last_congestion = Some(ev.now);
        // cwnd ← β·cwnd.
        (w.cwnd * self.beta).max(2.0)
    }
}

/// The rate form: the same memory, in seconds.
#[derive(Clone, Copy, Debug)]
pub struct HtcpFluid {
    pub p: HtcpConfig,
    /// Time of the last loss (the flow's start before any), seconds.
    t_last: f64,
    /// Smallest RTT seen; largest since the last loss (0: none yet).
    rtt_min: f64,
    rtt_max: f64,
    /// The backoff β of the last loss (used in α until the next one).
    beta: f64,
    losses: u64,
}

impl HtcpFluid {
    pub fn new(p: HtcpConfig, t0: f64, rtt: f64) -> Self {
        HtcpFluid {
            p,
            t_last: t0,
            rtt_min: rtt,
            rtt_max: 0.0,
            // The per-ACK form starts with β = beta_min too.
            beta: p.beta_min,
            losses: 0,
        }
    }

    /// β of the last loss.
    pub fn beta(&self) -> f64 {
        self.beta
    }
}

impl FluidLaw for HtcpFluid {
    fn start(&mut self, t: f64, rtt: f64) {
        *self = HtcpFluid::new(self.p, t, rtt);
    }
    #[inline]
    fn grow(&mut self, w: f64, t: f64, rtt: f64, dt: f64) -> f64 {
        let per_rtt = self
            .p
            .increase(t - self.t_last, self.beta, Some(self.rtt_min));
        w + per_rtt * dt / rtt
    }
    fn on_loss(&mut self, w: f64, t: f64) -> f64 {
        // The adaptive backoff over the epoch just ended.
        self.beta = self
            .p
            .backoff_at(self.losses == 0, self.rtt_min, self.rtt_max);
        self.losses += 1;
        self.rtt_max = 0.0;
        self.t_last = t;
        self.beta * w
    }
    /// H-TCP's Δ keeps counting from the flow's start, as the per-ACK form counts it
    /// from its first ACK: nothing to do when slow start ends.
    fn on_exit_slow_start(&mut self, _w: f64, _t: f64) {}
    #[inline]
    fn observe_rtt(&mut self, r: f64) {
        self.rtt_min = self.rtt_min.min(r);
        self.rtt_max = self.rtt_max.max(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::cc::CongestionKind;

    /// Linux htcp_beta_update: β = β_min (0.5) at the first congestion event
    /// (modeswitch = 0) and whenever RTT_min ≤ 10 ms; else RTT_min/RTT_max in [0.5,
    /// 0.8]. The paper form adapts from the first event.
    #[test]
    fn linux_backoff_is_half_at_the_first_loss_and_on_short_paths() {
        let linux = HtcpConfig {
            linux: true,
            ..HtcpConfig::default()
        };
        let paper = HtcpConfig::default();
        assert_eq!(linux.backoff_at(true, 0.1, 0.125), 0.5);
        let near = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(near(paper.backoff_at(true, 0.1, 0.125), 0.8));
        assert!(near(linux.backoff_at(false, 0.1, 0.125), 0.8));
        assert_eq!(linux.backoff_at(false, 0.010, 0.0125), 0.5);
        assert!(near(paper.backoff_at(false, 0.010, 0.0125), 0.8));
        // Through the per-ACK form: RTT samples 100 then 125 ms, two losses.
        let mut h = Htcp::new(linux);
        let mut st = state(100.0, 50.0);
        for (t, r) in [(1u64, 100u64), (2, 125)] {
            h.on_ack(
                &mut st,
                &ack_at(
                    Time::from_secs(t),
                    1,
                    Some(Time::from_millis(r)),
                    Time::from_millis(r),
                ),
            );
        }
        let s1 = h.on_congestion(
            &st,
            &cong(Time::from_secs(3), CongestionKind::FastRetransmit, 100),
        );
        assert_eq!((h.beta, s1), (0.5, 0.5 * st.cwnd));
        h.on_ack(
            &mut st,
            &ack_at(
                Time::from_secs(4),
                1,
                Some(Time::from_millis(125)),
                Time::from_millis(125),
            ),
        );
        let s2 = h.on_congestion(
            &st,
            &cong(Time::from_secs(5), CongestionKind::FastRetransmit, 100),
        );
        assert!((h.beta - 0.8).abs() < 1e-12 && (s2 - 0.8 * st.cwnd).abs() < 1e-9);
    }

    #[test]
    fn alpha_of_delta() {
        let p = HtcpConfig::default();
        assert_eq!(p.alpha_raw(0.5), 1.0);
        assert_eq!(p.alpha_raw(1.0), 1.0);
        // Δ = 2: 1 + 10·1 + (1/2)² = 11.25.
        assert!((p.alpha_raw(2.0) - 11.25).abs() < 1e-12);
        // Δ = 5: 1 + 10·4 + 2² = 45.
        assert!((p.alpha_raw(5.0) - 45.0).abs() < 1e-12);
        // Scaled by 2(1 − β): β = 0.5 leaves α; β = 0.8 gives 0.4·α.
        assert!((p.alpha(5.0, 0.5) - 45.0).abs() < 1e-12);
        assert!((p.alpha(5.0, 0.8) - 18.0).abs() < 1e-12);
    }

    #[test]
    fn increase_follows_delta_and_backoff_adapts() {
        let mut h = Htcp::new(HtcpConfig::default());
        let mut st = state(100.0, 50.0);
        let base = Time::from_millis(100);
        // Samples between 100 and 150 ms: β = 100/150, inside [0.5, 0.8].
        h.on_ack(&mut st, &ack_at(Time::ZERO, 1, Some(base), base));
        h.on_ack(
            &mut st,
            &ack_at(Time::ZERO, 1, Some(Time::from_millis(150)), base),
        );
        let t0 = Time::from_secs(10);
        let s = h.on_congestion(&st, &cong(t0, CongestionKind::FastRetransmit, 100));
        assert!((h.beta - 2.0 / 3.0).abs() < 1e-9);
        assert!((s / st.cwnd - 2.0 / 3.0).abs() < 1e-9);
        st.cwnd = 100.0;
        st.ssthresh = 50.0;
        // Δ = 0.5 s: α = 2(1 − β)·1.
        let w = st.cwnd;
        h.on_ack(&mut st, &ack_at(t0 + Time::from_millis(500), 1, None, base));
        assert!((st.cwnd - w - 2.0 / 3.0 / w).abs() < 1e-9);
        // Δ = 5 s: α = 2(1 − β)·45 = 30.
        let w = st.cwnd;
        h.on_ack(&mut st, &ack_at(t0 + Time::from_secs(5), 1, None, base));
        assert!((st.cwnd - w - 30.0 / w).abs() < 1e-9);
        // Equal min and max RTT (no queue): β clamps to 0.8.
        let mut st = state(100.0, 50.0);
        h.on_ack(&mut st, &ack_at(t0, 1, Some(base), base));
        h.on_congestion(&st, &cong(t0, CongestionKind::FastRetransmit, 100));
        assert!((h.beta - 0.8).abs() < 1e-12);
    }

    /// Leith & Shorten 2004 §4 / Linux `use_rtt_scaling`: α is multiplied by
    /// clamp(RTT_min/100 ms, 0.1, 2), so at Δ = 5 s (α = 45 with β = 0.5) the increase
    /// per RTT is 4.5, 9, 45 and 90 packets at RTT 10, 20, 100 and 200 ms — in both forms.
    #[test]
    fn rtt_scaling_in_both_forms() {
        let p = HtcpConfig::default();
        for (rtt, want) in [(0.01, 4.5), (0.02, 9.0), (0.1, 45.0), (0.2, 90.0)] {
            assert!(
                (p.increase(5.0, 0.5, Some(rtt)) - want).abs() < 1e-9,
                "{rtt}"
            );
            // Over the RTT after Δ = 5 s, α(Δ) keeps rising (eq. 4): the growth is
            // scale·∫α(Δ)dΔ/R, with ∫(1 + 10d + d²/4)dd = d + 5d² + d³/12, d = Δ − 1.
            let f = |d: f64| d + 5.0 * d * d + d.powi(3) / 12.0;
            let grown = want / 45.0 * (f(4.0 + rtt) - f(4.0)) / rtt;
            // Rate form: one RTT of integration in 1000 steps.
            let w0 = 100_000.0;
            let mut l = HtcpFluid::new(p, 0.0, rtt);
            let (mut w, n) = (w0, 1000);
            let dt = rtt / n as f64;
            for i in 0..n {
                w = l.grow(w, 5.0 + i as f64 * dt, rtt, dt);
            }
            assert!(((w - w0) / grown - 1.0).abs() < 2e-3, "{rtt}: {}", w - w0);
            // Per-ACK form: one window of ACKs (W0 of them, each adding α/cwnd; with
            // W0 = 10⁵ the window's growth within the RTT costs < α/(2·W0) = 0.05 %).
            let mut h = Htcp::new(p);
            let r = Time::from_secs_f64(rtt);
            let mut st = state(w0, 1.0);
            h.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 0));
            let mut now = Time::from_secs(5);
            one_rtt(&mut h, &mut st, &mut now, r, r);
            assert!(
                ((st.cwnd - w0) / grown - 1.0).abs() < 2e-3,
                "{rtt}: {}",
                st.cwnd
            );
        }
        assert_eq!(p.increase(5.0, 0.5, Some(1.0)), 90.0, "factor clamped at 2");
        let off = HtcpConfig {
            rtt_scaling: false,
            ..p
        };
        assert_eq!(off.increase(5.0, 0.5, Some(0.01)), 45.0);
    }

    #[test]
    fn fluid_alpha_grows_with_time_since_loss_and_beta_adapts() {
        // β = RTT_min/RTT_max over the epoch: 0.1/0.125 = 0.8 (the clamp's top).
        let mut l = HtcpFluid::new(HtcpConfig::default(), 0.0, 0.1);
        l.observe_rtt(0.125);
        let w = l.on_loss(1000.0, 10.0);
        assert!((w - 800.0).abs() < 1e-9 && (l.beta() - 0.8).abs() < 1e-12);
        let integrate = |l: &mut HtcpFluid, mut w: f64, t0: f64, secs: f64| {
            let dt = 1e-3;
            for i in 0..(secs / dt).round() as usize {
                w = l.grow(w, t0 + i as f64 * dt, 0.1, dt);
            }
            w
        };
        // Within Δ_L = 1 s: 2(1 − β) = 0.4 packet per RTT: 0.5 s = 5 RTTs adds 2
        // (RTT_min = RTT_ref = 100 ms: the scaling factor is 1).
        let w1 = integrate(&mut l, w, 10.0, 0.5);
        assert!((w1 - w - 2.0).abs() < 1e-6, "{}", w1 - w);
        // Δ from 5 to 5.1 s (one RTT): ∫0.4·α(Δ)dΔ/R with α = 1 + 10d + d²/4, d = Δ − 1
        // (Leith–Shorten eq. 4; α(5) = 45): 0.4·(1 + 40.5 + (4.05² + 0.1²/12)/4) = 18.24.
        let w2 = integrate(&mut l, 0.0, 15.0, 0.1);
        assert!((w2 - 18.2404).abs() < 0.01, "{w2}");
        // Twice the RTT range: β clamps at 0.5.
        l.observe_rtt(0.3);
        assert!((l.on_loss(1000.0, 20.0) - 500.0).abs() < 1e-9);
    }
}
