//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004; Leith, Shorten, Lee, "H-TCP: A framework for congestion control in
//! high-speed and long-distance networks", 2005): the increase grows with the time
//! Δ since the last congestion event; the decrease adapts to RTT_min/RTT_max.

use super::{ecn_reduce, slow_start, AckInfo, CcState, CongestionControl, CongestionInfo, Params};
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub struct HtcpParams {
    /// Δ_L, seconds: below it H-TCP is Reno (paper: 1 s).
    pub delta_l: f64,
    /// Clamp of the adaptive backoff β = RTT_min/RTT_max (paper: [0.5, 0.8]).
    pub beta_min: f64,
    pub beta_max: f64,
    /// Adaptive backoff on (paper); off gives β = 0.5 always.
    pub adaptive_backoff: bool,
    /// RTT scaling (Leith & Shorten 2004 §4; Linux `use_rtt_scaling`, on by
    /// default): α ← α·RTT_min/RTT_ref, the factor clamped to [0.1, 2], so that the
    /// window grows at the same rate per second whatever the RTT.
    pub rtt_scaling: bool,
}

/// RTT_ref of the RTT scaling (Linux: 100 ms).
const RTT_REF_S: f64 = 0.1;

impl Default for HtcpParams {
    fn default() -> Self {
        HtcpParams {
            delta_l: 1.0,
            beta_min: 0.5,
            beta_max: 0.8,
            adaptive_backoff: true,
            rtt_scaling: true,
        }
    }
}

impl HtcpParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = HtcpParams::default();
        let hp = HtcpParams {
            delta_l: p.num("delta_l", d.delta_l, 0.0, 1e6)?,
            beta_min: p.pos("beta_min", d.beta_min, 0.999)?,
            beta_max: p.pos("beta_max", d.beta_max, 0.999)?,
            adaptive_backoff: p.flag("adaptive_backoff", d.adaptive_backoff)?,
            rtt_scaling: p.flag("rtt_scaling", d.rtt_scaling)?,
        };
        if hp.beta_max < hp.beta_min {
            return Err(format!(
                "beta_max: must be at least beta_min ({}), got {}",
                hp.beta_min, hp.beta_max
            ));
        }
        Ok(hp)
    }

    /// Leith & Shorten eq. (4): α(Δ) = 1 for Δ ≤ Δ_L, else
    /// 1 + 10(Δ − Δ_L) + ((Δ − Δ_L)/2)².
    pub fn alpha_raw(&self, delta: f64) -> f64 {
        if delta <= self.delta_l {
            1.0
        } else {
            let d = delta - self.delta_l;
            1.0 + 10.0 * d + (d / 2.0).powi(2)
        }
    }

    /// The increase actually applied, α ← 2(1 − β)·α(Δ) (Leith, Shorten & Lee §III-B),
    /// so that a flow with backoff β has the throughput of AIMD(α(Δ), 0.5).
    pub fn alpha(&self, delta: f64, beta: f64) -> f64 {
        2.0 * (1.0 - beta) * self.alpha_raw(delta)
    }
}

pub struct Htcp {
    pub p: HtcpParams,
    pub beta: f64,
    /// Time of the last congestion event (or of the first ACK, before any).
    pub last_congestion: Option<Time>,
    pub rtt_min: Option<Time>,
    pub rtt_max: Option<Time>,
}

impl Htcp {
    pub fn new(p: HtcpParams) -> Self {
        Htcp {
            beta: p.beta_min,
            p,
            last_congestion: None,
            rtt_min: None,
            rtt_max: None,
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(r, |m| m.min(r)));
            self.rtt_max = Some(self.rtt_max.map_or(r, |m| m.max(r)));
        }
        let start = *self.last_congestion.get_or_insert(ack.now);
        let mut acked = ack.acked as f64;
        if st.in_slow_start() {
            acked = slow_start(st, ack.acked);
        }
        if acked > 0.0 {
            let delta = ack.now.saturating_sub(start).as_secs_f64();
            let mut alpha = self.p.alpha(delta, self.beta);
            if let (true, Some(m)) = (self.p.rtt_scaling, self.rtt_min) {
                alpha *= (m.as_secs_f64() / RTT_REF_S).clamp(0.1, 2.0);
            }
            // cwnd ← cwnd + α/cwnd per ACK (per acked segment).
            st.cwnd += acked * alpha / st.cwnd;
        }
    }
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        // Leith & Shorten §III adaptive backoff: β = RTT_min/RTT_max in [0.5, 0.8], so
        // the queue the flow built drains while the link stays busy.
        self.beta = match (self.p.adaptive_backoff, self.rtt_min, self.rtt_max) {
            (true, Some(lo), Some(hi)) if hi > Time::ZERO => {
                (lo.as_secs_f64() / hi.as_secs_f64()).clamp(self.p.beta_min, self.p.beta_max)
            }
            _ => self.p.beta_min,
        };
        // RTT_max is measured afresh each congestion epoch (it is the RTT when the
        // queue is full, which the previous epoch no longer reports).
        self.rtt_max = None;
        // cwnd ← β·cwnd.
        st.ssthresh = (st.cwnd * self.beta).max(2.0);
        // Δ counts from the congestion event (Leith & Shorten: "time elapsed since the
        // last congestion event").
        self.last_congestion = Some(ev.now);
        ecn_reduce(st, ev.kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;
    use crate::cc::CongestionKind;

    #[test]
    fn alpha_of_delta() {
        let p = HtcpParams::default();
        assert_eq!(p.alpha_raw(0.5), 1.0);
        assert_eq!(p.alpha_raw(1.0), 1.0);
        // Δ = 2: 1 + 10·1 + (1/2)² = 11.25.
        assert!((p.alpha_raw(2.0) - 11.25).abs() < 1e-12);
        // Δ = 5: 1 + 10·4 + 2² = 45.
        assert!((p.alpha_raw(5.0) - 45.0).abs() < 1e-12);
        // Scaled by 2(1 − β): β = 0.5 leaves α; β = 0.8 gives 0.4·α.
        assert!((p.alpha(5.0, 0.5) - 45.0).abs() < 1e-12);
        assert!((p.alpha(5.0, 0.8) - 18.0).abs() < 1e-12);
    }

    #[test]
    fn increase_follows_delta_and_backoff_adapts() {
        let mut h = Htcp::new(HtcpParams::default());
        let mut st = state(100.0, 50.0);
        let base = Time::from_millis(100);
        // Samples between 100 and 150 ms: β = 100/150, inside [0.5, 0.8].
        h.on_ack(&mut st, &ack_at(Time::ZERO, 1, Some(base), base));
        h.on_ack(
            &mut st,
            &ack_at(Time::ZERO, 1, Some(Time::from_millis(150)), base),
        );
        let t0 = Time::from_secs(10);
        h.on_congestion(&mut st, &cong(t0, CongestionKind::FastRetransmit, 100));
        assert!((h.beta - 2.0 / 3.0).abs() < 1e-9);
        assert!((st.ssthresh / st.cwnd - 2.0 / 3.0).abs() < 1e-9);
        st.cwnd = 100.0;
        st.ssthresh = 50.0;
        // Δ = 0.5 s: α = 2(1 − β)·1.
        let w = st.cwnd;
        h.on_ack(&mut st, &ack_at(t0 + Time::from_millis(500), 1, None, base));
        assert!((st.cwnd - w - 2.0 / 3.0 / w).abs() < 1e-9);
        // Δ = 5 s: α = 2(1 − β)·45 = 30.
        let w = st.cwnd;
        h.on_ack(&mut st, &ack_at(t0 + Time::from_secs(5), 1, None, base));
        assert!((st.cwnd - w - 30.0 / w).abs() < 1e-9);
        // Equal min and max RTT (no queue): β clamps to 0.8.
        let mut st = state(100.0, 50.0);
        h.on_ack(&mut st, &ack_at(t0, 1, Some(base), base));
        h.on_congestion(&mut st, &cong(t0, CongestionKind::FastRetransmit, 100));
        assert!((h.beta - 0.8).abs() < 1e-12);
    }
}
