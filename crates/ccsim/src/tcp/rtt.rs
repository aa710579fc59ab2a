//! The retransmission timer: SRTT/RTTVAR estimator, RTO bounds, backoff. Two
//! estimators (`tcp.rto_estimator`):
//!
//! - RFC 6298 (ns-2, ns-3): RTTVAR ← ¾·RTTVAR + ¼·|SRTT − R|, RTO = max(SRTT +
//!   4·RTTVAR, min_rto).
//! - Linux (`tcp_rtt_estimator`, `__tcp_set_rto` in net/ipv4/tcp_input.c): the same
//!   SRTT and mean deviation (`mdev_us`, 4·RTTVAR), except that a sample below SRTT
//!   moves it up with an eighth of the gain (Eifel-like); RTO = SRTT + `rttvar_us`,
//!   where `rttvar_us` is at least the largest deviation of the current round trip and
//!   at least `min_rto` (`mdev_max_us` restarts at `tcp_rto_min_us` each round trip),
//!   and decays by a quarter of its excess once per round trip. So min_rto floors the
//!   variance term, not the RTO: a 200 ms RTT gets an RTO of 400 ms or more, not
//!   200 ms.

use crate::units::Time;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<f64>,
    /// RFC 6298 RTTVAR; with `linux`, Linux's `mdev_us` (4·RTTVAR).
    rttvar: f64,
    /// Linux's estimator: `rttvar_us`, `mdev_max_us`, and `rtt_seq` (the round trip
    /// ends when snd.una passes it).
    linux: bool,
    linux_rttvar: f64,
    mdev_max: f64,
    rtt_seq: u64,
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
            linux: false,
            linux_rttvar: 0.0,
            mdev_max: 0.0,
            rtt_seq: 0,
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

    /// Linux's estimator instead of RFC 6298's (module doc).
    pub fn linux(mut self) -> Self {
        self.linux = true;
        self
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

    /// A new sample `r`, from an ACK that moved snd.una to `snd_una` with `snd_nxt` sent
    /// (Linux's round trip of `rtt_seq`). RFC 6298 §2.2–2.3 with α = 1/8, β = 1/4, or
    /// Linux's `tcp_rtt_estimator`. `min_sample` feeds the minimum RTT: `r` itself, or
    /// Linux's ca_rtt (`tcp_update_rtt_min`), the newest segment's where `r` is the
    /// oldest's.
    pub fn sample(&mut self, r: Time, min_sample: Time, snd_una: u64, snd_nxt: u64) {
        if self.linux {
            self.sample_linux(r.as_secs_f64(), snd_una, snd_nxt);
            self.min_rtt = Some(self.min_rtt.map_or(min_sample, |m| m.min(min_sample)));
            self.refresh();
            return;
        }
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
        self.min_rtt = Some(self.min_rtt.map_or(min_sample, |m| m.min(min_sample)));
        self.refresh();
    }

    /// Linux `tcp_rtt_estimator` (net/ipv4/tcp_input.c), in seconds: `rttvar` holds
    /// `mdev_us` (4·RTTVAR).
    fn sample_linux(&mut self, m: f64, snd_una: u64, snd_nxt: u64) {
        let Some(srtt) = self.srtt else {
            // "make sure rto = 3*rtt"
            self.srtt = Some(m);
            self.rttvar = 2.0 * m;
            self.linux_rttvar = self.rttvar.max(self.min_rto);
            self.mdev_max = self.linux_rttvar;
            self.rtt_seq = snd_nxt;
            return;
        };
        let err = m - srtt;
        self.srtt = Some(srtt + err / 8.0);
        let mut d = err.abs() - self.rttvar / 4.0;
        if err < 0.0 && d > 0.0 {
            // The RTT fell: an eighth of the usual gain, so the RTO neither grows
            // with it nor drops too fast.
            d /= 8.0;
        }
        self.rttvar += d;
        if self.rttvar > self.mdev_max {
            self.mdev_max = self.rttvar;
            self.linux_rttvar = self.linux_rttvar.max(self.mdev_max);
        }
        if snd_una > self.rtt_seq {
            if self.mdev_max < self.linux_rttvar {
                self.linux_rttvar -= (self.linux_rttvar - self.mdev_max) / 4.0;
            }
            self.rtt_seq = snd_nxt;
            self.mdev_max = self.min_rto;
        }
    }

    /// The current RTO in seconds, backoff included: RFC 6298's clamped to [min_rto,
    /// max_rto], or Linux's SRTT + rttvar (at most max_rto).
    pub fn rto_secs(&self) -> f64 {
        let base = match self.srtt {
            None => self.initial_rto,
            Some(s) if self.linux => s + self.linux_rttvar,
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
        e.sample(Time::from_millis(100), Time::from_millis(100), 1, 10);
        // RTO = SRTT + 4·RTTVAR = 0.1 + 4·0.05 = 0.3 s.
        assert!((e.rto_secs() - 0.3).abs() < 1e-9);
        e.sample(Time::from_millis(100), Time::from_millis(100), 2, 10);
        // RTTVAR = 0.75·0.05 = 0.0375; RTO = 0.1 + 0.15 = 0.25 s.
        assert!((e.rto_secs() - 0.25).abs() < 1e-9);
        e.back_off();
        e.back_off();
        assert!((e.rto_secs() - 1.0).abs() < 1e-9);
        assert_eq!(e.rto(), Time::from_secs_f64(e.rto_secs()));
        for _ in 0..50 {
            e.sample(Time::from_millis(10), Time::from_millis(10), 3, 10);
        }
        e.reset_backoff();
        assert!((e.rto_secs() - 0.2).abs() < 1e-9, "min RTO applies");
        assert_eq!(e.rto(), Time::from_millis(200));
        assert_eq!(e.srtt_time(), Time::from_secs_f64(e.srtt.unwrap()));
    }

    /// Linux `tcp_rtt_estimator` / `__tcp_set_rto`, worked by hand from the kernel's
    /// arithmetic: min_rto floors the variance term, not the RTO.
    #[test]
    fn linux_rto_is_srtt_plus_a_variance_term_floored_at_min_rto() {
        let ms = Time::from_millis;
        let mut e = RttEstimator::new(ms(200), Time::from_secs(120), Time::from_secs(1)).linux();
        assert!((e.rto_secs() - 1.0).abs() < 1e-12);
        // First sample: srtt = 100 ms, mdev = 2·100 ms, rttvar = max(200, 200) ms:
        // RTO = 300 ms ("make sure rto = 3*rtt").
        e.sample(ms(100), ms(100), 1, 10);
        assert!((e.rto_secs() - 0.3).abs() < 1e-9);
        // Steady 100 ms samples for many round trips: the deviation dies away but
        // rttvar never falls below min_rto, so RTO = 100 + 200 ms (RFC 6298: 200 ms).
        for k in 0..400 {
            e.sample(ms(100), ms(100), 2 + k, 12 + k);
        }
        assert!((e.rto_secs() - 0.3).abs() < 1e-6, "{}", e.rto_secs());
        let mut r = RttEstimator::new(ms(200), Time::from_secs(120), Time::from_secs(1));
        for k in 0..400 {
            r.sample(ms(100), ms(100), 1 + k, 11 + k);
        }
        assert!((r.rto_secs() - 0.2).abs() < 1e-6);
        // A 300 ms sample (error +200 ms) with mdev ≈ 0: mdev = 0 + 200 − 0 = 200 ms
        // (4·RTTVAR), over the 200 ms floor only once it exceeds it; srtt = 125 ms.
        e.sample(ms(300), ms(300), 402, 412);
        let srtt = e.srtt().unwrap();
        assert!((srtt - 0.125).abs() < 1e-6, "{srtt}");
        assert!(e.rto_secs() >= srtt + 0.2 - 1e-9);
        // A sample below SRTT moves the deviation with an eighth of the gain: from
        // mdev = 200 ms, a 25 ms sample (error −100 ms) adds (100 − 50)/8 ms.
        let before = e.rttvar;
        e.sample(ms(25), ms(25), 402, 412);
        assert!(
            (e.rttvar - before - 0.050 / 8.0).abs() < 1e-9,
            "{}",
            e.rttvar - before
        );
    }
}
