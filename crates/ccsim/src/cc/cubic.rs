//! CUBIC (RFC 9438): the window is a cubic function of the time since the last
//! congestion event, W_cubic(t) = C·(t − K)³ + W_max, with a Reno-friendly floor W_est.

use super::{
    ecn_reduce, slow_start, AckInfo, CcState, CongestionControl, CongestionInfo, CongestionKind,
    Params,
};
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
pub struct CubicParams {
    /// RFC 9438 §5.1: C = 0.4.
    pub c: f64,
    /// RFC 9438 §4.6: β_cubic = 0.7.
    pub beta: f64,
    /// RFC 9438 §4.7.
    pub fast_convergence: bool,
    /// RFC 9438 §4.3 Reno-friendly region (W_est).
    pub reno_friendly: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
        }
    }
}

impl CubicParams {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = CubicParams::default();
        Ok(CubicParams {
            c: p.pos("c", d.c, 1e6)?,
            beta: p.pos("beta", d.beta, 0.999)?,
            fast_convergence: p.flag("fast_convergence", d.fast_convergence)?,
            reno_friendly: p.flag("reno_friendly", d.reno_friendly)?,
        })
    }

    /// RFC 9438 §4.3: α_cubic = 3(1 − β_cubic)/(1 + β_cubic), so that AIMD(α, β) has
    /// Reno's average throughput.
    pub fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// RFC 9438 eq. 2: K = ∛((W_max − cwnd_epoch)/C); 0 when cwnd_epoch ≥ W_max.
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / self.c).cbrt()
    }

    /// RFC 9438 eq. 1: W_cubic(t) = C·(t − K)³ + W_max.
    pub fn w_cubic(&self, t: f64, k: f64, w_max: f64) -> f64 {
        self.c * (t - k).powi(3) + w_max
    }
}

/// The state of one congestion-avoidance epoch (RFC 9438 §4.1.2's variables).
#[derive(Clone, Copy, Debug)]
pub struct Epoch {
    pub start: Time,
    pub k: f64,
    /// The plateau of this epoch's curve: W_max, or cwnd_epoch if that is higher.
    pub origin: f64,
    pub w_est: f64,
}

pub struct Cubic {
    pub p: CubicParams,
    /// W_max: the window just before the last reduction (after fast convergence).
    pub w_max: f64,
    /// cwnd_prior: the window just before the last reduction (§4.6), for α_cubic's switch.
    pub cwnd_prior: f64,
    pub epoch: Option<Epoch>,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Cubic {
            p,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
        }
    }

    fn start_epoch(&mut self, now: Time, cwnd_epoch: f64) {
        let origin = self.w_max.max(cwnd_epoch);
        self.epoch = Some(Epoch {
            start: now,
            k: self.p.k(origin, cwnd_epoch),
            origin,
            // §4.3: W_est is set to cwnd_epoch at the start of the epoch.
            w_est: cwnd_epoch,
        });
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        let mut acked = ack.acked as f64;
        if st.in_slow_start() {
            acked = slow_start(st, ack.acked);
        }
        if acked <= 0.0 {
            return;
        }
        if self.epoch.is_none() {
            // Entering congestion avoidance without a reduction in hand (leaving slow
            // start, or after a timeout's slow start): the epoch begins now, and with no
            // W_max above cwnd the curve starts on its plateau (K = 0).
            self.start_epoch(ack.now, st.cwnd);
        }
        let p = self.p;
        let e = self.epoch.as_mut().expect("epoch set above");
        let t = ack.now.saturating_sub(e.start).as_secs_f64();
        let rtt = if ack.srtt > Time::ZERO {
            ack.srtt
        } else {
            ack.rtt.unwrap_or(ack.min_rtt)
        }
        .as_secs_f64();

        // §4.3: W_est += α_cubic·segments_acked/cwnd; α_cubic becomes 1 once W_est has
        // reached cwnd_prior (Reno's own increase from then on).
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            p.alpha_cubic()
        };
        e.w_est += alpha * acked / st.cwnd;

        if p.reno_friendly && p.w_cubic(t, e.k, e.origin) < e.w_est {
            // §4.3: in the Reno-friendly region cwnd is set to W_est on each ACK.
            st.cwnd = e.w_est;
            return;
        }
        // §4.4/§4.5: target = W_cubic(t + RTT), clamped to [cwnd, 1.5·cwnd]; cwnd grows
        // by (target − cwnd)/cwnd per ACK (per acked segment here).
        let target = p
            .w_cubic(t + rtt, e.k, e.origin)
            .clamp(st.cwnd, 1.5 * st.cwnd);
        st.cwnd += acked * (target - st.cwnd) / st.cwnd;
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo) {
        let w = st.cwnd;
        // §4.7 fast convergence: a reduction below the previous W_max lowers W_max to
        // cwnd·(1 + β)/2 to release bandwidth to newer flows.
        self.w_max = if w < self.w_max && self.p.fast_convergence {
            w * (1.0 + self.p.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        // §4.6: ssthresh = max(cwnd·β_cubic, 2) (RFC: flight_size·β; we use cwnd,
        // which the sender keeps ≈ FlightSize outside recovery).
        st.ssthresh = (w * self.p.beta).max(2.0);
        match ev.kind {
            // §4.8: after a timeout cwnd restarts from 1 and slow-starts to ssthresh;
            // the epoch begins when congestion avoidance does.
            CongestionKind::Timeout => self.epoch = None,
            // The epoch's clock starts at the congestion event (RFC 9438 §4.2's t), and
            // cwnd_epoch is the window the sender resumes with: ssthresh.
            _ => self.start_epoch(ev.now, st.ssthresh),
        }
        ecn_reduce(st, ev.kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::*;

    #[test]
    fn w_cubic_plateaus_at_w_max_at_k() {
        let p = CubicParams::default();
        let (w_max, cwnd_epoch) = (100.0, 70.0);
        let k = p.k(w_max, cwnd_epoch);
        // Eq. 2: K = ∛(W_max·(1 − β)/C) = ∛75.
        assert!((k - 75f64.cbrt()).abs() < 1e-12);
        assert!((k - 4.217163).abs() < 1e-5);
        assert!((p.w_cubic(0.0, k, w_max) - cwnd_epoch).abs() < 1e-9);
        assert!((p.w_cubic(k, k, w_max) - w_max).abs() < 1e-12);
        // Concave before K, convex after: second differences change sign at K.
        let d2 = |t: f64| {
            let h = 0.1;
            p.w_cubic(t + h, k, w_max) - 2.0 * p.w_cubic(t, k, w_max) + p.w_cubic(t - h, k, w_max)
        };
        assert!(d2(k / 2.0) < 0.0);
        assert!(d2(1.5 * k) > 0.0);
        // Increasing throughout.
        let mut prev = 0.0;
        for i in 0..100 {
            let w = p.w_cubic(i as f64 * 0.1, k, w_max);
            assert!(w >= prev);
            prev = w;
        }
    }

    #[test]
    fn cwnd_follows_the_cubic_curve() {
        let mut c = Cubic::new(CubicParams::default());
        let mut st = state(1000.0, 1e9);
        let mut now = Time::from_secs(1);
        let t0 = now;
        c.on_congestion(&mut st, &cong(now, CongestionKind::FastRetransmit, 1000));
        assert!((st.ssthresh - 700.0).abs() < 1e-9);
        st.cwnd = st.ssthresh;
        let k = c.epoch.unwrap().k;
        assert!((k - 750f64.cbrt()).abs() < 1e-9);
        // 100 ms RTT: large window, so the cubic (not W_est) governs.
        let rtt = Time::from_millis(100);
        while (now - t0).as_secs_f64() < k {
            one_rtt(&mut c, &mut st, &mut now, rtt, rtt);
            let t = (now - t0).as_secs_f64();
            let w = c.p.w_cubic(t, k, 1000.0);
            // cwnd tracks W_cubic(t) within about one RTT of growth.
            let w_next = c.p.w_cubic(t + 0.1, k, 1000.0);
            assert!(
                st.cwnd >= w - 1.0 && st.cwnd <= w_next + 1.0,
                "t={t}: cwnd {} vs W {}",
                st.cwnd,
                w
            );
        }
        // Plateau around W_max near t = K.
        assert!((st.cwnd - 1000.0).abs() < 5.0, "{}", st.cwnd);
    }

    #[test]
    fn reno_friendly_w_est() {
        let p = CubicParams::default();
        assert!((p.alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
        let mut c = Cubic::new(p);
        let mut st = state(10.0, 1e9);
        let mut now = Time::from_secs(1);
        c.on_congestion(&mut st, &cong(now, CongestionKind::FastRetransmit, 10));
        st.cwnd = st.ssthresh;
        assert!((st.cwnd - 7.0).abs() < 1e-12);
        // 1 ms RTT: the cubic is nearly flat over these RTTs (K ≈ 1.96 s), so W_est rules.
        let rtt = Time::from_millis(1);
        let alpha = p.alpha_cubic();
        for i in 0..30 {
            let (w0, n) = (st.cwnd, st.cwnd.floor());
            one_rtt(&mut c, &mut st, &mut now, rtt, rtt);
            // §4.3: in the Reno-friendly region cwnd is W_est itself.
            assert_eq!(st.cwnd, c.epoch.unwrap().w_est, "round {i}");
            // Per ACK W_est += α/cwnd, so one RTT of ⌊cwnd⌋ ACKs adds about α·⌊cwnd⌋/cwnd:
            // α_cubic while below cwnd_prior = 10, then 1 (Reno's own rate).
            let inc = st.cwnd - w0;
            let want = if st.cwnd < 10.0 {
                alpha
            } else if w0 >= 10.0 {
                1.0
            } else {
                continue;
            };
            let lo = want * (n / (w0 + want)) - 0.01;
            assert!(
                inc > lo && inc <= want + 1e-9,
                "round {i}: +{inc}, want ≈{want}"
            );
        }
        // ≈ 6 RTTs at α ≈ 0.53 to regain cwnd_prior = 10, then about 1 per RTT.
        assert!(st.cwnd > 30.0 && st.cwnd < 35.0, "{}", st.cwnd);
    }

    #[test]
    fn fast_convergence() {
        let mut c = Cubic::new(CubicParams::default());
        let mut st = state(100.0, 1e9);
        c.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 0),
        );
        st.cwnd = 90.0;
        c.on_congestion(
            &mut st,
            &cong(Time::ZERO, CongestionKind::FastRetransmit, 0),
        );
        assert!((c.w_max - 90.0 * 0.85).abs() < 1e-9);
        assert!((st.ssthresh - 63.0).abs() < 1e-9);
    }
}
