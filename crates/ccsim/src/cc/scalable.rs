//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 2003): MIMD above a legacy window — cwnd += a per ACK,
//! cwnd −= b·cwnd per congestion event; Reno below the legacy window.
//!
//! Rate form: a per acknowledged segment is a·W per RTT, so dW/dt = a·W/R
//! (W(t) = W0·e^{a·t/R}); 1/R below the legacy window; the same decrease.

use super::contract::{Ack, Algorithm, Congestion, CongestionControl, FluidLaw, Window};
use super::params::Params;
use super::reno;

/// Kelly's parameters.
#[derive(Clone, Copy, Debug)]
pub struct ScalableConfig {
    /// Increase per acknowledged segment (Kelly §2: a = 0.01).
    pub a: f64,
    /// Multiplicative decrease (Kelly §2: b = 0.125).
    pub b: f64,
    /// Below this window the Reno law applies (Kelly §2: lwnd = 16).
    pub legacy_window: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig {
            a: 0.01,
            b: 0.125,
            legacy_window: 16.0,
        }
    }
}

impl ScalableConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = ScalableConfig::default();
        Ok(ScalableConfig {
            a: p.pos("a", d.a, 1.0)?,
            b: p.pos("b", d.b, 0.99)?,
            legacy_window: p.num("legacy_window", d.legacy_window, 0.0, 1e12)?,
        })
    }

    /// Kelly §2: below lwnd the flow follows Reno's law.
    pub fn legacy(&self, w: f64) -> bool {
        w < self.legacy_window
    }

    /// The window after a congestion event: Kelly eq. (2), cwnd ← cwnd − b·cwnd
    /// (Reno's halving in the legacy region).
    pub fn reduced(&self, w: f64) -> f64 {
        if self.legacy(w) {
            w / 2.0
        } else {
            (1.0 - self.b) * w
        }
    }
}

/// The per-ACK form: no state beyond the config.
pub struct Scalable {
    pub p: ScalableConfig,
}

impl Scalable {
    pub fn new(p: ScalableConfig) -> Self {
        Scalable { p }
    }
}

impl Algorithm for Scalable {
    const NAMES: &'static [&'static str] = &["scalable", "stcp"];
    type Config = ScalableConfig;
    type Fluid = ScalableFluid;
    fn config(p: &mut Params) -> Result<ScalableConfig, String> {
        ScalableConfig::from_params(p)
    }
    fn packet(cfg: &ScalableConfig) -> Box<dyn CongestionControl> {
        Box::new(Scalable::new(*cfg))
    }
    fn fluid(cfg: &ScalableConfig) -> Option<ScalableFluid> {
        Some(ScalableFluid { p: *cfg })
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let acked = w.slow_start(ack.acked);
        if acked <= 0.0 {
            return;
        }
        if self.p.legacy(w.cwnd) {
            // Legacy region: RFC 5681 congestion avoidance.
            w.additive_increase(reno::INCREASE_PER_RTT, acked);
        } else {
            // Kelly eq. (1): cwnd ← cwnd + a for each ACK received (per acked segment),
            // i.e. a·cwnd per RTT: the window grows by a factor (1 + a) each RTT.
            w.cwnd += self.p.a * acked;
        }
    }
    fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
        self.p.reduced(w.cwnd).max(2.0)
    }
}

/// The rate form: no state beyond the config.
#[derive(Clone, Copy, Debug)]
pub struct ScalableFluid {
    pub p: ScalableConfig,
}

impl FluidLaw for ScalableFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {}
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        let per_rtt = if self.p.legacy(w) {
            reno::INCREASE_PER_RTT
        } else {
            // a per acknowledged segment: a·W per RTT.
            self.p.a * w
        };
        w + per_rtt * dt / rtt
    }
    fn on_loss(&mut self, w: f64, _t: f64) -> f64 {
        self.p.reduced(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::cc::CongestionKind;
    use crate::units::Time;

    #[test]
    fn constant_per_ack_increase_and_eighth_decrease() {
        let mut s = Scalable::new(ScalableConfig::default());
        let ack = ack_at(Time::ZERO, 1, None, Time::ZERO);
        for w0 in [100.0, 1000.0, 50000.0] {
            let mut st = state(w0, w0);
            for _ in 0..50 {
                s.on_ack(&mut st, &ack);
            }
            // Independent of the window: 50 ACKs add 0.5 segment.
            assert!((st.cwnd - (w0 + 0.5)).abs() < 1e-9, "{w0}: {}", st.cwnd);
            let ss = s.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 0));
            assert!((ss - 0.875 * (w0 + 0.5)).abs() < 1e-9);
        }
        // One RTT of ACKs multiplies the window by about 1.01 (MIMD).
        let mut st = state(1000.0, 1000.0);
        for _ in 0..1000 {
            s.on_ack(&mut st, &ack);
        }
        assert!((st.cwnd - 1010.0).abs() < 1e-9);
    }

    #[test]
    fn legacy_region_is_reno() {
        let mut s = Scalable::new(ScalableConfig::default());
        let mut st = state(10.0, 5.0);
        s.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, Time::ZERO));
        assert!((st.cwnd - 10.1).abs() < 1e-12);
        let ss = s.on_congestion(&st, &cong(Time::ZERO, CongestionKind::Ecn, 0));
        assert!((ss - 5.05).abs() < 1e-12);
    }

    #[test]
    fn fluid_is_mimd_above_the_legacy_window() {
        // Kelly: ×1.01 per RTT, i.e. dW/dt = 0.01·W/R: W(t) = W0·e^{0.01·t/R};
        // 10 s at R = 0.1 s is 100 RTTs: e^1.
        let mut l = ScalableFluid {
            p: ScalableConfig::default(),
        };
        let (mut w, dt) = (100.0, 1e-3);
        for i in 0..10_000 {
            w = l.grow(w, i as f64 * dt, 0.1, dt);
        }
        assert!((w / (100.0 * 1f64.exp()) - 1.0).abs() < 1e-3, "{w}");
        assert!((l.on_loss(100.0, 0.0) - 87.5).abs() < 1e-12);
        assert_eq!(l.on_loss(10.0, 0.0), 5.0, "Reno below the legacy window");
    }
}
