//! Reno's window law (RFC 5681 §3.1): slow start, then one segment per RTT; halve on
//! loss. Reno and NewReno share it; they differ in loss recovery, which is the
//! sender's (tcp/sender.rs).
//!
//! Rate form (the fluid engine's AIMD, Misra–Gong–Towsley 2000 eq. (1)):
//! dW/dt = 1/R in congestion avoidance, W ← W/2 on a loss indication.

use super::contract::{Ack, Algorithm, Congestion, CongestionControl, FluidLaw, Window};
use super::params::Params;

/// RFC 5681 eq. (3): congestion avoidance adds one segment per RTT.
pub const INCREASE_PER_RTT: f64 = 1.0;

/// RFC 5681 eq. (4): ssthresh = FlightSize / 2 (the sender floors it at 2 segments).
pub fn ssthresh(flight_size: f64) -> f64 {
    flight_size / 2.0
}

/// Reno / NewReno. No parameters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

impl Algorithm for Reno {
    const NAMES: &'static [&'static str] = &["reno", "newreno"];
    type Config = ();
    type Fluid = RenoFluid;
    fn config(_p: &mut Params) -> Result<(), String> {
        Ok(())
    }
    fn packet(_cfg: &()) -> Box<dyn CongestionControl> {
        Box::new(Reno)
    }
    fn fluid(_cfg: &()) -> Option<RenoFluid> {
        Some(RenoFluid)
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
