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
//! Forms (`form`, by the TCP profile): `"rfc"` (ns2, ns3) as RFC 8257 writes it, in real
//! numbers: Reno's growth of 1/cwnd a segment, ssthresh = cwnd·(1 − α/2), a loss halves;
//! `"linux"` (linux) as `tcp_dctcp.c`: Reno's growth by `tcp_reno_cong_avoid` (exactly
//! ⌊cwnd⌋ segments acknowledged per +1, `tcp_cong_avoid_ai`), α in 1/1024 with
//! `dctcp_update_alpha`'s shifts (a window without marks takes α/16 off, or all of α
//! below 16/1024: `min_not_zero`), ssthresh = max(cwnd − (cwnd·α >> 11), 2) and a loss
//! max(cwnd >> 1, 2) (`dctcp_ssthresh`, `dctcp_react_to_loss`), of the whole-segment cwnd.
//!
//! Differences from the source:
//! - α's observation window is the sender's round (tcp/round.rs: it ends at the first
//!   ACK covering the data sent when the previous one ended), as RFC 8257 §3.3's
//!   "once per window" and Linux's `next_seq = snd_nxt`. Segments acknowledged while
//!   the sender is in fast recovery are not seen (`on_ack` is not called there), so F
//!   is measured on the ACKs outside recovery.
//! - The `rfc` form's arithmetic is in f64, not Linux's 10-bit fixed point
//!   (`DCTCP_MAX_ALPHA = 1024`).
//! - No fluid form: the fluid engine refuses `cc = "dctcp"` (ECN marking is not in its
//!   queue model).

use super::contract::{
    Ack, Algorithm, Congestion, CongestionControl, CongestionKind, EcnStyle, NoFluid, Round, Window,
};
use super::params::Params;
use super::profile::Profile;
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
    /// Linux's `tcp_dctcp.c` (module doc) rather than the RFC's real arithmetic: the
    /// shift `dctcp_shift_g` (g = 2^−shift) when set.
    pub linux_shift_g: Option<u32>,
}

impl DctcpConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let g = p.pos("g", G, 1.0)?;
        let d = match p.profile() {
            Profile::Linux => "linux",
            Profile::Ns2 | Profile::Ns3 => "rfc",
        };
        let linux_shift_g = match p.choice("form", &["rfc", "linux"], d)? {
            "linux" => {
                // Linux's module parameter dctcp_shift_g: 0..=10, g = 2^−shift.
                let shift = -g.log2();
                if shift.fract() != 0.0 || !(0.0..=10.0).contains(&shift) {
                    return Err(format!(
                        "g = {g}: the linux form takes g = 1/2^k, k from 0 to 10 (Linux's \
                         dctcp_shift_g); set form = \"rfc\" for any other g"
                    ));
                }
                Some(shift as u32)
            }
            _ => None,
        };
        Ok(DctcpConfig {
            g,
            alpha_init: p.num("alpha_init", 1.0, 0.0, 1.0)?,
            ect1: p.flag("ect1", false)?,
            linux_shift_g,
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

    /// The window's segments acknowledged and, of those, echoed CE; the next starts.
    pub fn take_window(&mut self) -> (f64, f64) {
        let out = (self.acked, self.marked);
        self.acked = 0.0;
        self.marked = 0.0;
        out
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

/// Linux `dctcp_update_alpha` (net/ipv4/tcp_dctcp.c): α (of 1024) after a window in which
/// `delivered` segments were delivered, `delivered_ce` of them on ACKs echoing CE.
pub fn linux_alpha_update(alpha: u32, shift_g: u32, delivered: u64, delivered_ce: u64) -> u32 {
    // alpha -= min_not_zero(alpha, alpha >> dctcp_shift_g)
    let dec = alpha >> shift_g;
    let mut a = alpha - if dec == 0 { alpha } else { dec };
    if delivered_ce > 0 {
        let f = (delivered_ce << (10 - shift_g)) / delivered.max(1);
        a = (u64::from(a) + f).min(u64::from(LINUX_MAX_ALPHA)) as u32;
    }
    a
}

/// Linux's DCTCP_MAX_ALPHA: α = 1 in its 10-bit fixed point.
pub const LINUX_MAX_ALPHA: u32 = 1024;

/// Linux's form's state: α of 1024, and Linux's Reno (`tcp_reno_cong_avoid`,
/// `snd_cwnd_cnt`), which DCTCP grows and halves by.
#[derive(Clone, Copy, Debug)]
pub struct DctcpLinux {
    pub alpha: u32,
    pub shift_g: u32,
    reno: reno::RenoLinux,
}

/// The per-ACK form.
pub struct Dctcp {
    pub est: AlphaEstimator,
    pub ect1: bool,
    /// The linux form (module doc); None: the RFC's.
    pub linux: Option<DctcpLinux>,
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
            // dctcp_alpha_on_init, clamped to DCTCP_MAX_ALPHA.
            linux: cfg.linux_shift_g.map(|shift_g| DctcpLinux {
                alpha: (cfg.alpha_init * f64::from(LINUX_MAX_ALPHA)).round() as u32,
                shift_g,
                reno: reno::RenoLinux::default(),
            }),
        })
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.est.on_ack(ack.acked, ack.ece);
        if let Some(l) = &mut self.linux {
            // .cong_avoid = tcp_reno_cong_avoid.
            l.reno.on_ack(w, ack);
            return;
        }
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
        if let Some(l) = &mut self.linux {
            let (delivered, marked) = self.est.take_window();
            l.alpha = linux_alpha_update(l.alpha, l.shift_g, delivered as u64, marked as u64);
            self.est.alpha = f64::from(l.alpha) / f64::from(LINUX_MAX_ALPHA);
            return;
        }
        self.est.end_window();
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        if let Some(l) = &mut self.linux {
            // Reno's reduction clears snd_cwnd_cnt, as every reduction does, and is
            // dctcp_react_to_loss's max(cwnd >> 1, 2).
            let halved = l.reno.on_congestion(w, ev);
            return match ev.kind {
                // dctcp_ssthresh: max(cwnd − ((cwnd·α) >> 11), 2), whole segments.
                CongestionKind::Ecn => {
                    let cwnd = w.cwnd.floor() as u64;
                    (cwnd - ((cwnd * u64::from(l.alpha)) >> 11)).max(2) as f64
                }
                CongestionKind::FastRetransmit | CongestionKind::Timeout => halved,
            };
        }
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
            linux: None,
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
            linux: None,
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

    fn linux_dctcp(alpha: u32) -> Dctcp {
        Dctcp {
            est: AlphaEstimator::new(G, f64::from(alpha) / 1024.0),
            ect1: false,
            linux: Some(DctcpLinux {
                alpha,
                shift_g: 4,
                reno: reno::RenoLinux::default(),
            }),
        }
    }

    /// Linux `dctcp_update_alpha` in 1/1024: a window without marks takes α >> 4 off, and
    /// all of α once that is zero (`min_not_zero`), so α reaches 0 (the RFC's real EWMA
    /// never does); under a constant marked fraction F = 1/4 every α with α >> 4 = ⌊64·F⌋
    /// = 16 is a fixed point, 256–271, so α settles up to 15/1024 above F: at 271 from
    /// above; all marked stays at 1024.
    #[test]
    fn linux_alpha_is_fixed_point_and_reaches_zero() {
        let mut a = LINUX_MAX_ALPHA;
        let mut n = 0;
        while a > 0 {
            let next = linux_alpha_update(a, 4, 80, 0);
            assert!(
                next == a - (a >> 4) || (a >> 4 == 0 && next == 0),
                "{a} -> {next}"
            );
            a = next;
            n += 1;
        }
        // 1024·(15/16)^n falls below 16 after 65 windows (integer steps: a few more).
        assert!((60..=80).contains(&n), "{n}");
        let settle = |mut a| {
            for _ in 0..300 {
                a = linux_alpha_update(a, 4, 80, 20);
            }
            a
        };
        assert_eq!(settle(LINUX_MAX_ALPHA), 271);
        assert!((256..=271).contains(&settle(0)), "{}", settle(0));
        assert_eq!(
            linux_alpha_update(LINUX_MAX_ALPHA, 4, 80, 80),
            LINUX_MAX_ALPHA
        );
    }

    /// `dctcp_ssthresh` = max(cwnd − ((cwnd·α) >> 11), 2) and `dctcp_react_to_loss` =
    /// max(cwnd >> 1, 2), of the whole-segment window.
    #[test]
    fn linux_reductions_are_in_whole_segments() {
        let mut d = linux_dctcp(512);
        let w = state(100.7, 50.0);
        let e = d.on_congestion(&w, &cong(Time::ZERO, CongestionKind::Ecn, 100));
        assert_eq!(e, 75.0); // 100 − (51,200 >> 11 = 25)
        let l = d.on_congestion(&w, &cong(Time::ZERO, CongestionKind::FastRetransmit, 100));
        assert_eq!(l, 50.0);
        let mut d = linux_dctcp(1024);
        let w = state(3.0, 2.0);
        let e = d.on_congestion(&w, &cong(Time::ZERO, CongestionKind::Ecn, 3));
        assert_eq!(e, 2.0); // 3 − 1 = 2, the floor
    }

    /// The form follows the profile; the linux form takes g = 2^−k only (Linux's
    /// `dctcp_shift_g`), and says so.
    #[test]
    fn the_linux_form_is_the_linux_profiles_and_takes_g_as_a_shift() {
        use crate::cc::params::Params;
        let cfg = |pairs: &[(&str, toml::Value)], p| {
            let t: toml::value::Table = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            DctcpConfig::from_params(&mut Params::new("dctcp", &t, p))
        };
        assert_eq!(cfg(&[], Profile::Linux).unwrap().linux_shift_g, Some(4));
        assert_eq!(cfg(&[], Profile::Ns3).unwrap().linux_shift_g, None);
        let g = |x: f64| ("g", toml::Value::Float(x));
        assert_eq!(
            cfg(&[g(0.25)], Profile::Linux).unwrap().linux_shift_g,
            Some(2)
        );
        let e = cfg(&[g(0.1)], Profile::Linux).err().unwrap();
        assert!(e.contains("g = 0.1") && e.contains("dctcp_shift_g"), "{e}");
        let rfc = ("form", toml::Value::String("rfc".into()));
        assert_eq!(cfg(&[g(0.1), rfc], Profile::Linux).unwrap().g, 0.1);
    }

    /// `tcp_reno_cong_avoid`: one segment per ⌊cwnd⌋ segments acknowledged, counted apart
    /// from cwnd, so ten ACKs of two segments at cwnd 20 add exactly one.
    #[test]
    fn linux_form_grows_a_segment_per_whole_window() {
        let mut d = linux_dctcp(0);
        let mut w = state(20.0, 10.0);
        let a = Ack::new(Time(1), 2.0);
        for k in 1..=10 {
            d.on_ack(&mut w, &a);
            assert_eq!(w.cwnd.floor(), if k < 10 { 20.0 } else { 21.0 }, "{k}");
        }
    }
}
