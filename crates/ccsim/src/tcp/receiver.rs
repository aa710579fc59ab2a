//! The TCP receiver: cumulative ACKs, an out-of-order buffer, immediate duplicate
//! ACKs for out-of-order data, and optional delayed ACKs (RFC 1122 §4.2.3.2).

use crate::packet::{Packet, PktKind};
use crate::units::Time;

pub struct Receiver {
    pub flow: u32,
    pub ack_path: u32,
    pub header: u32,
    /// Next segment expected in order.
    pub rcv_nxt: u64,
    /// Out-of-order segments held, as sorted disjoint ranges [start, end).
    ooo: Vec<(u64, u64)>,
    /// TS.Recent (RFC 7323 §4.3): TSval of the last segment that advanced rcv_nxt.
    ts_recent: Time,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
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
            ooo: Vec::new(),
            ts_recent: Time::ZERO,
            delayed_ack: false,
            delack_timeout: Time::from_millis(200),
            unacked: 0,
            delack_deadline: None,
            bytes_delivered: 0,
            limit,
            mss,
            last_payload,
            completed_at: None,
            acks_sent: 0,
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
        out.push(Packet {
            flow: self.flow,
            path: self.ack_path,
            hop: 0,
            kind: PktKind::Ack,
            retx: false,
            seq: self.rcv_nxt,
            size: self.header,
            payload: 0,
            ts_val: now,
            ts_ecr: self.ts_recent,
            enq_at: now,
        });
    }

    /// Advance rcv_nxt over `seq` and any contiguous held ranges.
    fn deliver_in_order(&mut self, now: Time) {
        let mut delivered = self.payload_of(self.rcv_nxt);
        self.rcv_nxt += 1;
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            for q in self.rcv_nxt.max(s)..e {
                delivered += self.payload_of(q);
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
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
        if seq == self.rcv_nxt {
            let had_holes = !self.ooo.is_empty();
            self.ts_recent = pkt.ts_val;
            self.deliver_in_order(now);
            if !self.delayed_ack || had_holes || self.rcv_nxt >= self.limit {
                // Filling a hole is acknowledged at once (RFC 5681 §4.2).
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
            self.ack(now, out); // immediate duplicate ACK
        } else {
            self.ack(now, out); // old duplicate: re-acknowledge
        }
    }

    pub fn on_delack_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.unacked > 0 {
            self.ack(now, out);
        }
        self.delack_deadline = None;
    }

    /// Held out-of-order ranges (for SACK and inspection).
    pub fn held(&self) -> &[(u64, u64)] {
        &self.ooo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64) -> Packet {
        Packet {
            flow: 0,
            path: 0,
            hop: 0,
            kind: PktKind::Data,
            retx: false,
            seq,
            size: 1040,
            payload: 1000,
            ts_val: Time(seq + 1),
            ts_ecr: Time::ZERO,
            enq_at: Time::ZERO,
        }
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
}
