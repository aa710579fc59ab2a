//! Compound TCP (Tan, Song, Zhang, Sridharan, "A Compound TCP Approach for High-speed
//! and Long Distance Networks", INFOCOM 2006; draft-sridharan-tcpm-ctcp-02): the send
//! window is win = cwnd + dwnd, a Reno loss-based part plus a delay-based part that
//! grows binomially while the queue is short and retreats as it builds.
//!
//! `Window.cwnd` is the total window (the sender sends by it); the Reno part is
//! `cwnd − dwnd`, recovered on each event because the sender rewrites the window.
//!
//! Both forms use `CompoundConfig::dwnd_round` and `dwnd_loss`. The per-ACK form grows
//! the Reno part by 1/win per ACK (one segment per RTT) and applies `dwnd_round` once
//! per round; the rate form grows the Reno part by 1/R and dwnd by
//! (dwnd_round − dwnd)/R, with the current RTT from the fluid engine and baseRTT the
//! least it has seen. Not in the rate form: the per-ACK form's return to slow start
//! (dwnd = 0) when a retreating dwnd takes the total below ssthresh — the fluid
//! engine lowers ssthresh with the window instead.

use super::contract::{
    Ack, Algorithm, Congestion, CongestionControl, CongestionKind, FluidLaw, Round, Window,
};
use super::params::Params;
use crate::units::Time;

/// Compound's parameters (draft-sridharan-tcpm-ctcp-02 §3).
#[derive(Clone, Copy, Debug)]
pub struct CompoundConfig {
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

impl Default for CompoundConfig {
    fn default() -> Self {
        CompoundConfig {
            alpha: 0.125,
            k: 0.75,
            beta: 0.5,
            gamma: 30.0,
            zeta: 1.0,
            low_window: 38.0,
        }
    }
}

impl CompoundConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = CompoundConfig::default();
        Ok(CompoundConfig {
            alpha: p.num("alpha", d.alpha, 0.0, 1e6)?,
            k: p.num("k", d.k, 0.0, 1.0)?,
            beta: p.pos("beta", d.beta, 0.999)?,
            gamma: p.num("gamma", d.gamma, 0.0, 1e9)?,
            zeta: p.num("zeta", d.zeta, 0.0, 1e6)?,
            low_window: p.num("low_window", d.low_window, 0.0, 1e12)?,
        })
    }

    /// Draft §3: Expected = win/baseRTT, Actual = win/RTT,
    /// diff = (Expected − Actual)·baseRTT = win·(1 − baseRTT/RTT).
    pub fn diff(win: f64, base_rtt: f64, rtt: f64) -> f64 {
        win * (1.0 - base_rtt / rtt)
    }

    /// Draft §3 eq. (3), once per RTT: with win = cwnd + dwnd,
    ///   dwnd + max(α·win^k − 1, 0)   if diff < γ,
    ///   max(dwnd − ζ·diff, 0)         if diff ≥ γ.
    /// (The −1 offsets the Reno part's own one segment per RTT, so win grows by α·win^k.)
    pub fn dwnd_round(&self, cwnd: f64, dwnd: f64, diff: f64) -> f64 {
        (dwnd + self.dwnd_change(cwnd, dwnd, diff)).max(0.0)
    }

    /// The change of dwnd per RTT before the floor at 0: max(α·win^k − 1, 0) below γ,
    /// −ζ·diff at or above it.
    pub fn dwnd_change(&self, cwnd: f64, dwnd: f64, diff: f64) -> f64 {
        if diff < self.gamma {
            (self.alpha * (cwnd + dwnd).powf(self.k) - 1.0).max(0.0)
        } else {
            -self.zeta * diff
        }
    }

    /// Draft §3 eq. (3), on loss: dwnd = max(win·(1 − β) − cwnd/2, 0), so the total
    /// window becomes win·(1 − β) while the Reno part halves.
    pub fn dwnd_loss(&self, cwnd: f64, dwnd: f64) -> f64 {
        ((cwnd + dwnd) * (1.0 - self.beta) - cwnd / 2.0).max(0.0)
    }
}

/// The Reno part of a total window `win` holding `dwnd`.
fn reno_part(win: f64, dwnd: f64) -> f64 {
    (win - dwnd).max(1.0)
}

/// The per-ACK form.
pub struct Compound {
    pub p: CompoundConfig,
    /// The delay-based part of the window, segments.
    pub dwnd: f64,
}

impl Compound {
    pub fn new(p: CompoundConfig) -> Self {
        Compound { p, dwnd: 0.0 }
    }

    /// The Reno part of the total window the sender holds.
    fn reno_part(&self, w: &Window) -> f64 {
        reno_part(w.cwnd, self.dwnd)
    }
}

impl Algorithm for Compound {
    const NAMES: &'static [&'static str] = &["compound", "ctcp"];
    type Config = CompoundConfig;
    type Fluid = CompoundFluid;
    fn config(p: &mut Params) -> Result<CompoundConfig, String> {
        CompoundConfig::from_params(p)
    }
    fn packet(cfg: &CompoundConfig) -> Box<dyn CongestionControl> {
        Box::new(Compound::new(*cfg))
    }
    fn fluid(cfg: &CompoundConfig) -> Option<CompoundFluid> {
        Some(CompoundFluid::new(*cfg))
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if w.in_slow_start() {
            // Draft §3: dwnd is zero during slow start; the Reno part slow-starts.
            self.dwnd = 0.0;
            let left = w.slow_start(ack.acked);
            if left > 0.0 {
                w.cwnd += left / w.cwnd;
            }
            return;
        }
        let mut cwnd = self.reno_part(w);
        // Draft §3: cwnd = cwnd + 1/win per ACK (per acked segment), win = cwnd + dwnd.
        cwnd += ack.acked / (cwnd + self.dwnd);
        w.cwnd = cwnd + self.dwnd;
    }
    fn on_round(&mut self, w: &mut Window, r: &Round) {
        if r.in_recovery() || w.in_slow_start() {
            return;
        }
        let cwnd = self.reno_part(w);
        if cwnd + self.dwnd < self.p.low_window {
            return;
        }
        // RTT of the round: its mean sample (the draft's "current RTT" estimate).
        let (Some(rtt), base) = (r.mean_rtt, r.rtt.min) else {
            return;
        };
        if rtt == Time::ZERO || base == Time::ZERO {
            return;
        }
        let win = cwnd + self.dwnd;
        let diff = CompoundConfig::diff(win, base.as_secs_f64(), rtt.as_secs_f64());
        self.dwnd = self.p.dwnd_round(cwnd, self.dwnd, diff);
        w.cwnd = cwnd + self.dwnd;
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        let cwnd = self.reno_part(w);
        match ev.kind {
            CongestionKind::Timeout => {
                // After a timeout the delay part starts over (it is zero in slow start);
                // the Reno part halves from the total window.
                self.dwnd = 0.0;
                (w.cwnd * (1.0 - self.p.beta)).max(2.0)
            }
            _ => {
                self.dwnd = self.p.dwnd_loss(cwnd, self.dwnd);
                // The sender resumes with cwnd = ssthresh after recovery: the total.
                (cwnd / 2.0 + self.dwnd).max(2.0)
            }
        }
    }
}

/// The rate form: dwnd and baseRTT, the least RTT seen.
#[derive(Clone, Copy, Debug)]
pub struct CompoundFluid {
    pub p: CompoundConfig,
    /// The delay-based part of the window, segments.
    pub dwnd: f64,
    base: f64,
}

impl CompoundFluid {
    pub fn new(p: CompoundConfig) -> Self {
        CompoundFluid {
            p,
            dwnd: 0.0,
            base: f64::INFINITY,
        }
    }
}

impl FluidLaw for CompoundFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {
        *self = CompoundFluid::new(self.p);
    }
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        self.base = self.base.min(rtt);
        let cwnd = reno_part(w, self.dwnd);
        let win = cwnd + self.dwnd;
        if win >= self.p.low_window {
            let diff = CompoundConfig::diff(win, self.base, rtt);
            // The per-round change as a rate; a retreat stops at 0 (within one RTT
            // when ζ·diff ≥ dwnd, as the per-round form's floor).
            let per_rtt = self.p.dwnd_change(cwnd, self.dwnd, diff);
            self.dwnd = (self.dwnd + per_rtt * dt / rtt).max(0.0);
        }
        // The Reno part: one segment per RTT.
        cwnd + dt / rtt + self.dwnd
    }
    fn on_loss(&mut self, w: f64, _t: f64) -> f64 {
        let cwnd = reno_part(w, self.dwnd);
        self.dwnd = self.p.dwnd_loss(cwnd, self.dwnd);
        cwnd / 2.0 + self.dwnd
    }
    /// The fluid engine's slow start grew the window without the law: dwnd is zero
    /// during slow start (draft §3).
    fn on_exit_slow_start(&mut self, _w: f64, _t: f64) {
        self.dwnd = 0.0;
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
    use crate::cc::CaState;

    #[test]
    fn dwnd_rule() {
        let p = CompoundConfig::default();
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
        let mut c = Compound::new(CompoundConfig::default());
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
        st.ssthresh = c.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 300));
        assert!((c.dwnd - 50.0).abs() < 1e-9);
        assert!((st.ssthresh - 150.0).abs() < 1e-9);
        // The sender's recovery then sets cwnd = ssthresh; the Reno part is 100.
        st.cwnd = st.ssthresh;
        c.on_recovery_exit(&mut st, Time::ZERO);
        assert!((c.reno_part(&st) - 100.0).abs() < 1e-9);
        // Inside recovery, rounds leave the windows alone.
        c.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 150));
        let (w, d) = (st.cwnd, c.dwnd);
        let mut r = round(Time::ZERO, base, base);
        r.ca_state = CaState::Recovery;
        c.on_round(&mut st, &r);
        assert_eq!((st.cwnd, c.dwnd), (w, d));
    }

    /// The rate form with no queue: win grows by α·win^k per RTT (the Reno part's 1
    /// plus dwnd's α·win^k − 1), i.e. dwin/dt = α·win^k/R, whose solution is
    /// win(t) = (win0^{1−k} + (1 − k)·α·t/R)^{1/(1−k)} (draft §3's binomial increase).
    #[test]
    fn fluid_grows_binomially_without_a_queue() {
        let p = CompoundConfig::default();
        let mut l = CompoundFluid::new(p);
        l.observe_rtt(0.1);
        let (mut w, dt) = (100.0, 1e-3);
        for _ in 0..2000 {
            w = l.grow(w, 0.0, 0.1, dt);
        }
        let want = (100f64.powf(0.25) + 0.25 * 0.125 * 20.0).powf(4.0);
        assert!((w / want - 1.0).abs() < 1e-3, "{w} vs {want}");
        // A loss: dwnd = win/2 − cwnd/2 and the total halves (β = 1/2).
        let dwnd = l.dwnd;
        let w2 = l.on_loss(w, 0.0);
        assert!((w2 - w / 2.0).abs() < 1e-9);
        assert!((l.dwnd - (w / 2.0 - (w - dwnd) / 2.0)).abs() < 1e-9);
        // A queue of diff ≥ γ: dwnd retreats by ζ·diff per RTT down to 0, and the
        // window then grows as Reno (one segment per RTT).
        for _ in 0..5000 {
            w = l.grow(w, 0.0, 0.2, dt);
        }
        assert_eq!(l.dwnd, 0.0);
        let w0 = w;
        for _ in 0..2000 {
            w = l.grow(w, 0.0, 0.2, dt);
        }
        assert!((w - w0 - 10.0).abs() < 1e-6, "{}", w - w0);
    }
}
