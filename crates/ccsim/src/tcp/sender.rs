//! The TCP sender: window, loss recovery (Reno / NewReno / SACK), retransmission
//! timer, ECN reaction.
//!
//! Sequence numbers count segments. The congestion-control algorithm (`cc`) decides
//! cwnd and ssthresh; everything else — duplicate-ACK counting, fast retransmit and
//! recovery, the RTO and its backoff — is here, so any algorithm runs with any
//! recovery.

use crate::cc::{AckInfo, CcState, CongestionControl, CongestionInfo, CongestionKind, RoundInfo};
use crate::packet::{Packet, PktKind, XcpHeader};
use crate::tcp::pacer::{Pacer, PacingMode};
use crate::tcp::rtt::RttEstimator;
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
    pub timestamps: bool,
    pub dupthresh: u32,
    pub recovery: Recovery,
    pub pacing: PacingMode,
    /// RFC 3168: send data as ECN-capable and react to ECN-Echo.
    pub ecn: bool,
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
}

pub struct Sender {
    pub cfg: SenderConfig,
    /// Total segments to send (u64::MAX: unlimited) and the payload of the last one.
    pub limit: u64,
    pub last_payload: u32,
    pub data_path: u32,
    pub flow: u32,
    pub cc: Box<dyn CongestionControl>,
    pub st: CcState,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub high_tx: u64,
    dupacks: u32,
    pub in_recovery: bool,
    /// RFC 6582 `recover`: high_tx when recovery (or a timeout) began.
    recover: u64,
    /// high_tx at the last timeout (0: none yet): the guard against fast
    /// retransmits caused by the sender's own go-back-N resends (RFC 6582 §4).
    rto_recover: u64,
    first_partial: bool,
    pub rtt: RttEstimator,
    /// Karn's rule without timestamps: the one segment being timed, and when.
    timed: Option<(u64, Time)>,
    pub rto_deadline: Option<Time>,
    pub pacer: Pacer,
    /// Pacing holds the next packet until this time (the engine sets a timer).
    pub pace_at: Option<Time>,
    last_tx: Option<Time>,
    pub stats: SenderStats,
    /// RFC 6675 scoreboard: SACKed ranges [start, end) above snd_una, sorted and
    /// disjoint (a handful of holes, so every query is O(holes), not O(window)).
    sacked: Vec<(u64, u64)>,
    /// One past the highest segment retransmitted in this recovery (HighRxt + 1).
    rxt_next: u64,
    /// Segments below this that are not SACKed are lost (RFC 6675 IsLost).
    lost_end: u64,
    /// RFC 3168 §6.1.2: no second ECN reduction until snd_una passes this point.
    ecn_recover: u64,
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
    recovery_start: Time,
    /// The algorithm wants the XCP congestion header (asked once, not per packet).
    xcp: bool,
    /// snd_una at the last timeout: that segment has been resent by the timer.
    rto_una: Option<u64>,
    // Once-per-RTT bookkeeping.
    round_end: u64,
    round_min: Option<Time>,
    round_sum: f64,
    round_n: u32,
    round_acked: u64,
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
        let pacing = cfg.pacing;
        let xcp = cc.xcp();
        Sender {
            st: CcState {
                cwnd: cfg.init_cwnd,
                ssthresh: cfg.init_ssthresh,
                pacing_rate: None,
            },
            cfg,
            limit,
            last_payload,
            data_path,
            flow,
            cc,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            rto_recover: 0,
            first_partial: true,
            rtt,
            timed: None,
            rto_deadline: None,
            pacer: Pacer::new(pacing),
            pace_at: None,
            last_tx: None,
            stats: SenderStats::default(),
            sacked: Vec::new(),
            rxt_next: 0,
            lost_end: 0,
            ecn_recover: 0,
            cwr_pending: false,
            recovery_start: Time::ZERO,
            xcp,
            rto_una: None,
            round_end: 0,
            round_min: None,
            round_sum: 0.0,
            round_n: 0,
            round_acked: 0,
        }
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.limit
    }

    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
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
        // XCP congestion header (Katabi et al. 2002, §3.2): cwnd in bytes on the wire,
        // SRTT, and an unlimited request that the routers lower (cc/xcp.rs).
        if self.xcp {
            p.set_xcp(XcpHeader {
                cwnd: (self.st.cwnd * (self.cfg.mss + self.cfg.header) as f64) as f32,
                rtt: self.rtt.srtt.unwrap_or(0.0) as f32,
                feedback: f32::INFINITY,
            });
        }
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        if self.cfg.ecn && !retx {
            p.ect = true;
            if self.cwr_pending {
                p.cwr = true;
                self.cwr_pending = false;
            }
        }
        out.push(p);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// Pacing gate: true if a packet may leave now; otherwise records when.
    fn pace_ok(&mut self, now: Time) -> bool {
        let pkt = (self.cfg.mss + self.cfg.header) as f64;
        if let Some(iv) = self.pacer.interval(&self.st, self.rtt.srtt, pkt) {
            if let Err(at) = self.pacer.take(now, iv) {
                self.pace_at = Some(at);
                return false;
            }
        }
        true
    }

    /// Send what the window (and the pacer) allows.
    pub fn try_send(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.pace_at = None;
        let paced = self.pacer.active(&self.st);
        if self.in_recovery && self.cfg.recovery == Recovery::Sack {
            self.sack_send(paced, now, out);
            return;
        }
        let wnd = (self.st.cwnd.floor().max(1.0) as u64).min(self.cfg.rwnd);
        while self.snd_nxt < self.limit && self.snd_nxt < self.snd_una + wnd {
            if paced && !self.pace_ok(now) {
                break;
            }
            let seq = self.snd_nxt;
            self.segment(seq, now, out);
            self.snd_nxt += 1;
            self.high_tx = self.high_tx.max(self.snd_nxt);
        }
    }

    // ---- RFC 6675 SACK-based recovery ---------------------------------------

    /// Merge the ACK's SACK blocks into the scoreboard (RFC 6675 §5 step (A) "Update").
    fn update_scoreboard(&mut self, ack: &Packet) {
        for (s, e) in ack.sack_blocks() {
            let s = s.max(self.snd_una);
            let e = e.min(self.high_tx);
            if s >= e {
                continue;
            }
            // Ranges that overlap or touch [s, e) are i..j; replace them by one.
            let i = self.sacked.partition_point(|&(_, re)| re < s);
            let j = self.sacked.partition_point(|&(rs, _)| rs <= e);
            if i < j {
                let ns = s.min(self.sacked[i].0);
                let ne = e.max(self.sacked[j - 1].1);
                self.sacked[i] = (ns, ne);
                self.sacked.drain(i + 1..j);
            } else {
                self.sacked.insert(i, (s, e));
            }
        }
    }

    /// Forget SACK state below the new cumulative ACK point.
    fn advance_scoreboard(&mut self) {
        let a = self.snd_una;
        let k = self.sacked.partition_point(|&(_, e)| e <= a);
        self.sacked.drain(..k);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(a);
        }
    }

    /// SACKed segments in [x, y).
    fn sacked_in(&self, x: u64, y: u64) -> u64 {
        self.sacked
            .iter()
            .map(|&(s, e)| e.min(y).saturating_sub(s.max(x)))
            .sum()
    }

    /// RFC 6675 IsLost, as a boundary: a segment is lost when at least DupThresh
    /// SACKed segments lie above it, so every un-SACKed segment below the
    /// DupThresh-th SACKed segment from the top is lost.
    fn compute_lost_end(&mut self) {
        let need = self.cfg.dupthresh.max(1) as u64;
        let mut acc = 0;
        self.lost_end = self.snd_una;
        for &(s, e) in self.sacked.iter().rev() {
            if acc + (e - s) >= need {
                self.lost_end = e - (need - acc);
                return;
            }
            acc += e - s;
        }
    }

    /// RFC 6675 §4 SetPipe, in segments: un-SACKed segments not deemed lost, plus
    /// those retransmitted in this recovery (below HighRxt).
    fn pipe(&self) -> u64 {
        let una = self.snd_una;
        let lo = self.lost_end.clamp(una, self.high_tx);
        let not_lost = (self.high_tx - lo) - self.sacked_in(lo, self.high_tx);
        let rx = self.rxt_next.clamp(una, self.high_tx);
        let retx = (rx - una) - self.sacked_in(una, rx);
        not_lost + retx
    }

    /// The lowest un-SACKed segment at or above `x`.
    fn next_unsacked(&self, mut x: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, e)| e <= x);
        for &(s, e) in &self.sacked[i..] {
            if s > x {
                break;
            }
            x = x.max(e);
        }
        x
    }

    /// RFC 6675 §4 NextSeg: (1) the lowest lost segment above HighRxt, (2) new
    /// data, (3) the lowest un-SACKed segment above HighRxt below HighACK. Rule 4
    /// (rescue retransmission) is optional and not used.
    fn next_seg(&self) -> Option<u64> {
        let x = self.next_unsacked(self.rxt_next.max(self.snd_una));
        if x < self.lost_end {
            return Some(x);
        }
        if self.snd_nxt < self.limit && self.snd_nxt - self.snd_una < self.cfg.rwnd {
            return Some(self.snd_nxt);
        }
        let high_ack = self.sacked.last().map_or(self.snd_una, |r| r.1);
        (x < high_ack).then_some(x)
    }

    /// RFC 6675 §5 steps (C)-(E): send while cwnd - pipe >= 1 segment.
    fn sack_send(&mut self, paced: bool, now: Time, out: &mut Vec<Packet>) {
        self.compute_lost_end();
        let mut pipe = self.pipe();
        while self.st.cwnd - pipe as f64 >= 1.0 {
            let Some(seq) = self.next_seg() else { break };
            if paced && !self.pace_ok(now) {
                break;
            }
            self.segment(seq, now, out);
            if seq < self.high_tx {
                self.rxt_next = self.rxt_next.max(seq + 1);
            } else {
                self.snd_nxt = seq + 1;
                self.high_tx = self.snd_nxt;
            }
            pipe += 1;
        }
    }

    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.round_end = 0;
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
        let a = ack.seq;
        if a > self.high_tx {
            return; // acknowledges data never sent: ignore
        }
        if a > self.snd_una {
            self.on_new_ack(a, ack.ts_ecr, ack.xcp(), now, out);
            if self.cfg.recovery == Recovery::Sack {
                self.update_scoreboard(ack);
            }
        } else if a == self.snd_una && self.snd_una < self.high_tx {
            if self.cfg.recovery == Recovery::Sack {
                self.update_scoreboard(ack);
            }
            self.on_dupack(now, out);
        }
        if ack.ece && self.cfg.ecn {
            self.on_ecn_echo(now);
        }
        self.try_send(now, out);
    }

    /// RFC 3168 §6.1.2: react to ECN-Echo as to a loss, at most once per window of
    /// data, and not while already reducing for a loss; tell the receiver with CWR.
    fn on_ecn_echo(&mut self, now: Time) {
        if self.in_recovery || self.snd_una < self.ecn_recover {
            return;
        }
        self.stats.ecn_reductions += 1;
        self.congestion(CongestionKind::Ecn, now);
        self.st.cwnd = self.st.ssthresh.max(1.0);
        self.cwr_pending = true;
    }

    fn on_new_ack(
        &mut self,
        a: u64,
        ts_ecr: Time,
        xcp: Option<XcpHeader>,
        now: Time,
        out: &mut Vec<Packet>,
    ) {
        let acked = a - self.snd_una;
        // RTT sample: the timestamp echo (RFC 7323 §4.3), or the timed segment (Karn).
        let sample = if self.cfg.timestamps {
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
        if let Some(r) = sample {
            self.rtt.sample(r);
            // RFC 6298 §5.7 / Karn: a valid sample for new data ends the backoff.
            self.rtt.backoff = 0;
            self.round_min = Some(self.round_min.map_or(r, |m| m.min(r)));
            self.round_sum += r.as_secs_f64();
            self.round_n += 1;
        }
        self.snd_una = a;
        if self.snd_nxt < a {
            self.snd_nxt = a;
        }
        if self.cfg.recovery == Recovery::Sack {
            self.advance_scoreboard();
        }
        self.round_acked += acked;

        if self.in_recovery {
            let full = match self.cfg.recovery {
                Recovery::Reno => true,
                Recovery::NewReno | Recovery::Sack => a >= self.recover,
            };
            if full {
                // RFC 6582 §3.2 step 3, option 2 (as ns-2): cwnd = ssthresh.
                self.in_recovery = false;
                self.stats.recovery_time += now - self.recovery_start;
                self.dupacks = 0;
                self.st.cwnd = self.st.ssthresh;
                self.cc.on_recovery_exit(&mut self.st, now);
            } else if self.cfg.recovery == Recovery::Sack {
                // RFC 6675 §5 (C): a cumulative ACK inside recovery only updates the
                // scoreboard; the caller then sends by pipe. RFC 6298 §5.3: restart
                // the timer on an ACK of new data.
                self.restart_timer(now);
                self.end_round_if_due(now);
                return;
            } else {
                // Partial ACK (RFC 6582 §3.2 step 4): retransmit the next hole,
                // deflate by the amount acked, add back one segment.
                let seq = self.snd_una;
                self.segment(seq, now, out);
                self.st.cwnd = (self.st.cwnd - acked as f64 + 1.0).max(1.0);
                if self.first_partial {
                    self.first_partial = false;
                    self.restart_timer(now);
                }
                self.end_round_if_due(now);
                return;
            }
        } else {
            self.dupacks = 0;
            let info = AckInfo {
                now,
                acked,
                rtt: sample,
                srtt: self.rtt.srtt_time(),
                min_rtt: self.rtt.min_rtt.unwrap_or(Time::ZERO),
                in_flight: self.in_flight(),
                in_recovery: false,
                xcp_feedback: xcp.map_or(0.0, |h| {
                    h.feedback as f64 / (self.cfg.mss + self.cfg.header) as f64
                }),
            };
            self.cc.on_ack(&mut self.st, &info);
        }
        self.restart_timer(now);
        self.end_round_if_due(now);
    }

    fn end_round_if_due(&mut self, now: Time) {
        if self.snd_una < self.round_end {
            return;
        }
        let r = RoundInfo {
            now,
            min_rtt_round: self.round_min,
            mean_rtt_round: (self.round_n > 0)
                .then(|| Time::from_secs_f64(self.round_sum / self.round_n as f64)),
            base_rtt: self.rtt.min_rtt.unwrap_or(Time::ZERO),
            srtt: self.rtt.srtt_time(),
            acked: self.round_acked,
        };
        self.cc.on_round(&mut self.st, &r);
        self.round_end = self.snd_nxt.max(self.snd_una + 1);
        self.round_min = None;
        self.round_sum = 0.0;
        self.round_n = 0;
        self.round_acked = 0;
    }

    fn on_dupack(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.dupacks += 1;
        if self.cfg.recovery == Recovery::Sack {
            self.sack_dupack(now, out);
            return;
        }
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate by one segment per further duplicate.
            self.st.cwnd += 1.0;
            return;
        }
        if self.dupacks != self.cfg.dupthresh {
            return;
        }
        // RFC 6582 §4: after a timeout the sender resends segments the receiver may
        // already hold, and each brings back a duplicate acknowledging exactly up to
        // the highest segment sent before the timeout. Such duplicates do not "cover
        // more than recover" (ack − 1 > recover, RFC 6582 §3.2, with `rto_recover`
        // one past that segment): they show redundant retransmissions, not a new
        // loss, and start no fast retransmit (ns-2's `bugFix_`, on by default, does
        // the same for Reno and NewReno). After a fast recovery NewReno waits only
        // for snd_una to reach `recover`, not to pass it as ns-2 does: a loss of the
        // first segment sent after the recovery point then gets a fast retransmit
        // rather than a timeout (RFC 6582 §4 leaves that case to its heuristics).
        if self.rto_recover > 0 && self.snd_una <= self.rto_recover {
            return;
        }
        if self.cfg.recovery == Recovery::NewReno && self.snd_una < self.recover {
            return;
        }
        self.stats.fast_retransmits += 1;
        self.congestion(CongestionKind::FastRetransmit, now);
        self.in_recovery = true;
        self.recovery_start = now;
        self.first_partial = true;
        self.recover = self.high_tx;
        self.st.cwnd = self.st.ssthresh + self.cfg.dupthresh as f64;
        let seq = self.snd_una;
        self.segment(seq, now, out);
        self.restart_timer(now);
    }

    /// RFC 6675 §5: enter recovery on DupThresh duplicates or once IsLost(snd_una);
    /// in recovery, duplicates need nothing here (the caller sends by pipe).
    fn sack_dupack(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.in_recovery {
            return;
        }
        self.compute_lost_end();
        if self.dupacks < self.cfg.dupthresh && self.lost_end <= self.snd_una {
            return;
        }
        // RFC 6675 §5.1: after a timeout, no new recovery until HighACK (the highest
        // octet cumulatively acknowledged) passes the RecoveryPoint set then (HighData,
        // the highest octet sent: `rto_recover` is one past it); duplicates from
        // resent segments the receiver held acknowledge exactly up to it. After a
        // recovery, a new one may start once snd_una reaches its RecoveryPoint.
        if (self.rto_recover > 0 && self.snd_una <= self.rto_recover) || self.snd_una < self.recover
        {
            return;
        }
        self.stats.fast_retransmits += 1;
        self.congestion(CongestionKind::FastRetransmit, now);
        self.in_recovery = true;
        self.recovery_start = now;
        // RecoveryPoint = HighData. RFC 6675 §5 step (4.2): cwnd = ssthresh; (4.3)
        // retransmit the first un-SACKed segment; then (4.4) send by pipe (the caller's
        // try_send).
        self.recover = self.high_tx;
        self.st.cwnd = self.st.ssthresh.max(1.0);
        let seq = self.snd_una;
        self.segment(seq, now, out);
        self.rxt_next = seq + 1;
        self.restart_timer(now);
    }

    fn congestion(&mut self, kind: CongestionKind, now: Time) {
        let info = CongestionInfo {
            now,
            kind,
            in_flight: self.in_flight(),
            srtt: self.rtt.srtt_time(),
            min_rtt: self.rtt.min_rtt.unwrap_or(Time::ZERO),
        };
        self.cc.on_congestion(&mut self.st, &info);
        // RFC 3168 §6.1.2: one reduction per window, whatever signalled it; ECN-Echo
        // for data sent before this point does not reduce again.
        self.ecn_recover = self.high_tx;
    }

    /// The retransmission timer expired (the caller checked the deadline).
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.rto_deadline = None;
        if self.snd_una >= self.high_tx {
            return;
        }
        self.stats.timeouts += 1;
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
            let reduced = self.in_recovery.then_some(self.st.ssthresh);
            self.congestion(CongestionKind::Timeout, now);
            if let Some(ssthresh) = reduced {
                self.st.ssthresh = ssthresh;
            }
        }
        self.rto_una = Some(self.snd_una);
        // RFC 5681 §3.1: loss window of one segment; go back to the first unacked.
        self.st.cwnd = 1.0;
        if self.in_recovery {
            self.stats.recovery_time += now - self.recovery_start;
        }
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.high_tx;
        self.rto_recover = self.high_tx;
        self.snd_nxt = self.snd_una;
        self.timed = None;
        // RFC 2018 §8: after a timeout the SACK information is not trusted (the
        // receiver may have reneged); start the scoreboard afresh.
        self.sacked.clear();
        self.rxt_next = self.snd_una;
        self.lost_end = self.snd_una;
        // RFC 6298 §5.5: back off the timer.
        self.rtt.backoff = (self.rtt.backoff + 1).min(16);
        self.rto_deadline = Some(now + self.rtt.rto());
        self.try_send(now, out);
    }
}
