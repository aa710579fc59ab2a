//! Random Early Detection: S. Floyd and V. Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993 (§4 and Fig. 2, the
//! algorithm; §7, the spacing of marks), with the "gentle" extension (S. Floyd,
//! "Recommendation on using the gentle_ variant of RED", 2000) and Floyd's later
//! parameter advice ("RED: Discussions of Setting Parameters", 1997): w_q = 0.002,
//! max_p = 0.1, max_th = 3·min_th.
//!
//! On every arrival that reaches the queue:
//!
//! - the average: avg ← (1 − w_q)·avg + w_q·q, where q is the instantaneous queue
//!   (the packet in transmission is not in it). After an idle period the paper decays
//!   avg as if m packets of `mean_size` had arrived to an empty queue:
//!   avg ← (1 − w_q)^m·avg with m = idle time / transmission time of `mean_size`.
//! - the base probability p_b = max_p·(avg − min_th)/(max_th − min_th) for
//!   min_th ≤ avg < max_th; gentle: p_b = max_p + (1 − max_p)·(avg − max_th)/max_th
//!   for max_th ≤ avg < 2·max_th. In byte mode p_b ← p_b·size/mean_size (§4, "the
//!   probability that a packet is marked is proportional to its size").
//! - the actual probability p_a = p_b/(1 − count·p_b) (Fig. 2), count being the
//!   packets since the last mark: marks are then spaced uniformly, not geometrically
//!   (§7), so the fraction marked at a steady p_b is 1/E[X] ≈ 2·p_b.
//! - above the region (avg ≥ max_th, or ≥ 2·max_th when gentle) every packet is
//!   dropped, ECN or not (a "forced" drop, as in ns-2: marking cannot be trusted to
//!   stop an overload).
//!
//! With `ecn`, an early (unforced) decision on an ECN-capable packet (`ect`) sets CE
//! and keeps the packet (RFC 3168 §5). The physical buffer (`topology.buffer`) is
//! enforced by tail drop after RED has accepted the packet.

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::Packet;
use crate::random::unit;
use crate::units::{Rate, Time};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::collections::VecDeque;
use std::fmt;

/// A RED threshold: in packets (the average is then measured in packets) or in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Thresh {
    Pkts(f64),
    Bytes(f64),
}

impl Thresh {
    pub fn value(self) -> f64 {
        match self {
            Thresh::Pkts(v) | Thresh::Bytes(v) => v,
        }
    }
    pub fn in_bytes(self) -> bool {
        matches!(self, Thresh::Bytes(_))
    }
    pub fn scale(self, f: f64) -> Thresh {
        match self {
            Thresh::Pkts(v) => Thresh::Pkts(v * f),
            Thresh::Bytes(v) => Thresh::Bytes(v * f),
        }
    }
}

impl fmt::Display for Thresh {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Thresh::Pkts(v) => write!(f, "{v}pkt"),
            Thresh::Bytes(v) => write!(f, "{v}B"),
        }
    }
}

impl<'de> Deserialize<'de> for Thresh {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let err = |s: &str| format!("expected a threshold like \"5pkt\" or \"7500B\", got {s}");
        let v = toml::Value::deserialize(d)?;
        let s = match &v {
            toml::Value::String(s) => s.trim().to_string(),
            other => return Err(de::Error::custom(err(&other.to_string()))),
        };
        let t = if let Some(n) = s.strip_suffix("pkts").or_else(|| s.strip_suffix("pkt")) {
            Thresh::Pkts(
                n.trim()
                    .parse::<f64>()
                    .map_err(|_| de::Error::custom(err(&format!("\"{s}\""))))?,
            )
        } else {
            Thresh::Bytes(
                crate::units::parse_bytes(&s)
                    .map_err(|_| de::Error::custom(err(&format!("\"{s}\""))))?
                    as f64,
            )
        };
        if !(t.value() >= 0.0 && t.value().is_finite()) {
            return Err(de::Error::custom(format!(
                "a threshold must be >= 0, got \"{s}\""
            )));
        }
        Ok(t)
    }
}

/// Packet mode: every packet has the same p_b. Byte mode: p_b scales with the size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    #[default]
    Packet,
    Byte,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    pub min_th: Thresh,
    pub max_th: Thresh,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub mode: RedMode,
    pub ecn: bool,
    /// Typical packet size: the unit of the idle-time decay and of byte mode.
    pub mean_size: u32,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            // Floyd 1997: min_th = 5 packets, max_th = 3·min_th, w_q = 0.002,
            // max_p = 0.1; gentle on (Floyd 2000, the ns-2 default since then).
            min_th: Thresh::Pkts(5.0),
            max_th: Thresh::Pkts(15.0),
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            mode: RedMode::Packet,
            ecn: false,
            // One MTU: the size of the simulator's default TCP segment on the wire.
            mean_size: 1500,
        }
    }
}

pub struct Red {
    cfg: RedConfig,
    min_th: f64,
    max_th: f64,
    limit: Limit,
    q: VecDeque<Packet>,
    bytes: u64,
    avg: f64,
    /// Packets since the last mark/drop; −1 while avg is below min_th (Fig. 2).
    count: i64,
    /// When the transmitter went idle (the last packet left the queue and finished
    /// its transmission); None while the queue is busy.
    idle_since: Option<Time>,
    /// The link's rate, for the end of the last transmission and for the idle decay.
    rate: Rate,
    /// Transmission time of a `mean_size` packet, seconds (the paper's s, §11).
    s: f64,
    marks: u64,
    early_drops: u64,
    forced_drops: u64,
}

impl Red {
    pub fn new(cfg: RedConfig, limit: Limit, rate: Rate) -> Self {
        let cap = match limit {
            // At most 1024 packets reserved up front, grown on demand: reserving up to
            // 65 536 (5.8 MB) per queue took a web workload's thousand access links to
            // 6 GB of address space (fuzz/regressions/web-access-queues.toml).
            Limit::Packets(n) => n.min(1 << 10) as usize,
            Limit::Bytes(b) => (b / 1500).min(1 << 10) as usize,
        };
        let s = cfg.mean_size as f64 * 8.0 / rate.as_f64().max(1.0);
        Red {
            min_th: cfg.min_th.value(),
            max_th: cfg.max_th.value(),
            cfg,
            limit,
            q: VecDeque::with_capacity(cap + 1),
            bytes: 0,
            avg: 0.0,
            count: -1,
            idle_since: None,
            rate,
            s,
            marks: 0,
            early_drops: 0,
            forced_drops: 0,
        }
    }

    /// The current average queue (packets or bytes, as the thresholds).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// (early, forced) drops so far (buffer overflows not included).
    pub fn drops(&self) -> (u64, u64) {
        (self.early_drops, self.forced_drops)
    }

    /// p_b at a given average for a packet of `size` bytes, before the count-based
    /// spacing; 1 in the forced-drop region.
    pub fn p_b(&self, avg: f64, size: u32) -> f64 {
        let (lo, hi, mp) = (self.min_th, self.max_th, self.cfg.max_p);
        let p = if avg < lo {
            0.0
        } else if avg < hi {
            mp * (avg - lo) / (hi - lo)
        } else if self.cfg.gentle && avg < 2.0 * hi {
            mp + (1.0 - mp) * (avg - hi) / hi
        } else {
            return 1.0;
        };
        match self.cfg.mode {
            RedMode::Packet => p,
            RedMode::Byte => (p * size as f64 / self.cfg.mean_size as f64).min(1.0),
        }
    }

    /// Is `avg` in the region where every packet is dropped?
    fn forced(&self, avg: f64) -> bool {
        avg >= if self.cfg.gentle {
            2.0 * self.max_th
        } else {
            self.max_th
        }
    }

    fn update_avg(&mut self, now: Time) {
        let w = self.cfg.w_q;
        let q = if self.cfg.min_th.in_bytes() {
            self.bytes as f64
        } else {
            self.q.len() as f64
        };
        if self.q.is_empty() {
            if let Some(t) = self.idle_since.take() {
                // Fig. 2: m ← f(time − q_time), avg ← (1 − w_q)^m·avg: the idle link
                // could have sent m small packets, each of which would have pulled
                // the average towards 0.
                let m = now.saturating_sub(t).as_secs_f64() / self.s;
                self.avg *= (1.0 - w).powf(m);
            }
        }
        // This arrival's own sample (q = 0 after an idle period, as ns-2's m + 1).
        self.avg = (1.0 - w) * self.avg + w * q;
    }

    /// The RED decision for an arriving packet: Some(forced) to mark/drop it.
    fn decide(&mut self, size: u32, rng: &mut crate::random::Rng) -> Option<bool> {
        let avg = self.avg;
        if avg < self.min_th {
            self.count = -1;
            return None;
        }
        if self.forced(avg) {
            self.count = 0;
            return Some(true);
        }
        self.count += 1;
        let pb = self.p_b(avg, size);
        // §7 / Fig. 2: p_a = p_b/(1 − count·p_b), certain once count·p_b ≥ 1.
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= pb { 1.0 } else { pb / denom };
        if unit(rng) < pa {
            self.count = 0;
            Some(false)
        } else {
            None
        }
    }
}

impl Queue for Red {
    fn enqueue(&mut self, mut pkt: Packet, ctx: &mut QueueCtx) {
        self.update_avg(ctx.now);
        match self.decide(pkt.size, ctx.rng) {
            Some(false) if self.cfg.ecn && pkt.mark_ce() => {
                self.marks += 1;
            }
            Some(forced) => {
                if forced {
                    self.forced_drops += 1;
                } else {
                    self.early_drops += 1;
                }
                ctx.drop(pkt, DropReason::Aqm);
                return;
            }
            None => {}
        }
        if self.limit.overflows(self.q.len(), self.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
            return;
        }
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        if self.q.is_empty() {
            // The link goes idle once this packet is on the wire.
            self.idle_since = Some(ctx.now + self.rate.tx_time(p.size as u64));
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
    use crate::packet::PktKind;
    use crate::queue::Drops;
    use crate::random::{exponential, stream};

    fn pkt(size: u32) -> Packet {
        Packet::new(PktKind::Udp, 0, 0, 0, size, size, Time::ZERO)
    }

    /// The fraction of packets marked when p_b stays fixed, from the exact law of
    /// the inter-mark gap X under p_a(n) = p_b/(1 − n·p_b) (count = n for the n-th
    /// packet after a mark): 1/E[X]. For p_b = 1/N this is 2/N: gaps are uniform on
    /// {1, …, N − 1} (§7).
    fn mark_fraction(pb: f64) -> f64 {
        if pb <= 0.0 {
            return 0.0;
        }
        let (mut surv, mut ex) = (1.0, 0.0);
        for n in 1.. {
            let d = 1.0 - n as f64 * pb;
            let pa = if d <= pb { 1.0 } else { pb / d };
            ex += n as f64 * surv * pa;
            surv *= 1.0 - pa;
            if surv <= 0.0 {
                break;
            }
        }
        1.0 / ex
    }

    #[test]
    fn probability_law_and_gentle() {
        let r = Red::new(RedConfig::default(), Limit::Packets(100), Rate(10_000_000));
        assert_eq!(r.p_b(4.9, 1500), 0.0);
        assert!((r.p_b(10.0, 1500) - 0.05).abs() < 1e-12);
        // Gentle: max_p at max_th, rising to 1 at 2·max_th.
        assert!((r.p_b(15.0, 1500) - 0.1).abs() < 1e-12);
        assert!((r.p_b(22.5, 1500) - 0.55).abs() < 1e-12);
        assert_eq!(r.p_b(30.0, 1500), 1.0);
        let cfg = RedConfig {
            gentle: false,
            mode: RedMode::Byte,
            ..RedConfig::default()
        };
        let r = Red::new(cfg, Limit::Packets(100), Rate(10_000_000));
        assert!((r.p_b(10.0, 750) - 0.025).abs() < 1e-12);
        assert_eq!(r.p_b(15.0, 1500), 1.0);
        assert!((mark_fraction(0.1) - 0.2).abs() < 1e-9);
    }

    /// §7: with a steady average the gap between marks is uniform on {1, …, 1/p_b − 1}
    /// (method 2), not geometric: no gap exceeds 1/p_b − 1 and the mean is 1/(2p_b).
    #[test]
    fn marks_are_uniformly_spaced() {
        let cfg = RedConfig {
            w_q: 1e-12, // freeze the average where we put it
            ..RedConfig::default()
        };
        let mut r = Red::new(cfg, Limit::Packets(1_000_000), Rate(10_000_000));
        r.avg = 10.0; // p_b = 0.05: gaps uniform on 1..=19
        let mut rng = stream(7, "red");
        let (mut gaps, mut last, mut hist) = (Vec::new(), None, [0u32; 21]);
        for i in 1..=200_000i64 {
            if r.decide(1500, &mut rng).is_some() {
                // The first gap starts from count = −1 (entering the region), not
                // from a mark: leave it out.
                if let Some(l) = last {
                    gaps.push(i - l);
                    hist[((i - l) as usize).min(20)] += 1;
                }
                last = Some(i);
            }
        }
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<i64>() as f64 / n;
        assert!(gaps.iter().all(|&g| (1..=19).contains(&g)), "{hist:?}");
        // Mean 10 with sd of a gap 5.5: the mean of ~20 000 gaps has sd 0.04.
        assert!((mean - 10.0).abs() < 0.2, "mean gap {mean}");
        // Each of the 19 values has probability 1/19; 5 sd of a bin count ≈ 160.
        let want = n / 19.0;
        for (g, &h) in hist.iter().enumerate().take(20).skip(1) {
            assert!(
                (h as f64 - want).abs() < 5.0 * want.sqrt(),
                "gap {g}: {h} vs {want}"
            );
        }
    }

    /// The EWMA and its idle-time decay (Fig. 2).
    #[test]
    fn average_and_idle_decay() {
        let rate = Rate(12_000_000); // 1500 B in 1 ms
        let mut r = Red::new(RedConfig::default(), Limit::Packets(1000), rate);
        let mut rng = stream(1, "red");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        for _ in 0..10 {
            r.enqueue(pkt(1500), &mut ctx);
        }
        // avg_k = (1 − w)·avg_{k−1} + w·(k − 1), k = 1..10.
        let mut want = 0.0;
        for k in 0..10 {
            want = (1.0 - 0.002) * want + 0.002 * k as f64;
        }
        assert!((r.avg() - want).abs() < 1e-12);
        r.avg = 8.0;
        while r.dequeue(&mut ctx).is_some() {}
        // The last packet leaves at t = 0 and is on the wire until 1 ms; an arrival at
        // 101 ms sees 100 ms of idle link = 100 packet times.
        ctx.now = Time::from_millis(101);
        r.enqueue(pkt(1500), &mut ctx);
        let want = 8.0 * 0.998f64.powf(100.0) * 0.998;
        assert!((r.avg() - want).abs() < 1e-9, "{} vs {want}", r.avg());
    }

    /// ECN: early decisions mark ECT packets; forced ones drop them anyway.
    #[test]
    fn ecn_marks_early_drops_forced() {
        let cfg = RedConfig {
            ecn: true,
            ..RedConfig::default()
        };
        let mut r = Red::new(cfg, Limit::Packets(1_000_000), Rate(10_000_000));
        let mut rng = stream(3, "red");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::ZERO,
            rng: &mut rng,
            drops: &mut drops,
        };
        let mut p = pkt(1500);
        p.ecn = crate::packet::Ecn::Ect0;
        r.avg = 20.0; // gentle region: p_b = 0.4
        r.cfg.w_q = 1e-12;
        for _ in 0..1000 {
            r.enqueue(p, &mut ctx);
        }
        assert!(ctx.drops.is_empty());
        assert!(r.marks() > 300, "marks {}", r.marks());
        assert_eq!(r.q.iter().filter(|p| p.ce()).count() as u64, r.marks());
        r.avg = 31.0; // beyond 2·max_th: forced
        r.enqueue(p, &mut ctx);
        assert_eq!(ctx.drops.len(), 1);
        // A non-ECT packet in the early region is dropped, not marked.
        r.avg = 20.0;
        let before = r.marks();
        for _ in 0..100 {
            r.enqueue(pkt(1500), &mut ctx);
        }
        assert_eq!(r.marks(), before);
        assert!(ctx.drops.len() > 30);
    }

    /// Drive RED with Poisson arrivals and a deterministic server at several fixed
    /// overloads (load 1.5 among them, plus others so that the average sweeps the
    /// whole probabilistic region, min_th to 2·max_th), bin every decision by the
    /// average it was taken at, and compare the measured mark fraction per bin with
    /// the law: E[fraction] = mark_fraction(p_b(avg)).
    #[test]
    fn measured_drop_fraction_follows_p_b() {
        let rate = Rate(10_000_000);
        let size = 1000u32;
        let service = rate.tx_time(size as u64);
        let nbins = 30usize; // 1-packet bins of avg over [0, 30)
        let (mut n, mut dropped, mut expect) =
            (vec![0f64; nbins], vec![0f64; nbins], vec![0f64; nbins]);
        for (i, load) in [1.02, 1.05, 1.1, 1.3, 1.5, 2.0, 3.0, 5.0]
            .into_iter()
            .enumerate()
        {
            let mut r = Red::new(RedConfig::default(), Limit::Packets(100_000), rate);
            let mut rng = stream(11 + i as u64, "red/test");
            let mut qrng = stream(11 + i as u64, "red/q");
            let mut drops = Drops::default();
            let mean_gap = service.as_secs_f64() / load;
            let mut now = Time::ZERO;
            let mut busy_until = Time::ZERO;
            for _ in 0..400_000 {
                now += Time::from_secs_f64(exponential(&mut rng, mean_gap));
                // Serve departures up to now, as the engine's TxDone events would.
                while busy_until <= now && !r.q.is_empty() {
                    let mut ctx = QueueCtx {
                        now: busy_until,
                        rng: &mut qrng,
                        drops: &mut drops,
                    };
                    r.dequeue(&mut ctx).unwrap();
                    busy_until += service;
                }
                if busy_until <= now && r.q.is_empty() {
                    // The engine bypasses the queue when the link is idle.
                    busy_until = now + service;
                    continue;
                }
                let mut ctx = QueueCtx {
                    now,
                    rng: &mut qrng,
                    drops: &mut drops,
                };
                let before = ctx.drops.len();
                r.enqueue(pkt(size), &mut ctx);
                let avg = r.avg();
                let b = (avg as usize).min(nbins - 1);
                n[b] += 1.0;
                expect[b] += mark_fraction(r.p_b(avg, size));
                if ctx.drops.len() > before {
                    dropped[b] += 1.0;
                }
            }
        }
        let mut checked = 0;
        for b in 0..nbins {
            if n[b] < 2000.0 {
                continue;
            }
            checked += 1;
            let (obs, exp) = (dropped[b] / n[b], expect[b] / n[b]);
            // Marks are more regular than Bernoulli trials, so binomial noise bounds
            // the sampling error: 4 sd of it, plus 0.01 for the law's curvature inside
            // a 1-packet bin and the count carried across bins (the measured
            // deviations are below 0.005).
            let tol = 4.0 * (exp * (1.0 - exp) / n[b]).sqrt() + 0.01;
            eprintln!("avg [{b}, {}): n {} obs {obs:.4} exp {exp:.4}", b + 1, n[b]);
            assert!(
                (obs - exp).abs() <= tol,
                "bin {b}: measured {obs:.4} vs law {exp:.4} (n {})",
                n[b]
            );
        }
        // The sweep must cover the linear and the gentle regions.
        assert!(checked >= 15, "only {checked} bins populated");
        assert!(n[7] >= 2000.0 && n[20] >= 2000.0);
    }
}
