//! Fair queueing by deficit round robin (M. Shreedhar and G. Varghese, "Efficient
//! Fair Queueing using Deficit Round Robin", SIGCOMM 1995): one FIFO per flow, the
//! backlogged flows visited in turn, each visit adding `quantum` bytes of credit and
//! sending head packets while the credit covers them. Long-run shares are max-min fair
//! in bytes, within one quantum plus one packet per round.
//!
//! One buffer limit is shared by all flows. When an arrival makes it overflow, a
//! packet is dropped from the tail of the longest flow queue (measured in the limit's
//! unit: packets or bytes) — "longest queue drop", the assumption of study 003, which
//! protects flows that keep short queues from those that do not (B. Suter et al.,
//! "Design considerations for supporting TCP with per-flow queueing", INFOCOM 1998).
//! The arriving packet is itself dropped when its own flow is (one of) the longest.
//!
//! Flows: by default every flow gets its own queue, keyed by (class, pkt.flow), the
//! class telling apart TCP flows (`flow` = flow index, data or ACK) and open-loop
//! sources (`flow` = source index). With `buckets = n > 0` flows are hashed into n
//! queues instead (stochastic fair queueing, P. McKenney, INFOCOM 1990), so that
//! colliding flows share a queue.
//!
//! No allocation per packet in steady state: a flow's queue is created when the flow
//! is first seen and then reused, and the round-robin list holds slot indices.

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::{Packet, PktKind};
use std::collections::{HashMap, VecDeque};

#[derive(Clone, Debug, PartialEq)]
pub struct FqConfig {
    /// DRR credit per round, bytes (default one 1500-byte MTU).
    pub quantum: u32,
    /// 0: exact per-flow queues; n > 0: flows hashed into n queues.
    pub buckets: u32,
}

impl Default for FqConfig {
    fn default() -> Self {
        FqConfig {
            quantum: 1500,
            buckets: 0,
        }
    }
}

/// The key of a packet's flow: TCP (data and ACKs alike) and open-loop sources index
/// separate arrays, so the class is part of the key.
pub fn flow_key(p: &Packet) -> u64 {
    let class: u64 = match p.kind {
        PktKind::Data | PktKind::Ack => 0,
        PktKind::Udp => 1,
    };
    (class << 32) | p.flow as u64
}

/// SplitMix64 finalizer: a well-mixed hash of a flow key with a per-queue salt.
pub fn hash_key(key: u64, salt: u64) -> u64 {
    let mut x = key ^ salt;
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Is a queue of `pkts`/`bytes` above the limit (after an arrival was admitted)?
pub(crate) fn over(limit: Limit, pkts: usize, bytes: u64) -> bool {
    match limit {
        Limit::Packets(n) => pkts as u64 > n,
        Limit::Bytes(b) => bytes > b,
    }
}

#[derive(Default)]
struct Slot {
    q: VecDeque<Packet>,
    bytes: u64,
    deficit: u64,
    active: bool,
}

pub struct Fq {
    cfg: FqConfig,
    limit: Limit,
    salt: u64,
    slots: Vec<Slot>,
    /// Exact mode: flow key → slot index.
    index: HashMap<u64, usize>,
    /// Backlogged slots in round-robin order; the front is being served.
    active: VecDeque<usize>,
    pkts: usize,
    bytes: u64,
}

impl Fq {
    pub fn new(cfg: FqConfig, limit: Limit, salt: u64) -> Self {
        let n = cfg.buckets as usize;
        Fq {
            slots: (0..n).map(|_| Slot::default()).collect(),
            index: HashMap::new(),
            active: VecDeque::with_capacity(n.max(16)),
            cfg,
            limit,
            salt,
            pkts: 0,
            bytes: 0,
        }
    }

    fn slot_of(&mut self, p: &Packet) -> usize {
        let key = flow_key(p);
        if self.cfg.buckets > 0 {
            return (hash_key(key, self.salt) % self.cfg.buckets as u64) as usize;
        }
        let slots = &mut self.slots;
        *self.index.entry(key).or_insert_with(|| {
            slots.push(Slot::default());
            slots.len() - 1
        })
    }

    /// The backlogged slot holding the most (packets or bytes, as the limit).
    fn longest(&self) -> usize {
        let size = |s: &Slot| match self.limit {
            Limit::Packets(_) => s.q.len() as u64,
            Limit::Bytes(_) => s.bytes,
        };
        // Ties go to the slot earliest in the round: deterministic.
        let mut best = self.active[0];
        for &i in self.active.iter().skip(1) {
            if size(&self.slots[i]) > size(&self.slots[best]) {
                best = i;
            }
        }
        best
    }

    /// Bytes queued per slot (tests, diagnostics).
    pub fn backlog_of(&self, p: &Packet) -> u64 {
        let key = flow_key(p);
        let i = if self.cfg.buckets > 0 {
            (hash_key(key, self.salt) % self.cfg.buckets as u64) as usize
        } else {
            match self.index.get(&key) {
                Some(&i) => i,
                None => return 0,
            }
        };
        self.slots[i].bytes
    }
}

impl Queue for Fq {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QueueCtx) {
        let i = self.slot_of(&pkt);
        let s = &mut self.slots[i];
        s.bytes += pkt.size as u64;
        s.q.push_back(pkt);
        if !s.active {
            s.active = true;
            // A newly backlogged flow starts its first visit with one quantum, as
            // Linux sch_drr does, so it is served when it reaches the front.
            s.deficit = self.cfg.quantum as u64;
            self.active.push_back(i);
        }
        self.pkts += 1;
        self.bytes += pkt.size as u64;
        while over(self.limit, self.pkts, self.bytes) {
            let l = self.longest();
            let s = &mut self.slots[l];
            let p = s.q.pop_back().expect("an active slot is backlogged");
            s.bytes -= p.size as u64;
            self.pkts -= 1;
            self.bytes -= p.size as u64;
            if s.q.is_empty() {
                s.active = false;
                s.deficit = 0;
                self.active.retain(|&j| j != l);
            }
            ctx.drop(p, DropReason::Overflow);
        }
    }

    fn dequeue(&mut self, _ctx: &mut QueueCtx) -> Option<Packet> {
        let q = self.cfg.quantum as u64;
        loop {
            let &i = self.active.front()?;
            let s = &mut self.slots[i];
            let head = s.q.front().expect("an active slot is backlogged").size as u64;
            if head <= s.deficit {
                let p = s.q.pop_front().unwrap();
                s.deficit -= head;
                s.bytes -= head;
                self.pkts -= 1;
                self.bytes -= head;
                if s.q.is_empty() {
                    // DRR: an emptied flow leaves the round and forfeits its credit,
                    // so idle flows cannot bank service.
                    s.active = false;
                    s.deficit = 0;
                    self.active.pop_front();
                }
                return Some(p);
            }
            // Not enough credit: end this flow's visit, credit its next one.
            s.deficit += q;
            self.active.rotate_left(1);
        }
    }

    fn len_pkts(&self) -> usize {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::Drops;
    use crate::random::stream;
    use crate::units::Time;

    fn pkt(kind: PktKind, flow: u32, size: u32) -> Packet {
        Packet::new(kind, flow, 0, 0, size, size, Time::ZERO)
    }

    #[test]
    fn drr_shares_bytes_equally() {
        // Flow 0 sends 1500-byte packets, flow 1 500-byte ones; both backlogged:
        // DRR gives each the same bytes per round (3 small per large).
        let mut q = Fq::new(FqConfig::default(), Limit::Packets(10_000), 0);
        let mut rng = stream(1, "fq");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        for _ in 0..300 {
            q.enqueue(pkt(PktKind::Data, 0, 1500), &mut ctx);
            for _ in 0..3 {
                q.enqueue(pkt(PktKind::Data, 1, 500), &mut ctx);
            }
        }
        let mut b = [0u64; 2];
        for _ in 0..400 {
            let p = q.dequeue(&mut ctx).unwrap();
            b[p.flow as usize] += p.size as u64;
        }
        // Within one quantum of each other.
        assert!(b[0].abs_diff(b[1]) <= 1500, "{b:?}");
        assert_eq!(q.len_pkts(), 1200 - 400);
    }

    #[test]
    fn udp_and_tcp_flow_numbers_are_distinct_flows() {
        let mut q = Fq::new(FqConfig::default(), Limit::Packets(100), 0);
        let mut rng = stream(1, "fq");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        for _ in 0..4 {
            q.enqueue(pkt(PktKind::Udp, 0, 1000), &mut ctx);
        }
        q.enqueue(pkt(PktKind::Data, 0, 1000), &mut ctx);
        // Round robin: the TCP packet is second out, not fifth.
        let order: Vec<PktKind> = (0..3).map(|_| q.dequeue(&mut ctx).unwrap().kind).collect();
        assert_eq!(order, [PktKind::Udp, PktKind::Data, PktKind::Udp]);
    }

    #[test]
    fn overflow_drops_from_the_longest_queue() {
        let mut q = Fq::new(FqConfig::default(), Limit::Packets(10), 0);
        let mut rng = stream(1, "fq");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        for _ in 0..8 {
            q.enqueue(pkt(PktKind::Udp, 0, 1000), &mut ctx);
        }
        for _ in 0..5 {
            q.enqueue(pkt(PktKind::Data, 3, 1500), &mut ctx);
        }
        // Three overflows, each taken from the UDP source (8 > 2, 3, 4 ...).
        assert_eq!(ctx.drops.len(), 3);
        assert!(ctx.drops.iter().all(|p| p.kind == PktKind::Udp));
        assert_eq!(q.len_pkts(), 10);
        assert_eq!(q.backlog_of(&pkt(PktKind::Data, 3, 0)), 5 * 1500);
        // Once the TCP flow is the longest (6 > 5), its own arrivals are dropped.
        for _ in 0..3 {
            q.enqueue(pkt(PktKind::Data, 3, 1500), &mut ctx);
        }
        assert_eq!(q.len_pkts(), 10);
        assert_eq!(
            ctx.drops.iter().filter(|p| p.kind == PktKind::Data).count(),
            3
        );
        // Byte limit: the longest in bytes.
        let mut q = Fq::new(FqConfig::default(), Limit::Bytes(10_000), 0);
        ctx.drops.clear();
        for _ in 0..6 {
            q.enqueue(pkt(PktKind::Udp, 1, 100), &mut ctx); // 600 B in 6 packets
        }
        for _ in 0..7 {
            q.enqueue(pkt(PktKind::Udp, 2, 1500), &mut ctx); // 10 500 B
        }
        assert_eq!(ctx.drops.len(), 1);
        assert_eq!(ctx.drops[0].flow, 2);
        assert_eq!(q.len_bytes(), 600 + 9000);
    }

    #[test]
    fn hashed_buckets_share_a_queue() {
        let cfg = FqConfig {
            quantum: 1500,
            buckets: 1,
        };
        let mut q = Fq::new(cfg, Limit::Packets(100), 42);
        let mut rng = stream(1, "fq");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        for f in [0, 0, 0, 1] {
            q.enqueue(pkt(PktKind::Data, f, 1000), &mut ctx);
        }
        // One bucket: plain FIFO.
        let order: Vec<u32> = (0..4).map(|_| q.dequeue(&mut ctx).unwrap().flow).collect();
        assert_eq!(order, [0, 0, 0, 1]);
        assert!(q.dequeue(&mut ctx).is_none());
        assert!(q.is_empty());
    }
}
