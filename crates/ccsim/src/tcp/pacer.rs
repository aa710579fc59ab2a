//! Pacing: spreading a window's packets over the round trip instead of sending them
//! back to back.
//!
//! Both pacers are a token bucket refilled at one packet per interval, at most
//! `depth` packets deep:
//! - `Leaky` (studies 000 and 001; Aggarwal et al. §3): interval = RTT / cwnd, the RTT
//!   being the EWMA of timestamp samples (SRTT), recomputed whenever either changes;
//! - `Rate` (as modern stacks, e.g. Linux's `sk_pacing_rate`): rate = factor · cwnd /
//!   SRTT with factor 2 in slow start and 1.2 afterwards.
//!
//! `Linux` is Linux's own internal pacing of a socket that asks for it
//! (`SK_PACING_NEEDED`) without an algorithm that sets the rate: the sender computes
//! `tcp_update_pacing_rate`'s rate and sends GSO skbs by earliest departure time
//! (tcp/sender.rs, `linux_pacing_rate` and `gso_pace_ok`), not through this bucket.
//!
//! An algorithm that sets `Window::pacing_rate` overrides both. Before the first RTT
//! sample there is nothing to pace by, and packets leave as the window allows.

use crate::cc::Window;
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PacingMode {
    None,
    Leaky {
        depth: f64,
    },
    Rate {
        ss_factor: f64,
        ca_factor: f64,
        depth: f64,
    },
    /// Linux's internal pacing at `sk_pacing_rate` (module doc).
    Linux,
}

#[derive(Clone, Debug)]
pub struct Pacer {
    pub mode: PacingMode,
    tokens: f64,
    last: Time,
}

impl Pacer {
    pub fn new(mode: PacingMode) -> Self {
        let depth = match mode {
            PacingMode::None | PacingMode::Linux => 0.0,
            PacingMode::Leaky { depth } | PacingMode::Rate { depth, .. } => depth,
        };
        Pacer {
            mode,
            tokens: depth,
            last: Time::ZERO,
        }
    }

    pub fn active(&self, st: &Window) -> bool {
        self.mode != PacingMode::None || st.pacing_rate.is_some()
    }

    fn depth(&self) -> f64 {
        match self.mode {
            PacingMode::None | PacingMode::Linux => 1.0,
            PacingMode::Leaky { depth } | PacingMode::Rate { depth, .. } => depth,
        }
    }

    /// Seconds between packets now, or None when there is nothing to pace by.
    pub fn interval(&self, st: &Window, srtt: Option<f64>, pkt_bytes: f64) -> Option<f64> {
        if let Some(rate) = st.pacing_rate {
            return (rate > 0.0).then(|| pkt_bytes / rate);
        }
        let srtt = srtt?;
        let cwnd = st.cwnd.max(1.0);
        match self.mode {
            // The sender computes Linux's rate itself (it needs packets_out).
            PacingMode::None | PacingMode::Linux => None,
            PacingMode::Leaky { .. } => Some(srtt / cwnd),
            PacingMode::Rate {
                ss_factor,
                ca_factor,
                ..
            } => {
                let f = if st.in_slow_start() {
                    ss_factor
                } else {
                    ca_factor
                };
                Some(srtt / (f * cwnd))
            }
        }
    }

    /// Take a token if one is there; otherwise the time one will be.
    pub fn take(&mut self, now: Time, interval: f64) -> Result<(), Time> {
        let elapsed = (now.saturating_sub(self.last)).as_secs_f64();
        self.tokens = (self.tokens + elapsed / interval).min(self.depth());
        self.last = now;
        if self.tokens >= 1.0 - 1e-9 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            let wait = ((1.0 - self.tokens) * interval).max(1e-12);
            Err(now + Time::from_secs_f64(wait).max(Time(1)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaky_bucket_spaces_packets_by_rtt_over_cwnd() {
        let st = Window::new(10.0, 5.0);
        let mut p = Pacer::new(PacingMode::Leaky { depth: 1.0 });
        let iv = p.interval(&st, Some(0.1), 1500.0).unwrap();
        assert!((iv - 0.01).abs() < 1e-12);
        assert!(p.take(Time::ZERO, iv).is_ok());
        let next = p.take(Time::ZERO, iv).unwrap_err();
        assert_eq!(next, Time::from_millis(10));
        assert!(p.take(next, iv).is_ok());
    }

    #[test]
    fn rate_pacer_factors() {
        let p = Pacer::new(PacingMode::Rate {
            ss_factor: 2.0,
            ca_factor: 1.2,
            depth: 1.0,
        });
        let ss = Window::new(10.0, 64.0);
        let ca = Window::new(10.0, 5.0);
        assert!((p.interval(&ss, Some(0.1), 1500.0).unwrap() - 0.005).abs() < 1e-12);
        assert!((p.interval(&ca, Some(0.12), 1500.0).unwrap() - 0.01).abs() < 1e-12);
        assert_eq!(p.interval(&ca, None, 1500.0), None);
    }
}
