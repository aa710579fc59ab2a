//! RFC 6298 retransmission timer: SRTT/RTTVAR estimator, RTO bounds, backoff.

use crate::units::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Option<f64>,
    pub rttvar: f64,
    pub min_rtt: Option<Time>,
    min_rto: f64,
    max_rto: f64,
    initial_rto: f64,
    /// Exponential backoff multiplier (RFC 6298 §5.5), reset by a new sample.
    pub backoff: u32,
    /// Clock granularity G (RFC 6298 §2).
    granularity: f64,
}

impl RttEstimator {
    pub fn new(min_rto: Time, max_rto: Time, initial_rto: Time) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0.0,
            min_rtt: None,
            min_rto: min_rto.as_secs_f64(),
            max_rto: max_rto.as_secs_f64(),
            initial_rto: initial_rto.as_secs_f64(),
            backoff: 0,
            granularity: 1e-6,
        }
    }

    /// RFC 6298 §2.2–2.3 with α = 1/8, β = 1/4.
    pub fn sample(&mut self, r: Time) {
        let r_s = r.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r_s);
                self.rttvar = r_s / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r_s).abs();
                self.srtt = Some(0.875 * s + 0.125 * r_s);
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// The current RTO in seconds, backoff included, clamped to [min_rto, max_rto].
    pub fn rto_secs(&self) -> f64 {
        let base = match self.srtt {
            None => self.initial_rto,
            Some(s) => (s + (self.granularity).max(4.0 * self.rttvar)).max(self.min_rto),
        };
        (base * (1u64 << self.backoff.min(30)) as f64).min(self.max_rto)
    }
    pub fn rto(&self) -> Time {
        Time::from_secs_f64(self.rto_secs())
    }
    pub fn srtt_time(&self) -> Time {
        self.srtt.map_or(Time::ZERO, Time::from_secs_f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut e = RttEstimator::new(
            Time::from_millis(200),
            Time::from_secs(60),
            Time::from_secs(1),
        );
        assert!((e.rto_secs() - 1.0).abs() < 1e-12);
        e.sample(Time::from_millis(100));
        // RTO = SRTT + 4·RTTVAR = 0.1 + 4·0.05 = 0.3 s.
        assert!((e.rto_secs() - 0.3).abs() < 1e-9);
        e.sample(Time::from_millis(100));
        // RTTVAR = 0.75·0.05 = 0.0375; RTO = 0.1 + 0.15 = 0.25 s.
        assert!((e.rto_secs() - 0.25).abs() < 1e-9);
        e.backoff = 2;
        assert!((e.rto_secs() - 1.0).abs() < 1e-9);
        for _ in 0..50 {
            e.sample(Time::from_millis(10));
        }
        e.backoff = 0;
        assert!((e.rto_secs() - 0.2).abs() < 1e-9, "min RTO applies");
    }
}
