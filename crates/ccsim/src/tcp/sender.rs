//! The TCP sender: window use, loss recovery (Reno / NewReno / SACK), retransmission
//! timer, ECN reaction, pacing and the cwnd-limited gate.
//!
//! Sequence numbers count segments. The congestion-control algorithm (`cc`) supplies
//! the laws — how cwnd grows per ACK and per round, and what ssthresh a congestion
//! signal leaves; everything else is here, so any algorithm runs with any recovery.
//!
//! The sender is a state machine over [`CaState`] (Linux's `tcp_ca_state`):
//!
//! ```text
//!              DupThresh duplicates (or IsLost(snd_una) with SACK)
//!        ┌──────────────────────── enter_recovery ───────────────────────┐
//!        │                                                               ▼
//!      Open ◀─────────────────────── exit_recovery ───────────────── Recovery
//!        ▲        (ACK ≥ recover; with Reno, any new ACK)                │
//!        │                                                               │ RTO
//!        │ ACK > recover                                                 ▼
//!        └────────────────────────────── Loss ◀─────── RTO (from any state)
//! ```
//!
//! - **Open**: the algorithm's `on_ack` drives cwnd; duplicate ACKs count toward fast
//!   retransmit.
//! - **Recovery** (RFC 5681 §3.2, RFC 6582, RFC 6675 §5): entered once, by
//!   `enter_recovery`; the sender owns cwnd (NewReno inflation and partial ACKs, or
//!   SACK's pipe) until the recovery point is acknowledged.
//! - **Loss**: after a timeout, slow start from one segment; duplicate ACKs start no
//!   fast retransmit until snd_una passes the recovery point set at the timeout.
//!
//! The RFC 6675 scoreboard is in `scoreboard.rs`, once-per-RTT rounds in `round.rs`.
//!
//! With `rack` (RFC 8985, SACK recovery only; `rack.rs`) losses are also found by time:
//! an un-SACKed segment sent before the most recently sent delivered one is lost once it
//! has waited RACK.rtt + reo_wnd (on an ACK, or by the reordering timer), and a Tail
//! Loss Probe goes out 2·SRTT after the last ACK when nothing is SACKed. The sender's
//! one timer (`timer_deadline`) is then the earliest of RTO, reordering timer and PTO.
//!
//! With `tso_defer` (Linux) new data leaves as Linux's `tcp_write_xmit` sends its write
//! queue: in skbs of `tcp_tso_autosize` segments, and an skb the window can take only
//! part of (one segment or more: Linux's write-queue skbs outgrow the room) waiting, when
//! `tcp_tso_should_defer` says so ([`Sender::tso_should_defer`]), for the next ACK. The
//! skbs are cut afresh at each send attempt, as from a send queue that a bulk
//! application refills as ACKs free its buffer. With `pacing = "linux"` (Linux's own
//! pacing, `tcp_pacing_check` before the deferral) the skbs also leave no earlier than
//! their departure time ([`GsoBurst`]); an algorithm's own pacing rate (BBR) sends whole
//! skbs. Measured on the testbed (validation/linux/bursts.json, bursts_unpaced.json):
//! unpaced, every burst leaves at an ACK; paced, the window's increase leaves at the
//! pacing release.

use crate::cc::{
    Ack, CaState, Congestion, CongestionControl, CongestionKind, EcnStyle, Round, RttStats, Window,
};
use crate::metrics::hist::DelayHist;
use crate::packet::{Ecn, Packet, PktKind, XcpHeader};
use crate::tcp::delivery::DeliveryRate;
use crate::tcp::pacer::{Pacer, PacingMode};
use crate::tcp::rack::{self, Rack, XmitRing};
use crate::tcp::round::RoundTracker;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 5681 fast recovery: any new ACK ends it.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole; recovery ends at `recover`.
    NewReno,
    /// RFC 6675: conservative SACK-based recovery (scoreboard, pipe, NextSeg).
    Sack,
}

/// ns-3.44's `TcpPrrRecovery` state in bytes, as it keeps it (`uint32_t`).
#[derive(Clone, Copy, Debug, Default)]
struct Ns3Prr {
    delivered: u32,
    out: u32,
    recover_fs: u32,
}

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    pub header: u32,
    pub init_cwnd: f64,
    pub init_ssthresh: f64,
    /// Receive window in segments (u64::MAX: unlimited).
    pub rwnd: u64,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// Linux's RTT measurement and RTO estimator (tcp/rtt.rs; `tcp_ack_update_rtt`,
    /// `tcp_rtt_estimator`) rather than RFC 6298's on timestamp echoes.
    pub linux_rto: bool,
    pub timestamps: bool,
    pub dupthresh: u32,
    pub recovery: Recovery,
    /// RFC 6937 proportional rate reduction in SACK recovery (Linux
    /// `tcp_cwnd_reduction`, with its slow-start reduction bound).
    pub prr: bool,
    /// With `prr`, ns-3.44's `TcpPrrRecovery` arithmetic instead of RFC 6937's
    /// (`Ns3Prr`).
    pub prr_ns3: bool,
    /// In SACK recovery, a partial ACK sends one segment whatever cwnd allows (the
    /// first lost one not yet resent, else new data) unless the new snd.una was already
    /// retransmitted: ns-3's `ProcessAck` calls `DoRetransmit()` there.
    pub partial_ack_send: bool,
    /// The ACK that ends a fast recovery also grows cwnd, after cwnd = ssthresh, as an
    /// ACK of every segment it cumulatively acknowledges (ns-3's `ProcessAck`:
    /// `IncreaseWindow(segsAcked)`).
    pub exit_ack_increase: bool,
    /// With SACK, the law hears the segments an ACK newly delivers (not SACKed before,
    /// or newly SACKed), on the ACK that ends recovery too (Linux `tcp_cong_control`'s
    /// `acked_sacked`); off: the cumulative advance, outside recovery.
    pub grow_by_delivered: bool,
    /// A timeout inside fast recovery asks the algorithm for a new ssthresh (ns-3's
    /// `ReTxTimeout`) instead of keeping the recovery's (Linux `tcp_enter_loss`).
    pub rto_new_ssthresh: bool,
    /// A timeout keeps the SACK scoreboard (Linux `tcp_timeout_mark_lost`, ns-3)
    /// instead of clearing it (ns-2).
    pub rto_keeps_sack: bool,
    /// With SACK, fast retransmit tells the algorithm the RFC 6675 pipe as FlightSize
    /// (ns-3's `BytesInFlight()` in `EnterRecovery`) rather than all data outstanding.
    pub ssthresh_from_pipe: bool,
    /// With SACK, outside recovery SACKed segments leave the flight (RFC 6675 §5 step
    /// (3), Limited Transmit by cwnd and pipe; ns-3 sends by cwnd − `BytesInFlight()`
    /// in every state): each of the first duplicate ACKs lets a new segment out.
    pub limited_transmit: bool,
    pub pacing: PacingMode,
    /// RFC 3168: send data as ECN-capable and react to ECN-Echo.
    pub ecn: bool,
    /// RFC 7661 spirit (Linux `tcp_is_cwnd_limited`): an ACK that was not cwnd-limited
    /// does not let the window grow (the algorithm still sees it).
    pub cwnd_validation: bool,
    /// RFC 8985 RACK-TLP loss detection (Linux `net.ipv4.tcp_recovery = 1`), with SACK
    /// recovery only (Linux `tcp_is_rack` needs SACK too).
    pub rack: bool,
    /// A self-pacing algorithm's send quantum leaves back to back, paced as one burst
    /// (Linux's GSO skb; see [`Sender::pace_ok`]).
    pub gso_bursts: bool,
    /// Without pacing, new data leaves in skbs of [`tso_autosize`] segments, and one
    /// the window cannot take whole may wait for the next ACK (Linux
    /// `tcp_tso_should_defer`; see [`Sender::tso_should_defer`]).
    pub tso_defer: bool,
    /// PSH on the last segment of each skb sent ([`Sender::mark_skb_ends`]), for a
    /// receiver that ACKs at the application's reads (`tcp.read_latency`); off: every
    /// data segment carries PSH (what a capture shows), which no other receiver reads.
    pub mark_psh: bool,
    /// Rounds end as Linux's do, at the ACK that covers the first segment sent after
    /// the last round ended (`RoundTracker::new`; linux profile).
    pub linux_rounds: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub data_pkts_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Total time spent in fast recovery (entry to exit or timeout).
    pub recovery_time: Time,
    /// Data packets sent at the same instant as the previous one (bursts).
    pub back_to_back: u64,
    /// Tail Loss Probes sent (RFC 8985 §7.3).
    pub loss_probes: u64,
}

/// Whether the window limited sending, tracked per window of data as Linux's
/// `tcp_cwnd_validate` does.
#[derive(Clone, Copy, Debug, Default)]
struct CwndUse {
    /// The last send attempt in the current window was stopped by cwnd (Linux
    /// `is_cwnd_limited`).
    limited: bool,
    /// The most segments out in the current window (Linux `max_packets_out`).
    max_out: u64,
    /// The current window ends when snd_una reaches this (Linux `cwnd_usage_seq`).
    until: u64,
}

/// Linux's per-skb pacing (earliest departure time, `tcp_update_skb_after_send`) for
/// an algorithm that sets its pacing rate, sending GSO skbs of [`tso_autosize`]
/// segments: a burst leaves at `max(edt, now)` and moves `edt` on by the pacing time
/// of its segments, less half of it at most when it left late ("take into account OS
/// jitter": the credit is how late it left).
#[derive(Clone, Copy, Debug, Default)]
struct GsoBurst {
    /// Earliest departure time of the next burst (Linux `tcp_wstamp_ns`).
    edt: Time,
    /// When the current burst left; segments sent in it; how many more it may take.
    start: Time,
    sent: u32,
    room: u32,
    /// How late the current burst left (`tcp_wstamp_ns - prior_wstamp`).
    credit: Time,
}

/// `bbr_min_tso_rate` (1.2 Mbit/s) in bytes/s: below it BBR's skbs are single segments.
const MIN_TSO_RATE: f64 = 1_200_000.0 / 8.0;
/// `tcp_tso_should_defer` defers only while the last write is under 1 ms old.
const DEFER_MAX: Time = Time::from_millis(1);
/// `sk_pacing_shift` (10: an skb holds about 1 ms at the pacing rate),
/// `sysctl_tcp_tso_rtt_log` (9: the RTT term halves per 512 µs of min RTT) and the
/// device's `gso_max_size` (GSO_LEGACY_MAX_SIZE, a veth's or a NIC's default).
const PACING_SHIFT: u32 = 10;
const TSO_RTT_LOG: u32 = 9;
const GSO_MAX_SIZE: u64 = 65_536;

/// Linux's `tcp_tso_segs` for a self-pacing algorithm (`tcp_tso_autosize` with BBR's
/// `bbr_min_tso_segs`, the same in BBRv3): the segments of the skb TCP builds, about
/// 1 ms at the pacing rate (`rate` in payload bytes/s) plus a burst allowance that
/// halves per 512 µs of min RTT (64 KB at 0, under a segment past 3 ms), at most
/// `gso_max_size`, at least 2 (1 below 1.2 Mbit/s). Without an RTT sample yet the
/// RTT term is nothing (Linux's `tcp_min_rtt` starts at ~0U).
pub fn tso_autosize(rate: f64, min_rtt: Option<Time>, mss: u32) -> u32 {
    tso_autosize_min(rate, min_rtt, mss, bbr_min_tso_segs(rate))
}

/// `bbr_min_tso_segs`: single segments below 1.2 Mbit/s, else 2.
fn bbr_min_tso_segs(rate: f64) -> u32 {
    if rate < MIN_TSO_RATE {
        1
    } else {
        2
    }
}

/// Linux's `tcp_tso_autosize` with at least `min_tso` segments (BBR's
/// `bbr_min_tso_segs`, or `net.ipv4.tcp_min_tso_segs` = 2 for every other algorithm).
pub fn tso_autosize_min(rate: f64, min_rtt: Option<Time>, mss: u32, min_tso: u32) -> u32 {
    let mut bytes = (rate.max(0.0) as u64) >> PACING_SHIFT;
    if let Some(r) = min_rtt.map(|t| (t.ps() / 1_000_000) >> TSO_RTT_LOG) {
        if r < 32 {
            bytes += GSO_MAX_SIZE >> r;
        }
    }
    let segs = bytes.min(GSO_MAX_SIZE) / u64::from(mss.max(1));
    segs.max(u64::from(min_tso)) as u32
}

/// What an ACK of new data tells the laws besides itself.
#[derive(Clone, Copy, Debug)]
struct AckCtx {
    cwnd_limited: bool,
    rtt: RttStats,
}

pub struct Sender {
    pub cfg: SenderConfig,
    /// Total segments to send (u64::MAX: unlimited) and the payload of the last one.
    pub limit: u64,
    pub last_payload: u32,
    pub data_path: u32,
    pub flow: u32,
    cc: Box<dyn CongestionControl>,
    /// cwnd and ssthresh: the algorithm's laws and this sender's recovery change them.
    win: Window,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub high_tx: u64,
    /// One past the highest segment ever resent: none at or above it was retransmitted.
    retx_end: u64,
    state: CaState,
    dupacks: u32,
    /// RFC 6582 `recover`, RFC 6675 RecoveryPoint: high_tx when the last recovery or
    /// timeout began.
    recover: u64,
    /// NewReno: the timer is restarted on the first partial ACK only (RFC 6582 §4.1).
    first_partial: bool,
    pub rtt: RttEstimator,
    /// Every RTT sample, for the flow's RTT distribution (reset at the warmup).
    pub rtt_samples: DelayHist,
    /// Stopped (`flows[i].stop`, a group's stop event): sends nothing more.
    pub stopped: bool,
    /// Karn's rule without timestamps: the one segment being timed, and when.
    timed: Option<(u64, Time)>,
    pub rto_deadline: Option<Time>,
    pub pacer: Pacer,
    /// The pacer, or TSO deferral, holds the next packet until this time (the engine
    /// sets a timer and calls `try_send` then).
    pub pace_at: Option<Time>,
    /// GSO-burst pacing (`cfg.gso_bursts`): the burst being sent.
    gso: GsoBurst,
    last_tx: Option<Time>,
    /// The last send attempt deferred an skb (Linux sets `is_cwnd_limited` then).
    deferred: bool,
    /// With `grow_by_delivered`, an ACK's growth waits for its loss detection
    /// (`tcp_fastretrans_alert` runs before `tcp_cong_control`): segments delivered,
    /// the ACK's context, XCP feedback, ECE.
    pending_growth: Option<(u64, AckCtx, Option<f64>, bool)>,
    /// Send times for TSO deferral's expected-ACK test and Linux's RTT samples when
    /// RACK, which keeps them, is off.
    xmit: Option<Box<XmitRing>>,
    /// Send times of the first and last segment, not retransmitted, that the last
    /// ACK's SACK blocks newly delivered (Linux's `first_sackt`, `last_sackt`).
    sack_span: Option<(Time, Time)>,
    pub stats: SenderStats,
    /// RFC 6675 scoreboard (SACK recovery only).
    sb: Scoreboard,
    /// RFC 3168 §6.1.2: no second ECN reduction until snd_una passes this point.
    ecn_recover: u64,
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
    recovery_start: Time,
    /// The algorithm wants the XCP congestion header (asked once, not per packet).
    xcp: bool,
    /// The ECN codepoint of new data: ECT(0), ECT(1) for L4S (RFC 9331 §4.1), or
    /// not-ECT when the flow does not use ECN.
    ect: Ecn,
    /// snd_una at the last timeout: that segment has been resent by the timer.
    rto_una: Option<u64>,
    round: RoundTracker,
    cwnd_use: CwndUse,
    /// The algorithm owns cwnd and pacing on every ACK (Linux `cong_control`, BBR):
    /// it then has a delivery-rate estimator (tcp/delivery.rs); others have none.
    cong_control: bool,
    rate: Option<DeliveryRate>,
    /// With SACK and a rate estimator: every un-SACKed segment below this was counted
    /// lost (`mark_new_losses`) in the current loss episode.
    loss_mark: u64,
    /// cwnd when the current fast recovery began (Linux `prior_cwnd`): what the
    /// algorithm sees of the window at a timeout inside the recovery, where cwnd itself
    /// is NewReno-inflated or PRR-reduced.
    prior_cwnd: f64,
    /// RFC 6937 state: data delivered and sent since recovery began, and RecoverFS.
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    /// The same in bytes, as ns-3.44's `TcpPrrRecovery` keeps them (`prr_ns3`).
    ns3_prr: Ns3Prr,
    /// RACK-TLP (RFC 8985) when `cfg.rack` and SACK recovery.
    rack: Option<Box<Rack>>,
    /// RFC 8985 §6.3 reordering timer and §7.2 PTO (RACK only).
    reo_at: Option<Time>,
    tlp_at: Option<Time>,
    /// RFC 8985 §7.3 TLP.end_seq (high_tx after the probe) while a probe is
    /// outstanding, and whether it was a retransmission (Linux `tlp_retrans`).
    tlp_end: Option<u64>,
    tlp_retx: bool,
    /// The ACK being processed SACKed something new (RACK's and TLP's bookkeeping).
    ack_new_sack: bool,
}

/// When outstanding segment `seq` last left and whether as a retransmission, from
/// RACK's send times or the sender's own (None: it keeps none).
#[inline]
fn send_record(rack: Option<&Rack>, xmit: Option<&XmitRing>, seq: u64) -> Option<(Time, bool)> {
    match (rack, xmit) {
        (Some(r), _) => Some((r.sent(seq), r.retransmitted(seq))),
        (None, Some(x)) => Some((x.sent(seq), x.retransmitted(seq))),
        (None, None) => None,
    }
}

/// Out of line: inlined, the histogram's few instructions cost the ACK path more in
/// register pressure than the call does.
#[inline(never)]
fn record_rtt(h: &mut DelayHist, r: Time) {
    h.add(r.ps());
}

impl Sender {
    pub fn new(
        cfg: SenderConfig,
        cc: Box<dyn CongestionControl>,
        flow: u32,
        data_path: u32,
        size_bytes: Option<u64>,
    ) -> Self {
        let (limit, last_payload) = match size_bytes {
            None => (u64::MAX, cfg.mss),
            Some(b) => {
                let b = b.max(1);
                let n = b.div_ceil(cfg.mss as u64);
                (n, (b - (n - 1) * cfg.mss as u64) as u32)
            }
        };
        let rtt = RttEstimator::new(cfg.min_rto, cfg.max_rto, cfg.initial_rto);
        let rtt = if cfg.linux_rto { rtt.linux() } else { rtt };
        let pacing = cfg.pacing;
        let xcp = cc.xcp();
        let ect = match cc.ecn() {
            EcnStyle::Classic if cfg.ecn => Ecn::Ect0,
            EcnStyle::Classic => Ecn::NotEct,
            // RFC 8257 §3.1: DCTCP is always ECN-capable.
            EcnStyle::Dctcp => Ecn::Ect0,
            EcnStyle::L4s => Ecn::Ect1,
        };
        let mut cfg = cfg;
        let rounds_cover = cc.rounds_cover().unwrap_or(cfg.linux_rounds);
        cfg.ecn = ect != Ecn::NotEct;
        let cong_control = cc.cong_control();
        let rack = (cfg.rack && cfg.recovery == Recovery::Sack).then(|| Box::new(Rack::new()));
        let xmit = ((cfg.tso_defer || cfg.linux_rto) && rack.is_none()).then(Box::default);
        let rate = cong_control.then(|| {
            let mut d = DeliveryRate::new();
            if cfg.recovery == Recovery::Sack {
                d.count_losses_when_marked();
            }
            d
        });
        Sender {
            rtt_samples: DelayHist::new(),
            stopped: false,
            win: Window::new(cfg.init_cwnd, cfg.init_ssthresh),
            cfg,
            limit,
            last_payload,
            data_path,
            flow,
            cc,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            retx_end: 0,
            state: CaState::Open,
            dupacks: 0,
            recover: 0,
            first_partial: true,
            rtt,
            timed: None,
            rto_deadline: None,
            pacer: Pacer::new(pacing),
            pace_at: None,
            gso: GsoBurst::default(),
            last_tx: None,
            deferred: false,
            pending_growth: None,
            xmit,
            sack_span: None,
            stats: SenderStats::default(),
            sb: Scoreboard::default(),
            ecn_recover: 0,
            cwr_pending: false,
            recovery_start: Time::ZERO,
            xcp,
            ect,
            rto_una: None,
            round: RoundTracker::new(rounds_cover),
            cwnd_use: CwndUse::default(),
            cong_control,
            rate,
            loss_mark: 0,
            prior_cwnd: 0.0,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            ns3_prr: Ns3Prr::default(),
            rack,
            reo_at: None,
            tlp_at: None,
            tlp_end: None,
            tlp_retx: false,
            ack_new_sack: false,
        }
    }

    /// Give the algorithm its random stream (the flow's, derived from the run seed).
    pub fn seed_cc(&mut self, seed: u64) {
        self.cc.seed(seed);
    }

    /// Congestion window, in segments.
    pub fn cwnd(&self) -> f64 {
        self.win.cwnd
    }

    /// Slow-start threshold, in segments.
    pub fn ssthresh(&self) -> f64 {
        self.win.ssthresh
    }

    /// cwnd, ssthresh and the algorithm's pacing rate.
    pub fn window(&self) -> &Window {
        &self.win
    }

    /// Where the sender stands in loss recovery.
    pub fn state(&self) -> CaState {
        self.state
    }

    /// The algorithm's name ("cubic").
    pub fn cc_name(&self) -> &'static str {
        self.cc.name()
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.limit
    }

    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Whether the window limited sending (Linux `tcp_is_cwnd_limited`): the last send
    /// attempt of the current window was stopped by cwnd, or, in slow start, cwnd is
    /// below twice the most segments out in it (so that slow start can double what
    /// was actually used).
    pub fn cwnd_limited(&self) -> bool {
        self.cwnd_use.limited
            || (self.win.in_slow_start() && self.win.cwnd < 2.0 * self.cwnd_use.max_out as f64)
    }

    fn rtt_stats(&self, latest: Option<Time>) -> RttStats {
        RttStats {
            latest,
            srtt: self.rtt.srtt_time(),
            min: self.rtt.min_rtt.unwrap_or(Time::ZERO),
        }
    }

    fn payload_of(&self, seq: u64) -> u32 {
        if seq + 1 == self.limit {
            self.last_payload
        } else {
            self.cfg.mss
        }
    }

    fn segment(&mut self, seq: u64, now: Time, out: &mut Vec<Packet>) {
        let payload = self.payload_of(seq);
        let retx = seq < self.high_tx;
        if retx {
            self.stats.retransmits += 1;
            self.retx_end = self.retx_end.max(seq + 1);
            // Karn: a retransmitted segment is never timed.
            if matches!(self.timed, Some((s, _)) if s == seq) {
                self.timed = None;
            }
        } else if !self.cfg.timestamps && self.timed.is_none() {
            self.timed = Some((seq, now));
        }
        self.stats.data_pkts_sent += 1;
        if self.last_tx == Some(now) {
            self.stats.back_to_back += 1;
        }
        self.last_tx = Some(now);
        let mut p = Packet::new(
            PktKind::Data,
            self.flow,
            self.data_path,
            seq,
            payload + self.cfg.header,
            payload,
            now,
        );
        p.retx = retx;
        // With `mark_psh`, the flow's last segment (the application's last write) carries
        // PSH; `try_send` marks the ends of the skbs it sends (`mark_skb_ends`).
        p.psh = !self.cfg.mark_psh || (!retx && seq + 1 == self.limit);
        // XCP congestion header (Katabi et al. 2002, §3.2): cwnd in bytes on the wire,
        // SRTT, and an unlimited request that the routers lower (cc/xcp.rs).
        if self.xcp {
            p.set_xcp(XcpHeader {
                cwnd: (self.win.cwnd * (self.cfg.mss + self.cfg.header) as f64) as f32,
                rtt: self.rtt.srtt().unwrap_or(0.0) as f32,
                feedback: f32::INFINITY,
            });
        }
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        if self.cfg.ecn && !retx {
            p.ecn = self.ect;
            if self.cwr_pending {
                p.cwr = true;
                self.cwr_pending = false;
            }
        }
        out.push(p);
        // Delivery-rate hook: the segment's snapshot (tcp/delivery.rs).
        if let Some(d) = &mut self.rate {
            d.on_send(seq, now, retx, self.snd_una, self.high_tx - self.snd_una);
        }
        // RACK: Segment.xmit_ts (RFC 8985 §5.2).
        if let Some(r) = &mut self.rack {
            r.on_send(seq, now, retx, self.snd_una);
        } else if let Some(x) = &mut self.xmit {
            x.on_send(seq, now, retx, self.snd_una);
        }
        // Linux tcp_xmit_retransmit_queue re-arms the RTO when it resends the head of
        // the retransmission queue. With RACK that resend is of a head whose earlier
        // retransmission RACK found lost: without the re-arm the RTO, counted from the
        // earlier one, fires while the new one is on its way, and the go-back-N after it
        // resends every retransmission still in flight.
        if self.rto_deadline.is_none() || (retx && seq == self.snd_una && self.rack.is_some()) {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// PSH as the testbed's Linux sender (iperf3) puts it on the wire: on the last
    /// segment of each skb it transmits, never on a segment sent alone that was cut
    /// from a larger skb (the window's room of one). In the captures every pair carries
    /// PSH on its second segment and 97-99 % of the single segments none; a run of
    /// singles ends with one PSH (validation/linux/quickack_check.json,
    /// `psh_patterns`). The new segments an attempt sends in a row (from `first` in
    /// `out`) leave as skbs of the current goal (`tso_autosize`, or the algorithm's
    /// GSO burst), so a run of three is a pair and a single.
    fn mark_skb_ends(&self, first: usize, out: &mut [Packet]) {
        let goal = match self.win.pacing_rate.filter(|_| self.cfg.gso_bursts) {
            Some(rate) => {
                tso_autosize_min(rate, self.rtt.min_rtt, self.cfg.mss, bbr_min_tso_segs(rate))
                    as usize
            }
            None => self.tso_goal() as usize,
        }
        .max(1);
        let new_data = |p: &Packet| p.kind == PktKind::Data && !p.retx;
        let mut i = first;
        while i < out.len() {
            if !new_data(&out[i]) {
                i += 1;
                continue;
            }
            let mut j = i + 1;
            while j < out.len()
                && j - i < goal
                && new_data(&out[j])
                && out[j].seq == out[j - 1].seq + 1
            {
                j += 1;
            }
            // A single segment cut from a larger skb carries none; one-segment skbs
            // (no rate yet, or a rate under two segments a millisecond) carry it.
            if j - i >= 2 || goal == 1 {
                out[j - 1].psh = true;
            }
            i = j;
        }
    }

    /// Pacing gate: true if a packet may leave now; otherwise records when.
    fn pace_ok(&mut self, now: Time) -> bool {
        if self.linux_paced() {
            // Before the first RTT sample there is no rate (Linux does not pace the
            // first 10 segments either).
            return match self.linux_pacing_rate() {
                Some(rate) if rate > 0.0 => {
                    self.gso_pace_ok(now, f64::from(self.cfg.mss) / rate, rate, 2)
                }
                _ => true,
            };
        }
        // An algorithm's pacing rate counts payload bytes (as Linux's internal TCP
        // pacing, tcp_update_skb_after_send); the flow's pacers count the wire.
        let pkt = if self.win.pacing_rate.is_some() {
            self.cfg.mss
        } else {
            self.cfg.mss + self.cfg.header
        } as f64;
        if let Some(iv) = self.pacer.interval(&self.win, self.rtt.srtt(), pkt) {
            if let Some(rate) = self.win.pacing_rate.filter(|_| self.cfg.gso_bursts) {
                return self.gso_pace_ok(now, iv, rate, bbr_min_tso_segs(rate));
            }
            if let Err(at) = self.pacer.take(now, iv) {
                self.pace_at = Some(at);
                return false;
            }
        }
        true
    }

    /// Paced by Linux's own pacing (`pacing = "linux"`) at `tcp_update_pacing_rate`'s
    /// rate: the algorithm sets no rate of its own.
    #[inline]
    fn linux_paced(&self) -> bool {
        matches!(self.cfg.pacing, PacingMode::Linux) && self.win.pacing_rate.is_none()
    }

    /// Whether `gso_pace_ok` would let a segment go at `now` (it changes nothing).
    fn gso_ready(&self, now: Time) -> bool {
        let g = &self.gso;
        (g.room > 0 && g.start == now) || now >= g.edt
    }

    /// `pace_ok` for GSO bursts ([`GsoBurst`]): the segments of one send attempt at
    /// `now` join the burst until it holds the send quantum (`tcp_tso_autosize` of
    /// `rate`, at least `min_tso`); the next burst waits for `edt`. A burst cut short
    /// by the window is sent as it is (a smaller skb).
    fn gso_pace_ok(&mut self, now: Time, iv: f64, rate: f64, min_tso: u32) -> bool {
        let g = &mut self.gso;
        if g.room > 0 && g.start == now {
            g.room -= 1;
        } else if now >= g.edt {
            g.credit = now - g.edt;
            g.start = now;
            g.sent = 0;
            g.room = tso_autosize_min(rate, self.rtt.min_rtt, self.cfg.mss, min_tso) - 1;
        } else {
            self.pace_at = Some(g.edt);
            return false;
        }
        g.sent += 1;
        let len = iv * f64::from(g.sent);
        let len = len - (len / 2.0).min(g.credit.as_secs_f64());
        g.edt = g.start + Time::from_secs_f64(len);
        true
    }

    /// Segments per skb of a sender without its own pacing: `tcp_tso_autosize` of the
    /// rate `tcp_update_pacing_rate` sets (mss·max(cwnd, packets_out)/SRTT at 200 %
    /// while cwnd < ssthresh/2, `tcp_pacing_ss_ratio`, else 120 %,
    /// `tcp_pacing_ca_ratio`), at least `tcp_min_tso_segs` = 2. Before the first RTT
    /// sample (Linux has the handshake's), one segment: nothing is deferred.
    fn tso_goal(&self) -> u64 {
        let Some(rate) = self.linux_pacing_rate() else {
            return 1;
        };
        u64::from(tso_autosize_min(rate, self.rtt.min_rtt, self.cfg.mss, 2))
    }

    /// Linux `tcp_update_pacing_rate` for an algorithm that does not set its own, in
    /// payload bytes/s: mss·max(cwnd, packets_out)/SRTT at `tcp_pacing_ss_ratio` =
    /// 200 % while cwnd < ssthresh/2, else `tcp_pacing_ca_ratio` = 120 %. None before
    /// the first RTT sample.
    fn linux_pacing_rate(&self) -> Option<f64> {
        let srtt = self.rtt.srtt()?;
        let cwnd = self.win.cwnd.floor();
        let ratio = if cwnd < self.win.ssthresh / 2.0 {
            2.0
        } else {
            1.2
        };
        let out = (self.snd_nxt - self.snd_una) as f64;
        Some(f64::from(self.cfg.mss) * cwnd.max(out) * ratio / srtt)
    }

    /// Linux `tcp_tso_should_defer` (net/ipv4/tcp_output.c, 6.18), asked when the window
    /// (`wnd` segments) has room for `quota`, fewer than the head skb holds: wait for the
    /// next ACK rather than send part of it, unless in recovery or after a timeout; the
    /// last transmission is over 1 ms old (no bursts after a pause); a full-sized skb
    /// (`goal` segments) or a third of the window fits; or the ACK of the oldest segment
    /// out is not expected within min(SRTT/2, 1 ms) (its send time + SRTT).
    fn tso_should_defer(&self, now: Time, quota: u64, goal: u64, wnd: u64) -> bool {
        if self.state != CaState::Open || self.snd_una >= self.snd_nxt {
            return false;
        }
        // Linux compares with tcp_wstamp_ns: the last departure, or under its own pacing
        // the next one's earliest time (which may be ahead of now).
        let wstamp = match self.last_tx {
            Some(t) if matches!(self.cfg.pacing, PacingMode::Linux) => Some(t.max(self.gso.edt)),
            t => t,
        };
        if wstamp.is_none_or(|t| now > t + DEFER_MAX) {
            return false;
        }
        let mss = u64::from(self.cfg.mss);
        // sysctl_tcp_tso_win_divisor = 3, on the window in bytes.
        if quota >= goal || quota * mss >= wnd * mss / 3 {
            return false;
        }
        let head_sent = match (&self.rack, &self.xmit) {
            (Some(r), _) => r.sent(self.snd_una),
            (None, Some(x)) => x.sent(self.snd_una),
            (None, None) => return false,
        };
        let srtt = self.rtt.srtt_time();
        let threshold = Time(srtt.ps() / 2).min(Time::from_millis(1));
        head_sent + srtt <= now + threshold
    }

    /// Send what the window (and the pacer) allows.
    pub fn try_send(&mut self, now: Time, out: &mut Vec<Packet>) {
        let first = out.len();
        self.send_allowed(now, out);
        if self.cfg.mark_psh {
            self.mark_skb_ends(first, out);
        }
    }

    fn send_allowed(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.pace_at = None;
        let paced = self.pacer.active(&self.win);
        if self.state == CaState::Recovery && self.cfg.recovery == Recovery::Sack {
            self.sack_send(paced, now, out);
            self.rate_check_app_limited();
            if self.rack.is_some() {
                self.tlp_at = None;
            }
            return;
        }
        let cwnd = self.win.cwnd.floor().max(1.0) as u64;
        let wnd = cwnd.min(self.cfg.rwnd);
        let sent = if self.state == CaState::Loss
            && self.cfg.rto_keeps_sack
            && self.cfg.recovery == Recovery::Sack
        {
            self.resend_unsacked(paced, now, wnd, out)
        } else {
            let mut sent = false;
            // Limited Transmit: SACKed segments (before DupThresh starts a recovery, or
            // left above snd.una after one) are not in the pipe.
            let sacked = self.open_sacked();
            // Linux's own pacing defers too (tcp_pacing_check, then tcp_tso_should_defer);
            // an algorithm's pacing rate keeps its skbs whole (BBR is rarely bound by
            // its window).
            let linux_paced = self.linux_paced();
            let defer = self.cfg.tso_defer && (!paced || linux_paced);
            // TSO deferral: new data is cut into skbs afresh at each attempt (module doc).
            let mut skb_end = self.snd_nxt;
            while self.snd_nxt < self.limit && self.snd_nxt < self.snd_una + wnd + sacked {
                if defer && self.snd_nxt >= self.high_tx && self.snd_nxt >= skb_end {
                    if linux_paced && !self.gso_ready(now) {
                        // tcp_pacing_check comes first; the release asks again.
                        self.pace_at = Some(self.gso.edt);
                        break;
                    }
                    let goal = self.tso_goal();
                    skb_end = self.snd_nxt + goal.min(self.limit - self.snd_nxt);
                    let (left, quota) = (
                        skb_end - self.snd_nxt,
                        self.snd_una + wnd + sacked - self.snd_nxt,
                    );
                    // Linux's write-queue skbs are as large as tcp_xmit_size_goal allows
                    // (up to 64 KB): the head skb holds more than a window's room of one
                    // segment too, so tcp_write_xmit asks tcp_tso_should_defer for any
                    // room smaller than the skb (with a receiver that ACKs every segment
                    // the testbed's Reno and CUBIC still send 50-85 % of their segments in
                    // pairs; validation/linux/quickack_check.json).
                    if quota < left && self.tso_should_defer(now, quota, goal, wnd) {
                        // Until the next ACK: nothing else calls tcp_write_xmit for a
                        // bulk sender (the testbed's unpaced senders send only at ACKs).
                        self.deferred = true;
                        break;
                    }
                }
                if paced && !self.pace_ok(now) {
                    break;
                }
                let seq = self.snd_nxt;
                self.segment(seq, now, out);
                self.snd_nxt += 1;
                self.high_tx = self.high_tx.max(self.snd_nxt);
                sent = true;
            }
            sent
        };
        // Stopped by cwnd when the flight fills it (Linux tcp_write_xmit); the pacer,
        // the receive window and the end of the data leave it unfilled.
        let limited =
            std::mem::take(&mut self.deferred) || self.in_flight() >= cwnd + self.open_sacked();
        self.validate_cwnd(sent, limited);
        self.rate_check_app_limited();
        if self.rack.is_some() {
            self.arm_pto(now);
        }
    }

    /// Segments SACKed above snd.una that `limited_transmit` takes out of the flight
    /// in Open (0 otherwise).
    #[inline]
    fn open_sacked(&self) -> u64 {
        if self.cfg.limited_transmit
            && self.state == CaState::Open
            && self.cfg.recovery == Recovery::Sack
            && self.sb.any_sacked()
        {
            self.sb.sacked(self.snd_una, self.high_tx)
        } else {
            0
        }
    }

    /// RFC 8985 §7.2: (re)arm the PTO after sending new data or an ACK of new data,
    /// unless in recovery or Loss, something is SACKed (the reordering timer covers it),
    /// nothing is out, or a probe is outstanding (§7.3: one at a time; the RTO then
    /// stands, where Linux's PTO would fire only to re-arm the RTO from now).
    /// Called at the end of every send attempt (each ACK ends in one).
    fn arm_pto(&mut self, now: Time) {
        self.tlp_at = (self.state == CaState::Open
            && self.snd_una < self.high_tx
            && self.tlp_end.is_none()
            && !self.sb.any_sacked())
        .then(|| {
            let left = self.rto_deadline.map(|d| d.saturating_sub(now));
            now + rack::pto(
                self.rtt.srtt().map(|_| self.rtt.srtt_time()),
                self.in_flight(),
                left,
            )
        });
    }

    /// The sender's next timer: the RTO, or with RACK the reordering timer or the PTO if
    /// earlier. The engine calls `on_timer` when it passes.
    #[inline]
    pub fn timer_deadline(&self) -> Option<Time> {
        let mut d = self.rto_deadline;
        if self.rack.is_some() {
            for t in [self.reo_at, self.tlp_at].into_iter().flatten() {
                d = Some(d.map_or(t, |x| x.min(t)));
            }
        }
        d
    }

    /// The timer of `timer_deadline` expired: the reordering timer (RFC 8985 §6.3),
    /// the PTO (§7.3) or the RTO, whichever is due first.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.reo_at.is_some_and(|t| t <= now) {
            self.on_reorder_timeout(now, out);
        } else if self.tlp_at.is_some_and(|t| t <= now) {
            self.on_probe_timeout(now, out);
        } else if self.rto_deadline.is_some_and(|t| t <= now) {
            self.on_timeout(now, out);
        }
    }

    /// RFC 8985 §6.3 RACK_reo_timeout (Linux `tcp_rack_reo_timeout`): detect again;
    /// losses start recovery if not in it, and are retransmitted.
    fn on_reorder_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.reo_at = None;
        if self.stopped {
            return;
        }
        if self.rack_detect(now) && self.state == CaState::Open {
            self.enter_recovery(now, out);
        }
        self.try_send(now, out);
    }

    /// RFC 8985 §7.3 (Linux `tcp_send_loss_probe`): one new segment if there is one
    /// (whatever cwnd says), else the highest segment sent again; at most one probe
    /// outstanding. The RTO is armed afresh after it.
    fn on_probe_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.tlp_at = None;
        if self.stopped || self.state != CaState::Open || self.snd_una >= self.high_tx {
            return;
        }
        if self.tlp_end.is_some() {
            return; // never armed while a probe is out (arm_pto)
        }
        let new_data = self.snd_nxt == self.high_tx
            && self.snd_nxt < self.limit
            && self.snd_nxt - self.snd_una < self.cfg.rwnd;
        let seq = if new_data {
            self.snd_nxt
        } else {
            self.high_tx - 1
        };
        self.segment(seq, now, out);
        if new_data {
            self.snd_nxt += 1;
            self.high_tx = self.snd_nxt;
        }
        self.stats.loss_probes += 1;
        self.tlp_end = Some(self.high_tx);
        self.tlp_retx = !new_data;
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// RFC 8985 §7.4, as Linux `tcp_process_tlp_ack`: an ACK at or past TLP.end_seq
    /// ends the probe's episode. A new-data probe needs nothing more; a retransmitted
    /// one that an ACK beyond TLP.end_seq follows repaired a loss (no duplicate showed
    /// both copies arrived): the window is reduced once, as Linux's CWR; a pure
    /// duplicate ACK says both copies arrived.
    fn tlp_ack(&mut self, a: u64, una_advanced: bool, now: Time) {
        let Some(end) = self.tlp_end else {
            return;
        };
        if a < end {
            return;
        }
        if !self.tlp_retx {
            self.tlp_end = None;
        } else if a > end {
            self.tlp_end = None;
            if self.state == CaState::Open {
                self.win.ssthresh = self.congestion(CongestionKind::FastRetransmit, now);
                if !self.cong_control {
                    self.win.cwnd = self.win.ssthresh.max(1.0);
                }
            }
        } else if !una_advanced && !self.ack_new_sack {
            self.tlp_end = None;
        }
    }

    /// Linux counts a segment lost (`tp->lost`, whose growth during an ACK is the rate
    /// sample's `losses`) when it marks it lost (`tcp_mark_skb_lost`), not when it
    /// resends it, and BBR's `cwnd -= losses` reads that count per ACK. Counts every
    /// un-SACKed segment the lost boundary (DupThresh, RACK) passed since the last call:
    /// called on each ACK before anything is resent, so that a segment's snapshot is
    /// still its lost transmission's. In recovery it brings the scoreboard's lost
    /// boundary up to date first (`compute_lost_end`), for every sender.
    #[inline(never)]
    fn mark_new_losses(&mut self) {
        if self.state != CaState::Recovery && !self.sb.any_sacked() {
            return; // nothing SACKed, no recovery: nothing is deemed lost
        }
        let end = self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
        let Some(d) = &mut self.rate else {
            return;
        };
        if self.cfg.recovery != Recovery::Sack || self.state == CaState::Loss {
            return;
        }
        let mut x = self.loss_mark.max(self.snd_una);
        while x < end {
            x = self.sb.next_unsacked(x);
            let y = self.sb.next_sacked(x).min(end);
            for seq in x..y {
                d.mark_lost(seq);
            }
            x = x.max(y);
        }
        self.loss_mark = self.loss_mark.max(end);
    }

    /// RFC 8985 §6.2 step 5 with step 4's reo_wnd: move the scoreboard's lost boundary
    /// over what RACK deems lost and (re)arm the reordering timer. True if it moved.
    /// Only with something SACKed or in recovery (Linux runs RACK on "dubious" ACKs);
    /// not in Loss, where the go-back-N resend covers everything.
    fn rack_detect(&mut self, now: Time) -> bool {
        let Some(r) = &self.rack else {
            return false;
        };
        self.reo_at = None;
        if self.state == CaState::Loss || !(self.sb.any_sacked() || self.state == CaState::Recovery)
        {
            return false;
        }
        let sb = &self.sb;
        let reo = r.reo_wnd(
            self.state == CaState::Recovery,
            || sb.sacked_at_least(self.cfg.dupthresh as u64),
            self.rtt.srtt_time(),
        );
        // First transmissions: above this recovery's retransmissions (HighRxt).
        let from = self
            .snd_una
            .max(self.sb.rack_lost())
            .max(self.sb.rxt_next());
        let (end, mut timer) = r.detect(from, self.high_tx, now, reo, |x| sb.next_unsacked(x));
        // This recovery's retransmissions (Linux's RACK finds lost retransmissions the
        // same way: by their own xmit_ts), walked again from snd.una once every one
        // found lost was resent, so that a resend lost in turn is found too.
        let (mut moved, rx) = (false, self.sb.rxt_next());
        let restart =
            self.sb.relost_end() > self.snd_una && self.sb.relost_all_resent(self.snd_una);
        let from2 = if restart {
            self.snd_una
        } else {
            self.snd_una.max(self.sb.relost_end())
        };
        if self.state == CaState::Recovery && from2 < rx {
            let (end2, t2) = r.detect(from2, rx, now, reo, |x| sb.next_unsacked(x));
            if let Some(t) = t2 {
                timer = Some(timer.map_or(t, |u| u.min(t)));
            }
            if end2 > from2 {
                if restart {
                    self.sb.restart_relost(self.snd_una);
                }
                self.sb.set_relost(end2);
                moved = true;
                // Each lost retransmission counts again (Linux `tcp_mark_skb_lost`).
                if let Some(d) = &mut self.rate {
                    let mut x = self.sb.next_unsacked(from2);
                    while x < end2.min(rx) {
                        d.mark_lost(x);
                        x = self.sb.next_unsacked(x + 1);
                    }
                }
            }
        }
        self.reo_at = timer;
        if end > from {
            self.sb.set_rack_lost(end);
            moved = true;
        }
        moved
    }

    /// After a timeout that kept the scoreboard (Linux tcp_timeout_mark_lost): the
    /// go-back-N resend skips what the receiver SACKed, and SACKed data is not in
    /// flight (Linux tcp_packets_in_flight). Apart from the common loop of `try_send`
    /// so that it costs the other states nothing.
    fn resend_unsacked(&mut self, paced: bool, now: Time, wnd: u64, out: &mut Vec<Packet>) -> bool {
        let mut sent = false;
        // SACKed segments in [snd_una, snd_nxt): counted once, then kept as snd_nxt
        // skips SACKed ranges (every skipped segment is SACKed; a sent one is not).
        let mut sacked_below = self.sb.sacked_in(self.snd_una, self.snd_nxt);
        loop {
            let next = self.sb.next_unsacked(self.snd_nxt);
            sacked_below += next - self.snd_nxt;
            self.snd_nxt = next;
            debug_assert_eq!(sacked_below, self.sb.sacked_in(self.snd_una, self.snd_nxt));
            let flight = self.snd_nxt - self.snd_una - sacked_below;
            if self.snd_nxt >= self.limit || flight >= wnd || (paced && !self.pace_ok(now)) {
                break;
            }
            let seq = self.snd_nxt;
            self.segment(seq, now, out);
            self.snd_nxt += 1;
            self.high_tx = self.high_tx.max(self.snd_nxt);
            sent = true;
        }
        sent
    }

    /// Delivery-rate hook (draft-cheng-iccrg-delivery-rate-estimation §3.4, Linux
    /// `tcp_rate_check_app_limited`): out of data, with room in the window, not held
    /// by the pacer and nothing to resend: the flight is app-limited.
    fn rate_check_app_limited(&mut self) {
        if let Some(d) = &mut self.rate {
            let in_flight = self.snd_nxt - self.snd_una;
            if self.snd_nxt >= self.limit
                && self.snd_nxt >= self.high_tx
                && self.pace_at.is_none()
                && (in_flight as f64) < self.win.cwnd.floor()
            {
                d.check_app_limited(in_flight);
            }
        }
    }

    /// Segments in flight as Linux's `tcp_packets_in_flight` counts them, for
    /// algorithms with `cong_control`: in SACK recovery the RFC 6675 pipe; otherwise
    /// what was sent less what was SACKed (or, without SACK, the duplicate ACKs
    /// seen), in O(1); after a timeout, what was resent (go-back-N).
    fn cc_in_flight(&mut self) -> u64 {
        let sent = self.snd_nxt - self.snd_una;
        match self.state {
            CaState::Loss => sent,
            CaState::Recovery if self.cfg.recovery == Recovery::Sack => {
                self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
                self.sb.pipe(self.snd_una, self.high_tx)
            }
            _ => sent.saturating_sub(self.rate.as_ref().map_or(0, |d| d.sacked_out())),
        }
    }

    /// Linux `tcp_cong_control` with `cong_control`: the delivery-rate sample of this
    /// ACK (`tcp_rate_gen`) and the algorithm's call, in every state.
    fn cong_control_ack(&mut self, prior_in_flight: u64, rtt: Option<Time>, ece: bool, now: Time) {
        self.mark_new_losses();
        let in_flight = self.cc_in_flight();
        let min_rtt = self.rtt.min_rtt.unwrap_or(Time::ZERO);
        let Some(d) = &mut self.rate else {
            return;
        };
        let rs = d.sample(now, min_rtt, prior_in_flight);
        let ack = Ack {
            now,
            acked: rs.acked_sacked as f64,
            in_flight: in_flight as f64,
            rtt: self.rtt_stats(rtt),
            paced: !matches!(self.cfg.pacing, PacingMode::None),
            cwnd_limited: self.cwnd_limited(),
            cwnd_validation: self.cfg.cwnd_validation,
            rate: Some(rs),
            ca_state: self.state,
            mss: self.cfg.mss,
            xcp_feedback: None,
            ece,
        };
        self.cc.on_ack(&mut self.win, &ack);
        if std::mem::take(&mut self.win.app_limited) {
            if let Some(d) = &mut self.rate {
                d.mark_app_limited(in_flight);
            }
        }
    }

    /// Linux `tcp_cwnd_validate`: remember whether this window was cwnd-limited, or
    /// else the most segments it had out.
    fn validate_cwnd(&mut self, sent: bool, limited: bool) {
        if !(sent || limited) {
            return;
        }
        let out = self.in_flight();
        let u = &mut self.cwnd_use;
        if self.snd_una >= u.until || limited || (!u.limited && out > u.max_out) {
            u.limited = limited;
            u.max_out = out;
            u.until = self.snd_nxt;
        }
    }

    /// RFC 6675 §5 steps (C)-(E): send while cwnd - pipe >= 1 segment.
    fn sack_send(&mut self, paced: bool, now: Time, out: &mut Vec<Packet>) {
        self.mark_new_losses();
        let mut pipe = self.sb.pipe(self.snd_una, self.high_tx);
        let mut sent = false;
        while self.win.cwnd - pipe as f64 >= 1.0 {
            let Some(seq) = self.next_seg() else {
                break;
            };
            if paced && !self.pace_ok(now) {
                break;
            }
            self.send_in_recovery(seq, now, out);
            pipe += 1;
            sent = true;
        }
        let limited = self.win.cwnd - (pipe as f64) < 1.0;
        self.validate_cwnd(sent, limited);
    }

    /// Stop for good (`flows[i].stop`, a group's stop event): no data, no
    /// retransmission, no timer from now on; what is in flight still arrives.
    pub fn stop(&mut self) {
        self.stopped = true;
        self.rto_deadline = None;
        self.reo_at = None;
        self.tlp_at = None;
        self.pace_at = None;
    }

    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.round.restart();
        self.try_send(now, out);
    }

    fn restart_timer(&mut self, now: Time) {
        self.rto_deadline = if self.snd_una < self.high_tx {
            Some(now + self.rtt.rto())
        } else {
            None
        };
    }

    pub fn on_ack(&mut self, ack: &Packet, now: Time, out: &mut Vec<Packet>) {
        if ack.seq > self.high_tx || self.stopped {
            return; // acknowledges data never sent, or the flow stopped: ignore
        }
        // Delivery-rate hook: an ACK begins (tcp/delivery.rs).
        let prior_in_flight = if self.cong_control {
            let f = self.cc_in_flight();
            if let Some(d) = &mut self.rate {
                d.ack_begin();
            }
            f
        } else {
            0
        };
        // PRR is the sender's cwnd reduction; an algorithm with `cong_control` sets
        // cwnd itself (Linux tcp_cong_control skips tcp_cwnd_reduction for it).
        // RFC 6937 DeliveredData: change in snd.una plus change in SACKed data. One
        // call of `process_ack` either way, so that it stays inlined here.
        let prr_before = (self.cfg.prr
            && self.cfg.recovery == Recovery::Sack
            && !self.cong_control)
            .then(|| {
                (
                    self.snd_una,
                    self.snd_una + self.sb.sacked(self.snd_una, self.high_tx),
                )
            });
        // ns-3's DoRecovery needs to know whether the ACK SACKed anything new
        // (`isDupAck`): the SACKed segments that stay above the ACK, before it.
        let ns3_kept =
            (prr_before.is_some() && self.cfg.prr_ns3).then(|| self.sacked_kept(ack.seq));
        let recoveries = self.stats.fast_retransmits;
        let una = self.snd_una;
        self.ack_new_sack = false;
        let rtt = self.process_ack(ack, now, out);
        if self.tlp_end.is_some() {
            self.tlp_ack(ack.seq, self.snd_una > una, now);
        }
        if let Some((una, before)) = prr_before {
            if self.state == CaState::Recovery {
                let sacked = self.sb.sacked(self.snd_una, self.high_tx);
                let delivered = (self.snd_una + sacked).saturating_sub(before);
                if let Some(kept) = ns3_kept {
                    let entered = self.stats.fast_retransmits != recoveries;
                    self.prr_ack_ns3(delivered, sacked > kept, self.snd_una > una, entered);
                } else {
                    self.prr_ack(delivered, self.snd_una > una);
                }
            }
        }
        if self.cfg.partial_ack_send
            && self.state == CaState::Recovery
            && self.cfg.recovery == Recovery::Sack
            && self.snd_una > una
            && self.stats.fast_retransmits == recoveries
        {
            self.partial_ack_send(now, out);
        }
        if ack.ece && self.cfg.ecn {
            self.on_ecn_echo(now);
        }
        if self.cong_control {
            self.cong_control_ack(prior_in_flight, rtt, ack.ece, now);
        }
        self.try_send(now, out);
    }

    /// The ACK's cumulative and SACK information: new data acknowledged, or a
    /// duplicate. Returns the RTT sample it gave, if any.
    #[inline]
    fn process_ack(&mut self, ack: &Packet, now: Time, out: &mut Vec<Packet>) -> Option<Time> {
        let a = ack.seq;
        let sack = self.cfg.recovery == Recovery::Sack;
        let mut rtt = None;
        if a > self.snd_una {
            // Timed before snd.una moves past the segments (tcp_clean_rtx_queue).
            let acked_span = if self.cfg.linux_rto {
                self.acked_span(self.snd_una, a)
            } else {
                None
            };
            if self.rack.is_some() {
                self.rack_delivered(self.snd_una, a, now);
            }
            rtt = self.on_new_ack(a, ack, acked_span, now, out);
            if sack {
                self.sack_update(ack, now);
                if self.rack.is_some() && self.rack_detect(now) && self.state == CaState::Open {
                    // RFC 8985 §6.2: RACK found a loss on an ACK of new data.
                    self.enter_recovery(now, out);
                }
            }
            self.apply_pending_growth(now);
        } else if a == self.snd_una && self.snd_una < self.high_tx {
            if sack {
                self.sack_update(ack, now);
                if self.cfg.linux_rto {
                    rtt = self.sack_rtt(now);
                }
                if self.rack.is_some() {
                    self.rack_detect(now);
                }
            } else if let Some(d) = &mut self.rate {
                d.dupack_no_sack(self.snd_nxt - self.snd_una);
            }
            self.on_dupack(now, out);
        }
        rtt
    }

    /// The ACK's SACK blocks into the scoreboard (and, with them, the delivery-rate
    /// estimator's and RACK's newly delivered segments).
    #[inline]
    fn sack_update(&mut self, ack: &Packet, now: Time) {
        let timed = self.cfg.linux_rto;
        if self.rack.is_some() || timed || self.pending_growth.is_some() {
            let (rack, xmit) = (&mut self.rack, &self.xmit);
            let mut new = false;
            let mut newly = 0;
            let mut span: Option<(Time, Time)> = None;
            self.sb
                .update_with(ack.sack_blocks(), self.snd_una, self.high_tx, |x, y| {
                    new = true;
                    newly += y - x;
                    if timed {
                        // Linux tcp_sacktag_one: first_sackt and last_sackt, of
                        // segments not retransmitted.
                        for seq in x..y {
                            if let Some((t, false)) =
                                send_record(rack.as_deref(), xmit.as_deref(), seq)
                            {
                                span = Some(span.map_or((t, t), |(f, _)| (f, t)));
                            }
                        }
                    }
                    if let Some(r) = rack.as_deref_mut() {
                        r.delivered(x, y, now);
                    }
                });
            self.ack_new_sack = new;
            self.sack_span = span;
            // grow_by_delivered (Linux tcp_newly_delivered): the segments this ACK newly
            // SACKs count with those it newly acknowledges.
            if let Some(g) = &mut self.pending_growth {
                g.0 += newly;
            }
        } else {
            self.sb
                .update(ack.sack_blocks(), self.snd_una, self.high_tx);
        }
        if let Some(d) = &mut self.rate {
            d.sacked(ack.sack_blocks(), self.snd_una, self.high_tx);
        }
    }

    /// Linux `tcp_clean_rtx_queue`'s timing of a cumulative ACK of [una, a): the send
    /// times of the first and the last segment it newly delivers (not SACKed before);
    /// none if any segment it covers was retransmitted (Karn, FLAG_RETRANS_DATA_ACKED)
    /// or the sender keeps no send times.
    fn acked_span(&self, una: u64, a: u64) -> Option<(Time, Time)> {
        let rec = |seq| send_record(self.rack.as_deref(), self.xmit.as_deref(), seq);
        if una >= self.retx_end && !self.sb.any_sacked() {
            // Nothing resent or SACKed among them (the common ACK): the ends alone.
            return Some((rec(una)?.0, rec(a - 1)?.0));
        }
        let mut span: Option<(Time, Time)> = None;
        let mut x = una;
        while x < a {
            let y = self.sb.next_sacked(x).min(a);
            for seq in x..y {
                let (t, retx) = rec(seq)?;
                if retx {
                    return None;
                }
                span = Some(span.map_or((t, t), |(f, _)| (f, t)));
            }
            let z = self.sb.next_unsacked(y).min(a);
            for seq in y..z {
                if rec(seq)?.1 {
                    return None;
                }
            }
            x = z;
        }
        span
    }

    /// Linux `tcp_ack_update_rtt` on an ACK that SACKs new data and advances nothing:
    /// SRTT from the first segment it newly SACKed (sack_rtt), the minimum RTT and the
    /// sample an algorithm with `cong_control` sees from the last (ca_rtt).
    fn sack_rtt(&mut self, now: Time) -> Option<Time> {
        let (first, last) = self.sack_span.take()?;
        let ca = now - last;
        self.rtt.sample(now - first, ca, self.snd_una, self.snd_nxt);
        record_rtt(&mut self.rtt_samples, ca);
        self.rtt.reset_backoff();
        Some(ca)
    }

    /// RACK (RFC 8985 §6.2 steps 2-3): the segments [una, a) that the cumulative ACK
    /// delivers, less those SACKed before.
    fn rack_delivered(&mut self, una: u64, a: u64, now: Time) {
        let Some(r) = &mut self.rack else {
            return;
        };
        let mut x = una;
        while x < a {
            let y = self.sb.next_sacked(x).min(a);
            r.delivered(x, y, now);
            x = self.sb.next_unsacked(y);
        }
    }

    /// RFC 6937 §3.1, per ACK in SACK recovery: cwnd = pipe + sndcnt, where sndcnt
    /// spreads the reduction to ssthresh over the ACKs of one round trip (sending
    /// ssthresh/RecoverFS segments per segment delivered) while pipe > ssthresh, and
    /// below it lets pipe climb back to ssthresh no faster than slow start (PRR-SSRB:
    /// limit = max(prr_delivered − prr_out, DeliveredData) + 1). As Linux's
    /// `tcp_cwnd_reduction`: an ACK that delivers nothing changes nothing, and the "+1"
    /// comes only with an advance of snd.una.
    fn prr_ack(&mut self, delivered: u64, una_advanced: bool) {
        if delivered == 0 {
            return;
        }
        self.prr_delivered += delivered;
        self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
        let pipe = self.sb.pipe(self.snd_una, self.high_tx) as f64;
        let ssthresh = self.win.ssthresh;
        let sndcnt = if pipe > ssthresh {
            // sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out
            (self.prr_delivered as f64 * ssthresh / self.recover_fs.max(1) as f64).ceil()
                - self.prr_out as f64
        } else {
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered)
                + una_advanced as u64;
            (ssthresh - pipe).min(limit as f64)
        };
        self.win.cwnd = pipe + sndcnt.max(0.0);
    }

    /// The SACKed segments that stay above a cumulative ACK of `ack_seq` (ns-3's
    /// `isDupAck` compares them with those after it). Out of line: ns3 profile only.
    #[inline(never)]
    fn sacked_kept(&self, ack_seq: u64) -> u64 {
        let below = if ack_seq > self.snd_una {
            self.sb.sacked_in(self.snd_una, ack_seq.min(self.high_tx))
        } else {
            0
        };
        self.sb.sacked(self.snd_una, self.high_tx) - below
    }

    /// `partial_ack_send`: ns-3's `ProcessAck` on a partial ACK in recovery calls
    /// `DoRetransmit()` unless the segment at the new snd.una was retransmitted
    /// (`IsRetransmittedDataAcked(ack + MSS)`): `NextSeg(isRecovery = false)` gives the
    /// first lost segment not yet resent, else new data, and it leaves whatever cwnd
    /// allows (it counts in PRR's prr_out, as every send in recovery).
    #[inline(never)]
    fn partial_ack_send(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.snd_una < self.sb.rxt_next() {
            return;
        }
        self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
        if let Some(seq) = self.next_seg() {
            self.send_in_recovery(seq, now, out);
        }
    }

    /// RFC 6675 NextSeg(): the next segment to send in SACK recovery, new data as far as
    /// the data and the receive window allow.
    #[inline]
    fn next_seg(&self) -> Option<u64> {
        let new_data = self.snd_nxt < self.limit && self.snd_nxt - self.snd_una < self.cfg.rwnd;
        self.sb.next_seg(self.snd_una, self.snd_nxt, new_data)
    }

    /// Send `seq` in SACK recovery: it counts in PRR's prr_out (RFC 6937 and ns-3's
    /// bytes), a resend on the scoreboard, new data in snd_nxt.
    #[inline]
    fn send_in_recovery(&mut self, seq: u64, now: Time, out: &mut Vec<Packet>) {
        self.segment(seq, now, out);
        self.prr_out += 1;
        self.ns3_prr.out = self.ns3_prr.out.wrapping_add(self.cfg.mss);
        if seq < self.high_tx {
            self.sb.retransmitted(seq);
        } else {
            self.snd_nxt = seq + 1;
            self.high_tx = self.snd_nxt;
        }
    }

    /// ns-3.44's PRR on an ACK in recovery (`prr_ns3`). `TcpSocketBase::ProcessAck` calls
    /// `TcpPrrRecovery::DoRecovery(delivered, isDupAck = true)` from `DupAck` when the
    /// ACK SACKed new data, and `DoRecovery(delivered, false)` again when it is a
    /// partial ACK of at least one segment; on the ACK that started the recovery,
    /// `EnterRecovery` called it once (isDupAck true) before the fast retransmission.
    /// `delivered`: segments newly SACKed or cumulatively ACKed without having been
    /// SACKed (the rate estimator's `m_delivered`). ns-3's `m_isRetransDataAcked` (PRR's
    /// "+1 segment" below ssthresh) is taken as "the ACK advanced snd.una": inside
    /// recovery it does so by delivering a retransmission.
    #[inline(never)]
    fn prr_ack_ns3(&mut self, delivered: u64, new_sack: bool, una_advanced: bool, entered: bool) {
        let mss = self.cfg.mss;
        let d = (delivered as u32).wrapping_mul(mss);
        self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
        let pipe = self.sb.pipe(self.snd_una, self.high_tx);
        if entered {
            // prr_out 0 and the pipe without the fast retransmission, which follows
            // (SendDataPacket → UpdateBytesSent).
            self.ns3_prr.delivered = 0;
            self.ns3_prr.out = 0;
            self.ns3_do_recovery(d, true, pipe.saturating_sub(1), false);
            self.ns3_prr.out = mss;
            return;
        }
        if new_sack {
            self.ns3_do_recovery(d, true, pipe, una_advanced);
        }
        if una_advanced && d >= mss {
            self.ns3_do_recovery(d, false, pipe, una_advanced);
        }
    }

    /// `TcpPrrRecovery::DoRecovery` of ns-3.44, in its bytes and its 32-bit unsigned
    /// arithmetic (`m_prrDelivered * m_ssThresh` wraps).
    #[inline(never)]
    fn ns3_do_recovery(&mut self, delivered: u32, dup: bool, pipe: u64, retrans_acked: bool) {
        let mss = self.cfg.mss;
        let p = &mut self.ns3_prr;
        let mut d = delivered;
        if dup && p.delivered < p.recover_fs {
            d = d.wrapping_add(mss);
        }
        if d == 0 {
            return;
        }
        p.delivered = p.delivered.wrapping_add(d);
        let pipe_b = (pipe as u32).wrapping_mul(mss);
        let ssth_b = (self.win.ssthresh * mss as f64).round() as u32;
        let send: i64 = if pipe_b > ssth_b {
            // std::ceil(m_prrDelivered * m_ssThresh * 1.0 / m_recoveryFlightSize): the
            // product is taken in uint32_t before the conversion to double.
            let prod = p.delivered.wrapping_mul(ssth_b) as f64;
            (prod / p.recover_fs.max(1) as f64).ceil() as i64 - p.out as i64
        } else {
            // int limit = std::max(m_prrDelivered - m_prrOut, deliveredBytes): the
            // unsigned difference wraps, and wins the max, when prr_out is ahead.
            let mut limit = p.delivered.wrapping_sub(p.out).max(d) as i32 as i64;
            if retrans_acked {
                limit += mss as i64;
            }
            limit.min(ssth_b.wrapping_sub(pipe_b) as i32 as i64)
        };
        let send = send.max(if p.out > 0 { 0 } else { mss as i64 });
        let cwnd_b = (pipe_b as i64 + send) as u32;
        self.win.cwnd = cwnd_b as f64 / mss as f64;
    }

    /// RFC 3168 §6.1.2: react to ECN-Echo as to a loss, at most once per window of
    /// data, and not while already reducing for a loss; tell the receiver with CWR.
    fn on_ecn_echo(&mut self, now: Time) {
        if self.state == CaState::Recovery || self.snd_una < self.ecn_recover {
            return;
        }
        self.stats.ecn_reductions += 1;
        self.win.ssthresh = self.congestion(CongestionKind::Ecn, now);
        // No retransmission, so no recovery: cwnd = ssthresh at once (with
        // `cong_control` the algorithm sets cwnd, as Linux's tcp_cong_control).
        if !self.cong_control {
            self.win.cwnd = self.win.ssthresh.max(1.0);
        }
        self.cwr_pending = true;
    }

    /// The algorithm's law hears an ACK of `acked` new segments outside recovery (with
    /// its cwnd-limited state in `cx`), and the growth it asks for passes the
    /// cwnd-validation gate.
    #[inline]
    fn law_on_ack(
        &mut self,
        now: Time,
        acked: u64,
        cx: &AckCtx,
        xcp_feedback: Option<f64>,
        ece: bool,
    ) {
        let ack = Ack {
            now,
            acked: acked as f64,
            in_flight: self.in_flight() as f64,
            rtt: cx.rtt,
            paced: !matches!(self.cfg.pacing, PacingMode::None),
            cwnd_limited: cx.cwnd_limited,
            cwnd_validation: self.cfg.cwnd_validation,
            rate: None,
            ca_state: self.state,
            mss: self.cfg.mss,
            xcp_feedback,
            ece,
        };
        let before = self.win.cwnd;
        self.cc.on_ack(&mut self.win, &ack);
        self.gate_growth(before, cx.cwnd_limited);
    }

    fn on_new_ack(
        &mut self,
        a: u64,
        pkt: &Packet,
        acked_span: Option<(Time, Time)>,
        now: Time,
        out: &mut Vec<Packet>,
    ) -> Option<Time> {
        let (ts_ecr, xcp) = (pkt.ts_ecr, pkt.xcp());
        let cwnd_limited = self.cwnd_limited();
        let acked = a - self.snd_una;
        // grow_by_delivered: an ACK with SACK information (its blocks, or SACKed data it
        // may cover) grows by what it newly delivers, after its loss detection; any
        // other grows by its advance at once, as before.
        let by_delivered = self.cfg.grow_by_delivered
            && self.cfg.recovery == Recovery::Sack
            && (pkt.has_sack() || self.sb.any_sacked());
        // What the ACK newly SACKs is added when its blocks are read (sack_update).
        let delivered = if by_delivered {
            acked - self.sb.sacked_below(a)
        } else {
            acked
        };
        // RTT sample: the timestamp echo (RFC 7323 §4.3), or the timed segment (Karn).
        let echoed = if self.cfg.timestamps {
            (ts_ecr > Time::ZERO && ts_ecr <= now).then(|| now - ts_ecr)
        } else {
            match self.timed {
                Some((s, t)) if a > s => {
                    self.timed = None;
                    Some(now - t)
                }
                _ => None,
            }
        };
        // Linux (tcp_ack_update_rtt, with `linux_rto`): SRTT from the oldest segment
        // the ACK newly delivers (seq_rtt), the algorithms' sample and the minimum RTT
        // from the newest (ca_rtt); the echo only when those were retransmitted.
        // Elsewhere the echo is both (RFC 7323 §4.3: with delayed ACKs, the oldest).
        let (srtt_sample, sample) = match acked_span {
            Some((first, last)) => (Some(now - first), Some(now - last)),
            None => (echoed, echoed),
        };
        if let (Some(r), Some(ca)) = (srtt_sample, sample) {
            self.rtt.sample(r, ca, a, self.snd_nxt.max(a));
            // The flow's RTT distribution: each ACK's freshest round trip, Linux's
            // `tcp_rate`/`ss` sample.
            record_rtt(&mut self.rtt_samples, ca);
            self.rtt.reset_backoff();
            self.round.sample(ca);
        }
        let cx = AckCtx {
            cwnd_limited,
            rtt: self.rtt_stats(sample),
        };
        // Delivery-rate hook: the segments the cumulative ACK delivers.
        if let Some(d) = &mut self.rate {
            if self.cfg.recovery == Recovery::Sack {
                d.cum_acked(self.snd_una, a);
            } else {
                d.cum_acked_no_sack(self.snd_una, a);
            }
        }
        self.snd_una = a;
        if self.snd_nxt < a {
            self.snd_nxt = a;
        }
        if self.cfg.recovery == Recovery::Sack {
            self.sb.advance(a);
        }
        self.round.acked(acked);

        match self.state {
            CaState::Recovery => {
                let full = match self.cfg.recovery {
                    Recovery::Reno => true,
                    Recovery::NewReno | Recovery::Sack => a >= self.recover,
                };
                if full {
                    self.exit_recovery(now);
                    if self.cfg.exit_ack_increase && !self.cong_control {
                        // ns-3 ProcessAck, leaving CA_RECOVERY: cWnd = ssThresh, then
                        // IncreaseWindow(segsAcked), segsAcked = (ack − old head) / MSS.
                        self.law_on_ack(now, acked, &cx, None, pkt.ece);
                    } else if self.cfg.grow_by_delivered && !self.cong_control {
                        // Linux: the ACK that ends recovery is in Open by tcp_cong_control,
                        // which grows cwnd = ssthresh by what it newly delivered.
                        if by_delivered {
                            self.pending_growth = Some((delivered, cx, None, pkt.ece));
                        } else {
                            self.law_on_ack(now, delivered, &cx, None, pkt.ece);
                        }
                    }
                } else if self.cfg.recovery == Recovery::Sack {
                    // RFC 6675 §5 (C): a cumulative ACK inside recovery only updates the
                    // scoreboard; the caller then sends by pipe. RFC 6298 §5.3: restart
                    // the timer on an ACK of new data.
                    self.restart_timer(now);
                    self.end_round_if_due(now, &cx);
                    return sample;
                } else {
                    // Partial ACK (RFC 6582 §3.2 step 4): retransmit the next hole,
                    // deflate by the amount acked, add back one segment.
                    let seq = self.snd_una;
                    self.segment(seq, now, out);
                    if !self.cong_control {
                        self.win.cwnd = (self.win.cwnd - acked as f64 + 1.0).max(1.0);
                    }
                    if self.first_partial {
                        self.first_partial = false;
                        self.restart_timer(now);
                    }
                    self.end_round_if_due(now, &cx);
                    return sample;
                }
            }
            CaState::Open | CaState::Loss => {
                if self.state == CaState::Loss && a > self.recover {
                    // The cumulative ACK passed the point of the timeout: duplicate
                    // ACKs mean new losses again.
                    self.state = CaState::Open;
                }
                self.dupacks = 0;
                // With `cong_control` the algorithm hears this ACK at its end
                // (cong_control_ack), as every other.
                if !self.cong_control {
                    let xcp_feedback =
                        xcp.map(|h| h.feedback as f64 / (self.cfg.mss + self.cfg.header) as f64);
                    if by_delivered {
                        self.pending_growth = Some((delivered, cx, xcp_feedback, pkt.ece));
                    } else {
                        // Only ECN-capable data can come back CE, so ECE implies ECN.
                        self.law_on_ack(now, delivered, &cx, xcp_feedback, pkt.ece);
                    }
                }
            }
        }
        self.restart_timer(now);
        if self.pending_growth.is_none() {
            self.end_round_if_due(now, &cx);
        }
        sample
    }

    /// `grow_by_delivered`: the growth of an ACK whose SACK blocks and RACK have been
    /// read (Linux `tcp_cong_control` after `tcp_fastretrans_alert`): none if they
    /// started a recovery, whose PRR then sets cwnd; then the round's end.
    #[inline]
    fn apply_pending_growth(&mut self, now: Time) {
        if let Some((delivered, cx, xcp_feedback, ece)) = self.pending_growth.take() {
            if self.state != CaState::Recovery {
                self.law_on_ack(now, delivered, &cx, xcp_feedback, ece);
            }
            self.end_round_if_due(now, &cx);
        }
    }

    /// `tcp.cwnd_validation`: a window that did not limit sending does not grow (the
    /// law may still shrink it).
    fn gate_growth(&mut self, before: f64, cwnd_limited: bool) {
        if self.cfg.cwnd_validation && !cwnd_limited && self.win.cwnd > before {
            self.win.cwnd = before;
        }
    }

    fn end_round_if_due(&mut self, now: Time, cx: &AckCtx) {
        let Some(c) = self.round.close_if_due(self.snd_una, self.snd_nxt) else {
            return;
        };
        let r = Round {
            now,
            index: c.index,
            samples: c.samples,
            min_rtt: c.min_rtt,
            mean_rtt: c.mean_rtt,
            rtt: cx.rtt,
            delivered: c.acked as f64,
            ca_state: self.state,
        };
        let before = self.win.cwnd;
        self.cc.on_round(&mut self.win, &r);
        self.gate_growth(before, cx.cwnd_limited);
    }

    fn on_dupack(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.dupacks += 1;
        match self.state {
            CaState::Recovery => {
                // RFC 5681 §3.2 step 4: inflate by one segment per further duplicate.
                // SACK recovery needs nothing here: the caller sends by pipe.
                if self.cfg.recovery != Recovery::Sack && !self.cong_control {
                    self.win.cwnd += 1.0;
                }
            }
            // RFC 6582 §4: after a timeout the sender resends segments the receiver may
            // already hold, and each brings back a duplicate acknowledging exactly up to
            // the highest segment sent before the timeout. Such duplicates do not "cover
            // more than recover" (ack − 1 > recover, RFC 6582 §3.2): they show redundant
            // retransmissions, not a new loss, and start no fast retransmit (ns-2's
            // `bugFix_`, on by default, does the same for Reno and NewReno). RFC 6675
            // §5.1 says the same for SACK: no new recovery until HighACK passes the
            // RecoveryPoint set at the timeout.
            CaState::Loss => {}
            CaState::Open => {
                // After a fast recovery NewReno and SACK wait only for snd_una to reach
                // `recover` (which leaving Recovery already required), not to pass it as
                // ns-2 does: a loss of the first segment sent after the recovery point
                // then gets a fast retransmit rather than a timeout (RFC 6582 §4 leaves
                // that case to its heuristics).
                debug_assert!(self.cfg.recovery == Recovery::Reno || self.snd_una >= self.recover);
                if self.loss_detected() {
                    self.enter_recovery(now, out);
                }
            }
        }
    }

    /// Fast retransmit: DupThresh duplicates (RFC 5681 §3.2; exactly the DupThresh-th
    /// for Reno and NewReno), or for SACK also IsLost(snd_una) (RFC 6675 §5).
    fn loss_detected(&mut self) -> bool {
        match self.cfg.recovery {
            Recovery::Sack => {
                let lost_end = self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
                self.dupacks >= self.cfg.dupthresh || lost_end > self.snd_una
            }
            Recovery::Reno | Recovery::NewReno => self.dupacks == self.cfg.dupthresh,
        }
    }

    /// Open → Recovery: the algorithm's ssthresh, the recovery point, cwnd by the
    /// recovery's rule, and the retransmission of the first unacknowledged segment.
    fn enter_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.fast_retransmits += 1;
        // Linux tcp_init_cwnd_reduction: a probe's episode ends in this recovery.
        self.tlp_end = None;
        self.prior_cwnd = self.win.cwnd;
        // RFC 6937: RecoverFS = snd.nxt − snd.una (Linux divides by prior_cwnd, the
        // same when the window limited sending).
        self.prr_delivered = 0;
        self.prr_out = 1; // the retransmission below
        self.recover_fs = self.high_tx - self.snd_una;
        if self.cfg.prr_ns3 {
            // TcpPrrRecovery::EnterRecovery: m_recoveryFlightSize = BytesInFlight(), the
            // pipe with the head deemed lost, before the fast retransmission.
            self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
            let fs = self.sb.pipe(self.snd_una, self.high_tx);
            self.ns3_prr.recover_fs = (fs as u32).wrapping_mul(self.cfg.mss);
        }
        self.win.ssthresh = self.congestion(CongestionKind::FastRetransmit, now);
        self.state = CaState::Recovery;
        self.recovery_start = now;
        self.first_partial = true;
        // RFC 6582 `recover` = RFC 6675 RecoveryPoint = HighData.
        self.recover = self.high_tx;
        // With `cong_control` cwnd stays the algorithm's (Linux
        // tcp_init_cwnd_reduction leaves it; BBR conserves packets itself).
        self.win.cwnd = match self.cfg.recovery {
            _ if self.cong_control => self.win.cwnd,
            // RFC 6675 §5 step (4.2): cwnd = ssthresh; then (4.3) retransmit the first
            // un-SACKed segment and (4.4) send by pipe (the caller's try_send).
            Recovery::Sack => self.win.ssthresh.max(1.0),
            // RFC 5681 §3.2 step 3 (RFC 6582 §3.2 step 2): cwnd = ssthresh + 3·SMSS,
            // DupThresh segments in general.
            Recovery::Reno | Recovery::NewReno => self.win.ssthresh + self.cfg.dupthresh as f64,
        };
        let seq = self.snd_una;
        let sack = self.cfg.recovery == Recovery::Sack;
        // With RACK (Linux), a head the last recovery already retransmitted, whose
        // retransmission is still on its way, is not resent: Linux's
        // tcp_xmit_retransmit_queue skips a TCPCB_SACKED_RETRANS segment.
        // Nor is the RTO restarted then: Linux re-arms it only with a resend of the head
        // (or an ACK that advances snd.una, as the one that ended the last recovery).
        let keep_rxt = sack && self.rack.is_some();
        let resent = !(keep_rxt && seq < self.sb.rxt_next());
        self.mark_new_losses();
        if resent {
            self.segment(seq, now, out);
        } else {
            self.prr_out = 0;
        }
        if sack {
            self.sb.enter_recovery(seq, keep_rxt);
        }
        if resent {
            self.restart_timer(now);
        }
    }

    /// Recovery → Open on the ACK that ends it (RFC 6582 §3.2 step 3, option 2, as
    /// ns-2: cwnd = ssthresh).
    fn exit_recovery(&mut self, now: Time) {
        self.state = CaState::Open;
        self.stats.recovery_time += now - self.recovery_start;
        self.dupacks = 0;
        // Linux tcp_end_cwnd_reduction returns at once with `cong_control`.
        if !self.cong_control {
            self.win.cwnd = self.win.ssthresh;
        }
        self.cc.on_recovery_exit(&mut self.win, now);
    }

    /// Tell the algorithm of a congestion signal; the ssthresh it asks for (≥ 2
    /// segments, RFC 5681 eq. (4)), which the caller applies by its policy.
    fn congestion(&mut self, kind: CongestionKind, now: Time) -> f64 {
        let mut ev = Congestion {
            now,
            kind,
            in_flight: self.in_flight() as f64,
            rtt: self.rtt_stats(None),
        };
        if kind == CongestionKind::FastRetransmit
            && self.cfg.ssthresh_from_pipe
            && self.cfg.recovery == Recovery::Sack
        {
            // ns-3 EnterRecovery: GetSsThresh(tcb, BytesInFlight()), the pipe with the
            // head of the window already deemed lost.
            self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
            ev.in_flight = self.sb.pipe(self.snd_una, self.high_tx) as f64;
        }
        let mut w = self.win;
        if self.state == CaState::Recovery {
            if self.cfg.rto_new_ssthresh {
                // ns-3's ReTxTimeout: GetSsThresh(tcb, BytesInFlight()), with the
                // window as it stands and, with SACK, the pipe (RFC 6675) in flight.
                if self.cfg.recovery == Recovery::Sack {
                    self.sb.compute_lost_end(self.snd_una, self.cfg.dupthresh);
                    ev.in_flight = self.sb.pipe(self.snd_una, self.high_tx) as f64;
                }
            } else {
                // The recovery's cwnd (NewReno-inflated by duplicate ACKs, RFC 5681
                // §3.2 step 4, or PRR-reduced) measures nothing of the path: the
                // algorithm sees the window from before the loss (Linux's prior_cwnd),
                // so that no law takes W_max or a reduction from an inflated window.
                w.cwnd = self.prior_cwnd;
            }
        }
        let ssthresh = self.cc.on_congestion(&w, &ev).max(2.0);
        // RFC 3168 §6.1.2: one reduction per window, whatever signalled it; ECN-Echo
        // for data sent before this point does not reduce again.
        self.ecn_recover = self.high_tx;
        ssthresh
    }

    /// Linux `tcp_timeout_mark_lost` marks every un-SACKed segment lost: `tp->lost`
    /// counts each but those already marked and not yet resent (a retransmission in
    /// flight counts again). The marks reach no ACK's sample (`tcp_ack` counts only its
    /// own). Called before the state and the scoreboard change.
    #[cold]
    #[inline(never)]
    fn mark_timeout_losses(&mut self) {
        let Some(d) = &mut self.rate else {
            return;
        };
        if self.cfg.recovery != Recovery::Sack {
            return;
        }
        // Marked lost and not yet resent: above HighRxt in recovery, above snd.nxt
        // (the go-back-N's progress) in Loss, and below the counted boundary.
        let awaits_from = match self.state {
            CaState::Recovery => self.sb.rxt_next(),
            CaState::Loss => self.snd_nxt,
            _ => self.loss_mark,
        };
        let recovery = self.state == CaState::Recovery;
        let mut x = self.sb.next_unsacked(self.snd_una);
        while x < self.high_tx {
            let awaits =
                (x >= awaits_from && x < self.loss_mark) || (recovery && self.sb.relost_awaits(x));
            if !awaits {
                d.mark_lost(x);
            }
            x = self.sb.next_unsacked(x + 1);
        }
        d.settle_losses();
        self.loss_mark = self.high_tx;
    }

    /// The retransmission timer expired (the caller checked the deadline): any state →
    /// Loss.
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.rto_deadline = None;
        // Linux tcp_retransmit_timer: no probe outstanding, no reordering timer.
        self.tlp_end = None;
        self.reo_at = None;
        if self.snd_una >= self.high_tx {
            return;
        }
        self.stats.timeouts += 1;
        self.mark_timeout_losses();
        // RFC 5681 §3.1: ssthresh is reduced when the segment "has not yet been resent
        // by way of the retransmission timer"; a repeated timeout of the same
        // segment keeps it (as Linux does).
        if self.rto_una != Some(self.snd_una) {
            // A timeout during fast recovery keeps the ssthresh set when the recovery
            // began: the window was already reduced for this loss, and the cwnd that
            // duplicate ACKs inflated (RFC 5681 §3.2 step 4) measures nothing of the
            // path. Linux's tcp_enter_loss likewise reduces ssthresh only "if it has
            // not yet been made inside this window". The algorithm still hears of the
            // timeout (CUBIC, Illinois and Compound reset their state on it).
            // ns-3 (tcp.rto_new_ssthresh) reduces again.
            let ssthresh = self.congestion(CongestionKind::Timeout, now);
            if self.state != CaState::Recovery || self.cfg.rto_new_ssthresh {
                self.win.ssthresh = ssthresh;
            }
        }
        self.rto_una = Some(self.snd_una);
        // RFC 5681 §3.1: loss window of one segment; go back to the first unacked.
        self.win.cwnd = 1.0;
        if self.state == CaState::Recovery {
            self.stats.recovery_time += now - self.recovery_start;
        }
        self.state = CaState::Loss;
        self.dupacks = 0;
        // The recovery point of the Loss state (RFC 6582 §4, RFC 6675 §5.1).
        self.recover = self.high_tx;
        self.snd_nxt = self.snd_una;
        self.timed = None;
        if self.cfg.rto_keeps_sack {
            // Linux tcp_timeout_mark_lost: every un-SACKed segment is lost, what was
            // SACKed stays SACKed (a receiver here never reneges).
            self.sb.enter_loss(self.snd_una);
        } else {
            // RFC 2018 §8: after a timeout the SACK information is not trusted (the
            // receiver may have reneged); start the scoreboard afresh (ns-2).
            self.sb.reset(self.snd_una);
        }
        // RFC 6298 §5.5: back off the timer.
        self.rtt.back_off();
        self.rto_deadline = Some(now + self.rtt.rto());
        self.try_send(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{build, Profile};
    use std::sync::{Arc, Mutex};

    const T0: Time = Time::ZERO;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    fn config(recovery: Recovery, window: f64) -> SenderConfig {
        SenderConfig {
            mss: 1000,
            header: 40,
            init_cwnd: window,
            init_ssthresh: window,
            rwnd: u64::MAX,
            min_rto: ms(200),
            max_rto: Time::from_secs(60),
            initial_rto: Time::from_secs(1),
            timestamps: true,
            dupthresh: 3,
            recovery,
            prr: false,
            prr_ns3: false,
            partial_ack_send: false,
            exit_ack_increase: false,
            grow_by_delivered: false,
            rto_new_ssthresh: false,
            rto_keeps_sack: false,
            ssthresh_from_pipe: false,
            limited_transmit: false,
            pacing: PacingMode::None,
            ecn: true,
            cwnd_validation: false,
            rack: false,
            linux_rto: false,
            gso_bursts: false,
            tso_defer: false,
            mark_psh: false,
            linux_rounds: false,
        }
    }

    /// A bulk sender of `cfg` with Reno's law (ns-2 form), not yet started.
    fn reno_sender(cfg: SenderConfig) -> Sender {
        let cc = build("reno", &Default::default(), Profile::Ns2).unwrap();
        Sender::new(cfg, cc, 0, 0, None)
    }

    /// A bulk sender in congestion avoidance that has just sent segments 0..window at
    /// t = 0 (cwnd = ssthresh = window, Reno's law).
    fn sender_open(recovery: Recovery, window: f64) -> (Sender, Vec<Packet>) {
        let mut s = reno_sender(config(recovery, window));
        let mut out = Vec::new();
        s.start(T0, &mut out);
        assert_eq!(out.len(), window as usize);
        (s, out)
    }

    /// Linux's `tcp_tso_autosize` with BBR's `bbr_min_tso_segs`, value by value: ~1 ms
    /// at the pacing rate in whole segments, at least 2 (1 below 1.2 Mbit/s), plus
    /// 64 KB >> (min RTT / 512 µs), at most 64 KB.
    #[test]
    fn tso_autosize_is_a_millisecond_at_the_pacing_rate_in_whole_segments() {
        let rtt = Some(ms(50));
        // 20 Mb/s: 2.47 MB/s >> 10 = 2,412 B, one segment of 1448: the minimum, 2.
        assert_eq!(tso_autosize(2.47e6, rtt, 1448), 2);
        // 50 Mb/s: 5.9 MB/s >> 10 = 5,761 B: 3 segments (3.98, rounded down).
        assert_eq!(tso_autosize(5.9e6, rtt, 1448), 3);
        // 1 Gb/s: 118 KB per ms, capped at 64 KB: 45 segments.
        assert_eq!(tso_autosize(118e6, rtt, 1448), 45);
        // Below bbr_min_tso_rate (150 KB/s): single segments.
        assert_eq!(tso_autosize(100e3, rtt, 1448), 1);
        // A 1 ms min RTT adds 64 KB >> 1 = 32,768 B: (2,412 + 32,768) / 1448 = 24.
        assert_eq!(tso_autosize(2.47e6, Some(ms(1)), 1448), 24);
        // No RTT sample yet: no RTT term (tcp_min_rtt is ~0U).
        assert_eq!(tso_autosize(2.47e6, None, 1448), 2);
    }

    /// A bulk Reno sender (MSS 1000 B) with TSO deferral and a 400-segment window, its
    /// first flight sent at `start`: at 120 % of cwnd/SRTT = 4.8 MB/s for a 100 ms SRTT
    /// its skbs are ⌊4,687 B / 1000 B⌋ = 4 segments.
    fn deferring_sender(rack: bool, start: Time) -> Sender {
        let mut cfg = config(Recovery::Sack, 400.0);
        cfg.tso_defer = true;
        cfg.rack = rack;
        let mut s = reno_sender(cfg);
        let mut out = Vec::new();
        s.start(start, &mut out);
        assert_eq!(
            out.len(),
            400,
            "no RTT sample yet: the first flight is not deferred"
        );
        s
    }

    /// Segments sent in answer to each of `n` ACKs of two segments, `gap` apart from
    /// `first`, echoing `ecr`.
    fn sends_per_ack(s: &mut Sender, n: u64, first: Time, gap: Time, ecr: Time) -> Vec<usize> {
        (0..n)
            .map(|k| {
                let mut out = Vec::new();
                let mut p = ack(2 * (k + 1), first + Time(gap.ps() * k));
                p.ts_ecr = ecr;
                s.on_ack(&p, p.ts_val, &mut out);
                out.len()
            })
            .collect()
    }

    /// Segments sent in answer to an ACK of everything below `seq` at `at`.
    fn sends_per_ack_from(s: &mut Sender, seq: u64, at: Time) -> usize {
        let mut out = Vec::new();
        let mut p = ack(seq, at);
        p.ts_ecr = ms(1);
        s.on_ack(&p, at, &mut out);
        out.len()
    }

    /// PSH ends each skb: the deferring sender's 4-segment skbs carry it on their last
    /// segment (and only there), the first flight's single-segment skbs on each, and
    /// the flow's last segment carries it.
    #[test]
    fn psh_marks_the_last_segment_of_each_skb() {
        let mut s = deferring_sender(false, ms(1));
        s.cfg.mark_psh = true;
        let mut out = Vec::new();
        let mut p = ack(8, ms(101));
        p.ts_ecr = ms(1);
        s.on_ack(&p, ms(101), &mut out);
        let psh: Vec<bool> = out.iter().map(|p| p.psh).collect();
        assert_eq!(out.len(), 8, "two 4-segment skbs");
        assert_eq!(psh, [false, false, false, true, false, false, false, true]);
        let mut cfg = config(Recovery::Sack, 10.0);
        cfg.tso_defer = true;
        cfg.mark_psh = true;
        let mut s = Sender::new(cfg, Box::new(crate::cc::reno::Reno), 0, 0, Some(3_500));
        let mut out = Vec::new();
        s.start(ms(0), &mut out);
        assert_eq!(out.iter().map(|p| p.psh).collect::<Vec<_>>(), [true; 4]);
    }

    /// A deferring Reno sender (SACK, RACK, cwnd 40) whose initial window left at 1 ms,
    /// with PSH marked at skb ends or not.
    fn reno_20mbps_sender(mark_psh: bool) -> Sender {
        let mut cfg = config(Recovery::Sack, 40.0);
        cfg.tso_defer = true;
        cfg.rack = true;
        cfg.mark_psh = mark_psh;
        let mut s = reno_sender(cfg);
        s.start(ms(1), &mut Vec::new());
        s
    }

    /// What an ACK of `seq` at `at` (echoing the first flight's timestamp) sends.
    fn acked(s: &mut Sender, seq: u64, at: Time) -> Vec<Packet> {
        let mut out = Vec::new();
        let mut p = ack(seq, at);
        p.ts_ecr = ms(1);
        s.on_ack(&p, at, &mut out);
        out
    }

    /// A pair carries PSH on its second segment; a single segment the window's room
    /// cuts from an skb carries none (the testbed's '.P' and '.' bursts; one Reno flow
    /// at 20 Mb/s, skbs of 2).
    #[test]
    fn psh_marks_skb_ends_not_a_single_cut_from_an_skb() {
        let mut s = reno_20mbps_sender(true);
        let psh = |s: &mut Sender, seq: u64, at: Time| {
            acked(s, seq, at).iter().map(|p| p.psh).collect::<Vec<_>>()
        };
        let t1 = ms(101) + Time::from_micros(1200);
        assert_eq!(psh(&mut s, 2, ms(101)), [false, true]);
        assert_eq!(psh(&mut s, 5, t1), [false, true], "the third waits");
        // Sent alone once the last write is over 1 ms old, the cut single carries none.
        let mut out = Vec::new();
        s.try_send(t1 + Time::from_micros(5000), &mut out);
        assert_eq!(out.iter().map(|p| p.psh).collect::<Vec<_>>(), [false]);
    }

    /// Linux's ACK clock at 50 Mb/s (tcp_tso_should_defer): ACKs of two segments 0.48 ms
    /// apart free two segments each, half a 4-segment skb; the window takes the skb
    /// whole every other ACK and the half in between waits (the last write under 1 ms
    /// old, the head's ACK due within min(SRTT/2, 1 ms)). The first ACK comes 100 ms
    /// after the last write and sends at once. The testbed's capture of one CUBIC flow
    /// at 50 Mb/s shows the same: 95 % of its segments leave in bursts of 4.
    #[test]
    fn tso_deferral_sends_whole_skbs_every_other_ack() {
        for rack in [true, false] {
            let mut s = deferring_sender(rack, ms(1));
            let n = sends_per_ack(&mut s, 8, ms(101), Time::from_micros(480), ms(1));
            assert_eq!(n, vec![2, 0, 4, 0, 4, 0, 4, 0], "rack {rack}");
            // Deferred for the next ACK, with no timer of its own.
            assert_eq!(s.pace_at, None);
            // An ACK of one more segment exactly 1 ms after the last write still finds
            // it recent (Linux: delta > 0) and holds three; just after, they go.
            let last = ms(101) + Time::from_micros(480 * 6);
            for (at, sent) in [(last + DEFER_MAX, 0), (last + DEFER_MAX + Time(1), 3)] {
                let mut s = deferring_sender(rack, ms(1));
                sends_per_ack(&mut s, 8, ms(101), Time::from_micros(480), ms(1));
                assert_eq!(sends_per_ack_from(&mut s, 17, at), sent, "rack {rack}");
            }
        }
    }

    /// One Reno flow at 20 Mb/s (ACKs of two segments 1.2 ms apart, skbs of 2): an ACK
    /// that frees three segments (here an ACK of three; in a run, the window's
    /// increase) sends a pair, and the third, a room of one segment, waits like a room
    /// of two would while the head's ACK is due within min(SRTT/2, 1 ms) (here it is
    /// past due: the initial window left at once). Linux's head skb is larger than the
    /// room (its write-queue skbs are up to 64 KB), so `tcp_tso_should_defer` is asked
    /// for it: with a receiver that ACKs every segment the testbed's Reno and CUBIC
    /// send 50-85 % of their segments in pairs (validation/linux/quickack_check.json).
    /// No timer: the held segment leaves with the next ACK's pair.
    #[test]
    fn tso_deferral_holds_a_room_of_one_segment_as_of_two() {
        let mut s = reno_20mbps_sender(false);
        let sent = |s: &mut Sender, seq: u64, at: Time| {
            acked(s, seq, at).iter().map(|p| p.seq).collect::<Vec<_>>()
        };
        let t1 = ms(101) + Time::from_micros(1200);
        assert_eq!(sent(&mut s, 2, ms(101)).len(), 2);
        let pair = sent(&mut s, 5, t1);
        assert_eq!(pair.len(), 2, "an ACK of three: a pair; the third waits");
        assert_eq!(s.pace_at, None, "for the next ACK, no timer");
        let next = sent(&mut s, 7, t1 + Time::from_micros(1200));
        assert_eq!(
            next,
            [pair[1] + 1, pair[1] + 2],
            "the held segment leads the next pair"
        );
    }

    /// Linux's rate for a socket it paces itself (`tcp_update_pacing_rate`):
    /// mss · max(cwnd, packets_out) / SRTT at 120 %, or 200 % while cwnd < ssthresh/2.
    #[test]
    fn linux_pacing_rate_is_120_or_200_percent_of_the_window_per_srtt() {
        let mut cfg = config(Recovery::Sack, 40.0);
        cfg.pacing = PacingMode::Linux;
        let mut s = reno_sender(cfg);
        let mut out = Vec::new();
        s.start(ms(1), &mut out);
        assert_eq!(s.linux_pacing_rate(), None, "no RTT sample yet");
        let mut p = ack(2, ms(101));
        p.ts_ecr = ms(1);
        s.on_ack(&p, ms(101), &mut out);
        // cwnd 40 (Reno's ⌊40 + 2/40⌋) = ssthresh: 1.2 · 40 · 1000 B / 0.1 s.
        let r = s.linux_pacing_rate().unwrap();
        assert!((r - 480_000.0).abs() < 1e-6, "{r}");
        // Below half of ssthresh: 200 %, of the flight when it exceeds the window.
        s.win.ssthresh = 100.0;
        s.win.cwnd = 30.0;
        let out_now = (s.snd_nxt - s.snd_una) as f64;
        assert_eq!(out_now, 40.0);
        let r = s.linux_pacing_rate().unwrap();
        assert!((r - 2.0 * 40.0 * 1000.0 / 0.1).abs() < 1e-6, "{r}");
    }

    /// Linux's own pacing (`pacing = "linux"`): skbs of `tcp_tso_autosize` segments
    /// (4 of 1000 B at 120 % of 400 segments per 100 ms = 4.8 MB/s), each moving the
    /// departure time on by its length at the rate, less half of it when the skb left
    /// late (a flow waiting for its window leaves late, so its skbs are half-paced);
    /// the window's room of two segments is deferred at the pacing release as at an
    /// ACK, and the next ACK sends the whole skb. Without the deferral the testbed's
    /// paced CUBIC at 50 Mb/s would send pairs; it sends 4s (97 % of its segments).
    #[test]
    fn linux_pacing_sends_skbs_by_departure_time_and_defers_part_skbs() {
        let mut cfg = config(Recovery::Sack, 400.0);
        cfg.pacing = PacingMode::Linux;
        cfg.tso_defer = true;
        cfg.rack = true;
        let mut s = reno_sender(cfg);
        let mut out = Vec::new();
        s.start(ms(1), &mut out);
        assert_eq!(out.len(), 400, "no rate before the first RTT sample");
        let us = Time::from_micros;
        let mut acked = 0;
        let mut on_ack = |s: &mut Sender, n: u64, at: Time| {
            acked += n;
            let mut out = Vec::new();
            let mut p = ack(acked, at);
            p.ts_ecr = ms(1);
            s.on_ack(&p, at, &mut out);
            out.len()
        };
        let pace = |s: &mut Sender| {
            let at = s.pace_at.expect("a pacing release");
            let mut out = Vec::new();
            s.try_send(at, &mut out);
            (at, out.len())
        };
        // An ACK of 8: one skb now (it leaves 101 ms late: half-paced, 0.4167 ms).
        assert_eq!(on_ack(&mut s, 8, ms(101)), 4);
        let (at, n) = pace(&mut s);
        assert_eq!(n, 4);
        assert!((at.as_secs_f64() - 0.101_416_667).abs() < 2e-9, "{at:?}");
        // On time: fully paced, the next departure 0.8333 ms on.
        assert_eq!(
            on_ack(&mut s, 2, ms(101) + us(900)),
            0,
            "before the departure time"
        );
        let (at2, n) = pace(&mut s);
        assert!((at2.as_secs_f64() - 0.102_25).abs() < 2e-9, "{at2:?}");
        assert_eq!(n, 0, "two segments of a four-segment skb wait");
        assert_eq!(s.pace_at, None, "for an ACK: no timer");
        assert_eq!(on_ack(&mut s, 2, ms(102) + us(400)), 4);
    }

    /// ACKs more than 1 ms apart: every write is over 1 ms after the last, so nothing
    /// waits (Linux: "allow defer only if the last write was recent").
    #[test]
    fn tso_deferral_needs_a_recent_write() {
        let mut s = deferring_sender(true, ms(1));
        let n = sends_per_ack(&mut s, 8, ms(101), Time::from_micros(1200), ms(1));
        assert_eq!(n, vec![2; 8]);
    }

    /// The head's ACK is due long after now (sent at 500 ms with SRTT 500 ms, asked at
    /// 600 ms): no deferral, "we prefer a smooth ACK clocking" (Linux 6.18's test,
    /// expected ACK within min(SRTT/2, 1 ms)).
    #[test]
    fn tso_deferral_waits_only_for_an_ack_due_soon() {
        let mut s = deferring_sender(true, ms(500));
        let n = sends_per_ack(&mut s, 8, ms(600), Time::from_micros(480), ms(100));
        assert_eq!(n, vec![2; 8]);
    }

    /// Send times of the data segments in `out`, in µs.
    fn send_times_us(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.ts_val.ps() / 1_000_000).collect()
    }

    /// A sender whose algorithm set a pacing rate of 1 MB/s (1 ms per 1000-B segment),
    /// with room for 20 segments, started at t = 0.
    fn paced_sender(gso_bursts: bool) -> (Sender, Vec<Packet>) {
        let mut cfg = config(Recovery::Sack, 20.0);
        cfg.gso_bursts = gso_bursts;
        let mut s = reno_sender(cfg);
        s.win.pacing_rate = Some(1e6);
        let mut out = Vec::new();
        s.start(T0, &mut out);
        (s, out)
    }

    /// Linux paces a self-pacing algorithm one GSO skb at a time (tcp_update_skb_after_send):
    /// at 1 MB/s an skb is 2 segments (tso_autosize's minimum), which leave together and
    /// hold the next skb for 2 ms; with `gso_bursts` off, one segment per millisecond.
    #[test]
    fn gso_bursts_pace_pairs_at_twice_the_interval() {
        let (mut s, mut out) = paced_sender(true);
        for t in [2, 4] {
            assert_eq!(s.pace_at, Some(ms(t)));
            s.try_send(ms(t), &mut out);
        }
        assert_eq!(send_times_us(&out), vec![0, 0, 2000, 2000, 4000, 4000]);
        let (mut s, mut out) = paced_sender(false);
        for t in [1, 2] {
            assert_eq!(s.pace_at, Some(ms(t)));
            s.try_send(ms(t), &mut out);
        }
        // (the token bucket starts empty: the first segment waits its interval)
        assert_eq!(send_times_us(&out), vec![1000, 2000]);
    }

    /// "Take into account OS jitter" (tcp_update_skb_after_send): an skb that leaves late
    /// takes off its pacing time the lateness, up to half of it; a late skb never makes
    /// up more than that.
    #[test]
    fn a_late_gso_burst_shortens_its_pacing_time_by_at_most_half() {
        let (mut s, mut out) = paced_sender(true);
        assert_eq!(s.pace_at, Some(ms(2)));
        // 8 ms late: the pair's 2 ms shrink by min(1 ms, 8 ms) to 1 ms.
        s.try_send(ms(10), &mut out);
        assert_eq!(s.pace_at, Some(ms(11)));
        // 0.5 ms late: by 0.5 ms, to 1.5 ms.
        s.try_send(ms(11) + Time::from_micros(500), &mut out);
        assert_eq!(s.pace_at, Some(ms(13)));
        assert_eq!(
            send_times_us(&out),
            vec![0, 0, 10_000, 10_000, 11_500, 11_500]
        );
    }

    /// A cumulative ACK of everything below `seq`, echoing the timestamp of t = 0.
    fn ack(seq: u64, now: Time) -> Packet {
        let mut p = Packet::new(PktKind::Ack, 0, 1, seq, 40, 0, now);
        p.ts_ecr = T0;
        p
    }

    /// The duplicate ACKs for segment 0 lost out of 0..10 (segments 1..=n arrived).
    fn dupacks(s: &mut Sender, n: u64, out: &mut Vec<Packet>) {
        for k in 1..=n {
            let mut p = ack(0, ms(100) + Time::from_micros(k));
            p.set_sack(&[(1, 1 + k as u32)]);
            s.on_ack(&p, p.ts_val, out);
        }
    }

    /// Linux `tcp_ack_update_rtt` (`linux_rto`): SRTT times the oldest segment an ACK
    /// newly delivers (seq_rtt), the minimum RTT the newest (ca_rtt); the timestamp echo
    /// only where a segment it covers was retransmitted (Karn); an ACK that only SACKs
    /// times the first segment it newly SACKs (sack_rtt).
    #[test]
    fn linux_rtt_samples_time_the_oldest_and_the_newest_segment_acked() {
        let mut cfg = config(Recovery::Sack, 2.0);
        cfg.init_ssthresh = 100.0;
        cfg.linux_rto = true;
        let mut s = reno_sender(cfg);
        let mut out = Vec::new();
        s.start(T0, &mut out); // segments 0 and 1 at t = 0
        let mut p = ack(1, ms(90));
        p.ts_ecr = T0;
        s.on_ack(&p, ms(90), &mut out); // 90 ms; slow start sends 2..=3 at 90 ms
        assert_eq!(s.rtt.srtt_time(), ms(90));
        assert_eq!(s.snd_nxt, 4);
        // One ACK of segments 1 (sent at 0) and 2 (at 90 ms), echoing segment 1's
        // timestamp as a Linux receiver does: SRTT takes 120 ms, the minimum 30 ms.
        let mut p = ack(3, ms(120));
        p.ts_ecr = T0;
        s.on_ack(&p, ms(120), &mut out);
        let srtt = 0.090 + (0.120 - 0.090) / 8.0;
        assert!(
            (s.rtt.srtt().unwrap() - srtt).abs() < 1e-9,
            "{:?}",
            s.rtt.srtt()
        );
        assert_eq!(s.rtt.min_rtt, Some(ms(30)));
        // A duplicate ACK that SACKs segment 5 (sent at 120 ms): 30 ms into SRTT.
        let sent5 = s
            .rack
            .as_ref()
            .map_or_else(|| s.xmit.as_ref().unwrap().sent(5), |r| r.sent(5));
        assert_eq!(sent5, ms(120));
        let mut p = ack(3, ms(150));
        p.set_sack(&[(2, 3)]);
        s.on_ack(&p, ms(150), &mut out);
        let srtt = srtt + (0.030 - srtt) / 8.0;
        assert!(
            (s.rtt.srtt().unwrap() - srtt).abs() < 1e-9,
            "{:?}",
            s.rtt.srtt()
        );
        // Segment 3 resent: the ACK that covers it is timed by its echo (Karn).
        s.segment(3, ms(160), &mut out);
        let mut p = ack(4, ms(200));
        p.ts_ecr = ms(100);
        s.on_ack(&p, ms(200), &mut out);
        let srtt = srtt + (0.100 - srtt) / 8.0;
        assert!(
            (s.rtt.srtt().unwrap() - srtt).abs() < 1e-9,
            "{:?}",
            s.rtt.srtt()
        );
        // Without `linux_rto` the echo times both: the same two ACKs (from 10 ms) leave
        // the minimum at 90 ms and SRTT at 93.75 ms (the echo is segment 1's).
        let mut cfg = config(Recovery::Sack, 2.0);
        cfg.init_ssthresh = 100.0;
        let mut s = reno_sender(cfg);
        s.start(ms(10), &mut out);
        for (a, t) in [(1, 100), (3, 130)] {
            let mut p = ack(a, ms(t));
            p.ts_ecr = ms(10);
            s.on_ack(&p, ms(t), &mut out);
        }
        assert_eq!(s.rtt.min_rtt, Some(ms(90)));
        assert!((s.rtt.srtt().unwrap() - 0.09375).abs() < 1e-9);
    }

    fn retransmits(out: &[Packet]) -> Vec<u64> {
        out.iter().filter(|p| p.retx).map(|p| p.seq).collect()
    }

    /// RFC 5681 §3.2 / RFC 6582: the third duplicate starts fast retransmit with
    /// ssthresh = FlightSize/2 and cwnd = ssthresh + 3; each further duplicate inflates
    /// by one; the ACK of everything sent before recovery ends it with cwnd = ssthresh.
    #[test]
    fn newreno_recovery_from_the_third_duplicate_to_the_full_ack() {
        let (mut s, _) = sender_open(Recovery::NewReno, 10.0);
        let mut out = Vec::new();
        dupacks(&mut s, 2, &mut out);
        assert_eq!(s.state(), CaState::Open);
        dupacks(&mut s, 1, &mut out);
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 8.0));
        assert_eq!(retransmits(&out), vec![0]);
        assert_eq!(s.stats.fast_retransmits, 1);
        dupacks(&mut s, 1, &mut out);
        assert_eq!(s.cwnd(), 9.0, "inflation");
        s.on_ack(&ack(10, ms(200)), ms(200), &mut out);
        assert_eq!(s.state(), CaState::Open);
        assert_eq!(s.cwnd(), 5.0);
    }

    /// RFC 6582 §3.2 step 4: a partial ACK retransmits the next hole and deflates the
    /// window by the amount acknowledged, less one segment.
    #[test]
    fn newreno_partial_ack_retransmits_the_next_hole() {
        let (mut s, _) = sender_open(Recovery::NewReno, 10.0);
        let mut out = Vec::new();
        dupacks(&mut s, 3, &mut out);
        let w = s.cwnd();
        out.clear();
        s.on_ack(&ack(5, ms(200)), ms(200), &mut out);
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(retransmits(&out), vec![5]);
        assert_eq!(s.cwnd(), w - 5.0 + 1.0);
    }

    /// Reno (RFC 5681 §3.2): any new ACK ends recovery, partial or not.
    #[test]
    fn reno_recovery_ends_on_any_new_ack() {
        let (mut s, _) = sender_open(Recovery::Reno, 10.0);
        let mut out = Vec::new();
        dupacks(&mut s, 3, &mut out);
        s.on_ack(&ack(5, ms(200)), ms(200), &mut out);
        assert_eq!(s.state(), CaState::Open);
        assert_eq!(s.cwnd(), 5.0);
    }

    /// RFC 6675 §5: with SACK, IsLost(snd_una) — DupThresh segments SACKed above it —
    /// starts recovery on the first duplicate, with cwnd = ssthresh; the pipe then
    /// allows new data.
    #[test]
    fn sack_recovery_starts_once_snd_una_is_lost() {
        let (mut s, _) = sender_open(Recovery::Sack, 10.0);
        let mut out = Vec::new();
        let mut p = ack(0, ms(100));
        p.set_sack(&[(1, 4)]);
        s.on_ack(&p, ms(100), &mut out);
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 5.0));
        assert_eq!(retransmits(&out), vec![0]);
        // Pipe: 6 un-SACKed segments not lost (4..10) + the retransmission = 7 > 5.
        assert_eq!(out.len(), 1);
        s.on_ack(&ack(10, ms(200)), ms(200), &mut out);
        assert_eq!(s.state(), CaState::Open);
    }

    /// `ssthresh_from_pipe` (ns-3's EnterRecovery): the algorithm halves the RFC 6675
    /// pipe — 10 sent, 3 SACKed, the head deemed lost: 6 — not the 10 outstanding.
    #[test]
    fn ssthresh_from_pipe_halves_what_is_in_the_network() {
        for (from_pipe, want) in [(false, 5.0), (true, 3.0)] {
            let mut cfg = config(Recovery::Sack, 10.0);
            cfg.ssthresh_from_pipe = from_pipe;
            let mut s = reno_sender(cfg);
            let mut out = Vec::new();
            s.start(T0, &mut out);
            let mut p = ack(0, ms(100));
            p.set_sack(&[(1, 4)]);
            s.on_ack(&p, ms(100), &mut out);
            assert_eq!(s.state(), CaState::Recovery);
            assert_eq!(s.ssthresh(), want, "from_pipe {from_pipe}");
        }
    }

    /// `limited_transmit` (RFC 6675 §5 step (3), ns-3's pipe-based sending): before
    /// DupThresh, each duplicate ACK whose SACK block covers a new segment lets one new
    /// segment out; without it nothing leaves until recovery.
    #[test]
    fn limited_transmit_sends_a_new_segment_per_early_duplicate() {
        for (lt, want) in [(false, vec![]), (true, vec![10, 11])] {
            let mut cfg = config(Recovery::Sack, 10.0);
            cfg.limited_transmit = lt;
            let mut s = reno_sender(cfg);
            let mut out = Vec::new();
            s.start(T0, &mut out);
            out.clear();
            dupacks(&mut s, 2, &mut out);
            assert_eq!(s.state(), CaState::Open, "limited_transmit {lt}");
            let seqs: Vec<u64> = out.iter().map(|p| p.seq).collect();
            assert_eq!(seqs, want, "limited_transmit {lt}");
            assert!(out.iter().all(|p| !p.retx));
        }
    }

    /// After a timeout (RFC 6582 §4, RFC 6675 §5.1) the sender is in Loss: cwnd = 1,
    /// go-back-N from snd_una, and duplicates start no fast retransmit until the
    /// cumulative ACK passes the recovery point (HighData at the timeout).
    #[test]
    fn a_timeout_is_loss_until_snd_una_passes_the_recovery_point() {
        for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Sack] {
            let (mut s, _) = sender_open(recovery, 10.0);
            let mut out = Vec::new();
            s.on_timeout(Time::from_secs(1), &mut out);
            assert_eq!(s.state(), CaState::Loss, "{recovery:?}");
            assert_eq!((s.cwnd(), s.ssthresh()), (1.0, 5.0));
            assert_eq!(retransmits(&out), vec![0]);
            dupacks(&mut s, 5, &mut out);
            assert_eq!(s.stats.fast_retransmits, 0, "{recovery:?}");
            // Up to the recovery point, not past it: still Loss.
            s.on_ack(&ack(10, Time::from_secs(2)), Time::from_secs(2), &mut out);
            assert_eq!(s.state(), CaState::Loss);
            s.on_ack(&ack(11, Time::from_secs(3)), Time::from_secs(3), &mut out);
            assert_eq!(s.state(), CaState::Open, "{recovery:?}");
        }
    }

    /// RFC 3168 §6.1.2: ECN-Echo reduces as a loss does, cwnd = ssthresh at once, once
    /// per window; CWR goes out on the next new segment.
    #[test]
    fn ecn_echo_reduces_once_per_window() {
        let (mut s, _) = sender_open(Recovery::NewReno, 10.0);
        let mut out = Vec::new();
        let mut p = ack(1, ms(100));
        p.ece = true;
        s.on_ack(&p, ms(100), &mut out);
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.cwnd(), s.ssthresh());
        assert_eq!(s.ssthresh(), 4.5, "FlightSize 9 / 2");
        let mut p = ack(2, ms(101));
        p.ece = true;
        s.on_ack(&p, ms(101), &mut out);
        assert_eq!(s.stats.ecn_reductions, 1, "not twice in one window");
        assert_eq!(s.state(), CaState::Open);
        // 9 − 2 = 7 in flight against ⌊cwnd⌋ = 4: nothing sent yet; once the flight is
        // below the window, the first new segment carries CWR.
        assert!(out.is_empty());
        s.on_ack(&ack(7, ms(102)), ms(102), &mut out);
        assert_eq!(out.first().map(|p| (p.seq, p.cwr)), Some((10, true)));
        assert!(out[1..].iter().all(|p| !p.cwr));
    }

    /// Linux tcp_cwnd_validate: a flight that fills ⌊cwnd⌋ is cwnd-limited; one held to
    /// 5 by the receive window is not (cwnd 10 ≥ 2 × 5 in slow start, either).
    #[test]
    fn cwnd_limited_is_what_stopped_sending() {
        let (s, _) = sender_open(Recovery::NewReno, 10.0);
        assert!(s.cwnd_limited());
        let mut cfg = config(Recovery::NewReno, 10.0);
        cfg.rwnd = 5;
        cfg.init_ssthresh = 100.0;
        let mut s = reno_sender(cfg);
        let mut out = Vec::new();
        s.start(T0, &mut out);
        assert_eq!(out.len(), 5);
        assert!(!s.cwnd_limited());
        // With cwnd_validation the next ACK does not grow the window.
        s.cfg.cwnd_validation = true;
        s.on_ack(&ack(1, ms(100)), ms(100), &mut out);
        assert_eq!(s.cwnd(), 10.0);
        s.cfg.cwnd_validation = false;
        s.on_ack(&ack(2, ms(100)), ms(100), &mut out);
        assert_eq!(s.cwnd(), 11.0, "slow start without it");
    }

    /// RFC 6937 §3 / appendix example: 20 segments out, the first lost, ssthresh 10
    /// (RecoverFS 20). From the third duplicate ACK (which starts recovery with the
    /// retransmission) PRR sends CEIL(prr_delivered·ssthresh/RecoverFS) − prr_out per
    /// ACK while pipe > ssthresh: one new segment on every other ACK. RFC 6675 alone
    /// (cwnd = ssthresh at once) sends nothing until pipe falls below 10.
    #[test]
    fn prr_sends_one_segment_per_two_delivered() {
        for prr in [true, false] {
            let (mut s, _) = sender_open(Recovery::Sack, 20.0);
            s.cfg.prr = prr;
            let (out, per_ack) = sacking_dupacks(&mut s, 12);
            assert_eq!(s.ssthresh(), 10.0);
            assert_eq!(retransmits(&out), vec![0]);
            if prr {
                // ACKs 1-2: nothing (no recovery yet); 3: the retransmission
                // (prr_delivered 1, prr_out 1); then a new segment when prr_delivered
                // reaches 3, 5, 7, 9.
                assert_eq!(per_ack, vec![0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
                assert_eq!(s.prr_out, 5);
                assert_eq!(s.prr_delivered, 10);
            } else {
                // pipe: 17 at entry, one less per ACK; sending resumes below 10.
                assert_eq!(per_ack, vec![0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1]);
            }
        }
    }

    /// `n` duplicate ACKs of segment 0, the k-th SACKing segments 1..=k: what the sender
    /// sent, and how many segments each ACK let out.
    fn sacking_dupacks(s: &mut Sender, n: u32) -> (Vec<Packet>, Vec<usize>) {
        let mut out = Vec::new();
        let mut per_ack = Vec::new();
        for k in 1..=n {
            let mut p = ack(0, ms(100) + Time::from_micros(k as u64));
            p.set_sack(&[(1, 1 + k)]);
            let before = out.len();
            s.on_ack(&p, p.ts_val, &mut out);
            per_ack.push(out.len() - before);
        }
        (out, per_ack)
    }

    /// `prr_ns3`, ns-3.44's `TcpPrrRecovery`: RecoverFS is the pipe at the start of
    /// recovery (`m_recoveryFlightSize = m_bytesInFlight`), and `DoRecovery` adds one
    /// segment to the DeliveredData of every ACK that SACKs new data (`isDupAck`, from
    /// `EnterRecovery` too) while prr_delivered < RecoverFS, beside the SACKed segment
    /// itself. With ssthresh = pipe / 2 (`ssthresh_from_pipe`, as ns-3's NewReno) each
    /// such duplicate then lets one segment out until prr_delivered reaches RecoverFS
    /// (the pipe does not shrink), and one per two delivered after; RFC 6937 sends
    /// ssthresh/RecoverFS per delivered segment from the start.
    #[test]
    fn prr_ns3_counts_one_more_segment_per_sacking_ack_until_recover_fs() {
        for ns3 in [true, false] {
            let (mut s, _) = sender_open(Recovery::Sack, 20.0);
            s.cfg.prr = true;
            s.cfg.prr_ns3 = ns3;
            s.cfg.ssthresh_from_pipe = true;
            let (out, per_ack) = sacking_dupacks(&mut s, 14);
            // pipe at the third duplicate: 20 − 3 SACKed − segment 0 deemed lost.
            assert_eq!(s.ssthresh(), 8.0);
            assert_eq!(retransmits(&out), vec![0]);
            if ns3 {
                assert_eq!(s.ns3_prr.recover_fs, 16_000);
                // ACK 3 starts recovery (prr_delivered 1 + 1, one segment: the
                // retransmission); ACKs 4-10 one segment each (prr_delivered 4, ..., 16
                // = RecoverFS); then 17, 18, 19, 20 allow 8.5, 9, 9.5, 10 segments in
                // all, in bytes: one per two, the whole segment on the second.
                assert_eq!(per_ack, vec![0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1]);
                assert_eq!(s.ns3_prr.delivered, 20_000);
            } else {
                // RecoverFS = 20 outstanding: after 12 delivered, prr_out =
                // CEIL(12 · 8 / 20) = 5 segments, the retransmission included.
                let sent: usize = per_ack.iter().sum();
                assert_eq!(sent, 5);
            }
        }
    }

    /// ns-3.44's `DoRecovery` takes `m_prrDelivered * m_ssThresh` in `uint32_t` (bytes):
    /// once the product passes 2³², its wrapped value makes the proportional part
    /// negative and PRR sends nothing while pipe > ssthresh.
    #[test]
    fn prr_ns3_wraps_prr_delivered_times_ssthresh_at_32_bits() {
        let mut cfg = config(Recovery::Sack, 120.0);
        cfg.mss = 1448;
        cfg.prr = true;
        cfg.prr_ns3 = true;
        cfg.ssthresh_from_pipe = true;
        let mut s = reno_sender(cfg);
        let mut out = Vec::new();
        s.start(T0, &mut out);
        out.clear();
        let mut wrapped = 0;
        for k in 1..=40u32 {
            let mut p = ack(0, ms(100) + Time::from_micros(k as u64));
            p.set_sack(&[(1, 1 + k)]);
            let n = out.len();
            s.on_ack(&p, p.ts_val, &mut out);
            if k <= 3 {
                continue;
            }
            let ssthresh_bytes = (s.ssthresh() * 1448.0) as u64;
            let product = u64::from(s.ns3_prr.delivered) * ssthresh_bytes;
            if product >= 1 << 32 {
                wrapped += 1;
                assert_eq!(out.len(), n, "ACK {k}: the product {product} wrapped");
            } else {
                assert_eq!(out.len() - n, 1, "ACK {k}: one segment per SACKing ACK");
            }
        }
        assert_eq!(s.ssthresh(), 58.0);
        assert!(wrapped > 10);
    }

    /// `partial_ack_send`, ns-3's `ProcessAck`: a partial ACK in recovery calls
    /// `DoRetransmit()` unless the segment at the new snd.una was retransmitted, and it
    /// sends what `NextSeg()` gives, the first lost segment not yet resent, else new
    /// data, whatever cwnd allows. RFC 6675 sends by pipe only: nothing here, where
    /// pipe stays above cwnd = ssthresh.
    #[test]
    fn partial_ack_send_sends_the_next_hole_or_new_data_past_cwnd() {
        for on in [true, false] {
            for lost_head in [true, false] {
                let (mut s, _) = sender_open(Recovery::Sack, 20.0);
                s.cfg.partial_ack_send = on;
                let mut out = Vec::new();
                dupacks(&mut s, 3, &mut out);
                assert_eq!(s.state(), CaState::Recovery);
                assert_eq!(retransmits(&out), vec![0]);
                out.clear();
                // 0..5 delivered; with `lost_head`, 6..9 SACKed too (5 deemed lost).
                let p = if lost_head {
                    sack_ack(5, &[(6, 9)], ms(200), T0)
                } else {
                    ack(5, ms(200))
                };
                s.on_ack(&p, ms(200), &mut out);
                assert_eq!(s.state(), CaState::Recovery);
                assert_eq!(s.cwnd(), 10.0);
                let sent: Vec<(u64, bool)> = out.iter().map(|p| (p.seq, p.retx)).collect();
                let want = match (on, lost_head) {
                    (false, _) => vec![],
                    (true, true) => vec![(5, true)],
                    (true, false) => vec![(20, false)],
                };
                assert_eq!(sent, want, "partial_ack_send {on}, lost head {lost_head}");
            }
        }
    }

    /// `exit_ack_increase`, ns-3's `ProcessAck` leaving CA_RECOVERY: cwnd = ssthresh,
    /// then `IncreaseWindow(segsAcked)` with segsAcked = (ack − old snd.una) / MSS,
    /// every segment the ACK covers, SACKed or not (here Reno's law: cwnd += 20/10).
    #[test]
    fn exit_ack_increase_grows_cwnd_by_everything_the_ack_covers() {
        for (on, want) in [(true, 12.0), (false, 10.0)] {
            let (mut s, _) = sender_open(Recovery::Sack, 20.0);
            s.cfg.exit_ack_increase = on;
            let mut out = Vec::new();
            dupacks(&mut s, 3, &mut out);
            assert_eq!(s.ssthresh(), 10.0);
            s.on_ack(&ack(20, ms(200)), ms(200), &mut out);
            assert_eq!(s.state(), CaState::Open);
            assert_eq!(s.cwnd(), want, "exit_ack_increase {on}");
        }
    }

    /// `grow_by_delivered`, Linux's `tcp_cong_control(sk, ack, delivered, ...)`: the law
    /// hears what an ACK newly delivers. Segment 0 of 0..20 lost, 1..=3 SACKed by three
    /// duplicates (recovery, ssthresh 10): the ACK of all 20 ends the recovery and grows
    /// cwnd = ssthresh by the 17 segments it delivers that were not SACKed (Reno's law
    /// here: 17/10), where without it cwnd only becomes ssthresh. Then in Open an ACK
    /// that advances one segment and SACKs two more above a new hole is heard as 3, not 1.
    #[test]
    fn grow_by_delivered_counts_what_each_ack_newly_delivers() {
        for (on, at_exit, after) in [(true, 11.7, 11.7 + 3.0 / 11.7), (false, 10.0, 10.1)] {
            let (mut s, _) = sender_open(Recovery::Sack, 20.0);
            s.cfg.grow_by_delivered = on;
            let mut out = Vec::new();
            dupacks(&mut s, 3, &mut out);
            assert_eq!(s.ssthresh(), 10.0);
            s.on_ack(&ack(20, ms(200)), ms(200), &mut out);
            assert_eq!(s.state(), CaState::Open);
            assert!((s.cwnd() - at_exit).abs() < 1e-9, "{on}: {}", s.cwnd());
            let hi = s.snd_nxt;
            assert!(hi >= 24, "{hi}");
            // 20 arrives, 21 is lost, 22 and 23 arrive: one ACK to 21 SACKing 22..24.
            let p = sack_ack(21, &[(22, 24)], ms(210), T0);
            s.on_ack(&p, ms(210), &mut out);
            assert!((s.cwnd() - after).abs() < 1e-9, "{on}: {}", s.cwnd());
        }
    }

    /// PRR's slow-start reduction bound (RFC 6937 §3.1, PRR-SSRB, as Linux): once pipe
    /// is at or below ssthresh, an ACK that advances snd.una lets out at most
    /// max(prr_delivered − prr_out, DeliveredData) + 1 segments, up to ssthresh − pipe.
    #[test]
    fn prr_below_ssthresh_is_bounded_by_slow_start() {
        let (mut s, _) = sender_open(Recovery::Sack, 20.0);
        s.cfg.prr = true;
        let mut out = Vec::new();
        for k in 1..=3u32 {
            let mut p = ack(0, ms(100) + Time::from_micros(k as u64));
            p.set_sack(&[(1, 1 + k)]);
            s.on_ack(&p, p.ts_val, &mut out);
        }
        // A partial ACK up to segment 15 (the retransmitted 0 and 1..14 delivered): 12
        // delivered (snd.una 0 → 15, SACKed 3 → 0). pipe = 5 (15..20) < ssthresh 10.
        out.clear();
        s.on_ack(&ack(15, ms(200)), ms(200), &mut out);
        assert_eq!(s.state(), CaState::Recovery);
        // limit = max(13 − 1, 12) + 1 = 13; ssthresh − pipe = 5: five segments.
        assert_eq!(out.len(), 5);
        assert_eq!(s.cwnd(), 10.0);
    }

    /// Linux tcp_timeout_mark_lost: a timeout keeps what was SACKed, and the resend
    /// skips it (tcp.rto_keeps_sack; ns-3 too); ns-2 clears the scoreboard and resends
    /// everything from snd_una.
    #[test]
    fn a_timeout_keeps_sack_information_when_asked() {
        for keep in [true, false] {
            let (mut s, _) = sender_open(Recovery::Sack, 10.0);
            s.cfg.rto_keeps_sack = keep;
            s.cfg.dupthresh = 100; // no fast retransmit: the timer finds the losses
            let mut out = Vec::new();
            let mut p = ack(0, ms(100));
            p.set_sack(&[(1, 5), (6, 10)]);
            s.on_ack(&p, ms(100), &mut out);
            out.clear();
            s.on_timeout(Time::from_secs(1), &mut out);
            // The receiver now holds 0..5: cumulative ACK 5; cwnd 2 in slow start.
            let mut p = ack(5, Time::from_secs(1) + ms(100));
            p.set_sack(&[(6, 10)]);
            s.on_ack(&p, p.ts_val, &mut out);
            let r = retransmits(&out);
            if keep {
                assert_eq!(r, vec![0, 5], "only the holes");
            } else {
                assert_eq!(r, vec![0, 5, 6, 7], "go-back-N over SACKed data");
            }
        }
    }

    /// A timeout inside NewReno recovery: the window duplicate ACKs inflated measures
    /// nothing, so the algorithm sees the window from before the loss (Linux's
    /// prior_cwnd) — the CUBIC W_max bug of issue 15 was reading the inflated one. The
    /// sender keeps the recovery's ssthresh (Linux tcp_enter_loss, ns-2) unless
    /// tcp.rto_new_ssthresh (ns-3) asks the algorithm again.
    #[test]
    fn a_timeout_in_recovery_shows_the_algorithm_the_window_before_the_loss() {
        for new_ssthresh in [false, true] {
            let seen = Arc::new(Mutex::new(Vec::new()));
            struct Seen(Arc<Mutex<Vec<f64>>>);
            impl CongestionControl for Seen {
                fn name(&self) -> &'static str {
                    "seen"
                }
                fn on_ack(&mut self, _w: &mut Window, _ack: &Ack) {}
                fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
                    self.0.lock().unwrap().push(w.cwnd);
                    w.cwnd / 2.0
                }
            }
            let mut cfg = config(Recovery::NewReno, 10.0);
            cfg.rto_new_ssthresh = new_ssthresh;
            let mut s = Sender::new(cfg, Box::new(Seen(seen.clone())), 0, 0, None);
            let mut out = Vec::new();
            s.start(T0, &mut out);
            dupacks(&mut s, 9, &mut out);
            assert_eq!(s.cwnd(), 5.0 + 3.0 + 6.0, "inflated by the duplicates");
            s.on_timeout(Time::from_secs(1), &mut out);
            let seen = seen.lock().unwrap().clone();
            if new_ssthresh {
                assert_eq!(seen, vec![10.0, 14.0]);
                assert_eq!(s.ssthresh(), 7.0);
            } else {
                assert_eq!(seen, vec![10.0, 10.0]);
                assert_eq!(s.ssthresh(), 5.0);
            }
        }
    }

    /// When the RACK tests' senders start (a timestamp echo of 0 gives no RTT sample).
    const S0: Time = Time::from_millis(1);

    /// A RACK sender (RFC 8985) in congestion avoidance that has sent segments
    /// 0..window at S0; `limit` segments in all (None: unlimited).
    fn rack_sender(rack: bool, window: f64, limit: Option<u64>) -> Sender {
        let cc = build("reno", &Default::default(), Profile::Ns2).unwrap();
        let mut cfg = config(Recovery::Sack, window);
        cfg.rack = rack;
        cfg.prr = true;
        let mut s = Sender::new(cfg, cc, 0, 0, limit.map(|n| n * 1000));
        let mut out = Vec::new();
        s.start(S0, &mut out);
        s
    }

    /// An ACK of everything below `seq` at `now`, echoing S0.
    fn ack0(seq: u64, now: Time) -> Packet {
        sack_ack(seq, &[], now, S0)
    }

    /// An ACK up to `seq` with SACK blocks (absolute segments) echoing `ecr`.
    fn sack_ack(seq: u64, blocks: &[(u64, u64)], now: Time, ecr: Time) -> Packet {
        let mut p = ack(seq, now);
        p.ts_ecr = ecr;
        let off: Vec<(u32, u32)> = blocks
            .iter()
            .map(|&(a, b)| ((a - seq) as u32, (b - seq) as u32))
            .collect();
        p.set_sack(&off);
        p
    }

    /// RFC 8985 §6.2 (b): segment 7 of 0..10 lost, two duplicate ACKs (8 and 9 SACKed,
    /// fewer than DupThresh): RACK marks 7 lost once now ≥ xmit_ts + RACK.rtt + reo_wnd,
    /// reo_wnd = min_RTT/4 (no reordering seen, not in recovery, 2 < DupThresh SACKed),
    /// by the reordering timer at exactly that instant. Without RACK the two duplicates
    /// start nothing and only the RTO is pending.
    #[test]
    fn rack_marks_a_loss_with_two_dupacks_after_rtt_plus_reo_wnd() {
        for rack in [true, false] {
            let mut s = rack_sender(rack, 10.0, None);
            let mut out = Vec::new();
            s.on_ack(&ack0(7, S0 + ms(100)), S0 + ms(100), &mut out);
            let t1 = S0 + ms(100) + Time::from_micros(1);
            s.on_ack(&sack_ack(7, &[(8, 9)], t1, S0), t1, &mut out);
            let t2 = S0 + ms(100) + Time::from_micros(2);
            s.on_ack(&sack_ack(7, &[(8, 10)], t2, S0), t2, &mut out);
            assert_eq!(s.state(), CaState::Open);
            assert_eq!(s.stats.retransmits, 0);
            if !rack {
                assert_eq!(s.timer_deadline(), s.rto_deadline);
                continue;
            }
            // RACK.xmit_ts = S0 (segment 9), RACK.rtt = t2 − S0; segment 7 left at S0;
            // RACK.min_RTT 100 ms (segments 0..7).
            let r = s.rack.as_ref().unwrap();
            assert_eq!(r.rtt, t2 - S0);
            let min_rtt = r.min_rtt.unwrap();
            assert_eq!(min_rtt, ms(100));
            let due = S0 + r.rtt + Time(min_rtt.ps() / 4);
            assert_eq!(s.reo_at, Some(due));
            assert_eq!(s.timer_deadline(), Some(due));
            // One picosecond early: nothing.
            s.on_timer(Time(due.ps() - 1), &mut out);
            assert_eq!((s.state(), s.stats.retransmits), (CaState::Open, 0));
            out.clear();
            s.on_timer(due, &mut out);
            assert_eq!(s.state(), CaState::Recovery);
            assert_eq!(s.stats.fast_retransmits, 1);
            assert_eq!(retransmits(&out), vec![7]);
        }
    }

    /// RFC 8985 §6.2 (c): segment 7 reordered behind 8 and 9 by less than reo_wnd
    /// (min_RTT/4 = 25 ms) is not retransmitted, and RACK notes the reordering; the
    /// same segment later than reo_wnd is (the check can fail).
    #[test]
    fn rack_tolerates_reordering_within_reo_wnd() {
        for (delay_ms, spurious) in [(10, false), (30, true)] {
            let mut s = rack_sender(true, 10.0, None);
            let mut out = Vec::new();
            s.on_ack(&ack0(7, S0 + ms(100)), S0 + ms(100), &mut out);
            let t1 = S0 + ms(100) + Time::from_micros(1);
            s.on_ack(&sack_ack(7, &[(8, 10)], t1, S0), t1, &mut out);
            let late = S0 + ms(100 + delay_ms);
            if let Some(d) = s.timer_deadline().filter(|&d| d <= late) {
                s.on_timer(d, &mut out);
            }
            s.on_ack(&ack0(10, late), late, &mut out);
            assert_eq!(s.stats.retransmits > 0, spurious, "delay {delay_ms} ms");
            assert_eq!(s.stats.fast_retransmits > 0, spurious);
            if !spurious {
                assert_eq!(s.state(), CaState::Open);
                assert!(s.rack.as_ref().unwrap().reordering_seen);
                assert_eq!(s.reo_at, None);
            }
        }
    }

    /// RFC 8985 §6.2 step 5 on retransmissions: segment 0 lost, recovery resends it,
    /// and the resend is lost too. Once a segment sent after the resend is SACKed and
    /// RACK.rtt has passed since it (reo_wnd 0 in recovery), RACK deems the resend lost
    /// and segment 0 goes out a third time, without waiting for the RTO. Without RACK
    /// nothing resends it before the timer.
    ///
    /// And Linux's `tcp_xmit_retransmit_queue` re-arms the RTO when it resends the head
    /// of the queue: after the third transmission at t the RTO is due at t + RTO, not RTO
    /// after the first resend (which fired, in a 4-flow paced run, while the new resend
    /// was on its way, and the go-back-N that followed resent ~750 segments still in
    /// flight). Without RACK the deadline stays.
    #[test]
    fn rack_finds_a_lost_retransmission() {
        for rack in [true, false] {
            let mut s = rack_sender(rack, 10.0, None);
            let mut out = Vec::new();
            let base = S0 + ms(100);
            for k in 1..=9u64 {
                let t = base + Time::from_micros(k);
                s.on_ack(&sack_ack(0, &[(1, 1 + k)], t, S0), t, &mut out);
            }
            assert_eq!(s.state(), CaState::Recovery);
            assert_eq!(retransmits(&out), vec![0]);
            // PRR sent new segments 10.. after the resend (at base + 3 µs).
            let first_new = out.iter().find(|p| !p.retx).map(|p| p.seq).unwrap();
            assert_eq!(first_new, 10);
            let first_rto = s.rto_deadline.unwrap();
            let t = base + ms(100) + Time::from_micros(50);
            out.clear();
            s.on_ack(&sack_ack(0, &[(1, 11)], t, S0), t, &mut out);
            if rack {
                assert_eq!(retransmits(&out), vec![0], "the lost resend, resent");
                assert_eq!(s.stats.retransmits, 2);
                assert_eq!(s.rto_deadline, Some(t + s.rtt.rto()));
                assert!(s.rto_deadline.unwrap() > first_rto);
            } else {
                assert!(retransmits(&out).is_empty());
                assert_eq!(s.rto_deadline, Some(first_rto));
            }
            assert_eq!((s.state(), s.stats.timeouts), (CaState::Recovery, 0));
        }
    }

    /// Two recoveries back to back (Linux: TCPCB_SACKED_RETRANS, skipped by
    /// `tcp_xmit_retransmit_queue`). Segments 0 and 9 of 0..10 lost, then 10, sent in
    /// the first recovery. RACK finds 9 and 10 lost and both are resent; the ACK of 9's
    /// resend passes the recovery point (10) and ends the recovery while 10's resend is
    /// on its way. The next ACK's SACKs above 10 start a new recovery (a new loss
    /// episode for data sent during the last one), which must not resend 10 again: it
    /// stays in flight, as its retransmission, until RACK finds that lost. Resending
    /// it, as a HighRxt restarted at snd.una did, gave 1,046 spurious retransmissions
    /// in a 2-flow paced run (retransmits > losses with no timeout).
    #[test]
    fn a_recovery_right_after_another_does_not_resend_retransmissions_in_flight() {
        let mut s = rack_sender(true, 10.0, None);
        let mut out = Vec::new();
        let base = S0 + ms(100);
        for k in 1..=8u64 {
            let t = base + Time::from_micros(k);
            s.on_ack(&sack_ack(0, &[(1, 1 + k)], t, S0), t, &mut out);
        }
        assert_eq!(retransmits(&out), vec![0]);
        out.clear();
        // 0's resend arrived; 11 (sent after 10) SACKed: RACK deems 9 and 10 lost.
        let t2 = base + ms(100) + Time::from_micros(20);
        s.on_ack(&sack_ack(9, &[(11, 12)], t2, S0), t2, &mut out);
        assert_eq!(retransmits(&out), vec![9, 10]);
        // 9's resend arrives: snd.una = 10 = the recovery point, recovery ends.
        let t3 = t2 + ms(100);
        s.on_ack(&sack_ack(10, &[(11, 14)], t3, S0), t3, &mut out);
        assert_eq!(s.state(), CaState::Open);
        out.clear();
        let t4 = t3 + Time::from_micros(1);
        s.on_ack(&sack_ack(10, &[(11, 15)], t4, S0), t4, &mut out);
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(s.stats.fast_retransmits, 2);
        assert!(
            retransmits(&out).is_empty(),
            "resent {:?}",
            retransmits(&out)
        );
        // 10's retransmission is in flight: RFC 6675 pipe counts it.
        s.sb.compute_lost_end(s.snd_una, 3);
        let sacked = s.sb.sacked(s.snd_una, s.high_tx);
        assert_eq!(
            s.sb.pipe(s.snd_una, s.high_tx),
            s.high_tx - s.snd_una - sacked
        );
        // When RACK finds that retransmission lost, it is resent (RFC 8985 §6.2).
        out.clear();
        let t5 = t2 + ms(100) + Time::from_micros(100);
        let mut late = sack_ack(10, &[(11, 16)], t5, S0);
        late.ts_val = t5;
        s.on_ack(&late, t5, &mut out);
        assert_eq!(retransmits(&out), vec![10]);
    }

    /// A resend lost in turn (Linux's RACK marks a segment lost each time it is resent):
    /// segment 0 lost three times. RACK finds the first resend lost (as above) and, once
    /// that second resend has gone out and segments sent after it are SACKed RACK.rtt
    /// later, the second resend too: 0 leaves a fourth time with no timeout. Before the
    /// walk over the recovery's retransmissions restarted, the second loss waited for
    /// the RTO (40 RTOs in 20 s of 4 BBR flows at 1 BDP, docs/tcp.md).
    #[test]
    fn rack_finds_a_retransmission_lost_twice() {
        let mut s = rack_sender(true, 10.0, None);
        let mut out = Vec::new();
        let base = S0 + ms(100);
        for k in 1..=9u64 {
            let t = base + Time::from_micros(k);
            s.on_ack(&sack_ack(0, &[(1, 1 + k)], t, S0), t, &mut out);
        }
        assert_eq!(retransmits(&out), vec![0]);
        // RACK finds the first resend lost: the third transmission leaves at t.
        let t = base + ms(100) + Time::from_micros(50);
        out.clear();
        s.on_ack(&sack_ack(0, &[(1, 11)], t, S0), t, &mut out);
        assert_eq!(retransmits(&out), vec![0]);
        let after: Vec<u64> = out.iter().filter(|p| !p.retx).map(|p| p.seq).collect();
        assert!(!after.is_empty(), "new data follows the third transmission");
        // Segments sent with it are SACKed one RTT later; 0 is not.
        let t2 = t + ms(100) + Time::from_micros(10);
        let top = *after.last().unwrap() + 1;
        out.clear();
        let mut late = sack_ack(0, &[(1, top)], t2, S0);
        late.ts_val = t2;
        s.on_ack(&late, t2, &mut out);
        assert_eq!(retransmits(&out), vec![0], "the resend lost twice, resent");
        assert_eq!(s.stats.retransmits, 3);
        assert_eq!((s.state(), s.stats.timeouts), (CaState::Recovery, 0));
    }

    /// Losses reach a `cong_control` algorithm when they are marked, as Linux's
    /// `tp->lost` grows in `tcp_mark_skb_lost` and `tcp_rate_gen` reports the growth
    /// during the ACK (`rs->losses`), not one by one as they are resent: segments 0, 1
    /// and 2 of 0..10 lost, 3.. SACKed one per ACK. The ACK that brings the third SACKed
    /// segment marks all three lost (DupThresh above each): its sample says 3 and the
    /// others 0, though the three are resent over two ACKs. A timeout marks every
    /// un-SACKed segment lost (`tp->lost` grows by them) but no ACK's sample reports
    /// them (`tcp_ack` counts only its own marks).
    #[test]
    fn losses_reach_the_algorithm_when_marked() {
        use crate::tcp::recorder::{Heard, Recorder};
        let heard = Heard::default();
        let mut cfg = config(Recovery::Sack, 10.0);
        cfg.rto_keeps_sack = true;
        let mut s = Sender::new(cfg, Box::new(Recorder(heard.clone())), 0, 0, None);
        let mut out = Vec::new();
        s.start(T0, &mut out);
        assert_eq!(out.len(), 10);
        out.clear();
        for k in 1..=5u64 {
            let t = ms(100) + Time::from_micros(k);
            s.on_ack(&sack_ack(0, &[(3, 3 + k)], t, T0), t, &mut out);
        }
        assert_eq!(s.state(), CaState::Recovery);
        let resent = retransmits(&out);
        assert_eq!(resent, vec![0, 1, 2]);
        let losses: Vec<u64> = heard.lock().unwrap().iter().map(|h| h.1.losses).collect();
        assert_eq!(losses, [0, 0, 3, 0, 0]);
        // The timeout: 0, 1 and 2 were resent (in flight, marked again), 8 and 9 and
        // what was sent since are un-SACKed and unmarked: all lost.
        let unsacked = s.high_tx - s.snd_una - s.sb.sacked(s.snd_una, s.high_tx);
        let total_before = heard.lock().unwrap().last().unwrap().1.lost_total;
        let rto = s.rto_deadline.unwrap();
        s.on_timeout(rto, &mut out);
        let t = rto + ms(100);
        s.on_ack(&sack_ack(0, &[(3, 8)], t, T0), t, &mut out);
        let rs = heard.lock().unwrap().last().unwrap().1;
        let (losses, total) = (rs.losses, rs.lost_total);
        assert_eq!(losses, 0, "a timeout's marks are in no ACK's sample");
        assert_eq!(total, total_before + unsacked);
    }

    /// RFC 8985 §7 (a): the last two of ten segments lost, RTT 20 ms. No ACK follows the
    /// one for 0..8, so no duplicate ACK can ever start a recovery; the PTO fires at
    /// 2·SRTT after that ACK (two segments out: no delayed-ACK allowance), well before
    /// the RTO (200 ms minimum), and probes with the highest segment (no new data).
    /// Its SACK lets RACK mark segment 8 lost at once (sent long before the probe):
    /// segment 8 is resent at last ACK + PTO + RTT, not at last ACK + RTO.
    #[test]
    fn tlp_recovers_a_tail_loss_in_two_srtt_not_an_rto() {
        for rack in [true, false] {
            let mut s = rack_sender(rack, 10.0, Some(10));
            let mut out = Vec::new();
            let rtt = ms(20);
            for k in 1..=8u64 {
                let t = S0 + rtt + Time::from_micros(k);
                s.on_ack(&ack0(k, t), t, &mut out);
            }
            let last = S0 + rtt + Time::from_micros(8);
            let srtt = s.rtt.srtt_time();
            let rto_at = last + s.rtt.rto();
            assert_eq!(s.rtt.rto(), ms(200), "the minimum RTO");
            if !rack {
                assert_eq!(s.timer_deadline(), Some(rto_at));
                continue;
            }
            // §7.2: PTO = 2·SRTT with two segments in flight.
            let pto = last + Time(2 * srtt.ps());
            assert_eq!(s.timer_deadline(), Some(pto));
            out.clear();
            s.on_timer(pto, &mut out);
            assert_eq!(s.stats.loss_probes, 1);
            assert_eq!(retransmits(&out), vec![9], "the highest segment");
            // §7.3: the RTO is armed after the probe, and no second probe follows.
            assert_eq!(s.rto_deadline, Some(pto + s.rtt.rto()));
            assert_eq!(s.tlp_at, None);
            // The probe's SACK, one RTT later (an RTT at least min_RTT, else §6.2 step 2
            // would take the ACK for the original's), echoing the last in-order
            // segment's timestamp (RFC 7323 §4.3): RACK marks 8 lost, recovery resends it.
            let t = pto + rtt + Time::from_micros(10);
            out.clear();
            s.on_ack(&sack_ack(8, &[(9, 10)], t, S0), t, &mut out);
            assert_eq!(s.state(), CaState::Recovery);
            assert_eq!(retransmits(&out), vec![8]);
            assert_eq!(s.stats.timeouts, 0);
            assert!(t < rto_at, "{t} vs RTO at {rto_at}");
            let t = t + rtt;
            s.on_ack(&ack0(10, t), t, &mut out);
            assert!(s.done());
            assert_eq!(s.state(), CaState::Open);
            assert_eq!(s.timer_deadline(), None);
        }
    }

    /// §7.3: new data goes out as the probe when there is some, whatever cwnd says;
    /// §7.2: one segment in flight adds the 200 ms worst-case delayed ACK to the PTO,
    /// which the RTO caps.
    #[test]
    fn tlp_probes_with_new_data_and_waits_for_a_delayed_ack_of_one_segment() {
        let mut s = rack_sender(true, 2.0, None);
        let mut out = Vec::new();
        let t = S0 + ms(20);
        s.on_ack(&ack0(1, t), t, &mut out);
        assert_eq!(s.in_flight(), 2);
        let srtt = s.rtt.srtt_time();
        assert_eq!(s.tlp_at, Some(t + Time(2 * srtt.ps())));
        out.clear();
        s.on_timer(s.tlp_at.unwrap(), &mut out);
        let sent: Vec<_> = out.iter().map(|p| (p.seq, p.retx)).collect();
        assert_eq!(sent, vec![(3, false)], "one new segment beyond cwnd");
        assert_eq!(s.tlp_end, Some(4));
        for (min_rto, capped) in [(Time::from_secs(1), false), (ms(200), true)] {
            let cc = build("reno", &Default::default(), Profile::Ns2).unwrap();
            let mut cfg = config(Recovery::Sack, 2.0);
            cfg.rack = true;
            cfg.min_rto = min_rto;
            let mut s = Sender::new(cfg, cc, 0, 0, Some(2000));
            s.start(S0, &mut out);
            s.on_ack(&ack0(1, t), t, &mut out);
            assert_eq!(s.in_flight(), 1);
            let srtt = s.rtt.srtt_time();
            let pto = Time(2 * srtt.ps()) + ms(200);
            let want = if capped {
                s.rto_deadline.unwrap()
            } else {
                t + pto
            };
            assert_eq!(s.tlp_at, Some(want), "min_rto {min_rto}");
        }
    }

    /// What the algorithm hears: no `on_ack` during fast recovery, rounds that close
    /// there say so, and the congestion kinds.
    #[derive(Default)]
    struct Heard {
        acks: usize,
        rounds: Vec<CaState>,
        signals: Vec<CongestionKind>,
    }

    struct Spy(Arc<Mutex<Heard>>);

    impl CongestionControl for Spy {
        fn name(&self) -> &'static str {
            "spy"
        }
        fn on_ack(&mut self, _w: &mut Window, _ack: &Ack) {
            self.0.lock().unwrap().acks += 1;
        }
        fn on_round(&mut self, _w: &mut Window, r: &Round) {
            self.0.lock().unwrap().rounds.push(r.ca_state);
        }
        fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
            self.0.lock().unwrap().signals.push(ev.kind);
            w.cwnd / 2.0
        }
    }

    /// Counts the ACKs it hears and records the count at which each round closed
    /// (`on_round` follows the closing ACK's `on_ack`).
    struct RoundSpy {
        closed_at: Arc<Mutex<Vec<u64>>>,
        cover: Option<bool>,
        acks: u64,
    }

    impl CongestionControl for RoundSpy {
        fn name(&self) -> &'static str {
            "round-spy"
        }
        fn on_ack(&mut self, _w: &mut Window, _ack: &Ack) {
            self.acks += 1;
        }
        fn on_round(&mut self, _w: &mut Window, _r: &Round) {
            self.closed_at.lock().unwrap().push(self.acks);
        }
        fn rounds_cover(&self) -> Option<bool> {
            self.cover
        }
        fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
            w.cwnd / 2.0
        }
    }

    /// The algorithm's own round rule overrides the profile's: under the linux profile
    /// (rounds close at the ACK that covers the first segment sent after the round
    /// began) DCTCP and Prague close theirs at the ACK that reaches it, one ACK earlier
    /// (Linux `!before(snd_una, next_seq)`).
    #[test]
    fn an_algorithm_that_ends_its_rounds_on_reaching_next_seq_closes_them_an_ack_earlier() {
        let closes = |cover: Option<bool>| {
            let closed_at = Arc::new(Mutex::new(Vec::new()));
            let mut cfg = config(Recovery::Sack, 10.0);
            cfg.linux_rounds = true;
            let spy = RoundSpy {
                closed_at: closed_at.clone(),
                cover,
                acks: 0,
            };
            let mut s = Sender::new(cfg, Box::new(spy), 0, 0, None);
            let mut out = Vec::new();
            s.start(T0, &mut out);
            for k in 1..=40u64 {
                s.on_ack(&ack(k, ms(10 * k)), ms(10 * k), &mut out);
            }
            let v = closed_at.lock().unwrap().clone();
            v
        };
        let covers = closes(None);
        let reaches = closes(Some(false));
        // Round 0 closes at the first ACK under both rules. A round that closes at ACK
        // k ends at snd_nxt as this ACK found it, 9 segments ahead (the window is 10,
        // refilled one segment per ACK): the next closes at ACK k + 9 on reaching it,
        // at k + 10 on covering it.
        assert_eq!(&reaches[..4], &[1, 10, 19, 28], "{reaches:?}");
        assert_eq!(&covers[..4], &[1, 11, 21, 31], "{covers:?}");
    }

    #[test]
    fn the_algorithm_hears_rounds_with_the_sender_state_and_no_acks_in_recovery() {
        let heard = Arc::new(Mutex::new(Heard::default()));
        let mut s = Sender::new(
            config(Recovery::NewReno, 10.0),
            Box::new(Spy(heard.clone())),
            0,
            0,
            None,
        );
        let mut out = Vec::new();
        s.start(T0, &mut out);
        dupacks(&mut s, 3, &mut out);
        // Partial ACKs in recovery: rounds close (the first ACK closes round 0), but
        // no on_ack.
        s.on_ack(&ack(3, ms(200)), ms(200), &mut out);
        s.on_ack(&ack(10, ms(300)), ms(300), &mut out);
        s.on_ack(&ack(11, ms(400)), ms(400), &mut out);
        let h = heard.lock().unwrap();
        assert_eq!(h.signals, vec![CongestionKind::FastRetransmit]);
        assert_eq!(h.acks, 1, "only the ACK after recovery");
        assert_eq!(h.rounds[0], CaState::Recovery);
        assert_eq!(*h.rounds.last().unwrap(), CaState::Open);
    }
}
