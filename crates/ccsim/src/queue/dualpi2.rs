//! DualPI2, the DualQ Coupled AQM of RFC 9332 with a PI2 base AQM (De Schepper et
//! al., "PI2: A Linearized AQM for both Classic and Scalable TCP", CoNEXT 2016).
//!
//! Two FIFOs share one buffer: the L4S queue takes ECT(1) and CE packets, the classic
//! queue the rest (RFC 9331 §5.3 classifier). A PI controller updates a base
//! probability p' every T_UPDATE from the classic queue's delay:
//!
//! p' ← p' + α·(τ − target) + β·(τ − τ_old)                 (RFC 9332 A.1)
//!
//! and applies it squared to classic traffic and linearly, coupled by k, to L4S:
//!
//! p_C = (p')²,   p_CL = k·p',   p_L = max(p'_L, p_CL)        (RFC 9332 §2.1)
//!
//! where p'_L is the native L4S AQM, a step (or ramp) on the L4S queue's sojourn time
//! (1 ms, A.1's `laqm` and Linux's `step_thresh`). So in steady state
//! p_C = (p_CL/k)², which makes a classic flow (rate ∝ 1/√p_C) and a scalable one
//! (rate ∝ 1/p_L) share the link (§2.1). Classic packets are dropped with p_C, or
//! marked if ECN-capable; L4S packets are marked with p_L. Both decisions are taken at
//! dequeue (A.1).
//!
//! Scheduling is RFC 9332 A.1's time-shifted FIFO: the L4S head goes first unless the
//! classic head has waited more than `tshift` longer, which bounds how long L4S
//! traffic can starve the classic queue. Overload (RFC 9332's overload handling;
//! Linux `drop_on_overload`): once p' ≥ 1/k (so p_CL ≥ 1 and marking alone no longer
//! controls L4S senders), L4S packets are dropped with p_C as classic ones are.
//!
//! Defaults are RFC 9332 A.1's (and Linux's): target 15 ms, T_UPDATE 16 ms, α = 0.16
//! Hz, β = 3.2 Hz, k = 2. The delay τ fed to the controller is the classic queue's
//! head sojourn time (A.1 `cq.time()`); Linux uses the larger of both queues' — with
//! an L4S queue held near 1 ms the two agree whenever classic traffic is present.
//! Not modelled: Linux's WRR scheduler (`classic_protection`), GSO splitting, memory
//! limit. T_UPDATE ticks are computed when the queue is next touched, exactly (the
//! classic head, whose sojourn they read, does not change between packet events).

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::Packet;
use crate::random::unit;
use crate::units::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Config {
    /// The classic queue's delay target: 15 ms.
    pub target: Time,
    /// T_UPDATE: 16 ms.
    pub tupdate: Time,
    /// PI gains α, β in Hz: 0.16 and 3.2.
    pub alpha: f64,
    pub beta: f64,
    /// Coupling factor k: 2.
    pub k: f64,
    /// Native L4S AQM: marking starts at this sojourn time (1 ms) …
    pub l4s_threshold: Time,
    /// … as a step (0) or a ramp to certainty over this much more delay.
    pub l4s_ramp: Time,
    /// Time-shifted FIFO: classic packets count as this much older (2·target).
    pub tshift: Time,
    /// Mark (rather than drop) ECN-capable classic packets with p_C.
    pub classic_ecn: bool,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config {
            target: Time::from_millis(15),
            tupdate: Time::from_millis(16),
            alpha: 0.16,
            beta: 3.2,
            k: 2.0,
            l4s_threshold: Time::from_millis(1),
            l4s_ramp: Time::ZERO,
            tshift: Time::from_millis(30),
            classic_ecn: true,
        }
    }
}

impl DualPi2Config {
    /// RFC 9332 §2.1: the classic probability from the base one, p_C = (p')².
    pub fn p_classic(&self, p: f64) -> f64 {
        p * p
    }
    /// RFC 9332 §2.1: the coupled L4S probability, p_CL = k·p' (capped at 1).
    pub fn p_coupled(&self, p: f64) -> f64 {
        (self.k * p).min(1.0)
    }
    /// The native L4S AQM p'_L on a sojourn time (RFC 9332 A.1 `laqm`: step or ramp).
    pub fn p_native(&self, sojourn: Time) -> f64 {
        if self.l4s_ramp == Time::ZERO {
            if sojourn >= self.l4s_threshold {
                1.0
            } else {
                0.0
            }
        } else {
            let x = sojourn.as_secs_f64() - self.l4s_threshold.as_secs_f64();
            (x / self.l4s_ramp.as_secs_f64()).clamp(0.0, 1.0)
        }
    }
}

/// Counters per traffic class (tests and diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassStats {
    pub dequeued: u64,
    pub marked: u64,
    pub dropped: u64,
    /// Sum of sojourn times of the packets dequeued, seconds.
    pub sojourn_s: f64,
}

pub struct DualPi2 {
    cfg: DualPi2Config,
    limit: Limit,
    lq: VecDeque<Packet>,
    cq: VecDeque<Packet>,
    bytes: u64,
    /// The base probability p' and the previous delay τ_old (s).
    pub p: f64,
    prev_qdelay: f64,
    next_update: Time,
    pub l4s: ClassStats,
    pub classic: ClassStats,
}

impl DualPi2 {
    pub fn new(cfg: DualPi2Config, limit: Limit) -> Self {
        DualPi2 {
            next_update: cfg.tupdate,
            cfg,
            limit,
            lq: VecDeque::new(),
            cq: VecDeque::new(),
            bytes: 0,
            p: 0.0,
            prev_qdelay: 0.0,
            l4s: ClassStats::default(),
            classic: ClassStats::default(),
        }
    }

    /// One T_UPDATE of the PI controller with the classic delay `qdelay` (s)
    /// (RFC 9332 A.1 `dualpi2_update`): p' += α(τ − target) + β(τ − τ_old), in [0, 1].
    pub fn update(&mut self, qdelay: f64) {
        let c = &self.cfg;
        self.p +=
            c.alpha * (qdelay - c.target.as_secs_f64()) + c.beta * (qdelay - self.prev_qdelay);
        self.p = self.p.clamp(0.0, 1.0);
        self.prev_qdelay = qdelay;
    }

    /// The ticks due by `now`, each reading the classic head's sojourn at its instant.
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let t = self.next_update;
            let q = self
                .cq
                .front()
                .map_or(0.0, |h| t.saturating_sub(h.enq_at).as_secs_f64());
            self.update(q);
            self.next_update += self.cfg.tupdate;
            if self.cq.is_empty() && self.p == 0.0 && self.prev_qdelay == 0.0 {
                // Idle and settled: skip the ticks that would change nothing.
                let ticks = now.saturating_sub(self.next_update).ps() / self.cfg.tupdate.ps();
                self.next_update += Time(ticks * self.cfg.tupdate.ps());
            }
        }
    }

    /// RFC 9332 A.1's time-shifted FIFO: serve L4S unless the classic head has waited
    /// `tshift` longer than the L4S head.
    fn l4s_next(&self) -> Option<bool> {
        match (self.lq.front(), self.cq.front()) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            // Serve classic only once its head has waited tshift longer.
            (Some(l), Some(c)) => Some(l.enq_at <= c.enq_at + self.cfg.tshift),
        }
    }

    /// Whether p' is in overload (p_CL ≥ 1: marking alone no longer controls L4S senders).
    fn overloaded(&self) -> bool {
        self.cfg.k * self.p >= 1.0
    }
}

impl Queue for DualPi2 {
    fn enqueue(&mut self, pkt: Packet, ctx: &mut QueueCtx) {
        self.catch_up(ctx.now);
        let len = self.lq.len() + self.cq.len();
        if self.limit.overflows(len, self.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
            return;
        }
        self.bytes += pkt.size as u64;
        // RFC 9331 §5.3: ECT(1) and CE are L4S.
        if pkt.ecn.l4s() {
            self.lq.push_back(pkt);
        } else {
            self.cq.push_back(pkt);
        }
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet> {
        self.catch_up(ctx.now);
        while let Some(from_l) = self.l4s_next() {
            let mut pkt = if from_l {
                self.lq.pop_front()
            } else {
                self.cq.pop_front()
            }
            .expect("chosen queue is not empty");
            self.bytes -= pkt.size as u64;
            let sojourn = ctx.now.saturating_sub(pkt.enq_at);
            let p_c = self.cfg.p_classic(self.p);
            let overloaded = self.overloaded();
            if from_l {
                let st = &mut self.l4s;
                if overloaded && unit(ctx.rng) < p_c {
                    st.dropped += 1;
                    ctx.drop(pkt, DropReason::Aqm);
                    continue;
                }
                // RFC 9332 A.1: p_L = max(p'_L, p_CL).
                let p_l = self.cfg.p_native(sojourn).max(self.cfg.p_coupled(self.p));
                if p_l > 0.0 && (p_l >= 1.0 || unit(ctx.rng) < p_l) && pkt.mark_ce() {
                    st.marked += 1;
                }
                st.dequeued += 1;
                st.sojourn_s += sojourn.as_secs_f64();
            } else {
                let st = &mut self.classic;
                if p_c > 0.0 && unit(ctx.rng) < p_c {
                    if !(self.cfg.classic_ecn && !overloaded && pkt.mark_ce()) {
                        st.dropped += 1;
                        ctx.drop(pkt, DropReason::Aqm);
                        continue;
                    }
                    st.marked += 1;
                }
                st.dequeued += 1;
                st.sojourn_s += sojourn.as_secs_f64();
            }
            return Some(pkt);
        }
        None
    }

    fn len_pkts(&self) -> usize {
        self.lq.len() + self.cq.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn marks(&self) -> u64 {
        self.l4s.marked + self.classic.marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, PktKind};
    use crate::queue::Drops;
    use crate::random::stream;

    fn pkt(ecn: Ecn, at: Time) -> Packet {
        let mut p = Packet::new(PktKind::Data, 0, 0, 0, 1000, 960, at);
        p.ecn = ecn;
        p
    }

    /// RFC 9332 A.1 `dualpi2_update` on a scripted delay trajectory, worked by hand:
    /// τ = 30 ms from p' = 0: 0.16·0.015 + 3.2·0.030 = 0.0984; τ = 30 ms again:
    /// plus 0.16·0.015 = 0.1008; τ = 0: minus 0.16·0.015 + 3.2·0.030, so 0.0024; τ = 0:
    /// minus 0.0024, so 0 (clamped at zero thereafter).
    #[test]
    fn pi_update_on_a_scripted_trajectory() {
        let mut q = DualPi2::new(DualPi2Config::default(), Limit::Packets(100));
        for (tau, want) in [
            (0.030, 0.0984),
            (0.030, 0.1008),
            (0.0, 0.0024),
            (0.0, 0.0),
            (0.0, 0.0),
        ] {
            q.update(tau);
            assert!((q.p - want).abs() < 1e-12, "{} vs {want}", q.p);
        }
    }

    /// The coupling (RFC 9332 §2.1): with p' held, classic packets are dropped with
    /// p_C = p'² and L4S packets (below the step) marked with p_CL = k·p', so the
    /// measured frequencies satisfy p_C = (p_L/k)².
    #[test]
    fn coupling_classic_is_the_square_of_l4s_over_k() {
        let cfg = DualPi2Config {
            tupdate: Time::from_secs(1_000_000), // hold p'
            classic_ecn: false,
            ..DualPi2Config::default()
        };
        let mut q = DualPi2::new(cfg, Limit::Packets(1_000_000));
        let mut rng = stream(9, "dualpi2");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        q.p = 0.2;
        let n = 200_000;
        for _ in 0..n {
            q.enqueue(pkt(Ecn::Ect1, Time::ZERO), &mut ctx);
            q.enqueue(pkt(Ecn::NotEct, Time::ZERO), &mut ctx);
        }
        while q.dequeue(&mut ctx).is_some() {}
        let p_l = q.l4s.marked as f64 / n as f64;
        let p_c = q.classic.dropped as f64 / n as f64;
        // Binomial standard errors: √(0.4·0.6/n) ≈ 0.0011 and √(0.04·0.96/n) ≈ 0.00044.
        assert!((p_l - 0.4).abs() < 0.005, "p_L {p_l}");
        assert!((p_c - 0.04).abs() < 0.002, "p_C {p_c}");
        assert!(
            (p_c - (p_l / 2.0).powi(2)).abs() < 0.003,
            "{p_c} vs ({p_l}/2)²"
        );
        assert_eq!(q.classic.marked + q.l4s.dropped, 0);
    }

    /// Classification (ECT(1) and CE → L4S), the time-shifted FIFO, and the native
    /// step: an L4S packet that waited 1 ms or more is marked.
    #[test]
    fn classifier_scheduler_and_step() {
        let mut q = DualPi2::new(DualPi2Config::default(), Limit::Packets(100));
        let mut rng = stream(1, "d");
        let mut drops = Drops::default();
        let ms = Time::from_millis;
        let mut ctx = QueueCtx {
            now: ms(0),
            rng: &mut rng,
            drops: &mut drops,
        };
        q.enqueue(pkt(Ecn::Ect0, ms(0)), &mut ctx);
        q.enqueue(pkt(Ecn::Ce, ms(10)), &mut ctx);
        q.enqueue(pkt(Ecn::Ect1, ms(20)), &mut ctx);
        q.enqueue(pkt(Ecn::NotEct, ms(45)), &mut ctx);
        assert_eq!((q.lq.len(), q.cq.len()), (2, 2));
        ctx.now = ms(10);
        // L head (10 ms) vs classic head (0 ms): within tshift = 30 ms, L goes first;
        // it waited 0 ms: not marked (CE stays CE).
        let a = q.dequeue(&mut ctx).unwrap();
        assert_eq!(a.enq_at, ms(10));
        // L head (20 ms) vs classic head (0 ms): still within 30 ms.
        ctx.now = ms(25);
        let b = q.dequeue(&mut ctx).unwrap();
        assert_eq!((b.enq_at, b.ecn), (ms(20), Ecn::Ce), "5 ms ≥ 1 ms: marked");
        let c = q.dequeue(&mut ctx).unwrap();
        assert_eq!(c.enq_at, ms(0));
        // With the L4S head 31 ms younger than the classic one, classic goes first.
        q.enqueue(pkt(Ecn::Ect1, ms(76)), &mut ctx);
        let d = q.dequeue(&mut ctx).unwrap();
        assert_eq!(d.enq_at, ms(45));
        assert_eq!(q.l4s.marked, 1);
    }
}
