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
}

impl Packet {
    pub fn is_data(&self) -> bool {
        matches!(self.kind, PktKind::Data | PktKind::Udp)
    }
}
