//! BBR version 3, from the pseudocode of draft-ietf-ccwg-bbr-04 (section numbers
//! next to each piece), with Linux's BBRv3 `tcp_bbr.c` (google/bbr, branch v3)
//! where the draft's pseudocode leaves a gap (each such place says so).
//!
//! ```text
//!   Startup ──full bw (3 rounds < +25 %) or high loss──▶ Drain ──inflight ≤ BDP──▶ DOWN
//!                                                                                   │
//!   ┌── UP (1.25) ◀── REFILL (1.0, one round) ◀── CRUISE (1.0) ◀── headroom, ≤ BDP ─┘
//!   └──▶ DOWN (0.9) ── full bw in UP or loss > 2 % ──▶ ...
//!   any state ── min RTT of 5 s expired ──▶ ProbeRTT (cwnd ½·BDP, 200 ms + a round)
//! ```
//!
//! Against BBRv1 (cc/bbr.rs), v3 reacts to loss: a round with more than
//! LossThresh = 2 % of its flight lost while probing caps the long-term model
//! (`inflight_longterm`, Linux `inflight_hi`) at that flight (§5.5.10.2), and every
//! round with loss outside probing cuts the short-term model (`bw_shortterm`,
//! `inflight_shortterm`, Linux `bw_lo`/`inflight_lo`) by Beta = 0.7 (§5.5.10.3).
//! Units are segments and segments per second (§2 allows packets).
//!
//! Not modelled: the ECN response (§3.7 specifies none; CE marks reach BBRv3
//! only as the sender's once-per-window signal, which it ignores, as v1);
//! restart from idle (§5.4: the sender has no idle hook and bulk flows never
//! idle); undo. Losses reach it per ACK (segments counted lost when resent): of
//! those since the previous ACK, the lost segment whose flight saw the highest loss
//! rate goes through §5.5.10.2's per-packet check and `BBRInflightAtLoss` (the draft
//! takes each in turn; the first one over the threshold and the highest-rate one
//! agree on whether to cut), and Linux's per-ACK check with the ACKed segment's
//! `RS.lost`/`RS.tx_in_flight` (`bbr_adapt_upper_bounds`) runs as well.

use super::bbr::MaxFilter;
use super::contract::{
    Ack, Algorithm, CaState, Congestion, CongestionControl, CongestionKind, LostPacket, NoFluid,
    RateSample, Window,
};
use super::params::Params;
use crate::random::Rng;
use crate::units::Time;
use rand::{Rng as _, SeedableRng};

/// §2.4 BBR.StartupPacingGain: 4·ln 2 ≈ 2.77, the smallest gain that doubles the
/// sending rate each round.
pub const STARTUP_PACING_GAIN: f64 = 2.77;
/// §2.4 / §5.3.2 BBR.DrainPacingGain (the text's 0.35; §5.6.1's table says 0.5).
pub const DRAIN_PACING_GAIN: f64 = 0.35;
/// §2.5 BBR.DefaultCwndGain.
pub const DEFAULT_CWND_GAIN: f64 = 2.0;
/// §5.3.3.1–4: the ProbeBW pacing gains, and UP's cwnd gain.
pub const DOWN_PACING_GAIN: f64 = 0.9;
pub const CRUISE_PACING_GAIN: f64 = 1.0;
pub const REFILL_PACING_GAIN: f64 = 1.0;
pub const UP_PACING_GAIN: f64 = 1.25;
pub const UP_CWND_GAIN: f64 = 2.25;
/// §2.13.2 BBR.ProbeRTTCwndGain.
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// §2.7 BBR.MinPipeCwnd, segments.
pub const MIN_PIPE_CWND: f64 = 4.0;
/// §2.4 BBR.PacingMarginPercent.
const PACING_MARGIN: f64 = 0.01;
/// §5.3.1.2: three rounds without 25 % growth fill the pipe.
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
/// §5.3.1.3 BBRStartupFullLossCnt.
const STARTUP_FULL_LOSS_CNT: u32 = 6;
/// §2.11 BBR.ExtraAckedFilterLen, rounds.
const EXTRA_ACKED_FILTER_LEN: u64 = 10;
/// §5.3.3.6 BBRRaiseInflightLongtermSlope: the growth exponent's cap.
const MAX_PROBE_UP_ROUNDS: u32 = 30;
/// §5.6.3: the send quantum is 1 ms of the pacing rate, within [2 segments, 64 KB].
const SEND_QUANTUM_MAX_BYTES: f64 = 65536.0;

/// Parameters (`cc = { name = "bbr3", ... }`), the draft's constants by default.
#[derive(Clone, Copy, Debug)]
pub struct Bbr3Config {
    /// §2.7 BBR.LossThresh: the per-round loss rate tolerated while probing (2 %).
    pub loss_thresh: f64,
    /// §2.7 BBR.Beta: the multiplicative decrease per round with loss (0.7).
    pub beta: f64,
    /// §2.7 BBR.Headroom: the share of inflight_longterm left free (0.15).
    pub headroom: f64,
    /// §2.13.2 BBR.ProbeRTTInterval (5 s).
    pub probe_rtt_interval: Time,
    /// §2.13.2 BBR.ProbeRTTDuration (200 ms).
    pub probe_rtt_duration: Time,
    /// §2.8.2 BBR.MinRTTFilterLen (10 s).
    pub min_rtt_filter_len: Time,
    /// §5.3.3.5.2 T_bbr: the wall-clock wait before probing, uniform in
    /// [bw_probe_wait, bw_probe_wait + bw_probe_rand] (2 s, 1 s).
    pub bw_probe_wait: Time,
    pub bw_probe_rand: Time,
    /// §5.3.3.5.2 T_reno_bound: the most rounds between probes (63; the random
    /// start of `rounds_since_bw_probe` at 0 or 1 makes it 62 or 63).
    pub bw_probe_max_rounds: u64,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            loss_thresh: 0.02,
            beta: 0.7,
            headroom: 0.15,
            probe_rtt_interval: Time::from_secs(5),
            probe_rtt_duration: Time::from_millis(200),
            min_rtt_filter_len: Time::from_secs(10),
            bw_probe_wait: Time::from_secs(2),
            bw_probe_rand: Time::from_secs(1),
            bw_probe_max_rounds: 63,
        }
    }
}

impl Bbr3Config {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = Bbr3Config::default();
        let secs = |t: Time| t.as_secs_f64();
        Ok(Bbr3Config {
            loss_thresh: p.num("loss_thresh", d.loss_thresh, 0.0, 0.5)?,
            beta: p.pos("beta", d.beta, 1.0)?,
            headroom: p.num("headroom", d.headroom, 0.0, 0.9)?,
            probe_rtt_interval: Time::from_secs_f64(p.pos(
                "probe_rtt_interval",
                secs(d.probe_rtt_interval),
                3600.0,
            )?),
            probe_rtt_duration: Time::from_secs_f64(p.num(
                "probe_rtt_duration",
                secs(d.probe_rtt_duration),
                0.0,
                60.0,
            )?),
            min_rtt_filter_len: Time::from_secs_f64(p.pos(
                "min_rtt_filter_len",
                secs(d.min_rtt_filter_len),
                3600.0,
            )?),
            bw_probe_wait: Time::from_secs_f64(p.num(
                "bw_probe_wait",
                secs(d.bw_probe_wait),
                0.0,
                3600.0,
            )?),
            bw_probe_rand: Time::from_secs_f64(p.num(
                "bw_probe_rand",
                secs(d.bw_probe_rand),
                0.0,
                3600.0,
            )?),
            bw_probe_max_rounds: p.num(
                "bw_probe_max_rounds",
                d.bw_probe_max_rounds as f64,
                1.0,
                1e6,
            )? as u64,
        })
    }
}

/// §5.1.1 BBR.state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

/// §5.3.3.6 BBR.ack_phase: where the ACKs of a bandwidth probe stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
    Refilling,
}

/// The per-ACK form.
pub struct Bbr3 {
    pub p: Bbr3Config,
    rng: Rng,
    pub state: State,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    // §5.5.1 round counting.
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    rounds_since_bw_probe: u64,
    /// §5.5.5–6 the max-bw filter: the best sample of the previous and of the
    /// current ProbeBW cycle (Linux `bw_hi[2]`), segments/s, and the cycle count.
    bw_hi: [f64; 2],
    pub cycle_count: u64,
    /// §2.8.1 BBR.bw = min(max_bw, bw_shortterm).
    bw: f64,
    pub bw_shortterm: f64,
    pub inflight_shortterm: f64,
    pub inflight_longterm: f64,
    // §5.5.10.3 congestion signals.
    bw_latest: f64,
    inflight_latest: f64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_events_in_round: u32,
    // §5.3.3 ProbeBW.
    bw_probe_wait: Time,
    cycle_stamp: Time,
    ack_phase: AckPhase,
    bw_probe_up_rounds: u32,
    bw_probe_up_acks: f64,
    probe_up_cnt: f64,
    bw_probe_samples: bool,
    // §5.3.1.2 full pipe.
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    pub full_bw_reached: bool,
    // §5.3.4.3 min RTT and ProbeRTT.
    pub min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_min_delay: Option<Time>,
    probe_rtt_min_stamp: Time,
    probe_rtt_expired: bool,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    // §5.5.9 aggregation.
    extra_acked_interval_start: Time,
    extra_acked_delivered: f64,
    extra_acked_filter: MaxFilter,
    extra_acked: f64,
    // §5.6.4.4 cwnd memory.
    prior_cwnd: f64,
    prev_ca_state: CaState,
    initial_cwnd: f64,
    /// bytes/s (C.pacing_rate).
    pacing_rate: f64,
    has_seen_rtt: bool,
    started: bool,
    /// C.delivered at this ACK.
    delivered: u64,
}

impl Bbr3 {
    pub fn new(p: Bbr3Config) -> Self {
        let mut b = Bbr3 {
            p,
            rng: Rng::seed_from_u64(0),
            state: State::Startup,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: DEFAULT_CWND_GAIN,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            rounds_since_bw_probe: 0,
            bw_hi: [0.0; 2],
            cycle_count: 0,
            bw: 0.0,
            bw_shortterm: f64::INFINITY,
            inflight_shortterm: f64::INFINITY,
            inflight_longterm: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_events_in_round: 0,
            bw_probe_wait: Time::ZERO,
            cycle_stamp: Time::ZERO,
            ack_phase: AckPhase::Init,
            bw_probe_up_rounds: 0,
            bw_probe_up_acks: 0.0,
            probe_up_cnt: f64::INFINITY,
            bw_probe_samples: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: Time::ZERO,
            probe_rtt_expired: false,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            extra_acked_interval_start: Time::ZERO,
            extra_acked_delivered: 0.0,
            extra_acked_filter: MaxFilter::default(),
            extra_acked: 0.0,
            prior_cwnd: 0.0,
            prev_ca_state: CaState::Open,
            initial_cwnd: 10.0,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            started: false,
            delivered: 0,
        };
        b.enter_startup();
        b
    }

    /// §5.5.3 BBR.max_bw: the max over the previous and the current cycle.
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// §2.8.1 BBR.bw.
    pub fn bw(&self) -> f64 {
        self.bw
    }

    /// The pacing rate last set, bytes per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }

    fn is_in_probe_bw(&self) -> bool {
        matches!(
            self.state,
            State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp
        )
    }

    /// §5.3.3.6 BBRIsProbingBW.
    fn is_probing_bw(&self) -> bool {
        matches!(
            self.state,
            State::Startup | State::ProbeBwRefill | State::ProbeBwUp
        )
    }

    /// The gains of each state (§5.6.1's table).
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.state {
            State::Startup => (STARTUP_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::Drain => (DRAIN_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::ProbeBwDown => (DOWN_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::ProbeBwCruise => (CRUISE_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::ProbeBwRefill => (REFILL_PACING_GAIN, DEFAULT_CWND_GAIN),
            State::ProbeBwUp => (UP_PACING_GAIN, UP_CWND_GAIN),
            State::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        };
    }

    // ---- §5.6.4.2 volumes ----------------------------------------------------------

    /// §5.6.4.2 BBRBDPMultiple: gain·bw·min_rtt; C.InitialCwnd before an RTT sample.
    fn bdp_multiple(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => self.initial_cwnd,
            Some(r) => gain * bw * r.as_secs_f64(),
        }
    }

    /// §2.8.2 BBR.bdp.
    pub fn bdp(&self) -> f64 {
        self.bdp_multiple(self.bw, 1.0)
    }

    /// §5.6.3 C.send_quantum in segments: 1 ms at the pacing rate, in [2, 64 KB].
    fn send_quantum(&self, mss: u32) -> f64 {
        let bytes = (self.pacing_rate * 1e-3).min(SEND_QUANTUM_MAX_BYTES);
        (bytes / mss as f64).max(2.0)
    }

    /// §5.6.4.2 BBRQuantizationBudget (offload budget = 3 quanta, §5.5.8).
    fn quantization_budget(&self, cap: f64, mss: u32) -> f64 {
        let mut cap = cap.max(3.0 * self.send_quantum(mss)).max(MIN_PIPE_CWND);
        if self.state == State::ProbeBwUp {
            cap += 2.0;
        }
        cap
    }

    /// §5.6.4.2 BBRInflight(bw, gain).
    fn inflight(&self, bw: f64, gain: f64, mss: u32) -> f64 {
        self.quantization_budget(self.bdp_multiple(bw, gain), mss)
    }

    /// §5.3.3.6 BBRInflightWithHeadroom: inflight_longterm less max(1, 15 %).
    pub fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_longterm == f64::INFINITY {
            return f64::INFINITY;
        }
        let headroom = (self.p.headroom * self.inflight_longterm).max(1.0);
        (self.inflight_longterm - headroom).max(MIN_PIPE_CWND)
    }

    /// §5.3.3.5.3 BBRTargetInflight: the BDP unless congestion cut cwnd.
    fn target_inflight(&self, cwnd: f64) -> f64 {
        self.bdp().min(cwnd)
    }

    /// §5.6.4.5 BBRProbeRTTCwnd: the cwnd ProbeRTT holds, max(BDP/2, MinPipeCwnd).
    pub fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp_multiple(self.bw, PROBE_RTT_CWND_GAIN)
            .max(MIN_PIPE_CWND)
    }

    // ---- state entries -------------------------------------------------------------

    /// §5.3.1.1 BBREnterStartup.
    fn enter_startup(&mut self) {
        self.state = State::Startup;
        self.update_gains();
    }

    /// §5.3.2 BBREnterDrain.
    fn enter_drain(&mut self) {
        self.state = State::Drain;
        self.update_gains();
    }

    /// §5.5.1 BBRStartRound.
    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// §5.3.1.2 BBRResetFullBW.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// §5.5.10.3 BBRResetCongestionSignals.
    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// §5.5.10.3 BBRResetShortTermModel.
    fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = f64::INFINITY;
    }

    /// §5.3.3.5.3 BBRPickProbeWait: 0 or 1 rounds already counted, and
    /// 2 s + U[0, 1) s of wall clock (from the flow's seeded stream).
    fn pick_probe_wait(&mut self) {
        self.rounds_since_bw_probe = self.rng.gen_range(0..=1);
        let r: f64 = self.rng.gen();
        self.bw_probe_wait = self.p.bw_probe_wait + self.p.bw_probe_rand.mul_f64(r);
    }

    /// §5.3.3.6 BBREnterProbeBW.
    fn enter_probe_bw(&mut self, now: Time) {
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.start_probe_bw_down(now);
    }

    /// §5.3.3.6 BBRStartProbeBW_DOWN.
    fn start_probe_bw_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.probe_up_cnt = f64::INFINITY;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.state = State::ProbeBwDown;
        self.update_gains();
    }

    /// §5.3.3.6 BBRStartProbeBW_CRUISE.
    fn start_probe_bw_cruise(&mut self) {
        self.state = State::ProbeBwCruise;
        self.update_gains();
    }

    /// §5.3.3.6 BBRStartProbeBW_REFILL.
    fn start_probe_bw_refill(&mut self) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0.0;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.state = State::ProbeBwRefill;
        self.update_gains();
    }

    /// §5.3.3.6 BBRStartProbeBW_UP.
    fn start_probe_bw_up(&mut self, rate: f64, cwnd: f64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = rate;
        self.state = State::ProbeBwUp;
        self.update_gains();
        self.raise_inflight_longterm_slope(cwnd);
    }

    // ---- §5.5 model ----------------------------------------------------------------

    /// §5.5.10.2 BBRNoteLoss.
    fn note_loss(&mut self) {
        if !self.loss_in_round {
            self.loss_round_delivered = self.delivered;
        }
        self.loss_in_round = true;
    }

    /// §5.5.10.2 IsInflightTooHigh: more than LossThresh of the sample's flight
    /// lost since it was sent.
    pub fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        rs.lost as f64 > rs.tx_in_flight as f64 * self.p.loss_thresh
    }

    /// §5.5.10.2 BBRHandleInflightTooHigh: inflight_longterm =
    /// max(tx_in_flight, Beta·target_inflight), once per probe; UP ends.
    fn handle_inflight_too_high(
        &mut self,
        tx_in_flight: f64,
        app_limited: bool,
        cwnd: f64,
        now: Time,
    ) {
        self.bw_probe_samples = false;
        if !app_limited {
            self.inflight_longterm = tx_in_flight.max(self.target_inflight(cwnd) * self.p.beta);
        }
        if self.state == State::ProbeBwUp {
            self.start_probe_bw_down(now);
        }
    }

    /// §5.5.10.2 BBRInflightAtLoss: the flight at which, within this lost segment,
    /// the loss rate crossed LossThresh: inflight_prev + lost_prefix with
    /// lost_prefix = (LossThresh·inflight_prev − lost_prev) / (1 − LossThresh).
    pub fn inflight_at_loss(&self, lp: &LostPacket) -> f64 {
        let inflight_prev = lp.tx_in_flight as f64 - 1.0;
        let lost_prev = lp.lost as f64 - 1.0;
        let t = self.p.loss_thresh;
        inflight_prev + (t * inflight_prev - lost_prev) / (1.0 - t)
    }

    /// §5.5.10.2 BBRHandleLostPacket (after BBRNoteLoss): a segment sent while
    /// probing whose flight has since lost more than LossThresh caps
    /// inflight_longterm at the flight where the threshold was crossed.
    fn handle_lost_packet(&mut self, lp: &LostPacket, cwnd: f64, now: Time) {
        if !self.bw_probe_samples {
            return; // not a packet sent while probing bandwidth
        }
        if lp.lost as f64 > lp.tx_in_flight as f64 * self.p.loss_thresh {
            let tx = self.inflight_at_loss(lp);
            self.handle_inflight_too_high(tx, lp.app_limited, cwnd, now);
        }
    }

    /// §5.5.10.3 BBRUpdateLatestDeliverySignals.
    fn update_latest_delivery_signals(&mut self, rs: &RateSample, rate: f64) {
        self.loss_round_start = false;
        self.bw_latest = self.bw_latest.max(rate);
        self.inflight_latest = self.inflight_latest.max(rs.delivered as f64);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// §5.5.10.3 BBRAdvanceLatestDeliverySignals.
    fn advance_latest_delivery_signals(&mut self, rs: &RateSample, rate: f64) {
        if self.loss_round_start {
            self.bw_latest = rate;
            self.inflight_latest = rs.delivered as f64;
        }
    }

    /// §5.5.1 BBRUpdateRound and §5.5.5 BBRUpdateMaxBw.
    fn update_max_bw(&mut self, rs: &RateSample, rate: f64) {
        if rs.prior_delivered >= self.next_round_delivered {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_bw_probe += 1;
            self.round_start = true;
        } else {
            self.round_start = false;
        }
        if rate > 0.0 && (rate >= self.max_bw() || !rs.app_limited) {
            self.bw_hi[1] = self.bw_hi[1].max(rate);
        }
    }

    /// §5.5.6 BBRAdvanceMaxBwFilter: a new cycle; the one before last is forgotten.
    fn advance_max_bw_filter(&mut self) {
        self.cycle_count += 1;
        self.bw_hi[0] = self.bw_hi[1];
        self.bw_hi[1] = 0.0;
    }

    /// §5.5.10.3 BBRUpdateCongestionSignals and, once per loss round,
    /// BBRAdaptLowerBoundsFromCongestion (BBRInitLowerBounds, BBRLossLowerBounds).
    fn update_congestion_signals(&mut self, rs: &RateSample, rate: f64, cwnd: f64) {
        self.update_max_bw(rs, rate);
        if !self.loss_round_start {
            return;
        }
        if !self.is_probing_bw() && self.loss_in_round {
            if self.bw_shortterm == f64::INFINITY {
                self.bw_shortterm = self.max_bw();
            }
            if self.inflight_shortterm == f64::INFINITY {
                self.inflight_shortterm = cwnd;
            }
            self.bw_shortterm = self.bw_latest.max(self.p.beta * self.bw_shortterm);
            self.inflight_shortterm = self
                .inflight_latest
                .max(self.p.beta * self.inflight_shortterm);
        }
        self.loss_in_round = false;
    }

    /// §5.5.9 BBRUpdateACKAggregation.
    fn update_ack_aggregation(&mut self, rs: &RateSample, now: Time, cwnd: f64) {
        let interval = now.saturating_sub(self.extra_acked_interval_start);
        let mut expected = self.bw * interval.as_secs_f64();
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0.0;
            self.extra_acked_interval_start = now;
            expected = 0.0;
        }
        self.extra_acked_delivered += rs.acked_sacked as f64;
        let extra = (self.extra_acked_delivered - expected).min(cwnd);
        let len = if self.full_bw_reached {
            EXTRA_ACKED_FILTER_LEN
        } else {
            1 // in Startup, just remember 1 round
        };
        self.extra_acked = self.extra_acked_filter.update(len, self.round_count, extra);
    }

    /// §5.3.1.2 BBRCheckFullBWReached. A round whose sample is not a valid rate
    /// (interval under min_rtt) is no evidence either way and is skipped.
    fn check_full_bw_reached(&mut self, rs: &RateSample, rate: f64) {
        if self.full_bw_now || !self.round_start || rs.app_limited || rate <= 0.0 {
            return;
        }
        if rate >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_CNT;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// §5.3.1.3 BBRCheckStartupHighLoss, in Linux's form
    /// (`bbr_check_loss_too_high_in_startup`): at the end of a loss round spent in
    /// fast recovery, with ≥ 6 loss events (ACKs reporting new losses, for the
    /// draft's discontiguous lost ranges) and the round's loss rate over LossThresh.
    fn check_startup_high_loss(&mut self, rs: &RateSample, ca_state: CaState) {
        if self.full_bw_reached || self.state != State::Startup {
            return;
        }
        if rs.losses > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(15);
        }
        if self.loss_round_start
            && ca_state == CaState::Recovery
            && self.loss_events_in_round >= STARTUP_FULL_LOSS_CNT
            && self.is_inflight_too_high(rs)
        {
            self.full_bw_reached = true;
            self.inflight_longterm = self.bdp().max(self.inflight_latest);
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// §5.3.3.5.3 BBRIsTimeToProbeBW (starts REFILL when it is).
    fn is_time_to_probe_bw(&mut self, now: Time, cwnd: f64) -> bool {
        let waited = now > self.cycle_stamp + self.bw_probe_wait;
        // BBRIsRenoCoexistenceProbeTime
        let reno_rounds = self.target_inflight(cwnd).floor().max(0.0) as u64;
        let rounds = reno_rounds.min(self.p.bw_probe_max_rounds);
        if waited || self.rounds_since_bw_probe >= rounds {
            self.start_probe_bw_refill();
            return true;
        }
        false
    }

    /// §5.3.3.6 BBRIsTimeToCruise.
    fn is_time_to_cruise(&self, in_flight: f64, mss: u32) -> bool {
        if in_flight > self.inflight_with_headroom() {
            return false;
        }
        in_flight <= self.inflight(self.max_bw(), 1.0, mss)
    }

    /// §5.3.3.6 BBRIsTimeToGoDown.
    fn is_time_to_go_down(&mut self, ack: &Ack, cwnd: f64, rate: f64) -> bool {
        if ack.cwnd_limited && cwnd >= self.inflight_longterm {
            // bw is limited by inflight_longterm: the plateau says nothing.
            self.reset_full_bw();
            self.full_bw = rate;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// §5.3.3.6 BBRRaiseInflightLongtermSlope: +1, 2, 4, ... segments per round.
    fn raise_inflight_longterm_slope(&mut self, cwnd: f64) {
        let growth_this_round = (1u64 << self.bw_probe_up_rounds) as f64;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        self.probe_up_cnt = (cwnd / growth_this_round).floor().max(1.0);
    }

    /// §5.3.3.6 BBRProbeInflightLongtermUpward.
    fn probe_inflight_longterm_upward(&mut self, rs: &RateSample, ack: &Ack, cwnd: f64) {
        if !ack.cwnd_limited || cwnd < self.inflight_longterm {
            return; // not fully using inflight_longterm: do not grow it
        }
        self.bw_probe_up_acks += rs.acked_sacked as f64;
        if self.bw_probe_up_acks >= self.probe_up_cnt {
            let delta = (self.bw_probe_up_acks / self.probe_up_cnt).floor();
            self.bw_probe_up_acks -= delta * self.probe_up_cnt;
            self.inflight_longterm += delta;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope(cwnd);
        }
    }

    /// §5.3.3.6 BBRAdaptLongTermModel, in Linux's form (`bbr_adapt_upper_bounds`):
    /// at the end of the round after UP (ack_phase PROBE_STOPPING) the probe's
    /// samples are over (`bw_probe_samples` cleared, ack_phase back to INIT, so the
    /// max-bw filter advances once per cycle as §2.10 says; the draft's pseudocode
    /// leaves ack_phase as it is), and the loss check runs on every ACK with the
    /// ACKed segment's RS.lost / RS.tx_in_flight.
    fn adapt_long_term_model(&mut self, rs: &RateSample, ack: &Ack, cwnd: f64) {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.is_in_probe_bw() && !rs.app_limited {
                self.advance_max_bw_filter();
            }
        }
        if self.is_inflight_too_high(rs) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(
                    rs.tx_in_flight as f64,
                    rs.app_limited,
                    cwnd,
                    ack.now,
                );
            }
            return;
        }
        if self.inflight_longterm == f64::INFINITY {
            return; // no upper bound to raise
        }
        if rs.tx_in_flight as f64 > self.inflight_longterm {
            self.inflight_longterm = rs.tx_in_flight as f64;
        }
        if self.state == State::ProbeBwUp {
            self.probe_inflight_longterm_upward(rs, ack, cwnd);
        }
    }

    /// §5.3.3.6 BBRUpdateProbeBWCyclePhase.
    fn update_probe_bw_cycle_phase(&mut self, rs: &RateSample, ack: &Ack, cwnd: f64, rate: f64) {
        if !self.full_bw_reached {
            return;
        }
        self.adapt_long_term_model(rs, ack, cwnd);
        match self.state {
            State::ProbeBwDown => {
                if self.is_time_to_probe_bw(ack.now, cwnd) {
                    return;
                }
                if self.is_time_to_cruise(ack.in_flight, ack.mss) {
                    self.start_probe_bw_cruise();
                }
            }
            State::ProbeBwCruise => {
                self.is_time_to_probe_bw(ack.now, cwnd);
            }
            // After one round of REFILL, start UP.
            State::ProbeBwRefill if self.round_start => {
                self.bw_probe_samples = true;
                self.start_probe_bw_up(rate, cwnd);
            }
            State::ProbeBwUp => {
                let down = self.is_time_to_go_down(ack, cwnd, rate);
                if down {
                    self.start_probe_bw_down(ack.now);
                }
            }
            _ => {}
        }
    }

    /// §5.3.4.3 BBRUpdateMinRTT: a 5 s filter schedules ProbeRTT, a 10 s one is
    /// the model's min_rtt.
    fn update_min_rtt(&mut self, ack: &Ack) {
        let now = ack.now;
        self.probe_rtt_expired = now > self.probe_rtt_min_stamp + self.p.probe_rtt_interval;
        if let Some(r) = ack.rtt.latest {
            if self.probe_rtt_min_delay.is_none_or(|d| r < d) || self.probe_rtt_expired {
                self.probe_rtt_min_delay = Some(r);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + self.p.min_rtt_filter_len;
        if let Some(d) = self.probe_rtt_min_delay {
            if self.min_rtt.is_none_or(|m| d < m) || min_rtt_expired {
                self.min_rtt = Some(d);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
    }

    /// §5.6.4.4 BBRSaveCwnd.
    fn save_cwnd(&mut self, cwnd: f64) {
        if self.prev_ca_state == CaState::Open && self.state != State::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// §5.3.4.3 BBRCheckProbeRTT, BBRHandleProbeRTT, BBRCheckProbeRTTDone and
    /// §5.3.4.4 BBRExitProbeRTT.
    fn check_probe_rtt(&mut self, w: &mut Window, ack: &Ack) {
        let now = ack.now;
        if self.state != State::ProbeRtt && self.probe_rtt_expired {
            // BBREnterProbeRTT
            self.state = State::ProbeRtt;
            self.update_gains();
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.state != State::ProbeRtt {
            return;
        }
        // Ignore the low-rate samples of ProbeRTT (MarkConnectionAppLimited).
        w.app_limited = true;
        match self.probe_rtt_done_stamp {
            None if ack.in_flight <= self.probe_rtt_cwnd() => {
                self.probe_rtt_done_stamp = Some(now + self.p.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.start_round();
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    // Schedule the next ProbeRTT, restore cwnd, leave.
                    self.probe_rtt_min_stamp = now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    self.reset_short_term_model();
                    if self.full_bw_reached {
                        self.start_probe_bw_down(now);
                        self.start_probe_bw_cruise();
                    } else {
                        self.enter_startup();
                    }
                }
            }
            None => {}
        }
    }

    /// §5.6.2 BBRSetPacingRateWithGain (BBRInitPacingRate at the first RTT sample).
    fn set_pacing_rate(&mut self, ack: &Ack) {
        if !self.has_seen_rtt && (ack.rtt.srtt > Time::ZERO || self.pacing_rate == 0.0) {
            self.has_seen_rtt = ack.rtt.srtt > Time::ZERO;
            let srtt = if self.has_seen_rtt {
                ack.rtt.srtt.as_secs_f64()
            } else {
                1e-3
            };
            self.pacing_rate = STARTUP_PACING_GAIN * self.initial_cwnd / srtt * ack.mss as f64;
        }
        let rate = self.pacing_gain * self.bw * ack.mss as f64 * (1.0 - PACING_MARGIN);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// §5.6.4.6 BBRSetCwnd with §5.6.4.5 BBRBoundCwndForProbeRTT and §5.6.4.7
    /// BBRBoundCwndForModel.
    fn set_cwnd(&mut self, w: &mut Window, rs: &RateSample, mss: u32) {
        // BBRUpdateMaxInflight
        let cap = self.bdp_multiple(self.bw, self.cwnd_gain) + self.extra_acked;
        let max_inflight = self.quantization_budget(cap, mss);
        let newly_acked = rs.acked_sacked as f64;
        let mut cwnd = w.cwnd;
        if self.full_bw_reached {
            cwnd = (cwnd + newly_acked).min(max_inflight);
        } else if cwnd < max_inflight || (self.delivered as f64) < self.initial_cwnd {
            cwnd += newly_acked;
        }
        cwnd = cwnd.max(MIN_PIPE_CWND);
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        w.cwnd = cwnd.min(self.model_cap());
    }

    /// §5.6.4.7 BBRBoundCwndForModel: the volume cap of the state.
    pub fn model_cap(&self) -> f64 {
        let cap = match self.state {
            State::ProbeBwCruise | State::ProbeRtt => self.inflight_with_headroom(),
            s if self.is_in_probe_bw() && s != State::ProbeBwCruise => self.inflight_longterm,
            _ => f64::INFINITY,
        };
        cap.min(self.inflight_shortterm).max(MIN_PIPE_CWND)
    }
}

impl Algorithm for Bbr3 {
    const NAMES: &'static [&'static str] = &["bbr3"];
    type Config = Bbr3Config;
    type Fluid = NoFluid;
    fn config(p: &mut Params) -> Result<Bbr3Config, String> {
        Bbr3Config::from_params(p)
    }
    fn packet(cfg: &Bbr3Config) -> Box<dyn CongestionControl> {
        Box::new(Bbr3::new(*cfg))
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    fn cong_control(&self) -> bool {
        true
    }

    fn seed(&mut self, seed: u64) {
        self.rng = Rng::seed_from_u64(seed);
    }

    /// §5.2.3 BBRUpdateOnACK: the model and state, then the control parameters.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let Some(rs) = ack.rate else {
            return;
        };
        if !self.started {
            // §5.2.1 BBROnInit (the rest is in `new`).
            self.started = true;
            w.ssthresh = f64::INFINITY;
            self.initial_cwnd = w.cwnd;
            self.min_rtt_stamp = ack.now;
            self.probe_rtt_min_stamp = ack.now;
            self.extra_acked_interval_start = ack.now;
        }
        self.delivered = rs.delivered_total;
        // §5.6.4.4: restore the cwnd from before recovery when it ends (saved in
        // on_congestion); BBRBoundCwndForModel below bounds it.
        if self.prev_ca_state != CaState::Open && ack.ca_state == CaState::Open {
            w.cwnd = w.cwnd.max(self.prior_cwnd);
        }
        self.prev_ca_state = ack.ca_state;
        // §5.2.4 per-loss steps: the sender reports the segments deemed lost since
        // the previous ACK.
        if rs.losses > 0 {
            self.note_loss();
        }
        if let Some(lp) = rs.lost_packet {
            self.handle_lost_packet(&lp, w.cwnd, ack.now);
        }
        if rs.acked_sacked == 0 {
            // Nothing delivered: no rate sample (§4.1.2.3), nothing to update.
            w.pacing_rate = (self.pacing_rate > 0.0).then_some(self.pacing_rate);
            return;
        }
        let rate = rs.rate().unwrap_or(0.0);
        let cwnd = w.cwnd;
        // §5.2.3 BBRUpdateModelAndState
        self.update_latest_delivery_signals(&rs, rate);
        self.update_congestion_signals(&rs, rate, cwnd);
        self.update_ack_aggregation(&rs, ack.now, cwnd);
        self.check_full_bw_reached(&rs, rate);
        // BBRCheckStartupDone
        self.check_startup_high_loss(&rs, ack.ca_state);
        if self.state == State::Startup && self.full_bw_reached {
            self.enter_drain();
        }
        // BBRCheckDrainDone
        if self.state == State::Drain && ack.in_flight <= self.inflight(self.bw, 1.0, ack.mss) {
            self.enter_probe_bw(ack.now);
        }
        self.update_probe_bw_cycle_phase(&rs, ack, cwnd, rate);
        self.update_min_rtt(ack);
        self.check_probe_rtt(w, ack);
        self.advance_latest_delivery_signals(&rs, rate);
        // BBRBoundBWForModel
        self.bw = self.max_bw().min(self.bw_shortterm);
        // §5.2.3 BBRUpdateControlParameters
        self.set_pacing_rate(ack);
        self.set_cwnd(w, &rs, ack.mss);
        w.pacing_rate = (self.pacing_rate > 0.0).then_some(self.pacing_rate);
    }

    /// §5.6.4.4 BBROnEnterFastRecovery / BBROnEnterRTO: remember the cwnd (the
    /// sender sets the RTO's loss window itself). ssthresh is not BBR's.
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        if ev.kind != CongestionKind::Ecn {
            self.save_cwnd(w.cwnd);
        }
        w.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// A scripted path: ACKs of one segment each, bw·rtt of them per round trip,
    /// each carrying a rate sample of `bw` segments/s, the RTT sample `rtt` and
    /// what the test sets (flight, losses, the ACKed segment's tx_in_flight/lost).
    struct Path {
        b: Bbr3,
        w: Window,
        now: Time,
        delivered: u64,
        in_flight: f64,
        /// RS.lost / RS.tx_in_flight of the next ACKs (tx_in_flight None: the flight).
        lost: u64,
        tx_in_flight: Option<u64>,
        /// Segments newly deemed lost, reported on the next ACK only, and the lost
        /// segment's snapshot with them.
        losses: u64,
        lost_packet: Option<LostPacket>,
        ca_state: CaState,
        cwnd_limited: bool,
        states: Vec<State>,
    }

    impl Path {
        fn with(p: Bbr3Config, seed: u64) -> Self {
            let mut b = Bbr3::new(p);
            b.seed(seed);
            Path {
                b,
                w: Window::new(10.0, 1e9),
                now: Time::ZERO,
                delivered: 0,
                in_flight: 10.0,
                lost: 0,
                tx_in_flight: None,
                losses: 0,
                lost_packet: None,
                ca_state: CaState::Open,
                cwnd_limited: false,
                states: vec![State::Startup],
            }
        }

        fn new(seed: u64) -> Self {
            Self::with(Bbr3Config::default(), seed)
        }

        fn ack(&mut self, dt: Time, bw: f64, rtt: Time) {
            self.now += dt;
            self.delivered += 1;
            let window = (bw * rtt.as_secs_f64()).round() as u64;
            let rs = RateSample {
                delivered: window,
                interval: rtt,
                prior_delivered: self.delivered.saturating_sub(window),
                delivered_total: self.delivered,
                delivered_time: self.now,
                acked_sacked: 1,
                prior_in_flight: self.in_flight as u64,
                losses: std::mem::take(&mut self.losses),
                lost_packet: self.lost_packet.take(),
                lost: self.lost,
                tx_in_flight: self.tx_in_flight.unwrap_or(self.in_flight as u64),
                ..RateSample::default()
            };
            let mut a = Ack::new(self.now, 1.0);
            a.rate = Some(rs);
            a.in_flight = self.in_flight;
            a.mss = 1000;
            a.rtt.latest = Some(rtt);
            a.rtt.srtt = rtt;
            a.ca_state = self.ca_state;
            a.cwnd_limited = self.cwnd_limited;
            self.b.on_ack(&mut self.w, &a);
            if self.states.last() != Some(&self.b.state) {
                self.states.push(self.b.state);
            }
        }

        fn round(&mut self, bw: f64, rtt: Time) {
            let n = (bw * rtt.as_secs_f64()).round() as u64;
            for _ in 0..n {
                self.ack(Time(rtt.ps() / n), bw, rtt);
            }
        }

        /// Through Startup and Drain at bw 1000/s, RTT 100 ms (BDP 100), ACK by
        /// ACK, to the first ProbeBW state: with the flight at the BDP, Drain's exit
        /// (§5.3.2) is also DOWN's (§5.3.3.6), so that is CRUISE.
        fn run_to_probe_bw(&mut self) {
            self.in_flight = 100.0;
            while !self.b.is_in_probe_bw() {
                self.ack(ms(1), 1000.0, ms(100));
                assert!(self.now < Time::from_secs(5), "{:?}", self.states);
            }
        }
    }

    /// A config whose ProbeBW waits (almost) forever in CRUISE.
    fn no_probe() -> Bbr3Config {
        Bbr3Config {
            bw_probe_wait: Time::from_secs(1000),
            bw_probe_max_rounds: 1_000_000,
            ..Bbr3Config::default()
        }
    }

    /// §5.3.1.2: Startup ends after exactly 3 non-app-limited rounds whose rate
    /// grew less than 25 % over the baseline, not while it keeps growing; then
    /// Drain paces at 0.35 with cwnd gain 2 (§5.3.2).
    #[test]
    fn startup_exits_after_three_rounds_without_25_percent_growth() {
        let rtt = ms(100);
        let mut p = Path::new(1);
        p.in_flight = 1e6;
        let mut bw = 100.0;
        for _ in 0..8 {
            p.round(bw, rtt);
            bw *= 1.3;
        }
        assert_eq!(p.b.state, State::Startup);
        assert_eq!(
            (p.b.pacing_gain, p.b.cwnd_gain),
            (STARTUP_PACING_GAIN, DEFAULT_CWND_GAIN)
        );
        assert!((STARTUP_PACING_GAIN - 4.0 * std::f64::consts::LN_2).abs() < 0.003);
        let bw = bw / 1.3;
        for k in 1..=3 {
            assert!(!p.b.full_bw_reached, "after {} flat rounds", k - 1);
            p.round(bw * 1.2, rtt); // +20 %: not growth
        }
        assert!(p.b.full_bw_reached);
        assert_eq!(p.b.state, State::Drain);
        assert_eq!((p.b.pacing_gain, p.b.cwnd_gain), (DRAIN_PACING_GAIN, 2.0));
    }

    /// §5.3.1.3: in Startup, a loss round spent in recovery with ≥ 6 loss events
    /// and more than 2 % of the flight lost ends Startup, inflight_longterm set to
    /// max(BDP, inflight_latest).
    #[test]
    fn startup_exits_on_high_loss() {
        let rtt = ms(100);
        let mut p = Path::new(1);
        p.in_flight = 1000.0; // above the BDP: Drain holds
        let mut bw = 100.0;
        for _ in 0..5 {
            p.round(bw, rtt);
            bw *= 2.0;
        }
        assert_eq!(p.b.state, State::Startup);
        // Rounds of 320 ACKs with a loss on every 40th (8 events a round), 3 % of
        // the flight lost since the sampled segments left; the rate flat, so the
        // plateau would end Startup too, but only after 3 rounds.
        p.ca_state = CaState::Recovery;
        p.tx_in_flight = Some(200);
        p.lost = 6;
        let mut k = 0;
        while p.b.state == State::Startup {
            if k % 40 == 0 {
                p.losses = 1;
            }
            p.ack(Time(ms(100).ps() / 1600), bw, rtt);
            k += 1;
            assert!(k < 4 * 1600, "still in Startup");
        }
        assert!(p.b.full_bw_reached);
        assert_eq!(p.b.state, State::Drain);
        let want = p.b.bdp().max((bw * 0.1).round());
        assert_eq!(p.b.inflight_longterm, want);
    }

    /// §5.3.3: DOWN → CRUISE → REFILL → UP → DOWN, with pacing gains 0.9, 1, 1,
    /// 1.25 and cwnd gains 2, 2, 2, 2.25. REFILL starts once the randomized wall
    /// clock wait of 2–3 s (§5.3.3.5.3) has passed since DOWN started, and lasts
    /// one round; UP ends on a bandwidth plateau (3 rounds without 25 % growth);
    /// DOWN holds while the flight is above the BDP.
    #[test]
    fn probe_bw_cycles_down_cruise_refill_up_with_their_gains() {
        let rtt = ms(100);
        for seed in 0..20 {
            // No ProbeRTT in the way (tested below).
            let mut p = Path::with(
                Bbr3Config {
                    probe_rtt_interval: Time::from_secs(1000),
                    ..Bbr3Config::default()
                },
                seed,
            );
            p.run_to_probe_bw();
            // Drain and DOWN both end at a flight of one BDP: all within one ACK.
            assert_eq!(p.states[1..], [State::ProbeBwCruise]);
            for cycle in 0..2 {
                let wait = p.b.bw_probe_wait;
                assert!(wait >= Time::from_secs(2) && wait <= Time::from_secs(3));
                let t_down = p.b.cycle_stamp;
                assert_eq!((p.b.pacing_gain, p.b.cwnd_gain), (1.0, 2.0));
                while p.b.state == State::ProbeBwCruise {
                    p.ack(ms(1), 1000.0, rtt);
                }
                assert_eq!(p.b.state, State::ProbeBwRefill);
                assert!(p.now > t_down + wait && p.now <= t_down + wait + ms(1));
                assert_eq!((p.b.pacing_gain, p.b.cwnd_gain), (1.0, 2.0));
                let r0 = p.b.round_count;
                while p.b.state == State::ProbeBwRefill {
                    p.ack(ms(1), 1000.0, rtt);
                }
                assert_eq!(p.b.state, State::ProbeBwUp);
                assert_eq!(p.b.round_count, r0 + 1, "REFILL lasts one round");
                assert_eq!((p.b.pacing_gain, p.b.cwnd_gain), (1.25, 2.25));
                // UP: the flight above the BDP, the rate flat.
                p.in_flight = 125.0;
                let r0 = p.b.round_count;
                while p.b.state == State::ProbeBwUp {
                    p.ack(ms(1), 1000.0, rtt);
                    assert!(p.b.round_count < r0 + 10);
                }
                assert_eq!(p.b.state, State::ProbeBwDown);
                assert_eq!(p.b.round_count - r0, 3, "three flat rounds in UP");
                assert_eq!((p.b.pacing_gain, p.b.cwnd_gain), (0.9, 2.0));
                for _ in 0..50 {
                    p.ack(ms(1), 1000.0, rtt);
                }
                assert_eq!(p.b.state, State::ProbeBwDown, "flight above the BDP");
                p.in_flight = 100.0;
                p.ack(ms(1), 1000.0, rtt);
                assert_eq!(p.b.state, State::ProbeBwCruise, "cycle {cycle}");
            }
            let seq = &p.states[1..];
            assert_eq!(
                seq,
                [
                    State::ProbeBwCruise,
                    State::ProbeBwRefill,
                    State::ProbeBwUp,
                    State::ProbeBwDown,
                    State::ProbeBwCruise,
                    State::ProbeBwRefill,
                    State::ProbeBwUp,
                    State::ProbeBwDown,
                    State::ProbeBwCruise,
                ]
            );
        }
    }

    /// §5.3.3.5.3 BBRIsRenoCoexistenceProbeTime: without the wall-clock wait,
    /// REFILL starts after min(target_inflight, 63) rounds, less the random 0 or 1
    /// counted at DOWN.
    #[test]
    fn reno_coexistence_bound_is_min_of_bdp_and_63_rounds() {
        for (bw, rounds) in [(1000.0, 63u64), (300.0, 30)] {
            for seed in 0..10 {
                let rtt = ms(100);
                // No wall-clock probe and no ProbeRTT (whose exit restarts the wait).
                let mut p = Path::with(
                    Bbr3Config {
                        bw_probe_wait: Time::from_secs(1000),
                        probe_rtt_interval: Time::from_secs(1000),
                        ..Bbr3Config::default()
                    },
                    seed,
                );
                p.in_flight = bw * 0.1;
                while !p.b.is_in_probe_bw() {
                    p.ack(ms(1), bw, rtt);
                }
                let start = p.b.rounds_since_bw_probe;
                let r0 = p.b.round_count;
                while p.b.state != State::ProbeBwRefill {
                    p.round(bw, rtt);
                    assert!(p.b.round_count < r0 + 100);
                }
                assert_eq!(p.b.round_count - r0 + start, rounds, "bw {bw} seed {seed}");
            }
        }
    }

    /// Bring a path to ProbeBW_UP (BDP 100 at 1000/s, 100 ms).
    fn to_up(seed: u64) -> Path {
        let mut p = Path::new(seed);
        p.run_to_probe_bw();
        while p.b.state != State::ProbeBwUp {
            p.ack(ms(1), 1000.0, ms(100));
            assert!(p.now < Time::from_secs(10));
        }
        p
    }

    /// §5.5.10.2: in UP, an ACK whose segment saw more than LossThresh = 2 % of
    /// its flight lost sets inflight_longterm = max(tx_in_flight,
    /// Beta·min(BDP, cwnd)) once per probe and ends UP; at 2 % or less nothing.
    #[test]
    fn inflight_longterm_is_cut_only_above_two_percent_loss() {
        // 2/100 = 2 %: not above the threshold.
        let mut p = to_up(1);
        p.in_flight = 150.0; // so that DOWN, once entered, holds
        p.tx_in_flight = Some(100);
        p.lost = 2;
        p.ack(ms(1), 1000.0, ms(100));
        assert_eq!(p.b.inflight_longterm, f64::INFINITY);
        assert_eq!(p.b.state, State::ProbeBwUp);
        // 3/125 = 2.4 %: cut to the flight at that send, 125 > 0.7·100.
        p.tx_in_flight = Some(125);
        p.lost = 3;
        p.ack(ms(1), 1000.0, ms(100));
        assert_eq!(p.b.inflight_longterm, 125.0);
        assert_eq!(p.b.state, State::ProbeBwDown);
        // Once per probe: a worse sample later does not cut again.
        p.tx_in_flight = Some(60);
        p.lost = 30;
        p.ack(ms(1), 1000.0, ms(100));
        assert_eq!(p.b.inflight_longterm, 125.0);

        // A flight below Beta·BDP: the Beta bound (0.7·min(BDP 100, cwnd)).
        let mut p = to_up(2);
        p.in_flight = 150.0;
        let cwnd = p.w.cwnd;
        assert!(cwnd >= 100.0, "cwnd {cwnd}");
        p.tx_in_flight = Some(50);
        p.lost = 5;
        p.ack(ms(1), 1000.0, ms(100));
        assert!((p.b.inflight_longterm - 0.7 * p.b.bdp().min(cwnd)).abs() < 1e-9);
        // inflight_longterm then caps cwnd in DOWN (§5.6.4.7).
        p.tx_in_flight = None;
        p.lost = 0;
        p.ack(ms(1), 1000.0, ms(100));
        assert!(p.w.cwnd <= p.b.inflight_longterm, "cwnd {}", p.w.cwnd);
    }

    /// §5.5.10.2 BBRHandleLostPacket / BBRInflightAtLoss: in UP, a lost segment
    /// whose flight (125 at its send) lost 4 > 2 % since caps inflight_longterm at
    /// the flight where the rate crossed 2 %: 124 + (0.02·124 − 3)/0.98 ≈ 123.47
    /// (above 0.7·BDP); one whose flight lost 2/100 leaves it.
    #[test]
    fn a_lost_packet_caps_inflight_longterm_where_the_loss_rate_crossed_two_percent() {
        let mut p = to_up(7);
        p.in_flight = 150.0;
        // The ACKed segments left at a flight of 100 with no loss since: they
        // neither cut nor (below the cut) raise inflight_longterm.
        p.tx_in_flight = Some(100);
        p.losses = 1;
        p.lost_packet = Some(LostPacket {
            tx_in_flight: 100,
            lost: 2,
            app_limited: false,
        });
        p.ack(ms(1), 1000.0, ms(100));
        assert_eq!(p.b.inflight_longterm, f64::INFINITY);
        assert_eq!(p.b.state, State::ProbeBwUp);
        p.losses = 1;
        p.lost_packet = Some(LostPacket {
            tx_in_flight: 125,
            lost: 4,
            app_limited: false,
        });
        p.ack(ms(1), 1000.0, ms(100));
        let want = 124.0 + (0.02 * 124.0 - 3.0) / 0.98;
        assert!(
            (p.b.inflight_longterm - want).abs() < 1e-9,
            "{}",
            p.b.inflight_longterm
        );
        assert_eq!(p.b.state, State::ProbeBwDown);
        // An app-limited lost segment ends the probe without a cut.
        let mut p = to_up(8);
        p.in_flight = 150.0;
        p.losses = 1;
        p.lost_packet = Some(LostPacket {
            tx_in_flight: 125,
            lost: 10,
            app_limited: true,
        });
        p.ack(ms(1), 1000.0, ms(100));
        assert_eq!(p.b.inflight_longterm, f64::INFINITY);
        assert_eq!(p.b.state, State::ProbeBwDown);
    }

    /// §5.5.10.3: outside probing, each loss round multiplies the short-term
    /// model by Beta = 0.7, floored by the latest round's delivery
    /// (bw_shortterm = max(bw_latest, 0.7·bw_shortterm), likewise inflight);
    /// lossless rounds leave it; REFILL resets it (§5.3.3.3).
    #[test]
    fn short_term_model_is_cut_by_beta_per_lossy_round() {
        let rtt = ms(100);
        let mut p = Path::with(no_probe(), 3);
        p.run_to_probe_bw();
        p.in_flight = 100.0;
        p.round(1000.0, rtt);
        assert_eq!(p.b.state, State::ProbeBwCruise);
        assert_eq!(p.b.bw_shortterm, f64::INFINITY);
        // Deliveries drop to 300/s (30 per round); one lossless round first, so
        // the latest-round signals hold only the new rate.
        p.in_flight = 30.0;
        p.round(300.0, rtt);
        p.round(300.0, rtt);
        assert_eq!(p.b.bw_shortterm, f64::INFINITY, "no loss, no cut");
        let cwnd0 = p.w.cwnd;
        let mut want_bw = 1000.0;
        let mut want_inflight = cwnd0;
        for _ in 0..4 {
            p.losses = 1;
            p.round(300.0, rtt);
            p.round(300.0, rtt);
            want_bw = f64::max(300.0, 0.7 * want_bw);
            want_inflight = f64::max(30.0, 0.7 * want_inflight);
            assert!(
                (p.b.bw_shortterm - want_bw).abs() < 1e-6,
                "{}",
                p.b.bw_shortterm
            );
            assert!((p.b.inflight_shortterm - want_inflight).abs() < 1e-6);
            assert!(p.w.cwnd <= p.b.inflight_shortterm.max(MIN_PIPE_CWND));
            assert!((p.b.bw() - want_bw).abs() < 1e-6);
        }
        assert_eq!(want_bw, 300.0);
        // BBR.bw sets the pacing rate: gain 1 · 300/s · 1000 B · 0.99.
        assert!((p.b.pacing_rate() - 300.0 * 1000.0 * 0.99).abs() < 1e-6);
        // REFILL discards the short-term model.
        p.b.start_probe_bw_refill();
        assert_eq!(
            (p.b.bw_shortterm, p.b.inflight_shortterm),
            (f64::INFINITY, f64::INFINITY)
        );
    }

    /// §5.5.3 / §5.5.6: max_bw is the best sample of the current and the previous
    /// ProbeBW cycle: a peak is forgotten after two cycle advances, not before.
    #[test]
    fn max_bw_filter_forgets_after_two_cycles() {
        let mut b = Bbr3::new(Bbr3Config::default());
        let rs = RateSample::default();
        b.update_max_bw(&rs, 1000.0);
        b.update_max_bw(&rs, 400.0);
        assert_eq!(b.max_bw(), 1000.0);
        b.advance_max_bw_filter();
        b.update_max_bw(&rs, 500.0);
        assert_eq!(b.max_bw(), 1000.0, "previous cycle still counts");
        b.advance_max_bw_filter();
        b.update_max_bw(&rs, 450.0);
        assert_eq!(b.max_bw(), 500.0, "two cycles on: the peak is gone");
        // App-limited samples count only when above the estimate (§5.5.4).
        let al = RateSample {
            app_limited: true,
            ..RateSample::default()
        };
        b.update_max_bw(&al, 490.0);
        assert_eq!(b.max_bw(), 500.0);
        b.update_max_bw(&al, 800.0);
        assert_eq!(b.max_bw(), 800.0);
    }

    /// In the state machine the filter advances once per ProbeBW cycle, one round
    /// after UP ends (§5.5.6, Linux's ack_phase reset), not every round.
    #[test]
    fn the_filter_advances_once_per_cycle() {
        let mut p = Path::with(
            Bbr3Config {
                probe_rtt_interval: Time::from_secs(1000),
                ..Bbr3Config::default()
            },
            4,
        );
        p.run_to_probe_bw();
        for _ in 0..10 {
            p.round(1000.0, ms(100));
        }
        assert_eq!(p.b.state, State::ProbeBwCruise);
        assert_eq!(
            p.b.cycle_count, 1,
            "one advance for one DOWN, none per round"
        );
        // Three more cycles (each with one REFILL), then a round past the last.
        let refills = |p: &Path| {
            p.states
                .iter()
                .filter(|&&s| s == State::ProbeBwRefill)
                .count()
        };
        while refills(&p) < 4 {
            p.round(1000.0, ms(100));
            assert!(p.now < Time::from_secs(30));
        }
        assert_eq!(p.b.cycle_count, 4);
    }

    /// §5.3.4: with RTT samples never below the minimum, ProbeRTT starts 5 s after
    /// the last minimum, holds cwnd at max(0.5·BDP, 4) until 200 ms and a round
    /// have passed with the flight that low, then restores cwnd and cruises
    /// (§5.3.4.4); the next ProbeRTT comes 5 s after that exit.
    #[test]
    fn probe_rtt_every_five_seconds_at_half_bdp() {
        let rtt = ms(100);
        let mut p = Path::with(no_probe(), 5);
        p.run_to_probe_bw();
        let t_min = p.b.probe_rtt_min_stamp;
        let cwnd_before = p.w.cwnd;
        while p.b.state != State::ProbeRtt {
            p.ack(ms(1), 1000.0, rtt);
            assert!(p.now <= t_min + Time::from_secs(5) + ms(1));
        }
        assert!(p.now > t_min + Time::from_secs(5));
        assert_eq!((p.b.pacing_gain, p.b.cwnd_gain), (1.0, 0.5));
        assert_eq!(p.b.probe_rtt_cwnd(), 50.0, "0.5 · BDP of 100");
        assert_eq!(p.w.cwnd, 50.0);
        assert!(p.w.app_limited, "ProbeRTT marks its samples app-limited");
        p.in_flight = 50.0;
        let t50 = p.now + ms(1);
        while p.b.state == State::ProbeRtt {
            assert_eq!(p.w.cwnd, 50.0);
            p.ack(ms(1), 1000.0, rtt);
            assert!(p.now < t50 + Time::from_secs(1));
        }
        assert!(p.now > t50 + ms(200), "left after {:?}", p.now - t50);
        assert_eq!(p.b.state, State::ProbeBwCruise);
        assert!(p.w.cwnd >= cwnd_before, "{} < {cwnd_before}", p.w.cwnd);
        let t_exit = p.now;
        p.in_flight = 100.0;
        while p.b.state != State::ProbeRtt {
            p.ack(ms(1), 1000.0, rtt);
        }
        let gap = p.now - t_exit;
        assert!(gap > Time::from_secs(5) && gap <= Time::from_secs(5) + ms(1));
        // The min RTT itself is kept 10 s (§5.3.4.3): still 100 ms.
        assert_eq!(p.b.min_rtt, Some(rtt));
    }

    /// §5.6.4.7: CRUISE keeps cwnd ≤ inflight_longterm less the headroom
    /// (max(1, 15 %)), and §5.3.3.6: DOWN waits for that headroom.
    #[test]
    fn cruise_leaves_fifteen_percent_headroom() {
        let mut p = Path::with(no_probe(), 6);
        p.run_to_probe_bw();
        p.b.start_probe_bw_down(p.now);
        p.b.inflight_longterm = 100.0;
        assert_eq!(p.b.inflight_with_headroom(), 85.0);
        p.in_flight = 90.0;
        p.ack(ms(1), 1000.0, ms(100));
        assert_eq!(p.b.state, State::ProbeBwDown, "90 > 85: no headroom yet");
        p.in_flight = 85.0;
        p.ack(ms(1), 1000.0, ms(100));
        assert_eq!(p.b.state, State::ProbeBwCruise);
        p.ack(ms(1), 1000.0, ms(100));
        assert!(p.w.cwnd <= 85.0, "{}", p.w.cwnd);
    }

    /// The defaults are the draft's constants (§2.7, §2.13, §5.3.3.5); values out
    /// of range are refused naming the parameter.
    #[test]
    fn parameters_default_to_the_draft_and_are_range_checked() {
        use crate::cc::{build, Profile};
        let d = Bbr3Config::default();
        assert_eq!((d.loss_thresh, d.beta, d.headroom), (0.02, 0.7, 0.15));
        assert_eq!(d.probe_rtt_interval, Time::from_secs(5));
        assert_eq!(d.probe_rtt_duration, ms(200));
        assert_eq!(d.min_rtt_filter_len, Time::from_secs(10));
        assert_eq!(
            (d.bw_probe_wait, d.bw_probe_rand),
            (Time::from_secs(2), Time::from_secs(1))
        );
        assert_eq!(d.bw_probe_max_rounds, 63);
        let t = |src: &str| -> toml::value::Table { toml::from_str(src).unwrap() };
        assert!(build("bbr3", &t("loss_thresh = 0.05\nbeta = 0.5"), Profile::Linux).is_ok());
        for (src, key) in [
            ("loss_thresh = 0.9", "loss_thresh:"),
            ("beta = 0", "beta:"),
            ("headroom = 1.5", "headroom:"),
            ("probe_rtt_interval = -1", "probe_rtt_interval:"),
            ("cwnd_gain = 2", "cwnd_gain:"),
        ] {
            let e = build("bbr3", &t(src), Profile::Linux).err().unwrap();
            assert!(e.starts_with(key), "{src}: {e}");
        }
    }
}
