//! BBR version 1, as Linux's `net/ipv4/tcp_bbr.c` (v6.x) runs it, with
//! draft-cardwell-iccrg-bbr-congestion-control-00 as its prose: a model of the path
//! (the windowed maximum of delivery-rate samples, `bw`, and the windowed minimum
//! RTT, `min_rtt`) sets the pacing rate (pacing_gain·bw) and cwnd
//! (cwnd_gain·bw·min_rtt + allowances), through four modes:
//!
//! ```text
//!   STARTUP ──full bw (3 rounds < +25 %)──▶ DRAIN ──inflight ≤ BDP + budget──▶ PROBE_BW
//!      ▲                                                             (gain cycle of 8)
//!      └──────────── PROBE_RTT (min_rtt 10 s old: cwnd 4 for 200 ms + 1 round) ◀──────┘
//! ```
//!
//! The sender gives it a delivery-rate sample on every ACK (tcp/delivery.rs) and
//! leaves it cwnd in every state (`cong_control`, Linux `tcp_cong_control`).
//!
//! Deviations from tcp_bbr.c, each small at these rates: rates and gains are `f64`
//! (Linux: fixed point, BW_SCALE 24 and BBR_SCALE 8; the gains keep Linux's
//! rounded values, e.g. high_gain 739/256); no idle restart (`CA_EVENT_TX_START`:
//! the sender has no idle hook, and bulk flows never idle); no undo (`bbr_undo_cwnd`:
//! the sender has no spurious-loss undo); departure times (EDT) are now, so
//! `bbr_packets_in_net_at_edt` is the flight itself (plus the TSO goal when
//! probing). `rs->losses` are the segments this ACK marked lost, as Linux counts them
//! (`tcp_mark_skb_lost`), with SACK; without SACK, the segments resent since the
//! previous ACK.

use super::contract::{Ack, Algorithm, CaState, Congestion, CongestionControl, Window};
use super::params::Params;
use crate::random::Rng;
use crate::units::Time;
use rand::{Rng as _, SeedableRng};

/// `bbr_high_gain` = 2885/1000 + 1/256 in BBR_SCALE: 739/256 ≈ 2.887 (2/ln 2,
/// "the smallest gain that doubles the sending rate each round").
pub const HIGH_GAIN: f64 = 739.0 / 256.0;
/// `bbr_drain_gain` = 1000/2885 in BBR_SCALE: 88/256 = 0.34375 (≈ 1/high_gain).
pub const DRAIN_GAIN: f64 = 88.0 / 256.0;
/// `bbr_pacing_gain[]`: probe, drain, then six phases cruising at 1.
pub const PACING_GAIN: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// `CYCLE_LEN`.
pub const CYCLE_LEN: usize = 8;
/// `bbr_cycle_rand`: the start phase is drawn from the last 7 (never the 0.75 one).
const CYCLE_RAND: u32 = 7;
/// `bbr_bw_rtts` = CYCLE_LEN + 2: the max-bw filter's window, in round trips.
pub const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// `bbr_cwnd_min_target`: cwnd in PROBE_RTT and cwnd's floor.
pub const CWND_MIN_TARGET: f64 = 4.0;
/// `bbr_full_bw_thresh` (5/4) and `bbr_full_bw_cnt` (3).
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
/// `TCP_INIT_CWND`.
const TCP_INIT_CWND: f64 = 10.0;
/// `bbr_min_tso_rate` (1.2 Mbit/s) in bytes/s, and `sk_pacing_shift` (10: ~1 ms of
/// data per TSO burst).
const MIN_TSO_RATE: f64 = 1_200_000.0 / 8.0;
const PACING_SHIFT: u32 = 10;
/// `bbr_pacing_margin_percent`: pace 1 % below the estimated rate.
const PACING_MARGIN: f64 = 0.01;
/// GSO_LEGACY_MAX_SIZE (65,536) − 1 − MAX_TCP_HEADER (320 on x86-64:
/// L1_CACHE_ALIGN(128 + MAX_HEADER)), the byte cap of `bbr_tso_segs_goal`.
const TSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;
/// Long-term ("policed") bandwidth, `bbr_lt_*`: sampling intervals of 4 to 16
/// rounds, loss rate ≥ 50/256, two intervals within 1/8 or 4 kbit/s, used for
/// 48 rounds.
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF: f64 = 4000.0 / 8.0;
const LT_BW_MAX_RTTS: u32 = 48;
/// Ack aggregation, `bbr_extra_acked_*`: gain 1, a max over 5-round windows (two of
/// them), at most 100 ms of bw; an epoch resets after 2^20 segments.
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;

/// Parameters (`cc = { name = "bbr", ... }`); the defaults are tcp_bbr.c's.
#[derive(Clone, Copy, Debug)]
pub struct BbrConfig {
    /// `bbr_min_rtt_win_sec`: the min-RTT filter's window (10 s).
    pub min_rtt_win: Time,
    /// `bbr_probe_rtt_mode_ms`: how long PROBE_RTT holds cwnd at 4 (200 ms).
    pub probe_rtt_time: Time,
    /// `bbr_cwnd_gain` in PROBE_BW (2).
    pub cwnd_gain: f64,
    /// `bbr_extra_acked_gain` (1; 0 disables the ack-aggregation allowance).
    pub extra_acked_gain: f64,
    /// `bbr_extra_acked_max_us` (100 ms).
    pub extra_acked_max: Time,
    /// Long-term (policer) bandwidth detection (`bbr_lt_bw_sampling`).
    pub lt_bw: bool,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            min_rtt_win: Time::from_secs(10),
            probe_rtt_time: Time::from_millis(200),
            cwnd_gain: 2.0,
            extra_acked_gain: 1.0,
            extra_acked_max: Time::from_millis(100),
            lt_bw: true,
        }
    }
}

impl BbrConfig {
    pub fn from_params(p: &mut Params) -> Result<Self, String> {
        let d = BbrConfig::default();
        Ok(BbrConfig {
            min_rtt_win: Time::from_secs_f64(p.pos(
                "min_rtt_win",
                d.min_rtt_win.as_secs_f64(),
                3600.0,
            )?),
            probe_rtt_time: Time::from_secs_f64(p.num(
                "probe_rtt_time",
                d.probe_rtt_time.as_secs_f64(),
                0.0,
                60.0,
            )?),
            cwnd_gain: p.num("cwnd_gain", d.cwnd_gain, 1.0, 16.0)?,
            extra_acked_gain: p.num("extra_acked_gain", d.extra_acked_gain, 0.0, 16.0)?,
            extra_acked_max: Time::from_secs_f64(p.num(
                "extra_acked_max",
                d.extra_acked_max.as_secs_f64(),
                0.0,
                10.0,
            )?),
            lt_bw: p.flag("lt_bw", d.lt_bw)?,
        })
    }
}

/// BBR's mode (`enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Kathleen Nichols' windowed running max (Linux `lib/win_minmax.c`): the best,
/// second-best and third-best samples of the window, each with its time (here a
/// round count), so the max over the last `win` rounds costs O(1) per sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    /// The current maximum.
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    /// `minmax_reset`.
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }

    /// `minmax_running_max`: add sample `v` at time `t`; the max over (t − win, t].
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let val = (t, v);
        // A new max, or nothing left in the window (even the newest, s[2], aged out).
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].1 {
            self.s[2] = val;
            self.s[1] = val;
        } else if v >= self.s[2].1 {
            self.s[2] = val;
        }
        // minmax_subwin_update: age the best samples as the window passes them.
        let dt = t - self.s[0].0;
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].1
    }
}

/// The per-ACK form: `struct bbr`.
pub struct Bbr {
    pub p: BbrConfig,
    rng: Rng,
    pub mode: Mode,
    /// Max-bw filter over BW_RTTS rounds, segments per second.
    bw: MaxFilter,
    /// Round trips so far (`rtt_cnt`), counted by delivered data.
    pub rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// Min RTT and when it was last set (`min_rtt_us`, `min_rtt_stamp`).
    pub min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    prev_ca_state: CaState,
    packet_conservation: bool,
    /// cwnd before loss recovery or PROBE_RTT.
    prior_cwnd: f64,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    /// Full-bandwidth detection (`full_bw`, `full_bw_cnt`, `full_bw_reached`).
    full_bw: f64,
    full_bw_cnt: u32,
    pub full_bw_reached: bool,
    pub cycle_idx: usize,
    cycle_stamp: Time,
    has_seen_rtt: bool,
    /// The pacing rate, bytes per second (`sk_pacing_rate`).
    pacing_rate: f64,
    // Long-term bandwidth (policer) state.
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    pub lt_use_bw: bool,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_stamp: Time,
    lt_last_lost: u64,
    // Ack aggregation.
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
    extra_acked: [f64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    started: bool,
    /// delivered, lost, delivered time and MSS at the last ACK (for a timeout).
    last_counts: (u64, u64, Time, u32),
}

impl Bbr {
    pub fn new(p: BbrConfig) -> Self {
        Bbr {
            p,
            rng: Rng::seed_from_u64(0),
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            prior_cwnd: 0.0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            has_seen_rtt: false,
            pacing_rate: 0.0,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_stamp: Time::ZERO,
            lt_last_lost: 0,
            ack_epoch_stamp: Time::ZERO,
            ack_epoch_acked: 0,
            extra_acked: [0.0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            started: false,
            last_counts: (0, 0, Time::ZERO, 1448),
        }
    }

    /// `bbr_max_bw`: the max-filtered delivery rate, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// `bbr_bw`: the bandwidth the model uses (the long-term one while policed).
    pub fn bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// `bbr_inflight` / `bbr_bdp`: ⌈gain·bw·min_rtt⌉ segments; TCP_INIT_CWND before
    /// the first RTT sample.
    pub fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            None => TCP_INIT_CWND,
            Some(r) => (bw * r.as_secs_f64() * gain - 1e-9).ceil().max(0.0),
        }
    }

    /// `bbr_quantization_budget`: room for 3 TSO bursts, rounded up to an even count
    /// (fewer delayed ACKs), and 2 more in the probing phase so that it raises the
    /// flight above the BDP even when the BDP is small.
    fn quantization_budget(&self, cwnd: f64, mss: u32) -> f64 {
        let mut cwnd = cwnd + 3.0 * self.tso_segs_goal(mss);
        cwnd = 2.0 * (cwnd / 2.0).ceil();
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2.0;
        }
        cwnd
    }

    /// `bbr_inflight`: the flight a phase aims at, the BDP at `gain` plus the
    /// quantization budget. Linux ends the probing and draining phases and DRAIN
    /// against this, not the bare BDP: the flight stays a budget above the BDP, so
    /// a queue of about 3 TSO bursts stands at the bottleneck.
    fn inflight(&self, bw: f64, gain: f64, mss: u32) -> f64 {
        self.quantization_budget(self.bdp(bw, gain), mss)
    }

    /// `bbr_rate_bytes_per_sec`: segments/s → bytes/s with the gain and the 1 %
    /// margin.
    fn rate_bytes(bw: f64, gain: f64, mss: u32) -> f64 {
        bw * mss as f64 * gain * (1.0 - PACING_MARGIN)
    }

    /// `bbr_tso_segs_goal`: the segments of ~1 ms at the pacing rate, at most
    /// GSO_LEGACY_MAX_SIZE − 1 − MAX_TCP_HEADER bytes (45 segments of 1448 B), at
    /// least 2 (1 below 1.2 Mbit/s), at most 127.
    fn tso_segs_goal(&self, mss: u32) -> f64 {
        let min_segs = if self.pacing_rate < MIN_TSO_RATE {
            1.0
        } else {
            2.0
        };
        let bytes = (self.pacing_rate / (1u64 << PACING_SHIFT) as f64)
            .floor()
            .min(TSO_MAX_BYTES);
        (bytes / mss as f64).floor().max(min_segs).min(127.0)
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self, cwnd: f64) {
        if self.prev_ca_state == CaState::Open && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_reset_probe_bw_mode`: a random start phase among the last seven, then
    /// advance one (so never the 0.75 phase first).
    fn reset_probe_bw_mode(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.gen_range(0..CYCLE_RAND) as usize;
        self.advance_cycle_phase(now);
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self, now: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = now;
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(
        &self,
        rs_losses: u64,
        prior_in_flight: f64,
        delivered_time: Time,
        mss: u32,
    ) -> bool {
        let min_rtt = self.min_rtt.unwrap_or(Time::ZERO);
        let is_full_length = delivered_time.saturating_sub(self.cycle_stamp) > min_rtt;
        if self.pacing_gain == 1.0 {
            return is_full_length;
        }
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            // bbr_packets_in_net_at_edt: the TSO goal is added while probing.
            let inflight = prior_in_flight + self.tso_segs_goal(mss);
            return is_full_length
                && (rs_losses > 0 || inflight >= self.inflight(bw, self.pacing_gain, mss));
        }
        is_full_length || prior_in_flight <= self.inflight(bw, 1.0, mss)
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_interval(&mut self, delivered: u64, lost: u64, stamp: Time) {
        // Linux keeps the stamp in milliseconds.
        self.lt_last_stamp = Time::from_millis(stamp.ps() / 1_000_000_000);
        self.lt_last_delivered = delivered;
        self.lt_last_lost = lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt(&mut self, delivered: u64, lost: u64, stamp: Time) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval(delivered, lost, stamp);
    }

    /// `bbr_lt_bw_sampling`: detect a token-bucket policer (a long interval of high
    /// loss at a steady delivery rate) and use that rate for 48 rounds.
    fn lt_bw_sampling(
        &mut self,
        losses: u64,
        app_limited: bool,
        delivered: u64,
        lost: u64,
        stamp: Time,
        mss: u32,
    ) {
        if !self.p.lt_bw {
            return;
        }
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(delivered, lost, stamp);
                    self.reset_probe_bw_mode(stamp);
                }
            }
            return;
        }
        // Wait for the first loss, so a policer has exhausted its tokens.
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval(delivered, lost, stamp);
            self.lt_is_sampling = true;
        }
        if app_limited {
            self.reset_lt(delivered, lost, stamp);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(delivered, lost, stamp);
            return;
        }
        if losses == 0 {
            return;
        }
        let lost_i = lost - self.lt_last_lost;
        let delivered_i = delivered - self.lt_last_delivered;
        if delivered_i == 0 || (lost_i as f64) < LT_LOSS_THRESH * delivered_i as f64 {
            return;
        }
        let t_ms = stamp.ps() / 1_000_000_000;
        let last_ms = self.lt_last_stamp.ps() / 1_000_000_000;
        if t_ms < last_ms + 1 {
            return; // under one millisecond: wait
        }
        let bw = delivered_i as f64 / ((t_ms - last_ms) as f64 * 1e-3);
        // bbr_lt_bw_interval_done
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= LT_BW_RATIO * self.lt_bw || Self::rate_bytes(diff, 1.0, mss) <= LT_BW_DIFF {
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval(delivered, lost, stamp);
    }

    /// `bbr_update_ack_aggregation`: the data ACKed beyond bw over the current
    /// epoch, max-filtered over two windows of 5 rounds.
    fn update_ack_aggregation(&mut self, acked: u64, delivered_time: Time, cwnd: f64) {
        if self.p.extra_acked_gain == 0.0 || acked == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0.0;
            }
        }
        let epoch = delivered_time
            .saturating_sub(self.ack_epoch_stamp)
            .as_secs_f64();
        let mut expected = (self.bw() * epoch).floor();
        if self.ack_epoch_acked as f64 <= expected
            || self.ack_epoch_acked + acked >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = delivered_time;
            expected = 0.0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(0xFFFFF);
        let extra = (self.ack_epoch_acked as f64 - expected).min(cwnd);
        let i = self.extra_acked_win_idx;
        if extra > self.extra_acked[i] {
            self.extra_acked[i] = extra;
        }
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> f64 {
        if self.p.extra_acked_gain == 0.0 || !self.full_bw_reached {
            return 0.0;
        }
        let max_aggr = (self.bw() * self.p.extra_acked_max.as_secs_f64()).floor();
        let extra = self.extra_acked[0].max(self.extra_acked[1]);
        (self.p.extra_acked_gain * extra).floor().min(max_aggr)
    }

    /// `bbr_set_pacing_rate` (with `bbr_init_pacing_rate_from_rtt` at the first
    /// RTT): never lower the rate before the pipe is full.
    fn set_pacing_rate(&mut self, w: &Window, ack: &Ack, bw: f64, gain: f64) {
        if !self.has_seen_rtt && (ack.rtt.srtt > Time::ZERO || self.pacing_rate == 0.0) {
            // Without an RTT yet, a nominal 1 ms (bbr_init).
            self.has_seen_rtt = ack.rtt.srtt > Time::ZERO;
            let rtt = if self.has_seen_rtt {
                ack.rtt.srtt.as_secs_f64()
            } else {
                1e-3
            };
            self.pacing_rate = Self::rate_bytes(w.cwnd / rtt, HIGH_GAIN, ack.mss);
        }
        let rate = Self::rate_bytes(bw, gain, ack.mss);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: deduct losses; packet conservation in
    /// the first round of recovery; restore the cwnd from before recovery after it.
    /// Returns the cwnd and whether conservation decides it.
    fn recover_or_restore(&mut self, cwnd: f64, ack: &Ack, losses: u64, acked: f64) -> (f64, bool) {
        let mut cwnd = cwnd;
        let state = ack.ca_state;
        if losses > 0 {
            cwnd = (cwnd - losses as f64).max(1.0);
        }
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = ack.rate.map_or(0, |r| r.delivered_total);
            cwnd = ack.in_flight + acked;
        } else if self.prev_ca_state != CaState::Open && state == CaState::Open {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(ack.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`.
    fn set_cwnd(&mut self, w: &mut Window, ack: &Ack, losses: u64, bw: f64) {
        let acked = ack.rate.map_or(0, |r| r.acked_sacked) as f64;
        let mut cwnd = w.cwnd;
        if acked > 0.0 {
            let (c, conserving) = self.recover_or_restore(cwnd, ack, losses, acked);
            cwnd = c;
            if !conserving {
                let target = self.quantization_budget(
                    self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd(),
                    ack.mss,
                );
                let delivered = ack.rate.map_or(0, |r| r.delivered_total) as f64;
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || delivered < TCP_INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        w.cwnd = cwnd;
    }

    /// `bbr_update_min_rtt`: the 10 s min filter, PROBE_RTT's entry and exit.
    fn update_min_rtt(&mut self, w: &mut Window, ack: &Ack) {
        let now = ack.now;
        let filter_expired = now > self.min_rtt_stamp + self.p.min_rtt_win;
        if let Some(r) = ack.rtt.latest {
            if self.min_rtt.is_none_or(|m| r < m) || filter_expired {
                self.min_rtt = Some(r);
                self.min_rtt_stamp = now;
            }
        }
        if self.p.probe_rtt_time > Time::ZERO && filter_expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore the low-rate samples of this mode (Linux sets tp->app_limited).
            w.app_limited = true;
            match self.probe_rtt_done_stamp {
                None if ack.in_flight <= CWND_MIN_TARGET => {
                    self.probe_rtt_done_stamp = Some(now + self.p.probe_rtt_time);
                    self.probe_rtt_round_done = false;
                    self.next_rtt_delivered = ack.rate.map_or(0, |r| r.delivered_total);
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    // bbr_check_probe_rtt_done
                    if self.probe_rtt_round_done && now > done {
                        self.min_rtt_stamp = now;
                        w.cwnd = w.cwnd.max(self.prior_cwnd);
                        self.reset_mode(now);
                    }
                }
                None => {}
            }
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    1.0
                } else {
                    PACING_GAIN[self.cycle_idx]
                },
                self.p.cwnd_gain,
            ),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// The pacing rate last set, bytes per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }
}

impl Algorithm for Bbr {
    const NAMES: &'static [&'static str] = &["bbr", "bbr1"];
    type Config = BbrConfig;
    type Fluid = super::contract::NoFluid;
    fn config(p: &mut Params) -> Result<BbrConfig, String> {
        BbrConfig::from_params(p)
    }
    fn packet(cfg: &BbrConfig) -> Box<dyn CongestionControl> {
        Box::new(Bbr::new(*cfg))
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn cong_control(&self) -> bool {
        true
    }

    fn seed(&mut self, seed: u64) {
        self.rng = Rng::seed_from_u64(seed);
    }

    /// `bbr_main`: update the model, then the pacing rate and cwnd.
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        let Some(rs) = ack.rate else {
            return;
        };
        if !self.started {
            // bbr_init: no ssthresh; the min-RTT filter's clock starts now.
            self.started = true;
            w.ssthresh = f64::INFINITY;
            self.min_rtt_stamp = ack.now;
            self.ack_epoch_stamp = ack.now;
            self.next_rtt_delivered = rs.delivered_total.saturating_sub(rs.acked_sacked);
        }
        self.last_counts = (
            rs.delivered_total,
            rs.lost_total,
            rs.delivered_time,
            ack.mss,
        );
        // bbr_update_model
        // bbr_update_bw: round trips by delivered data, then the max filter.
        self.round_start = false;
        if rs.interval > Time::ZERO {
            if rs.prior_delivered >= self.next_rtt_delivered {
                self.next_rtt_delivered = rs.delivered_total;
                self.rtt_cnt += 1;
                self.round_start = true;
                self.packet_conservation = false;
            }
            self.lt_bw_sampling(
                rs.losses,
                rs.app_limited,
                rs.delivered_total,
                rs.lost_total,
                rs.delivered_time,
                ack.mss,
            );
            let bw = rs.delivered as f64 / rs.interval.as_secs_f64();
            if !rs.app_limited || bw >= self.max_bw() {
                self.bw.update(BW_RTTS, self.rtt_cnt, bw);
            }
            self.update_ack_aggregation(rs.acked_sacked, rs.delivered_time, w.cwnd);
        }
        // bbr_update_cycle_phase
        if self.mode == Mode::ProbeBw
            && self.is_next_cycle_phase(
                rs.losses,
                rs.prior_in_flight as f64,
                rs.delivered_time,
                ack.mss,
            )
        {
            self.advance_cycle_phase(rs.delivered_time);
        }
        // bbr_check_full_bw_reached: 3 rounds without 25 % growth.
        if !self.full_bw_reached && self.round_start && !rs.app_limited {
            if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
                self.full_bw = self.max_bw();
                self.full_bw_cnt = 0;
            } else {
                self.full_bw_cnt += 1;
                self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
            }
        }
        // bbr_check_drain
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), 1.0, ack.mss);
        }
        if self.mode == Mode::Drain && ack.in_flight <= self.inflight(self.max_bw(), 1.0, ack.mss) {
            self.reset_probe_bw_mode(ack.now);
        }
        self.update_min_rtt(w, ack);
        self.update_gains();
        // bbr_main, after the model.
        let bw = self.bw();
        self.set_pacing_rate(w, ack, bw, self.pacing_gain);
        self.set_cwnd(w, ack, rs.losses, bw);
        w.pacing_rate = (self.pacing_rate > 0.0).then_some(self.pacing_rate);
    }

    /// `bbr_ssthresh` (save cwnd; ssthresh unchanged) and, on a timeout,
    /// `bbr_set_state(TCP_CA_Loss)`: a new full-bw search and a round boundary.
    fn on_congestion(&mut self, w: &Window, ev: &Congestion) -> f64 {
        self.save_cwnd(w.cwnd);
        if ev.kind == super::contract::CongestionKind::Timeout {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
            // bbr_lt_bw_sampling with rs.losses = 1, on the counters of the last ACK.
            let (d, l, t, mss) = self.last_counts;
            self.lt_bw_sampling(1, false, d, l, t, mss);
        }
        w.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::contract::RateSample;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    /// A scripted path: ACKs of one segment each, `n` per round trip of `rtt`, each
    /// carrying a sample of `bw` segments/s and the RTT `rtt`.
    struct Path {
        bbr: Bbr,
        w: Window,
        now: Time,
        delivered: u64,
        in_flight: f64,
        gains: Vec<f64>,
    }

    impl Path {
        fn new(seed: u64) -> Self {
            let mut bbr = Bbr::new(BbrConfig::default());
            bbr.seed(seed);
            Path {
                bbr,
                w: Window::new(10.0, 1e9),
                now: Time::ZERO,
                delivered: 0,
                in_flight: 10.0,
                gains: Vec::new(),
            }
        }

        /// One ACK, `dt` after the previous one.
        fn ack(&mut self, dt: Time, bw: f64, rtt: Time) {
            self.now += dt;
            self.delivered += 1;
            let window = (bw * rtt.as_secs_f64()).round() as u64;
            let rs = RateSample {
                delivered: window,
                interval: rtt,
                app_limited: false,
                prior_delivered: self.delivered.saturating_sub(window),
                delivered_total: self.delivered,
                delivered_time: self.now,
                acked_sacked: 1,
                prior_in_flight: self.in_flight as u64,
                ..RateSample::default()
            };
            let mut a = Ack::new(self.now, 1.0);
            a.rate = Some(rs);
            a.in_flight = self.in_flight;
            a.mss = 1000;
            a.rtt.latest = Some(rtt);
            a.rtt.srtt = rtt;
            self.bbr.on_ack(&mut self.w, &a);
            if self.gains.last() != Some(&self.bbr.pacing_gain) {
                self.gains.push(self.bbr.pacing_gain);
            }
        }

        /// One round trip of ACKs at `bw`, `rtt`, the flight staying `in_flight`.
        fn round(&mut self, bw: f64, rtt: Time) {
            let n = (bw * rtt.as_secs_f64()).round() as u64;
            for _ in 0..n {
                self.ack(Time(rtt.ps() / n), bw, rtt);
            }
        }
    }

    /// lib/win_minmax.c: the max over the last 10 rounds; a sample that ages out is
    /// replaced by the best of the later ones.
    #[test]
    fn max_filter_keeps_the_best_of_ten_rounds() {
        let mut f = MaxFilter::default();
        f.reset(0, 0.0);
        assert_eq!(f.update(BW_RTTS, 0, 100.0), 100.0);
        for t in 1..=10 {
            assert_eq!(f.update(BW_RTTS, t, 50.0 + t as f64), 100.0, "round {t}");
        }
        // Round 11: the 100 of round 0 has left the window (11 − 0 > 10); the best
        // remaining is a later sample, never more than the true max of rounds 1..=11.
        let m = f.update(BW_RTTS, 11, 40.0);
        assert!((51.0..=60.0).contains(&m), "{m}");
        // A new maximum replaces everything at once.
        assert_eq!(f.update(BW_RTTS, 12, 200.0), 200.0);
        // Nothing in the window any more: the sample alone.
        assert_eq!(f.update(BW_RTTS, 40, 1.0), 1.0);
    }

    /// bbr_check_full_bw_reached: STARTUP ends after 3 rounds in which the max bw
    /// grew less than 25 %, and not while it keeps growing.
    #[test]
    fn startup_exits_after_three_rounds_without_25_percent_growth() {
        let rtt = ms(100);
        let mut p = Path::new(1);
        p.in_flight = 1e6;
        // Growth of 30 % per round: still STARTUP after 8 rounds.
        let mut bw = 100.0;
        for _ in 0..8 {
            p.round(bw, rtt);
            bw *= 1.3;
        }
        assert_eq!(p.bbr.mode, Mode::Startup);
        assert!(!p.bbr.full_bw_reached);
        // Then flat: the first flat round still counts as growth against the full_bw
        // of two rounds back; three more without it end STARTUP.
        let start = p.bbr.rtt_cnt;
        while !p.bbr.full_bw_reached {
            p.round(bw, rtt);
            assert!(p.bbr.rtt_cnt - start <= 5, "stuck in STARTUP");
        }
        let rounds = p.bbr.rtt_cnt - start;
        assert!((3..=4).contains(&rounds), "{rounds} flat rounds");
        // DRAIN paces at 88/256 with the STARTUP cwnd gain, while the flight is above
        // the BDP.
        assert_eq!(p.bbr.mode, Mode::Drain);
        assert_eq!(
            (p.bbr.pacing_gain, p.bbr.cwnd_gain),
            (DRAIN_GAIN, HIGH_GAIN)
        );
    }

    /// bbr_check_drain: DRAIN ends when the flight is at most bbr_inflight(bw, 1), the
    /// BDP plus the quantization budget (here 100 + 3 bursts of 2 segments: 1 ms at
    /// this rate is under 2 segments, bbr_tso_segs_goal's floor); PROBE_BW then
    /// starts in a random phase other than the 0.75 one (bbr_reset_probe_bw_mode).
    #[test]
    fn drain_ends_at_one_bdp_plus_budget_and_probe_bw_never_starts_draining() {
        let rtt = ms(100);
        let bw = 1000.0; // BDP = 100 segments
        let mut starts = [0u32; CYCLE_LEN];
        for seed in 0..200 {
            let mut p = Path::new(seed);
            p.in_flight = 250.0;
            while p.bbr.mode == Mode::Startup {
                p.round(bw, rtt);
            }
            assert_eq!(p.bbr.mode, Mode::Drain);
            assert_eq!(p.w.ssthresh, 106.0, "ssthresh = bbr_inflight(bw, 1)");
            p.in_flight = 107.0;
            p.ack(ms(1), bw, rtt);
            assert_eq!(p.bbr.mode, Mode::Drain, "107 > BDP + 6");
            p.in_flight = 106.0;
            p.ack(ms(1), bw, rtt);
            assert_eq!(p.bbr.mode, Mode::ProbeBw);
            starts[p.bbr.cycle_idx] += 1;
        }
        assert_eq!(starts[1], 0, "never the 0.75 phase first: {starts:?}");
        assert!(
            starts.iter().enumerate().all(|(i, &n)| i == 1 || n > 10),
            "{starts:?}"
        );
    }

    /// bbr_update_cycle_phase: in PROBE_BW with the flight at the BDP the gains go
    /// round the 8-phase cycle [1.25, 0.75, 1, 1, 1, 1, 1, 1], one phase per min_rtt.
    #[test]
    fn probe_bw_cycles_through_the_eight_gains() {
        let rtt = ms(100);
        let bw = 1000.0;
        let mut p = Path::new(7);
        p.in_flight = 100.0;
        while p.bbr.mode != Mode::ProbeBw {
            p.round(bw, rtt);
        }
        // Probing needs inflight ≥ bbr_inflight(bw, 1.25) (or a loss) to end; keep
        // it there.
        p.in_flight = 140.0;
        p.gains.clear();
        let mut phases = Vec::new();
        let mut last = p.bbr.cycle_idx;
        phases.push(last);
        for _ in 0..(3 * CYCLE_LEN) {
            p.round(bw, rtt);
            if p.bbr.cycle_idx != last {
                last = p.bbr.cycle_idx;
                phases.push(last);
            }
        }
        // Each phase follows the previous one, modulo 8, once per round trip.
        assert!(phases.len() >= 2 * CYCLE_LEN, "{phases:?}");
        for w in phases.windows(2) {
            assert_eq!(w[1], (w[0] + 1) % CYCLE_LEN, "{phases:?}");
        }
        let i0 = phases.iter().position(|&i| i == 0).unwrap();
        let gains: Vec<f64> = phases[i0..i0 + CYCLE_LEN]
            .iter()
            .map(|&i| PACING_GAIN[i])
            .collect();
        assert_eq!(gains, PACING_GAIN.to_vec());
        // cwnd = 2·BDP + 3 TSO bursts, even, + 2 in the probing phase (bbr_set_cwnd).
        assert_eq!(p.bbr.cwnd_gain, 2.0);
    }

    /// bbr_is_next_cycle_phase: the probing phase ends after min_rtt once the flight
    /// (plus the TSO goal of the next departure) reaches bbr_inflight(bw, 1.25) =
    /// 125 + 6, even, + 2 in this phase = 134; the draining phase ends early once the
    /// flight is down to bbr_inflight(bw, 1) = 106, not the bare BDP of 100.
    #[test]
    fn probe_and_drain_phases_end_at_bbr_inflight_not_the_bare_bdp() {
        let rtt = ms(100);
        let bw = 1000.0;
        for (flight, probe_ends) in [(131.0, false), (132.0, true)] {
            let mut p = Path::new(3);
            p.in_flight = 100.0;
            while p.bbr.mode != Mode::ProbeBw || p.bbr.cycle_idx != 0 {
                p.round(bw, rtt);
            }
            p.in_flight = flight;
            p.round(bw, rtt);
            p.ack(ms(1), bw, rtt);
            assert_eq!(p.bbr.cycle_idx == 1, probe_ends, "flight {flight}");
        }
        for (flight, drain_ends) in [(107.0, false), (106.0, true)] {
            let mut p = Path::new(3);
            p.in_flight = 100.0;
            while p.bbr.mode != Mode::ProbeBw {
                p.round(bw, rtt);
            }
            p.in_flight = 140.0;
            while p.bbr.cycle_idx != 1 {
                p.round(bw, rtt);
            }
            p.in_flight = flight;
            p.ack(ms(1), bw, rtt);
            assert_eq!(p.bbr.cycle_idx == 2, drain_ends, "flight {flight}");
        }
    }

    /// bbr_update_min_rtt: the min RTT is kept 10 s; when it expires, PROBE_RTT holds
    /// cwnd at 4 for 200 ms and one round once the flight is down to 4, then
    /// restores the cwnd and resumes PROBE_BW.
    #[test]
    fn probe_rtt_after_ten_seconds_holds_four_for_200ms_and_a_round() {
        let bw = 1000.0;
        let mut p = Path::new(3);
        p.in_flight = 100.0;
        while p.bbr.mode != Mode::ProbeBw {
            p.round(bw, ms(100));
        }
        let t_min = p.bbr.min_rtt_stamp;
        assert_eq!(p.bbr.min_rtt, Some(ms(100)));
        // RTT samples of 120 ms: the 100 ms minimum holds for 10 s.
        while p.now < t_min + Time::from_millis(9_990) {
            p.round(bw, ms(120));
            assert_eq!(p.bbr.min_rtt, Some(ms(100)));
            assert_ne!(p.bbr.mode, Mode::ProbeRtt);
        }
        let cwnd_before = p.w.cwnd;
        while p.bbr.mode != Mode::ProbeRtt {
            p.ack(ms(1), bw, ms(120));
        }
        assert!(p.now > t_min + Time::from_secs(10));
        assert_eq!(p.bbr.min_rtt, Some(ms(120)), "expired: the new sample");
        assert_eq!(p.w.cwnd, CWND_MIN_TARGET);
        assert!(p.w.app_limited, "PROBE_RTT marks its samples app-limited");
        // The flight drains to 4; from then, 200 ms and a round.
        p.in_flight = 4.0;
        let t4 = p.now + ms(1);
        while p.bbr.mode == Mode::ProbeRtt {
            assert_eq!(p.w.cwnd, CWND_MIN_TARGET);
            p.ack(ms(1), bw, ms(120));
            assert!(p.now < t4 + ms(1000));
        }
        assert!(p.now >= t4 + ms(200), "left after {:?}", p.now - t4);
        assert_eq!(p.bbr.mode, Mode::ProbeBw);
        assert!(
            p.w.cwnd >= cwnd_before,
            "cwnd restored: {} < {cwnd_before}",
            p.w.cwnd
        );
    }

    /// bbr_set_pacing_rate / bbr_rate_bytes_per_sec: pacing_gain · bw · MSS · 0.99.
    #[test]
    fn pacing_rate_is_gain_times_bw_with_a_one_percent_margin() {
        let mut p = Path::new(5);
        p.in_flight = 100.0;
        while p.bbr.mode != Mode::ProbeBw {
            p.round(1000.0, ms(100));
        }
        let want = p.bbr.pacing_gain * 1000.0 * 1000.0 * 0.99;
        assert!((p.w.pacing_rate.unwrap() - want).abs() < 1e-6 * want);
    }

    /// bbr_tso_segs_goal: ~1 ms at the pacing rate in whole segments, at least 2 (1
    /// below 1.2 Mbit/s), and never more than a 64 KB GSO skb (less MAX_TCP_HEADER):
    /// 45 segments of 1448 B at 1 Gb/s, not the 84 of a millisecond.
    #[test]
    fn tso_segs_goal_is_a_millisecond_capped_at_one_gso_skb() {
        let mut b = Bbr::new(BbrConfig::default());
        for (rate, want) in [(2.47e6, 2.0), (5.9e6, 3.0), (122e6, 45.0), (100e3, 1.0)] {
            b.pacing_rate = rate;
            assert_eq!(b.tso_segs_goal(1448), want, "pacing rate {rate} B/s");
        }
    }
}
