//! Trace-driven link capacity in the Mahimahi format (Netravali et al., USENIX ATC
//! 2015): one line per delivery opportunity, an integer millisecond timestamp; each
//! opportunity carries one MTU (1500 B); the trace repeats with a period of its last
//! timestamp.
//!
//! ccsim's transmitter needs a capacity it can integrate, so the opportunities
//! stamped `t` ms offer their bytes evenly over the millisecond (t − 1, t]: the
//! offered bytes B(t) are piecewise linear, equal to Mahimahi's count at every whole
//! millisecond. A packet of S bytes starting at t0 ends at the first t with
//! B(t) − B(t0) = S, computed exactly in integers (bytes · 10⁹ per ms).

use crate::units::{Rate, Time};

/// Bytes per delivery opportunity (Mahimahi's MTU).
pub const OPPORTUNITY_BYTES: u64 = 1500;
/// Picoseconds per millisecond.
const MS: u64 = 1_000_000_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Opportunities in each millisecond (t − 1, t] of one period, t = 1..=period.
    count: Vec<u32>,
    /// cum[k]: bytes offered in the first k milliseconds of a period (cum[0] = 0).
    cum: Vec<u64>,
    /// Period, ms, and its picoseconds.
    period_ms: u64,
    period_ps: u64,
}

impl Trace {
    /// Parse Mahimahi text: non-decreasing integer millisecond timestamps, one a line
    /// (blank lines ignored). Errors say which line.
    pub fn parse(text: &str) -> Result<Trace, String> {
        let mut stamps: Vec<u64> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.is_empty() {
                continue;
            }
            let t: u64 = l.parse().map_err(|_| {
                format!(
                    "line {}: expected an integer millisecond timestamp, got \"{l}\"",
                    i + 1
                )
            })?;
            if stamps.last().is_some_and(|&p| t < p) {
                return Err(format!("line {}: timestamps must not decrease", i + 1));
            }
            if t > 1_000_000_000 {
                return Err(format!("line {}: timestamp {t} ms is past 10⁶ s", i + 1));
            }
            stamps.push(t);
        }
        let period = *stamps
            .last()
            .ok_or("the trace has no delivery opportunity")?;
        if period == 0 {
            return Err("the last timestamp (the period) must be positive".into());
        }
        let mut count = vec![0u32; period as usize];
        for t in stamps {
            // An opportunity at 0 is the previous period's last millisecond.
            let k = if t == 0 { period - 1 } else { t - 1 };
            count[k as usize] += 1;
        }
        let mut cum = Vec::with_capacity(count.len() + 1);
        cum.push(0u64);
        for &c in &count {
            cum.push(cum.last().unwrap() + c as u64 * OPPORTUNITY_BYTES);
        }
        Ok(Trace {
            count,
            cum,
            period_ms: period,
            period_ps: period * MS,
        })
    }

    /// Read and parse a trace file.
    pub fn load(path: &std::path::Path) -> Result<Trace, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read \"{}\": {e}", path.display()))?;
        Trace::parse(&text)
    }

    /// Bytes offered per period.
    pub fn period_bytes(&self) -> u64 {
        *self.cum.last().unwrap()
    }

    /// Opportunities per period.
    pub fn opportunities(&self) -> u64 {
        self.period_bytes() / OPPORTUNITY_BYTES
    }

    pub fn period(&self) -> Time {
        Time(self.period_ps)
    }

    /// The mean rate over a period (buffer rules, fair shares, `rate_bps`).
    pub fn mean_rate(&self) -> Rate {
        Rate(
            (self.period_bytes() * 8 * 1000)
                .div_ceil(self.period_ms)
                .max(1),
        )
    }

    /// Offered bytes from time 0 to `t`, in units of 10⁻⁹ byte (exact).
    pub fn offered_nano(&self, t: Time) -> u128 {
        let per = (t.0 / self.period_ps) as u128;
        let r = t.0 % self.period_ps;
        let k = (r / MS) as usize;
        let frac = (r % MS) as u128;
        (per * self.period_bytes() as u128 + self.cum[k] as u128) * MS as u128
            + self.count[k] as u128 * OPPORTUNITY_BYTES as u128 * frac
    }

    /// Offered bits from 0 to `t`.
    pub fn offered_bits(&self, t: Time) -> f64 {
        self.offered_nano(t) as f64 * 8e-9
    }

    /// When a transmission of `bytes` starting at `start` ends: the first t with
    /// B(t) − B(start) ≥ bytes.
    pub fn finish(&self, start: Time, bytes: u64) -> Time {
        let target = self.offered_nano(start) + bytes as u128 * MS as u128;
        let pb = self.period_bytes() as u128 * MS as u128;
        // Whole periods before the one where the target falls: rem ∈ (0, pb].
        let per = (target - 1) / pb;
        let rem = target - per * pb;
        // The millisecond k with cum[k]·10⁹ < rem ≤ cum[k+1]·10⁹ (count[k] > 0).
        let k = self.cum[1..].partition_point(|&c| (c as u128) * (MS as u128) < rem);
        let need = rem - self.cum[k] as u128 * MS as u128;
        let per_ps = self.count[k] as u128 * OPPORTUNITY_BYTES as u128;
        let frac = need.div_ceil(per_ps) as u64;
        Time(per as u64 * self.period_ps + k as u64 * MS + frac)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_bytes_follow_the_opportunities() {
        // Opportunities at 1, 1, 3 ms: period 3 ms, 4500 B a period.
        let t = Trace::parse("1\n1\n3\n").unwrap();
        assert_eq!(t.period_bytes(), 4500);
        let b = |ms: u64| t.offered_nano(Time(ms * MS)) / MS as u128;
        assert_eq!(
            [b(0), b(1), b(2), b(3), b(4), b(6)],
            [0, 3000, 3000, 4500, 7500, 9000]
        );
        assert_eq!(t.mean_rate(), Rate(12_000_000));
        // 1500 B from 0 end halfway through the first millisecond; 3000 B at 1 ms;
        // 3001 B need the third millisecond; 1 B from 1.0 ms waits for the third.
        assert_eq!(t.finish(Time(0), 1500), Time(MS / 2));
        assert_eq!(t.finish(Time(0), 3000), Time(MS));
        assert_eq!(t.finish(Time(0), 3001), Time(2 * MS + MS.div_ceil(1500)));
        assert_eq!(t.finish(Time(MS), 1), Time(2 * MS + MS.div_ceil(1500)));
        // Wraps: 4500 B from 3 ms end at 6 ms.
        assert_eq!(t.finish(Time(3 * MS), 4500), Time(6 * MS));
    }

    #[test]
    fn errors_name_the_line() {
        assert!(Trace::parse("1\nx\n").unwrap_err().starts_with("line 2:"));
        assert!(Trace::parse("5\n3\n").unwrap_err().starts_with("line 2:"));
        assert!(Trace::parse("").is_err());
        assert!(Trace::parse("0\n").is_err());
    }
}
