//! FQ-PIE (Linux `sch_fq_pie`, G. Ramakrishnan et al., "FQ-PIE Queue Discipline in
//! the Linux Kernel: Design, Implementation and Challenges", 2019): FQ-CoDel's flow
//! queueing (flows hashed into `buckets` queues, DRR over a "new" and an "old" list,
//! RFC 8290 §4.2; see fq_codel.rs) with a PIE controller per flow queue (pie.rs) in
//! place of CoDel.
//!
//! - Enqueue: hash the packet; if the shared limit is reached the arrival is dropped
//!   (Linux `fq_pie_qdisc_enqueue`: "qdisc is full" drops the arrival, unlike
//!   FQ-CoDel's drop from the fattest queue); otherwise its flow's PIE decides, with
//!   that flow's backlog, whether to drop it early or (ECN) mark it (RFC 8033 §4.1,
//!   §5.1).
//! - Dequeue: FQ-CoDel's scheduler (`flow_queues.rs`); the departing packet feeds its flow's delay
//!   estimate (timestamps by default, as Linux).
//! - Every T_UPDATE each flow's PIE updates its probability from its own delay
//!   (Linux `fq_pie_timer`); here each flow catches up when it is next touched, which
//!   is exact (pie.rs).
//!
//! Not modelled: Linux's memory limit (32 MB of skb truesize), byte mode.

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use super::flow_queues::FlowQueues;
use super::pie::{PieConfig, PieVars};
use crate::packet::Packet;
use crate::random::unit;

#[derive(Clone, Debug, PartialEq)]
pub struct FqPieConfig {
    /// DRR credit per round, bytes (Linux: the device MTU with its header, 1514 B).
    pub quantum: u32,
    /// Hashed flow queues (Linux `flows`: 1024).
    pub buckets: u32,
    pub pie: PieConfig,
}

impl Default for FqPieConfig {
    fn default() -> Self {
        FqPieConfig {
            quantum: 1514,
            buckets: 1024,
            pie: PieConfig::default(),
        }
    }
}

pub struct FqPie {
    cfg: FqPieConfig,
    limit: Limit,
    flows: FlowQueues<PieVars>,
    marks: u64,
}

impl FqPie {
    pub fn new(cfg: FqPieConfig, limit: Limit, salt: u64) -> Self {
        FqPie {
            flows: FlowQueues::new(cfg.buckets, cfg.quantum, salt, || PieVars::new(&cfg.pie)),
            cfg,
            limit,
            marks: 0,
        }
    }

    #[cfg(test)]
    fn bucket(&self, p: &Packet) -> usize {
        self.flows.bucket(p)
    }

    /// The drop probability of `p`'s flow queue (tests, diagnostics).
    pub fn prob_of(&self, p: &Packet) -> f64 {
        self.flows.flows[self.flows.bucket(p)].vars.prob
    }
}

impl Queue for FqPie {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QueueCtx) {
        let i = self.flows.bucket(&pkt);
        let t = self.flows.totals;
        if self.limit.overflows(t.pkts, t.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
            return;
        }
        let pie = &self.cfg.pie;
        let f = &mut self.flows.flows[i];
        f.vars.catch_up(pie, ctx.now, f.bytes);
        if f.vars.drop_early(pie, f.bytes, 0.0) && f.vars.drop_early(pie, f.bytes, unit(ctx.rng)) {
            if f.vars.mark(pie, &mut pkt) {
                self.marks += 1;
            } else {
                ctx.drop(pkt, DropReason::Aqm);
                return;
            }
        }
        self.flows.push(i, pkt);
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet> {
        let (pie, now) = (&self.cfg.pie, ctx.now);
        self.flows.dequeue(|f, totals| {
            f.vars.catch_up(pie, now, f.bytes);
            let p = f.q.pop_front()?;
            totals.remove_popped(f, &p);
            let sojourn = now.saturating_sub(p.enq_at);
            f.vars.on_dequeue(pie, now, p.size as u64, sojourn, f.bytes);
            Some(p)
        })
    }

    fn len_pkts(&self) -> usize {
        self.flows.totals.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.flows.totals.bytes
    }
    fn marks(&self) -> u64 {
        self.marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PktKind;
    use crate::queue::Drops;
    use crate::random::stream;
    use crate::units::Time;

    fn pkt(flow: u32, at: Time) -> Packet {
        Packet::new(PktKind::Udp, flow, 0, 0, 1000, 1000, at)
    }

    /// Each flow queue has its own PIE: a flow that keeps a standing queue drives its
    /// own probability up while a sparse flow sharing the link keeps p = 0 and loses
    /// nothing early.
    #[test]
    fn per_flow_pie() {
        let mut rng = stream(5, "fq_pie");
        let mut drops = Drops::default();
        let mut q = FqPie::new(FqPieConfig::default(), Limit::Packets(10_000), 7);
        let tx = Time::from_micros(800); // 10 Mb/s, 1000 B
        let mut now = Time::ZERO;
        let (fat, thin) = (1, 2);
        assert_ne!(q.bucket(&pkt(fat, now)), q.bucket(&pkt(thin, now)));
        for k in 0..5000u64 {
            let mut ctx = QueueCtx {
                now,
                rng: &mut rng,
                drops: &mut drops,
            };
            // The fat flow offers 1.5× the link; the thin one a packet every 20 ms.
            q.enqueue(pkt(fat, now), &mut ctx);
            if k % 2 == 0 {
                q.enqueue(pkt(fat, now), &mut ctx);
            }
            if k % 25 == 0 {
                q.enqueue(pkt(thin, now), &mut ctx);
            }
            q.dequeue(&mut ctx).unwrap();
            now += tx;
        }
        let pf = q.prob_of(&pkt(fat, now));
        let pt = q.prob_of(&pkt(thin, now));
        assert!(pf > 0.2, "fat flow p {pf}");
        assert_eq!(pt, 0.0);
        assert!(drops.iter().all(|p| p.flow == fat));
        assert!(drops.len() > 1000, "{}", drops.len());
    }
}
