//! XCP sender: D. Katabi, M. Handley, C. Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002, §3.3 "The XCP Sender"; loss
//! handling as study 000's ns-2 agents (Alparslan, Arakawa, Murata: "cwnd = max(cwnd +
//! H_feedback, s)", halve and NewReno recovery on a loss).
//!
//! Law: on every ACK, cwnd ← max(cwnd + H_feedback, one packet), H_feedback being the
//! window change the routers on the path left in the header (the router is
//! `queue/xcp.rs`). No slow start: a flow starts at its initial window and the
//! routers' positive feedback opens it. On a loss, ssthresh = max(FlightSize/2, 2) as
//! Reno's, and the sender's recovery (NewReno by default) sets cwnd from it.
//!
//! The sender stamps the congestion header on every data packet of this algorithm
//! (`xcp()` is true): H_cwnd = cwnd in bytes on the wire, H_rtt = SRTT (0 before the
//! first sample), H_feedback = +∞ (no rate limit of its own: the paper's desired
//! increase for a sender without a target rate), which every XCP router lowers to its
//! p_i − n_i. The receiver sums the feedback of the data packets each ACK acknowledges.
//!
//! Where we choose, and why:
//! - feedback arrives converted to segments (bytes ÷ packet size on the wire), the unit
//!   of `Window`;
//! - an ACK whose feedback is still +∞ crossed no XCP router: the window stays (XCP
//!   needs XCP routers; the scenario should put `queue = { kind = "xcp" }` on the
//!   bottleneck);
//! - feedback is applied on ACKs that advance the window outside recovery (the sender
//!   calls `on_ack` there only); during recovery the sender owns cwnd, and the
//!   feedback of those ACKs is dropped, as in ns-2's agent.
//!
//! No rate form: the window is set by the routers' feedback, which the fluid engine
//! does not model (it has no XCP queue either).

use super::contract::{Ack, Algorithm, Congestion, CongestionControl, NoFluid, Window};
use super::params::Params;

/// The XCP sender. No parameters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Xcp;

impl Algorithm for Xcp {
    const NAMES: &'static [&'static str] = &["xcp"];
    type Config = ();
    type Fluid = NoFluid;
    fn config(_p: &mut Params) -> Result<(), String> {
        Ok(())
    }
    fn packet(_cfg: &()) -> Box<dyn CongestionControl> {
        Box::new(Xcp)
    }
}

impl CongestionControl for Xcp {
    fn name(&self) -> &'static str {
        "xcp"
    }

    fn xcp(&self) -> bool {
        true
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        // An ACK without an XCP header changes nothing (feedback 0).
        let fb = ack.xcp_feedback.unwrap_or(0.0);
        if fb.is_finite() {
            // §3.3: cwnd = max(cwnd + H_feedback, s).
            w.cwnd = (w.cwnd + fb).max(1.0);
        }
        // Never in slow start (what the pacer's slow-start factor and reports see).
        w.ssthresh = w.cwnd;
    }

    fn on_congestion(&mut self, _w: &Window, ev: &Congestion) -> f64 {
        // Halve, as RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS).
        super::reno::ssthresh(ev.in_flight).max(2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{ack_at, cong, state};
    use crate::cc::CongestionKind;
    use crate::units::Time;

    fn fb(x: f64) -> Ack {
        Ack {
            xcp_feedback: Some(x),
            ..ack_at(Time::ZERO, 1, None, Time::ZERO)
        }
    }

    #[test]
    fn window_follows_feedback_and_never_drops_below_one_packet() {
        let mut st = state(10.0, 2.0);
        let mut cc = Xcp;
        cc.on_ack(&mut st, &fb(0.25));
        assert_eq!(st.cwnd, 10.25);
        cc.on_ack(&mut st, &fb(-4.0));
        assert_eq!(st.cwnd, 6.25);
        cc.on_ack(&mut st, &fb(-100.0));
        assert_eq!(st.cwnd, 1.0);
    }

    /// No slow start: with zero feedback (a link at its target) the window stays, even
    /// far below ssthresh where Reno would double it.
    #[test]
    fn no_slow_start_and_no_router_means_no_change() {
        let mut st = state(4.0, 1000.0);
        let mut cc = Xcp;
        for _ in 0..100 {
            cc.on_ack(&mut st, &fb(0.0));
        }
        assert_eq!(st.cwnd, 4.0);
        assert!(!st.in_slow_start());
        cc.on_ack(&mut st, &fb(f64::INFINITY));
        assert_eq!(st.cwnd, 4.0);
    }

    #[test]
    fn loss_halves() {
        let st = state(40.0, 1000.0);
        let mut cc = Xcp;
        let s = cc.on_congestion(&st, &cong(Time::ZERO, CongestionKind::FastRetransmit, 40));
        assert_eq!(s, 20.0);
        assert!(cc.xcp());
    }
}
