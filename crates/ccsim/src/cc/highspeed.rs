//! HighSpeed TCP (RFC 3649): AIMD whose increase a(w) and decrease b(w) depend on the
//! window above Low_Window, chosen so that the response function is the log-log line
//! through (Low_Window, Low_P) and (High_Window, High_P).
//!
//! Both forms use `a(w)` and `b(w)` below: per ACK w += a(w)/w (RFC 3649 §4), which is
//! a(w) segments per RTT in the rate form; on a loss w ← (1 − b(w))·w in both.

use super::contract::{Ack, Algorithm, Congestion, CongestionControl, FluidLaw, Window};
use super::params::Params;

/// RFC 3649 parameters.
#[derive(Clone, Copy, Debug)]
pub struct HighSpeedConfig {
    /// Low_Window: at and below it HighSpeed is Reno (RFC 3649 §5: 38 segments).
    pub low_window: f64,
    /// High_Window: the window reached at loss rate High_P (§5: 83000 segments).
    pub high_window: f64,
    /// Loss rate at which standard TCP has window Low_Window (RFC 3649 §5: 1.2/√p = 38
    /// gives p ≈ 10⁻³).
    pub low_p: f64,
    /// High_P, the loss rate at High_Window (§5: 10⁻⁷).
    pub high_p: f64,
    /// High_Decrease, b(High_Window) (§5: 0.1).
    pub high_decrease: f64,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        // RFC 3649 §5 (and §6's table): Low_Window 38, High_Window 83000, High_P 10⁻⁷,
        // High_Decrease 0.1.
        HighSpeedConfig {
            low_window: 38.0,
            high_window: 83000.0,
            low_p: 1e-3,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }
}

impl HighSpeedConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = HighSpeedConfig::default();
        let hp = HighSpeedConfig {
            low_window: p.num("low_window", d.low_window, 1.0, 1e9)?,
            high_window: p.num("high_window", d.high_window, 1.0, 1e12)?,
            low_p: p.pos("low_p", d.low_p, 1.0)?,
            high_p: p.pos("high_p", d.high_p, 1.0)?,
            high_decrease: p.pos("high_decrease", d.high_decrease, 0.5)?,
        };
        if hp.high_window <= hp.low_window {
            return Err(format!(
                "high_window: must exceed low_window ({}), got {}",
                hp.low_window, hp.high_window
            ));
        }
        if hp.high_p >= hp.low_p {
            return Err(format!(
                "high_p: must be below low_p ({}), got {}",
                hp.low_p, hp.high_p
            ));
        }
        Ok(hp)
    }

    /// RFC 3649 §5: for w > Low_Window,
    /// b(w) = (High_Decrease − 0.5)·(log w − log W_low)/(log W_high − log W_low) + 0.5,
    /// and 0.5 below. Beyond High_Window the line would keep falling (to zero and
    /// below); we hold it at High_Decrease, as Linux's table does past its last row.
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        let w = w.min(self.high_window);
        let f = (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln());
        (self.high_decrease - 0.5) * f + 0.5
    }

    /// RFC 3649 §5: the response function is the straight line in log-log coordinates
    /// through (Low_Window, Low_P) and (High_Window, High_P), i.e.
    /// log p(w) = log Low_P + (log w − log W_low)·(log High_P − log Low_P)/(log W_high − log W_low)
    /// (with the defaults, p(w) ≈ 0.078/w^1.2).
    pub fn p(&self, w: f64) -> f64 {
        let s =
            (self.high_p.ln() - self.low_p.ln()) / (self.high_window.ln() - self.low_window.ln());
        (self.low_p.ln() + (w.ln() - self.low_window.ln()) * s).exp()
    }

    /// RFC 3649 §5: a(w) = w²·p(w)·2·b(w)/(2 − b(w)) for w > Low_Window, 1 below.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        self.a_given_p(w, self.p(w))
    }

    /// a(w) for a given p(w): the AIMD(a, b) with loss rate p has window w when
    /// w² = a·(2 − b)/(2·b·p) (RFC 3649 §5). Never below Reno's 1.
    pub fn a_given_p(&self, w: f64, p: f64) -> f64 {
        let b = self.b(w);
        (w * w * p * 2.0 * b / (2.0 - b)).max(1.0)
    }

    /// RFC 3649 §4: the window after a congestion event, (1 − b(w))·w.
    pub fn reduced(&self, w: f64) -> f64 {
        (1.0 - self.b(w)) * w
    }
}

/// The per-ACK form: no state beyond the config.
pub struct HighSpeed {
    pub p: HighSpeedConfig,
}

impl HighSpeed {
    pub fn new(p: HighSpeedConfig) -> Self {
        HighSpeed { p }
    }
}

impl Algorithm for HighSpeed {
    const NAMES: &'static [&'static str] = &["highspeed", "hstcp"];
    type Config = HighSpeedConfig;
    type Fluid = HighSpeedFluid;
    fn config(p: &mut Params) -> Result<HighSpeedConfig, String> {
        HighSpeedConfig::from_params(p)
    }
    fn packet(cfg: &HighSpeedConfig) -> Box<dyn CongestionControl> {
        Box::new(HighSpeed::new(*cfg))
    }
    fn fluid(cfg: &HighSpeedConfig) -> Option<HighSpeedFluid> {
        Some(HighSpeedFluid::new(*cfg))
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let acked = w.slow_start(ack.acked);
        if acked > 0.0 {
            // RFC 3649 §4: w ← w + a(w)/w per ACK (per acked segment here).
            let a = self.p.a(w.cwnd);
            w.additive_increase(a, acked);
        }
    }
    fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
        // RFC 3649 §4: w ← (1 − b(w))·w on a congestion event.
        self.p.reduced(w.cwnd).max(2.0)
    }
}

/// The rate form: dW/dt = a(W)/R, W ← (1 − b(W))·W.
#[derive(Clone, Copy, Debug)]
pub struct HighSpeedFluid {
    pub p: HighSpeedConfig,
    /// a(w) costs a ln and an exp; cached, refreshed when W moves by 0.1 % (a(w) ∝
    /// w^0.8 there, so the cached value is off by < 0.1 %).
    a_cache: f64,
    a_w: f64,
}

impl HighSpeedFluid {
    pub fn new(p: HighSpeedConfig) -> Self {
        HighSpeedFluid {
            p,
            a_cache: 1.0,
            a_w: -1.0,
        }
    }
}

impl FluidLaw for HighSpeedFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {
        *self = HighSpeedFluid::new(self.p);
    }
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        // RFC 3649 §4: w += a(w)/w per ACK, i.e. a(w) per RTT.
        if (w - self.a_w).abs() > 1e-3 * self.a_w {
            self.a_cache = self.p.a(w);
            self.a_w = w;
        }
        w + self.a_cache * dt / rtt
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

    /// Rows of RFC 3649 Appendix B (w, a(w), b(w)), as Linux's tcp_highspeed.c carries
    /// them: each row is the window at which a(w) reaches the next integer. (Rows past
    /// High_Window = 83000 are left out: there we hold b(w) at High_Decrease.)
    const TABLE: &[(f64, f64, f64)] = &[
        (38.0, 1.0, 0.50),
        (118.0, 2.0, 0.44),
        (221.0, 3.0, 0.41),
        (1058.0, 8.0, 0.33),
        (1529.0, 10.0, 0.31),
        (9991.0, 29.0, 0.21),
        (10661.0, 30.0, 0.21),
        (30975.0, 50.0, 0.15),
        (79517.0, 70.0, 0.10),
    ];

    #[test]
    fn a_and_b_match_rfc3649_table() {
        let p = HighSpeedConfig::default();
        for &(w, a, b) in TABLE {
            assert!((p.b(w) - b).abs() < 0.006, "b({w}) = {} vs {b}", p.b(w));
            // The RFC computed its table with the rounded response function
            // p(w) = 0.078/w^1.2 (§5); with it our a(w) hits the table's integers.
            let a_rounded = p.a_given_p(w, 0.078 / w.powf(1.2));
            assert!((a_rounded - a).abs() < 0.06, "a({w}) = {a_rounded} vs {a}");
            // With the exact log-log line through (38, 10⁻³) and (83000, 10⁻⁷) a(w)
            // drifts above the table as w grows: 2.5% at the top row.
            assert!(
                (p.a(w) / a - 1.0).abs() < 0.026,
                "a({w}) = {} vs {a}",
                p.a(w)
            );
        }
        // The brief's points: 1000 and 10000 lie between the bracketing rows.
        assert!(p.a(1000.0) > 7.0 && p.a(1000.0) < 8.136, "{}", p.a(1000.0));
        assert!(
            p.a(10000.0) > 29.0 && p.a(10000.0) < 30.0,
            "{}",
            p.a(10000.0)
        );
        // At High_Window exactly: b = High_Decrease, a = W²·High_P·2·0.1/1.9 ≈ 72.5.
        assert!((p.b(83000.0) - 0.1).abs() < 1e-12);
        let a_hi = 83000.0f64.powi(2) * 1e-7 * 0.2 / 1.9;
        assert!((p.a(83000.0) - a_hi).abs() < 1e-6 && (a_hi - 72.5).abs() < 0.1);
        // The log-log line passes through both anchor points, and p(w) ≈ 0.078/w^1.2.
        assert!((p.p(38.0) - 1e-3).abs() < 1e-12);
        assert!((p.p(83000.0) / 1e-7 - 1.0).abs() < 1e-9);
        assert!((p.p(1000.0) / (0.078 / 1000f64.powf(1.2)) - 1.0).abs() < 0.02);
        // At and below Low_Window: Reno.
        assert_eq!((p.a(38.0), p.b(38.0)), (1.0, 0.5));
        assert_eq!((p.a(10.0), p.b(10.0)), (1.0, 0.5));
    }

    #[test]
    fn reno_below_low_window_and_b_on_loss() {
        let mut h = HighSpeed::new(HighSpeedConfig::default());
        let mut st = state(20.0, 10.0);
        h.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, Time::ZERO));
        assert!((st.cwnd - 20.05).abs() < 1e-12);
        let mut st = state(1058.0, 10.0);
        h.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, Time::ZERO));
        assert!((st.cwnd - 1058.0 - h.p.a(1058.0) / 1058.0).abs() < 1e-12);
        let s = h.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 1058));
        assert!((s / st.cwnd - (1.0 - h.p.b(st.cwnd))).abs() < 1e-9);
        assert!((s / st.cwnd - 0.67).abs() < 0.01);
    }

    /// Integrate congestion avoidance at a fixed RTT for `secs` seconds.
    fn integrate(l: &mut impl FluidLaw, mut w: f64, secs: f64, rtt: f64) -> f64 {
        let dt = 1e-3;
        for i in 0..(secs / dt).round() as usize {
            w = l.grow(w, i as f64 * dt, rtt, dt);
        }
        w
    }

    #[test]
    fn fluid_grows_a_w_per_rtt_and_cuts_by_b_w() {
        // RFC 3649 Appendix B rows: at w = 1058, a = 8 and b = 0.33 (to the table's
        // rounding, see above); one RTT of growth adds ~a.
        let mut l = HighSpeedFluid::new(HighSpeedConfig::default());
        let w = integrate(&mut l, 1058.0, 0.1, 0.1);
        assert!((w - 1058.0 - 8.0).abs() < 0.4, "{w}");
        let w = l.on_loss(1058.0, 0.0);
        assert!((w / 1058.0 - 0.67).abs() < 0.01, "{w}");
        // Below Low_Window = 38: Reno.
        assert_eq!(l.on_loss(30.0, 0.0), 15.0);
        let w = integrate(&mut l, 30.0, 1.0, 0.1);
        assert!((w - 40.0).abs() < 0.1, "{w}");
    }
}
