//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 2003): MIMD above a legacy window — cwnd += a per ACK,
//! cwnd −= b·cwnd per congestion event; Reno below the legacy window.

use super::{ecn_reduce, slow_start, AckInfo, CcState, CongestionControl, CongestionInfo, Params};

#[derive(Clone, Copy, Debug)]
pub struct StcpParams {
    /// Increase per acknowledged segment (Kelly §2: a = 0.01).
    pub a: f64,
    /// Multiplicative decrease (Kelly §2: b = 0.125).
    pub b: f64,
    /// Below this window the Reno law applies (Kelly §2: lwnd = 16).
    pub legacy_window: f64,
}

impl Default for StcpParams {
    fn default() -> Self {
        StcpParams {
            a: 0.01,
            b: 0.125,
            legacy_window: 16.0,
        }
    }
}

impl StcpParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = StcpParams::default();
        Ok(StcpParams {
            a: p.pos("a", d.a, 1.0)?,
            b: p.pos("b", d.b, 0.99)?,
            legacy_window: p.num("legacy_window", d.legacy_window, 0.0, 1e12)?,
        })
    }
}

pub struct Scalable {
    pub p: StcpParams,
}

impl Scalable {
    pub fn new(p: StcpParams) -> Self {
        Scalable { p }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        let mut acked = ack.acked as f64;
        if st.in_slow_start() {
            acked = slow_start(st, ack.acked);
        }
        if acked <= 0.0 {
            return;
        }
        if st.cwnd < self.p.legacy_window {
            // Legacy region: RFC 5681 congestion avoidance.
            st.cwnd += acked / st.cwnd;
        } else {
            // Kelly eq. (1): cwnd ← cwnd + a for each ACK received (per acked segment),
            // i.e. a·cwnd per RTT: the window grows by a factor (1 + a) each RTT.
            st.cwnd += self.p.a * acked;
        }
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        let w = st.cwnd;
        st.ssthresh = if w < self.p.legacy_window {
            (w / 2.0).max(2.0)
        } else {
            // Kelly eq. (2): cwnd ← cwnd − ⌈b·cwnd⌉ on detecting congestion.
            (w * (1.0 - self.p.b)).max(2.0)
        };
        ecn_reduce(st, ev.kind);
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
        let mut s = Scalable::new(StcpParams::default());
        for w0 in [100.0, 1000.0, 50000.0] {
            let mut st = state(w0, w0);
            for _ in 0..50 {
                s.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, Time::ZERO));
            }
            // Independent of the window: 50 ACKs add 0.5 segment.
            assert!((st.cwnd - (w0 + 0.5)).abs() < 1e-9, "{w0}: {}", st.cwnd);
            s.on_congestion(
                &mut st,
                &cong(Time::ZERO, CongestionKind::FastRetransmit, 0),
            );
            assert!((st.ssthresh - 0.875 * (w0 + 0.5)).abs() < 1e-9);
        }
        // One RTT of ACKs multiplies the window by about 1.01 (MIMD).
        let mut st = state(1000.0, 1000.0);
        for _ in 0..1000 {
            s.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, Time::ZERO));
        }
        assert!((st.cwnd - 1010.0).abs() < 1e-9);
    }

    #[test]
    fn legacy_region_is_reno() {
        let mut s = Scalable::new(StcpParams::default());
        let mut st = state(10.0, 5.0);
        s.on_ack(&mut st, &ack_at(Time::ZERO, 1, None, Time::ZERO));
        assert!((st.cwnd - 10.1).abs() < 1e-12);
        s.on_congestion(&mut st, &cong(Time::ZERO, CongestionKind::Ecn, 0));
        assert!((st.ssthresh - 5.05).abs() < 1e-12);
        assert_eq!(st.cwnd, st.ssthresh, "ECN reduces cwnd at once");
    }
}
