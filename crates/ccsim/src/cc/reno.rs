//! Reno's window law (RFC 5681): slow start, then one segment per RTT; halve on loss.
//! Reno and NewReno share it; they differ in loss recovery, which is the sender's.

use super::{slow_start, AckInfo, CcState, CongestionControl, CongestionInfo};

pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        let mut acked = ack.acked as f64;
        if st.in_slow_start() {
            acked = slow_start(st, ack.acked);
        }
        if acked > 0.0 {
            // RFC 5681 eq. (3): cwnd += SMSS·SMSS/cwnd per ACK, here per acked segment.
            st.cwnd += acked / st.cwnd;
        }
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        // RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS).
        st.ssthresh = (ev.in_flight as f64 / 2.0).max(2.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionKind;
    use crate::units::Time;

    fn ack(acked: u64) -> AckInfo {
        AckInfo {
            now: Time::ZERO,
            acked,
            rtt: None,
            srtt: Time::ZERO,
            min_rtt: Time::ZERO,
            in_flight: 0,
            in_recovery: false,
            xcp_feedback: 0.0,
        }
    }

    #[test]
    fn slow_start_doubles_then_linear() {
        let mut st = CcState {
            cwnd: 1.0,
            ssthresh: 8.0,
            pacing_rate: None,
        };
        let mut r = Reno;
        // One RTT of slow start: every acked segment adds one.
        for _ in 0..4 {
            r.on_ack(&mut st, &ack(1));
        }
        assert_eq!(st.cwnd, 5.0);
        for _ in 0..3 {
            r.on_ack(&mut st, &ack(1));
        }
        assert_eq!(st.cwnd, 8.0);
        // Congestion avoidance: one window of ACKs adds about one segment.
        for _ in 0..8 {
            r.on_ack(&mut st, &ack(1));
        }
        assert!((st.cwnd - 9.0).abs() < 0.1, "{}", st.cwnd);
        r.on_congestion(
            &mut st,
            &CongestionInfo {
                now: Time::ZERO,
                kind: CongestionKind::FastRetransmit,
                in_flight: 9,
                srtt: Time::ZERO,
                min_rtt: Time::ZERO,
            },
        );
        assert_eq!(st.ssthresh, 4.5);
    }
}
