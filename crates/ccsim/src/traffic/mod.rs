//! Dynamic TCP workloads: flows that come and go during a run.
//!
//! - `web` (study 000 §4.3): each of `nodes` source nodes carries one flow at a time;
//!   file sizes Pareto (shape 1.35, mean 30 packets by default), then an OFF time
//!   (exponential, mean 0.2 s by default) before the next file.
//! - `closed_loop` (study 001 §5.4): each of `nodes` node pairs sends a flow of
//!   `size`, and a new one a think time (exponential, mean 1 s by default) after the
//!   last completes. Mechanically the web source with other defaults.
//! - `poisson_flows` (study 003): finite TCP flows arriving as a Poisson process at
//!   an offered load ρ of the bottleneck, each on its own host pair whose access link
//!   caps its rate.
//!
//! Static flows (`[[flows]]`: staged, named, started from a distribution) are not
//! here: they are planned once by the topology builders.
//!
//! **Slots.** A workload owns a fixed set of flow slots (one per node, or the host
//! pool of `poisson_flows`), built with the topology. A slot runs one flow
//! *instance* at a time and is reused for the next, so memory stays bounded however
//! many flows a run creates. A slot is reused only once none of its packets is left
//! in the network (`Flow::in_net`), so a late duplicate or ACK of the last instance
//! can never reach the next one; timers of the old instance are discarded by their
//! generation. Every finished instance is kept as a compact `FlowRecord` (the rows
//! of the flow table).
//!
//! A flow is *finished* when its sender has every byte acknowledged; its FCT is
//! measured at the receiver (last byte delivered in order), as for static flows.

use crate::engine::{FlowSnap, World};
use crate::metrics::latency::{ideal_latency, segments, IdealPath};
use crate::net::topology::{size_bytes, TcpTemplate};
use crate::random::{exponential, stream, Dist, Rng};

use crate::scenario::workload::workload_name;
use crate::scenario::{WorkloadKind, WorkloadSpec};
use crate::sim::{Event, FlowId};
use crate::units::{Rate, Time};

/// Study 000 §4.3: Pareto file sizes, shape 1.35, mean 30 packets.
pub const WEB_SIZE: Dist = Dist::Pareto {
    shape: 1.35,
    mean: -30.0, // negative: packets (quantity::ByteSize)
};
/// Study 000 §4.3: exponential OFF time, mean 0.2 s.
pub const WEB_OFF: Dist = Dist::Exponential { mean: 0.2 };
/// Study 001 §5.4: exponential think time, mean 1 s.
pub const THINK: Dist = Dist::Exponential { mean: 1.0 };

/// Per-slot state, kept in the slot's `Flow`.
#[derive(Clone, Debug)]
pub struct Slot {
    pub workload: u32,
    /// Index of the slot within its workload (the node).
    pub index: u32,
    /// The node's own stream: first start, sizes, OFF times (web, closed loop).
    pub rng: Rng,
    /// An instance is running (started, not yet finished).
    pub busy: bool,
    /// The next instance is due but waits for the network to drain of this slot's
    /// packets.
    pub want_start: bool,
    /// Instances started in this slot so far.
    pub instances: u32,
    /// The current flow's fair rate (bit/s) when it started, and the hop of its data
    /// route that sets it (ideal latency).
    pub fair_rate: f64,
    pub fair_hop: u32,
}

impl Slot {
    pub fn new(workload: u32, index: u32, seed: u64) -> Self {
        Slot {
            workload,
            index,
            rng: stream(seed, &format!("workload/{workload}/node/{index}")),
            busy: false,
            want_start: false,
            instances: 0,
            fair_rate: f64::NAN,
            fair_hop: 0,
        }
    }
}

/// Runtime state of one workload.
pub struct Workload {
    pub name: String,
    pub kind: WorkloadKind,
    /// Flow size (negative: packets) and OFF/think time.
    pub size: Dist,
    pub off: Dist,
    pub start: Option<Dist>,
    pub stop: Time,
    /// poisson_flows: mean time between arrivals, s (ρ·C = λ·E[size]·8).
    pub mean_gap: f64,
    /// poisson_flows: the arrivals stream (times and sizes).
    pub rng: Rng,
    pub tmpl: TcpTemplate,
    /// Flow ids of the slots, and (poisson_flows) those idle now, lowest id last.
    pub slots: Vec<u32>,
    pub idle: Vec<u32>,
    /// The rate ρ refers to: the slowest link of the first slot's data route.
    pub capacity: Rate,
    /// Fixed number of flows for the ideal latency's fair share (metrics).
    pub fair_share_flows: Option<u32>,
    pub arrivals: u64,
    pub blocked: u64,
    /// Payload bytes of the flows started (offered), in total and within the
    /// measurement window.
    pub offered_bytes: u64,
    pub offered_bytes_window: u64,
    pub completed: u64,
    /// Times a node's next flow was due while packets of its last one were still in
    /// the network, and waited for them to drain.
    pub drain_waits: u64,
    /// Scratch of the fair-share count (reused, never per packet).
    scratch: Vec<u32>,
}

impl Workload {
    pub fn new(
        spec: &WorkloadSpec,
        w: usize,
        seed: u64,
        tmpl: TcpTemplate,
        slots: Vec<u32>,
        capacity: Rate,
    ) -> Self {
        let size = spec.size.as_ref().map_or(WEB_SIZE, |s| s.dist.clone());
        let off = spec.off.as_ref().map_or(
            if spec.kind == WorkloadKind::ClosedLoop {
                THINK
            } else {
                WEB_OFF
            },
            |d| d.dist.clone(),
        );
        let mean_bytes = {
            let m = size.mean();
            if m < 0.0 {
                -m * tmpl.cfg.mss as f64
            } else {
                m
            }
        };
        let lambda = spec.load.unwrap_or(0.0) * capacity.as_f64() / (8.0 * mean_bytes);
        let mut idle = slots.clone();
        idle.reverse();
        Workload {
            name: workload_name(spec, w),
            kind: spec.kind,
            size,
            off,
            start: spec.start.as_ref().map(|d| d.dist.clone()),
            stop: spec.stop.map_or(Time::MAX, |d| d.0),
            mean_gap: if lambda > 0.0 {
                1.0 / lambda
            } else {
                f64::INFINITY
            },
            rng: stream(seed, &format!("workload/{w}/arrivals")),
            tmpl,
            slots,
            idle,
            capacity,
            fair_share_flows: None,
            arrivals: 0,
            blocked: 0,
            offered_bytes: 0,
            offered_bytes_window: 0,
            completed: 0,
            drain_waits: 0,
            scratch: Vec::new(),
        }
    }
}

/// A finished flow instance of a workload: one row of the flow table.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    /// The slot's flow id.
    pub flow: u32,
    pub workload: u32,
    pub group: String,
    pub cc: String,
    pub reverse: bool,
    pub start: Time,
    /// Sender saw every byte acknowledged.
    pub finish: Time,
    pub rtt_prop: Time,
    pub size: u64,
    /// Counters within the measurement window.
    pub window: FlowSnap,
    /// Receiver got the last byte (FCT = completed − start).
    pub completed: Option<Time>,
    pub cwnd_final: f64,
    pub cwnd_at_first_drop: Option<f64>,
    pub flight_at_first_drop: Option<u64>,
    pub ideal_latency: f64,
}

/// `secs` after `now`, saturating (a huge draw lands after the end, never overflows).
fn after(now: Time, secs: f64) -> Time {
    Time(now.0.saturating_add(Time::from_secs_f64(secs).0))
}

/// Sentinel slot of an arrival event (poisson_flows).
pub const ARRIVAL: u32 = u32::MAX;

impl World {
    /// Schedule every workload's first events.
    pub(crate) fn prime_workloads(&mut self) {
        for w in 0..self.workloads.len() {
            let wl = &mut self.workloads[w];
            match wl.kind {
                WorkloadKind::PoissonFlows => {
                    let base = wl.start.as_ref().map_or(0.0, |d| d.sample(&mut wl.rng));
                    let at = base + exponential(&mut wl.rng, wl.mean_gap);
                    if at.is_finite() {
                        self.events.schedule(
                            Time::from_secs_f64(at.max(0.0)),
                            Event::Workload(w as u32, ARRIVAL),
                        );
                    }
                }
                WorkloadKind::Web | WorkloadKind::ClosedLoop => {
                    for k in 0..wl.slots.len() {
                        let f = wl.slots[k];
                        let slot = self.flows[f as usize].slot.as_mut().expect("a slot");
                        let at = wl.start.as_ref().map_or(0.0, |d| d.sample(&mut slot.rng));
                        self.events.schedule(
                            Time::from_secs_f64(at.max(0.0)),
                            Event::Workload(w as u32, f),
                        );
                    }
                }
            }
        }
    }

    /// A workload event: a Poisson arrival, or a node's next flow being due.
    pub(crate) fn on_workload(&mut self, w: u32, f: u32) {
        let now = self.now;
        let wl = &mut self.workloads[w as usize];
        if now >= wl.stop {
            return;
        }
        if f == ARRIVAL {
            let gap = exponential(&mut wl.rng, wl.mean_gap);
            let size_v = wl.size.sample(&mut wl.rng);
            self.events
                .schedule(after(now, gap), Event::Workload(w, ARRIVAL));
            wl.arrivals += 1;
            let idle = wl.idle.pop();
            match idle {
                Some(slot) => self.start_instance(w, slot, size_v),
                None => wl.blocked += 1,
            }
            return;
        }
        let draining = self.flows[f as usize].in_net > 0;
        let slot = self.flows[f as usize].slot.as_mut().expect("a slot");
        if slot.busy {
            return;
        }
        if draining {
            // Wait until the last instance's packets have left (see the module doc).
            slot.want_start = true;
            wl.drain_waits += 1;
            return;
        }
        slot.want_start = false;
        let size_v = wl.size.sample(&mut slot.rng);
        self.start_instance(w, f, size_v);
    }

    fn start_instance(&mut self, w: u32, f: u32, size_v: f64) {
        let now = self.now;
        let wl = &mut self.workloads[w as usize];
        let size = size_bytes(size_v, wl.tmpl.cfg.mss);
        wl.offered_bytes += size;
        if now >= self.warmup {
            wl.offered_bytes_window += size;
        }
        let (fair_rate, fair_hop) = self.fair_share_at_start(w, f);
        let wl = &mut self.workloads[w as usize];
        let fl = &self.flows[f as usize];
        let (sender, receiver) =
            wl.tmpl
                .endpoints(f, fl.sender.data_path, fl.receiver.ack_path, Some(size));
        let fl = &mut self.flows[f as usize];
        fl.reset_instance(sender, receiver, now, Some(size));
        let slot = fl.slot.as_mut().expect("a slot");
        slot.busy = true;
        slot.instances += 1;
        slot.fair_rate = fair_rate;
        slot.fair_hop = fair_hop;
        self.on_flow_start(FlowId(f));
    }

    /// Called after a slot's sender processed an ACK.
    #[inline]
    pub(crate) fn check_finished(&mut self, f: usize) {
        let fl = &self.flows[f];
        let Some(slot) = &fl.slot else { return };
        if !slot.busy || !fl.sender.done() {
            return;
        }
        let now = self.now;
        let w = slot.workload as usize;
        let ideal = self.instance_ideal(f);
        let fl = &mut self.flows[f];
        let slot = fl.slot.as_mut().expect("a slot");
        slot.busy = false;
        let rec = FlowRecord {
            flow: f as u32,
            workload: w as u32,
            group: fl.group.clone(),
            cc: fl.cc_name.clone(),
            reverse: fl.reverse,
            start: fl.start,
            finish: now,
            rtt_prop: fl.rtt_prop,
            size: fl.size_bytes.unwrap_or(0),
            window: FlowSnap::default(),
            completed: fl.receiver.completed_at,
            cwnd_final: fl.sender.cwnd(),
            cwnd_at_first_drop: fl.cwnd_at_first_drop,
            flight_at_first_drop: fl.flight_at_first_drop,
            ideal_latency: ideal,
        };
        let window = self.flow_window(f);
        self.finished.push(FlowRecord { window, ..rec });
        let wl = &mut self.workloads[w];
        wl.completed += 1;
        match wl.kind {
            WorkloadKind::PoissonFlows => {
                if self.flows[f].in_net == 0 {
                    self.workloads[w].idle.push(f as u32);
                }
            }
            WorkloadKind::Web | WorkloadKind::ClosedLoop => {
                let slot = self.flows[f].slot.as_mut().expect("a slot");
                let off = wl.off.sample(&mut slot.rng).max(0.0);
                self.events
                    .schedule(after(now, off), Event::Workload(w as u32, f as u32));
            }
        }
    }

    /// A packet of flow `f` left the network (delivered or dropped).
    #[inline]
    pub(crate) fn net_leave(&mut self, f: usize) {
        if !self.track_in_net {
            return;
        }
        let fl = &mut self.flows[f];
        fl.in_net -= 1;
        if fl.in_net == 0 {
            if let Some(slot) = &mut fl.slot {
                if !slot.busy && slot.instances > 0 {
                    self.slot_drained(f);
                }
            }
        }
    }

    #[cold]
    fn slot_drained(&mut self, f: usize) {
        let slot = self.flows[f].slot.as_mut().expect("a slot");
        let w = slot.workload;
        match self.workloads[w as usize].kind {
            WorkloadKind::PoissonFlows => self.workloads[w as usize].idle.push(f as u32),
            _ => {
                if slot.want_start {
                    // Not from inside a drop or a delivery: start it as its own event.
                    self.events.schedule(self.now, Event::Workload(w, f as u32));
                }
            }
        }
    }

    /// The fair share of a flow starting now in slot `f`: over the links of its data
    /// route, the least of link rate / flows sharing it. A link no other flow's data
    /// crosses (the slot's own access links) is not shared; on the others the flows
    /// are `metrics.fair_share_flows`, or the flows in progress now that cross it,
    /// this one included — the rule of `metrics::report::ideal_latencies`.
    fn fair_share_at_start(&mut self, w: u32, f: u32) -> (f64, u32) {
        let fixed = self.workloads[w as usize].fair_share_flows;
        let mine = &self.paths[self.flows[f as usize].sender.data_path as usize];
        let mut count = std::mem::take(&mut self.workloads[w as usize].scratch);
        count.clear();
        count.resize(mine.len(), 1);
        if fixed.is_none() {
            for (i, other) in self.flows.iter().enumerate() {
                let active = match &other.slot {
                    Some(s) => s.busy,
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
        self.workloads[w as usize].scratch = count;
        (best, hop)
    }

    /// Study 001's ideal latency of the flow in slot `f` (metrics/latency.rs) at the
    /// fair share it had when it started.
    pub(crate) fn instance_ideal(&self, f: usize) -> f64 {
        let fl = &self.flows[f];
        let Some(slot) = &fl.slot else {
            return f64::NAN;
        };
        let Some(size) = fl.size_bytes else {
            return f64::NAN;
        };
        if !(slot.fair_rate > 0.0 && slot.fair_rate.is_finite()) {
            return f64::NAN;
        }
        let cfg = &fl.sender.cfg;
        let pkt_bits = (cfg.mss + cfg.header) as f64 * 8.0;
        let ack_bits = cfg.header as f64 * 8.0;
        let (mut rtt, mut one_way) = (0.0, 0.0);
        let data = &self.paths[fl.sender.data_path as usize];
        for l in data {
            let link = &self.links[l.0 as usize];
            let tx = pkt_bits / link.rate.as_f64();
            rtt += link.delay.as_secs_f64() + tx;
            one_way += link.delay.as_secs_f64() + tx;
        }
        for l in &self.paths[fl.receiver.ack_path as usize] {
            let link = &self.links[l.0 as usize];
            rtt += link.delay.as_secs_f64() + ack_bits / link.rate.as_f64();
        }
        // The fair-share link's serialization is in the spacing, not in D.
        let Some(l) = data.get(slot.fair_hop as usize) else {
            return f64::NAN;
        };
        one_way -= pkt_bits / self.links[l.0 as usize].rate.as_f64();
        let p = IdealPath {
            rtt,
            spacing: pkt_bits / slot.fair_rate,
            one_way,
        };
        ideal_latency(segments(size, cfg.mss), cfg.init_cwnd.max(1.0), &p)
    }
}

/// Rows of the flow table for the workloads: every finished flow, then the ones
/// still running at the end (window counters as of now).
pub fn workload_rows(w: &World) -> Vec<FlowRecord> {
    let mut rows = w.finished.clone();
    for (i, fl) in w.flows.iter().enumerate() {
        let Some(slot) = &fl.slot else { continue };
        if !slot.busy {
            continue;
        }
        rows.push(FlowRecord {
            flow: i as u32,
            workload: slot.workload,
            group: fl.group.clone(),
            cc: fl.cc_name.clone(),
            reverse: fl.reverse,
            start: fl.start,
            finish: Time::MAX,
            rtt_prop: fl.rtt_prop,
            size: fl.size_bytes.unwrap_or(0),
            window: w.flow_window(i),
            completed: fl.receiver.completed_at,
            cwnd_final: fl.sender.cwnd(),
            cwnd_at_first_drop: fl.cwnd_at_first_drop,
            flight_at_first_drop: fl.flight_at_first_drop,
            ideal_latency: w.instance_ideal(i),
        });
    }
    rows
}

/// `summary.workloads`: per workload, arrivals and flows, and the offered load over
/// the measurement window (payload bytes of the flows started in it / (capacity ·
/// window)).
pub fn summary(w: &World) -> serde_json::Value {
    let win = (w.now.saturating_sub(w.warmup)).as_secs_f64();
    let list: Vec<serde_json::Value> = w
        .workloads
        .iter()
        .map(|wl| {
            serde_json::json!({
                "name": wl.name,
                "kind": match wl.kind {
                    WorkloadKind::Web => "web",
                    WorkloadKind::ClosedLoop => "closed_loop",
                    WorkloadKind::PoissonFlows => "poisson_flows",
                },
                "slots": wl.slots.len(),
                "arrivals": wl.arrivals,
                "blocked": wl.blocked,
                "started": wl.slots.iter().map(|&f| {
                    w.flows[f as usize].slot.as_ref().map_or(0, |s| s.instances as u64)
                }).sum::<u64>(),
                "completed": wl.completed,
                "drain_waits": wl.drain_waits,
                "offered_bytes": wl.offered_bytes,
                "capacity_bps": wl.capacity.as_f64(),
                "offered_load": if win > 0.0 {
                    wl.offered_bytes_window as f64 * 8.0 / (wl.capacity.as_f64() * win)
                } else {
                    f64::NAN
                },
            })
        })
        .collect();
    serde_json::Value::Array(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Study 000 §4.3's file sizes: Pareto with tail index α = 1.35 and mean 30
    /// packets, so scale x_m = 30·(α−1)/α. The mean itself has infinite variance
    /// (α < 2), so it is checked through quantities with finite variance:
    /// - the survival function P(X > x) = (x_m/x)^α at several x (binomial error);
    /// - the truncated mean E[min(X, c)] = x_m·α/(α−1) − c·(x_m/c)^α/(α−1), which
    ///   with the closed-form tail E[(X−c)+] = c·(x_m/c)^α/(α−1) adds up to the mean;
    /// - the Hill estimator of α over the top k order statistics (s.e. α/√k).
    #[test]
    fn web_sizes_are_pareto_with_the_studys_mean_and_tail() {
        let (alpha, mean) = (1.35, 30.0);
        let xm = mean * (alpha - 1.0) / alpha;
        let mut rng = stream(11, "web-size-test");
        let n = 400_000usize;
        // Sizes in packets (the spec's negative convention).
        let mut x: Vec<f64> = (0..n).map(|_| -WEB_SIZE.sample(&mut rng)).collect();
        assert!(x.iter().all(|&v| v >= xm * (1.0 - 1e-12)));
        for &q in &[2.0 * xm, 10.0 * xm, 100.0 * xm] {
            let p = (xm / q).powf(alpha);
            let got = x.iter().filter(|&&v| v > q).count() as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((got - p).abs() < 4.0 * se, "P(X > {q}) = {got}, theory {p}");
        }
        let c = 1000.0 * xm;
        let tail = c * (xm / c).powf(alpha) / (alpha - 1.0);
        let trunc_theory = mean - tail;
        let t: Vec<f64> = x.iter().map(|&v| v.min(c)).collect();
        let m = t.iter().sum::<f64>() / n as f64;
        let var = t.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1) as f64;
        let se = (var / n as f64).sqrt();
        assert!(
            (m - trunc_theory).abs() < 4.0 * se,
            "E[min(X, c)] = {m}, theory {trunc_theory} ± {se}"
        );
        assert!((trunc_theory + tail - mean).abs() < 1e-9);
        // Hill: 1/α̂ = mean of ln(X_(i)/X_(k+1)) over the k largest.
        x.sort_unstable_by(|a, b| b.partial_cmp(a).expect("finite"));
        let k = 4000;
        let h = (0..k).map(|i| (x[i] / x[k]).ln()).sum::<f64>() / k as f64;
        let a_hat = 1.0 / h;
        assert!(
            (a_hat - alpha).abs() < 4.0 * alpha / (k as f64).sqrt(),
            "Hill estimate {a_hat}, α = {alpha}"
        );
    }

    /// OFF times: exponential with mean 0.2 s (s.e. of the mean 0.2/√n).
    #[test]
    fn web_off_times_have_the_studys_mean() {
        let mut rng = stream(3, "web-off-test");
        let n = 200_000;
        let m = (0..n).map(|_| WEB_OFF.sample(&mut rng)).sum::<f64>() / n as f64;
        assert!((m - 0.2).abs() < 4.0 * 0.2 / (n as f64).sqrt(), "{m}");
    }
}
