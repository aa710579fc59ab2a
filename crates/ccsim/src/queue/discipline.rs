//! What every queueing discipline implements and may use: the `Queue` trait, the
//! context of one call (time, random stream, the drops with their reasons), and the
//! buffer limit.

use crate::packet::Packet;
use crate::random::Rng;
pub use crate::records::DropReason;
use crate::units::Time;

/// A buffer limit, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl Limit {
    /// Would a queue holding `pkts`/`bytes` overflow by adding a packet of `size` bytes?
    pub fn overflows(&self, pkts: usize, bytes: u64, size: u32) -> bool {
        match *self {
            Limit::Packets(n) => pkts as u64 >= n,
            Limit::Bytes(b) => bytes + size as u64 > b,
        }
    }
}

/// The packets a discipline dropped during one call, each with its reason (reused,
/// never reallocated on the hot path).
#[derive(Debug, Default)]
pub struct Drops {
    pkts: Vec<Packet>,
    reasons: Vec<DropReason>,
}

impl Drops {
    pub fn push(&mut self, pkt: Packet, reason: DropReason) {
        self.pkts.push(pkt);
        self.reasons.push(reason);
    }
    pub fn len(&self) -> usize {
        self.pkts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }
    pub fn clear(&mut self) {
        self.pkts.clear();
        self.reasons.clear();
    }
    /// The dropped packets, in drop order.
    pub fn iter(&self) -> std::slice::Iter<'_, Packet> {
        self.pkts.iter()
    }
    /// Packets with their reasons, emptying the list (its capacity stays).
    pub fn drain(&mut self) -> impl Iterator<Item = (Packet, DropReason)> + '_ {
        self.pkts.drain(..).zip(self.reasons.drain(..))
    }
    pub fn reasons(&self) -> &[DropReason] {
        &self.reasons
    }
}

impl std::ops::Index<usize> for Drops {
    type Output = Packet;
    fn index(&self, i: usize) -> &Packet {
        &self.pkts[i]
    }
}

/// What a queue may use while deciding: the time, a random stream, and a place to
/// put the packets it drops (the arriving one or others, e.g. fair queueing's
/// drop-from-longest), each with its reason.
pub struct QueueCtx<'a> {
    pub now: Time,
    pub rng: &'a mut Rng,
    pub drops: &'a mut Drops,
}

impl QueueCtx<'_> {
    /// Drop `pkt` for `reason`; the link counts it and the engine tells its flow.
    pub fn drop(&mut self, pkt: Packet, reason: DropReason) {
        self.drops.push(pkt, reason);
    }
}

pub trait Queue: Send {
    /// Offer a packet. Dropped packets (this one or others) go to `ctx.drop`.
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QueueCtx);
    /// The next packet to transmit. Packets an AQM drops at dequeue go to `ctx.drop`.
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet>;
    /// A packet that found the link idle and the queue empty is transmitted at once
    /// without being enqueued; a discipline that must see every packet (XCP counts
    /// its input traffic and writes feedback into headers) acts on it here.
    fn pass_through(&mut self, _pkt: &mut Packet, _ctx: &mut QueueCtx) {}
    /// Whether `pass_through` does anything; asked once when the link is built, so
    /// the bypass costs other disciplines no virtual call per packet.
    fn sees_every_packet(&self) -> bool {
        false
    }
    fn len_pkts(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_pkts() == 0
    }
    /// Number of packets the queue marked (ECN CE) so far.
    /// A new buffer limit from now on (`[[events]]`); packets already stored stay.
    /// False: the discipline cannot change its limit (the plan refuses such events).
    fn set_limit(&mut self, _limit: Limit) -> bool {
        false
    }
    fn marks(&self) -> u64 {
        0
    }
}
