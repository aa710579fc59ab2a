//! Reno's window law (RFC 5681 §3.1): slow start, then one segment per RTT; halve on
//! loss. Reno and NewReno share it; they differ in loss recovery, which is the
//! sender's (tcp/sender.rs).
//!
//! Rate form (the fluid engine's AIMD, Misra–Gong–Towsley 2000 eq. (1)):
//! dW/dt = 1/R in congestion avoidance, W ← W/2 on a loss indication.
//!
//! Forms (`form`, by the TCP profile): `"rfc"` (ns2) counts acknowledged segments
//! (RFC 5681 with RFC 3465 byte counting, as Linux's `tcp_slow_start` and
//! `tcp_cong_avoid_ai`) and sets ssthresh = FlightSize/2 (eq. (4)); `"linux"` (linux)
//! adds one segment per ⌊cwnd⌋ segments acknowledged, counted apart from cwnd as
//! `tcp_cong_avoid_ai` counts `snd_cwnd_cnt` (so each increase comes exactly one window
//! after the last), and sets ssthresh = max(⌊cwnd⌋ >> 1, 2) (`tcp_reno_ssthresh`): from
//! the window, not the flight, which Linux's SACK accounting lets rise above cwnd
//! before DupThresh (`tcp.limited_transmit`), and halved in integers (β = 62/125);
//! `"ns3"` is ns-3's `TcpNewReno`, which counts ACKs: one segment
//! per ACK in slow start and 1/cwnd per ACK after, whatever the ACK covers — with
//! delayed ACKs, ×1.5 per RTT in slow start and ½ segment per RTT in congestion
//! avoidance, less for large windows: ns-3 keeps cwnd in whole bytes and truncates the
//! per-ACK increase MSS²/cwnd to an integer (0.35 segment per RTT at 500 segments of
//! 1448 B; validation/ns3 measured it against ns-3.44).

use super::contract::{
    cong_avoid_ai, Ack, Algorithm, Congestion, CongestionControl, FluidLaw, Window,
};
use super::params::Params;
use super::profile::Profile;

/// RFC 5681 eq. (3): congestion avoidance adds one segment per RTT.
pub const INCREASE_PER_RTT: f64 = 1.0;

/// RFC 5681 eq. (4): ssthresh = FlightSize / 2 (the sender floors it at 2 segments).
pub fn ssthresh(flight_size: f64) -> f64 {
    flight_size / 2.0
}

/// Reno / NewReno, counting acknowledged segments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

/// Reno / NewReno as Linux's `tcp_cong.c` writes it: one segment per ⌊cwnd⌋ segments
/// acknowledged, counted apart from cwnd (`snd_cwnd_cnt`, `tcp_cong_avoid_ai`), and
/// ssthresh from the window (`tcp_reno_ssthresh`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RenoLinux {
    /// Linux's `snd_cwnd_cnt`: segments acknowledged toward the next +1.
    cwnd_cnt: f64,
}

/// Reno / NewReno as ns-3's `TcpNewReno`, counting ACKs (see the module doc). A type of
/// its own so that the segment-counting law costs nothing extra per ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenoPerAck;

/// Which stack's Reno (`form`; module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenoForm {
    Rfc,
    Linux,
    Ns3,
}

impl Algorithm for Reno {
    const NAMES: &'static [&'static str] = &["reno", "newreno"];
    type Config = RenoForm;
    type Fluid = RenoFluid;
    fn config(p: &mut Params) -> Result<RenoForm, String> {
        let d = match p.profile() {
            Profile::Linux => "linux",
            Profile::Ns2 => "rfc",
            Profile::Ns3 => "ns3",
        };
        Ok(match p.choice("form", &["rfc", "linux", "ns3"], d)? {
            "linux" => RenoForm::Linux,
            "ns3" => RenoForm::Ns3,
            _ => RenoForm::Rfc,
        })
    }
    fn packet(form: &RenoForm) -> Box<dyn CongestionControl> {
        match form {
            RenoForm::Rfc => Box::new(Reno),
            RenoForm::Linux => Box::<RenoLinux>::default(),
            RenoForm::Ns3 => Box::new(RenoPerAck),
        }
    }
    fn fluid(_cfg: &RenoForm) -> Option<RenoFluid> {
        Some(RenoFluid)
    }
}

impl CongestionControl for RenoLinux {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        // tcp_reno_cong_avoid: nothing counts on an ACK the window did not limit.
        if ack.cwnd_validation && !ack.cwnd_limited {
            return;
        }
        let acked = w.slow_start(ack.acked);
        if acked <= 0.0 {
            return;
        }
        // tcp_cong_avoid_ai(tp, snd_cwnd, acked): exactly ⌊cwnd⌋ segments acknowledged
        // per +1, so an increase comes one window after the last, at the ACK of about
        // the segment that increase sent (a fraction 1/cwnd per segment, recomputed
        // as cwnd grows, takes about half a segment more and drifts through the window).
        let wnd = (w.cwnd + 1e-9).floor().max(1.0);
        let whole = cong_avoid_ai(&mut self.cwnd_cnt, wnd, wnd, acked);
        // cwnd shows the count as its fraction (ss reads the whole part).
        w.cwnd = whole + (self.cwnd_cnt / whole).min(0.999_999);
    }
    fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
        // Every reduction clears snd_cwnd_cnt (tcp_init_cwnd_reduction, tcp_enter_loss).
        self.cwnd_cnt = 0.0;
        // Linux tcp_reno_ssthresh: max(snd_cwnd >> 1, 2), of the whole-segment cwnd, not
        // of the flight, which Limited Transmit's segments have raised above cwnd by the
        // third duplicate.
        ((w.cwnd.floor() / 2.0).floor()).max(2.0)
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let acked = w.slow_start(ack.acked);
        if acked > 0.0 {
            // RFC 5681 eq. (3): cwnd += SMSS·SMSS/cwnd per ACK, here per acked segment.
            w.additive_increase(INCREASE_PER_RTT, acked);
        }
    }
    fn on_congestion(&mut self, _w: &Window, ev: &Congestion) -> f64 {
        // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS).
        ssthresh(ev.in_flight).max(2.0)
    }
}

impl CongestionControl for RenoPerAck {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        // ns-3 TcpNewReno::SlowStart / CongestionAvoidance: one segment per ACK,
        // then SMSS·SMSS/cwnd per ACK.
        // (IncreaseWindow: what the slow-start step leaves, if anything, is one
        // congestion-avoidance step.)
        let mut left = ack.acked;
        if w.in_slow_start() && left >= 1.0 {
            w.cwnd += 1.0;
            left -= 1.0;
        }
        if !w.in_slow_start() && left > 0.0 {
            // TcpNewReno::CongestionAvoidance keeps cwnd in whole bytes: the increase
            // per ACK, MSS²/cwnd bytes (at least one), is truncated to an integer, so
            // a large window grows by less than ½ segment per RTT (a 500-segment
            // window of 1448 B by 2 B instead of 2.9 B per ACK: 0.35 segment per RTT).
            debug_assert!(ack.mss > 0, "the sender always sets the MSS");
            let mss = f64::from(ack.mss.max(1));
            let adder = (mss / w.cwnd).max(1.0).floor();
            w.cwnd += adder / mss;
        }
    }
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        Reno.on_congestion(w, ev)
    }
}

/// AIMD(1, 1/2) as a rate: no state.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenoFluid;

impl FluidLaw for RenoFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {}
    #[inline]
    fn grow(&mut self, w: f64, _t: f64, rtt: f64, dt: f64) -> f64 {
        // One segment per RTT: "1/cwnd per acknowledged segment" times W segments.
        w + INCREASE_PER_RTT * dt / rtt
    }
    fn on_loss(&mut self, w: f64, _t: f64) -> f64 {
        // In the fluid model W is the data in flight: FlightSize = W.
        ssthresh(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::cc::CongestionKind;
    use crate::units::Time;

    /// ns-3 TcpNewReno counts ACKs: with delayed ACKs (two segments each) slow start
    /// grows ×1.5 per RTT and congestion avoidance ½ segment per RTT; RFC 5681 with
    /// byte counting grows ×2 and 1.
    #[test]
    fn ns3_form_counts_acks_not_segments() {
        // (form, slow start after 5 ACKs, growth over 50 ACKs, tolerance: the RFC form's
        // 1/cwnd per segment gives just under one segment as cwnd grows meanwhile)
        for (form, ss, ca, tol) in [
            (RenoForm::Ns3, 15.0, 50.0 * 14.0 / 1448.0, 1e-9),
            (RenoForm::Rfc, 20.0, 1.0, 0.01),
            (RenoForm::Linux, 20.0, 1.0, 0.01),
        ] {
            let mut r = Reno::packet(&form);
            let r = r.as_mut();
            let mut a = ack_at(Time::ZERO, 2, None, Time::ZERO);
            a.mss = 1448;
            let mut st = state(10.0, 1e9);
            for _ in 0..5 {
                r.on_ack(&mut st, &a);
            }
            assert_eq!(st.cwnd, ss, "{form:?}");
            // ns-3: 50 ACKs at cwnd ≈ 100 segments of 1448 B each add
            // floor(1448² / 144 800) = 14 whole bytes (½ segment would be 50 × 14.48).
            let mut st = state(100.0, 50.0);
            for _ in 0..50 {
                r.on_ack(&mut st, &a);
            }
            assert!(
                (st.cwnd - 100.0 - ca).abs() < tol,
                "{} vs {}",
                st.cwnd,
                100.0 + ca
            );
        }
    }

    /// Linux `tcp_cong_avoid_ai(tp, snd_cwnd, acked)`: exactly ⌊cwnd⌋ segments
    /// acknowledged per +1, one window after the last increase, where a 1/cwnd fraction
    /// per segment (the RFC form) needs half a segment more at each window and so drifts
    /// through it; a reduction clears the count, and nothing counts on an ACK the window
    /// did not limit (under cwnd validation).
    #[test]
    fn linux_form_adds_one_segment_per_whole_window_acknowledged() {
        let mut r = RenoLinux::default();
        let mut st = state(100.0, 50.0);
        let a = ack_at(Time::ZERO, 1, None, Time::ZERO);
        for _ in 0..99 {
            r.on_ack(&mut st, &a);
        }
        assert!(st.cwnd < 101.0, "{}", st.cwnd);
        r.on_ack(&mut st, &a);
        assert_eq!(st.cwnd, 101.0);
        for _ in 0..101 {
            r.on_ack(&mut st, &a);
        }
        assert_eq!(st.cwnd, 102.0);
        let mut rfc = state(100.0, 50.0);
        for _ in 0..100 {
            Reno.on_ack(&mut rfc, &a);
        }
        assert!(rfc.cwnd < 101.0, "{}", rfc.cwnd);
        let mut idle = a;
        (idle.cwnd_limited, idle.cwnd_validation) = (false, true);
        r.on_ack(&mut st, &idle);
        assert_eq!((st.cwnd, r.cwnd_cnt), (102.0, 0.0));
        r.on_ack(&mut st, &a);
        assert_eq!(r.cwnd_cnt, 1.0);
        r.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 102));
        assert_eq!(r.cwnd_cnt, 0.0);
    }

    /// Linux `tcp_reno_ssthresh`: max(snd_cwnd >> 1, 2) of the whole-segment window,
    /// whatever the flight (here raised by two segments that SACKs let out before the
    /// third duplicate); RFC 5681 eq. (4) halves the flight.
    #[test]
    fn linux_form_halves_the_whole_window_in_integers() {
        let st = state(125.7, 1e9);
        let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 127);
        assert_eq!(RenoLinux::default().on_congestion(&st, &ev), 62.0);
        assert_eq!(Reno.on_congestion(&st, &ev), 63.5);
        let st = state(3.9, 1e9);
        let ev = cong(Time::ZERO, CongestionKind::FastRetransmit, 3);
        assert_eq!(RenoLinux::default().on_congestion(&st, &ev), 2.0);
    }

    /// ns-3's byte-granular window: the per-ACK increase floor(MSS²/cwnd) bytes is at
    /// least one byte and truncated, so a 500-segment window grows by 2 bytes per ACK
    /// (0.35 segment per RTT with delayed ACKs) where the real-valued law gives 2.9.
    #[test]
    fn ns3_form_truncates_the_increase_to_whole_bytes() {
        let mut r = RenoPerAck;
        let mut a = ack_at(Time::ZERO, 2, None, Time::ZERO);
        a.mss = 1448;
        let mut st = state(500.0, 50.0);
        r.on_ack(&mut st, &a);
        assert_eq!(st.cwnd, 500.0 + 2.0 / 1448.0);
        // Past MSS² bytes (cwnd > 1448 segments) the increase stays one byte.
        let mut st = state(5000.0, 50.0);
        r.on_ack(&mut st, &a);
        assert_eq!(st.cwnd, 5000.0 + 1.0 / 1448.0);
    }

    #[test]
    fn slow_start_doubles_then_linear() {
        let mut st = state(1.0, 8.0);
        let mut r = Reno;
        let ack = ack_at(Time::ZERO, 1, None, Time::ZERO);
        // One RTT of slow start: every acked segment adds one.
        for _ in 0..4 {
            r.on_ack(&mut st, &ack);
        }
        assert_eq!(st.cwnd, 5.0);
        for _ in 0..3 {
            r.on_ack(&mut st, &ack);
        }
        assert_eq!(st.cwnd, 8.0);
        // Congestion avoidance: one window of ACKs adds just under one segment (each
        // ACK adds 1/cwnd and cwnd grows meanwhile).
        for _ in 0..8 {
            r.on_ack(&mut st, &ack);
        }
        assert!(st.cwnd > 8.9 && st.cwnd < 9.0, "{}", st.cwnd);
        // RFC 5681 eq. (4) on FlightSize, not cwnd; never below 2.
        let s = r.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 9));
        assert_eq!(s, 4.5);
        let s = r.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 3));
        assert_eq!(s, 2.0);
    }

    /// The rate form: W(t) = W0 + t/R (one segment per RTT); a loss halves.
    #[test]
    fn fluid_is_aimd_one_half() {
        let mut l = RenoFluid;
        let (mut w, dt, rtt) = (10.0, 1e-3, 0.1);
        for _ in 0..1000 {
            w = l.grow(w, 0.0, rtt, dt);
        }
        assert!((w - 20.0).abs() < 1e-9, "{w}");
        assert_eq!(l.on_loss(w, 1.0), w / 2.0);
    }
}
