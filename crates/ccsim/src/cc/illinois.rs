//! TCP-Illinois (Liu, Başar, Srikant, "TCP-Illinois: A loss- and delay-based congestion
//! control algorithm for high-speed networks", Performance Evaluation 2008), with the
//! Linux `tcp_illinois.c` defaults: AIMD whose α and β are functions of the average
//! queueing delay d_a relative to the largest seen, d_m.
//!
//! Both forms use `IllinoisConfig::alpha_of`/`beta_of` (eq. 4–5) and `AlphaBeta::update`
//! (the choice with Linux's θ-round wait). The per-ACK form updates α and β once per
//! round from the round's mean RTT and adds α/cwnd per ACK; the rate form updates them
//! continuously from the current RTT (counting the low-delay wait in RTTs) and grows α
//! per RTT. Both take d_m from the largest RTT seen and d_a against the least.

use super::contract::{
    Ack, Algorithm, Congestion, CongestionControl, CongestionKind, FluidLaw, Round, Window,
};
use super::params::Params;
use crate::units::Time;

/// Illinois's parameters (Linux `tcp_illinois.c` defaults).
#[derive(Clone, Copy, Debug)]
pub struct IllinoisConfig {
    /// Range of the additive increase α, segments per RTT (paper §III: [0.3, 10]).
    pub alpha_min: f64,
    pub alpha_max: f64,
    /// Range of the multiplicative decrease β (paper §III: [1/8, 1/2]).
    pub beta_min: f64,
    pub beta_max: f64,
    /// Below this window Illinois is Reno (α = 1, β = 1/2). Linux: 15.
    pub win_thresh: f64,
    /// Rounds of low delay before α returns to α_max. Linux: 5.
    pub theta: u32,
}

impl Default for IllinoisConfig {
    fn default() -> Self {
        // Paper §III / Linux: α ∈ [0.3, 10], β ∈ [1/8, 1/2].
        IllinoisConfig {
            alpha_min: 0.3,
            alpha_max: 10.0,
            beta_min: 0.125,
            beta_max: 0.5,
            win_thresh: 15.0,
            theta: 5,
        }
    }
}

impl IllinoisConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = IllinoisConfig::default();
        let ip = IllinoisConfig {
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

/// α and β with the memory their choice needs (Linux `rtt_above`, `rtt_low`).
#[derive(Clone, Copy, Debug)]
pub struct AlphaBeta {
    pub alpha: f64,
    pub beta: f64,
    /// Whether d_a has left the low-delay zone since α was last α_max, and the
    /// low-delay rounds counted since (Linux `rtt_above`, `rtt_low`).
    rtt_above: bool,
    rtt_low: f64,
}

impl Default for AlphaBeta {
    /// Reno's α = 1, β = 1/2 (Linux's initial values, and after a timeout).
    fn default() -> Self {
        AlphaBeta {
            alpha: 1.0,
            beta: 0.5,
            rtt_above: false,
            rtt_low: 0.0,
        }
    }
}

impl AlphaBeta {
    /// Choose α and β from the average queueing delay d_a and the largest d_m, after
    /// `rounds` RTTs at this delay (1 per round in the per-ACK form).
    pub fn update(&mut self, p: &IllinoisConfig, cwnd: f64, da: f64, dm: f64, rounds: f64) {
        if cwnd < p.win_thresh {
            self.alpha = 1.0;
            self.beta = 0.5;
            return;
        }
        self.alpha = if da <= dm / 100.0 {
            // Linux: α jumps back to α_max only after θ rounds of low delay, so one
            // lucky RTT does not cause a burst of increase.
            if !self.rtt_above {
                p.alpha_max
            } else {
                self.rtt_low += rounds;
                if self.rtt_low < p.theta as f64 {
                    self.alpha
                } else {
                    self.rtt_low = 0.0;
                    self.rtt_above = false;
                    p.alpha_max
                }
            }
        } else {
            self.rtt_above = true;
            p.alpha_of(da, dm)
        };
        self.beta = p.beta_of(da, dm);
    }
}

/// The per-ACK form.
pub struct Illinois {
    pub p: IllinoisConfig,
    pub ab: AlphaBeta,
    /// Largest RTT sample seen (never aged, as Linux), for d_m = max − base.
    pub max_rtt: Time,
}

impl Illinois {
    pub fn new(p: IllinoisConfig) -> Self {
        Illinois {
            p,
            ab: AlphaBeta::default(),
            max_rtt: Time::ZERO,
        }
    }

    /// Once-per-RTT choice of α and β from the round's average delay.
    pub fn update(&mut self, cwnd: f64, da: f64, dm: f64) {
        self.ab.update(&self.p, cwnd, da, dm, 1.0);
    }
}

impl Algorithm for Illinois {
    const NAMES: &'static [&'static str] = &["illinois"];
    type Config = IllinoisConfig;
    type Fluid = IllinoisFluid;
    fn config(p: &mut Params) -> Result<IllinoisConfig, String> {
        IllinoisConfig::from_params(p)
    }
    fn packet(cfg: &IllinoisConfig) -> Box<dyn CongestionControl> {
        Box::new(Illinois::new(*cfg))
    }
    fn fluid(cfg: &IllinoisConfig) -> Option<IllinoisFluid> {
        Some(IllinoisFluid::new(*cfg))
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if let Some(r) = ack.rtt.latest {
            self.max_rtt = self.max_rtt.max(r);
        }
        let acked = w.slow_start(ack.acked);
        if acked > 0.0 {
            // Paper eq. (1): cwnd ← cwnd + α/cwnd per ACK.
            w.additive_increase(self.ab.alpha, acked);
        }
    }
    fn on_round(&mut self, w: &mut Window, r: &Round) {
        if r.in_recovery() {
            return;
        }
        let Some(mean) = r.mean_rtt else {
            return;
        };
        // d_a: average queueing delay over the round; d_m: the largest seen.
        let base = r.rtt.min.as_secs_f64();
        let da = (mean.as_secs_f64() - base).max(0.0);
        let dm = (self.max_rtt.max(mean).as_secs_f64() - base).max(0.0);
        self.update(w.cwnd, da, dm);
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        // Paper eq. (1): cwnd ← (1 − β)·cwnd.
        let ssthresh = (w.cwnd * (1.0 - self.ab.beta)).max(2.0);
        if ev.kind == CongestionKind::Timeout {
            // Linux: entering loss state resets α, β to Reno's.
            self.ab = AlphaBeta::default();
        }
        ssthresh
    }
}

/// The rate form: α and β, and the least and largest RTT seen.
#[derive(Clone, Copy, Debug)]
pub struct IllinoisFluid {
    pub p: IllinoisConfig,
    pub ab: AlphaBeta,
    base: f64,
    max: f64,
}

impl IllinoisFluid {
    pub fn new(p: IllinoisConfig) -> Self {
        IllinoisFluid {
            p,
            ab: AlphaBeta::default(),
            base: f64::INFINITY,
            max: 0.0,
        }
    }
}

impl FluidLaw for IllinoisFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {
        *self = IllinoisFluid::new(self.p);
    }
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        self.observe_rtt(rtt);
        let da = (rtt - self.base).max(0.0);
        let dm = (self.max - self.base).max(0.0);
        self.ab.update(&self.p, w, da, dm, dt / rtt);
        // α segments per RTT.
        w + self.ab.alpha * dt / rtt
    }
    fn on_loss(&mut self, w: f64, _t: f64) -> f64 {
        (1.0 - self.ab.beta) * w
    }
    #[inline]
    fn observe_rtt(&mut self, rtt: f64) {
        self.base = self.base.min(rtt);
        self.max = self.max.max(rtt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;

    #[test]
    fn alpha_and_beta_at_thresholds() {
        let p = IllinoisConfig::default();
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
        let mut il = Illinois::new(IllinoisConfig::default());
        let mut st = state(100.0, 50.0);
        let base = Time::from_millis(100);
        // A 200 ms sample makes d_m = 100 ms.
        il.on_ack(
            &mut st,
            &ack_at(Time::ZERO, 1, Some(Time::from_millis(200)), base),
        );
        il.on_round(&mut st, &round(Time::ZERO, Time::from_millis(190), base));
        assert!((il.ab.beta - 0.5).abs() < 1e-12);
        assert!(il.ab.alpha < 0.35);
        let s = il.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 100));
        assert!((s - st.cwnd * 0.5).abs() < 1e-9);
        il.on_recovery_exit(&mut st, Time::ZERO);
        // Delay back to zero: α stays for θ − 1 rounds, then α_max.
        let a = il.ab.alpha;
        for _ in 0..4 {
            il.on_round(&mut st, &round(Time::ZERO, base, base));
            assert_eq!(il.ab.alpha, a);
            assert_eq!(il.ab.beta, 0.125);
        }
        il.on_round(&mut st, &round(Time::ZERO, base, base));
        assert_eq!(il.ab.alpha, 10.0);
        // α per RTT: one window of ACKs adds ≈ α.
        let w = st.cwnd;
        il.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, base));
        assert!((st.cwnd - w - 10.0 / w).abs() < 1e-9);
        // Small windows are Reno.
        il.update(10.0, 0.05, 0.1);
        assert_eq!((il.ab.alpha, il.ab.beta), (1.0, 0.5));
    }

    /// Rate form: with the RTT at its minimum α = α_max = 10 per RTT and β = β_min;
    /// once the delay has reached d_m (RTT = max), α = α_min, β = β_max (eq. 4–5);
    /// back at low delay α waits θ = 5 RTTs before returning to α_max.
    #[test]
    fn fluid_alpha_beta_follow_the_delay() {
        let mut l = IllinoisFluid::new(IllinoisConfig::default());
        let (mut w, dt) = (100.0, 1e-3);
        for _ in 0..1000 {
            w = l.grow(w, 0.0, 0.1, dt);
        }
        assert!((w - 200.0).abs() < 1e-6, "{w}");
        w = l.grow(w, 0.0, 0.2, dt);
        assert!((l.ab.alpha - 0.3).abs() < 1e-12 && l.ab.beta == 0.5);
        assert_eq!(l.on_loss(200.0, 0.0), 100.0);
        // θ = 5 RTTs of low delay before α_max; 4.9 RTTs are not enough.
        for _ in 0..490 {
            l.grow(w, 0.0, 0.1, dt);
        }
        assert!((l.ab.alpha - 0.3).abs() < 1e-12 && l.ab.beta == 0.125);
        for _ in 0..20 {
            l.grow(w, 0.0, 0.1, dt);
        }
        assert_eq!(l.ab.alpha, 10.0);
    }
}
