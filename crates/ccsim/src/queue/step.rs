//! Step marking: a FIFO that sets CE on ECN-capable packets when the instantaneous
//! queue exceeds a threshold K, and drops only at the buffer limit. This is the switch
//! DCTCP was designed for (Alizadeh et al., SIGCOMM 2010, §3.1: "mark the arriving
//! packet if the queue occupancy is greater than K"; RFC 8257 §3.1) and the native L4S
//! AQM of RFC 9332 §5.1 when K is a sojourn time.
//!
//! K in packets or bytes is compared with the queue an arriving packet finds (before
//! it joins), and the arrival is marked; K as a duration is compared with the
//! packet's sojourn time at dequeue (as RFC 9332's L4S step and Linux's
//! `ce_threshold` do), and the departing packet is marked. Packets that are not
//! ECN-capable are never marked nor dropped early: only the buffer limit drops them.

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::Packet;
use crate::units::Time;
use std::collections::VecDeque;
use std::fmt;

/// The marking threshold K.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepThreshold {
    Pkts(u64),
    Bytes(u64),
    Sojourn(Time),
}

impl StepThreshold {
    /// "20pkt", "30000B"/"30KB", or a duration "1ms".
    pub fn parse(s: &str) -> Result<StepThreshold, String> {
        let s = s.trim();
        if let Some(n) = s.strip_suffix("pkts").or_else(|| s.strip_suffix("pkt")) {
            return n
                .trim()
                .parse::<u64>()
                .map(StepThreshold::Pkts)
                .map_err(|_| format!("expected a whole number of packets, got \"{s}\""));
        }
        if let Ok(t) = Time::parse(s) {
            return Ok(StepThreshold::Sojourn(t));
        }
        crate::units::parse_bytes(s)
            .map(StepThreshold::Bytes)
            .map_err(|_| {
                format!("expected a threshold like \"20pkt\", \"30KB\" or \"1ms\", got \"{s}\"")
            })
    }
}

impl fmt::Display for StepThreshold {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            StepThreshold::Pkts(n) => write!(f, "{n}pkt"),
            StepThreshold::Bytes(b) => write!(f, "{b}B"),
            StepThreshold::Sojourn(t) => write!(f, "{}s", t.as_secs_f64()),
        }
    }
}

/// The step marker's parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct StepConfig {
    /// K. Default 20 packets (the DCTCP paper's value at 1 Gb/s, §3.4 / §4).
    pub k: StepThreshold,
}

impl Default for StepConfig {
    fn default() -> Self {
        StepConfig {
            k: StepThreshold::Pkts(20),
        }
    }
}

pub struct Step {
    k: StepThreshold,
    limit: Limit,
    q: VecDeque<Packet>,
    bytes: u64,
    marks: u64,
}

impl Step {
    pub fn new(cfg: StepConfig, limit: Limit) -> Self {
        Step {
            k: cfg.k,
            limit,
            q: VecDeque::new(),
            bytes: 0,
            marks: 0,
        }
    }
}

impl Queue for Step {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QueueCtx) {
        if self.limit.overflows(self.q.len(), self.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
            return;
        }
        let above = match self.k {
            StepThreshold::Pkts(k) => self.q.len() as u64 > k,
            StepThreshold::Bytes(k) => self.bytes > k,
            StepThreshold::Sojourn(_) => false,
        };
        if above && pkt.mark_ce() {
            self.marks += 1;
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet> {
        let mut p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        if let StepThreshold::Sojourn(k) = self.k {
            if ctx.now.saturating_sub(p.enq_at) > k && p.mark_ce() {
                self.marks += 1;
            }
        }
        Some(p)
    }
    fn len_pkts(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn marks(&self) -> u64 {
        self.marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PktKind};
    use crate::queue::Drops;
    use crate::random::stream;

    fn pkt(ecn: Ecn) -> Packet {
        let mut p = Packet::new(PktKind::Data, 0, 0, 0, 1000, 960, Time::ZERO);
        p.ecn = ecn;
        p
    }

    /// Arrivals that find more than K packets are marked; not-ECT ones pass unmarked;
    /// the buffer limit drops.
    #[test]
    fn marks_above_k_and_drops_at_the_limit() {
        let mut rng = stream(1, "q");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        let mut q = Step::new(
            StepConfig {
                k: StepThreshold::Pkts(3),
            },
            Limit::Packets(6),
        );
        for _ in 0..8 {
            q.enqueue(pkt(Ecn::Ect0), &mut ctx);
        }
        // Arrivals 1..4 find 0..3 queued: unmarked; 5 and 6 find 4 and 5: marked;
        // 7 and 8 find the buffer full.
        let ce: Vec<bool> = (0..6).map(|_| q.dequeue(&mut ctx).unwrap().ce()).collect();
        assert_eq!(ce, vec![false, false, false, false, true, true]);
        assert_eq!((q.marks(), ctx.drops.len()), (2, 2));
        for _ in 0..6 {
            q.enqueue(pkt(Ecn::NotEct), &mut ctx);
        }
        assert!((0..6).all(|_| !q.dequeue(&mut ctx).unwrap().ce()));
        assert_eq!(q.marks(), 2);
    }

    /// A sojourn-time K marks the departing packets that waited longer than K.
    #[test]
    fn sojourn_threshold_marks_at_dequeue() {
        let mut rng = stream(1, "q");
        let mut drops = Drops::default();
        let mut q = Step::new(
            StepConfig {
                k: StepThreshold::parse("1ms").unwrap(),
            },
            Limit::Packets(100),
        );
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        for _ in 0..3 {
            q.enqueue(pkt(Ecn::Ect1), &mut ctx);
        }
        ctx.now = Time::from_micros(1000);
        assert!(
            !q.dequeue(&mut ctx).unwrap().ce(),
            "exactly K is not above K"
        );
        ctx.now = Time::from_micros(1001);
        assert!(q.dequeue(&mut ctx).unwrap().ce());
        assert_eq!(q.marks(), 1);
    }

    #[test]
    fn thresholds_parse() {
        assert_eq!(StepThreshold::parse("20pkt"), Ok(StepThreshold::Pkts(20)));
        assert_eq!(
            StepThreshold::parse("30KB"),
            Ok(StepThreshold::Bytes(30_000))
        );
        assert_eq!(
            StepThreshold::parse("2ms"),
            Ok(StepThreshold::Sojourn(Time::from_millis(2)))
        );
        assert!(StepThreshold::parse("lots").is_err());
    }
}
