//! The congestion-control contract: what an algorithm sees (the events `Ack`,
//! `Round`, `Congestion`), what it may change (`Window`), and the two forms it is
//! written in (`CongestionControl`, the per-ACK form of the packet engine; `FluidLaw`,
//! the rate form of the fluid engine), with `Algorithm` tying them to the registry.
//! See the module doc of `cc` for who owns what.

use super::params::Params;
use crate::units::Time;

// ---- What an algorithm may change ---------------------------------------------------

/// The only sender state an algorithm may change.
///
/// Units are segments of the flow's MSS, as in ns-2's `cwnd_` and in every formula the
/// studies quote (RFC 3649's w, RFC 9438's W, Vegas's α/β packets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Congestion window, in segments.
    pub cwnd: f64,
    /// Slow-start threshold, in segments.
    pub ssthresh: f64,
    /// A pacing rate the algorithm asks for, in payload bytes per second (Linux
    /// `sk_pacing_rate`); `None` leaves pacing to the flow's pacer (tcp/pacer.rs).
    /// BBR sets it on every ACK.
    pub pacing_rate: Option<f64>,
    /// Set by an algorithm to mark the current flight app-limited in the delivery-rate
    /// estimator (BBR's PROBE_RTT writes Linux's `tp->app_limited`); the sender
    /// applies and clears it after the call.
    pub app_limited: bool,
}

/// RFC 3465 §2.2 byte-counting limit L: slow start grows by at most 2 segments per ACK.
pub const ABC_LIMIT: f64 = 2.0;

impl Window {
    pub fn new(cwnd: f64, ssthresh: f64) -> Self {
        Window {
            cwnd,
            ssthresh,
            pacing_rate: None,
            app_limited: false,
        }
    }

    /// RFC 5681 §3.1: slow start while cwnd < ssthresh.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start (RFC 5681 §3.1) with appropriate byte counting (RFC 3465, L = 2
    /// segments): grow by min(acked, L), but not past ssthresh. Returns what is left for
    /// congestion avoidance: all of `acked` outside slow start, else the part of
    /// min(acked, L) above ssthresh (data beyond L does not count, as RFC 3465 §2.2).
    /// Linux's `tcp_slow_start` has the same contract.
    pub fn slow_start(&mut self, acked: f64) -> f64 {
        if !self.in_slow_start() {
            return acked;
        }
        let inc = acked.min(ABC_LIMIT);
        let room = (self.ssthresh - self.cwnd).max(0.0);
        if inc <= room {
            self.cwnd += inc;
            0.0
        } else {
            self.cwnd += room;
            inc - room
        }
    }

    /// Additive increase of `a` segments per window of acknowledged data:
    /// cwnd += a·acked/cwnd (RFC 5681 eq. (3) with a = 1, per acknowledged segment).
    pub fn additive_increase(&mut self, a: f64, acked: f64) {
        self.cwnd += a * acked / self.cwnd;
    }
}

/// Linux `tcp_cong_avoid_ai(tp, w, acked)` (net/ipv4/tcp_cong.c) on `snd_cwnd_cnt`, kept by
/// the law apart from cwnd: "if credits accumulated at a higher w, apply them gently now"
/// (+1, the count cleared), then one segment per `w` segments acknowledged. Returns the
/// whole-segment window that `cwnd` (whole segments) becomes.
pub fn cong_avoid_ai(snd_cwnd_cnt: &mut f64, cwnd: f64, w: f64, acked: f64) -> f64 {
    let mut whole = cwnd;
    if *snd_cwnd_cnt >= w {
        *snd_cwnd_cnt = 0.0;
        whole += 1.0;
    }
    *snd_cwnd_cnt += acked;
    if *snd_cwnd_cnt >= w {
        let d = (*snd_cwnd_cnt / w).floor();
        *snd_cwnd_cnt -= d * w;
        whole += d;
    }
    whole
}

// ---- What an algorithm sees ------------------------------------------------------

/// RTT estimates the sender keeps once for every algorithm.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RttStats {
    /// The sample this ACK produced, if it carried a valid one (timestamp echo, RFC 7323
    /// §4.3, or Karn's timed segment).
    pub latest: Option<Time>,
    /// RFC 6298 SRTT (zero before the first sample).
    pub srtt: Time,
    /// Lifetime minimum of the samples (zero before the first): the "base RTT" of
    /// Vegas, FAST, Compound and Illinois.
    pub min: Time,
}

/// Where the sender stands in loss recovery: Linux's `tcp_ca_state`, reduced to the
/// states this sender has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaState {
    /// Nothing to recover: the algorithm's `on_ack` drives cwnd.
    #[default]
    Open,
    /// Fast recovery (RFC 5681 §3.2, RFC 6582, RFC 6675 §5) until the recovery point is
    /// acknowledged: the sender owns cwnd and does not call `on_ack`.
    Recovery,
    /// After a retransmission timeout, until snd_una passes the recovery point set then
    /// (RFC 6582 §4, RFC 6675 §5.1): slow start from the loss window; duplicate ACKs
    /// start no fast retransmit. `on_ack` is called as in Open.
    Loss,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation; Linux
/// `rate_sample`, filled by tcp/delivery.rs), with the connection's counters that
/// BBR reads next to it. Only algorithms with `cong_control` get one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Segments delivered over the interval (Linux `rs->delivered`).
    pub delivered: u64,
    /// The interval the sample spans: max(send phase, ACK phase); zero when this ACK
    /// gives no valid sample (no timing, or shorter than the minimum RTT).
    pub interval: Time,
    /// Whether the application (not the network) limited sending over the interval.
    pub app_limited: bool,
    /// The connection's delivered count when the sampled segment was sent (Linux
    /// `rs->prior_delivered`): BBR's round trips count by it.
    pub prior_delivered: u64,
    /// Segments delivered so far (Linux `tp->delivered`).
    pub delivered_total: u64,
    /// When the delivered count last moved (Linux `tp->delivered_mstamp`).
    pub delivered_time: Time,
    /// Segments newly ACKed or SACKed by this ACK (Linux `rs->acked_sacked`).
    pub acked_sacked: u64,
    /// Segments newly deemed lost (retransmitted) since the previous ACK (Linux
    /// `rs->losses`), and in all (`tp->lost`).
    pub losses: u64,
    pub lost_total: u64,
    /// Segments in flight before this ACK (Linux `rs->prior_in_flight`).
    pub prior_in_flight: u64,
    /// The sampled segment was a retransmission.
    pub retx: bool,
    /// Segments deemed lost between the sampled segment's send and this ACK
    /// (draft-ietf-ccwg-bbr §2.2 `RS.lost` = C.lost − P.lost; zero without a
    /// snapshot). BBRv3's loss rate over the sample's round trip is
    /// `lost / tx_in_flight`.
    pub lost: u64,
    /// Segments in flight just after the sampled segment was sent, itself included
    /// (§2.2 `RS.tx_in_flight`; sent and not SACKed, tcp/delivery.rs).
    pub tx_in_flight: u64,
    /// Of the segments deemed lost since the previous ACK, the one whose send saw the
    /// highest loss rate since (draft-ietf-ccwg-bbr §5.5.10.2 `BBRHandleLostPacket`'s
    /// view of a lost packet); `None` without a loss.
    pub lost_packet: Option<LostPacket>,
}

/// What a lost segment remembers of its send (draft-ietf-ccwg-bbr §5.5.10.2).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LostPacket {
    /// `P.tx_in_flight`: the flight just after it was sent, itself included.
    pub tx_in_flight: u64,
    /// `C.lost − P.lost`: segments deemed lost since it was sent, itself included.
    pub lost: u64,
    /// `P.is_app_limited`.
    pub app_limited: bool,
}

impl LostPacket {
    /// The loss rate its flight saw: lost / tx_in_flight.
    pub fn loss_rate(&self) -> f64 {
        self.lost as f64 / (self.tx_in_flight.max(1)) as f64
    }
}

impl RateSample {
    /// The delivery rate in segments per second, if the sample is valid.
    pub fn rate(&self) -> Option<f64> {
        (self.interval > Time::ZERO).then(|| self.delivered as f64 / self.interval.as_secs_f64())
    }
}

/// An ACK that newly acknowledged data while the sender was not in recovery (state
/// Open or Loss).
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct Ack {
    pub now: Time,
    /// Newly acknowledged data, in segments: the cumulative ACK's advance, or with
    /// `tcp.grow_by_delivered` (linux profile) what the ACK newly delivers, not SACKed
    /// before or newly SACKed (Linux's `acked_sacked`).
    pub acked: f64,
    /// Data in flight after this ACK, in segments.
    pub in_flight: f64,
    pub rtt: RttStats,
    /// Whether the window, not the pacer, the receive window or the end of the data,
    /// limited sending in the current window (RFC 7661; Linux `tcp_is_cwnd_limited`).
    /// The sender enforces `tcp.cwnd_validation` itself; a law may also read it.
    pub cwnd_limited: bool,
    /// `tcp.cwnd_validation`: the sender keeps the window of an ACK that was not
    /// cwnd-limited. A law that counts toward its next segment apart from cwnd must then
    /// leave that count too, as Linux's `cong_avoid` hooks return before touching it.
    pub cwnd_validation: bool,
    /// The sender paces its data (Linux: `sk_pacing_status` is not SK_PACING_NONE).
    pub paced: bool,
    /// Delivery-rate sample, for algorithms with `cong_control` (else `None`).
    pub rate: Option<RateSample>,
    /// The sender's loss-recovery state (algorithms with `cong_control` see every
    /// ACK, in recovery too).
    pub ca_state: CaState,
    /// The segment size counts are in, in bytes (to set a pacing rate in bytes/s).
    pub mss: u32,
    /// XCP: the feedback this ACK echoes (H_feedback summed over the data packets it
    /// acknowledges), in segments; +∞ if no XCP router lowered it; `None` when the
    /// ACK carries no XCP header (non-XCP flows).
    pub xcp_feedback: Option<f64>,
    /// The ACK carried ECN-Echo. With a per-packet echo (`EcnStyle::Dctcp`/`L4s`,
    /// RFC 8257 §3.2) every segment it newly acknowledges arrived CE-marked.
    pub ece: bool,
}

impl Ack {
    pub fn new(now: Time, acked: f64) -> Self {
        Ack {
            now,
            acked,
            ..Ack::default()
        }
    }
}

/// Why the sender is reducing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CongestionKind {
    /// Duplicate ACKs or RFC 6675 loss detection: fast retransmit.
    #[default]
    FastRetransmit,
    /// The retransmission timer expired (RFC 6298).
    Timeout,
    /// An ACK with ECE (RFC 3168 §6.1.2), at most once per window.
    Ecn,
}

/// A congestion signal.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct Congestion {
    pub now: Time,
    pub kind: CongestionKind,
    /// FlightSize (RFC 5681): data outstanding when the signal arrived, in segments.
    pub in_flight: f64,
    pub rtt: RttStats,
}

impl Congestion {
    pub fn new(now: Time, kind: CongestionKind, in_flight: f64) -> Self {
        Congestion {
            now,
            kind,
            in_flight,
            ..Congestion::default()
        }
    }
}

/// One round trip, closed by the first ACK that covers the data sent when the
/// previous round closed (tcp/round.rs). Linux keeps this per algorithm (Vegas
/// `beg_snd_nxt`, Illinois `end_seq`); here the sender keeps it once.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct Round {
    pub now: Time,
    /// Rounds closed before this one.
    pub index: u64,
    /// RTT samples taken during the round (in any sender state), their minimum and
    /// their mean (`None` without a sample).
    pub samples: u32,
    pub min_rtt: Option<Time>,
    pub mean_rtt: Option<Time>,
    pub rtt: RttStats,
    /// Segments acknowledged during the round.
    pub delivered: f64,
    /// The sender's state when the round closed. Rounds also close on partial ACKs
    /// inside fast recovery, where the sender owns cwnd: once-per-RTT laws skip those.
    pub ca_state: CaState,
}

impl Round {
    pub fn new(now: Time) -> Self {
        Round {
            now,
            ..Round::default()
        }
    }

    /// Whether the round closed inside fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.ca_state == CaState::Recovery
    }
}

/// How a flow uses ECN: asked of the algorithm once, when the flow is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnStyle {
    /// RFC 3168, where `tcp.ecn` turns it on: ECT(0); the receiver echoes ECE from a
    /// CE until the sender's CWR (§6.1.3); the sender reduces once per window.
    #[default]
    Classic,
    /// DCTCP (RFC 8257): always ECT(0) (§3.1); the receiver echoes the CE of every
    /// segment, sending an ACK at once when the CE state changes (§3.2).
    Dctcp,
    /// An L4S scalable sender (RFC 9331 §4.1, Prague): ECT(1), the same per-packet
    /// echo as DCTCP (in place of AccECN, which ccsim does not model), and paced.
    L4s,
}

// ---- The per-ACK form (packet engine) --------------------------------------------

/// A congestion-control algorithm as the packet engine runs it: laws only. Loss
/// recovery, the RTO, the ECN once-per-window filter and the cwnd reduction, pacing,
/// round tracking and cwnd-limited gating belong to the sender, so every algorithm runs
/// with any recovery, paced or not.
pub trait CongestionControl: Send {
    /// The name scenarios use: "cubic", "highspeed", "illinois".
    fn name(&self) -> &'static str;

    /// The window law, for every ACK that newly acknowledges data outside fast
    /// recovery. It may shrink the window too. Linux `cong_avoid`.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);

    /// Once per round trip, just after `on_ack` for the ACK that closed the round.
    /// Delay-based laws (Vegas, FAST, Compound, Illinois) decide here.
    fn on_round(&mut self, _w: &mut Window, _round: &Round) {}

    /// Where this algorithm's own code ends its rounds, where that differs from the
    /// profile's rule (`RoundTracker::new`): `Some(true)` at the ACK that covers the
    /// first segment sent after the round began (Linux's `after(snd_una, end_seq)`),
    /// `Some(false)` at the ACK that reaches it (`!before(snd_una, next_seq)`, ns-3's
    /// `>=`). `None`: the profile's (linux: covers; ns2, ns3: reaches).
    fn rounds_cover(&self) -> Option<bool> {
        None
    }

    /// A congestion signal; the sender calls it at most once per window of data.
    /// Returns the new ssthresh in segments (the sender keeps it ≥ 2, RFC 5681 eq. (4));
    /// the sender then sets cwnd by its policy (NewReno fast retransmit: ssthresh +
    /// DupThresh; SACK: ssthresh; timeout: 1; ECN: ssthresh). `w` is read-only on
    /// purpose: the algorithm updates its own memory here (CUBIC's W_max and epoch,
    /// Compound's dwnd), never cwnd. Linux `ssthresh`.
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64;

    /// Fast recovery ended; the sender has set cwnd = ssthresh (RFC 6582 §3.2 step 3).
    fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {}

    /// Whether the sender should stamp the XCP congestion header on data packets.
    fn xcp(&self) -> bool {
        false
    }

    /// How the flow uses ECN (asked once, when the flow is built).
    fn ecn(&self) -> EcnStyle {
        EcnStyle::Classic
    }
    /// Linux's `cong_control` (BBR): the algorithm takes over cwnd and the pacing
    /// rate. The sender then keeps a delivery-rate estimator (tcp/delivery.rs), calls
    /// `on_ack` on every ACK in every state (duplicates and recovery included) with
    /// `Ack::rate` set, and leaves cwnd alone when recovery starts or ends, on
    /// partial and duplicate ACKs and on ECN-Echo (Linux `tcp_cong_control`,
    /// `tcp_end_cwnd_reduction`); a timeout still sets cwnd to the loss window.
    /// Asked once, when the sender is built: the others pay nothing.
    fn cong_control(&self) -> bool {
        false
    }

    /// The flow's random stream seed (derived from the run's seed), given once
    /// before the flow starts. BBR draws its ProbeBW start phase from it.
    fn seed(&mut self, _seed: u64) {}
}

// ---- The rate form (fluid engine) -------------------------------------------------

/// A window law as the fluid engine integrates it, per flow (study 004 eq. 1–2:
/// dW/dt = a(·)/R in congestion avoidance, W ← (1 − b(·))·W on a loss indication).
/// Units: window in segments, times in seconds. The engine calls `observe_rtt` and
/// then `grow` (or its own slow start) once per flow per integration step, so these
/// stay cheap and allocation-free.
pub trait FluidLaw {
    /// The flow starts at time `t` with propagation RTT `rtt`: forget all history.
    fn start(&mut self, t: f64, rtt: f64);

    /// Congestion avoidance over one step of `dt` seconds at time `t`, with the
    /// flow's current RTT `rtt` (propagation plus queueing): the new window.
    fn grow(&mut self, w: f64, t: f64, rtt: f64, dt: f64) -> f64;

    /// A loss indication at time `t` with window `w`: the law's reduced window. (The
    /// engine, through [`AnyFluidLaw`], keeps it ≥ 2 and ≤ w, as the packet sender
    /// floors ssthresh.)
    fn on_loss(&mut self, w: f64, t: f64) -> f64;

    /// The engine's slow start reached ssthresh at time `t` with window `w`.
    fn on_exit_slow_start(&mut self, _w: f64, _t: f64) {}

    /// The flow's current RTT, every step before `grow` (minimum and maximum filters).
    fn observe_rtt(&mut self, _rtt: f64) {}
}

/// The fluid form of an algorithm that has none (XCP: its window is set by routers).
/// Uninhabited: no value of it exists, so `AnyFluidLaw` never holds one.
#[derive(Clone, Copy, Debug)]
pub enum NoFluid {}

impl FluidLaw for NoFluid {
    fn start(&mut self, _t: f64, _rtt: f64) {
        match *self {}
    }
    fn grow(&mut self, _w: f64, _t: f64, _rtt: f64, _dt: f64) -> f64 {
        match *self {}
    }
    fn on_loss(&mut self, _w: f64, _t: f64) -> f64 {
        match *self {}
    }
}

// ---- Registry ----------------------------------------------------------------------

/// One algorithm: its names, its configuration and both of its forms.
pub trait Algorithm {
    /// The names a scenario may give, the canonical one first ("highspeed", "hstcp").
    const NAMES: &'static [&'static str];
    /// Parameters, documented and range-checked by `config`.
    type Config;
    /// The rate form, [`NoFluid`] when the algorithm has none.
    type Fluid: FluidLaw;
    /// Read the parameters of `cc = { name = ..., ... }` (each with its default and
    /// range); the registry rejects the keys this did not ask for.
    fn config(p: &mut Params) -> Result<Self::Config, String>;
    /// The per-ACK form, for the packet engine.
    fn packet(cfg: &Self::Config) -> Box<dyn CongestionControl>;
    /// The rate form, for the fluid engine (to be `start`ed); `None` without one.
    fn fluid(_cfg: &Self::Config) -> Option<Self::Fluid> {
        None
    }
}
