//! RFC 6298 retransmission timer: SRTT/RTTVAR estimator, RTO bounds, backoff.

use crate::units::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    pub min_rtt: Option<Time>,
    min_rto: f64,
    max_rto: f64,
    initial_rto: f64,
    /// Exponential backoff multiplier (RFC 6298 §5.5), reset by a new sample.
    backoff: u32,
    /// Clock granularity G (RFC 6298 §2).
    granularity: f64,
    /// `srtt` and the RTO as `Time`, converted when they change rather than on every
    /// ACK that reads them (the sender restarts its timer on each).
    srtt_time: Time,
    rto_time: Time,
}

impl RttEstimator {
    pub fn new(min_rto: Time, max_rto: Time, initial_rto: Time) -> Self {
        let mut e = RttEstimator {
            srtt: None,
            rttvar: 0.0,
            min_rtt: None,
            min_rto: min_rto.as_secs_f64(),
            max_rto: max_rto.as_secs_f64(),
            initial_rto: initial_rto.as_secs_f64(),
            backoff: 0,
            granularity: 1e-6,
            srtt_time: Time::ZERO,
            rto_time: Time::ZERO,
        };
        e.refresh();
        e
    }

    fn refresh(&mut self) {
        self.srtt_time = self.srtt.map_or(Time::ZERO, Time::from_secs_f64);
        self.rto_time = Time::from_secs_f64(self.rto_secs());
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// RFC 6298 §5.5: double the RTO (up to 2^16) after a timeout.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
        self.rto_time = Time::from_secs_f64(self.rto_secs());
    }

    /// RFC 6298 §5.7 / Karn: a valid sample for new data ends the backoff.
    pub fn reset_backoff(&mut self) {
        if self.backoff != 0 {
            self.backoff = 0;
            self.rto_time = Time::from_secs_f64(self.rto_secs());
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
        self.refresh();
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
        self.rto_time
    }
    /// SRTT in seconds (none before the first sample).
    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }
    pub fn srtt_time(&self) -> Time {
        self.srtt_time
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
        e.back_off();
        e.back_off();
        assert!((e.rto_secs() - 1.0).abs() < 1e-9);
        assert_eq!(e.rto(), Time::from_secs_f64(e.rto_secs()));
        for _ in 0..50 {
            e.sample(Time::from_millis(10));
        }
        e.reset_backoff();
        assert!((e.rto_secs() - 0.2).abs() < 1e-9, "min RTO applies");
        assert_eq!(e.rto(), Time::from_millis(200));
        assert_eq!(e.srtt_time(), Time::from_secs_f64(e.srtt.unwrap()));
    }
}
