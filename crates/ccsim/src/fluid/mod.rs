//! The fluid engine (docs/fluid.md): per flow a window W_i(t) and an
//! RTT R_i(t) = propagation + queueing delay, per link a queue q_l(t) with its buffer
//! limit, the Misra–Gong–Towsley equations with delayed feedback (history buffers), the
//! drop-tail (study 004 eq. 5) or RED loss law, per algorithm its increase/decrease law
//! (the rate form in `cc/`, `cc::fluid_law`), and the loss-synchronization module of
//! study 004 §4.3 (`sync`).
//!
//! Units inside: windows in packets (segments), rates and queues in bytes, time in
//! seconds. Integration is a fixed-step explicit scheme with an exact per-step mass
//! balance at the queues (so queues stay in [0, limit] and bytes are conserved).
//! See docs/fluid.md for the equations and the choices made.

pub mod sync;

use crate::cc::{fluid_law, AnyFluidLaw, FluidLaw};
use crate::error::{RunError, ScenarioError};
use crate::metrics::hist::DelayHist;
use crate::metrics::probe::{Probe, ProbeConfig, ProbeSample};
use crate::metrics::sync::{default_gap, EventGrouper};
use crate::net::{limit_text, Owner, Plan};
use crate::queue::red::{Red, RedConfig, RedMode};
use crate::queue::{Limit, QueueSpec};
use crate::random::{stream, Rng};
use crate::records::{
    Capacity, EngineKind, FlowCounts, FlowRecord, LinkCounts, LinkRecord, QueueBalance, Records,
    RunInfo, SeriesBuf, SeriesMetric,
};
use crate::scenario::fluid::{Cut, FluidSpec, Level, Policy};
use crate::scenario::Scenario;
use crate::units::Time;

/// Integration step for a scenario. Default: min propagation RTT / 100. Why: the
/// feedback delays are realized to the nearest step, so the RTT error is ≤ 0.5 %; the
/// per-step window change is ≤ 1 % (slow start doubles per RTT: e^{1/100} per step)
/// or ~1/100 packet (AIMD), so the explicit scheme's error is well below the
/// sawtooth's amplitude; and an event lasting one RTT spans ~100 steps, enough to
/// resolve which flow is fastest at the congestion instant. Halving the step moves
/// the validation figures by < 0.2 points (tests/fluid.rs checks this).
pub fn step_for(spec: Option<&FluidSpec>, min_rtt: f64) -> f64 {
    match spec.and_then(|f| f.step) {
        Some(d) => d.0.as_secs_f64(),
        None => (min_rtt / 100.0).max(1e-6),
    }
}

/// RED in the fluid model (Misra, Gong, Towsley 2000 §3: the average queue as an
/// EWMA of the queue, the drop probability as RED's function of it). The probability
/// law is the packet discipline's own (`Red::p_b`: linear to max_p, gentle, byte mode),
/// on the average in the thresholds' unit (packets or bytes), as queue/red.rs keeps it.
struct FluidRed {
    law: Red,
    in_bytes: bool,
    byte_mode: bool,
    /// ln(1 − w_q).
    ln_1mw: f64,
    /// Bytes of a `mean_size` packet (the unit of the idle-time decay).
    mean_size: f64,
}

impl FluidRed {
    fn new(cfg: &RedConfig, rate_bps: f64) -> Self {
        FluidRed {
            law: Red::new(
                cfg.clone(),
                Limit::Packets(0),
                crate::units::Rate(rate_bps as u64),
            ),
            in_bytes: cfg.min_th.in_bytes(),
            byte_mode: cfg.mode == RedMode::Byte,
            ln_1mw: (1.0 - cfg.w_q).ln(),
            mean_size: cfg.mean_size as f64,
        }
    }

    /// The fraction of a flow's arrivals RED drops at average `avg`, packets of `size`
    /// bytes. Below the forced region RED spaces its drops uniformly (Floyd–Jacobson
    /// §7, p_a = p_b/(1 − count·p_b)): the gap is uniform on {1, …, 1/p_b − 1}, so the
    /// fraction dropped is 2·p_b, not the p_b of MGT's fluid model; we use 2·p_b so that
    /// the two engines drop the same share (queue/red.rs tests this fraction).
    #[inline]
    fn drop_fraction(&self, avg: f64, size: f64) -> f64 {
        let pb = self.law.p_b(avg, size as u32);
        if pb >= 1.0 {
            1.0
        } else {
            (2.0 * pb).min(1.0)
        }
    }
}

/// A flow of the fluid model.
struct FlowM {
    /// Flow id and its routes in the plan (records).
    id: u32,
    data_path: u32,
    ack_path: u32,
    header: u32,
    law: AnyFluidLaw,
    group: String,
    cc: String,
    reverse: bool,
    /// Bytes on the wire per packet, payload per packet.
    size: f64,
    mss: f64,
    /// Two-way propagation delay (s) and start time.
    prop: f64,
    start: f64,
    /// `start` as the plan gives it (probe samples and records take it as is).
    start_at: Time,
    init_cwnd: f64,
    w: f64,
    ssthresh: f64,
    w_cap: f64,
    started: bool,
    /// Current RTT and sending rate (bytes/s).
    rtt: f64,
    /// Links crossed, in order (see `Model::set_route`).
    route: Vec<usize>,
    /// History of the sending rate, indexed by step modulo its length (`h_pos` is the
    /// current step's slot; kept as a counter to avoid a division per step).
    rate_hist: Vec<f64>,
    h_pos: usize,
    /// Loss calendar: bytes lost at a queue, filed under the step at which the sender
    /// learns of them (one feedback delay later).
    cal: Vec<f64>,
    c_pos: usize,
    /// No second reduction before this time (one per RTT).
    next_reduce: f64,
    /// RED: lost packets not yet turned into a loss indication (integrate-and-fire).
    red_acc: f64,
    // Measurement (from warmup on).
    accepted: f64,
    lost: f64,
    loss_events: u64,
    first_drop_cwnd: f64,
    sample_accepted: f64,
    /// Bytes (on the wire) accepted at the last queue since the start: the CoV
    /// probe's counter.
    delivered_total: f64,
    /// The RTT on the measurement grid (`MEASURE_EVERY` steps), from warmup on.
    rtt_hist: DelayHist,
}

#[derive(Clone)]
struct LinkM {
    /// The link's id in the plan.
    id: u32,
    /// Capacity in bytes/s, buffer limit in bytes, queue in bytes.
    cap: f64,
    qmax: f64,
    q: f64,
    avg: f64,
    /// Mean packet size on this link (bytes), for packet-unit reports.
    pkt: f64,
    /// The flows crossing this link; per flow (same index k): the one-way propagation
    /// delay from its sender to this queue, in steps and in seconds, and whether this
    /// is the last link of its route (where its goodput is counted).
    flows: Vec<usize>,
    up_steps: Vec<usize>,
    up_s: Vec<f64>,
    last: Vec<bool>,
    arr: Vec<f64>,
    loss: Vec<f64>,
    /// Length of a congestion event before a new one is drawn (one mean RTT).
    event_span: f64,
    in_event: bool,
    event_start: f64,
    selected: Vec<usize>,
    scratch: Vec<usize>,
    // Measurement over the window (bytes, byte·s).
    departed: f64,
    arrived: f64,
    dropped_aqm: f64,
    dropped_overflow: f64,
    q_area: f64,
    q_max: f64,
    /// Σ over the window of (queue · bytes departing), byte²; over C, the total
    /// queueing delay of the departed bytes.
    sojourn: f64,
    /// Over the whole run: the queue's balance, bytes.
    arrived_all: f64,
    departed_all: f64,
    dropped_all: f64,
    sample_departed: f64,
    sample_dropped: f64,
    /// Congestion events at this queue (the metric, as the packet engine groups them).
    grouper: EventGrouper,
    /// Queueing delay q/C on the measurement grid, from warmup on (time-weighted).
    sojourn_hist: DelayHist,
    /// Capacity offered over the window before the current capacity's epoch, bytes,
    /// and the step that epoch began; the rate changed during the run.
    offered: f64,
    cap_from: u64,
    rate_changes: bool,
    /// The longest queueing delay the run can see (largest limit over the smallest
    /// capacity, events included): sizes the loss calendars.
    qdelay_max: f64,
}

struct Model {
    flows: Vec<FlowM>,
    links: Vec<LinkM>,
    dt: f64,
    steps: u64,
    warmup: f64,
    duration: f64,
    sample: Option<f64>,
    level: Level,
    min_level: f64,
    policy: Policy,
    /// `fluid.cut`: once per RTT (TCP, default) or per lost packet (eq. 2).
    per_packet: bool,
    red: Option<FluidRed>,
    /// `metrics.sync_gap`: the congestion-event span, in place of one mean RTT.
    sync_gap: Option<f64>,
    rng: Rng,
    /// The CoV and convergence probe (as in the packet engine).
    probe: Probe,
    /// Scheduled changes (`[[events]]`, flow stops), in time order.
    changes: Vec<(f64, Change)>,
    /// The first step in the measurement window (t = n·dt ≥ warmup).
    warm_step: u64,
    /// The next change (index, step) and the next step of the delay grid.
    next_change: usize,
    next_change_n: u64,
    next_measure_n: u64,
}

/// A scheduled change of the model.
#[derive(Clone, Copy, Debug)]
enum Change {
    /// A link (model index) gets a new capacity, bytes/s.
    Cap(usize, f64),
    /// A link gets a new buffer limit, bytes.
    Limit(usize, f64),
    /// A flow stops sending.
    Stop(usize),
}

/// The RTT and queueing-delay distributions are sampled every this many steps (the
/// shortest RTT at the default step): time-weighted, at a cost per step that does not
/// show.
const MEASURE_EVERY: u64 = 100;

/// Steps of [from, to) at or after the first measured step `warm`.
fn steps_in(from: u64, to: u64, warm: u64) -> u64 {
    to.saturating_sub(from.max(warm))
}

/// A flow's route: (link, one-way propagation delay from the sender to its queue, s).
type Route = Vec<(usize, f64)>;

/// `cut = "per_packet"`: the window after `n` lost packets (n may be fractional: the
/// fluid loss mass of a step, in packets) when one loss takes `w` to `once` (the law's
/// own decrease, W·(1 − b)). Study 004 eq. (2), dW/dt = … − W·b·λ, applied per lost
/// packet: each packet W ← (1 − b)·W, so W·(1 − b)^n; to first order in n this is
/// eq. (2)'s −W·b·n. Not below the law's floor (2 packets, or W if already below).
#[inline]
pub(crate) fn per_packet_cut(w: f64, once: f64, n: f64) -> f64 {
    if w.is_nan() || w <= 0.0 || n <= 0.0 {
        return w;
    }
    (w * (once / w).powf(n)).max(w.min(2.0))
}

impl Model {
    /// The fluid model of a scenario's plan: a queue at every link the topology
    /// reports (a dumbbell's bottleneck pair, a parking lot's middle links, both
    /// directions), the other links pure delay. Starts, RTTs, routes and buffers are
    /// the plan's, so the two engines run the same network.
    fn build(sc: &Scenario, plan: &Plan, seed: u64) -> Result<(Model, Vec<Route>), ScenarioError> {
        let mut links = Vec::with_capacity(plan.monitored.len());
        let mut fluid_of = vec![usize::MAX; plan.links.len()];
        for &l in &plan.monitored {
            let lp = &plan.links[l.0 as usize];
            fluid_of[l.0 as usize] = links.len();
            let rate_bps = lp.rate.as_f64();
            let qmax = match lp.limit {
                Limit::Packets(n) => n as f64 * lp.packet_size,
                Limit::Bytes(b) => b as f64,
            };
            let gap = match sc.metrics.sync_gap {
                Some(d) => d.0,
                None => default_gap(
                    plan.flows
                        .iter()
                        .filter(|f| plan.paths[f.data_path as usize].contains(&l))
                        .map(|f| f.rtt_prop),
                    plan.info.mean_rtt,
                ),
            };
            links.push(LinkM {
                id: l.0,
                cap: rate_bps / 8.0,
                qmax,
                q: 0.0,
                avg: 0.0,
                pkt: lp.packet_size,
                flows: Vec::new(),
                up_steps: Vec::new(),
                up_s: Vec::new(),
                last: Vec::new(),
                arr: Vec::new(),
                loss: Vec::new(),
                event_span: 0.0,
                in_event: false,
                event_start: 0.0,
                selected: Vec::new(),
                scratch: Vec::new(),
                departed: 0.0,
                arrived: 0.0,
                dropped_aqm: 0.0,
                dropped_overflow: 0.0,
                q_area: 0.0,
                q_max: 0.0,
                sojourn: 0.0,
                arrived_all: 0.0,
                departed_all: 0.0,
                dropped_all: 0.0,
                sample_departed: 0.0,
                sample_dropped: 0.0,
                grouper: EventGrouper::new(l.0, gap),
                sojourn_hist: DelayHist::new(),
                offered: 0.0,
                cap_from: 0,
                rate_changes: false,
                qdelay_max: qmax / (rate_bps / 8.0),
            });
        }
        let mut flows = Vec::with_capacity(plan.flows.len());
        let mut routes = Vec::with_capacity(plan.flows.len());
        for (i, p) in plan.flows.iter().enumerate() {
            let Owner::Group(g) = p.owner else {
                unreachable!("the scenario check refuses workloads in the fluid engine")
            };
            let cc = &sc.flows[g].cc;
            let mut law = fluid_law(&cc.name, &cc.params, plan.templates[p.template].profile)
                .map_err(|e| ScenarioError::at(&format!("flows[{g}].cc"), e))?;
            let cfg = &plan.templates[p.template].cfg;
            let size = (cfg.mss + cfg.header) as f64;
            let prop = p.rtt_prop.as_secs_f64();
            let start = p.start.as_secs_f64();
            law.start(start, prop);
            // The route: the queues on the data path, each with the propagation
            // delay from the sender to it.
            let mut up = Time::ZERO;
            let mut route = Vec::new();
            for &l in &plan.paths[p.data_path as usize] {
                let k = fluid_of[l.0 as usize];
                if k != usize::MAX {
                    route.push((k, up.as_secs_f64()));
                }
                up += plan.links[l.0 as usize].delay;
            }
            routes.push(route);
            flows.push(FlowM {
                id: i as u32,
                data_path: p.data_path,
                ack_path: p.ack_path,
                header: cfg.header,
                law,
                group: p.group.clone(),
                cc: p.cc.clone(),
                reverse: p.reverse,
                size,
                mss: cfg.mss as f64,
                prop,
                start,
                start_at: p.start,
                init_cwnd: cfg.init_cwnd,
                w: 0.0,
                ssthresh: cfg.init_ssthresh,
                w_cap: if cfg.rwnd == u64::MAX {
                    f64::INFINITY
                } else {
                    (cfg.rwnd as f64).max(1.0)
                },
                started: false,
                rtt: prop,
                route: Vec::new(),
                rate_hist: vec![0.0],
                h_pos: 0,
                cal: vec![0.0],
                c_pos: 0,
                next_reduce: 0.0,
                red_acc: 0.0,
                accepted: 0.0,
                lost: 0.0,
                loss_events: 0,
                first_drop_cwnd: f64::NAN,
                sample_accepted: 0.0,
                delivered_total: 0.0,
                rtt_hist: DelayHist::new(),
            });
        }
        // Scheduled changes: link events on modelled links (the scenario check refused
        // delay and loss changes), and flow stops.
        let mut changes: Vec<(f64, Change)> = Vec::new();
        for ch in &plan.events {
            let k = fluid_of[ch.link as usize];
            if k == usize::MAX {
                return Err(ScenarioError(format!(
                    "engine = \"fluid\" models only the topology's reported links; link \"{}\" of an event is not one of them",
                    plan.links[ch.link as usize].name
                )));
            }
            let at = ch.at.as_secs_f64();
            let l = &mut links[k];
            if let Some(r) = ch.rate {
                changes.push((at, Change::Cap(k, r.as_f64() / 8.0)));
                l.rate_changes = true;
            }
            if let Some(b) = ch.buffer {
                let q = match b {
                    Limit::Packets(n) => n as f64 * l.pkt,
                    Limit::Bytes(b) => b as f64,
                };
                changes.push((at, Change::Limit(k, q)));
            }
        }
        for l in links.iter_mut() {
            let k = l.id;
            let caps = plan.events.iter().filter(|c| c.link == k);
            let min_cap = caps
                .clone()
                .filter_map(|c| c.rate)
                .map(|r| r.as_f64() / 8.0)
                .fold(l.cap, f64::min);
            let max_q = caps
                .filter_map(|c| c.buffer)
                .map(|b| match b {
                    Limit::Packets(n) => n as f64 * l.pkt,
                    Limit::Bytes(b) => b as f64,
                })
                .fold(l.qmax, f64::max);
            l.qdelay_max = max_q / min_cap;
        }
        for (i, p) in plan.flows.iter().enumerate() {
            if let Some(t) = p.stop {
                changes.push((t.as_secs_f64(), Change::Stop(i)));
            }
        }
        changes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let min_rtt = flows.iter().map(|f| f.prop).fold(f64::INFINITY, f64::min);
        let dt = step_for(
            sc.fluid.as_ref(),
            if min_rtt.is_finite() { min_rtt } else { 0.1 },
        );
        let fs = sc.fluid.clone().unwrap_or_default();
        let sy = fs.sync.clone().unwrap_or_default();
        let m = &sc.metrics;
        let (sample, per_window, conv_every, fraction) = m.resolve()?;
        let reference = m
            .converge_to
            .as_ref()
            .and_then(|name| plan.flows.iter().position(|f| &f.group == name));
        let probe = Probe::new(ProbeConfig {
            sample,
            per_window,
            conv_every,
            fraction,
            reference,
            warmup: sc.warmup.0,
            series: sc.sample_interval.is_some(),
        });
        let model = Model {
            flows,
            links,
            dt,
            steps: (sc.duration.0.as_secs_f64() / dt).ceil() as u64,
            warmup: sc.warmup.0.as_secs_f64(),
            duration: sc.duration.0.as_secs_f64(),
            sample: sc.sample_interval.map(|d| d.0.as_secs_f64()),
            level: sy.level(),
            min_level: sy.min_level.unwrap_or(0.0),
            policy: sy.policy,
            per_packet: fs.cut == Cut::PerPacket,
            red: match &sc.topology.queue {
                QueueSpec::Red(cfg) => Some(FluidRed::new(cfg, sc.topology.rate().as_f64())),
                // The scenario check lets only drop-tail and RED through.
                _ => None,
            },
            sync_gap: sc.metrics.sync_gap.map(|d| d.0.as_secs_f64()),
            rng: stream(seed, "fluid/sync"),
            probe,
            changes,
            warm_step: 0,
            next_change: 0,
            next_change_n: u64::MAX,
            next_measure_n: u64::MAX,
        };
        let mut model = model;
        // The loop's own test, t = n·dt ≥ warmup, so that the capacity offered counts
        // exactly the steps whose departures are counted.
        let mut w = ((model.warmup / dt).ceil().max(0.0)) as u64;
        while w > 0 && (w - 1) as f64 * dt >= model.warmup {
            w -= 1;
        }
        while (w as f64) * dt < model.warmup {
            w += 1;
        }
        model.warm_step = w;
        Ok((model, routes))
    }

    /// The model with every flow on its route.
    fn routed(sc: &Scenario, plan: &Plan, seed: u64) -> Result<Model, ScenarioError> {
        let (mut m, routes) = Model::build(sc, plan, seed)?;
        for (i, r) in routes.iter().enumerate() {
            m.set_route(i, r);
        }
        m.finish_links();
        Ok(m)
    }
}

impl Model {
    /// Put flow `i` (not yet routed) on `route`: the links it crosses in order, each
    /// with the one-way propagation delay (s) from the sender to that link's queue.
    /// Sizes the flow's history buffers: the rate history reaches the farthest queue,
    /// the loss calendar a full RTT with every queue on the route full.
    fn set_route(&mut self, i: usize, route: &[(usize, f64)]) {
        debug_assert!(self.flows[i].route.is_empty(), "flow {i} routed twice");
        let dt = self.dt;
        let mut max_up = 0;
        let mut max_q_delay = 0.0;
        for (n, &(li, up)) in route.iter().enumerate() {
            let l = &mut self.links[li];
            let steps = (up / dt).round() as usize;
            max_up = max_up.max(steps);
            max_q_delay += l.qdelay_max;
            l.flows.push(i);
            l.up_steps.push(steps);
            l.up_s.push(up);
            l.last.push(n + 1 == route.len());
        }
        let f = &mut self.flows[i];
        f.route = route.iter().map(|&(l, _)| l).collect();
        f.rate_hist = vec![0.0; max_up + 1];
        f.cal = vec![0.0; ((f.prop + max_q_delay) / dt).ceil() as usize + 3];
    }

    /// After the routes: size the per-link scratch and each link's congestion-event
    /// span: `metrics.sync_gap`, by default one mean RTT of its flows (losses further
    /// apart are separate events, the grouping of docs/metrics.md's synchronization).
    fn finish_links(&mut self) {
        for l in self.links.iter_mut() {
            let n = l.flows.len();
            l.arr = vec![0.0; n];
            l.loss = vec![0.0; n];
            let mean_prop = if n > 0 {
                l.flows.iter().map(|&i| self.flows[i].prop).sum::<f64>() / n as f64
            } else {
                0.0
            };
            l.event_span = self.sync_gap.unwrap_or(mean_prop + l.qmax / l.cap);
        }
    }

    /// Integrate to the end; `progress` gets the fraction done and may stop the run.
    fn integrate(
        &mut self,
        progress: &mut dyn FnMut(f64) -> bool,
        series: &mut SeriesBuf,
    ) -> Result<(), RunError> {
        let dt = self.dt;
        let report_every = (self.steps / 100).max(1);
        let mut countdown = 0u64;
        let mut qdelay = vec![0.0; self.links.len()];
        let mut next_sample = self.sample.unwrap_or(f64::INFINITY);
        let mut last_sample_t = self.warmup.min(0.0);
        // Probe ticks at exact multiples of its interval, as in the packet engine.
        // (its next tick kept in seconds too, so that a step costs one comparison).
        let probe_iv = self.probe.interval();
        let end = Time::from_secs_f64(self.duration);
        let mut probe_at = probe_iv.filter(|&iv| iv <= end);
        let mut probe_at_s = probe_at.map_or(f64::INFINITY, |t| t.as_secs_f64());
        let mut samples = Vec::with_capacity(self.flows.len());
        // Scheduled changes and the delay-distribution grid share one test per step:
        // the next step at which either is due (handled out of line).
        self.next_change_n = self.change_step(0);
        self.next_measure_n = self.warm_step;
        let mut next_cold = self.next_change_n.min(self.next_measure_n);
        // A local: `cold_step` takes the model mutably, so a field would be reloaded
        // on every step.
        let warmup = self.warmup;
        // One countdown per step serves the progress report, the changes and the
        // delay grid: it runs out at the first step at which any of them is due.
        let mut next_report = 0u64;
        for n in 0..self.steps {
            let t = n as f64 * dt;
            let measuring = t >= warmup;
            if countdown == 0 {
                if n >= next_cold {
                    next_cold = self.cold_step(n);
                }
                if n >= next_report {
                    next_report = n + report_every;
                    if !progress(n as f64 / self.steps as f64) {
                        return Err(RunError::Interrupted);
                    }
                }
                countdown = next_report.min(next_cold) - n;
            }
            countdown -= 1;
            for (d, l) in qdelay.iter_mut().zip(&self.links) {
                *d = l.q / l.cap;
            }
            self.step_flows(t, &qdelay, measuring);
            self.step_links(t, measuring);
            for f in self.flows.iter_mut() {
                f.h_pos += 1;
                if f.h_pos == f.rate_hist.len() {
                    f.h_pos = 0;
                }
                f.c_pos += 1;
                if f.c_pos == f.cal.len() {
                    f.c_pos = 0;
                }
            }
            let t_end = t + dt;
            if t_end + 1e-12 >= next_sample {
                self.sample_into(series, next_sample, next_sample - last_sample_t);
                last_sample_t = next_sample;
                next_sample += self.sample.unwrap();
            }
            if t_end + 1e-12 >= probe_at_s {
                let (Some(at), Some(iv)) = (probe_at, probe_iv) else {
                    unreachable!("a finite tick time has a tick")
                };
                samples.clear();
                samples.extend(self.flows.iter().map(|f| ProbeSample {
                    // Bytes on the wire accepted at the last queue, as payload.
                    bytes: f.delivered_total * f.mss / f.size,
                    start: f.start_at,
                    started: f.started,
                    completed: None,
                    slot: false,
                }));
                self.probe.tick(at, &samples);
                probe_at = Some(at + iv).filter(|&t| t <= end);
                probe_at_s = probe_at.map_or(f64::INFINITY, |t| t.as_secs_f64());
            }
        }
        progress(1.0);
        Ok(())
    }

    /// The step at which change `k` applies (`u64::MAX`: none).
    fn change_step(&self, k: usize) -> u64 {
        self.changes.get(k).map_or(u64::MAX, |c| {
            ((c.0 / self.dt) - 1e-9).ceil().max(0.0) as u64
        })
    }

    /// At step `n`, the changes and the delay sample that are due; the next step at
    /// which one is.
    #[inline(never)]
    fn cold_step(&mut self, n: u64) -> u64 {
        if n >= self.next_change_n {
            self.next_change = self.apply_changes(self.next_change, n, self.dt);
            self.next_change_n = self.change_step(self.next_change);
        }
        if n >= self.next_measure_n {
            self.measure_delays();
            self.next_measure_n += MEASURE_EVERY;
        }
        self.next_change_n.min(self.next_measure_n)
    }

    /// Apply the changes due by step `n`, from index `k`; the index of the next one.
    #[cold]
    fn apply_changes(&mut self, mut k: usize, n: u64, dt: f64) -> usize {
        while k < self.changes.len() && self.change_step(k) <= n {
            let ch = self.changes[k].1;
            match ch {
                Change::Cap(l, c) => {
                    let w = self.warm_step;
                    let l = &mut self.links[l];
                    l.offered += l.cap * dt * steps_in(l.cap_from, n, w) as f64;
                    l.cap_from = n;
                    l.cap = c;
                }
                Change::Limit(l, q) => self.links[l].qmax = q,
                // Its rate is zero from now on (as before its start); what it sent
                // drains through the history.
                Change::Stop(i) => self.flows[i].start = f64::INFINITY,
            }
            k += 1;
        }
        k
    }

    /// One point of the RTT and queueing-delay distributions (every `MEASURE_EVERY`
    /// steps in the window).
    #[cold]
    fn measure_delays(&mut self) {
        // Truncation to whole ps: one instruction, where rounding is a libm call.
        let ps = |s: f64| (s * 1e12) as i64 as u64;
        for l in self.links.iter_mut() {
            if !l.flows.is_empty() {
                l.sojourn_hist.add(ps(l.q / l.cap));
            }
        }
        for f in self.flows.iter_mut() {
            if f.started && f.start.is_finite() {
                f.rtt_hist.add(ps(f.rtt));
            }
        }
    }

    #[inline]
    fn step_flows(&mut self, t: f64, qdelay: &[f64], measuring: bool) {
        let dt = self.dt;
        for f in self.flows.iter_mut() {
            if t < f.start {
                f.rate_hist[f.h_pos] = 0.0;
                continue;
            }
            if !f.started {
                f.started = true;
                f.w = f.init_cwnd.min(f.w_cap);
                f.law.start(t, f.prop);
            }
            // R_i(t) = propagation + Σ queueing delays on the route.
            let mut r = f.prop;
            for &l in &f.route {
                r += qdelay[l];
            }
            f.rtt = r;
            f.law.observe_rtt(r);

            // Loss signal one feedback delay late (filed in the calendar by the queue).
            let lost = std::mem::take(&mut f.cal[f.c_pos]);
            if lost > 0.0 && self.per_packet {
                // `cut = "per_packet"` (opt-in): eq. (2) per lost packet, no once-per-RTT
                // rule; the law's own cut gives b at this window.
                if f.first_drop_cwnd.is_nan() {
                    f.first_drop_cwnd = f.w;
                }
                let once = f.law.on_loss(f.w, t);
                f.w = per_packet_cut(f.w, once, lost / f.size);
                f.ssthresh = f.w;
                // Loss events counted as in the default mode (at most one per RTT).
                if t >= f.next_reduce {
                    f.next_reduce = t + r;
                    if measuring {
                        f.loss_events += 1;
                    }
                }
            } else if lost > 0.0 {
                let indicated = if self.red.is_some() {
                    // RED: sparse random drops; a loss indication per lost packet
                    // (integrate-and-fire on the fluid loss mass).
                    f.red_acc += lost / f.size;
                    if f.red_acc >= 1.0 {
                        f.red_acc -= f.red_acc.floor();
                        true
                    } else {
                        false
                    }
                } else {
                    // Drop-tail: any loss in a congestion event is an indication.
                    true
                };
                // One reduction per RTT: TCP's fast recovery treats all losses of one
                // window as one congestion signal.
                if indicated && t >= f.next_reduce {
                    if f.first_drop_cwnd.is_nan() {
                        f.first_drop_cwnd = f.w;
                    }
                    f.w = f.law.on_loss(f.w, t);
                    f.ssthresh = f.w;
                    f.next_reduce = t + r;
                    if measuring {
                        f.loss_events += 1;
                    }
                }
            }

            // Increase: slow start doubles per RTT; above ssthresh the law (eq. 1).
            if f.w < f.ssthresh {
                f.w += f.w * dt / r;
                if f.w >= f.ssthresh {
                    f.law.on_exit_slow_start(f.w, t);
                }
            } else {
                let w = f.law.grow(f.w, t, r, dt);
                // A law that lowers the window in congestion avoidance (Vegas, FAST,
                // Compound) lowers ssthresh with it, as its per-ACK form does, so that
                // slow start does not undo the decrease.
                if w < f.ssthresh {
                    f.ssthresh = w;
                }
                f.w = w;
            }
            // Cap at the receive window; also catches NaN (cannot arise from the laws,
            // but state must stay finite).
            if f.w.is_nan() {
                f.w = 1.0;
            } else if f.w > f.w_cap {
                f.w = f.w_cap;
            }
            f.rate_hist[f.h_pos] = f.w * f.size / r;
        }
    }

    #[inline]
    fn step_links(&mut self, t: f64, measuring: bool) {
        let dt = self.dt;
        for l in self.links.iter_mut() {
            if l.flows.is_empty() {
                continue;
            }
            // Arrivals: each flow's sending rate one upstream delay earlier.
            let mut sum = 0.0;
            for (k, &i) in l.flows.iter().enumerate() {
                let f = &self.flows[i];
                let up = l.up_steps[k];
                // Slot of step n − up (rate_hist is longer than `up`). Upstream
                // losses do not thin the flow here (as MGT 2000; a multi-link route's
                // downstream arrivals are slightly overstated at a lossy upstream link).
                let hl = f.rate_hist.len();
                let mut j = f.h_pos + hl - up;
                if j >= hl {
                    j -= hl;
                }
                let a = f.rate_hist[j];
                l.arr[k] = a;
                l.loss[k] = 0.0;
                sum += a;
            }
            let mut inflow = sum * dt;
            let mut early = 0.0;
            // RED: early drops at the rate RED drops arriving packets at the current
            // average (λ_i = p_i·A_i, eq. 6 with RED's p; MGT 2000 eq. 3–4).
            if let Some(red) = &self.red {
                let mut p_all = f64::NAN;
                for (k, &i) in l.flows.iter().enumerate() {
                    let p = if red.byte_mode || p_all.is_nan() {
                        let p = red.drop_fraction(l.avg, self.flows[i].size);
                        if !red.byte_mode {
                            p_all = p;
                        }
                        p
                    } else {
                        p_all
                    };
                    if p > 0.0 {
                        let lost = p * l.arr[k] * dt;
                        l.loss[k] += lost;
                        inflow -= lost;
                        early += lost;
                    }
                }
                inflow = inflow.max(0.0);
            }
            // Queue, eq. 3, as an exact mass balance over the step: never below 0, never
            // above the limit; what overflows is dropped (eq. 5).
            let served = l.cap * dt;
            let mut q = l.q + inflow - served;
            let departed = if q < 0.0 {
                let d = l.q + inflow;
                q = 0.0;
                d
            } else {
                served
            };
            let mut drop = 0.0;
            if q > l.qmax {
                drop = q - l.qmax;
                q = l.qmax;
            }
            l.q = q;
            if let Some(red) = &self.red {
                // Floyd–Jacobson Fig. 2: avg ← (1 − w_q)·avg + w_q·q at every arrival,
                // here for the step's arrivals at once (exact for a constant q over the
                // step), then the idle-time decay avg ← (1 − w_q)^m·avg, m = the packets
                // of mean_size the link could have sent while idle.
                let q_unit = if red.in_bytes { q } else { q / l.pkt };
                let arrivals = sum * dt / l.pkt;
                l.avg = q_unit + (arrivals * red.ln_1mw).exp() * (l.avg - q_unit);
                let idle_bytes = served - departed;
                if idle_bytes > 0.0 {
                    l.avg *= (idle_bytes / red.mean_size * red.ln_1mw).exp();
                }
            }

            if drop > 0.0 {
                // A congestion event: the queue is full and arrivals exceed capacity.
                if !l.in_event || t - l.event_start > l.event_span {
                    let active = l.arr.iter().filter(|&&a| a > 0.0).count();
                    let m = sync::draw_level(self.level, self.min_level, active, &mut self.rng);
                    sync::select(
                        self.policy,
                        m,
                        &l.arr,
                        &mut self.rng,
                        &mut l.scratch,
                        &mut l.selected,
                    );
                    l.in_event = true;
                    l.event_start = t;
                }
                // Eq. 8: the selected flows' losses sum to the excess, shared in
                // proportion to their arrival rates (with all flows selected this is
                // eq. 6: λ_i = A_i·p).
                let mut sel_sum: f64 = l.selected.iter().map(|&k| l.arr[k]).sum();
                if sel_sum <= 0.0 {
                    // The selected flows stopped sending: fall back to all (eq. 6).
                    l.selected.clear();
                    l.selected.extend(0..l.flows.len());
                    sel_sum = sum;
                }
                if sel_sum > 0.0 {
                    for &k in &l.selected {
                        l.loss[k] += drop * l.arr[k] / sel_sum;
                    }
                }
            } else {
                l.in_event = false;
            }

            // File each flow's loss under the step at which its sender learns of it.
            for (k, &i) in l.flows.iter().enumerate() {
                let f = &mut self.flows[i];
                let lk = l.loss[k];
                if lk > 0.0 {
                    l.grouper.push(step_time(t), f.id, lk / f.size);
                    let up = l.up_s[k];
                    let cl = f.cal.len();
                    let d = (((f.rtt - up) / dt).round() as usize).clamp(1, cl - 1);
                    let mut j = f.c_pos + d;
                    if j >= cl {
                        j -= cl;
                    }
                    f.cal[j] += lk;
                }
                // Goodput: what the route's last link accepts, less what upstream
                // links dropped (counted there).
                let acc = if l.last[k] {
                    (l.arr[k] * dt - lk).max(0.0)
                } else {
                    -lk
                };
                f.delivered_total += acc;
                if measuring {
                    f.accepted += acc;
                    f.sample_accepted += acc;
                    f.lost += lk;
                }
            }
            let lost: f64 = l.loss.iter().sum();
            l.arrived_all += sum * dt;
            l.departed_all += departed;
            l.dropped_all += lost;
            l.sample_dropped += lost;
            if measuring {
                l.departed += departed;
                l.sample_departed += departed;
                l.arrived += sum * dt;
                l.dropped_overflow += drop;
                l.dropped_aqm += early;
                l.q_area += q * dt;
                l.q_max = l.q_max.max(q);
                // Each departing byte waited q/C (Little's law, byte by byte).
                l.sojourn += q * departed;
            }
        }
    }

    fn sample_into(&mut self, s: &mut SeriesBuf, t: f64, iv: f64) {
        let iv = iv.max(self.dt);
        for l in self.links.iter_mut() {
            let id = l.id;
            let u = std::mem::take(&mut l.sample_departed) / (l.cap * iv);
            s.push_link(t, id, SeriesMetric::Utilization, u);
            s.push_link(t, id, SeriesMetric::QueuePkts, l.q / l.pkt);
            s.push_link(t, id, SeriesMetric::QueueBytes, l.q);
            let d = std::mem::take(&mut l.sample_dropped) / l.pkt;
            s.push_link(t, id, SeriesMetric::Drops, d);
        }
        for f in self.flows.iter_mut() {
            let b = std::mem::take(&mut f.sample_accepted) * f.mss / f.size;
            s.push_flow(t, f.id, SeriesMetric::Throughput, b * 8.0 / iv);
            s.push_flow(t, f.id, SeriesMetric::Cwnd, f.w);
            s.push_flow(t, f.id, SeriesMetric::Ssthresh, f.ssthresh);
            if f.started {
                s.push_flow(t, f.id, SeriesMetric::Srtt, f.rtt);
            }
        }
    }
}

/// A step's time as a `Time`, out of line: inlined, LLVM hoists its rounding out of
/// the loss branch and pays it on every step (1 % of a fluid run).
#[inline(never)]
fn step_time(t: f64) -> Time {
    Time::from_secs_f64(t)
}

impl Model {
    /// What the run measured, in the records both engines emit.
    fn records(
        self,
        sc: &Scenario,
        plan: &Plan,
        series: SeriesBuf,
        seed: u64,
        wall_s: f64,
    ) -> Records {
        let win = self.duration - self.warmup;
        let mut links: Vec<LinkRecord> = plan
            .links
            .iter()
            .enumerate()
            .map(|(i, lp)| LinkRecord {
                name: lp.name.clone(),
                rate_bps: lp.rate.as_f64(),
                delay_s: lp.delay.as_secs_f64(),
                buffer: limit_text(lp.limit),
                crossers: plan.crossers[i],
                ..Default::default()
            })
            .collect();
        let mut congestion = Vec::new();
        for l in self.links {
            let r = &mut links[l.id as usize];
            let pkt = l.pkt;
            r.monitored = true;
            r.sync_gap = l.grouper.gap();
            r.window = LinkCounts {
                arrivals: l.arrived / pkt,
                drops_overflow: l.dropped_overflow / pkt,
                drops_aqm: l.dropped_aqm / pkt,
                wire_losses: 0.0,
                tx_pkts: l.departed / pkt,
                tx_bytes: l.departed,
                // No ACKs in the model: every byte on the wire is data (with headers).
                busy_s: l.departed / l.cap,
                busy_data_s: l.departed / l.cap,
                q_area_pkts: l.q_area / pkt,
                q_area_bytes: l.q_area,
                departed: l.departed / pkt,
                sojourn_s: l.sojourn / l.cap / pkt,
                // The fluid queues drop; they do not mark (scenario/check.rs refuses
                // ECN marking under engine = "fluid").
                ecn_marks: 0.0,
            };
            r.sojourn = l.sojourn_hist.summary();
            // The rate at the end of the run, as the packet engine reports it.
            r.rate_bps = l.cap * 8.0;
            if l.rate_changes {
                let last =
                    l.cap * self.dt * steps_in(l.cap_from, self.steps, self.warm_step) as f64;
                r.capacity = Some(Capacity {
                    offered_bits: (l.offered + last) * 8.0,
                    used_bits: l.departed * 8.0,
                    used_data_bits: l.departed * 8.0,
                });
            }
            r.queue_max_pkts = l.q_max / pkt;
            r.queue_max_bytes = l.q_max;
            r.tx_pkts_total = l.departed_all / pkt;
            r.balance = QueueBalance {
                arrived: l.arrived_all / pkt,
                departed: l.departed_all / pkt,
                dropped: l.dropped_all / pkt,
                stored: l.q / pkt,
            };
            congestion.extend(l.grouper.into_events());
        }
        let probe = &self.probe;
        let flows = self
            .flows
            .iter()
            .map(|f| {
                let i = f.id as usize;
                FlowRecord {
                    flow: f.id,
                    group: f.group.clone(),
                    cc: f.cc.clone(),
                    reverse: f.reverse,
                    instance: false,
                    started: f.started,
                    start: f.start_at,
                    rtt_prop: plan.flows[i].rtt_prop,
                    size: None,
                    data_path: f.data_path,
                    ack_path: f.ack_path,
                    mss: f.mss as u32,
                    header: f.header,
                    init_cwnd: f.init_cwnd,
                    completed: None,
                    finished: None,
                    window: FlowCounts {
                        bytes_delivered: f.accepted * f.mss / f.size,
                        losses: f.lost / f.size,
                        retransmits: f.lost / f.size,
                        timeouts: 0.0,
                        fast_retransmits: f.loss_events as f64,
                        back_to_back: 0.0,
                        ecn_reductions: 0.0,
                        ce_marks: 0.0,
                        recovery_s: 0.0,
                    },
                    cwnd_final: f.w,
                    cwnd_at_first_drop: (!f.first_drop_cwnd.is_nan()).then_some(f.first_drop_cwnd),
                    flight_at_first_drop: None,
                    cov_mean: probe.cov_mean(i),
                    cov_windows: probe.cov_windows(i),
                    convergence: probe.convergence(i),
                    fair_share: None,
                    rtt: f.rtt_hist.summary(),
                }
            })
            .collect();
        let _ = win;
        Records {
            info: RunInfo {
                engine: EngineKind::Fluid,
                name: sc.name.clone().unwrap_or_else(|| "unnamed".into()),
                seed,
                duration: sc.duration.0,
                warmup: sc.warmup.0,
                end: sc.duration.0,
                wall_s,
                events: None,
                steps: Some(self.steps),
                step_s: Some(self.dt),
                bottleneck: plan.bottleneck.0 as usize,
                bdp_bytes: plan.info.bdp_bytes,
                mean_rtt_s: plan.info.mean_rtt,
                packet_size: plan.info.packet_size,
                buffer: plan.info.buffer_limit.clone(),
                tcp: fluid_tcp(&plan.info.tcp),
                sample_interval: sc.sample_interval.map(|d| d.0),
                fair_share_flows: sc.metrics.fair_share_flows,
            },
            links,
            paths: plan
                .paths
                .iter()
                .map(|p| p.iter().map(|l| l.0).collect())
                .collect(),
            flows,
            congestion,
            drops: Vec::new(),
            series,
            covs: self.probe.covs,
            sources: Vec::new(),
            workloads: Vec::new(),
            conservation: None,
        }
    }
}

/// Run a scenario's plan with the fluid engine, with `seed` in place of the
/// scenario's (replications): its records.
pub fn run(
    sc: &Scenario,
    plan: &Plan,
    seed: u64,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Records, RunError> {
    let wall = std::time::Instant::now();
    let mut m = Model::routed(sc, plan, seed)?;
    let mut series = SeriesBuf::default();
    m.integrate(progress, &mut series)?;
    Ok(m.records(sc, plan, series, seed, wall.elapsed().as_secs_f64()))
}

/// Check that a scenario's plan builds a fluid model (`run::validate`).
pub fn check(sc: &Scenario, plan: &Plan) -> Result<(), ScenarioError> {
    Model::routed(sc, plan, sc.seed).map(|_| ())
}

/// The TCP settings (keys of the summary's `tcp` groups) the fluid model honours.
pub const TCP_SETTINGS_USED: [&str; 7] = [
    "profile",
    "cc",
    "mss",
    "header",
    "init_cwnd",
    "init_ssthresh",
    "rwnd",
];

/// Each group's effective TCP settings as the fluid model has them: those it honours
/// (docs/fluid.md: the algorithm and its form by profile, segment and header sizes, the
/// initial window and threshold, the receive window) as resolved, the packet engine's
/// others (recovery, timers, delayed ACKs...) null — the keys stay those of a packet run.
fn fluid_tcp(groups: &[(String, serde_json::Value)]) -> Vec<(String, serde_json::Value)> {
    let mut out = groups.to_vec();
    for (_, v) in &mut out {
        if let serde_json::Value::Object(m) = v {
            for (k, x) in m.iter_mut() {
                if !TCP_SETTINGS_USED.contains(&k.as_str()) {
                    *x = serde_json::Value::Null;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::per_packet_cut;
    use crate::cc::{fluid_law, FluidLaw, Profile};

    fn law(name: &str) -> crate::cc::AnyFluidLaw {
        let mut l = fluid_law(name, &toml::value::Table::new(), Profile::Ns2).unwrap();
        l.start(0.0, 0.1);
        l
    }

    /// Study 004 eq. (2) per loss: every lost packet is one decrease W ← W − W·b(W),
    /// with the law's own b. A run of single-packet losses through `per_packet_cut`
    /// must follow that recursion exactly, for AIMD (b = 1/2), HSTCP (b(W) of RFC 3649)
    /// and STCP (b = 1/8).
    #[test]
    fn per_packet_cut_is_eq2_applied_per_lost_packet() {
        for (name, b_at_1000) in [("reno", 0.5), ("scalable", 0.125), ("highspeed", f64::NAN)] {
            let mut l = law(name);
            let mut w = 1000.0;
            // The recursion of eq. (2)'s per-loss form, W_{k+1} = W_k·(1 − b(W_k)).
            let mut expect = 1000.0;
            for k in 0..5 {
                let once = l.on_loss(w, k as f64);
                let b = 1.0 - once / w;
                if k == 0 && b_at_1000.is_finite() {
                    assert!((b - b_at_1000).abs() < 1e-12, "{name}: b = {b}");
                }
                expect -= expect * b;
                w = per_packet_cut(w, once, 1.0);
                assert!(
                    (w - expect).abs() <= 1e-9 * expect,
                    "{name} loss {k}: {w} vs {expect}"
                );
            }
        }
    }

    /// The fluid loss mass of a step is fractional: n packets lost over one step cut
    /// the window as n single losses would (for a constant b), and a small loss mass
    /// n gives eq. (2)'s first-order decrease W·b·n.
    #[test]
    fn per_packet_cut_composes_and_is_first_order_eq2() {
        let (w, b) = (800.0, 0.5);
        let once = w * (1.0 - b);
        let three = per_packet_cut(w, once, 3.0);
        assert!((three - w * 0.125).abs() < 1e-9, "{three}");
        let w1 = per_packet_cut(w, once, 0.5);
        let half_twice = per_packet_cut(w1, w1 * (1.0 - b), 0.5);
        assert!((half_twice - once).abs() < 1e-9, "{half_twice}");
        // Eq. (2)'s decrease term over a step that loses n packets is W·b·n; the
        // per-packet form W·(1 − (1 − b)^n) agrees with it to first order in b.
        for n in [1e-3, 1e-2, 0.5] {
            let small_b = 1e-4;
            let dw = w - per_packet_cut(w, w * (1.0 - small_b), n);
            assert!((dw / (w * small_b * n) - 1.0).abs() < 1e-3, "n {n}: {dw}");
        }
        // Never below the law's floor; no loss, no change.
        assert_eq!(per_packet_cut(10.0, 5.0, 1e6), 2.0);
        assert_eq!(per_packet_cut(1.5, 1.5, 3.0), 1.5);
        assert_eq!(per_packet_cut(10.0, 5.0, 0.0), 10.0);
    }
}
