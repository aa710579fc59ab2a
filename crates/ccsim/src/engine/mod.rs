//! The packet engine: the world (arenas of links, flows and sources addressed by
//! typed ids), the event loop, and the handlers. It measures, and reports what it
//! measured as `records` (`report.rs`); it computes no metric of its own beyond the
//! online accumulators of `metrics` (the CoV probe, congestion-event grouping).
//!
//! An event's path: a sender's packet enters the first link of its route
//! (`link_input`); the link queues it or starts transmitting it (`net::Link`); at the
//! end of its propagation (`Arrive`) it enters the next link, or is delivered to the
//! receiver, whose ACK travels back the same way to the sender.

mod build;
mod report;

use crate::metrics::probe::{Probe, ProbeSample};
use crate::metrics::sync::EventGrouper;
use crate::net::{Link, TcpTemplate};
use crate::packet::{Packet, PktKind};
use crate::queue::{DropReason, Drops, QueueCtx};
use crate::random::{Dist, Rng};
use crate::records::{DropKind, DropRecord, FlowRecord, SeriesBuf, SeriesMetric};
use crate::sim::{Event, EventQueue, FlowId, LinkId, SourceId};
use crate::tcp::{Receiver, Sender};
use crate::traffic::{Action, Workload};
use crate::units::Time;

/// A generation-stamped timer of a flow (RTO, pacing release, delayed ACK, read): at
/// most one event is counted on, the earliest scheduled; a later-scheduled or
/// superseded event finds another generation and does nothing.
#[derive(Clone, Copy, Debug, Default)]
struct FlowTimer {
    gen: u32,
    sched: Option<Time>,
}

impl FlowTimer {
    /// A new generation to schedule at `d`, unless an event no later is pending.
    #[inline]
    fn arm(&mut self, d: Time) -> Option<u32> {
        if self.sched.is_none_or(|s| d < s) {
            self.gen = self.gen.wrapping_add(1);
            self.sched = Some(d);
            Some(self.gen)
        } else {
            None
        }
    }

    /// Arm for `d` and, if that is a new generation, schedule its event (`ev` of it).
    #[inline]
    fn schedule(&mut self, d: Time, events: &mut EventQueue, ev: impl FnOnce(u32) -> Event) {
        if let Some(g) = self.arm(d) {
            events.schedule(d, ev(g));
        }
    }

    /// An event of generation `gen` fires: true if it is the current one.
    #[inline]
    fn fire(&mut self, gen: u32) -> bool {
        let current = gen == self.gen;
        if current {
            self.sched = None;
        }
        current
    }

    /// Forget the pending event (a new flow instance).
    fn reset(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.sched = None;
    }
}

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
    pub ce_marks: u64,
    pub recovery_time: Time,
}

/// A TCP flow: its endpoints and what the engine counts of it. A workload's flow
/// slot is a `Flow` too, reused by one instance after another.
pub struct Flow {
    pub sender: Sender,
    pub receiver: Receiver,
    pub group: String,
    pub cc_name: String,
    pub reverse: bool,
    pub start: Time,
    /// When it stops sending, if it does.
    pub stop: Option<Time>,
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
    rto: FlowTimer,
    delack: FlowTimer,
    read: FlowTimer,
    pace: FlowTimer,
    last_sample_bytes: u64,
    /// Packets of this flow (data and ACKs) in the network now; a workload slot is
    /// reused only at zero (traffic/).
    pub in_net: u32,
    /// A workload's slot: (workload, slot index).
    pub slot: Option<(u32, u32)>,
    /// A workload instance: its fair rate (bit/s) when it started and the hop of its
    /// data route that set it (the ideal latency's fair share).
    pub fair_share: Option<(f64, u32)>,
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
            stop: None,
            rtt_prop,
            size_bytes,
            started: false,
            losses: 0,
            cwnd_at_first_drop: None,
            flight_at_first_drop: None,
            snap: FlowSnap::default(),
            forced_drops: Vec::new(),
            rto: FlowTimer::default(),
            delack: FlowTimer::default(),
            read: FlowTimer::default(),
            pace: FlowTimer::default(),
            last_sample_bytes: 0,
            in_net: 0,
            slot: None,
            fair_share: None,
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
        self.rto.reset();
        self.delack.reset();
        self.read.reset();
        self.pace.reset();
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
            ce_marks: self.receiver.ce_received,
            recovery_time: self.sender.stats.recovery_time,
        }
    }

    /// Counters since the warmup (or since this instance started).
    pub fn window(&self) -> FlowSnap {
        let c = self.counters();
        let s = &self.snap;
        FlowSnap {
            bytes_delivered: c.bytes_delivered - s.bytes_delivered,
            losses: c.losses - s.losses,
            retransmits: c.retransmits - s.retransmits,
            timeouts: c.timeouts - s.timeouts,
            fast_retransmits: c.fast_retransmits - s.fast_retransmits,
            back_to_back: c.back_to_back - s.back_to_back,
            ecn_reductions: c.ecn_reductions - s.ecn_reductions,
            ce_marks: c.ce_marks - s.ce_marks,
            recovery_time: c.recovery_time - s.recovery_time,
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
    pub c: crate::net::LinkCounters,
    pub busy: (u128, u128),
    /// The discipline's ECN marks so far.
    pub marks: u64,
    /// `Link::capacity_at` then.
    pub cap: (f64, f64, f64),
}

/// Which drops the engine keeps in its log (the events table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DropLogging {
    /// None (congestion events are grouped as drops happen, without a log).
    #[default]
    Off,
    /// Every drop anywhere (events.parquet).
    All,
}

/// Returned by the progress callback to stop a run early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

/// Every path's links in one array, indexed by offsets: a packet's next hop is a
/// lookup in two dense tables, not a pointer chase to one allocation per path (with
/// 10,000 flows the paths no longer fit in cache one by one).
pub struct PathTable {
    start: Vec<u32>,
    links: Vec<LinkId>,
}

impl PathTable {
    pub fn new(paths: &[Vec<LinkId>]) -> Self {
        let mut start = Vec::with_capacity(paths.len() + 1);
        let mut links = Vec::with_capacity(paths.iter().map(Vec::len).sum());
        start.push(0);
        for p in paths {
            links.extend_from_slice(p);
            start.push(u32::try_from(links.len()).expect("fewer than 2^32 path hops"));
        }
        PathTable { start, links }
    }
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> impl Iterator<Item = &[LinkId]> {
        (0..self.len()).map(|i| &self[i])
    }
}

impl std::ops::Index<usize> for PathTable {
    type Output = [LinkId];
    #[inline]
    fn index(&self, i: usize) -> &[LinkId] {
        &self.links[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

pub struct World {
    pub now: Time,
    pub events: EventQueue,
    pub links: Vec<Link>,
    pub paths: PathTable,
    pub flows: Vec<Flow>,
    pub sources: Vec<Source>,
    pub duration: Time,
    pub warmup: Time,
    pub sample_interval: Option<Time>,
    /// Links whose statistics and series are reported, and the main bottleneck.
    pub monitored: Vec<LinkId>,
    pub bottleneck: LinkId,
    link_snap: Vec<LinkSnap>,
    series: SeriesBuf,
    last_busy: Vec<u128>,
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    out: Vec<Packet>,
    drops: Drops,
    qrng: Rng,
    pub ended: bool,
    /// Some flow has `drop_segments` (checked once, not per packet, when false).
    any_forced_drops: bool,
    /// Count each flow's packets in the network (`Flow::in_net`): only workloads,
    /// which reuse flow slots, need it.
    track_in_net: bool,
    /// Periodic metrics probe (CoV, convergence); off unless configured.
    pub probe: Probe,
    probe_scratch: Vec<ProbeSample>,
    /// Per link: the congestion-event grouper of its queue (monitored links only).
    groupers: Vec<Option<EventGrouper>>,
    /// Which drops are logged into `drop_log` (events.parquet).
    pub drop_logging: DropLogging,
    pub drop_log: Vec<DropRecord>,
    /// Most rows `drop_log` keeps (`output.drop_log_limit`); the drops past it are
    /// only counted, in `drops_unlogged`, so that a long run's memory stays flat.
    pub drop_log_limit: usize,
    pub drops_unlogged: u64,
    /// pcap taps of chosen links.
    pub pcap: Option<crate::pcap::Taps>,
    /// Per link: drops at the last sample (series).
    last_drops: Vec<u64>,
    /// TCP configurations of the groups and workloads (new workload instances).
    templates: Vec<TcpTemplate>,
    /// Dynamic workloads (traffic/) and their finished flows.
    pub workloads: Vec<Workload>,
    /// Per workload, the flow id of each slot.
    slot_ids: Vec<Vec<u32>>,
    finished: Vec<FlowRecord>,
    actions: Vec<Action>,
    /// Per link: how many flows' (and slots') data routes cross it.
    crossers: Vec<u32>,
    /// `metrics.fair_share_flows`.
    fair_share_flows: Option<u32>,
    /// Per link: its buffer limit as the plan resolved it (`"42pkt"`).
    buffers: Vec<String>,
    /// Scheduled link changes (`[[events]]`).
    link_changes: Vec<crate::net::events::LinkChange>,
    /// Per link: capacity offered and used at the last sample (links with a trace or
    /// a rate change: their series utilization is against the capacity offered).
    last_cap: Vec<(f64, f64)>,
    /// The scenario's name and seed, and what the plan resolved (for the records).
    name: String,
    seed: u64,
    info: crate::net::BuildInfo,
}

impl World {
    fn prime(&mut self) {
        for i in 0..self.flows.len() {
            if self.flows[i].slot.is_some() {
                continue; // workload slots start by their workload's events
            }
            let at = self.flows[i].start;
            self.events.schedule(at, Event::FlowStart(FlowId(i as u32)));
            if let Some(stop) = self.flows[i].stop {
                self.events
                    .schedule(stop, Event::FlowStop(FlowId(i as u32)));
            }
        }
        for k in 0..self.link_changes.len() {
            let at = self.link_changes[k].at;
            self.events.schedule(at, Event::LinkChange(k as u32));
        }
        for w in 0..self.workloads.len() {
            let mut acts = std::mem::take(&mut self.actions);
            self.workloads[w].prime(&mut acts);
            self.run_actions(w as u32, &mut acts);
            self.actions = acts;
        }
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
    // Kept out of line: the event loop is the hot path, and inlined into its callers
    // (the Python binding's closures) it compiled measurably slower.
    #[inline(never)]
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
            Event::Read(f, g) => self.on_read(f, g),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::SourceEmit(s) => self.on_source(s),
            Event::Workload(w, j) => self.on_workload(w, j),
            Event::Sample => self.on_sample(),
            Event::Probe => self.on_probe(),
            Event::Warmup => self.on_warmup(),
            Event::End => self.on_end(),
            Event::Pace(f, g) => self.on_pace(f, g),
            Event::FlowStop(f) => self.on_flow_stop(f),
            Event::LinkChange(k) => self.on_link_change(k),
        }
    }

    // ---- links -------------------------------------------------------------

    /// A packet reaches the input of link `l`.
    #[inline(always)]
    fn link_input(&mut self, l: LinkId, mut pkt: Packet) {
        let now = self.now;
        // A transmission ending at this very instant frees its slot before this
        // arrival is judged (ACK clocking makes such ties systematic).
        if self.links[l.0 as usize].txdone_due(now) {
            self.on_txdone(l);
        }
        let link = &mut self.links[l.0 as usize];
        if link.arrive(now) {
            // Straight out: the packet is moved once, into the link's pipe (the
            // transmit lines are written out here and in on_txdone for that reason).
            if link.pass_through {
                let mut cx = QueueCtx {
                    now,
                    rng: &mut self.qrng,
                    drops: &mut self.drops,
                };
                link.pass(&mut pkt, &mut cx);
            } else {
                link.pass_quiet();
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
        let mut cx = QueueCtx {
            now,
            rng: &mut self.qrng,
            drops: &mut self.drops,
        };
        if let Some(at) = link.enqueue(pkt, now, &mut cx) {
            self.events.schedule(at, Event::TxDone(l));
        }
        if !self.drops.is_empty() {
            self.flush_drops(l);
        }
    }

    fn on_txdone(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.links[l.0 as usize];
        let mut cx = QueueCtx {
            now,
            rng: &mut self.qrng,
            drops: &mut self.drops,
        };
        if let Some(pkt) = link.next_to_send(now, &mut cx) {
            if let Some(taps) = self.pcap.as_mut() {
                taps.capture(l.0 as usize, now, &pkt);
            }
            match link.start_tx(pkt, now) {
                Ok(Some(at)) => self.events.schedule(at, Event::Arrive(l)),
                Ok(None) => {}
                Err(p) => self.on_wire_loss(l, p),
            }
            if let Some(at) = self.links[l.0 as usize].next_txdone() {
                self.events.schedule(at, Event::TxDone(l));
            }
        }
        if !self.drops.is_empty() {
            self.flush_drops(l);
        }
    }

    /// Count and report what link `l`'s discipline just dropped.
    fn flush_drops(&mut self, l: LinkId) {
        let mut drops = std::mem::take(&mut self.drops);
        let li = l.0 as usize;
        self.links[li].count_drops(&drops);
        let now = self.now;
        for (p, reason) in drops.drain() {
            let mut event = -1;
            if p.kind == PktKind::Data {
                if let Some(g) = self.groupers[li].as_mut() {
                    event = g.push(now, p.flow, 1.0) as i64;
                }
            }
            if self.drop_logging == DropLogging::All {
                self.log_drop(l.0, &p, reason, event);
            }
            self.on_drop(p);
        }
        self.drops = drops;
    }

    /// A packet lost on the wire of link `l`.
    fn on_wire_loss(&mut self, l: LinkId, p: Packet) {
        if self.drop_logging == DropLogging::All {
            self.log_drop(l.0, &p, DropReason::Wire, -1);
        }
        self.on_drop(p);
    }

    #[cold]
    fn log_drop(&mut self, link: u32, p: &Packet, reason: DropReason, event: i64) {
        let kind = match p.kind {
            PktKind::Data => DropKind::Data,
            PktKind::Ack => DropKind::Ack,
            PktKind::Udp => DropKind::Udp,
        };
        if self.drop_log.len() >= self.drop_log_limit {
            self.drops_unlogged += 1;
            return;
        }
        self.drop_log.push(DropRecord {
            at: self.now,
            seq: p.seq,
            link,
            flow: p.flow,
            kind,
            reason,
            event,
        });
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

    fn inject_out(&mut self) {
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
                    self.log_drop(first, &p, DropReason::Scripted, -1);
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

    fn on_flow_start(&mut self, f: FlowId) {
        let i = f.0 as usize;
        if self.flows[i].sender.stopped {
            return; // stopped before it started: it never sends
        }
        self.flows[i].started = true;
        self.flows[i].sender.start(self.now, &mut self.out);
        self.sync_rto(i);
        self.inject_out();
    }

    #[cold]
    fn on_flow_stop(&mut self, f: FlowId) {
        self.flows[f.0 as usize].sender.stop();
    }

    /// A scheduled change of a link (`[[events]]`): its rate, delay, loss or buffer
    /// from now on. Queue integrals are brought up to now first.
    #[cold]
    fn on_link_change(&mut self, k: u32) {
        let now = self.now;
        let ch = self.link_changes[k as usize].clone();
        let link = &mut self.links[ch.link as usize];
        link.account(now);
        if let Some(r) = ch.rate {
            link.set_rate(r, now);
        }
        if let Some(d) = ch.delay {
            link.set_delay(d);
        }
        if let Some(p) = ch.loss {
            link.set_loss(p);
        }
        if let Some(b) = ch.buffer {
            let ok = link.set_limit(b);
            debug_assert!(
                ok,
                "the plan admits buffer changes of drop-tail queues only"
            );
            self.buffers[ch.link as usize] = crate::net::limit_text(b);
        }
    }

    /// Make sure timer events are pending no later than the sender's RTO deadline
    /// and its pacing release.
    fn sync_rto(&mut self, i: usize) {
        let fl = &mut self.flows[i];
        let f = FlowId(i as u32);
        if let Some(d) = fl.sender.pace_at {
            fl.pace.schedule(d, &mut self.events, |g| Event::Pace(f, g));
        }
        if let Some(d) = fl.sender.timer_deadline() {
            fl.rto.schedule(d, &mut self.events, |g| Event::Rto(f, g));
        }
    }

    fn on_rto(&mut self, f: FlowId, gen: u32) {
        let i = f.0 as usize;
        let now = self.now;
        let fl = &mut self.flows[i];
        if !fl.rto.fire(gen) {
            return;
        }
        match fl.sender.timer_deadline() {
            None => {}
            Some(d) if d > now => {}
            Some(_) => {
                fl.sender.on_timer(now, &mut self.out);
            }
        }
        self.sync_rto(i);
        self.inject_out();
    }

    fn on_pace(&mut self, f: FlowId, gen: u32) {
        let i = f.0 as usize;
        let fl = &mut self.flows[i];
        if !fl.pace.fire(gen) {
            return;
        }
        if fl.sender.pace_at.is_some() {
            fl.sender.try_send(self.now, &mut self.out);
        }
        self.sync_rto(i);
        self.inject_out();
    }

    /// The receiver's timers: the delayed ACK (or SACK compression), and the
    /// application's read, each its own event so that an earlier read does not
    /// supersede (and re-push) the delayed ACK's.
    fn sync_delack(&mut self, i: usize) {
        let fl = &mut self.flows[i];
        let f = FlowId(i as u32);
        if let Some(d) = fl.receiver.delack_deadline {
            fl.delack
                .schedule(d, &mut self.events, |g| Event::DelAck(f, g));
        }
        if let Some(d) = fl.receiver.read_deadline() {
            fl.read.schedule(d, &mut self.events, |g| Event::Read(f, g));
        }
    }

    fn on_delack(&mut self, f: FlowId, gen: u32) {
        let i = f.0 as usize;
        let now = self.now;
        let fl = &mut self.flows[i];
        if !fl.delack.fire(gen) {
            return;
        }
        match fl.receiver.delack_deadline {
            Some(d) if d <= now => fl.receiver.on_delack_timer(now, &mut self.out),
            _ => {}
        }
        self.sync_delack(i);
        self.inject_out();
    }

    fn on_read(&mut self, f: FlowId, gen: u32) {
        let i = f.0 as usize;
        let fl = &mut self.flows[i];
        if !fl.read.fire(gen) {
            return;
        }
        fl.receiver.on_read_timer(self.now, &mut self.out);
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

    // ---- workloads (traffic/) ------------------------------------------------

    /// Carry out a workload's actions, in order.
    fn run_actions(&mut self, w: u32, acts: &mut Vec<Action>) {
        for a in acts.drain(..) {
            match a {
                Action::Wake { at, slot } => self.events.schedule(at, Event::Workload(w, slot)),
                Action::Start { slot, size } => self.start_instance(w, slot, size),
            }
        }
    }

    /// A workload wake-up: a Poisson arrival, or a node's next flow being due.
    fn on_workload(&mut self, w: u32, slot: u32) {
        let mut acts = std::mem::take(&mut self.actions);
        let (flows, ids) = (&self.flows, &self.slot_ids[w as usize]);
        let draining = |j: u32| flows[ids[j as usize] as usize].in_net > 0;
        self.workloads[w as usize].on_wake(slot, self.now, self.warmup, draining, &mut acts);
        self.run_actions(w, &mut acts);
        self.actions = acts;
    }

    /// Start a new flow of `size` bytes in slot `j` of workload `w`.
    fn start_instance(&mut self, w: u32, j: u32, size: u64) {
        let now = self.now;
        let f = self.slot_ids[w as usize][j as usize];
        let fair = self.fair_share_at_start(f);
        let fl = &self.flows[f as usize];
        let tmpl = &self.templates[self.workload_template(w)];
        let (mut sender, mut receiver) = tmpl.endpoints(
            f,
            fl.sender.data_path,
            fl.receiver.ack_path,
            Some(size),
            fl.rtt_prop,
        );
        sender.seed_cc(crate::random::cc_seed(self.seed, f, now.ps()));
        receiver.seed_reads(crate::random::read_seed(self.seed, f, now.ps()));
        let fl = &mut self.flows[f as usize];
        fl.reset_instance(sender, receiver, now, Some(size));
        fl.fair_share = Some(fair);
        self.on_flow_start(FlowId(f));
    }

    fn workload_template(&self, w: u32) -> usize {
        self.templates.len() - self.workloads.len() + w as usize
    }

    /// Called after a slot's sender processed an ACK.
    #[inline]
    fn check_finished(&mut self, f: usize) {
        let fl = &self.flows[f];
        let Some((w, j)) = fl.slot else { return };
        if !self.workloads[w as usize].slots[j as usize].busy || !fl.sender.done() {
            return;
        }
        let now = self.now;
        let mut rec = self.instance_record(f);
        rec.finished = Some(now);
        self.finished.push(rec);
        let drained = self.flows[f].in_net == 0;
        let mut acts = std::mem::take(&mut self.actions);
        self.workloads[w as usize].on_finished(j, now, drained, &mut acts);
        self.run_actions(w, &mut acts);
        self.actions = acts;
    }

    /// A packet of flow `f` left the network (delivered or dropped).
    #[inline]
    fn net_leave(&mut self, f: usize) {
        if !self.track_in_net {
            return;
        }
        let fl = &mut self.flows[f];
        fl.in_net -= 1;
        if fl.in_net == 0 {
            if let Some((w, j)) = fl.slot {
                self.slot_drained(w, j);
            }
        }
    }

    #[cold]
    fn slot_drained(&mut self, w: u32, j: u32) {
        let mut acts = std::mem::take(&mut self.actions);
        self.workloads[w as usize].on_drained(j, self.now, &mut acts);
        self.run_actions(w, &mut acts);
        self.actions = acts;
    }

    /// The fair share of a flow starting now in slot `f`: over the links of its data
    /// route, the least of link rate / flows sharing it. A link no other flow's data
    /// crosses (the slot's own access links) is not shared; on the others the flows
    /// are `metrics.fair_share_flows`, or the flows in progress now that cross it,
    /// this one included (the rule of `summary`'s ideal latencies).
    fn fair_share_at_start(&self, f: u32) -> (f64, u32) {
        let fixed = self.fair_share_flows;
        let mine = &self.paths[self.flows[f as usize].sender.data_path as usize];
        let mut count = vec![1u32; mine.len()];
        if fixed.is_none() {
            for (i, other) in self.flows.iter().enumerate() {
                let active = match other.slot {
                    Some((w, j)) => self.workloads[w as usize].slots[j as usize].busy,
                    None => other.started && other.receiver.completed_at.is_none(),
                };
                if i == f as usize || !active {
                    continue;
                }
                for l in &self.paths[other.sender.data_path as usize] {
                    for (h, m) in mine.iter().enumerate() {
                        if m == l {
                            count[h] += 1;
                        }
                    }
                }
            }
        }
        let (mut best, mut hop) = (f64::INFINITY, 0);
        for (h, l) in mine.iter().enumerate() {
            let shared = self.crossers[l.0 as usize] > 1;
            let n = match fixed {
                Some(m) if shared => m.max(1),
                Some(_) => 1,
                None => count[h],
            };
            let fair = self.links[l.0 as usize].rate.as_f64() / n as f64;
            if fair < best {
                (best, hop) = (fair, h as u32);
            }
        }
        (best, hop)
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
            let mut util = (busy - last) as f64 / iv.0 as f64;
            if link.dynamic() {
                // Against the capacity offered in the interval, not rate × interval.
                let (offered, used, _) = link.capacity_at(now);
                let (o0, u0) = std::mem::replace(&mut self.last_cap[l.0 as usize], (offered, used));
                util = if offered > o0 {
                    (used - u0) / (offered - o0)
                } else {
                    0.0
                };
            }
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
        for (i, fl) in self.flows.iter_mut().enumerate() {
            let b = fl.receiver.bytes_delivered;
            let thr = (b - fl.last_sample_bytes) as f64 * 8.0 / iv.as_secs_f64();
            fl.last_sample_bytes = b;
            self.series
                .push_flow(t, i as u32, SeriesMetric::Throughput, thr);
            self.series
                .push_flow(t, i as u32, SeriesMetric::Cwnd, fl.sender.cwnd());
            self.series
                .push_flow(t, i as u32, SeriesMetric::Ssthresh, fl.sender.ssthresh());
            // From the first RTT sample on (no row before: the series holds numbers).
            if let Some(srtt) = fl.sender.rtt.srtt() {
                self.series.push_flow(t, i as u32, SeriesMetric::Srtt, srtt);
            }
        }
        if now + iv <= self.duration {
            self.events.schedule(now + iv, Event::Sample);
        }
    }

    fn probe_tick(&mut self) {
        let mut samples = std::mem::take(&mut self.probe_scratch);
        samples.clear();
        samples.extend(self.flows.iter().map(|fl| ProbeSample {
            bytes: fl.receiver.bytes_delivered as f64,
            start: fl.start,
            started: fl.started,
            completed: fl.receiver.completed_at,
            slot: fl.slot.is_some(),
        }));
        self.probe.tick(self.now, &samples);
        self.probe_scratch = samples;
    }

    fn on_probe(&mut self) {
        let now = self.now;
        self.probe_tick();
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
                marks: link.queue.marks(),
                cap: link.capacity_at(now),
            };
            if let Some(h) = &mut link.sojourn {
                h.clear();
            }
        }
        for fl in &mut self.flows {
            fl.snap = fl.counters();
            fl.sender.rtt_samples.clear();
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
            self.probe_tick();
        }
        for link in &mut self.links {
            link.account(now);
        }
        self.ended = true;
    }

    /// The workload flow instances that finished so far.
    pub fn finished(&self) -> &[FlowRecord] {
        &self.finished
    }

    /// Packets inside the network now (queues and propagation).
    pub fn in_flight(&self) -> u64 {
        self.links.iter().map(|l| l.held()).sum()
    }
}
