//! CoDel, Controlled Delay (RFC 8289; K. Nichols and V. Jacobson, "Controlling Queue
//! Delay", ACM Queue 2012). The signal is the sojourn time of the packet leaving the
//! queue. When it has stayed above `target` (5 ms) for at least `interval` (100 ms),
//! CoDel enters the dropping state and drops at dequeue, the n-th drop of the state
//! `interval/√n` after the previous one (the control law, RFC 8289 §4.3), until a
//! sojourn time falls below target. This file follows the RFC's pseudocode (§5):
//! `dodequeue`, the dropping-state loop, and the count re-use rule when the state is
//! re-entered soon after it was left (§5.6, the Linux variant the RFC adopts).
//!
//! The state machine (`CodelVars`) is shared with FQ-CoDel, which runs one per flow.
//! With `ecn`, ECN-capable packets are marked (CE) instead of dropped (RFC 8289 §5.8
//! allows it; Linux's `ecn` option) and transmitted.
//!
//! The buffer limit (`topology.buffer`) is enforced by tail drop at enqueue.

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::Packet;
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct CodelConfig {
    /// Acceptable standing queue delay (RFC 8289 §4.4: 5 ms).
    pub target: Time,
    /// Sliding window over which the minimum delay must exceed target, about a
    /// worst-case RTT (§4.5: 100 ms).
    pub interval: Time,
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: Time::from_millis(5),
            interval: Time::from_millis(100),
            ecn: false,
        }
    }
}

/// CoDel's per-queue state (RFC 8289 §5.2).
#[derive(Clone, Debug, Default)]
pub struct CodelVars {
    /// Drops in the current dropping state (sets the control law's rate).
    pub count: u32,
    /// `count` when the last dropping state was entered.
    pub lastcount: u32,
    pub dropping: bool,
    /// When the sojourn time, above target since then, makes dropping OK; None
    /// while it is below target.
    pub first_above_time: Option<Time>,
    /// The time of the next drop while dropping.
    pub drop_next: Time,
}

/// Where CoDel takes packets from: the plain FIFO, or one flow of FQ-CoDel.
pub trait CodelSource {
    /// Pop the head packet.
    fn pop(&mut self) -> Option<Packet>;
    /// Bytes still queued (after the pop); the §5.5 check uses it so that a queue
    /// holding less than one packet is never considered standing.
    fn backlog(&self) -> u64;
}

/// The control law (RFC 8289 §5.7): the next drop interval/√count after `t`.
fn control_law(t: Time, count: u32, interval: Time) -> Time {
    t + Time((interval.0 as f64 / (count.max(1) as f64).sqrt()) as u64)
}

/// Counters a CoDel queue keeps.
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelStats {
    pub drops: u64,
    pub marks: u64,
}

impl CodelVars {
    /// §5.5 `dodequeue`: pop a packet and say whether the sojourn time has been above
    /// target for at least an interval.
    fn dodequeue(
        &mut self,
        cfg: &CodelConfig,
        maxpacket: u64,
        now: Time,
        src: &mut impl CodelSource,
    ) -> (Option<Packet>, bool) {
        let Some(p) = src.pop() else {
            // The queue is empty: we cannot be above target.
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_sub(p.enq_at);
        if sojourn < cfg.target || src.backlog() <= maxpacket {
            // Below target, or too few bytes left to be a standing queue.
            self.first_above_time = None;
            return (Some(p), false);
        }
        match self.first_above_time {
            None => {
                // Just went above target: allow dropping one interval from now.
                self.first_above_time = Some(now + cfg.interval);
                (Some(p), false)
            }
            Some(t) => (Some(p), now >= t),
        }
    }

    /// Drop `p`, or mark it when ECN allows; returns the packet back if it was marked
    /// (it is then transmitted).
    fn drop_or_mark(
        cfg: &CodelConfig,
        mut p: Packet,
        ctx: &mut QueueCtx,
        st: &mut CodelStats,
    ) -> Option<Packet> {
        if cfg.ecn && p.mark_ce() {
            st.marks += 1;
            Some(p)
        } else {
            st.drops += 1;
            ctx.drop(p, DropReason::Aqm);
            None
        }
    }

    /// §5.7 `dequeue`: the packet to send, dropping (into `ctx.drops`) as the state
    /// machine decides.
    pub fn dequeue(
        &mut self,
        cfg: &CodelConfig,
        maxpacket: u64,
        ctx: &mut QueueCtx,
        src: &mut impl CodelSource,
        st: &mut CodelStats,
    ) -> Option<Packet> {
        let now = ctx.now;
        let (mut p, ok_to_drop) = self.dodequeue(cfg, maxpacket, now, src);
        if self.dropping {
            if !ok_to_drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            }
            // Time for the next drop(s): keep dropping at the control-law rate until
            // the next drop is in the future or the queue recovers.
            while self.dropping && now >= self.drop_next {
                let Some(pk) = p.take() else {
                    self.dropping = false;
                    break;
                };
                self.count += 1;
                if let Some(marked) = Self::drop_or_mark(cfg, pk, ctx, st) {
                    // Marked, not dropped: it is the packet sent, and the next
                    // signal is due by the control law.
                    self.drop_next = control_law(self.drop_next, self.count, cfg.interval);
                    return Some(marked);
                }
                let (np, ok) = self.dodequeue(cfg, maxpacket, now, src);
                p = np;
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, self.count, cfg.interval);
                }
            }
        } else if ok_to_drop {
            // Enter the dropping state with one drop now.
            let pk = p.take().expect("ok_to_drop implies a packet");
            p = match Self::drop_or_mark(cfg, pk, ctx, st) {
                Some(marked) => Some(marked),
                None => self.dodequeue(cfg, maxpacket, now, src).0,
            };
            self.dropping = true;
            // §5.6: if the state was left only recently, resume near the drop rate
            // that controlled the queue then (count − lastcount), else start at 1.
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1 && now.saturating_sub(self.drop_next) < Time(16 * cfg.interval.0) {
                self.count = delta;
            }
            self.drop_next = control_law(now, self.count, cfg.interval);
            self.lastcount = self.count;
        }
        p
    }
}

struct Fifo<'a> {
    q: &'a mut VecDeque<Packet>,
    bytes: &'a mut u64,
}

impl CodelSource for Fifo<'_> {
    fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        *self.bytes -= p.size as u64;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        *self.bytes
    }
}

pub struct Codel {
    cfg: CodelConfig,
    limit: Limit,
    q: VecDeque<Packet>,
    bytes: u64,
    /// The largest packet seen: a queue of at most this many bytes is not standing.
    maxpacket: u64,
    vars: CodelVars,
    stats: CodelStats,
}

impl Codel {
    pub fn new(cfg: CodelConfig, limit: Limit) -> Self {
        let cap = match limit {
            // At most 1024 packets reserved up front, grown on demand: reserving up to
            // 65 536 (5.8 MB) per queue took a web workload's thousand access links to
            // 6 GB of address space (fuzz/regressions/web-access-queues.toml).
            Limit::Packets(n) => n.min(1 << 10) as usize,
            Limit::Bytes(b) => (b / 1500).min(1 << 10) as usize,
        };
        Codel {
            cfg,
            limit,
            q: VecDeque::with_capacity(cap + 1),
            bytes: 0,
            maxpacket: 0,
            vars: CodelVars::default(),
            stats: CodelStats::default(),
        }
    }

    pub fn stats(&self) -> CodelStats {
        self.stats
    }
}

impl Queue for Codel {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QueueCtx) {
        if self.limit.overflows(self.q.len(), self.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
            return;
        }
        self.maxpacket = self.maxpacket.max(pkt.size as u64);
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet> {
        let mut src = Fifo {
            q: &mut self.q,
            bytes: &mut self.bytes,
        };
        self.vars
            .dequeue(&self.cfg, self.maxpacket, ctx, &mut src, &mut self.stats)
    }

    fn len_pkts(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn marks(&self) -> u64 {
        self.stats.marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;
    use crate::queue::Drops;
    use crate::random::stream;

    fn pkt(at: Time) -> Packet {
        Packet::new(PktKind::Udp, 0, 0, 0, 1000, 1000, at)
    }

    /// A standing queue that never drains: after the first interval above target,
    /// drops come at interval/√n spacings (the control law), one per dequeue.
    #[test]
    fn control_law_spacing() {
        let mut q = Codel::new(CodelConfig::default(), Limit::Packets(1_000_000));
        let mut rng = stream(1, "codel");
        let mut drops = Drops::default();
        // Keep the head's sojourn at 50 ms: enqueue at t − 50 ms before each dequeue.
        let mut drop_times = Vec::new();
        let step = Time::from_micros(100);
        let mut now = Time::from_millis(50);
        for _ in 0..20_000 {
            // Packets queued behind, so the backlog stays above maxpacket even after
            // a drop and its replacement.
            while q.len_pkts() < 5 {
                q.enqueue(pkt(now.saturating_sub(Time::from_millis(50))), &mut {
                    QueueCtx {
                        now,
                        rng: &mut rng,
                        drops: &mut drops,
                    }
                });
            }
            let before = drops.len();
            let mut ctx = QueueCtx {
                now,
                rng: &mut rng,
                drops: &mut drops,
            };
            q.dequeue(&mut ctx);
            for _ in before..drops.len() {
                drop_times.push(now);
            }
            now += step;
        }
        // First drop one interval after the first dequeue above target (t = 50 ms).
        assert_eq!(drop_times[0], Time::from_millis(150));
        // Then gaps of 100 ms/√n, n = 1, 2, ... (within the 0.1 ms dequeue grid).
        for n in 1..15 {
            let gap = (drop_times[n] - drop_times[n - 1]).as_secs_f64();
            let want = 0.1 / (n as f64).sqrt();
            assert!((gap - want).abs() <= 1.01e-4, "gap {n}: {gap} vs {want}");
        }
        assert_eq!(q.stats().drops as usize, drop_times.len());
    }

    /// Below target nothing is dropped, however long the queue stays.
    #[test]
    fn no_drops_below_target() {
        let mut q = Codel::new(CodelConfig::default(), Limit::Packets(1000));
        let mut rng = stream(1, "codel");
        let mut drops = Drops::default();
        let mut now = Time::ZERO;
        for _ in 0..10_000 {
            let mut ctx = QueueCtx {
                now,
                rng: &mut rng,
                drops: &mut drops,
            };
            // Three packets queued, one served every 1.5 ms: each waits 4.5 ms,
            // just under target, with always more than one packet left behind.
            while q.len_pkts() < 3 {
                q.enqueue(pkt(now), &mut ctx);
            }
            now += Time::from_micros(1500);
            ctx.now = now;
            assert!(q.dequeue(&mut ctx).is_some());
        }
        assert!(drops.is_empty());
    }

    /// §5.6: re-entering the dropping state soon after leaving it resumes with the
    /// previous state's drop count (count − lastcount) instead of 1.
    #[test]
    fn count_reuse_on_reentry() {
        let cfg = CodelConfig::default();
        let mut v = CodelVars {
            count: 9,
            lastcount: 2,
            dropping: false,
            first_above_time: Some(Time::from_millis(100)),
            drop_next: Time::from_millis(900),
        };
        let mut rng = stream(1, "codel");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::from_millis(1000),
            rng: &mut rng,
            drops: &mut drops,
        };
        let mut q: VecDeque<Packet> = (0..5).map(|_| pkt(Time::ZERO)).collect();
        let mut bytes = 5000;
        let mut st = CodelStats::default();
        let mut src = Fifo {
            q: &mut q,
            bytes: &mut bytes,
        };
        v.dequeue(&cfg, 1000, &mut ctx, &mut src, &mut st);
        assert!(v.dropping);
        assert_eq!((v.count, v.lastcount), (7, 7));
        assert_eq!(
            v.drop_next,
            control_law(Time::from_millis(1000), 7, cfg.interval)
        );
        // Long after (≥ 16 intervals): start over at 1.
        v.dropping = false;
        v.count = 20;
        v.drop_next = Time::from_millis(1000);
        v.first_above_time = Some(Time::ZERO);
        ctx.now = Time::from_millis(2700);
        let mut src = Fifo {
            q: &mut q,
            bytes: &mut bytes,
        };
        v.dequeue(&cfg, 1000, &mut ctx, &mut src, &mut st);
        assert_eq!(v.count, 1);
        assert_eq!(ctx.drops.len(), 2);
    }
}
