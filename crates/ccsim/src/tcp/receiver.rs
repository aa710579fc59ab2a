//! The TCP receiver: cumulative ACKs, an out-of-order buffer, immediate duplicate
//! ACKs for out-of-order data, and optional delayed ACKs (RFC 1122 §4.2.3.2).

use crate::packet::{Packet, PktKind};
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
    /// TS.Recent (RFC 7323 §4.3): TSval of the last segment that advanced rcv_nxt.
    ts_recent: Time,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    /// Segments still to acknowledge at once at the start, delayed ACKs or not (Linux's
    /// quick-ack mode: `tcp_incr_quickack` grants up to TCP_MAX_QUICKACKS = 16).
    pub quickack: u32,
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
    /// XCP: feedback (bytes) of the data received since the last ACK, echoed and
    /// reset by the next ACK; None until an XCP data packet arrives.
    xcp_feedback: Option<f64>,
}

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
            xcp_feedback: None,
        }
    }

    fn payload_of(&self, seq: u64) -> u64 {
        if seq + 1 == self.limit {
            self.last_payload as u64
        } else {
            self.mss as u64
        }
    }

    fn ack(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.unacked = 0;
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
            self.ts_recent = pkt.ts_val;
            self.deliver_in_order(now);
            if !self.delayed_ack || had_holes || self.rcv_nxt >= self.limit {
                // Filling a hole is acknowledged at once (RFC 5681 §4.2).
                self.ack(now, out);
            } else if self.quickack > 0 {
                // Quick-ack mode: at once, delayed ACKs notwithstanding.
                self.quickack -= 1;
                self.ack(now, out);
            } else {
                self.unacked += 1;
                if self.unacked >= 2 {
                    self.ack(now, out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + self.delack_timeout);
                }
            }
        } else if seq > self.rcv_nxt {
            self.hold(seq);
            self.last_ooo = Some(seq);
            self.ack(now, out); // immediate duplicate ACK
        } else {
            self.ack(now, out); // old duplicate: re-acknowledge
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

    pub fn on_delack_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.unacked > 0 {
            self.ack(now, out);
        }
        self.delack_deadline = None;
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

    #[test]
    fn sack_blocks_put_the_latest_first() {
        let mut r = Receiver::new(0, 1, 40, 1000, u64::MAX, 1000);
        r.sack = true;
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
