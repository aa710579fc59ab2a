//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010): Reno's growth, and on ECN-Echo a
//! reduction in proportion to the extent of congestion, cwnd ← cwnd·(1 − α/2), where α
//! is an EWMA of the fraction of acknowledged data that was CE-marked, updated once per
//! window of data with gain g = 1/16 (§3.3).
//!
//! Who does what here: the receiver echoes the CE mark of every segment (RFC 8257
//! §3.2's two-state machine, tcp/receiver.rs, chosen by [`EcnStyle::Dctcp`]); the
//! sender marks its data ECT(0) (§3.1) and reduces at most once per window on ECE
//! (the sender's RFC 3168 reaction, cwnd = the ssthresh returned here); this file keeps
//! α. On a loss DCTCP halves its window like Reno (§3.5; Linux `dctcp_react_to_loss`).
//!
//! Differences from the source:
//! - α's observation window is the sender's round (tcp/round.rs: it ends at the first
//!   ACK covering the data sent when the previous one ended), as RFC 8257 §3.3's
//!   "once per window" and Linux's `next_seq = snd_nxt`. Segments acknowledged while
//!   the sender is in fast recovery are not seen (`on_ack` is not called there), so F
//!   is measured on the ACKs outside recovery.
//! - Arithmetic is in f64, not Linux's 10-bit fixed point (`DCTCP_MAX_ALPHA = 1024`).
//! - No fluid form: the fluid engine refuses `cc = "dctcp"` (ECN marking is not in its
//!   queue model).

use super::contract::{
    Ack, Algorithm, Congestion, CongestionControl, CongestionKind, EcnStyle, NoFluid, Round, Window,
};
use super::params::Params;
use super::reno;

/// RFC 8257 §3.3 / §4.2: the EWMA gain, 1/16 by default.
pub const G: f64 = 1.0 / 16.0;

/// DCTCP's parameters.
#[derive(Clone, Copy, Debug)]
pub struct DctcpConfig {
    /// EWMA gain g. Range (0, 1]; RFC 8257 §4.2 recommends 1/16.
    pub g: f64,
    /// α before the first window has been measured. Range [0, 1]; RFC 8257 §3.3 and
    /// Linux (`dctcp_alpha_on_init` = 1024/1024) start at 1.
    pub alpha_init: f64,
    /// Send ECT(1) instead of ECT(0), so that an L4S queue (DualPI2) classifies the
    /// flow as L4S, as data-centre L4S set-ups do (the flow is then also paced by
    /// default, as `EcnStyle::L4s`). Default false (RFC 8257 §3.1: ECT(0)).
    pub ect1: bool,
}

impl DctcpConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        Ok(DctcpConfig {
            g: p.pos("g", G, 1.0)?,
            alpha_init: p.num("alpha_init", 1.0, 0.0, 1.0)?,
            ect1: p.flag("ect1", false)?,
        })
    }
}

/// RFC 8257 §3.3: α ← (1 − g)·α + g·M, M the fraction of the window's acknowledged
/// data that was marked.
#[inline]
pub fn alpha_update(alpha: f64, g: f64, marked_fraction: f64) -> f64 {
    (1.0 - g) * alpha + g * marked_fraction
}

/// RFC 8257 §3.3: on ECN-Echo, cwnd ← cwnd·(1 − α/2).
#[inline]
pub fn reduced(cwnd: f64, alpha: f64) -> f64 {
    cwnd * (1.0 - alpha / 2.0)
}

/// The congestion estimate α over windows of data (RFC 8257 §3.3's
/// DCTCP.BytesAcked / DCTCP.BytesMarked, counted in segments). Prague keeps one too.
#[derive(Clone, Copy, Debug)]
pub struct AlphaEstimator {
    pub alpha: f64,
    pub g: f64,
    /// Segments acknowledged, and of those ECN-echoed, in the current window.
    acked: f64,
    marked: f64,
}

impl AlphaEstimator {
    pub fn new(g: f64, alpha: f64) -> Self {
        AlphaEstimator {
            alpha,
            g,
            acked: 0.0,
            marked: 0.0,
        }
    }

    /// An ACK of `acked` segments, CE-marked if `ece` (per-packet echo, §3.2).
    #[inline]
    pub fn on_ack(&mut self, acked: f64, ece: bool) {
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
    }

    /// The window ended (§3.3: "once for every window of data"): fold its marked
    /// fraction into α and start the next. A window with nothing acknowledged (all of
    /// it in fast recovery) leaves α alone.
    pub fn end_window(&mut self) -> Option<f64> {
        if self.acked <= 0.0 {
            return None;
        }
        let f = self.marked / self.acked;
        self.alpha = alpha_update(self.alpha, self.g, f);
        self.acked = 0.0;
        self.marked = 0.0;
        Some(f)
    }
}

/// The per-ACK form.
pub struct Dctcp {
    pub est: AlphaEstimator,
    pub ect1: bool,
}

impl Algorithm for Dctcp {
    const NAMES: &'static [&'static str] = &["dctcp"];
    type Config = DctcpConfig;
    type Fluid = NoFluid;
    fn config(p: &mut Params) -> Result<DctcpConfig, String> {
        DctcpConfig::from_params(p)
    }
    fn packet(cfg: &DctcpConfig) -> Box<dyn CongestionControl> {
        Box::new(Dctcp {
            est: AlphaEstimator::new(cfg.g, cfg.alpha_init),
            ect1: cfg.ect1,
        })
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.est.on_ack(ack.acked, ack.ece);
        // RFC 8257 §3.4: otherwise as a conventional TCP (Reno's growth).
        let left = w.slow_start(ack.acked);
        if left > 0.0 {
            w.additive_increase(reno::INCREASE_PER_RTT, left);
        }
    }
    /// Linux `dctcp_update_alpha` (and ns-3's `TcpDctcp`, `m_lastAckedSeq >= m_nextSeq`)
    /// closes α's window at the ACK that reaches next_seq: `!before(snd_una, next_seq)`.
    fn rounds_cover(&self) -> Option<bool> {
        Some(false)
    }

    fn on_round(&mut self, _w: &mut Window, _round: &Round) {
        self.est.end_window();
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        match ev.kind {
            // RFC 8257 §3.3: ssthresh = cwnd·(1 − α/2); the sender sets cwnd to it.
            CongestionKind::Ecn => reduced(w.cwnd, self.est.alpha),
            // §3.5: a loss halves the window, as RFC 5681 (Linux: cwnd/2).
            CongestionKind::FastRetransmit | CongestionKind::Timeout => reno::ssthresh(w.cwnd),
        }
    }
    fn ecn(&self) -> EcnStyle {
        if self.ect1 {
            EcnStyle::L4s
        } else {
            EcnStyle::Dctcp
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::units::Time;

    /// RFC 8257 §3.3: with a constant marked fraction F, α_{n+1} = (1 − g)α_n + gF, so
    /// α_n = F + (α_0 − F)(1 − g)^n → F.
    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        for f in [0.0, 0.1, 0.25, 0.6] {
            let mut e = AlphaEstimator::new(G, 1.0);
            for n in 1..=200 {
                // A window of 80 segments, 40 ACKs of 2, the first 80·F of them marked
                // (delayed ACKs: each ACK covers two segments).
                let marked_acks = (40.0 * f) as usize;
                for i in 0..40 {
                    e.on_ack(2.0, i < marked_acks);
                }
                let m = e.end_window().unwrap();
                assert!((m - marked_acks as f64 / 40.0).abs() < 1e-12);
                let closed = m + (1.0 - m) * (1.0 - G).powi(n);
                assert!(
                    (e.alpha - closed).abs() < 1e-12,
                    "n={n} {} {closed}",
                    e.alpha
                );
            }
            assert!((e.alpha - f).abs() < 1e-5, "F={f} α={}", e.alpha);
        }
    }

    #[test]
    fn ecn_reduces_by_half_alpha_and_loss_halves() {
        let mut d = Dctcp {
            est: AlphaEstimator::new(G, 0.2),
            ect1: false,
        };
        let w = state(100.0, 50.0);
        let e = d.on_congestion(&w, &cong(Time::ZERO, CongestionKind::Ecn, 100));
        assert!((e - 90.0).abs() < 1e-12, "{e}");
        let l = d.on_congestion(&w, &cong(Time::ZERO, CongestionKind::FastRetransmit, 100));
        assert_eq!(l, 50.0);
        assert_eq!(d.ecn(), EcnStyle::Dctcp);
    }

    /// α is updated once per window (at the round's end), not per ACK.
    #[test]
    fn alpha_moves_only_at_the_end_of_a_window() {
        let mut d = Dctcp {
            est: AlphaEstimator::new(G, 0.0),
            ect1: false,
        };
        let mut w = state(10.0, 5.0);
        let mut a = Ack::new(Time(1), 1.0);
        a.ece = true;
        for _ in 0..10 {
            d.on_ack(&mut w, &a);
        }
        assert_eq!(d.est.alpha, 0.0);
        d.on_round(&mut w, &round(Time(2), Time(1), Time(1)));
        assert!((d.est.alpha - G).abs() < 1e-15);
        // Reno's growth meanwhile: ten segments at cwnd 10 add about one.
        assert!((w.cwnd - 11.0).abs() < 0.05, "{}", w.cwnd);
    }
}
