//! The TCP receiver: cumulative ACKs, an out-of-order buffer, immediate duplicate
//! ACKs for out-of-order data, and optional delayed ACKs (RFC 1122 §4.2.3.2).
//!
//! With `read_latency`, in-order data is acknowledged as Linux acknowledges it for an
//! application that sleeps until data arrives (iperf3, any `select`/`epoll` reader):
//! an arriving segment wakes the application, which reads everything that has arrived
//! by the time it runs, and the read sends the ACK (`tcp_recvmsg` → `tcp_cleanup_rbuf`)
//! if more than one full segment is unacknowledged, or if it drained a segment that
//! carried PSH (`ICSK_ACK_PUSHED`, set for a full-sized PSH segment by
//! `tcp_measure_rcv_mss` since Linux 6.5); else the delayed-ACK timer sends it. The
//! softirq's own every-second-segment ACK (`__tcp_ack_snd_check`) needs the receive
//! window to advance, which unread data prevents: on the testbed 1,641 of 1,642 ACKs
//! left from the application's reads (docs/linux.md, "How the testbed's receiver ACKs").

use crate::packet::{Packet, PktKind};
use crate::random::{Law, Rng};
use crate::units::Time;
use std::collections::VecDeque;

pub struct Receiver {
    pub flow: u32,
    pub ack_path: u32,
    pub header: u32,
    /// Next segment expected in order.
    pub rcv_nxt: u64,
    /// Out-of-order segments held, as sorted disjoint ranges [start, end).
    /// A deque: in-order delivery consumes ranges at the front.
    ooo: VecDeque<(u64, u64)>,
    /// TS.Recent (RFC 7323 §4.3): the TSval to echo, of the first segment at or below
    /// Last.ACK.sent (`rcv_wup`): with delayed ACKs the oldest segment an ACK covers.
    ts_recent: Time,
    /// Last.ACK.sent (RFC 7323 §4.3; Linux's `rcv_wup`): rcv_nxt when the last ACK left.
    rcv_wup: u64,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    /// Segments still to acknowledge at once at the start, delayed ACKs or not (Linux's
    /// quick-ack mode: `tcp_incr_quickack` grants up to TCP_MAX_QUICKACKS = 16).
    pub quickack: u32,
    /// Linux's SACK compression, with the longest a compressed ACK waits (None: every
    /// out-of-order segment is ACKed at once, RFC 5681 §4.2).
    pub sack_compression: Option<Time>,
    /// Out-of-order segments not yet ACKed under SACK compression (`compressed_ack`).
    compressed: u32,
    /// Duplicate ACKs sent at once for the hole at `dup_acks_for` (`dup_ack_counter`,
    /// `compressed_ack_rcv_nxt`).
    dup_acks: u32,
    dup_acks_for: u64,
    /// In-order full segments not yet acknowledged (delayed ACKs).
    unacked: u32,
    pub delack_deadline: Option<Time>,
    /// Payload bytes delivered in order, and the flow's size in segments.
    pub bytes_delivered: u64,
    pub limit: u64,
    pub mss: u32,
    pub last_payload: u32,
    pub completed_at: Option<Time>,
    pub acks_sent: u64,
    /// RFC 2018 SACK: report held ranges on every ACK.
    pub sack: bool,
    /// RFC 3168 §6.1.3: echo ECE on every ACK from a CE mark until a CWR arrives. With
    /// `per_packet_echo`, RFC 8257 §3.2's DCTCP.CE: whether the last segment was CE.
    ece: bool,
    /// RFC 8257 §3.2 (DCTCP, and Prague here): ECE echoes the CE mark of each segment,
    /// not a latch; CWR is ignored.
    pub per_packet_echo: bool,
    /// Data segments that arrived CE-marked (the flow's ECN marks).
    pub ce_received: u64,
    /// The most recently received out-of-order segment (its block goes first).
    last_ooo: Option<u64>,
    /// A segment of the block updated before `last_ooo`'s (the second of Linux's
    /// most-recent-first `selective_acks`), for SACK compression.
    prev_ooo: Option<u64>,
    /// XCP: feedback (bytes) of the data received since the last ACK, echoed and
    /// reset by the next ACK; None until an XCP data packet arrives.
    xcp_feedback: Option<f64>,
    /// ACKs at the application's reads (module doc): the application's wake-up
    /// latency in seconds and its random stream. None: ACKs as data arrives.
    reads: Option<(Law, Rng)>,
    /// When the woken application reads next (None: it sleeps).
    read_at: Option<Time>,
    /// A segment with PSH arrived since the last ACK (`ICSK_ACK_PUSHED`).
    pushed: bool,
}

/// Linux's TCP_FASTRETRANS_THRESH: duplicate ACKs a compressing receiver sends at once.
const FASTRETRANS_THRESH: u32 = 3;
/// Linux's TCP_SACK_BLOCKS_EXPECTED: the SACK blocks a compressed ACK is trusted to carry.
const SACK_BLOCKS_EXPECTED: usize = 2;
/// Linux's `net.ipv4.tcp_comp_sack_nr` default: the most ACKs compressed into one.
const COMP_SACK_NR: u32 = 44;

impl Receiver {
    pub fn new(
        flow: u32,
        ack_path: u32,
        header: u32,
        mss: u32,
        limit: u64,
        last_payload: u32,
    ) -> Self {
        Receiver {
            flow,
            ack_path,
            header,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            ts_recent: Time::ZERO,
            rcv_wup: 0,
            delayed_ack: false,
            delack_timeout: Time::from_millis(200),
            quickack: 0,
            unacked: 0,
            delack_deadline: None,
            bytes_delivered: 0,
            limit,
            mss,
            last_payload,
            completed_at: None,
            acks_sent: 0,
            sack: false,
            ece: false,
            per_packet_echo: false,
            ce_received: 0,
            last_ooo: None,
            prev_ooo: None,
            sack_compression: None,
            compressed: 0,
            dup_acks: 0,
            dup_acks_for: u64::MAX,
            xcp_feedback: None,
            reads: None,
            read_at: None,
            pushed: false,
        }
    }

    /// Acknowledge in-order data at the application's reads, the application waking
    /// `latency` (seconds) after the data that wakes it arrives.
    pub fn ack_at_reads(&mut self, latency: Law, rng: Rng) {
        self.reads = Some((latency, rng));
    }

    /// Seed the application's wake-up latencies (one stream per flow instance).
    pub fn seed_reads(&mut self, seed: u64) {
        if let Some((_, rng)) = &mut self.reads {
            *rng = <Rng as rand::SeedableRng>::seed_from_u64(seed);
        }
    }

    /// When the application's next read acknowledges something. A read that will find
    /// one unpushed segment sends nothing and needs no event (half the reads of a flow
    /// whose skbs are pairs): it counts only once more data has arrived before it.
    pub fn read_deadline(&self) -> Option<Time> {
        self.read_at
            .filter(|_| self.unacked >= 2 || (self.unacked == 1 && self.pushed))
    }

    fn payload_of(&self, seq: u64) -> u64 {
        if seq + 1 == self.limit {
            self.last_payload as u64
        } else {
            self.mss as u64
        }
    }

    fn ack(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.rcv_wup = self.rcv_nxt;
        self.unacked = 0;
        self.pushed = false;
        self.compressed = 0;
        self.delack_deadline = None;
        self.acks_sent += 1;
        let mut p = Packet::new(
            PktKind::Ack,
            self.flow,
            self.ack_path,
            self.rcv_nxt,
            self.header,
            0,
            now,
        );
        p.ts_ecr = self.ts_recent;
        if let Some(fb) = self.xcp_feedback.as_mut().map(std::mem::take) {
            p.set_xcp(crate::packet::XcpHeader {
                cwnd: 0.0,
                rtt: 0.0,
                feedback: fb as f32,
            });
        }
        p.ece = self.ece;
        if self.sack && !self.ooo.is_empty() {
            self.fill_sack(&mut p);
        }
        out.push(p);
    }

    /// RFC 2018 §4: the first block holds the most recently received segment; the
    /// others follow, highest first (the ranges most likely to be news to the sender).
    fn fill_sack(&self, p: &mut Packet) {
        let base = self.rcv_nxt;
        let mut n = 0usize;
        let mut blocks = [(0u32, 0u32); 3];
        // Binary search: after a deep slow-start overshoot the receiver holds
        // thousands of ranges, and this runs on every ACK.
        let first = self.last_ooo.and_then(|s| {
            let i = self.ooo.partition_point(|&(_, e)| e <= s);
            (i < self.ooo.len() && self.ooo[i].0 <= s).then_some(i)
        });
        let order = first
            .into_iter()
            .chain((0..self.ooo.len()).rev().filter(|&i| Some(i) != first));
        for i in order.take(3) {
            let (a, e) = self.ooo[i];
            blocks[n] = ((a - base) as u32, (e - base) as u32);
            n += 1;
        }
        p.set_sack(&blocks[..n]);
    }

    /// Advance rcv_nxt over `seq` and any contiguous held ranges.
    fn deliver_in_order(&mut self, now: Time) {
        let mut delivered = self.payload_of(self.rcv_nxt);
        self.rcv_nxt += 1;
        let mut k = 0;
        while let Some(&(s, e)) = self.ooo.get(k) {
            if s > self.rcv_nxt {
                break;
            }
            for q in self.rcv_nxt.max(s)..e {
                delivered += self.payload_of(q);
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            k += 1;
        }
        // One shift of the held ranges, not one per range consumed.
        self.ooo.drain(..k);
        self.bytes_delivered += delivered;
        if self.rcv_nxt >= self.limit && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }

    /// Insert an out-of-order segment; returns false if it was already held.
    fn hold(&mut self, seq: u64) -> bool {
        let i = self.ooo.partition_point(|&(_, e)| e < seq);
        if i < self.ooo.len() {
            let (s, e) = self.ooo[i];
            if seq >= s && seq < e {
                return false;
            }
            if e == seq {
                self.ooo[i].1 = seq + 1;
                if i + 1 < self.ooo.len() && self.ooo[i + 1].0 == seq + 1 {
                    self.ooo[i].1 = self.ooo[i + 1].1;
                    self.ooo.remove(i + 1);
                }
                return true;
            }
            if s == seq + 1 {
                self.ooo[i].0 = seq;
                return true;
            }
        }
        self.ooo.insert(i, (seq, seq + 1));
        true
    }

    /// A data segment arrived. ACKs to send go to `out`.
    pub fn on_data(&mut self, pkt: &Packet, now: Time, out: &mut Vec<Packet>) {
        let seq = pkt.seq;
        if let Some(h) = pkt.xcp() {
            *self.xcp_feedback.get_or_insert(0.0) += h.feedback as f64;
        }
        // ECN: nothing to do for an unmarked segment without CWR of a classic flow
        // (one test on the common path).
        if self.per_packet_echo || pkt.cwr || pkt.ce() {
            self.on_ecn(pkt.ce(), pkt.cwr, now, out);
        }
        if seq == self.rcv_nxt {
            let had_holes = !self.ooo.is_empty();
            // RFC 7323 §4.3 (2), Linux `tcp_replace_ts_recent`: only a segment at or
            // below Last.ACK.sent sets TS.Recent, so a delayed ACK echoes the first
            // segment it covers and the sender times the oldest (Linux's seq_rtt).
            if seq <= self.rcv_wup {
                self.ts_recent = pkt.ts_val;
            }
            self.deliver_in_order(now);
            if !self.delayed_ack || had_holes || self.rcv_nxt >= self.limit {
                // Filling a hole is acknowledged at once (RFC 5681 §4.2).
                self.ack(now, out);
            } else if self.quickack > 0 {
                // Quick-ack mode: at once, delayed ACKs notwithstanding.
                self.quickack -= 1;
                self.ack(now, out);
            } else if let Some((latency, rng)) = &mut self.reads {
                // Linux: the segment schedules a delayed ACK and wakes the application
                // (unless it is already awake); the read decides (`on_read`).
                self.unacked += 1;
                self.pushed |= pkt.psh;
                // A read that was due has run and found nothing to acknowledge (it is
                // not scheduled then: `deadline`); the application sleeps again.
                if self.read_at.is_some_and(|t| t <= now) {
                    self.read_at = None;
                }
                if self.read_at.is_none() {
                    let wait = latency.sample(rng).max(0.0);
                    self.read_at = Some(now + Time::from_secs_f64(wait));
                }
                if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + self.delack_timeout);
                }
            } else {
                self.unacked += 1;
                if self.unacked >= 2 {
                    self.ack(now, out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + self.delack_timeout);
                }
            }
        } else if seq > self.rcv_nxt {
            if self.compressed > 0 && self.sack_recency(seq) >= SACK_BLOCKS_EXPECTED {
                // `tcp_sack_new_ofo_skb`: the segment would push a block that the held
                // ACKs reported out of the first two; they go now, with the old blocks.
                self.ack(now, out);
            }
            self.hold(seq);
            if self.sack_compression.is_some()
                && self.block_of(seq) != self.last_ooo.and_then(|m| self.block_of(m))
            {
                self.prev_ooo = self.last_ooo;
            }
            self.last_ooo = Some(seq);
            self.ack_out_of_order(now, out);
        } else {
            self.ack(now, out); // old duplicate: re-acknowledge
        }
    }

    /// The held range containing `seq`, if any.
    fn block_of(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|&(_, e)| e <= seq);
        self.ooo.get(i).copied().filter(|&(s, _)| s <= seq)
    }

    /// Where the block that segment `seq` joins stands in Linux's most-recent-first
    /// SACK list: 0 or 1 for the blocks of the last two updates, else 2 (an older
    /// block, or a new one behind two others).
    fn sack_recency(&self, seq: u64) -> usize {
        let joins = |m: Option<u64>| {
            m.and_then(|m| self.block_of(m))
                .is_some_and(|(s, e)| s <= seq + 1 && seq <= e)
        };
        if joins(self.last_ooo) {
            0
        } else if joins(self.prev_ooo) {
            1
        } else {
            self.ooo.len().min(2)
        }
    }

    /// An out-of-order segment's ACK: at once (RFC 5681 §4.2), or under SACK
    /// compression as Linux's `__tcp_ack_snd_check`: at once for the first
    /// TCP_FASTRETRANS_THRESH (3) duplicates of a hole, in quick-ack mode, or once 44
    /// (`tcp_comp_sack_nr`) are held back; else one ACK when the compression timer
    /// fires (`tcp_compressed_ack_kick`; its 100 µs slack is not modelled). Any ACK
    /// sent meanwhile covers the held ones (`tcp_event_ack_sent`).
    fn ack_out_of_order(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(delay) = self.sack_compression.filter(|_| self.sack) else {
            return self.ack(now, out);
        };
        if self.quickack > 0 || self.compressed >= COMP_SACK_NR {
            return self.ack(now, out);
        }
        if self.dup_acks_for != self.rcv_nxt {
            self.dup_acks_for = self.rcv_nxt;
            self.dup_acks = 0;
        }
        if self.dup_acks < FASTRETRANS_THRESH {
            self.dup_acks += 1;
            return self.ack(now, out);
        }
        self.compressed += 1;
        let due = now + delay;
        if self.delack_deadline.is_none_or(|d| due < d) {
            self.delack_deadline = Some(due);
        }
    }

    /// The ECN field and CWR of an arriving segment: count a CE, and update the echo.
    fn on_ecn(&mut self, ce: bool, cwr: bool, now: Time, out: &mut Vec<Packet>) {
        self.ce_received += ce as u64;
        if self.per_packet_echo {
            // RFC 8257 §3.2: when the CE state changes, the segments held for a delayed
            // ACK are acknowledged at once with the old state's ECE, so that every ACK
            // reports the marks of exactly the segments it covers; the new segment then
            // starts a delayed ACK of its own under the new state. (Linux also ACKs
            // the new segment at once, `ICSK_ACK_NOW`.)
            if ce != self.ece {
                if self.unacked > 0 {
                    self.ack(now, out);
                }
                self.ece = ce;
            }
        } else {
            // RFC 3168 §6.1.3: CWR stops the echo; a CE on the same segment restarts it.
            if cwr {
                self.ece = false;
            }
            if ce {
                self.ece = true;
            }
        }
    }

    /// The delayed-ACK timer, or the SACK-compression timer (one deadline: the earlier).
    pub fn on_delack_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.unacked > 0 || self.compressed > 0 {
            self.ack(now, out);
        }
        self.delack_deadline = None;
    }

    /// The application's read timer ([`Receiver::read_deadline`]).
    pub fn on_read_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.read_at.is_some_and(|t| t <= now) {
            self.on_read(now, out);
        }
    }

    /// The application reads all the in-order data there is (`tcp_cleanup_rbuf`): an
    /// ACK if more than one full segment is unacknowledged (`rcv_nxt − rcv_wup >
    /// rcv_mss`), or one pushed segment the read drained; otherwise the delayed ACK
    /// stays armed.
    fn on_read(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.read_at = None;
        if self.unacked >= 2 || (self.unacked == 1 && self.pushed) {
            self.ack(now, out);
        }
    }

    /// Held out-of-order ranges (for SACK and inspection).
    pub fn held(&self) -> &VecDeque<(u64, u64)> {
        &self.ooo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64) -> Packet {
        Packet::new(PktKind::Data, 0, 0, seq, 1040, 1000, Time(seq + 1))
    }

    /// A receiver with SACK, delayed ACKs (40 ms) and no window limit.
    fn sack_receiver() -> Receiver {
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        r.sack = true;
        r
    }

    #[test]
    fn out_of_order_is_held_and_dupacked() {
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        let mut out = Vec::new();
        for s in [0, 2, 3, 5] {
            r.on_data(&data(s), Time(10), &mut out);
        }
        let acks: Vec<u64> = out.iter().map(|p| p.seq).collect();
        assert_eq!(acks, vec![1, 1, 1, 1]);
        assert_eq!(r.held(), &[(2, 4), (5, 6)]);
        // The echoed timestamp stays that of the last in-order segment.
        assert!(out.iter().all(|p| p.ts_ecr == Time(1)));
        out.clear();
        r.on_data(&data(1), Time(11), &mut out);
        assert_eq!(out[0].seq, 4);
        assert_eq!(r.held(), &[(5, 6)]);
        r.on_data(&data(4), Time(12), &mut out);
        assert_eq!(out[1].seq, 6);
        assert!(r.held().is_empty());
        assert_eq!(r.bytes_delivered, 6000);
    }

    /// RFC 7323 §4.3 (Linux `tcp_replace_ts_recent`): only a segment at or below
    /// Last.ACK.sent sets TS.Recent, so an ACK of two delayed segments echoes the first's
    /// timestamp (as Linux's receiver does in every such ACK captured,
    /// validation/linux/rtt_timing.json), and the segment that fills a hole sets it.
    #[test]
    fn a_delayed_ack_echoes_the_first_segment_it_covers() {
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        r.delayed_ack = true;
        let mut out = Vec::new();
        for s in 0..4 {
            r.on_data(&data(s), Time(10 + s), &mut out);
        }
        let acks: Vec<(u64, Time)> = out.iter().map(|p| (p.seq, p.ts_ecr)).collect();
        assert_eq!(acks, vec![(2, Time(1)), (4, Time(3))]);
        // Segment 4 lost: 5's duplicate ACK echoes TS.Recent unchanged.
        r.on_data(&data(5), Time(20), &mut out);
        assert_eq!((out[2].seq, out[2].ts_ecr), (4, Time(3)));
        // 4 arrives at Last.ACK.sent: its timestamp is echoed.
        r.on_data(&data(4), Time(21), &mut out);
        assert_eq!((out[3].seq, out[3].ts_ecr), (6, Time(5)));
    }

    /// Linux's SACK compression (`__tcp_ack_snd_check`): three duplicate ACKs at once
    /// per hole, then one ACK per compression delay covering every segment held back;
    /// a new hole starts a new count; 44 held back are ACKed at once.
    #[test]
    fn sack_compression_acks_three_duplicates_then_one_per_delay() {
        let mut r = sack_receiver();
        r.sack_compression = Some(Time::from_millis(1));
        let mut out = Vec::new();
        r.on_data(&data(0), Time(10), &mut out);
        assert_eq!(out.len(), 1);
        // Segment 1 lost: 2..=7 arrive out of order.
        for s in 2..=7 {
            r.on_data(&data(s), Time(100 + s), &mut out);
        }
        assert_eq!(out.len(), 1 + 3, "three duplicate ACKs at once, then held");
        let due = Time(105) + Time::from_millis(1);
        assert_eq!(
            r.delack_deadline,
            Some(due),
            "the delay runs from the first held"
        );
        r.on_delack_timer(due, &mut out);
        assert_eq!(out.len(), 5);
        let last = out.last().unwrap();
        assert_eq!(last.seq, 1);
        assert_eq!(
            last.sack_blocks().next(),
            Some((2, 8)),
            "covers all held back"
        );
        assert_eq!(r.delack_deadline, None);
        // The retransmission fills the hole: ACKed at once; then segment 8 is lost.
        r.on_data(&data(1), Time(2_000_000_000), &mut out);
        assert_eq!(out.last().unwrap().seq, 8);
        let n = out.len();
        for s in 9..=11 {
            r.on_data(&data(s), Time(2_000_000_000 + s), &mut out);
        }
        assert_eq!(out.len(), n + 3, "the count restarts with the hole");
        // 44 held back: the 45th is ACKed at once.
        for s in 12..12 + 45 {
            r.on_data(&data(s), Time(2_000_000_100 + s), &mut out);
        }
        assert_eq!(out.len(), n + 4);
        assert_eq!(out.last().unwrap().sack_blocks().next(), Some((9, 57)));
    }

    /// `tcp_sack_new_ofo_skb`: a compressed ACK is sent before a segment that would
    /// push a held block out of the first two of the SACK list (a third block, or an
    /// older block extended), so that no block goes unreported.
    #[test]
    fn sack_compression_flushes_before_a_block_leaves_the_first_two() {
        let mut r = sack_receiver();
        r.sack_compression = Some(Time::from_millis(1));
        let mut out = Vec::new();
        // Segment 0 lost: 1-4 make block A; three ACKs at once, the fourth held.
        for s in 1..=4 {
            r.on_data(&data(s), Time(s), &mut out);
        }
        assert_eq!(out.len(), 3);
        // Block B (the second): held too.
        r.on_data(&data(7), Time(7), &mut out);
        assert_eq!(out.len(), 3);
        // Block C would be the third: the held ACK goes first, reporting B then A.
        r.on_data(&data(10), Time(10), &mut out);
        assert_eq!(out.len(), 4);
        let blocks: Vec<(u64, u64)> = out[3].sack_blocks().collect();
        assert_eq!(blocks, vec![(7, 8), (1, 5)]);
        // A is now third in recency: extending it flushes again, reporting C first.
        r.on_data(&data(5), Time(11), &mut out);
        assert_eq!(out.len(), 5);
        assert_eq!(out[4].sack_blocks().next(), Some((10, 11)));
        // Extending the most recent block (A) is held.
        r.on_data(&data(6), Time(12), &mut out);
        assert_eq!(out.len(), 5);
    }

    #[test]
    fn without_sack_compression_every_out_of_order_segment_is_acked() {
        let mut r = sack_receiver();
        let mut out = Vec::new();
        for s in 1..=10 {
            r.on_data(&data(s), Time(s), &mut out);
        }
        assert_eq!(out.len(), 10);
    }

    #[test]
    fn sack_blocks_put_the_latest_first() {
        let mut r = sack_receiver();
        let mut out = Vec::new();
        for s in [0, 2, 3, 6, 9, 4] {
            r.on_data(&data(s), Time(10), &mut out);
        }
        let last = out.last().unwrap();
        let blocks: Vec<(u64, u64)> = last.sack_blocks().collect();
        // Held: [2,5) [6,7) [9,10); segment 4 arrived last, so [2,5) leads.
        assert_eq!(last.seq, 1);
        assert_eq!(blocks, vec![(2, 5), (9, 10), (6, 7)]);
    }

    #[test]
    fn delayed_acks_every_second_segment() {
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        r.delayed_ack = true;
        let mut out = Vec::new();
        r.on_data(&data(0), Time(10), &mut out);
        assert!(out.is_empty());
        assert!(r.delack_deadline.is_some());
        r.on_data(&data(1), Time(11), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 2);
        r.on_data(&data(2), Time(12), &mut out);
        r.on_delack_timer(Time(13), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].seq, 3);
    }

    /// Linux's ACKs at the application's reads (`tcp_cleanup_rbuf`), the application
    /// waking 100 µs after the data that wakes it: a read ACKs two segments or more, or
    /// one that carried PSH; one segment without PSH waits for the next read or the
    /// delayed-ACK timer; what arrives before the read is covered by it.
    #[test]
    fn reads_ack_two_segments_or_a_pushed_one() {
        let mut r = sack_receiver();
        r.delayed_ack = true;
        r.delack_timeout = Time::from_millis(40);
        r.ack_at_reads(
            Law::Dist(crate::random::Dist::Fixed(100e-6)),
            crate::random::stream(1, "t"),
        );
        let us = Time::from_micros;
        let seg = |seq: u64, psh: bool| {
            let mut p = data(seq);
            p.psh = psh;
            p
        };
        let mut out = Vec::new();
        // The engine's two receiver timers, earliest first.
        let step = |r: &mut Receiver, out: &mut Vec<Packet>, until: Time| loop {
            match (r.read_deadline(), r.delack_deadline) {
                (Some(a), d) if a <= until && d.is_none_or(|d| a <= d) => r.on_read_timer(a, out),
                (_, Some(d)) if d <= until => r.on_delack_timer(d, out),
                _ => break,
            }
        };
        // 0 (no PSH): the read finds one segment and sends nothing (no event for it).
        r.on_data(&seg(0, false), us(0), &mut out);
        assert_eq!(r.read_deadline(), None, "no event for that read");
        assert_eq!(r.delack_deadline, Some(Time::from_millis(40)));
        step(&mut r, &mut out, us(500));
        assert!(out.is_empty());
        // 1 (PSH): the read ACKs both, at the read, not on arrival.
        r.on_data(&seg(1, true), us(600), &mut out);
        assert!(out.is_empty());
        step(&mut r, &mut out, us(1000));
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![2]);
        assert_eq!(r.acks_sent, 1);
        // 2 alone with PSH: ACKed alone at its read.
        r.on_data(&seg(2, true), us(1200), &mut out);
        step(&mut r, &mut out, us(1400));
        assert_eq!(out.last().unwrap().seq, 3);
        // 3, 4, 5 before the read that 3 woke: one ACK of three segments.
        for (k, t) in [(3, 2000), (4, 2030), (5, 2060)] {
            r.on_data(&seg(k, false), us(t), &mut out);
        }
        step(&mut r, &mut out, us(2500));
        assert_eq!(out.last().unwrap().seq, 6);
        assert_eq!(out.last().unwrap().ts_val, us(2100), "sent at the read");
        // 6 alone without PSH: the delayed-ACK timer, 40 ms after it arrived.
        r.on_data(&seg(6, false), us(3000), &mut out);
        step(&mut r, &mut out, Time::from_millis(44));
        assert_eq!(out.len(), 4);
        assert_eq!(out[3].seq, 7);
        assert_eq!(out[3].ts_val, us(3000) + Time::from_millis(40));
        // Out of order: at once, reads or not.
        r.on_data(&seg(9, false), Time::from_millis(50), &mut out);
        assert_eq!(out.len(), 5);
        assert_eq!(out[4].seq, 7);
    }

    /// The application's wake-up latency is drawn per read from the flow's stream:
    /// deterministic per seed, different across seeds.
    #[test]
    fn read_latencies_follow_the_seed() {
        let reads = |seed: u64| {
            let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
            r.delayed_ack = true;
            r.ack_at_reads(
                Law::Dist(crate::random::Dist::Exponential { mean: 100e-6 }),
                crate::random::stream(0, "t"),
            );
            r.seed_reads(seed);
            let mut out = Vec::new();
            (0..4)
                .map(|k| {
                    let t = Time::from_millis(k);
                    let mut p = data(k);
                    p.psh = true;
                    r.on_data(&p, t, &mut out);
                    let d = r.read_deadline().unwrap();
                    r.on_read_timer(d, &mut out);
                    d - t
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(reads(7), reads(7));
        assert_ne!(reads(7), reads(8));
    }

    /// RFC 8257 §3.2's figure: with delayed ACKs (m = 2), a change of CE state
    /// acknowledges the held segment at once with the old ECE; every ACK's ECE equals
    /// the CE of the segments it newly covers.
    #[test]
    fn dctcp_echo_state_machine() {
        use crate::packet::Ecn;
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        r.delayed_ack = true;
        r.per_packet_echo = true;
        let ce = [0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1];
        let mut out = Vec::new();
        for (s, &m) in ce.iter().enumerate() {
            let mut p = data(s as u64);
            p.ecn = if m == 1 { Ecn::Ce } else { Ecn::Ect0 };
            r.on_data(&p, Time(10 + s as u64), &mut out);
        }
        r.on_delack_timer(Time(100), &mut out);
        let acks: Vec<(u64, bool)> = out.iter().map(|p| (p.seq, p.ece)).collect();
        // Segments 0,1 → ACK 2 (ECE 0). 2 held; 3 is CE: ACK 3 (ECE 0) at once, 3
        // held; 4 → ACK 5 (ECE 1). 5 held; 6 is not CE: ACK 6 (ECE 1), 6 held; 7 CE:
        // ACK 7 (ECE 0), 7 held; 8 not CE: ACK 8 (ECE 1); 8, 9 → ACK 10 (ECE 0);
        // 10 CE, nothing held; 10, 11 → ACK 12 (ECE 1).
        assert_eq!(
            acks,
            vec![
                (2, false),
                (3, false),
                (5, true),
                (6, true),
                (7, false),
                (8, true),
                (10, false),
                (12, true)
            ]
        );
        // Each ACK's ECE is the CE of every segment it newly covers.
        let mut prev = 0;
        for &(a, e) in &acks {
            assert!(ce[prev as usize..a as usize].iter().all(|&m| (m == 1) == e));
            prev = a;
        }
        assert_eq!(r.ce_received, 6);
    }

    /// RFC 3168 §6.1.3: the classic echo latches until CWR.
    #[test]
    fn classic_echo_latches_until_cwr() {
        use crate::packet::Ecn;
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        let mut out = Vec::new();
        let mut p = data(0);
        p.ecn = Ecn::Ce;
        r.on_data(&p, Time(1), &mut out);
        r.on_data(&data(1), Time(2), &mut out);
        let mut c = data(2);
        c.cwr = true;
        r.on_data(&c, Time(3), &mut out);
        let e: Vec<bool> = out.iter().map(|p| p.ece).collect();
        assert_eq!(e, vec![true, true, false]);
    }

    /// XCP echo: an ACK carries the summed feedback of the data it acknowledges, so a
    /// delayed ACK of two segments returns both routers' verdicts; non-XCP flows get
    /// no header.
    #[test]
    fn xcp_feedback_is_summed_per_ack() {
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        r.delayed_ack = true;
        let mut out = Vec::new();
        r.on_data(&data(0), Time(10), &mut out);
        r.on_data(&data(1), Time(11), &mut out);
        assert!(out[0].xcp().is_none());
        let xcp = |seq: u64, feedback: f32| {
            let mut p = data(seq);
            p.set_xcp(crate::packet::XcpHeader {
                cwnd: 1e4,
                rtt: 0.1,
                feedback,
            });
            p
        };
        r.on_data(&xcp(2, 1.5), Time(12), &mut out);
        r.on_data(&xcp(3, -0.25), Time(13), &mut out);
        r.on_data(&xcp(4, 2.0), Time(14), &mut out);
        r.on_delack_timer(Time(15), &mut out);
        let fb: Vec<f32> = out[1..].iter().map(|p| p.xcp().unwrap().feedback).collect();
        assert_eq!(fb, vec![1.25, 2.0]);
    }
}
