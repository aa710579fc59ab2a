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
    /// RFC 3168 ECN: ECN-capable transport, Congestion Experienced (set by a queue),
    /// ECN-Echo (on ACKs) and Congestion Window Reduced (on data).
    pub ect: bool,
    pub ce: bool,
    pub ece: bool,
    pub cwr: bool,
    /// RFC 2018 SACK blocks on ACKs: `nsack` blocks of [start, end) segments, stored
    /// as offsets from the cumulative ACK to keep the packet small.
    pub nsack: u8,
    pub sack: [(u32, u32); 3],
    /// XCP congestion header (Katabi et al. 2002, §3.2 "The Congestion Header"): on the
    /// data packets of an XCP flow, and on their ACKs carrying the echoed feedback.
    /// Routers act on it only on data packets.
    pub xcp: Option<XcpHeader>,
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
            ect: false,
            ce: false,
            ece: false,
            cwr: false,
            nsack: 0,
            sack: [(0, 0); 3],
            xcp: None,
        }
    }

    /// SACK blocks as absolute segment ranges.
    pub fn sack_blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack[..self.nsack as usize]
            .iter()
            .map(move |&(s, e)| (self.seq + s as u64, self.seq + e as u64))
    }

    pub fn is_data(&self) -> bool {
        matches!(self.kind, PktKind::Data | PktKind::Udp)
    }
}
