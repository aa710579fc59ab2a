//! PIE, Proportional Integral controller Enhanced (RFC 8033): a drop (or mark)
//! probability p driven every T_UPDATE by the queueing delay's distance from a target
//! and by its trend:
//!
//! p ← p + α·(qdelay − target) + β·(qdelay − qdelay_old)          (RFC 8033 §4.2)
//!
//! with α and β scaled down while p is small (the auto-tuning table of §4.2), the
//! increase capped at 2 % once p ≥ 10 % (§5.5, "cap drop adjustment"), and p decayed
//! by 2 % per update while the queue stays empty (§4.2). Arrivals are dropped with
//! probability p (§4.1), except during the burst allowance (150 ms, §4.4), when the
//! delay is low and p small (qdelay_old < target/2 and p < 20 %), or when fewer than
//! two packets' worth of bytes are queued. With ECN on, an ECN-capable packet is
//! marked instead while p ≤ 10 % (§5.1).
//!
//! The queueing delay is estimated (§4.3, §5.2) either from timestamps — the sojourn time of
//! the last packet dequeued, zero once the queue is empty (Linux's and ns-3's default)
//! — or by Little's law from a departure-rate estimate: queue bytes × avg_dq_time /
//! dq_threshold, avg_dq_time an EWMA (weight 1/4) of the time 16 KB take to leave.
//!
//! T_UPDATE ticks are computed when the queue is next touched: between two packet
//! events nothing PIE reads changes, so catching up on the missed ticks then gives
//! exactly what a timer would. Not modelled: derandomisation (§5.4, optional) and
//! Linux's active/inactive switch.

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::Packet;
use crate::random::unit;
use crate::units::Time;
use std::collections::VecDeque;

/// How PIE estimates the queueing delay (RFC 8033 §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieEstimator {
    /// The sojourn time of the last dequeued packet (Linux `dq_rate_estimator` off).
    Timestamp,
    /// Little's law with the departure-rate estimate of §4.3.
    Rate,
}

/// PIE's parameters (RFC 8033 §4 and §5; Linux `sch_pie` defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct PieConfig {
    /// QDELAY_REF: 15 ms.
    pub target: Time,
    /// T_UPDATE: 15 ms.
    pub tupdate: Time,
    /// α and β, Hz: 0.125 and 1.25.
    pub alpha: f64,
    pub beta: f64,
    /// MAX_BURST: 150 ms.
    pub max_burst: Time,
    /// Mark ECN-capable packets instead of dropping them while p ≤ `mark_threshold`.
    pub ecn: bool,
    /// §5.1: 10 %.
    pub mark_threshold: f64,
    pub estimator: PieEstimator,
    /// §4.3 DQ_THRESHOLD, bytes: 16 KB (2^14).
    pub dq_threshold: u64,
    /// §5.5 cap drop adjustment (on by default, as ns-3 and Linux).
    pub cap_drop: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: Time::from_millis(15),
            tupdate: Time::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Time::from_millis(150),
            ecn: false,
            mark_threshold: 0.1,
            estimator: PieEstimator::Timestamp,
            dq_threshold: 16_384,
            cap_drop: true,
        }
    }
}

/// RFC 8033 §4.1: no early drop with fewer than two mean-sized packets queued.
pub const MEAN_PKTSIZE: u64 = 1500;

/// RFC 8033 §4.2's auto-tuning: the factor that scales α and β down while p is small.
pub fn autotune_scale(p: f64) -> f64 {
    match p {
        p if p < 1e-6 => 1.0 / 2048.0,
        p if p < 1e-5 => 1.0 / 512.0,
        p if p < 1e-4 => 1.0 / 128.0,
        p if p < 1e-3 => 1.0 / 32.0,
        p if p < 1e-2 => 1.0 / 8.0,
        p if p < 1e-1 => 1.0 / 2.0,
        _ => 1.0,
    }
}

/// One PIE controller's state (one per queue; FQ-PIE keeps one per flow queue).
#[derive(Clone, Debug)]
pub struct PieVars {
    /// Drop probability p.
    pub prob: f64,
    /// Current and previous queueing delay estimates, seconds.
    pub qdelay: f64,
    pub qdelay_old: f64,
    /// Burst allowance left.
    pub burst: Time,
    next_update: Time,
    // Departure-rate estimation (§4.3).
    in_measurement: bool,
    dq_count: u64,
    dq_start: Time,
    avg_dq_time: f64,
}

impl PieVars {
    pub fn new(cfg: &PieConfig) -> Self {
        PieVars {
            prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst: cfg.max_burst,
            next_update: cfg.tupdate,
            in_measurement: false,
            dq_count: 0,
            dq_start: Time::ZERO,
            avg_dq_time: 0.0,
        }
    }

    /// One T_UPDATE of RFC 8033 §4.2 with the current delay estimate `qdelay` (s).
    pub fn update(&mut self, cfg: &PieConfig, qdelay: f64) {
        let target = cfg.target.as_secs_f64();
        self.qdelay = qdelay;
        // §4.2: p = α·(qdelay − target) + β·(qdelay − qdelay_old), auto-tuned.
        let mut p = cfg.alpha * (qdelay - target) + cfg.beta * (qdelay - self.qdelay_old);
        p *= autotune_scale(self.prob);
        // §5.5: cap the increase at 2 % once p ≥ 10 %.
        if cfg.cap_drop && self.prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.prob += p;
        // §4.2: decay p while the queue stays empty.
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.prob *= 0.98;
        }
        self.prob = self.prob.clamp(0.0, 1.0);
        self.qdelay_old = qdelay;
        // §4.4: the burst allowance runs down by T_UPDATE per update, and is restored
        // once p is zero and both delays are below half the target.
        self.burst = self.burst.saturating_sub(cfg.tupdate);
        if self.prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst = cfg.max_burst;
        }
    }

    /// The delay estimate for an update, given the queue's bytes (§4.3).
    fn estimate(&self, cfg: &PieConfig, backlog: u64) -> f64 {
        match cfg.estimator {
            PieEstimator::Timestamp => self.qdelay,
            PieEstimator::Rate => backlog as f64 * self.avg_dq_time / cfg.dq_threshold as f64,
        }
    }

    /// Run the T_UPDATE ticks due by `now` (the queue held `backlog` bytes since the
    /// last event, so every missed tick saw the same estimate).
    pub fn catch_up(&mut self, cfg: &PieConfig, now: Time, backlog: u64) {
        while self.next_update <= now {
            let q = self.estimate(cfg, backlog);
            let before = (self.prob, self.qdelay_old, self.burst);
            self.update(cfg, q);
            self.next_update += cfg.tupdate;
            // Idle and settled (p = 0, delays zero, allowance full): the remaining
            // ticks change nothing; skip to the last one.
            if (self.prob, self.qdelay_old, self.burst) == before && self.prob == 0.0 {
                let ticks = (now.saturating_sub(self.next_update)).ps() / cfg.tupdate.ps();
                self.next_update += Time(ticks * cfg.tupdate.ps());
            }
        }
    }

    /// §4.1 drop_early: whether to drop (or mark) an arrival, with `backlog` bytes
    /// queued before it.
    pub fn drop_early(&self, cfg: &PieConfig, backlog: u64, u: f64) -> bool {
        if self.burst > Time::ZERO {
            return false;
        }
        if self.qdelay_old < cfg.target.as_secs_f64() / 2.0 && self.prob < 0.2 {
            return false;
        }
        if backlog <= 2 * MEAN_PKTSIZE {
            return false;
        }
        u < self.prob
    }

    /// §4.3: a packet of `size` bytes left after `sojourn`; `backlog` bytes remain.
    pub fn on_dequeue(
        &mut self,
        cfg: &PieConfig,
        now: Time,
        size: u64,
        sojourn: Time,
        backlog: u64,
    ) {
        match cfg.estimator {
            PieEstimator::Timestamp => {
                self.qdelay = if backlog == 0 {
                    0.0
                } else {
                    sojourn.as_secs_f64()
                };
            }
            PieEstimator::Rate => {
                if !self.in_measurement && backlog + size >= cfg.dq_threshold {
                    self.in_measurement = true;
                    self.dq_count = 0;
                    self.dq_start = now;
                }
                if self.in_measurement {
                    self.dq_count += size;
                    if self.dq_count >= cfg.dq_threshold {
                        let dq_int = (now - self.dq_start).as_secs_f64();
                        // §4.3: avg_dq_time = dq_int·1/4 + avg_dq_time·3/4.
                        self.avg_dq_time = if self.avg_dq_time == 0.0 {
                            dq_int
                        } else {
                            0.25 * dq_int + 0.75 * self.avg_dq_time
                        };
                        self.in_measurement = false;
                    }
                }
            }
        }
    }

    /// §4.1 + §5.1: an arrival the controller picked: mark it if ECN allows (returns
    /// it), else the caller drops it.
    pub fn mark(&self, cfg: &PieConfig, pkt: &mut Packet) -> bool {
        cfg.ecn && self.prob <= cfg.mark_threshold && pkt.mark_ce()
    }
}

pub struct Pie {
    cfg: PieConfig,
    limit: Limit,
    q: VecDeque<Packet>,
    bytes: u64,
    pub vars: PieVars,
    marks: u64,
}

impl Pie {
    pub fn new(cfg: PieConfig, limit: Limit) -> Self {
        Pie {
            vars: PieVars::new(&cfg),
            cfg,
            limit,
            q: VecDeque::new(),
            bytes: 0,
            marks: 0,
        }
    }
}

impl Queue for Pie {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QueueCtx) {
        self.vars.catch_up(&self.cfg, ctx.now, self.bytes);
        if self.limit.overflows(self.q.len(), self.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
            return;
        }
        // Draw only when a drop is possible, so that the stream is not consumed
        // while PIE is idle.
        if self.vars.drop_early(&self.cfg, self.bytes, 0.0) {
            let u = unit(ctx.rng);
            if self.vars.drop_early(&self.cfg, self.bytes, u) {
                if self.vars.mark(&self.cfg, &mut pkt) {
                    self.marks += 1;
                } else {
                    ctx.drop(pkt, DropReason::Aqm);
                    return;
                }
            }
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }
    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet> {
        self.vars.catch_up(&self.cfg, ctx.now, self.bytes);
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        let sojourn = ctx.now.saturating_sub(p.enq_at);
        self.vars
            .on_dequeue(&self.cfg, ctx.now, p.size as u64, sojourn, self.bytes);
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

    /// RFC 8033 §4.2 on a scripted delay trajectory: 30 ms held for five updates from
    /// p = 0. Values worked by hand from the RFC's formula and table:
    /// 1: p_raw = 0.125·0.015 + 1.25·0.030 = 0.039375, p < 1e-6 → /2048: 1.92261e-5;
    /// 2: p_raw = 0.001875, p ∈ [1e-5, 1e-4) → /128: +1.46484e-5 = 3.38745e-5;
    /// 3: +1.46484e-5 = 4.85229e-5; 4: 6.31714e-5; 5: 7.78198e-5.
    /// Then 0 ms twice: p_raw = −0.001875 − 1.25·0.03 = −0.039375 → /128: p < 0 → 0;
    /// next p_raw = −0.001875 → 0, and both delays zero: decay (stays 0).
    #[test]
    fn control_law_on_a_scripted_trajectory() {
        let cfg = PieConfig::default();
        let mut v = PieVars::new(&cfg);
        let expect = [
            1.922607e-5,
            3.387451e-5,
            4.852295e-5,
            6.317139e-5,
            7.781982e-5,
        ];
        for e in expect {
            v.update(&cfg, 0.030);
            assert!((v.prob - e).abs() < 1e-10, "{} vs {e}", v.prob);
        }
        v.update(&cfg, 0.0);
        assert_eq!(v.prob, 0.0);
        // From p = 0.05 (table factor 1/2): 20 ms after 15 ms:
        // p_raw = 0.125·0.005 + 1.25·0.005 = 0.006875 → ·1/2 = 0.0034375.
        v.prob = 0.05;
        v.qdelay_old = 0.015;
        v.update(&cfg, 0.020);
        assert!((v.prob - 0.0534375).abs() < 1e-12, "{}", v.prob);
        // Cap drop adjustment: from p = 0.3, a jump of 100 ms adds only 2 %.
        v.prob = 0.3;
        v.update(&cfg, 0.120);
        assert!((v.prob - 0.32).abs() < 1e-12, "{}", v.prob);
        // Decay: p = 0.3 with the queue empty at both updates: ×0.98 after the
        // (negative) adjustment −0.125·0.015 = −0.001875.
        v.prob = 0.3;
        v.qdelay_old = 0.0;
        v.update(&cfg, 0.0);
        assert!(
            (v.prob - (0.3 - 0.001875) * 0.98).abs() < 1e-12,
            "{}",
            v.prob
        );
    }

    #[test]
    fn autotune_table() {
        let t = [
            (5e-7, 2048.0),
            (5e-6, 512.0),
            (5e-5, 128.0),
            (5e-4, 32.0),
            (5e-3, 8.0),
            (5e-2, 2.0),
            (0.5, 1.0),
        ];
        for (p, d) in t {
            assert_eq!(autotune_scale(p), 1.0 / d, "{p}");
        }
    }

    /// §4.4 burst allowance: no early drop for 150 ms, i.e. ten updates; §4.1: nor
    /// below half the target with p < 20 %, nor with two packets or fewer queued.
    #[test]
    fn drop_early_guards() {
        let cfg = PieConfig::default();
        let mut v = PieVars::new(&cfg);
        v.prob = 0.5;
        for _ in 0..9 {
            v.update(&cfg, 0.1);
            assert!(!v.drop_early(&cfg, 100_000, 0.0), "burst {}", v.burst);
        }
        v.update(&cfg, 0.1);
        assert_eq!(v.burst, Time::ZERO);
        assert!(v.drop_early(&cfg, 100_000, 0.0));
        assert!(!v.drop_early(&cfg, 3000, 0.0), "two packets or fewer");
        v.prob = 0.1;
        v.qdelay_old = 0.007;
        assert!(!v.drop_early(&cfg, 100_000, 0.0), "low delay, p < 20 %");
    }

    /// §4.3 departure-rate estimation at a steady 10 Mb/s (0.8 ms per 1000 B packet):
    /// a measurement starts at a departure and ends at the one that brings the count
    /// to DQ_THRESHOLD, 17 packets and 16 transmission times later, so avg_dq_time =
    /// 12.8 ms, and with 30000 B queued Little's law gives 30000·12.8 ms/16384.
    #[test]
    fn rate_estimator_gives_littles_law() {
        let cfg = PieConfig {
            estimator: PieEstimator::Rate,
            ..PieConfig::default()
        };
        let mut v = PieVars::new(&cfg);
        let tx = Time::from_secs_f64(1000.0 * 8.0 / 10e6);
        let mut now = Time::ZERO;
        for _ in 0..200 {
            now += tx;
            v.on_dequeue(&cfg, now, 1000, Time::ZERO, 30_000);
        }
        let d = v.estimate(&cfg, 30_000);
        let expect = 30_000.0 * 0.0128 / 16_384.0;
        assert!((d - expect).abs() < 1e-9, "{d} vs {expect}");
    }
}
