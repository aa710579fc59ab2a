//! Congestion control: the algorithm decides `cwnd` and `ssthresh` (and optionally a
//! pacing rate) from events; loss recovery, timers and pacing live in the sender.
//!
//! The shape follows Linux's `tcp_congestion_ops`: the sender reports every ACK, each
//! congestion event with its kind, leaving recovery, and once-per-RTT rounds.
//! Windows are in segments (f64, so that laws with fractional growth are exact).

pub mod reno;

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

/// The names a scenario may give, for error messages.
pub const KNOWN: &[&str] = &["reno", "newreno"];

/// Build an algorithm by name. `params` are the extra keys of `cc = { name = ..., ... }`;
/// an error names the offending key.
pub fn build(
    name: &str,
    params: &toml::value::Table,
) -> Result<Box<dyn CongestionControl>, String> {
    match name {
        "reno" | "newreno" => {
            no_params(name, params)?;
            Ok(Box::new(reno::Reno))
        }
        _ => Err(format!(
            "unknown congestion control \"{name}\" (known: {})",
            KNOWN.join(", ")
        )),
    }
}

fn no_params(name: &str, params: &toml::value::Table) -> Result<(), String> {
    match params.keys().next() {
        Some(k) => Err(format!("{k}: \"{name}\" has no parameter \"{k}\"")),
        None => Ok(()),
    }
}
