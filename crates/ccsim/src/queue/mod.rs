//! Queue disciplines. A queue accepts, drops or marks on enqueue and chooses what
//! leaves on dequeue. The packet in transmission is not in the queue.

pub mod codel;
pub mod droptail;
pub mod fq;
pub mod fq_codel;
pub mod red;
pub mod spec;
pub mod xcp;

use crate::packet::Packet;
use crate::random::Rng;
use crate::units::{Rate, Time};

pub use codel::{Codel, CodelConfig};
pub use droptail::DropTail;
pub use fq::{Fq, FqConfig};
pub use fq_codel::{FqCodel, FqCodelConfig};
pub use red::{Red, RedConfig};
pub use spec::QueueSpec;
pub use xcp::{Xcp, XcpConfig};

/// Build the queue a spec names, with the buffer `limit` (from `topology.buffer`),
/// the link's `rate` (RED's idle-time decay needs it) and a `salt` for the flow hash
/// of the hashed fair queues (so that which flows collide varies with the seed and
/// the link, deterministically).
pub fn build_queue(spec: &QueueSpec, limit: Limit, rate: Rate, salt: u64) -> Box<dyn Queue> {
    match spec {
        QueueSpec::DropTail => Box::new(DropTail::new(limit)),
        QueueSpec::Red(c) => Box::new(Red::new(c.clone(), limit, rate)),
        QueueSpec::Fq(c) => Box::new(Fq::new(c.clone(), limit, salt)),
        QueueSpec::Codel(c) => Box::new(Codel::new(c.clone(), limit)),
        QueueSpec::FqCodel(c) => Box::new(FqCodel::new(c.clone(), limit, salt)),
        QueueSpec::Xcp(c) => Box::new(Xcp::new(c.clone(), limit, rate)),
    }
}

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
    fn marks(&self) -> u64 {
        0
    }
}
