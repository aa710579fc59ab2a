//! FIFO with tail drop, limited in packets or bytes.

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::Packet;
use std::collections::VecDeque;

pub struct DropTail {
    limit: Limit,
    q: VecDeque<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        let cap = match limit {
            // At most 1024 packets reserved up front, grown on demand: reserving up to
            // 65 536 (5.8 MB) per queue took a web workload's thousand access links to
            // 6 GB of address space (fuzz/regressions/web-access-queues.toml).
            Limit::Packets(n) => n.min(1 << 10) as usize,
            Limit::Bytes(b) => (b / 1500).min(1 << 10) as usize,
        };
        DropTail {
            limit,
            q: VecDeque::with_capacity(cap + 1),
            bytes: 0,
        }
    }
}

impl Queue for DropTail {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QueueCtx) {
        if self.limit.overflows(self.q.len(), self.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
        } else {
            self.bytes += pkt.size as u64;
            self.q.push_back(pkt);
        }
    }
    fn dequeue(&mut self, _ctx: &mut QueueCtx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    fn len_pkts(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn set_limit(&mut self, limit: Limit) -> bool {
        self.limit = limit;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;
    use crate::queue::Drops;
    use crate::random::stream;
    use crate::units::Time;

    fn pkt(size: u32) -> Packet {
        Packet::new(PktKind::Udp, 0, 0, 0, size, size, Time::ZERO)
    }

    #[test]
    fn limits_in_packets_and_bytes() {
        let mut rng = stream(1, "q");
        let mut drops = Drops::default();
        let mut q = DropTail::new(Limit::Packets(2));
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        for _ in 0..3 {
            q.enqueue(pkt(1000), &mut ctx);
        }
        assert_eq!((q.len_pkts(), ctx.drops.len()), (2, 1));
        let mut q = DropTail::new(Limit::Bytes(2500));
        ctx.drops.clear();
        for s in [1000, 1000, 1000, 500] {
            q.enqueue(pkt(s), &mut ctx);
        }
        assert_eq!((q.len_pkts(), q.len_bytes(), ctx.drops.len()), (3, 2500, 1));
    }
}
