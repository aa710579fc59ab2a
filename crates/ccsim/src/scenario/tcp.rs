//! `[tcp]` and `flows[i].tcp`: the TCP options of a flow group, its congestion-control
//! algorithm (`cc`) and its pacer, as data with their checks. `net` turns them into
//! sender configurations.

use crate::cc::Profile;
use crate::quantity::{Dur, LawSpec, Secs, SizeQ};
use crate::units::Time;
use serde::Deserialize;

/// TCP options; `[tcp]` sets defaults, `flows[i].tcp` overrides them per group. Every
/// option left out takes the value of the group's profile ([`ProfileDefaults`];
/// docs/tcp.md has the table).
#[derive(Debug, Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct TcpOpts {
    /// `"linux"` (default), `"ns2"` or `"ns3"`: the set of defaults below.
    pub profile: Option<String>,
    /// Segment payload.
    pub mss: Option<SizeQ>,
    /// IP + TCP header bytes on every packet.
    pub header: Option<SizeQ>,
    /// Initial window in segments.
    pub init_cwnd: Option<f64>,
    /// Initial ssthresh in segments (`inf`: none, slow start until the first loss).
    pub init_ssthresh: Option<f64>,
    /// Receive window: a size (`"64KB"`), `"65pkt"`, or `"unlimited"` (default).
    pub rwnd: Option<String>,
    /// RFC 1122 delayed ACKs and their timeout.
    pub delayed_ack: Option<bool>,
    pub delack_timeout: Option<Dur>,
    /// Segments a receiver acknowledges at once at the start of a flow, delayed ACKs
    /// or not (Linux's quick-ack mode, `tcp_incr_quickack`: up to 16).
    pub quickack: Option<u32>,
    /// Linux's SACK compression (`__tcp_ack_snd_check`, `net.ipv4.tcp_comp_sack_*`):
    /// past the third duplicate ACK for the same hole, a receiver holding
    /// out-of-order data ACKs at most once per min(1 ms, RTT/20) or every 44
    /// segments, instead of once per segment (RFC 5681 §4.2's immediate ACK).
    pub sack_compression: Option<bool>,
    /// Minimum RTO, maximum and initial.
    pub min_rto: Option<Dur>,
    pub max_rto: Option<Dur>,
    pub initial_rto: Option<Dur>,
    /// `"rfc6298"`: RTO = max(SRTT + 4·RTTVAR, min_rto); `"linux"`: SRTT + a variance
    /// term that min_rto floors (`tcp_rtt_estimator`, tcp/rtt.rs).
    pub rto_estimator: Option<String>,
    /// RFC 7323 timestamps for RTT samples (off: Karn's timed segment).
    pub timestamps: Option<bool>,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupthresh: Option<u32>,
    /// RFC 6937 proportional rate reduction in SACK recovery (off: RFC 6675's cwnd =
    /// ssthresh at once).
    pub prr: Option<bool>,
    /// PRR as ns-3.44's `TcpPrrRecovery` computes it, with `prr`: RecoverFS is the
    /// pipe (`BytesInFlight()`) when recovery starts, every ACK in recovery that SACKs
    /// new data adds one segment to prr_delivered beside the SACKed bytes while
    /// prr_delivered < RecoverFS (`DoRecovery`'s `isDupAck` estimate, meant for
    /// connections without SACK), and CEIL(prr_delivered · ssthresh / RecoverFS) is
    /// taken in bytes of 32-bit unsigned arithmetic; off: RFC 6937.
    pub prr_ns3: Option<bool>,
    /// In SACK recovery, a partial ACK sends one segment whatever cwnd allows (the
    /// first lost segment not yet resent, else new data) unless the segment at the new
    /// snd.una was already retransmitted, as ns-3's `ProcessAck` calls
    /// `DoRetransmit()`; off: RFC 6675 §5 (C), sending by pipe only.
    pub partial_ack_send: Option<bool>,
    /// The ACK that ends a fast recovery also grows cwnd (after cwnd = ssthresh), as
    /// an ACK of every segment it cumulatively acknowledges, SACKed ones included, as
    /// ns-3's `ProcessAck` calls `IncreaseWindow(segsAcked)`; off: it only sets cwnd.
    pub exit_ack_increase: Option<bool>,
    /// With SACK, the congestion-avoidance and slow-start laws hear the segments each
    /// ACK newly delivers (cumulatively acknowledged and not SACKed before, plus newly
    /// SACKed), on the ACK that ends a recovery too, as Linux's `tcp_cong_control`
    /// passes `acked_sacked`; off: the cumulative ACK's advance, outside recovery only.
    pub grow_by_delivered: Option<bool>,
    /// A timeout inside fast recovery computes ssthresh anew (ns-3), instead of keeping
    /// the one the recovery set (Linux `tcp_enter_loss`, ns-2).
    pub rto_new_ssthresh: Option<bool>,
    /// A timeout keeps the SACK scoreboard and resends only what is not SACKed (Linux
    /// `tcp_timeout_mark_lost`, which clears it only when the receiver reneged; ns-3),
    /// instead of clearing it (RFC 2018 §8's caution; ns-2).
    pub rto_keeps_sack: Option<bool>,
    /// With SACK, fast retransmit gives the algorithm the RFC 6675 pipe (data neither
    /// SACKed nor deemed lost) as FlightSize, as ns-3's `EnterRecovery` passes
    /// `BytesInFlight()`; otherwise all data outstanding (RFC 5681 §3.1).
    pub ssthresh_from_pipe: Option<bool>,
    /// With SACK, outside recovery SACKed segments are not in flight (RFC 6675 §5 step
    /// (3): Limited Transmit governed by cwnd and pipe): each of the first duplicate
    /// ACKs lets a new segment out, as ns-3 sends by cwnd − `BytesInFlight()` in every
    /// state; off: outside recovery the window counts everything sent and not
    /// cumulatively acknowledged.
    pub limited_transmit: Option<bool>,
    /// `"none"` (default), `"leaky"`, `"rate"`, `"linux"` (Linux's own pacing), or a
    /// table (see tcp::pacer).
    pub pacing: Option<PacingSpec>,
    /// An algorithm that paces itself (BBR) sends its send quantum back to back and
    /// then waits the pacing time of all of it, as Linux paces one GSO skb at a time
    /// (`tcp_update_skb_after_send`; GSO always on since 4.17, whatever the device
    /// offers); off: one segment per pacing interval (ns-3).
    pub gso_bursts: Option<bool>,
    /// RFC 3168 ECN: data sent ECN-capable, the sender halves once per window on
    /// ECN-Echo (default off).
    pub ecn: Option<bool>,
    /// RFC 7661 spirit (Linux `tcp_is_cwnd_limited`): a window that did not limit
    /// sending (pacer, receive window or application) does not grow.
    pub cwnd_validation: Option<bool>,
    /// RFC 8985 RACK-TLP: time-based loss detection and the Tail Loss Probe, with SACK
    /// recovery (Linux `net.ipv4.tcp_recovery = 1`).
    pub rack: Option<bool>,
    /// Linux's TSO/GSO deferral: data leaves in skbs of `tcp_tso_autosize` segments
    /// (about 1 ms at 120 % of cwnd/SRTT, 200 % while cwnd < ssthresh/2), and an skb the
    /// window can take only part of (two segments or more) waits for the next ACK while
    /// `tcp_tso_should_defer` says so (tcp/sender.rs). Not for an algorithm that paces
    /// itself (BBR).
    pub tso_defer: Option<bool>,
    /// The receiving application's wake-up latency, a duration or a distribution
    /// (`"100us"`, `{ normal = { mean = "85us", sd = "25us" } }`): in-order data is
    /// then acknowledged at the application's reads, as Linux does (`tcp_cleanup_rbuf`:
    /// more than one segment unacknowledged, or a PSH segment drained; tcp/receiver.rs).
    /// Left out: ACKs as data arrives, every second segment.
    pub read_latency: Option<LawSpec<Secs>>,
}

/// What a profile gives each TCP option left out (docs/tcp.md has the table and the
/// sources).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileDefaults {
    pub mss: u64,
    pub header: u64,
    pub init_cwnd: f64,
    pub init_ssthresh: f64,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    pub quickack: u32,
    pub sack_compression: bool,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// Linux's RTO estimator rather than RFC 6298's.
    pub linux_rto: bool,
    pub timestamps: bool,
    pub dupthresh: u32,
    /// The recovery a group gets without `recovery = ...`: SACK, or NewReno (Reno for
    /// `cc = "reno"`).
    pub sack: bool,
    pub prr: bool,
    pub prr_ns3: bool,
    pub partial_ack_send: bool,
    pub exit_ack_increase: bool,
    pub grow_by_delivered: bool,
    pub rto_new_ssthresh: bool,
    pub rto_keeps_sack: bool,
    pub ssthresh_from_pipe: bool,
    pub limited_transmit: bool,
    pub cwnd_validation: bool,
    pub rack: bool,
    pub gso_bursts: bool,
    pub tso_defer: bool,
}

/// Linux's "no initial ssthresh": `TCP_INFINITE_SSTHRESH` (0x7fffffff segments).
pub const INFINITE_SSTHRESH: f64 = 2_147_483_647.0;

impl ProfileDefaults {
    pub fn of(profile: Profile) -> ProfileDefaults {
        match profile {
            // Linux 6.x: tcp_init_sock (IW 10, RFC 6928; TCP_INFINITE_SSTHRESH), MSS
            // 1448 behind 20 + 20 + 12 B of IP, TCP and timestamp option (1500 B MTU),
            // TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s, TCP_RTO_MAX 120 s, SACK with
            // PRR (tcp_cwnd_reduction), delayed ACKs every second full segment with
            // TCP_DELACK_MIN 40 ms after a quick-ack start (TCP_MAX_QUICKACKS 16),
            // tcp_is_cwnd_limited.
            Profile::Linux => ProfileDefaults {
                mss: 1448,
                header: 52,
                init_cwnd: 10.0,
                init_ssthresh: INFINITE_SSTHRESH,
                delayed_ack: true,
                delack_timeout: Time::from_millis(40),
                quickack: 16,
                // net.ipv4.tcp_comp_sack_nr = 44, tcp_comp_sack_delay_ns = 1 ms (since 4.18).
                sack_compression: true,
                min_rto: Time::from_millis(200),
                max_rto: Time::from_secs(120),
                initial_rto: Time::from_secs(1),
                // tcp_rtt_estimator / __tcp_set_rto: RTO = srtt + rttvar ≥ srtt + 200 ms.
                linux_rto: true,
                timestamps: true,
                dupthresh: 3,
                sack: true,
                prr: true,
                prr_ns3: false,
                partial_ack_send: false,
                exit_ack_increase: false,
                // tcp_cong_control(sk, ack, delivered, ...): tcp_cong_avoid(acked_sacked),
                // in Open by the ACK that ends recovery.
                grow_by_delivered: true,
                rto_new_ssthresh: false,
                rto_keeps_sack: true,
                ssthresh_from_pipe: false,
                // tcp_packets_in_flight = packets_out - (sacked_out + lost_out) +
                // retrans_out in every state: each SACK lets a new segment out before
                // DupThresh (RFC 3042's effect, without its own rule).
                limited_transmit: true,
                cwnd_validation: true,
                // net.ipv4.tcp_recovery = 1 (TCP_RACK_LOSS_DETECTION), Linux's default.
                rack: true,
                gso_bursts: true,
                // tcp_write_xmit → tcp_tso_should_defer (net/ipv4/tcp_output.c).
                tso_defer: true,
            },
            // The seed studies' ns-2 set-ups (Agent/TCP defaults as the studies set
            // them): exactly ccsim's defaults before profiles existed.
            Profile::Ns2 => ProfileDefaults {
                mss: 1460,
                header: 40,
                init_cwnd: 1.0,
                init_ssthresh: 64.0,
                delayed_ack: false,
                delack_timeout: Time::from_millis(200),
                quickack: 0,
                sack_compression: false,
                min_rto: Time::from_millis(200),
                max_rto: Time::from_secs(60),
                initial_rto: Time::from_secs(1),
                linux_rto: false,
                timestamps: true,
                dupthresh: 3,
                sack: false,
                prr: false,
                prr_ns3: false,
                partial_ack_send: false,
                exit_ack_increase: false,
                grow_by_delivered: false,
                rto_new_ssthresh: false,
                rto_keeps_sack: false,
                ssthresh_from_pipe: false,
                limited_transmit: false,
                cwnd_validation: false,
                rack: false,
                gso_bursts: false,
                tso_defer: false,
            },
            // ns-3.44: TcpSocket InitialCwnd 10, InitialSlowStartThreshold UINT32_MAX,
            // DelAckCount 2, DelAckTimeout 200 ms; TcpSocketBase MinRto 1 s,
            // Timestamp and Sack on, TcpPrrRecovery; ReTxTimeout recomputes ssthresh
            // (GetSsThresh) and marks the sent list lost but keeps what was SACKed
            // (TcpTxBuffer::SetSentListLost without resetting SACK, citing RFC 6675
            // §5.1's errata: retaining SACK information across a timeout). SegmentSize is 536 B in ns-3
            // but every study sets it; 1448 B keeps the profiles comparable.
            Profile::Ns3 => ProfileDefaults {
                mss: 1448,
                header: 52,
                init_cwnd: 10.0,
                init_ssthresh: INFINITE_SSTHRESH,
                delayed_ack: true,
                delack_timeout: Time::from_millis(200),
                // ns-3.44's receiver ACKs the first data segment at once (measured: the
                // sender's first ACK covers one segment and slow start's rounds run 10,
                // 19, 37, 73, ..., validation/ns3/hystart.json); TcpSocketBase sets
                // m_delAckCount = m_delAckMaxCount as a handshake completes ("Always
                // respond to first data packet to speed up the connection").
                quickack: 1,
                // ns-3's TcpSocketBase ACKs every out-of-order segment at once.
                sack_compression: false,
                min_rto: Time::from_secs(1),
                max_rto: Time::from_secs(60),
                initial_rto: Time::from_secs(1),
                linux_rto: false,
                timestamps: true,
                dupthresh: 3,
                sack: true,
                prr: true,
                // TcpPrrRecovery::EnterRecovery/DoRecovery (tcp-prr-recovery.cc).
                prr_ns3: true,
                // TcpSocketBase::ProcessAck: DoRetransmit() on a partial ACK, and
                // IncreaseWindow(segsAcked) on the ACK that leaves CA_RECOVERY.
                partial_ack_send: true,
                exit_ack_increase: true,
                grow_by_delivered: false,
                rto_new_ssthresh: true,
                rto_keeps_sack: true,
                ssthresh_from_pipe: true,
                // TcpSocketBase::SendPendingData sends by AvailableWindow() = cwnd −
                // BytesInFlight(), the RFC 6675 pipe, in CA_OPEN and CA_DISORDER too.
                limited_transmit: true,
                cwnd_validation: false,
                // ns-3.44's TcpSocketBase has no RACK (its TcpRecoveryOps are classic
                // and PRR) and no TLP.
                rack: false,
                // TcpSocketBase paces segment by segment (m_pacingTimer per packet).
                gso_bursts: false,
                // TcpSocketBase sends what the window allows at once (no skbs).
                tso_defer: false,
            },
        }
    }
}

impl TcpOpts {
    /// The profile these options name (the default, `linux`, when none).
    pub fn profile(&self) -> Result<Profile, String> {
        self.profile
            .as_deref()
            .map_or(Ok(Profile::default()), Profile::parse)
    }

    /// Fields set here override those of `base`.
    pub fn over(&self, base: &TcpOpts) -> TcpOpts {
        macro_rules! pick {
            ($($f:ident),*) => { TcpOpts { $($f: self.$f.clone().or_else(|| base.$f.clone())),* } };
        }
        pick!(
            profile,
            mss,
            header,
            init_cwnd,
            init_ssthresh,
            rwnd,
            delayed_ack,
            delack_timeout,
            quickack,
            sack_compression,
            min_rto,
            max_rto,
            initial_rto,
            rto_estimator,
            timestamps,
            dupthresh,
            prr,
            prr_ns3,
            partial_ack_send,
            exit_ack_increase,
            grow_by_delivered,
            rto_new_ssthresh,
            rto_keeps_sack,
            ssthresh_from_pipe,
            limited_transmit,
            pacing,
            gso_bursts,
            ecn,
            cwnd_validation,
            rack,
            tso_defer,
            read_latency
        )
    }
}

/// `cc = "newreno"` or `cc = { name = "fast", alpha = 200 }`.
#[derive(Debug, Clone)]
pub struct CcSpec {
    pub name: String,
    pub params: toml::value::Table,
}

impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = toml::Value::deserialize(d)?;
        let spec = match v {
            toml::Value::String(name) => CcSpec {
                name,
                params: Default::default(),
            },
            toml::Value::Table(mut t) => {
                let name = match t.remove("name") {
                    Some(toml::Value::String(s)) => s,
                    _ => {
                        return Err(D::Error::custom(
                            "expected { name = \"...\", ... } with a string name",
                        ))
                    }
                };
                CcSpec { name, params: t }
            }
            other => {
                return Err(D::Error::custom(format!(
                    "expected an algorithm name like \"newreno\", got {other}"
                )))
            }
        };
        // Validate the name and parameters here so the error carries the field path.
        crate::cc::build(&spec.name, &spec.params, Profile::default()).map_err(D::Error::custom)?;
        Ok(spec)
    }
}

impl Default for CcSpec {
    fn default() -> Self {
        CcSpec {
            name: "newreno".into(),
            params: Default::default(),
        }
    }
}

/// Receive window in segments: `"unlimited"`, `"65pkt"` or a size in bytes.
pub fn parse_rwnd(s: &str, mss: u32) -> Result<u64, String> {
    let s = s.trim();
    if s == "unlimited" {
        return Ok(u64::MAX);
    }
    if let Some(n) = s.strip_suffix("pkt") {
        return n
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("expected \"unlimited\", \"64pkt\" or a size, got \"{s}\""));
    }
    let b = crate::units::parse_bytes(s)?;
    Ok((b / mss as u64).max(1))
}

/// A pacer, resolved from `tcp.pacing` (tcp/pacer.rs implements it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pacing {
    None,
    /// RTT/cwnd between packets (studies 000 and 001); bucket `depth` packets.
    Leaky {
        depth: f64,
    },
    /// factor·cwnd/SRTT, `ss_factor` in slow start and `ca_factor` after.
    Rate {
        ss_factor: f64,
        ca_factor: f64,
        depth: f64,
    },
    /// Linux's internal pacing (`tcp_update_pacing_rate`, GSO skbs by departure time).
    Linux,
}

/// `pacing = "leaky"` or `pacing = { kind = "rate", ca_factor = 1.25, depth = 2 }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum PacingSpec {
    Name(String),
    Table(PacingTable),
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PacingTable {
    pub kind: String,
    pub depth: Option<f64>,
    pub ss_factor: Option<f64>,
    pub ca_factor: Option<f64>,
}

/// Whether the spec sets a bucket depth.
fn depth_given(s: &PacingSpec) -> bool {
    matches!(s, PacingSpec::Table(t) if t.depth.is_some())
}

impl PacingSpec {
    /// The pacer this spec asks for, checked.
    pub fn resolve(&self) -> Result<Pacing, String> {
        let (kind, depth, ss, ca) = match self {
            PacingSpec::Name(n) => (n.as_str(), None, None, None),
            PacingSpec::Table(t) => (t.kind.as_str(), t.depth, t.ss_factor, t.ca_factor),
        };
        let depth = depth.unwrap_or(1.0);
        if depth.is_nan() || depth < 1.0 {
            return Err(format!("depth must be at least one packet, got {depth}"));
        }
        let mode = match kind {
            "none" => Pacing::None,
            "leaky" => Pacing::Leaky { depth },
            "linux" => Pacing::Linux,
            "rate" => Pacing::Rate {
                ss_factor: ss.unwrap_or(2.0),
                ca_factor: ca.unwrap_or(1.2),
                depth,
            },
            other => {
                return Err(format!(
                    "unknown pacing \"{other}\" (known: none, leaky, rate, linux)"
                ))
            }
        };
        if let Pacing::Rate {
            ss_factor,
            ca_factor,
            ..
        } = mode
        {
            if ss_factor.is_nan() || ss_factor <= 0.0 || ca_factor.is_nan() || ca_factor <= 0.0 {
                return Err("pacing factors must be positive".into());
            }
        }
        if !matches!(mode, Pacing::Rate { .. }) && (ss.is_some() || ca.is_some()) {
            return Err(format!("\"{kind}\" pacing has no factors"));
        }
        if mode == Pacing::Linux && depth_given(self) {
            return Err("\"linux\" pacing has no depth (it sends GSO skbs)".into());
        }
        Ok(mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_errors() {
        assert!(PacingSpec::Name("warp".into())
            .resolve()
            .unwrap_err()
            .contains("warp"));
        let t = PacingTable {
            kind: "leaky".into(),
            depth: Some(0.5),
            ss_factor: None,
            ca_factor: None,
        };
        assert!(PacingSpec::Table(t).resolve().is_err());
        assert_eq!(
            PacingSpec::Name("linux".into()).resolve(),
            Ok(Pacing::Linux)
        );
        // Linux's pacing has neither a bucket nor factors of its own.
        for (depth, ca) in [(Some(2.0), None), (None, Some(1.5))] {
            let t = PacingTable {
                kind: "linux".into(),
                depth,
                ss_factor: None,
                ca_factor: ca,
            };
            assert!(PacingSpec::Table(t).resolve().is_err(), "{depth:?} {ca:?}");
        }
    }
}
