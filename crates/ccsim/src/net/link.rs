//! A link as one unit: its queueing discipline, the transmitter, the propagation
//! pipe and the statistics they keep (htsim's queue + pipe, ns-3's `QueueDisc`
//! wrapper that counts what the discipline decides). The engine offers it packets and
//! schedules what it says; the counts, the queue-length integrals and the per-queue
//! conservation (arrived = departed + dropped + stored) are kept here.

use super::trace::Trace;
use crate::metrics::hist::DelayHist;
use crate::packet::{Packet, PktKind};
use crate::queue::{DropReason, Drops, Limit, Queue, QueueCtx};
use crate::random::Rng;
use crate::records::QueueBalance;
use crate::sim::NodeId;
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// Cumulative counters of a link since time zero. Window metrics are differences of
/// two snapshots (at warmup and at the end), so no per-packet clipping is needed.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    pub arrivals: u64,
    /// Dropped by the discipline, in all and for lack of room (the rest are AQM
    /// decisions).
    pub drops: u64,
    pub drops_overflow: u64,
    pub random_losses: u64,
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub tx_data_pkts: u64,
    /// Bytes of data packets (everything but ACKs) transmitted; kept on trace-driven
    /// links only (their data utilization).
    pub tx_data_bytes: u64,
    /// Picoseconds the transmitter was busy (all packets / data packets only).
    pub busy_ps: u128,
    pub busy_data_ps: u128,
    /// Time integrals of queue length (packets·ps and bytes·ps).
    pub q_area_pkts: u128,
    pub q_area_bytes: u128,
    /// Sum of queueing delays of dequeued packets (ps) and how many (packets that
    /// found the link idle count, with no delay).
    pub sojourn_ps: u128,
    pub dequeued: u64,
}

pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    pub queue: Box<dyn Queue>,
    /// The queue's length in packets and bytes, refreshed after every call that can
    /// change it (enqueue, dequeue, a new limit): the integrals and the idle test read
    /// these, so that a packet crossing an idle link never touches the discipline's
    /// memory (with 10,000 flows, their 40,000 access queues are cold).
    q_pkts: usize,
    q_bytes: u64,
    /// `queue.sees_every_packet()`, cached.
    pub pass_through: bool,
    /// The transmitter is busy until this time.
    pub busy_until: Time,
    cur_start: Time,
    cur_is_data: bool,
    /// A TxDone event is pending (only while the queue is non-empty).
    pub txdone_pending: bool,
    /// Packets in propagation, with their arrival time at the far end (FIFO).
    pub pipe: VecDeque<(Time, Packet)>,
    /// Bernoulli loss probability on the wire.
    pub loss: f64,
    pub rng: Rng,
    /// Report this link's statistics and series.
    pub monitor: bool,
    pub c: LinkCounters,
    last_account: Time,
    /// Time-weighted histogram of the number in system (queue + in service), in ps,
    /// for queueing validations; the last bin collects everything above.
    pub nsys_hist: Vec<u128>,
    /// Maxima since the last reset (the warmup).
    pub max_pkts: usize,
    pub max_bytes: u64,
    /// Sojourn times of the packets leaving the queue (reported links only); those
    /// that found the link idle waited 0 and are not added one by one (the report
    /// counts them from `dequeued`).
    pub sojourn: Option<Box<DelayHist>>,
    /// A Mahimahi trace sets the capacity (`rate` is its mean).
    pub trace: Option<std::sync::Arc<Trace>>,
    /// Capacity bookkeeping across rate changes (`set_rate`): bits offered and bits
    /// of capacity used (all, data) before the current rate's epoch, and the epoch's
    /// start with the busy time then. Untouched on a link whose rate never changes.
    cap_offered: f64,
    cap_used: (f64, f64),
    epoch_start: Time,
    epoch_busy: (u128, u128),
    /// The delay was cut while packets propagated: keep the pipe in order.
    delay_cut: bool,
    /// `start_tx` takes the slow path: wire loss, a trace, a shaper, jitter or a delay
    /// cut (`update_slow` after changing `loss`, `trace`, `shaper` or `jitter`).
    slow: bool,
    /// A token bucket replaces the transmitter (boxed: a plain link keeps its size).
    pub shaper: Option<Box<TokenBucket>>,
    /// Extra propagation delay per packet, drawn from this distribution (seconds) with
    /// the link's random stream; the pipe stays FIFO (a packet arrives no earlier than
    /// the one before it), so a late packet holds back those behind it and they then
    /// arrive together, as from a delay element whose release comes late.
    pub jitter: Option<Box<crate::random::Law>>,
}

/// Linux's HTB with rate = ceil = the link's rate and burst = cburst: see `Link::shape`.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    /// Depth in bytes (HTB's burst).
    pub burst: u64,
    /// Tokens in ps of transmission at the rate (negative while the last packet is
    /// unpaid), as of `at`; `None` until the first packet: a new class's bucket is full
    /// (sch_htb.c, `htb_change_class`: tokens = buffer).
    tokens: Option<i64>,
    at: Time,
}

impl TokenBucket {
    pub fn new(burst: u64) -> Self {
        TokenBucket {
            burst,
            tokens: None,
            at: Time::ZERO,
        }
    }
}

impl Link {
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: Time,
        queue: Box<dyn Queue>,
        rng: Rng,
    ) -> Self {
        Link {
            name,
            from,
            to,
            rate,
            delay,
            q_pkts: queue.len_pkts(),
            q_bytes: queue.len_bytes(),
            pass_through: queue.sees_every_packet(),
            queue,
            busy_until: Time::ZERO,
            cur_start: Time::ZERO,
            cur_is_data: false,
            txdone_pending: false,
            pipe: VecDeque::new(),
            loss: 0.0,
            rng,
            monitor: false,
            c: LinkCounters::default(),
            last_account: Time::ZERO,
            nsys_hist: Vec::new(),
            max_pkts: 0,
            max_bytes: 0,
            sojourn: None,
            trace: None,
            cap_offered: 0.0,
            cap_used: (0.0, 0.0),
            epoch_start: Time::ZERO,
            epoch_busy: (0, 0),
            delay_cut: false,
            slow: false,
            shaper: None,
            jitter: None,
        }
    }

    /// The link's capacity is not one constant rate from time 0 (a trace, or a rate
    /// change): utilization is then measured against the capacity offered.
    pub fn dynamic(&self) -> bool {
        self.trace.is_some() || self.epoch_start > Time::ZERO
    }

    /// Bits of capacity offered from time 0 to `now`, and bits of it used by the
    /// transmitter (all packets, data packets). For a constant rate: rate × time and
    /// rate × busy time.
    pub fn capacity_at(&self, now: Time) -> (f64, f64, f64) {
        let busy = self.busy_at(now);
        if let Some(tr) = &self.trace {
            // A transmission uses exactly its packet's bytes of the trace's capacity:
            // what started, less what the current one has still to send.
            let left = if now < self.busy_until {
                tr.offered_bits(self.busy_until) - tr.offered_bits(now)
            } else {
                0.0
            };
            let sent = self.c.tx_bytes as f64 * 8.0;
            let data = self.c.tx_data_bytes as f64 * 8.0;
            let data_left = if self.cur_is_data { left } else { 0.0 };
            return (tr.offered_bits(now), sent - left, data - data_left);
        }
        let r = self.rate.as_f64();
        let ps = |x: u128| x as f64 * 1e-12;
        (
            self.cap_offered + r * ps((now - self.epoch_start).0 as u128),
            self.cap_used.0 + r * ps(busy.0 - self.epoch_busy.0),
            self.cap_used.1 + r * ps(busy.1 - self.epoch_busy.1),
        )
    }

    /// A new rate from `now` (`[[events]]`). A packet in transmission keeps the time
    /// its rate gave it; the capacity before `now` is kept at the old rate.
    pub fn set_rate(&mut self, rate: Rate, now: Time) {
        let (offered, used, used_data) = self.capacity_at(now);
        self.cap_offered = offered;
        self.cap_used = (used, used_data);
        self.epoch_start = now;
        self.epoch_busy = self.busy_at(now);
        self.rate = rate;
    }

    /// A new propagation delay for the packets sent from now on.
    pub fn set_delay(&mut self, delay: Time) {
        if delay < self.delay {
            self.delay_cut = true;
        }
        self.delay = delay;
        self.update_slow();
    }

    /// A new wire loss probability from now on.
    pub fn set_loss(&mut self, p: f64) {
        self.loss = p;
        self.update_slow();
    }

    /// Integrate queue length and the number in system up to `now`. Call before
    /// every change of the queue or of the transmitter.
    #[inline]
    pub fn account(&mut self, now: Time) {
        let last = self.last_account;
        if now <= last {
            return;
        }
        let dt = (now - last).0 as u128;
        debug_assert_eq!(
            self.q_pkts,
            self.queue.len_pkts(),
            "{}: stale length",
            self.name
        );
        debug_assert_eq!(
            self.q_bytes,
            self.queue.len_bytes(),
            "{}: stale bytes",
            self.name
        );
        let qp = self.q_pkts;
        self.c.q_area_pkts += qp as u128 * dt;
        self.c.q_area_bytes += self.q_bytes as u128 * dt;
        if !self.nsys_hist.is_empty() {
            let busy_end = self.busy_until.clamp(last, now);
            let top = self.nsys_hist.len() - 1;
            self.nsys_hist[(qp + 1).min(top)] += (busy_end - last).0 as u128;
            self.nsys_hist[qp.min(top)] += (now - busy_end).0 as u128;
        }
        self.last_account = now;
    }

    /// Busy time of the transmitter up to `now`, in ps (all, data-only).
    pub fn busy_at(&self, now: Time) -> (u128, u128) {
        let cur = if self.busy_until > self.cur_start {
            (self.busy_until.min(now).saturating_sub(self.cur_start)).0 as u128
        } else {
            0
        };
        let cur = if now > self.cur_start { cur } else { 0 };
        (
            self.c.busy_ps + cur,
            self.c.busy_data_ps + if self.cur_is_data { cur } else { 0 },
        )
    }

    /// Start transmitting `pkt` now. `Ok(Some(t))`: the pipe was empty and the caller
    /// must schedule an Arrive event at `t`; `Err(pkt)`: lost on the wire.
    #[inline]
    pub fn start_tx(&mut self, mut pkt: Packet, now: Time) -> Result<Option<Time>, Packet> {
        // Close the previous transmission's busy time.
        let prev = (self.busy_until.saturating_sub(self.cur_start)).0 as u128;
        self.c.busy_ps += prev;
        if self.cur_is_data {
            self.c.busy_data_ps += prev;
        }
        // Wire loss, a trace, a delay cut: one flag, tested where the loss test was,
        // so that a plain link pays nothing for the others.
        if self.slow {
            return self.start_tx_slow(pkt, now);
        }
        let tx = self.rate.tx_time(pkt.size as u64);
        self.cur_start = now;
        self.busy_until = now + tx;
        self.cur_is_data = pkt.kind != PktKind::Ack;
        self.c.tx_pkts += 1;
        self.c.tx_bytes += pkt.size as u64;
        if pkt.is_data() {
            self.c.tx_data_pkts += 1;
        }
        pkt.hop += 1;
        let at = self.busy_until + self.delay;
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back((at, pkt));
        Ok(was_empty.then_some(at))
    }

    /// `start_tx` on a link with wire loss, a trace, or a delay that was cut.
    #[inline(never)]
    fn start_tx_slow(&mut self, mut pkt: Packet, now: Time) -> Result<Option<Time>, Packet> {
        let tx = match &self.trace {
            None => self.rate.tx_time(pkt.size as u64),
            Some(tr) => {
                if pkt.kind != PktKind::Ack {
                    self.c.tx_data_bytes += pkt.size as u64;
                }
                tr.finish(now, pkt.size as u64) - now
            }
        };
        self.cur_is_data = pkt.kind != PktKind::Ack;
        // Serialized, the packet is delivered when its last bit leaves; shaped, when
        // the bucket releases it.
        let out = if self.shaper.is_some() {
            self.shape(now, tx);
            now
        } else {
            self.cur_start = now;
            self.busy_until = now + tx;
            self.busy_until
        };
        self.c.tx_pkts += 1;
        self.c.tx_bytes += pkt.size as u64;
        if pkt.is_data() {
            self.c.tx_data_pkts += 1;
        }
        if self.loss > 0.0 && crate::random::unit(&mut self.rng) < self.loss {
            self.c.random_losses += 1;
            return Err(pkt);
        }
        pkt.hop += 1;
        let mut at = out + self.delay;
        if let Some(j) = &self.jitter {
            at += Time::from_secs_f64(j.sample(&mut self.rng).max(0.0));
        }
        // FIFO after a delay cut or a late packet: the pipe schedules only its head, so
        // no packet may arrive before one sent earlier.
        if let Some(&(last, _)) = self.pipe.back() {
            at = at.max(last);
        }
        let was_empty = self.pipe.is_empty();
        self.pipe.push_back((at, pkt));
        Ok(was_empty.then_some(at))
    }

    /// A token bucket releases a packet of transmission time `tx` at `now`. As Linux's
    /// HTB (sch_htb.c: `htb_class_mode` lets a class send while its tokens are >= 0,
    /// `htb_accnt_tokens` then charges L/R, tokens accrue at the rate up to the
    /// burst), the packet leaves at once and the next may leave when the tokens are
    /// back to zero: after an idle period a burst of B bytes goes back to back, plus
    /// one packet. The transmitter is `busy` for `tx` per packet, so utilization is
    /// still the bytes sent over the capacity.
    fn shape(&mut self, now: Time, tx: Time) {
        let rate = self.rate;
        let Some(tb) = self.shaper.as_mut() else {
            return;
        };
        let depth = i64::try_from(rate.tx_time(tb.burst).0).unwrap_or(i64::MAX);
        let accrued = i64::try_from((now - tb.at).0).unwrap_or(i64::MAX);
        let tokens = tb
            .tokens
            .map_or(depth, |t| t.saturating_add(accrued).min(depth))
            - tx.0 as i64;
        tb.tokens = Some(tokens);
        tb.at = now;
        self.busy_until = now + Time(tokens.min(0).unsigned_abs());
        // Busy for tx, the interval ending when the tokens are paid; in the run's first
        // packet time that interval would start before time zero: its part before zero
        // is counted at once.
        self.cur_start = self.busy_until.saturating_sub(tx);
        let before_zero = (tx - (self.busy_until - self.cur_start)).0 as u128;
        self.c.busy_ps += before_zero;
        if self.cur_is_data {
            self.c.busy_data_ps += before_zero;
        }
    }

    /// Recompute the slow-path flag after changing `loss`, `trace`, `shaper`, `jitter`
    /// or the delay.
    pub fn update_slow(&mut self) {
        self.slow = self.loss > 0.0
            || self.trace.is_some()
            || self.delay_cut
            || self.shaper.is_some()
            || self.jitter.is_some();
    }

    /// A packet reaches the link's input at `now` (the transmitter was freed first if
    /// a departure was due at this instant: see `txdone_due`): counted, and the queue's
    /// integrals brought up to now. True if the transmitter is idle with an empty
    /// queue: the packet then goes straight out (`pass`, then `start_tx`); otherwise
    /// the caller `enqueue`s it.
    #[inline]
    pub fn arrive(&mut self, now: Time) -> bool {
        self.c.arrivals += 1;
        self.account(now);
        now >= self.busy_until && self.q_pkts == 0
    }

    /// A packet that found the link idle leaves without being queued; the discipline
    /// still sees it (`pass_through` disciplines: XCP counts input traffic, writes
    /// feedback).
    #[inline]
    pub fn pass(&mut self, pkt: &mut Packet, cx: &mut QueueCtx) {
        self.c.dequeued += 1;
        self.queue.pass_through(pkt, cx);
    }

    /// `pass` for a discipline that need not see such packets.
    #[inline]
    pub fn pass_quiet(&mut self) {
        self.c.dequeued += 1;
    }

    /// Queue a packet that found the transmitter busy (the discipline may drop it, or
    /// another: see the drops). `Some(t)`: the caller schedules the next departure.
    #[inline]
    pub fn enqueue(&mut self, mut pkt: Packet, now: Time, cx: &mut QueueCtx) -> Option<Time> {
        pkt.enq_at = now;
        self.queue.enqueue(pkt, cx);
        self.refresh_len();
        let qp = self.q_pkts;
        if qp > self.max_pkts {
            self.max_pkts = qp;
        }
        let qb = self.q_bytes;
        if qb > self.max_bytes {
            self.max_bytes = qb;
        }
        if !self.txdone_pending && qp > 0 {
            self.txdone_pending = true;
            return Some(self.busy_until.max(now));
        }
        None
    }

    /// A departure is pending and the transmitter is free at `now`.
    #[inline]
    pub fn txdone_due(&self, now: Time) -> bool {
        self.txdone_pending && now >= self.busy_until
    }

    /// The transmitter finished at `now`: the next packet to transmit, if the
    /// discipline gives one. `None` also when this departure was already served (an
    /// arrival at the same instant took it first).
    #[inline]
    pub fn next_to_send(&mut self, now: Time, cx: &mut QueueCtx) -> Option<Packet> {
        if now < self.busy_until || !self.txdone_pending {
            return None;
        }
        self.txdone_pending = false;
        self.account(now);
        let pkt = self.queue.dequeue(cx);
        self.refresh_len();
        let pkt = pkt?;
        let waited = (now - pkt.enq_at).0;
        self.c.sojourn_ps += waited as u128;
        if let Some(h) = &mut self.sojourn {
            h.add_max(waited);
        }
        self.c.dequeued += 1;
        Some(pkt)
    }

    /// After a transmission from the queue began: when the next departure is due, if
    /// packets wait.
    #[inline]
    pub fn next_txdone(&mut self) -> Option<Time> {
        if self.q_pkts == 0 {
            return None;
        }
        self.txdone_pending = true;
        Some(self.busy_until)
    }

    #[inline]
    fn refresh_len(&mut self) {
        self.q_pkts = self.queue.len_pkts();
        self.q_bytes = self.queue.len_bytes();
    }

    /// A new buffer limit (a drop-tail queue's; false if the discipline has none).
    pub fn set_limit(&mut self, limit: Limit) -> bool {
        let ok = self.queue.set_limit(limit);
        self.refresh_len();
        ok
    }

    /// Count what the discipline dropped in the last call.
    #[inline]
    pub fn count_drops(&mut self, drops: &Drops) {
        self.c.drops += drops.len() as u64;
        self.c.drops_overflow += drops
            .reasons()
            .iter()
            .filter(|&&r| r == DropReason::Overflow)
            .count() as u64;
        debug_assert!(self.balance().ok(), "queue {} lost a packet", self.name);
    }

    /// The queue's conservation since time zero: every packet that arrived has left
    /// (idle pass or dequeue), been dropped by the discipline, or is stored.
    pub fn balance(&self) -> QueueBalance {
        QueueBalance {
            arrived: self.c.arrivals as f64,
            departed: self.c.dequeued as f64,
            dropped: self.c.drops as f64,
            stored: self.queue.len_pkts() as f64,
        }
    }

    /// Packets currently held by this link (queue + propagation).
    pub fn held(&self) -> u64 {
        self.queue.len_pkts() as u64 + self.pipe.len() as u64
    }

    pub fn reset_maxima(&mut self) {
        self.max_pkts = self.queue.len_pkts();
        self.max_bytes = self.queue.len_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::DropTail;

    /// A 12 Mb/s link (a 1500-byte packet takes 1 ms) with 10 ms of propagation,
    /// shaped by a bucket of `burst` bytes or serializing.
    fn link(burst: Option<u64>) -> Link {
        let mut l = Link::new(
            "l".into(),
            NodeId(0),
            NodeId(1),
            Rate(12_000_000),
            Time::from_millis(10),
            Box::new(DropTail::new(Limit::Packets(10_000))),
            crate::random::stream(1, "loss"),
        );
        l.shaper = burst.map(|b| Box::new(TokenBucket::new(b)));
        l.update_slow();
        l
    }

    /// Offer 1500-byte packets at `arrivals` (sorted) as the engine does (a departure
    /// due at an arrival's instant first); the times they reach the far end.
    fn deliveries(l: &mut Link, arrivals: &[Time]) -> Vec<Time> {
        let mut rng = crate::random::stream(1, "queue");
        let mut drops = Drops::default();
        let (mut out, mut txdone, mut next) = (Vec::new(), None::<Time>, 0);
        loop {
            match (txdone, arrivals.get(next).copied()) {
                (Some(t), a) if a.is_none_or(|a| t <= a) => {
                    txdone = None;
                    let mut cx = QueueCtx {
                        now: t,
                        rng: &mut rng,
                        drops: &mut drops,
                    };
                    if let Some(p) = l.next_to_send(t, &mut cx) {
                        l.start_tx(p, t).unwrap();
                        out.push(l.pipe.back().unwrap().0);
                        txdone = l.next_txdone();
                    }
                }
                (_, Some(a)) => {
                    next += 1;
                    let p = Packet::new(PktKind::Data, 0, 0, next as u64, 1500, 1448, a);
                    if l.arrive(a) {
                        l.pass_quiet();
                        l.start_tx(p, a).unwrap();
                        out.push(l.pipe.back().unwrap().0);
                    } else {
                        let mut cx = QueueCtx {
                            now: a,
                            rng: &mut rng,
                            drops: &mut drops,
                        };
                        if let Some(t) = l.enqueue(p, a, &mut cx) {
                            txdone = Some(t);
                        }
                    }
                }
                _ => return out,
            }
        }
    }

    fn ms(v: &[u64]) -> Vec<Time> {
        v.iter().map(|&m| Time::from_millis(m)).collect()
    }

    #[test]
    fn a_full_bucket_releases_its_burst_and_one_packet_at_once_then_one_per_packet_time() {
        // Six packets at once after a long idle period: a 3000-byte bucket lets two
        // packets' worth of tokens and one packet on credit go (HTB sends while
        // tokens >= 0), then one per 1 ms as the tokens come back; no packet waits
        // for its own serialization.
        let got = deliveries(&mut link(Some(3000)), &[Time::from_millis(100); 6]);
        assert_eq!(got, ms(&[110, 110, 110, 111, 112, 113]));
        // Serialized, the same six leave 1 ms apart after the first's 1 ms.
        let got = deliveries(&mut link(None), &[Time::from_millis(100); 6]);
        assert_eq!(got, ms(&[111, 112, 113, 114, 115, 116]));
        // A new class's bucket is full (HTB sets its tokens to the burst): the same at
        // time zero.
        let mut l = link(Some(3000));
        let got = deliveries(&mut l, &[Time::ZERO; 4]);
        assert_eq!(got, ms(&[10, 10, 10, 11]));
        // Busy one packet time per packet, also for those sent on credit at time zero.
        let busy = l.busy_at(Time::from_secs(1));
        assert_eq!(busy.0, Time::from_millis(4).0 as u128);
        assert_eq!(busy.1, busy.0);
        // A bucket of no bytes is a pure rate limiter that releases each packet whole.
        let got = deliveries(&mut link(Some(0)), &[Time::from_millis(100); 3]);
        assert_eq!(got, ms(&[110, 111, 112]));
    }

    #[test]
    fn the_bucket_refills_at_the_rate_up_to_its_depth() {
        // Three at 100 ms put the bucket in debt until 101 ms. At 101.5 ms half a
        // packet of tokens stands: one goes (tokens >= 0, now -0.5 ms), the next when
        // they are back to zero at 102 ms. After 58 ms idle the bucket is full again
        // (3000 bytes, not 58 ms of tokens): three at once, the fourth 1 ms later.
        let t = |us: u64| Time::from_micros(us);
        let arrivals = [
            t(100_000),
            t(100_000),
            t(100_000),
            t(101_500),
            t(101_500),
            t(160_000),
            t(160_000),
            t(160_000),
            t(160_000),
        ];
        let got = deliveries(&mut link(Some(3000)), &arrivals);
        let want: Vec<Time> = [
            100_000, 100_000, 100_000, 101_500, 102_000, 160_000, 160_000, 160_000, 161_000,
        ]
        .iter()
        .map(|&u| t(u) + Time::from_millis(10))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_shaped_link_is_busy_one_packet_time_per_packet_as_a_serializing_one() {
        // A backlog of 1000 packets: the shaper keeps the link's rate (the last one
        // released (1000 - 3) packet times after the first) and the transmitter's busy
        // time, hence utilization, is 1000 packet times, as a serializing link's.
        let mut l = link(Some(3000));
        let got = deliveries(&mut l, &[Time::from_millis(100); 1000]);
        assert_eq!(got[999] - got[0], Time::from_millis(997));
        let end = Time::from_secs(2);
        assert_eq!(l.busy_at(end).0, Time::from_millis(1000).0 as u128);
        let mut s = link(None);
        deliveries(&mut s, &[Time::from_millis(100); 1000]);
        assert_eq!(s.busy_at(end), l.busy_at(end));
        let (offered, used, _) = l.capacity_at(end);
        assert!((used / offered - 0.5).abs() < 1e-12, "{used} / {offered}");
    }

    #[test]
    fn jitter_delays_each_packet_by_its_draw_and_never_reorders() {
        // Packets 100 ms apart meet an idle link: each arrives after its 1 ms of
        // serialization, the 10 ms of propagation and its own draw, here uniform on
        // [0, 4 ms]: the extra delays' mean 2 ms (sd 4/sqrt(12) ms, so a 2000-packet
        // mean is within 0.13 ms at 5 standard errors), all in [0, 4 ms].
        let jittered = || {
            let mut l = link(None);
            l.jitter = Some(Box::new(crate::random::Law::Dist(
                crate::random::Dist::Uniform(0.0, 4e-3),
            )));
            l.update_slow();
            l
        };
        let spaced: Vec<Time> = (0..2000).map(|k| Time::from_millis(100 * k)).collect();
        let got = deliveries(&mut jittered(), &spaced);
        let extra: Vec<f64> = got
            .iter()
            .zip(&spaced)
            .map(|(d, a)| (*d - *a - Time::from_millis(11)).as_secs_f64())
            .collect();
        assert!(extra.iter().all(|&e| (0.0..=4e-3).contains(&e)));
        let mean = extra.iter().sum::<f64>() / extra.len() as f64;
        assert!((mean - 2e-3).abs() < 0.13e-3, "{mean}");
        // A backlog leaves 1 ms apart; a draw larger than the spacing holds the packets
        // behind it (a FIFO pipe): arrivals never go backwards, and each packet still
        // arrives no earlier than its own draw allows.
        let got = deliveries(&mut jittered(), &[Time::from_millis(100); 500]);
        assert!(got.windows(2).all(|w| w[0] <= w[1]));
        let bunched = got.windows(2).filter(|w| w[0] == w[1]).count();
        assert!(
            bunched > 100,
            "only {bunched} packets held back by the one before"
        );
        for (k, d) in got.iter().enumerate() {
            assert!(
                *d >= Time::from_millis(111 + k as u64),
                "packet {k} at {d:?}"
            );
        }
        // Without jitter the same backlog arrives exactly 1 ms apart.
        let plain = deliveries(&mut link(None), &[Time::from_millis(100); 500]);
        assert!(plain
            .windows(2)
            .all(|w| w[1] - w[0] == Time::from_millis(1)));
    }
}
