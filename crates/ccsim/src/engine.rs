//! The packet engine: the world (arenas of links, flows and sources addressed by
//! typed ids), the event loop, and the handlers.

use crate::metrics::fairness::JainSums;
use crate::metrics::probe::Probe;
use crate::metrics::sync::{DropCause, DropKind, DropRecord};
use crate::metrics::{SeriesBuf, SeriesMetric};
use crate::net::{Link, LinkCounters};
use crate::packet::{Packet, PktKind};
use crate::queue::QueueCtx;
use crate::random::{Dist, Rng};
use crate::sim::{Event, EventQueue, FlowId, LinkId, SourceId};
use crate::tcp::{Receiver, Sender};
use crate::units::Time;

/// Per-flow counters snapshotted at the warmup.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowSnap {
    pub bytes_delivered: u64,
    pub losses: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub back_to_back: u64,
    pub ecn_reductions: u64,
    pub recovery_time: Time,
}

pub struct Flow {
    pub sender: Sender,
    pub receiver: Receiver,
    pub group: String,
    pub cc_name: String,
    pub reverse: bool,
    pub start: Time,
    /// Two-way propagation delay of the flow's path (no queueing, no serialization).
    pub rtt_prop: Time,
    pub size_bytes: Option<u64>,
    pub started: bool,
    /// Data packets of this flow dropped anywhere (queues and wire).
    pub losses: u64,
    /// The sender's cwnd when the network first dropped one of its data packets.
    pub cwnd_at_first_drop: Option<f64>,
    /// Segments in flight at that moment (the window in use; a pacer may hold back
    /// part of cwnd).
    pub flight_at_first_drop: Option<u64>,
    pub snap: FlowSnap,
    /// Segments whose first transmission is dropped on injection, sorted (testing).
    forced_drops: Vec<u64>,
    rto_gen: u32,
    rto_sched: Option<Time>,
    delack_gen: u32,
    delack_sched: Option<Time>,
    pace_gen: u32,
    pace_sched: Option<Time>,
    last_sample_bytes: u64,
    /// Packets of this flow (data and ACKs) in the network now; a workload slot is
    /// reused only at zero (traffic/).
    pub in_net: u32,
    /// Set for the slots of dynamic workloads (traffic/).
    pub slot: Option<crate::traffic::Slot>,
}

impl Flow {
    /// Drop the first transmission of these segments (see `FlowGroup::drop_segments`).
    pub fn set_forced_drops(&mut self, segs: &[u64]) {
        self.forced_drops = segs.to_vec();
        self.forced_drops.sort_unstable();
        self.forced_drops.dedup();
    }

    #[allow(clippy::too_many_arguments)]
    pub fn new(
        sender: Sender,
        receiver: Receiver,
        group: String,
        cc_name: String,
        reverse: bool,
        start: Time,
        rtt_prop: Time,
        size_bytes: Option<u64>,
    ) -> Self {
        Flow {
            sender,
            receiver,
            group,
            cc_name,
            reverse,
            start,
            rtt_prop,
            size_bytes,
            started: false,
            losses: 0,
            cwnd_at_first_drop: None,
            flight_at_first_drop: None,
            snap: FlowSnap::default(),
            forced_drops: Vec::new(),
            rto_gen: 0,
            rto_sched: None,
            delack_gen: 0,
            delack_sched: None,
            pace_gen: 0,
            pace_sched: None,
            last_sample_bytes: 0,
            in_net: 0,
            slot: None,
        }
    }

    /// Put a new instance of a workload flow into this slot. Timer generations keep
    /// counting, so the old instance's pending timers are ignored.
    pub fn reset_instance(
        &mut self,
        sender: Sender,
        receiver: Receiver,
        start: Time,
        size: Option<u64>,
    ) {
        debug_assert_eq!(self.in_net, 0, "slot reused with packets in the network");
        self.sender = sender;
        self.receiver = receiver;
        self.start = start;
        self.size_bytes = size;
        self.started = false;
        self.losses = 0;
        self.cwnd_at_first_drop = None;
        self.flight_at_first_drop = None;
        self.snap = FlowSnap::default();
        self.rto_gen = self.rto_gen.wrapping_add(1);
        self.rto_sched = None;
        self.delack_gen = self.delack_gen.wrapping_add(1);
        self.delack_sched = None;
        self.pace_gen = self.pace_gen.wrapping_add(1);
        self.pace_sched = None;
        self.last_sample_bytes = 0;
    }
    fn counters(&self) -> FlowSnap {
        FlowSnap {
            bytes_delivered: self.receiver.bytes_delivered,
            losses: self.losses,
            retransmits: self.sender.stats.retransmits,
            timeouts: self.sender.stats.timeouts,
            fast_retransmits: self.sender.stats.fast_retransmits,
            back_to_back: self.sender.stats.back_to_back,
            ecn_reductions: self.sender.stats.ecn_reductions,
            recovery_time: self.sender.stats.recovery_time,
        }
    }
}

/// An open-loop Poisson packet source (UDP-like).
pub struct Source {
    pub name: String,
    pub path: u32,
    /// Mean time between packets, seconds.
    pub mean_gap: f64,
    pub size: Dist,
    pub rng: Rng,
    pub start: Time,
    pub stop: Time,
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
}

/// Snapshot of a link at the warmup.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkSnap {
    pub c: LinkCounters,
    pub busy: (u128, u128),
}

pub struct World {
    pub now: Time,
    pub events: EventQueue,
    pub links: Vec<Link>,
    pub paths: Vec<Vec<LinkId>>,
    pub flows: Vec<Flow>,
    pub sources: Vec<Source>,
    pub duration: Time,
    pub warmup: Time,
    pub sample_interval: Option<Time>,
    /// Links whose statistics and series are reported, and the main bottleneck.
    pub monitored: Vec<LinkId>,
    pub bottleneck: LinkId,
    pub link_snap: Vec<LinkSnap>,
    pub series: SeriesBuf,
    last_busy: Vec<u128>,
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    out: Vec<Packet>,
    drops: Vec<Packet>,
    qrng: Rng,
    pub ended: bool,
    /// Some flow has `drop_segments` (checked once, not per packet, when false).
    any_forced_drops: bool,
    /// Count each flow's packets in the network (`Flow::in_net`): only workloads,
    /// which reuse flow slots, need it.
    pub(crate) track_in_net: bool,
    /// Periodic metrics probe (CoV, convergence); off unless configured.
    pub probe: Probe,
    /// Which drops are logged into `drop_log` (loss synchronization, events.parquet).
    pub drop_logging: DropLogging,
    /// Drops in time order, pushed only when a drop happens.
    pub drop_log: Vec<DropRecord>,
    /// pcap taps of chosen links.
    pub pcap: Option<crate::pcap::Taps>,
    /// Per monitored link (by link index): drops at the last sample (series).
    last_drops: Vec<u64>,
    /// Per flow: throughput of the last sample interval (scratch for the series).
    thr_scratch: Vec<f64>,
    /// Per link: fairness sums of the last sample interval (scratch).
    fair_scratch: Vec<JainSums>,
    /// Dynamic workloads (traffic/) and their finished flows.
    pub workloads: Vec<crate::traffic::Workload>,
    pub finished: Vec<crate::traffic::FlowRecord>,
    /// Per link: how many flows' (and slots') data routes cross it.
    pub crossers: Vec<u32>,
}

/// Which drops the engine logs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DropLogging {
    #[default]
    Off,
    /// TCP data drops at the queues of monitored links (loss synchronization).
    MonitoredQueues,
    /// Every drop anywhere (events.parquet).
    All,
}

/// Returned by the progress callback to stop a run early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        links: Vec<Link>,
        paths: Vec<Vec<LinkId>>,
        flows: Vec<Flow>,
        sources: Vec<Source>,
        duration: Time,
        warmup: Time,
        sample_interval: Option<Time>,
        monitored: Vec<LinkId>,
        bottleneck: LinkId,
        qrng: Rng,
    ) -> Self {
        let nl = links.len();
        World {
            now: Time::ZERO,
            events: EventQueue::default(),
            links,
            paths,
            flows,
            sources,
            duration,
            warmup,
            sample_interval,
            monitored,
            bottleneck,
            link_snap: vec![LinkSnap::default(); nl],
            series: SeriesBuf::default(),
            last_busy: vec![0; nl],
            injected: 0,
            delivered: 0,
            dropped: 0,
            out: Vec::with_capacity(256),
            drops: Vec::with_capacity(64),
            qrng,
            ended: false,
            any_forced_drops: false,
            track_in_net: false,
            probe: Probe::default(),
            drop_logging: DropLogging::Off,
            drop_log: Vec::new(),
            pcap: None,
            last_drops: vec![0; nl],
            thr_scratch: Vec::new(),
            fair_scratch: Vec::new(),
            workloads: Vec::new(),
            finished: Vec::new(),
            crossers: Vec::new(),
        }
    }

    fn prime(&mut self) {
        for i in 0..self.flows.len() {
            if self.flows[i].slot.is_some() {
                continue; // workload slots start by their workload's events
            }
            let at = self.flows[i].start;
            self.events.schedule(at, Event::FlowStart(FlowId(i as u32)));
        }
        self.prime_workloads();
        for i in 0..self.sources.len() {
            let s = &mut self.sources[i];
            let gap = crate::random::exponential(&mut s.rng, s.mean_gap);
            let at = s.start + Time::from_secs_f64(gap);
            self.events
                .schedule(at, Event::SourceEmit(SourceId(i as u32)));
        }
        self.events.schedule(self.warmup, Event::Warmup);
        if let Some(iv) = self.sample_interval {
            self.events.schedule(iv, Event::Sample);
        }
        if let Some(iv) = self.probe.interval() {
            self.events.schedule(iv, Event::Probe);
        }
        self.events.schedule(self.duration, Event::End);
        self.any_forced_drops = self.flows.iter().any(|f| !f.forced_drops.is_empty());
        self.track_in_net = !self.workloads.is_empty();
    }

    /// Run to the end. `progress` is called now and then with the fraction of
    /// simulated time done; returning false stops the run.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) -> Result<(), Interrupted> {
        self.prime();
        let mut clock = std::time::Instant::now();
        let mut n: u64 = 0;
        while let Some((at, ev)) = self.events.pop() {
            debug_assert!(at >= self.now);
            self.now = at;
            self.handle(ev);
            if self.ended {
                break;
            }
            n += 1;
            if n & 0xFFFF == 0 && clock.elapsed().as_millis() >= 200 {
                clock = std::time::Instant::now();
                if !progress(self.now.as_secs_f64() / self.duration.as_secs_f64()) {
                    return Err(Interrupted);
                }
            }
        }
        progress(1.0);
        Ok(())
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Arrive(l) => self.on_arrive(l),
            Event::TxDone(l) => self.on_txdone(l),
            Event::Rto(f, g) => self.on_rto(f, g),
            Event::DelAck(f, g) => self.on_delack(f, g),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::SourceEmit(s) => self.on_source(s),
            Event::Workload(w, f) => self.on_workload(w, f),
            Event::Sample => self.on_sample(),
            Event::Probe => self.on_probe(),
            Event::Warmup => self.on_warmup(),
            Event::End => self.on_end(),
            Event::Pace(f, g) => self.on_pace(f, g),
        }
    }

    // ---- links -------------------------------------------------------------

    /// A packet reaches the input of link `l`.
    #[inline]
    fn link_input(&mut self, l: LinkId, mut pkt: Packet) {
        let now = self.now;
        // A transmission ending at this very instant frees its slot before this
        // arrival is judged (ACK clocking makes such ties systematic).
        {
            let link = &self.links[l.0 as usize];
            if link.txdone_pending && now >= link.busy_until {
                self.on_txdone(l);
            }
        }
        let link = &mut self.links[l.0 as usize];
        link.c.arrivals += 1;
        link.account(now);
        if now >= link.busy_until && link.queue.is_empty() {
            link.c.dequeued += 1;
            // The discipline still sees the packet (XCP: input traffic, feedback).
            if link.pass_through {
                let mut ctx = QueueCtx {
                    now,
                    rng: &mut self.qrng,
                    drops: &mut self.drops,
                };
                link.queue.pass_through(&mut pkt, &mut ctx);
            }
            if let Some(taps) = self.pcap.as_mut() {
                taps.capture(l.0 as usize, now, &pkt);
            }
            match link.start_tx(pkt, now) {
                Ok(Some(at)) => self.events.schedule(at, Event::Arrive(l)),
                Ok(None) => {}
                Err(p) => self.on_wire_loss(l, p),
            }
            return;
        }
        pkt.enq_at = now;
        let mut ctx = QueueCtx {
            now,
            rng: &mut self.qrng,
            drops: &mut self.drops,
        };
        link.queue.enqueue(pkt, &mut ctx);
        let qp = link.queue.len_pkts();
        if qp > link.max_pkts {
            link.max_pkts = qp;
        }
        let qb = link.queue.len_bytes();
        if qb > link.max_bytes {
            link.max_bytes = qb;
        }
        if !link.txdone_pending && qp > 0 {
            link.txdone_pending = true;
            let at = link.busy_until.max(now);
            self.events.schedule(at, Event::TxDone(l));
        }
        if !self.drops.is_empty() {
            self.flush_drops(l);
        }
    }

    fn flush_drops(&mut self, l: LinkId) {
        let mut drops = std::mem::take(&mut self.drops);
        self.links[l.0 as usize].c.drops += drops.len() as u64;
        let log = match self.drop_logging {
            DropLogging::Off => false,
            DropLogging::MonitoredQueues => self.links[l.0 as usize].monitor,
            DropLogging::All => true,
        };
        for p in drops.drain(..) {
            if log && (self.drop_logging == DropLogging::All || p.kind == PktKind::Data) {
                self.log_drop(l.0, &p, DropCause::Queue);
            }
            self.on_drop(p);
        }
        self.drops = drops;
    }

    /// A packet lost on the wire of link `l`.
    fn on_wire_loss(&mut self, l: LinkId, p: Packet) {
        if self.drop_logging == DropLogging::All {
            self.log_drop(l.0, &p, DropCause::Wire);
        }
        self.on_drop(p);
    }

    #[cold]
    fn log_drop(&mut self, link: u32, p: &Packet, cause: DropCause) {
        let kind = match p.kind {
            PktKind::Data => DropKind::Data,
            PktKind::Ack => DropKind::Ack,
            PktKind::Udp => DropKind::Udp,
        };
        self.drop_log.push(DropRecord {
            at: self.now,
            seq: p.seq,
            link,
            flow: p.flow,
            kind,
            cause,
        });
    }

    fn on_txdone(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.links[l.0 as usize];
        if now < link.busy_until || !link.txdone_pending {
            return; // superseded: this departure was already served at an arrival's tie
        }
        link.txdone_pending = false;
        link.account(now);
        let mut ctx = QueueCtx {
            now,
            rng: &mut self.qrng,
            drops: &mut self.drops,
        };
        if let Some(pkt) = link.queue.dequeue(&mut ctx) {
            link.c.sojourn_ps += (now - pkt.enq_at).0 as u128;
            link.c.dequeued += 1;
            if let Some(taps) = self.pcap.as_mut() {
                taps.capture(l.0 as usize, now, &pkt);
            }
            match link.start_tx(pkt, now) {
                Ok(Some(at)) => self.events.schedule(at, Event::Arrive(l)),
                Ok(None) => {}
                Err(p) => self.on_wire_loss(l, p),
            }
            let link = &mut self.links[l.0 as usize];
            if !link.queue.is_empty() {
                link.txdone_pending = true;
                self.events.schedule(link.busy_until, Event::TxDone(l));
            }
        }
        if !self.drops.is_empty() {
            self.flush_drops(l);
        }
    }

    fn on_arrive(&mut self, l: LinkId) {
        let link = &mut self.links[l.0 as usize];
        let (_, pkt) = link
            .pipe
            .pop_front()
            .expect("arrive event with an empty pipe");
        if let Some(&(next, _)) = link.pipe.front() {
            self.events.schedule(next, Event::Arrive(l));
        }
        self.forward(pkt);
    }

    /// Send a packet to its next hop, or deliver it at the end of its path.
    #[inline]
    fn forward(&mut self, pkt: Packet) {
        let path = &self.paths[pkt.path as usize];
        if (pkt.hop as usize) < path.len() {
            let l = path[pkt.hop as usize];
            self.link_input(l, pkt);
        } else {
            self.delivered += 1;
            self.deliver(pkt);
        }
    }

    fn on_drop(&mut self, p: Packet) {
        self.dropped += 1;
        match p.kind {
            PktKind::Data => {
                let fl = &mut self.flows[p.flow as usize];
                fl.losses += 1;
                if fl.cwnd_at_first_drop.is_none() {
                    fl.cwnd_at_first_drop = Some(fl.sender.cwnd());
                    fl.flight_at_first_drop = Some(fl.sender.in_flight());
                }
                self.net_leave(p.flow as usize);
            }
            PktKind::Udp => self.sources[p.flow as usize].dropped += 1,
            PktKind::Ack => self.net_leave(p.flow as usize),
        }
    }

    pub(crate) fn inject_out(&mut self) {
        let mut out = std::mem::take(&mut self.out);
        for p in out.drain(..) {
            self.injected += 1;
            if self.track_in_net && p.kind != PktKind::Udp {
                self.flows[p.flow as usize].in_net += 1;
            }
            if self.any_forced_drops && p.kind == PktKind::Data && !p.retx && self.forced_drop(&p) {
                if self.drop_logging == DropLogging::All {
                    let first = self.paths[p.path as usize]
                        .first()
                        .map_or(u32::MAX, |l| l.0);
                    self.log_drop(first, &p, DropCause::Scripted);
                }
                self.on_drop(p);
                continue;
            }
            self.forward(p);
        }
        self.out = out;
    }

    #[inline]
    fn forced_drop(&self, p: &Packet) -> bool {
        let fd = &self.flows[p.flow as usize].forced_drops;
        !fd.is_empty() && fd.binary_search(&p.seq).is_ok()
    }

    // ---- endpoints ---------------------------------------------------------

    fn deliver(&mut self, pkt: Packet) {
        let now = self.now;
        match pkt.kind {
            PktKind::Data => {
                let f = pkt.flow as usize;
                self.flows[f].receiver.on_data(&pkt, now, &mut self.out);
                self.sync_delack(f);
                self.inject_out();
                self.net_leave(f);
            }
            PktKind::Ack => {
                let f = pkt.flow as usize;
                self.flows[f].sender.on_ack(&pkt, now, &mut self.out);
                self.sync_rto(f);
                self.inject_out();
                self.check_finished(f);
                self.net_leave(f);
            }
            PktKind::Udp => self.sources[pkt.flow as usize].delivered += 1,
        }
    }

    pub(crate) fn on_flow_start(&mut self, f: FlowId) {
        let i = f.0 as usize;
        self.flows[i].started = true;
        self.flows[i].sender.start(self.now, &mut self.out);
        self.sync_rto(i);
        self.inject_out();
    }

    /// Make sure timer events are pending no later than the sender's RTO deadline
    /// and its pacing release.
    fn sync_rto(&mut self, i: usize) {
        let fl = &mut self.flows[i];
        if let Some(d) = fl.sender.pace_at {
            if fl.pace_sched.is_none_or(|s| d < s) {
                fl.pace_gen = fl.pace_gen.wrapping_add(1);
                fl.pace_sched = Some(d);
                self.events
                    .schedule(d, Event::Pace(FlowId(i as u32), fl.pace_gen));
            }
        }
        if let Some(d) = fl.sender.rto_deadline {
            if fl.rto_sched.is_none_or(|s| d < s) {
                fl.rto_gen = fl.rto_gen.wrapping_add(1);
                fl.rto_sched = Some(d);
                self.events
                    .schedule(d, Event::Rto(FlowId(i as u32), fl.rto_gen));
            }
        }
    }

    fn on_rto(&mut self, f: FlowId, gen: u32) {
        let i = f.0 as usize;
        let now = self.now;
        let fl = &mut self.flows[i];
        if gen != fl.rto_gen {
            return;
        }
        fl.rto_sched = None;
        match fl.sender.rto_deadline {
            None => {}
            Some(d) if d > now => {}
            Some(_) => {
                fl.sender.on_timeout(now, &mut self.out);
            }
        }
        self.sync_rto(i);
        self.inject_out();
    }

    fn on_pace(&mut self, f: FlowId, gen: u32) {
        let i = f.0 as usize;
        let fl = &mut self.flows[i];
        if gen != fl.pace_gen {
            return;
        }
        fl.pace_sched = None;
        if fl.sender.pace_at.is_some() {
            fl.sender.try_send(self.now, &mut self.out);
        }
        self.sync_rto(i);
        self.inject_out();
    }

    fn sync_delack(&mut self, i: usize) {
        let fl = &mut self.flows[i];
        if let Some(d) = fl.receiver.delack_deadline {
            if fl.delack_sched.is_none_or(|s| d < s) {
                fl.delack_gen = fl.delack_gen.wrapping_add(1);
                fl.delack_sched = Some(d);
                self.events
                    .schedule(d, Event::DelAck(FlowId(i as u32), fl.delack_gen));
            }
        }
    }

    fn on_delack(&mut self, f: FlowId, gen: u32) {
        let i = f.0 as usize;
        let now = self.now;
        let fl = &mut self.flows[i];
        if gen != fl.delack_gen {
            return;
        }
        fl.delack_sched = None;
        match fl.receiver.delack_deadline {
            Some(d) if d <= now => fl.receiver.on_delack_timer(now, &mut self.out),
            _ => {}
        }
        self.sync_delack(i);
        self.inject_out();
    }

    fn on_source(&mut self, s: SourceId) {
        let now = self.now;
        let src = &mut self.sources[s.0 as usize];
        if now >= src.stop {
            return;
        }
        let size = src.size.sample(&mut src.rng).round().max(1.0) as u32;
        src.sent += 1;
        let pkt = Packet::new(PktKind::Udp, s.0, src.path, src.sent, size, size, now);
        let gap = crate::random::exponential(&mut src.rng, src.mean_gap);
        let next = now + Time::from_secs_f64(gap);
        self.events.schedule(next, Event::SourceEmit(s));
        self.injected += 1;
        self.forward(pkt);
    }

    // ---- measurement -------------------------------------------------------

    fn on_sample(&mut self) {
        let now = self.now;
        let iv = self
            .sample_interval
            .expect("sample event without an interval");
        let t = now.as_secs_f64();
        for &l in &self.monitored {
            let link = &self.links[l.0 as usize];
            let (busy, _) = link.busy_at(now);
            let last = std::mem::replace(&mut self.last_busy[l.0 as usize], busy);
            let util = (busy - last) as f64 / iv.0 as f64;
            self.series
                .push_link(t, l.0, SeriesMetric::Utilization, util);
            self.series.push_link(
                t,
                l.0,
                SeriesMetric::QueuePkts,
                link.queue.len_pkts() as f64,
            );
            self.series.push_link(
                t,
                l.0,
                SeriesMetric::QueueBytes,
                link.queue.len_bytes() as f64,
            );
            let d = link.c.drops;
            let last = std::mem::replace(&mut self.last_drops[l.0 as usize], d);
            self.series
                .push_link(t, l.0, SeriesMetric::Drops, (d - last) as f64);
        }
        self.thr_scratch.clear();
        for (i, fl) in self.flows.iter_mut().enumerate() {
            let b = fl.receiver.bytes_delivered;
            let thr = (b - fl.last_sample_bytes) as f64 * 8.0 / iv.as_secs_f64();
            fl.last_sample_bytes = b;
            self.thr_scratch.push(thr);
            self.series
                .push_flow(t, i as u32, SeriesMetric::Throughput, thr);
            self.series
                .push_flow(t, i as u32, SeriesMetric::Cwnd, fl.sender.cwnd());
            self.series
                .push_flow(t, i as u32, SeriesMetric::Ssthresh, fl.sender.ssthresh());
        }
        self.sample_fairness(t, now.saturating_sub(iv));
        if now + iv <= self.duration {
            self.events.schedule(now + iv, Event::Sample);
        }
    }

    /// RTT-normalized Jain fairness, per monitored link, of the last interval's
    /// throughputs of the flows whose data crosses it and that were active in it.
    fn sample_fairness(&mut self, t: f64, since: Time) {
        // One pass over the flows, accumulating into each monitored link they cross:
        // O(flows × path length), not O(links × flows).
        let mut acc = std::mem::take(&mut self.fair_scratch);
        acc.clear();
        acc.resize(self.links.len(), JainSums::default());
        for (fl, &thr) in self.flows.iter().zip(&self.thr_scratch) {
            let active = fl.started
                && fl.start <= since
                && fl.receiver.completed_at.is_none_or(|c| c > self.now);
            if active {
                let y = thr * fl.rtt_prop.as_secs_f64();
                for l in &self.paths[fl.sender.data_path as usize] {
                    if self.links[l.0 as usize].monitor {
                        acc[l.0 as usize].add(y);
                    }
                }
            }
        }
        for &l in &self.monitored {
            let a = &acc[l.0 as usize];
            if !a.is_empty() {
                self.series
                    .push_link(t, l.0, SeriesMetric::JainRtt, a.value());
            }
        }
        self.fair_scratch = acc;
    }

    fn on_probe(&mut self) {
        let now = self.now;
        self.probe.tick(now, &self.flows);
        if let Some(iv) = self.probe.interval() {
            if now + iv <= self.duration {
                self.events.schedule(now + iv, Event::Probe);
            }
        }
    }

    fn on_warmup(&mut self) {
        let now = self.now;
        for (i, link) in self.links.iter_mut().enumerate() {
            link.account(now);
            link.reset_maxima();
            self.link_snap[i] = LinkSnap {
                c: link.c,
                busy: link.busy_at(now),
            };
        }
        for fl in &mut self.flows {
            fl.snap = fl.counters();
        }
    }

    fn on_end(&mut self) {
        let now = self.now;
        // A sample or probe tick due at the very end is queued behind End (scheduled
        // first, at the start): take it here so the last interval is not lost.
        let due = |iv: Option<Time>| iv.is_some_and(|iv| now >= iv && now.0.is_multiple_of(iv.0));
        if due(self.sample_interval) {
            self.on_sample();
        }
        if due(self.probe.interval()) {
            self.probe.tick(now, &self.flows);
        }
        for link in &mut self.links {
            link.account(now);
        }
        self.ended = true;
    }

    /// Packets inside the network now (queues and propagation).
    pub fn in_flight(&self) -> u64 {
        self.links.iter().map(|l| l.held()).sum()
    }

    pub fn flow_window(&self, i: usize) -> FlowSnap {
        let fl = &self.flows[i];
        let c = fl.counters();
        FlowSnap {
            bytes_delivered: c.bytes_delivered - fl.snap.bytes_delivered,
            losses: c.losses - fl.snap.losses,
            retransmits: c.retransmits - fl.snap.retransmits,
            timeouts: c.timeouts - fl.snap.timeouts,
            fast_retransmits: c.fast_retransmits - fl.snap.fast_retransmits,
            back_to_back: c.back_to_back - fl.snap.back_to_back,
            ecn_reductions: c.ecn_reductions - fl.snap.ecn_reductions,
            recovery_time: c.recovery_time - fl.snap.recovery_time,
        }
    }
}
