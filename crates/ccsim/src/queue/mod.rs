//! Queue disciplines. A queue accepts, drops or marks on enqueue and chooses what
//! leaves on dequeue. The packet in transmission is not in the queue.

pub mod droptail;

use crate::packet::Packet;
use crate::random::Rng;
use crate::units::Time;

pub use droptail::DropTail;

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

/// What a queue may use while deciding: the time, a random stream, and a place to
/// put the packets it drops (the arriving one or others, e.g. fair queueing's
/// drop-from-longest).
pub struct QueueCtx<'a> {
    pub now: Time,
    pub rng: &'a mut Rng,
    pub drops: &'a mut Vec<Packet>,
}

pub trait Queue: Send {
    /// Offer a packet. Dropped packets (this one or others) go to `ctx.drops`.
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QueueCtx);
    /// The next packet to transmit. Packets an AQM drops at dequeue go to `ctx.drops`.
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet>;
    fn len_pkts(&self) -> usize;
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_pkts() == 0
    }
    /// Number of packets the queue marked (ECN CE) so far.
    fn marks(&self) -> u64 {
        0
    }
}
