//! Congestion control: the algorithm decides `cwnd` and `ssthresh` (and optionally a
//! pacing rate) from events; loss recovery, timers and pacing live in the sender.
//!
//! The shape follows Linux's `tcp_congestion_ops`: the sender reports every ACK, each
//! congestion event with its kind, leaving recovery, and once-per-RTT rounds.
//! Windows are in segments (f64, so that laws with fractional growth are exact).

pub mod bic;
pub mod compound;
pub mod cubic;
pub mod fast;
pub mod highspeed;
pub mod htcp;
pub mod illinois;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod xcp;

use crate::units::Time;

/// The state an algorithm may change.
#[derive(Clone, Copy, Debug)]
pub struct CcState {
    /// Congestion window, segments.
    pub cwnd: f64,
    /// Slow-start threshold, segments.
    pub ssthresh: f64,
    /// Optional pacing rate the algorithm asks for, bytes per second.
    pub pacing_rate: Option<f64>,
}

impl CcState {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// One acknowledgement that advanced the cumulative ACK point.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: Time,
    /// Segments newly acknowledged by this ACK.
    pub acked: u64,
    /// RTT sample carried by this ACK (timestamp echo), if any.
    pub rtt: Option<Time>,
    /// Smoothed RTT and the minimum RTT seen so far.
    pub srtt: Time,
    pub min_rtt: Time,
    /// Segments in flight after this ACK.
    pub in_flight: u64,
    pub in_recovery: bool,
    /// XCP: the feedback this ACK echoes (H_feedback summed over the data packets it
    /// acknowledges), in segments on the wire; 0 for non-XCP flows, +∞ if no XCP
    /// router lowered it.
    pub xcp_feedback: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Three duplicate ACKs (or SACK loss detection): fast retransmit.
    FastRetransmit,
    /// Retransmission timeout.
    Timeout,
    /// An ECN echo (RFC 3168), at most once per window.
    Ecn,
}

#[derive(Clone, Copy, Debug)]
pub struct CongestionInfo {
    pub now: Time,
    pub kind: CongestionKind,
    /// FlightSize (RFC 5681), segments outstanding when the event is detected.
    pub in_flight: u64,
    pub srtt: Time,
    pub min_rtt: Time,
}

/// Once-per-RTT bookkeeping (a round ends when the segment sent at its start is acked).
#[derive(Clone, Copy, Debug)]
pub struct RoundInfo {
    pub now: Time,
    /// Minimum and mean RTT sample over the round just ended (None if no sample).
    pub min_rtt_round: Option<Time>,
    pub mean_rtt_round: Option<Time>,
    pub base_rtt: Time,
    pub srtt: Time,
    pub acked: u64,
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;
    /// An ACK advanced the cumulative point outside of loss recovery.
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo);
    /// A congestion event: set `ssthresh` (and `cwnd` where the law says so). The
    /// sender then applies its recovery rule: `cwnd = ssthresh + 3` entering fast
    /// recovery, `cwnd = 1` (the loss window) after a timeout.
    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionInfo);
    /// Fast recovery ended (the sender has set `cwnd = ssthresh`).
    fn on_recovery_exit(&mut self, _st: &mut CcState, _now: Time) {}
    /// One round trip ended.
    fn on_round(&mut self, _st: &mut CcState, _r: &RoundInfo) {}
    /// Whether the sender should stamp the XCP congestion header on data packets.
    fn xcp(&self) -> bool {
        false
    }
}

/// RFC 5681 §3.1 slow start with appropriate byte counting (RFC 3465, L = 2 segments):
/// returns the segments of `acked` left over once cwnd reaches ssthresh.
pub fn slow_start(st: &mut CcState, acked: u64) -> f64 {
    let inc = (acked as f64).min(2.0);
    let room = (st.ssthresh - st.cwnd).max(0.0);
    if inc <= room {
        st.cwnd += inc;
        0.0
    } else {
        st.cwnd += room;
        inc - room
    }
}

/// The names a scenario may give, for error messages (aliases included).
pub const KNOWN: &[&str] = &[
    "reno",
    "newreno",
    "highspeed",
    "hstcp",
    "scalable",
    "stcp",
    "bic",
    "cubic",
    "htcp",
    "vegas",
    "compound",
    "ctcp",
    "fast",
    "illinois",
    "xcp",
];

/// Build an algorithm by name. `params` are the extra keys of `cc = { name = ..., ... }`;
/// an error names the offending key.
pub fn build(
    name: &str,
    params: &toml::value::Table,
) -> Result<Box<dyn CongestionControl>, String> {
    let mut p = Params::new(name, params);
    let algo: Box<dyn CongestionControl> = match name {
        "reno" | "newreno" => Box::new(reno::Reno),
        "highspeed" | "hstcp" => Box::new(highspeed::HighSpeed::new(
            highspeed::HsParams::from_params(&mut p)?,
        )),
        "scalable" | "stcp" => Box::new(scalable::Scalable::new(
            scalable::StcpParams::from_params(&mut p)?,
        )),
        "bic" => Box::new(bic::Bic::new(bic::BicParams::from_params(&mut p)?)),
        "cubic" => Box::new(cubic::Cubic::new(cubic::CubicParams::from_params(&mut p)?)),
        "htcp" => Box::new(htcp::Htcp::new(htcp::HtcpParams::from_params(&mut p)?)),
        "vegas" => Box::new(vegas::Vegas::new(vegas::VegasParams::from_params(&mut p)?)),
        "compound" | "ctcp" => Box::new(compound::Compound::new(
            compound::CtcpParams::from_params(&mut p)?,
        )),
        "fast" => Box::new(fast::Fast::new(fast::FastParams::from_params(&mut p)?)),
        "illinois" => Box::new(illinois::Illinois::new(
            illinois::IllinoisParams::from_params(&mut p)?,
        )),
        "xcp" => Box::new(xcp::Xcp),
        _ => {
            return Err(format!(
                "unknown congestion control \"{name}\" (known: {})",
                KNOWN.join(", ")
            ))
        }
    };
    p.finish()?;
    Ok(algo)
}

/// Reads an algorithm's parameters from the scenario table, each with its default and
/// its admissible range; `finish` rejects the keys nobody asked for.
pub struct Params<'a> {
    name: &'a str,
    table: &'a toml::value::Table,
    used: Vec<&'static str>,
}

impl<'a> Params<'a> {
    pub fn new(name: &'a str, table: &'a toml::value::Table) -> Self {
        Params {
            name,
            table,
            used: Vec::new(),
        }
    }

    /// A number (integer or float) in `[lo, hi]`, or `default` when absent.
    pub fn num(
        &mut self,
        key: &'static str,
        default: f64,
        lo: f64,
        hi: f64,
    ) -> Result<f64, String> {
        self.used.push(key);
        let Some(v) = self.table.get(key) else {
            return Ok(default);
        };
        let x = match v {
            toml::Value::Integer(i) => *i as f64,
            toml::Value::Float(f) => *f,
            other => {
                return Err(format!(
                    "{key}: expected a number in [{lo}, {hi}], got {other}"
                ))
            }
        };
        if !x.is_finite() || x < lo || x > hi {
            return Err(format!("{key}: expected a number in [{lo}, {hi}], got {x}"));
        }
        Ok(x)
    }

    /// A number in the open-at-zero range `(0, hi]`.
    pub fn pos(&mut self, key: &'static str, default: f64, hi: f64) -> Result<f64, String> {
        let x = self.num(key, default, 0.0, hi)?;
        if x <= 0.0 {
            return Err(format!("{key}: expected a positive number, got {x}"));
        }
        Ok(x)
    }

    pub fn flag(&mut self, key: &'static str, default: bool) -> Result<bool, String> {
        self.used.push(key);
        match self.table.get(key) {
            None => Ok(default),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(other) => Err(format!("{key}: expected true or false, got {other}")),
        }
    }

    /// Any key not read is unknown to this algorithm.
    pub fn finish(&self) -> Result<(), String> {
        let name = self.name;
        match self.table.keys().find(|k| !self.used.contains(&k.as_str())) {
            Some(k) => Err(format!("{k}: \"{name}\" has no parameter \"{k}\"")),
            None => Ok(()),
        }
    }
}

/// Tracks whether the sender is in fast recovery, which the trait does not pass to
/// `on_round`: the sender also ends rounds on partial ACKs inside recovery, and the
/// once-per-RTT laws must not act there (the sender owns cwnd until recovery exits).
#[derive(Clone, Copy, Debug, Default)]
pub struct RecoveryFlag(bool);

impl RecoveryFlag {
    pub fn get(self) -> bool {
        self.0
    }
    pub fn on_congestion(&mut self, kind: CongestionKind) {
        // Only fast retransmit starts recovery; after a timeout the sender slow-starts.
        self.0 = kind == CongestionKind::FastRetransmit;
    }
    pub fn clear(&mut self) {
        self.0 = false;
    }
}

/// Apply a congestion event's ssthresh to cwnd where the sender has no recovery of its
/// own to do it: an ECN echo (RFC 3168 §6.1.2) reduces cwnd to the new ssthresh at once.
/// Idempotent if the sender also does so.
pub fn ecn_reduce(st: &mut CcState, kind: CongestionKind) {
    if kind == CongestionKind::Ecn {
        st.cwnd = st.ssthresh;
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::*;

    pub fn state(cwnd: f64, ssthresh: f64) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            pacing_rate: None,
        }
    }

    pub fn ack_at(now: Time, acked: u64, rtt: Option<Time>, srtt: Time) -> AckInfo {
        AckInfo {
            now,
            acked,
            rtt,
            srtt,
            min_rtt: rtt.unwrap_or(srtt),
            in_flight: 0,
            in_recovery: false,
            xcp_feedback: 0.0,
        }
    }

    pub fn cong(now: Time, kind: CongestionKind, in_flight: u64) -> CongestionInfo {
        CongestionInfo {
            now,
            kind,
            in_flight,
            srtt: Time::ZERO,
            min_rtt: Time::ZERO,
        }
    }

    /// A round whose every sample equals `rtt`.
    pub fn round(now: Time, rtt: Time, base: Time) -> RoundInfo {
        RoundInfo {
            now,
            min_rtt_round: Some(rtt),
            mean_rtt_round: Some(rtt),
            base_rtt: base,
            srtt: rtt,
            acked: 0,
        }
    }

    /// Deliver one window of single-segment ACKs (one RTT's worth), then end the round.
    pub fn one_rtt(
        cc: &mut dyn CongestionControl,
        st: &mut CcState,
        now: &mut Time,
        rtt: Time,
        base: Time,
    ) {
        let n = st.cwnd.floor().max(1.0) as u64;
        let step = Time(rtt.ps() / n);
        for _ in 0..n {
            *now += step;
            let a = AckInfo {
                min_rtt: base,
                ..ack_at(*now, 1, Some(rtt), rtt)
            };
            cc.on_ack(st, &a);
        }
        let mut r = round(*now, rtt, base);
        r.acked = n;
        cc.on_round(st, &r);
    }

    pub fn table(src: &str) -> toml::value::Table {
        toml::from_str(src).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::table;
    use super::*;

    #[test]
    fn every_known_name_builds_with_defaults() {
        for n in KNOWN {
            let a = build(n, &Default::default()).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert!(!a.name().is_empty());
        }
    }

    #[test]
    fn parameters_override_and_errors_name_the_key() {
        assert!(build("fast", &table("alpha = 200")).is_ok());
        assert!(build("fast", &table("alpha = 50.5\ngamma = 0.3")).is_ok());
        let e = build("fast", &table("alfa = 1")).err().unwrap();
        assert!(e.starts_with("alfa:"), "{e}");
        let e = build("cubic", &table("beta = -0.5")).err().unwrap();
        assert!(e.starts_with("beta:"), "{e}");
        let e = build("vegas", &table("alpha = \"two\"")).err().unwrap();
        assert!(e.starts_with("alpha:"), "{e}");
        let e = build("bic", &table("fast_convergence = 1")).err().unwrap();
        assert!(e.starts_with("fast_convergence:"), "{e}");
        let e = build("reno", &table("beta = 0.5")).err().unwrap();
        assert!(e.starts_with("beta:"), "{e}");
        let e = build("warp", &Default::default()).err().unwrap();
        assert!(e.contains("known:"), "{e}");
    }
}
