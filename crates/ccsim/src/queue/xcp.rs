//! XCP router: D. Katabi, M. Handley, C. Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002 (§3.5 and the router pseudo-code of
//! its appendix), with the modifications of study 000 (Alparslan, Arakawa, Murata):
//! a capacity parameter below the link rate and ACK bytes counted in the input traffic.
//!
//! A drop-tail FIFO (the scenario's buffer limit) with two controllers that run once
//! per control interval d, d being the average RTT of the XCP traffic crossing the link:
//!
//! - efficiency (§3.5.1): φ = α·d·S − β·Q bytes, S = C − y the spare bandwidth
//!   against the capacity parameter C = capacity·rate, y the input traffic rate over
//!   the interval just ended, Q the persistent queue in bytes;
//! - fairness (§3.5.2): shuffled traffic h = max(0, γ·y·d − |φ|) bytes, and
//!   for the next interval
//!   ξ_p = (h + max(φ, 0)) / (d · Σ rtt_i·s_i/cwnd_i),
//!   ξ_n = (h + max(−φ, 0)) / (d · Σ s_i),
//!   the sums running over the XCP data packets of the interval just ended.
//!
//! Each XCP data packet leaving the queue gets p_i − n_i with p_i = ξ_p·rtt_i²·s_i/cwnd_i
//! and n_i = ξ_n·rtt_i·s_i, and H_feedback ← min(H_feedback, p_i − n_i): a router only
//! lowers the feedback, so the bottleneck's wins. Summed over a control interval the
//! positive part raises every flow's rate by the same amount and the negative part lowers
//! each in proportion to its rate, together by (h + φ)/d.
//!
//! Choices where the paper leaves room, and why:
//! - *Average RTT.* d = Σ rtt_i²·s_i/cwnd_i / Σ rtt_i·s_i/cwnd_i (the appendix and ns-2):
//!   each packet weighted by s_i·rtt_i/cwnd_i, i.e. each *flow* counts once per RTT,
//!   so d is the mean RTT of the flows rather than a byte-weighted mean that short-RTT
//!   flows would dominate. Packets with no RTT estimate yet (H_rtt = 0) are left out of
//!   the sums, and their feedback is capped at 0 (ns-2 sets it to 0).
//! - *Persistent queue.* The text defines Q as the minimum queue seen by an arriving
//!   packet over the last propagation delay, estimated as d − q/C; the appendix samples
//!   that minimum every T_q = (d − q/C)/2, which we follow (T_q floored at 1 ms; ns-2
//!   uses 2 ms; the floor acts only when the queue holds nearly d of delay).
//! - *Intervals of any length.* The formulas assume the interval just measured lasted d.
//!   It lasts d unless the link idled through its end; we use the measured length T:
//!   y = bytes/T and the sums are rescaled to the next interval's length d, so
//!   ξ_p = (h + φ⁺)·T / (d²·Σ rtt_i·s_i/cwnd_i) (likewise ξ_n), which is the paper's
//!   formula when T = d.
//! - *No timer.* The queue interface has no timers: intervals (and T_q) close lazily,
//!   at the first packet arrival or departure at or after their end. Nothing happens
//!   between packets, so this is exact at packet granularity: the interval's counts are
//!   complete, its length is its nominal end minus its start, and an interval in which
//!   no packet arrived closes empty (no feedback until the next one closes).
//! - *Input traffic y.* Data packets (XCP or not) count; ACKs count only with
//!   `count_ack_bytes` (off in the paper's ns-2 code; study 000 turns it on). The
//!   negative-feedback normaliser Σ s_i stays over XCP data packets, the ones that can
//!   act on feedback. A dropped arrival still counts: y is the offered load.
//! - *Unqueued packets.* A packet that finds the link idle is transmitted at once by the
//!   engine; `pass_through` gives it the same arrival and departure processing.
//! - *Per-interval budget.* The per-packet formulas hand out h + φ⁺ (and h + φ⁻) over
//!   an interval only if it carries the traffic the last one did. In a start-up the
//!   traffic grows several-fold per interval (a newcomer is offered the whole spare
//!   bandwidth at once), and uncapped they hand out several times φ: windows overshoot
//!   and the buffer overflows. As ns-2's `xcpq.cc` (the code study 000 ran), each
//!   interval hands out at most h + max(φ, 0) of positive and h + max(−φ, 0) of
//!   negative feedback; a packet whose header already holds less than this router's
//!   p_i − n_i is charged only what it takes (`residue_pos_fbk_`, `residue_neg_fbk_`).

use super::discipline::{DropReason, Limit, Queue, QueueCtx};
use crate::packet::{Packet, PktKind};
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// XCP router parameters (docs/queues.md lists defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct XcpConfig {
    /// α: gain on the spare bandwidth (paper: 0.4).
    pub alpha: f64,
    /// β: gain on the persistent queue (paper: 0.226 = α²·√2).
    pub beta: f64,
    /// γ: fraction of the input traffic shuffled per interval (paper: 0.1).
    pub gamma: f64,
    /// The capacity the router aims at, as a fraction of the link rate (study 000: 0.9).
    pub capacity: f64,
    /// Count ACK bytes in the input traffic y (study 000's modification).
    pub count_ack_bytes: bool,
    /// Cap the feedback handed out per control interval at h + φ⁺ (positive) and
    /// h + φ⁻ (negative), as ns-2's `xcpq.cc` does (default). Off, every departing
    /// packet gets the per-packet formulas' p_i − n_i uncapped (the paper's pseudo-code
    /// read literally): an opt-in for experiments on what the cap does.
    pub feedback_budget: bool,
}

impl XcpConfig {
    /// The paper's parameters (§3.5, Theorem 1 with α = 0.4), at the full link rate.
    pub const ORIGINAL: XcpConfig = XcpConfig {
        alpha: 0.4,
        beta: 0.226,
        gamma: 0.1,
        capacity: 1.0,
        count_ack_bytes: false,
        feedback_budget: true,
    };
    /// Study 000's conservative set (its §4.1): smaller gains and 90 % of the link.
    pub const CONSERVATIVE: XcpConfig = XcpConfig {
        alpha: 0.2,
        beta: 0.056,
        gamma: 0.05,
        capacity: 0.9,
        count_ack_bytes: false,
        feedback_budget: true,
    };

    /// The named presets a scenario may give (`preset = "conservative"`).
    pub fn preset(name: &str) -> Option<XcpConfig> {
        match name {
            "original" => Some(Self::ORIGINAL),
            "conservative" => Some(Self::CONSERVATIVE),
            _ => None,
        }
    }
    pub const PRESETS: &'static str = "original, conservative";
}

impl Default for XcpConfig {
    fn default() -> Self {
        Self::ORIGINAL
    }
}

/// What the router computed at the end of its last control interval (for tests and
/// inspection).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpInterval {
    /// Measured length T of the interval, seconds.
    pub length: f64,
    /// Input traffic y, bytes per second.
    pub y: f64,
    /// The average RTT d (the next interval's length), seconds.
    pub d: f64,
    /// Persistent queue Q used, bytes.
    pub q: f64,
    /// Aggregate feedback φ and shuffled traffic h, bytes.
    pub phi: f64,
    pub h: f64,
    /// ξ_p (1/s², scaled so p_i is bytes) and ξ_n (1/s).
    pub xi_p: f64,
    pub xi_n: f64,
}

/// The first control interval, before any RTT is known (the measured d replaces it at
/// the first interval that carries XCP traffic).
const INITIAL_D: f64 = 0.01;
/// Floor of the control interval and of T_q, seconds.
const MIN_INTERVAL: f64 = 0.001;

pub struct Xcp {
    cfg: XcpConfig,
    limit: Limit,
    q: VecDeque<Packet>,
    bytes: u64,
    /// C: the capacity parameter, bytes per second.
    cap: f64,
    /// The current control interval [start, end) and d, seconds.
    ci_start: Time,
    ci_end: Time,
    d: f64,
    /// Counts of the current interval: input bytes, Σ s_i·rtt_i/cwnd_i,
    /// Σ s_i·rtt_i²/cwnd_i, Σ s_i (XCP data packets).
    input: f64,
    sum_rtt_s_cwnd: f64,
    sum_rtt2_s_cwnd: f64,
    sum_s: f64,
    /// Per-packet factors in force (set at the last interval's end).
    xi_p: f64,
    xi_n: f64,
    /// Positive and negative feedback (bytes) this interval may still hand out:
    /// h + max(φ, 0) and h + max(−φ, 0) at its start.
    residue_pos: f64,
    residue_neg: f64,
    /// Persistent-queue estimation: the next sampling instant, the minimum queue seen by
    /// arrivals since the last one, and the current estimate Q (bytes).
    q_next: Time,
    running_min: u64,
    persistent_q: f64,
    last: XcpInterval,
}

impl Xcp {
    pub fn new(cfg: XcpConfig, limit: Limit, rate: Rate) -> Self {
        let cap = match limit {
            // At most 1024 packets reserved up front, grown on demand: reserving up to
            // 65 536 (5.8 MB) per queue took a web workload's thousand access links to
            // 6 GB of address space (fuzz/regressions/web-access-queues.toml).
            Limit::Packets(n) => n.min(1 << 10) as usize,
            Limit::Bytes(b) => (b / 1500).min(1 << 10) as usize,
        };
        let first = Time::from_secs_f64(INITIAL_D);
        Xcp {
            cap: cfg.capacity * rate.as_f64() / 8.0,
            cfg,
            limit,
            q: VecDeque::with_capacity(cap + 1),
            bytes: 0,
            ci_start: Time::ZERO,
            ci_end: first,
            d: INITIAL_D,
            input: 0.0,
            sum_rtt_s_cwnd: 0.0,
            sum_rtt2_s_cwnd: 0.0,
            sum_s: 0.0,
            xi_p: 0.0,
            xi_n: 0.0,
            residue_pos: 0.0,
            residue_neg: 0.0,
            q_next: first,
            running_min: 0,
            persistent_q: 0.0,
            last: XcpInterval::default(),
        }
    }

    /// The last closed control interval.
    pub fn last_interval(&self) -> XcpInterval {
        self.last
    }

    /// The persistent queue estimate Q, bytes.
    pub fn persistent_queue(&self) -> f64 {
        self.persistent_q
    }

    /// Close every control interval and queue-sampling period that ended by `now`.
    /// The queue has not changed since the last packet event, so its length now is its
    /// length at those instants.
    fn advance(&mut self, now: Time) {
        while now >= self.q_next {
            // Appendix: Q = the minimum since the last sample; restart the minimum from
            // the instantaneous queue; T_q = (d − q/C)/2.
            self.persistent_q = self.running_min as f64;
            self.running_min = self.bytes;
            let tq = ((self.d - self.bytes as f64 / self.cap) / 2.0).max(MIN_INTERVAL);
            let next = self.q_next + Time::from_secs_f64(tq);
            // An idle stretch: the queue stayed as it is; sample once and move on.
            self.q_next = if now >= next {
                self.persistent_q = self.bytes as f64;
                now + Time::from_secs_f64(tq)
            } else {
                next
            };
        }
        if now >= self.ci_end {
            self.close_interval();
            if now >= self.ci_end {
                // No packet arrived in the interval that followed: it closes empty
                // (y = 0, no XCP packets: no feedback), and a new one starts now.
                self.close_interval();
                self.ci_start = now;
                self.ci_end = now + Time::from_secs_f64(self.d);
            }
        }
    }

    /// End the current interval at its nominal end and compute the next one's factors.
    fn close_interval(&mut self) {
        let t = (self.ci_end - self.ci_start).as_secs_f64();
        let y = self.input / t;
        if self.sum_rtt_s_cwnd > 0.0 {
            self.d = (self.sum_rtt2_s_cwnd / self.sum_rtt_s_cwnd).max(MIN_INTERVAL);
        }
        let d = self.d;
        let q = self.persistent_q;
        // §3.5.1: φ = α·d·S − β·Q with S = C − y.
        let phi = self.cfg.alpha * d * (self.cap - y) - self.cfg.beta * q;
        // §3.5.2: h = max(0, γ·y − |φ|), y as the bytes of one interval of length d.
        let h = (self.cfg.gamma * y * d - phi.abs()).max(0.0);
        // §3.5.2, ξ_p and ξ_n, sums rescaled from the measured T to the next interval d.
        self.xi_p = if self.sum_rtt_s_cwnd > 0.0 {
            (h + phi.max(0.0)) * t / (d * d * self.sum_rtt_s_cwnd)
        } else {
            0.0
        };
        self.xi_n = if self.sum_s > 0.0 {
            (h + (-phi).max(0.0)) * t / (d * d * self.sum_s)
        } else {
            0.0
        };
        self.residue_pos = h + phi.max(0.0);
        self.residue_neg = h + (-phi).max(0.0);
        self.last = XcpInterval {
            length: t,
            y,
            d,
            q,
            phi,
            h,
            xi_p: self.xi_p,
            xi_n: self.xi_n,
        };
        self.input = 0.0;
        self.sum_rtt_s_cwnd = 0.0;
        self.sum_rtt2_s_cwnd = 0.0;
        self.sum_s = 0.0;
        self.ci_start = self.ci_end;
        self.ci_end = self.ci_start + Time::from_secs_f64(d);
    }

    /// Arrival processing: input traffic, the sums, the persistent-queue minimum.
    fn on_arrival(&mut self, pkt: &Packet, now: Time) {
        self.advance(now);
        self.running_min = self.running_min.min(self.bytes);
        let s = pkt.size as f64;
        match pkt.kind {
            PktKind::Ack if !self.cfg.count_ack_bytes => return,
            PktKind::Ack | PktKind::Udp => {
                self.input += s;
                return;
            }
            PktKind::Data => self.input += s,
        }
        if let Some(h) = pkt.xcp() {
            let (rtt, cwnd) = (h.rtt as f64, h.cwnd as f64);
            if rtt > 0.0 && cwnd > 0.0 {
                self.sum_rtt_s_cwnd += rtt * s / cwnd;
                self.sum_rtt2_s_cwnd += rtt * rtt * s / cwnd;
                self.sum_s += s;
            }
        }
    }

    /// Departure processing: lower H_feedback to this router's p_i − n_i.
    fn on_departure(&mut self, pkt: &mut Packet, now: Time) {
        self.advance(now);
        if pkt.kind != PktKind::Data {
            return;
        }
        let s = pkt.size as f64;
        let Some(h) = pkt.xcp_mut() else {
            return;
        };
        let (rtt, cwnd) = (h.rtt as f64, h.cwnd as f64);
        if rtt <= 0.0 || cwnd <= 0.0 {
            h.feedback = h.feedback.min(0.0);
            return;
        }
        // §3.5.2: p_i = ξ_p·rtt_i²·s_i/cwnd_i and n_i = ξ_n·rtt_i·s_i, within what is
        // left of this interval's h + φ⁺ and h + φ⁻ (ns-2's residues).
        let (cap_pos, cap_neg) = if self.cfg.feedback_budget {
            (self.residue_pos, self.residue_neg)
        } else {
            (f64::INFINITY, f64::INFINITY)
        };
        let mut pos = (self.xi_p * rtt * rtt * s / cwnd).min(cap_pos);
        let mut neg = (self.xi_n * rtt * s).min(cap_neg);
        let fb = pos - neg;
        let found = h.feedback as f64;
        if found >= fb {
            h.feedback = fb as f32;
        } else {
            // An upstream router asked for less: this packet takes only `found` of our
            // budget, charged as extra decrease (ns-2's accounting).
            neg = (neg + (fb - found)).min(cap_neg);
            pos = found + neg;
        }
        self.residue_pos = (self.residue_pos - pos).max(0.0);
        self.residue_neg = (self.residue_neg - neg).max(0.0);
    }
}

impl Queue for Xcp {
    fn sees_every_packet(&self) -> bool {
        true
    }

    fn enqueue(&mut self, pkt: Packet, ctx: &mut QueueCtx) {
        self.on_arrival(&pkt, ctx.now);
        if self.limit.overflows(self.q.len(), self.bytes, pkt.size) {
            ctx.drop(pkt, DropReason::Overflow);
        } else {
            self.bytes += pkt.size as u64;
            self.q.push_back(pkt);
        }
    }

    fn dequeue(&mut self, ctx: &mut QueueCtx) -> Option<Packet> {
        let mut p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        self.on_departure(&mut p, ctx.now);
        Some(p)
    }

    fn pass_through(&mut self, pkt: &mut Packet, ctx: &mut QueueCtx) {
        self.on_arrival(pkt, ctx.now);
        self.on_departure(pkt, ctx.now);
    }

    fn len_pkts(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::XcpHeader;
    use crate::queue::Drops;
    use crate::random::stream;

    /// An XCP data packet of `size` bytes from a flow with window `cwnd` bytes and
    /// RTT `rtt` seconds, asking for an unlimited increase.
    fn data(size: u32, cwnd: f32, rtt: f32) -> Packet {
        let mut p = Packet::new(PktKind::Data, 0, 0, 0, size, size - 40, Time::ZERO);
        p.set_xcp(XcpHeader {
            cwnd,
            rtt,
            feedback: f32::INFINITY,
        });
        p
    }

    fn ack() -> Packet {
        Packet::new(PktKind::Ack, 0, 0, 0, 40, 0, Time::ZERO)
    }

    /// Offer `n` packets evenly over [t0, t0 + span) through an otherwise idle link
    /// (each passes straight through); returns the last packet's feedback.
    fn offer(
        x: &mut Xcp,
        mk: &dyn Fn(usize) -> Packet,
        n: usize,
        t0: Time,
        span: Time,
    ) -> Option<f32> {
        let mut rng = stream(1, "q");
        let mut drops = Drops::default();
        let mut fb = None;
        for i in 0..n {
            let mut ctx = QueueCtx {
                now: t0 + Time(span.ps() / n as u64 * i as u64),
                rng: &mut rng,
                drops: &mut drops,
            };
            let mut p = mk(i);
            x.pass_through(&mut p, &mut ctx);
            fb = p.xcp().map(|h| h.feedback);
        }
        fb
    }

    const RATE: Rate = Rate(10_000_000);

    /// The paper's stability condition (Theorem 1): β = α²·√2. The original set meets
    /// it to its three digits; study 000 rounded the conservative β = 0.0566 to 0.056.
    #[test]
    fn presets_respect_beta_equals_alpha_squared_root_two() {
        for (c, tol) in [
            (XcpConfig::ORIGINAL, 0.001),
            (XcpConfig::CONSERVATIVE, 0.001),
        ] {
            let want = c.alpha * c.alpha * 2f64.sqrt();
            assert!(
                (c.beta - want).abs() <= tol,
                "beta {} vs alpha^2*sqrt2 = {want}",
                c.beta
            );
            // And inside the stability region 0 < α < π/(4·√2) = 0.555.
            assert!(c.alpha > 0.0 && c.alpha < std::f64::consts::PI / (4.0 * 2f64.sqrt()));
        }
        assert_eq!(XcpConfig::preset("conservative").unwrap().capacity, 0.9);
        assert_eq!(XcpConfig::preset("original").unwrap().capacity, 1.0);
        assert!(XcpConfig::preset("fast").is_none());
    }

    /// One interval of a known offered load, checked against the §3.5 formulas by
    /// hand: 10 Mb/s link (C = 1.25e6 B/s), one flow, 100 ms RTT, cwnd 50 000 B,
    /// 1000 B packets at 500 kB/s for the first 10 ms interval (5 packets).
    #[test]
    fn control_law_matches_the_paper_by_hand() {
        let mut x = Xcp::new(XcpConfig::ORIGINAL, Limit::Packets(100), RATE);
        offer(
            &mut x,
            &|_| data(1000, 50_000.0, 0.1),
            5,
            Time::ZERO,
            Time::from_millis(10),
        );
        // The next packet (at 10 ms) closes the first interval.
        let fb = offer(
            &mut x,
            &|_| data(1000, 50_000.0, 0.1),
            1,
            Time::from_millis(10),
            Time::from_millis(1),
        )
        .unwrap() as f64;
        let iv = x.last_interval();
        let (t, y, d) = (0.01, 5000.0 / 0.01, 0.1);
        assert!((iv.length - t).abs() < 1e-12);
        assert!((iv.y - y).abs() < 1e-6);
        assert!((iv.d - d).abs() < 1e-7, "d = {}", iv.d);
        let phi = 0.4 * d * (1.25e6 - y); // Q = 0
        assert!((iv.phi - phi).abs() < 1e-6 * phi, "phi {} vs {phi}", iv.phi);
        let h = (0.1 * y * d - phi).max(0.0);
        assert_eq!(iv.h, h); // φ = 30 000 B dwarfs γ·y·d = 5 000 B: nothing shuffled
                             // Σ rtt·s/cwnd over the 5 packets = 5·0.1·1000/50 000 = 0.01.
        let xi_p = (h + phi) * t / (d * d * 0.01);
        // 1e-6: the header carries rtt as f32 (0.1 to 1.5e-8 relative), squared here.
        assert!(
            (iv.xi_p - xi_p).abs() < 1e-6 * xi_p,
            "{} vs {xi_p}",
            iv.xi_p
        );
        assert_eq!(iv.xi_n, 0.0);
        // p_i = ξ_p·rtt²·s/cwnd: over one RTT the flow sends cwnd/s = 50 packets,
        // which then raise its window by φ·rtt/d = φ (one flow, rtt = d).
        let p_i = xi_p * d * d * 1000.0 / 50_000.0;
        assert!((fb - p_i).abs() < 1e-4 * p_i, "feedback {fb} vs {p_i}");
        assert!((50.0 * p_i - phi).abs() < 1e-6 * phi);
    }

    /// Over capacity the feedback turns negative and each flow's share of the decrease
    /// is proportional to its rate: n_i = ξ_n·rtt_i·s_i, and two flows with the same
    /// RTT get the same per-packet value whatever their windows (the faster flow sends
    /// more packets, so loses more).
    #[test]
    fn overload_gives_negative_feedback_proportional_to_rate() {
        let mut x = Xcp::new(XcpConfig::ORIGINAL, Limit::Packets(100_000), RATE);
        // 2.5e6 B/s offered for 10 ms: twice the link.
        offer(
            &mut x,
            &|i| data(1000, if i % 2 == 0 { 10_000.0 } else { 40_000.0 }, 0.05),
            25,
            Time::ZERO,
            Time::from_millis(10),
        );
        let a = offer(
            &mut x,
            &|_| data(1000, 10_000.0, 0.05),
            1,
            Time::from_millis(10),
            Time::from_millis(1),
        )
        .unwrap();
        let b = offer(
            &mut x,
            &|_| data(1000, 1_000_000.0, 0.05),
            1,
            Time::from_millis(11),
            Time::from_millis(1),
        )
        .unwrap();
        let iv = x.last_interval();
        assert!(iv.phi < 0.0 && iv.h == 0.0, "{iv:?}");
        assert!(a < 0.0 && b < 0.0);
        // The positive part is zero: only n_i remains, equal for equal RTT and size.
        assert!((a - b).abs() < 1e-6 * a.abs(), "{a} vs {b}");
        // Totals: over an interval of length d the negative feedback sums to φ:
        // n_i · (y·d / s) = ξ_n·rtt·s·y·d/s.
        let total = -(a as f64) * iv.y * iv.d / 1000.0;
        assert!(
            (total + iv.phi).abs() < 1e-4 * iv.phi.abs(),
            "{total} vs {}",
            iv.phi
        );
    }

    /// Study 000's modification: with `count_ack_bytes` the ACKs crossing the link are
    /// part of the input traffic y (and so shrink the spare bandwidth S); without it
    /// they are invisible.
    #[test]
    fn ack_bytes_count_only_when_asked() {
        let run = |count: bool| {
            let cfg = XcpConfig {
                count_ack_bytes: count,
                ..XcpConfig::ORIGINAL
            };
            let mut x = Xcp::new(cfg, Limit::Packets(100), RATE);
            // 10 data packets of 1000 B and 30 ACKs of 40 B in the first 10 ms.
            offer(
                &mut x,
                &|i| {
                    if i % 4 == 0 {
                        data(1000, 50_000.0, 0.1)
                    } else {
                        ack()
                    }
                },
                40,
                Time::ZERO,
                Time::from_millis(10),
            );
            offer(&mut x, &|_| ack(), 1, Time::from_millis(10), Time(1));
            x.last_interval()
        };
        let without = run(false);
        let with = run(true);
        assert!((without.y - 10_000.0 / 0.01).abs() < 1e-6, "{without:?}");
        assert!((with.y - 11_200.0 / 0.01).abs() < 1e-6, "{with:?}");
        // S shrinks by the ACK rate: φ drops by α·d·(1200 B / 10 ms).
        let dphi = without.phi - with.phi;
        // (d comes from the f32 H_rtt: 0.1 to 1.5e-8 relative.)
        assert!((dphi - 0.4 * 0.1 * 120_000.0).abs() < 1e-6 * dphi, "{dphi}");
    }

    /// The persistent queue is the minimum queue seen by arrivals over the last T_q, not
    /// the instantaneous queue: a queue that drains to zero between bursts has Q = 0,
    /// one that never drains below 20 packets has Q = 20 packets.
    #[test]
    fn persistent_queue_is_the_minimum_seen() {
        let mut rng = stream(1, "q");
        let mut drops = Drops::default();
        let mut x = Xcp::new(XcpConfig::ORIGINAL, Limit::Packets(1000), RATE);
        let mut now = Time::ZERO;
        // A standing queue of 20 packets with traffic flowing through for 100 ms:
        // one arrival and one departure every 0.8 ms.
        for _ in 0..20 {
            let mut ctx = QueueCtx {
                now,
                rng: &mut rng,
                drops: &mut drops,
            };
            x.enqueue(data(1000, 50_000.0, 0.02), &mut ctx);
        }
        for _ in 0..125 {
            now += Time::from_micros(800);
            let mut ctx = QueueCtx {
                now,
                rng: &mut rng,
                drops: &mut drops,
            };
            x.enqueue(data(1000, 50_000.0, 0.02), &mut ctx);
            x.dequeue(&mut ctx).unwrap();
        }
        assert_eq!(x.persistent_queue(), 20_000.0);
        // Drain it, then the same traffic with no standing queue.
        while x.len_pkts() > 0 {
            now += Time::from_micros(800);
            let mut ctx = QueueCtx {
                now,
                rng: &mut rng,
                drops: &mut drops,
            };
            x.dequeue(&mut ctx).unwrap();
        }
        for _ in 0..125 {
            now += Time::from_micros(800);
            let mut ctx = QueueCtx {
                now,
                rng: &mut rng,
                drops: &mut drops,
            };
            x.enqueue(data(1000, 50_000.0, 0.02), &mut ctx);
            x.dequeue(&mut ctx).unwrap();
        }
        assert_eq!(x.persistent_queue(), 0.0);
        assert!(drops.is_empty());
    }

    /// One interval of a 10-packet window, then the 200 packets of the next (twenty
    /// such flows joining), each passed through: the feedback each was given.
    fn twenty_flows_join(x: &mut Xcp) -> Vec<f64> {
        offer(
            x,
            &|_| data(1000, 10_000.0, 0.1),
            1,
            Time::ZERO,
            Time::from_millis(10),
        );
        let mut fb = Vec::new();
        let mut rng = stream(1, "q");
        let mut drops = Drops::default();
        for i in 0..200u64 {
            let mut ctx = QueueCtx {
                now: Time::from_millis(10) + Time::from_micros(50 * i),
                rng: &mut rng,
                drops: &mut drops,
            };
            let mut p = data(1000, 10_000.0, 0.1);
            x.pass_through(&mut p, &mut ctx);
            fb.push(p.xcp().unwrap().feedback as f64);
        }
        fb
    }

    /// The paper's allocation hands out h + φ⁺ per interval when the next interval
    /// carries the traffic the last one did. When far more arrives, the per-interval
    /// budget caps the total. Here the last interval saw one packet of a flow with a
    /// 10-packet window, the next sees 200 such packets (twenty flows joining): each
    /// would get p = ξ_p·rtt²·s/cwnd = budget/10, twenty budgets in all, uncapped.
    #[test]
    fn positive_feedback_per_interval_is_capped_at_h_plus_phi() {
        let mut x = Xcp::new(XcpConfig::ORIGINAL, Limit::Packets(1000), RATE);
        let fb = twenty_flows_join(&mut x);
        let iv = x.last_interval();
        let budget = iv.h + iv.phi.max(0.0);
        assert!(iv.length == 0.01 && budget > 0.0, "{iv:?}");
        // Uncapped per-packet value: ξ_p·rtt²·s/cwnd.
        let p_i = iv.xi_p * 0.01 * 1000.0 / 10_000.0;
        assert!((fb[0] - p_i).abs() < 1e-4 * p_i && (p_i - budget / 10.0).abs() < 1e-4 * p_i);
        let total: f64 = fb.iter().sum();
        assert!(
            (total - budget).abs() < 1e-4 * budget,
            "handed out {total} B, budget {budget} B"
        );
        assert_eq!(fb[199], 0.0);
    }

    /// With `feedback_budget = false` (the opt-in for experiments) the same interval
    /// hands every packet the per-packet formula's p_i: twenty budgets in all.
    #[test]
    fn without_the_budget_every_packet_gets_the_per_packet_feedback() {
        let cfg = XcpConfig {
            feedback_budget: false,
            ..XcpConfig::ORIGINAL
        };
        let mut x = Xcp::new(cfg, Limit::Packets(1000), RATE);
        let fb = twenty_flows_join(&mut x);
        let iv = x.last_interval();
        let budget = iv.h + iv.phi.max(0.0);
        let p_i = iv.xi_p * 0.01 * 1000.0 / 10_000.0;
        assert!(fb.iter().all(|f| (f - p_i).abs() < 1e-4 * p_i), "{fb:?}");
        let total: f64 = fb.iter().sum();
        assert!(
            total > 19.0 * budget,
            "handed out {total} B, budget {budget} B"
        );
    }

    /// A router never raises the feedback it finds in the header.
    #[test]
    fn feedback_is_only_lowered() {
        let mut x = Xcp::new(XcpConfig::ORIGINAL, Limit::Packets(100), RATE);
        offer(
            &mut x,
            &|_| data(1000, 50_000.0, 0.1),
            5,
            Time::ZERO,
            Time::from_millis(10),
        );
        let mut p = data(1000, 50_000.0, 0.1);
        p.xcp_mut().unwrap().feedback = -3.0;
        let mut rng = stream(1, "q");
        let mut drops = Drops::default();
        let mut ctx = QueueCtx {
            now: Time::from_millis(10),
            rng: &mut rng,
            drops: &mut drops,
        };
        x.pass_through(&mut p, &mut ctx);
        assert!(x.last_interval().xi_p > 0.0);
        assert_eq!(p.xcp().unwrap().feedback, -3.0);
        // A packet with no RTT estimate gets no increase.
        let mut p = data(1000, 50_000.0, 0.0);
        x.pass_through(&mut p, &mut ctx);
        assert_eq!(p.xcp().unwrap().feedback, 0.0);
    }
}
