//! The packet: a small plain struct moved by value. No allocation per packet.

use crate::units::Time;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    /// TCP data segment (sender → receiver).
    Data,
    /// TCP acknowledgement (receiver → sender).
    Ack,
    /// Open-loop datagram from a packet source.
    Udp,
}

/// The ECN field of the IP header (RFC 3168 §5), with the codepoints' values. One
/// byte, as the two booleans (ECT, CE) it replaced: the packet does not grow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct = 0b00,
    /// ECT(1): the L4S identifier (RFC 9331 §4.1), sent by scalable senders (Prague).
    Ect1 = 0b01,
    /// ECT(0): classic ECN-capable transport (RFC 3168; DCTCP, RFC 8257 §3.1).
    Ect0 = 0b10,
    /// Congestion Experienced, set by a queue in place of ECT(0)/ECT(1).
    Ce = 0b11,
}

impl Ecn {
    /// ECN-capable (ECT(0), ECT(1), or already CE): a queue may mark rather than drop.
    #[inline]
    pub fn capable(self) -> bool {
        self != Ecn::NotEct
    }
    /// RFC 9331 §5.3: a packet is classified L4S by ECT(1) or CE.
    #[inline]
    pub fn l4s(self) -> bool {
        matches!(self, Ecn::Ect1 | Ecn::Ce)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// TCP flow index, or packet-source index for `Udp`.
    pub flow: u32,
    /// Index into the world's path table; `hop` is the next link on it.
    pub path: u32,
    pub hop: u16,
    pub kind: PktKind,
    /// Data: this segment is a retransmission.
    pub retx: bool,
    /// Data: segment number. Ack: cumulative acknowledgement (next segment expected).
    pub seq: u64,
    /// Bytes on the wire (headers included).
    pub size: u32,
    /// Payload bytes (data only).
    pub payload: u32,
    /// RFC 7323 timestamps: TSval set by the sender of this packet, TSecr echoed.
    pub ts_val: Time,
    pub ts_ecr: Time,
    /// When the packet entered the queue it is in (queueing delay measurement).
    pub enq_at: Time,
    /// The IP header's ECN field (RFC 3168 §5; ECT(1) for L4S, RFC 9331 §4), and the
    /// TCP header's ECN-Echo (on ACKs) and Congestion Window Reduced (on data).
    pub ecn: Ecn,
    pub ece: bool,
    pub cwr: bool,
    /// Data: the TCP header's PSH. On every data segment, or, for a flow whose receiver
    /// ACKs at the application's reads (`tcp.read_latency`), on the last segment of
    /// each skb (Linux's GSO segmentation keeps it there only; tcp/sender.rs), which
    /// such a receiver acknowledges at its next read (tcp/receiver.rs). It took the
    /// byte that had kept six one-byte fields here.
    pub psh: bool,
    /// SACK blocks or the XCP header (see `TcpOpt`); read and set through the
    /// methods below.
    opt: TcpOpt,
}

/// The options that share one slot of the packet, so that it stays small (it is
/// copied at every hop): RFC 2018 SACK blocks on the ACKs of SACK flows, or the XCP
/// congestion header on the packets of XCP flows. No flow uses both: XCP senders
/// recover with NewReno, as the studies' implementation did (the scenario rejects
/// `recovery = "sack"` with `cc = "xcp"`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum TcpOpt {
    None,
    /// `n` blocks of [start, end) segments, as offsets from the cumulative ACK.
    Sack {
        n: u8,
        blocks: [(u32, u32); 3],
    },
    /// Katabi et al. 2002, §3.2 "The Congestion Header": on the data packets of an
    /// XCP flow, and on their ACKs carrying the echoed feedback. Routers act on it
    /// only on data packets.
    Xcp(XcpHeader),
}

/// The XCP congestion header, in the units of the paper (bytes and seconds); `f32`
/// keeps the packet small (relative precision 6e-8, far below what the law needs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XcpHeader {
    /// H_cwnd: the sender's congestion window, bytes on the wire.
    pub cwnd: f32,
    /// H_rtt: the sender's RTT estimate, seconds; 0 before its first sample.
    pub rtt: f32,
    /// H_feedback: the window change asked for, bytes; routers only lower it. On an
    /// ACK: the sum of the feedback of the data packets it acknowledges.
    pub feedback: f32,
}

impl Packet {
    /// A packet with every optional field cleared.
    pub fn new(
        kind: PktKind,
        flow: u32,
        path: u32,
        seq: u64,
        size: u32,
        payload: u32,
        now: Time,
    ) -> Self {
        Packet {
            flow,
            path,
            hop: 0,
            kind,
            retx: false,
            seq,
            size,
            payload,
            ts_val: now,
            ts_ecr: Time::ZERO,
            enq_at: now,
            ecn: Ecn::NotEct,
            ece: false,
            cwr: false,
            psh: false,
            opt: TcpOpt::None,
        }
    }

    /// SACK blocks as absolute segment ranges.
    /// The ACK carries SACK blocks.
    #[inline]
    pub fn has_sack(&self) -> bool {
        matches!(self.opt, TcpOpt::Sack { n, .. } if n > 0)
    }

    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let blocks: &[(u32, u32)] = match &self.opt {
            TcpOpt::Sack { n, blocks } => &blocks[..*n as usize],
            _ => &[],
        };
        blocks
            .iter()
            .map(move |&(s, e)| (self.seq + s as u64, self.seq + e as u64))
    }

    /// Number of SACK blocks carried.
    pub fn nsack(&self) -> usize {
        match self.opt {
            TcpOpt::Sack { n, .. } => n as usize,
            _ => 0,
        }
    }

    /// Carry these SACK blocks (at most three; offsets from the cumulative ACK).
    pub fn set_sack(&mut self, offsets: &[(u32, u32)]) {
        let n = offsets.len().min(3);
        let mut blocks = [(0, 0); 3];
        blocks[..n].copy_from_slice(&offsets[..n]);
        self.opt = TcpOpt::Sack { n: n as u8, blocks };
    }

    /// The XCP congestion header, if the packet carries one.
    pub fn xcp(&self) -> Option<XcpHeader> {
        match self.opt {
            TcpOpt::Xcp(h) => Some(h),
            _ => None,
        }
    }

    pub fn xcp_mut(&mut self) -> Option<&mut XcpHeader> {
        match &mut self.opt {
            TcpOpt::Xcp(h) => Some(h),
            _ => None,
        }
    }

    pub fn set_xcp(&mut self, h: XcpHeader) {
        self.opt = TcpOpt::Xcp(h);
    }

    /// Whether a queue set CE on the way.
    #[inline]
    pub fn ce(&self) -> bool {
        self.ecn == Ecn::Ce
    }

    /// A queue's congestion signal by marking (ns-3 `QueueDisc::Mark`): set CE if the
    /// packet is ECN-capable and say so; a non-ECT packet is left alone (the caller
    /// drops it instead).
    #[inline]
    pub fn mark_ce(&mut self) -> bool {
        if self.ecn.capable() {
            self.ecn = Ecn::Ce;
            true
        } else {
            false
        }
    }

    pub fn is_data(&self) -> bool {
        matches!(self.kind, PktKind::Data | PktKind::Udp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_stays_small() {
        // Packets are copied at every hop; keep them within 88 bytes.
        assert!(
            std::mem::size_of::<Packet>() <= 88,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }

    #[test]
    fn ecn_codepoints_and_marking() {
        let mut p = Packet::new(PktKind::Data, 0, 0, 1, 1500, 1460, Time::ZERO);
        assert!(!p.mark_ce(), "not-ECT is never marked");
        assert_eq!(p.ecn, Ecn::NotEct);
        for e in [Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            p.ecn = e;
            assert!(p.mark_ce());
            assert!(p.ce());
        }
        assert!(Ecn::Ect1.l4s() && Ecn::Ce.l4s() && !Ecn::Ect0.l4s() && !Ecn::NotEct.l4s());
        assert_eq!(std::mem::size_of::<Ecn>(), 1);
    }

    #[test]
    fn sack_and_xcp_options() {
        let mut p = Packet::new(PktKind::Ack, 0, 0, 100, 40, 0, Time::ZERO);
        assert_eq!(p.nsack(), 0);
        assert!(p.xcp().is_none());
        p.set_sack(&[(2, 4), (6, 7)]);
        assert_eq!(
            p.sack_blocks().collect::<Vec<_>>(),
            vec![(102, 104), (106, 107)]
        );
        let h = XcpHeader {
            cwnd: 1.0,
            rtt: 0.1,
            feedback: -2.0,
        };
        p.set_xcp(h);
        assert_eq!(p.xcp(), Some(h));
        p.xcp_mut().unwrap().feedback = 3.0;
        assert_eq!(p.xcp().unwrap().feedback, 3.0);
        assert_eq!(p.nsack(), 0);
    }
}
