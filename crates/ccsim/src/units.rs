//! Quantities with units: time in integer picoseconds, rates in bit/s, sizes in bytes.
//!
//! Parsing accepts the forms a scenario uses: `"30ms"`, `"1.5s"`, `"622Mbps"`,
//! `"2.4Gbps"`, `"1000B"`, `"64KB"`. Decimal prefixes (k = 10³) follow networking
//! usage for both rates and sizes; `KiB`/`MiB` are binary.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// A point in simulated time, or a duration: an integer count of picoseconds.
/// `u64` picoseconds cover about 213 days.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * PS_PER_SEC as f64).round().max(0.0) as u64)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * PS_PER_SEC)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    pub fn ps(self) -> u64 {
        self.0
    }
    pub fn saturating_sub(self, o: Time) -> Time {
        Time(self.0.saturating_sub(o.0))
    }
    pub fn mul_f64(self, f: f64) -> Time {
        Time((self.0 as f64 * f).round().max(0.0) as u64)
    }

    /// Parse `"30ms"`, `"1.5s"`, `"100us"`, `"10ns"`, `"5ps"`, `"2min"`.
    pub fn parse(s: &str) -> Result<Time, String> {
        let err = || format!("expected a duration like \"10s\" or \"30ms\", got \"{s}\"");
        let (num, unit) = split_number(s).ok_or_else(err)?;
        let mult = match unit {
            "s" | "sec" => 1e12,
            "ms" => 1e9,
            "us" | "µs" => 1e6,
            "ns" => 1e3,
            "ps" => 1.0,
            "min" => 60e12,
            _ => return Err(err()),
        };
        if num < 0.0 {
            return Err(format!("a duration cannot be negative, got \"{s}\""));
        }
        let v = num * mult;
        if !v.is_finite() || v > MAX_DURATION_PS {
            return Err(format!(
                "duration out of range: \"{s}\" (at most 1000000s: the clock counts \
                 picoseconds in 64 bits, so that sums of delays and run times fit)"
            ));
        }
        Ok(Time(v.round() as u64))
    }
}

/// The longest duration a scenario may give, 10⁶ s (11.6 days), in picoseconds: the
/// clock (u64 ps) holds 1.8·10⁷ s, so a run time plus a route of up to 17 such delays
/// still fits.
const MAX_DURATION_PS: f64 = 1e18;

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0;
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps.is_multiple_of(PS_PER_SEC) {
            write!(f, "{}s", ps / PS_PER_SEC)
        } else if ps.is_multiple_of(1_000_000_000) {
            write!(f, "{}ms", ps / 1_000_000_000)
        } else if ps.is_multiple_of(1_000_000) {
            write!(f, "{}us", ps / 1_000_000)
        } else {
            write!(f, "{}ps", ps)
        }
    }
}

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
    /// Serialization time of `bytes` at this rate, rounded up to the next picosecond
    /// so that a link never sends faster than its rate.
    pub fn tx_time(self, bytes: u64) -> Time {
        debug_assert!(self.0 > 0);
        // bytes · 8 · 10¹² fits in a u64 below 2.3 MB (every packet): a 64-bit
        // division, not a call to the 128-bit one (a tenth of a link's cost per packet).
        if bytes < 2_000_000 {
            return Time((bytes * 8 * PS_PER_SEC).div_ceil(self.0));
        }
        let num = bytes as u128 * 8 * PS_PER_SEC as u128;
        let r = self.0 as u128;
        Time(num.div_ceil(r) as u64)
    }
    /// Bytes sent in `t` at this rate (floating point, for rule computations).
    pub fn bytes_in(self, t: Time) -> f64 {
        self.0 as f64 * t.as_secs_f64() / 8.0
    }

    /// Parse `"622Mbps"`, `"2.4Gbps"`, `"100kbps"`, `"1000bps"`, `"10Tbps"`.
    pub fn parse(s: &str) -> Result<Rate, String> {
        let err = || format!("expected a rate like \"100Mbps\" or \"2.4Gbps\", got \"{s}\"");
        let (num, unit) = split_number(s).ok_or_else(err)?;
        let mult = match unit {
            "bps" | "b/s" => 1.0,
            "kbps" | "Kbps" | "kb/s" => 1e3,
            "Mbps" | "Mb/s" => 1e6,
            "Gbps" | "Gb/s" => 1e9,
            "Tbps" | "Tb/s" => 1e12,
            _ => return Err(err()),
        };
        if num < 0.0 {
            return Err(format!("a rate cannot be negative, got \"{s}\""));
        }
        let v = num * mult;
        if !v.is_finite() || v > 1e15 {
            return Err(format!("rate out of range: \"{s}\""));
        }
        Ok(Rate(v.round() as u64))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        if b >= 1e9 {
            write!(f, "{}Gbps", b / 1e9)
        } else if b >= 1e6 {
            write!(f, "{}Mbps", b / 1e6)
        } else if b >= 1e3 {
            write!(f, "{}kbps", b / 1e3)
        } else {
            write!(f, "{}bps", b)
        }
    }
}

/// Parse a size in bytes: `"1000B"`, `"64KB"`, `"1.5MB"`, `"64KiB"`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let err = || format!("expected a size like \"1500B\" or \"64KB\", got \"{s}\"");
    let (num, unit) = split_number(s).ok_or_else(err)?;
    let mult = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err()),
    };
    if num < 0.0 {
        return Err(format!("a size cannot be negative, got \"{s}\""));
    }
    let v = num * mult;
    if !v.is_finite() || v > 1e18 {
        return Err(format!("size out of range: \"{s}\""));
    }
    Ok(v.round() as u64)
}

/// Split `"12.5ms"` into (12.5, "ms"). Whitespace between number and unit is allowed.
pub fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || (i == 0 && (c == '-' || c == '+'))
                || ((c == 'e' || c == 'E')
                    && s[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-')))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num: f64 = s[..end].parse().ok()?;
    Some((num, s[end..].trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_durations() {
        assert_eq!(Time::parse("30ms").unwrap(), Time(30_000_000_000));
        assert_eq!(Time::parse("1.5s").unwrap(), Time(1_500_000_000_000));
        assert_eq!(Time::parse("12.5 ms").unwrap(), Time(12_500_000_000));
        assert_eq!(Time::parse("100us").unwrap(), Time(100_000_000));
        assert!(Time::parse("ten").unwrap_err().contains("\"ten\""));
        assert!(Time::parse("-1s").is_err());
        assert!(Time::parse("10").is_err());
    }

    #[test]
    fn parses_rates_and_sizes() {
        assert_eq!(Rate::parse("622Mbps").unwrap(), Rate(622_000_000));
        assert_eq!(Rate::parse("2.4Gbps").unwrap(), Rate(2_400_000_000));
        assert!(Rate::parse("-5Mbps").unwrap_err().contains("negative"));
        assert!(Rate::parse("5MBps").is_err());
        assert_eq!(parse_bytes("64KB").unwrap(), 64_000);
        assert_eq!(parse_bytes("64KiB").unwrap(), 65_536);
        assert_eq!(parse_bytes("1e3B").unwrap(), 1000);
    }

    #[test]
    fn serialization_is_exact_for_small_packets_at_400g() {
        // 64 bytes at 400 Gb/s = 512 bits / 4e11 b/s = 1.28 ns = 1280 ps exactly.
        assert_eq!(Rate(400_000_000_000).tx_time(64), Time(1280));
        // 1500 B at 100 Mb/s = 120 us.
        assert_eq!(Rate(100_000_000).tx_time(1500), Time::from_micros(120));
        // Rounds up: 1 byte at 3 b/s = 8/3 s.
        assert_eq!(Rate(3).tx_time(1), Time(2_666_666_666_667));
    }
}
