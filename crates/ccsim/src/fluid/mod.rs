//! The fluid engine (DESIGN.md "The fluid engine"): per flow a window W_i(t) and an
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
use crate::metrics::{categorical, jain, Column, SeriesBuf, SeriesMetric, Table};
use crate::net::topology::{resolve_limit, BuildInfo};
use crate::output::{Output, RunError};
use crate::queue::red::{Red, RedConfig, RedMode};
use crate::queue::{Limit, QueueSpec};
use crate::random::{stream, Rng};
use crate::scenario::fluid::{check_fields, FluidSpec, Level, Policy};
use crate::scenario::{parse_rwnd, Direction, Scenario, ScenarioError};
use serde_json::{json, Map, Value};

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
}

#[derive(Clone)]
struct LinkM {
    name: String,
    /// Capacity in bytes/s, buffer limit in bytes, queue in bytes.
    cap: f64,
    rate_bps: f64,
    delay: f64,
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
    // Measurement.
    departed: f64,
    arrived: f64,
    dropped: f64,
    q_area: f64,
    q_max: f64,
    events: u64,
    sync_sum: f64,
    sample_departed: f64,
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
    red: Option<FluidRed>,
    /// `metrics.sync_gap`: the congestion-event span, in place of one mean RTT.
    sync_gap: Option<f64>,
    rng: Rng,
    info: BuildInfo,
}

/// A flow's route: (link, one-way propagation delay from the sender to its queue, s).
type Route = Vec<(usize, f64)>;

fn build(sc: &Scenario, seed: u64) -> Result<Model, ScenarioError> {
    let (mut m, routes) = build_unrouted(sc, seed)?;
    for (i, r) in routes.iter().enumerate() {
        m.set_route(i, r);
    }
    m.finish_links();
    Ok(m)
}

/// The model of a scenario with its links and flows but no routes yet, and each
/// flow's route (links in order, with the one-way delay from the sender to each).
///
/// Links as the packet engine names and orders them: a dumbbell's `bottleneck`,
/// `bottleneck_rev`; a parking lot's `link1`, `link1_rev`, …, `linkk`, `linkk_rev`.
/// A flow spanning middle links [a, b] crosses a..b forward (b..a in reverse); each
/// queue sits after its sender's access link and the middle links before it, so
/// the queue of link j is d_src + (j − a)·delay downstream of a forward sender.
fn build_unrouted(sc: &Scenario, seed: u64) -> Result<(Model, Vec<Route>), ScenarioError> {
    check_fields(sc)?;
    let t = &sc.topology;
    let b_rate = t.rate().as_f64();
    let b_delay = t.delay().as_secs_f64();
    let dumbbell = t.kind == crate::scenario::TopologyKind::Dumbbell;
    let k = if dumbbell {
        1
    } else {
        t.middle_links.unwrap_or(1) as usize
    };

    // Plan flows exactly as the packet engine does (same streams, same draws), so a
    // scenario gets the same starts and RTTs under both engines (net::topology).
    struct Plan {
        group: usize,
        reverse: bool,
        start: f64,
        d_src: f64,
        /// Middle links crossed, 1-based inclusive.
        span: (usize, usize),
        prop: f64,
    }
    let mut plans = Vec::new();
    for (gi, grp) in sc.flows.iter().enumerate() {
        let (a, b) = grp.span.map_or((1, k), |[a, b]| (a as usize, b as usize));
        let core = b_delay * (b - a + 1) as f64;
        for _ in 0..grp.count {
            let id = plans.len();
            let mut rng = stream(seed, &format!("flow/{id}"));
            let start = grp.start.as_ref().map_or(0.0, |d| d.dist.sample(&mut rng));
            let (d_src, d_dst) = if let Some(rtt) = &grp.rtt {
                // RTT = 2·(d_src + core + d_dst), split evenly over the access links.
                let r = rtt.dist.sample(&mut rng);
                let each = ((r / 2.0 - core) / 2.0).max(0.0);
                (each, each)
            } else {
                match grp.access_delay.as_ref().or(t.access_delay.as_ref()) {
                    None => (0.0, 0.0),
                    Some(d) => (d.dist.sample(&mut rng), d.dist.sample(&mut rng)),
                }
            };
            let (d_src, d_dst) = (d_src.max(0.0), d_dst.max(0.0));
            plans.push(Plan {
                group: gi,
                reverse: grp.direction == Direction::Reverse,
                start: start.max(0.0),
                d_src,
                span: (a, b),
                prop: 2.0 * (d_src + core + d_dst),
            });
        }
    }
    let pkt_of = |g: usize| {
        let o = sc.flows[g].tcp.over(&sc.tcp);
        (
            (o.mss.map_or(1460, |m| m.0) + o.header.map_or(40, |h| h.0)) as f64,
            o.mss.map_or(1460, |m| m.0) as f64,
        )
    };

    let min_rtt = plans.iter().map(|p| p.prop).fold(f64::INFINITY, f64::min);
    let dt = step_for(
        sc.fluid.as_ref(),
        if min_rtt.is_finite() { min_rtt } else { 0.1 },
    );
    let cap = b_rate / 8.0;
    let mut links = Vec::with_capacity(2 * k);
    let mut model_info = None;
    for j in 1..=k {
        // Buffer rules against middle link j's BDP: its rate × the mean two-way
        // propagation RTT of the forward flows crossing it (the reverse ones if none),
        // as net::topology does.
        let crosses = |rev: bool| -> Vec<&Plan> {
            plans
                .iter()
                .filter(|p| p.reverse == rev && p.span.0 <= j && j <= p.span.1)
                .collect()
        };
        let mut basis = crosses(false);
        if basis.is_empty() {
            basis = crosses(true);
        }
        let mut info = BuildInfo {
            packet_size: 1500.0,
            ..Default::default()
        };
        if !basis.is_empty() {
            let n = basis.len() as f64;
            info.mean_rtt = basis.iter().map(|p| p.prop).sum::<f64>() / n;
            info.bdp_bytes = b_rate * info.mean_rtt / 8.0;
            info.packet_size = basis.iter().map(|p| pkt_of(p.group).0).sum::<f64>() / n;
            info.long_flows = basis.len();
        }
        let limit = resolve_limit(t.buffer_spec(), t.buffer_unit, &info, "topology.buffer")?;
        info.buffer_limit = match limit {
            Limit::Packets(n) => format!("{n}pkt"),
            Limit::Bytes(b) => format!("{b}B"),
        };
        let qmax = match limit {
            Limit::Packets(n) => n as f64 * info.packet_size,
            Limit::Bytes(b) => b as f64,
        };
        let names = if dumbbell {
            ["bottleneck".to_string(), "bottleneck_rev".to_string()]
        } else {
            [format!("link{j}"), format!("link{j}_rev")]
        };
        for name in names {
            links.push(LinkM {
                name,
                cap,
                rate_bps: b_rate,
                delay: b_delay,
                qmax,
                q: 0.0,
                avg: 0.0,
                pkt: info.packet_size,
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
                dropped: 0.0,
                q_area: 0.0,
                q_max: 0.0,
                events: 0,
                sync_sum: 0.0,
                sample_departed: 0.0,
            });
        }
        // The summary's BDP and buffer: the first middle link's (the bottleneck the
        // packet engine reports first).
        model_info.get_or_insert(info);
    }
    let info = model_info.expect("at least one middle link");
    let routes: Vec<Route> = plans
        .iter()
        .map(|p| {
            let (a, b) = p.span;
            let hop = |j: usize, n: usize| (j, p.d_src + n as f64 * b_delay);
            if p.reverse {
                (a..=b)
                    .rev()
                    .enumerate()
                    .map(|(n, j)| hop(2 * (j - 1) + 1, n))
                    .collect()
            } else {
                (a..=b)
                    .enumerate()
                    .map(|(n, j)| hop(2 * (j - 1), n))
                    .collect()
            }
        })
        .collect();

    let mut flows = Vec::with_capacity(plans.len());
    for p in plans.iter() {
        let g = &sc.flows[p.group];
        let mut law = fluid_law(&g.cc.name, &g.cc.params)
            .map_err(|e| ScenarioError::at(&format!("flows[{}].cc", p.group), e))?;
        law.start(p.start, p.prop);
        let opts = g.tcp.over(&sc.tcp);
        let (size, mss) = pkt_of(p.group);
        let prop = p.prop;
        let w_cap = match &opts.rwnd {
            Some(r) => parse_rwnd(r, mss as u32)
                .map_err(|e| ScenarioError::at(&format!("flows[{}].tcp.rwnd", p.group), e))?
                as f64,
            None => f64::INFINITY,
        };
        flows.push(FlowM {
            law,
            group: g
                .name
                .clone()
                .unwrap_or_else(|| format!("group{}", p.group)),
            cc: g.cc.name.clone(),
            reverse: p.reverse,
            size,
            mss,
            prop,
            start: p.start,
            init_cwnd: opts.init_cwnd.unwrap_or(1.0),
            w: 0.0,
            ssthresh: opts.init_ssthresh.unwrap_or(64.0),
            w_cap: w_cap.max(1.0),
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
        });
    }
    let fs = sc.fluid.clone().unwrap_or_default();
    let sy = fs.sync.clone().unwrap_or_default();
    let m = Model {
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
        red: match &sc.topology.queue {
            QueueSpec::Red(cfg) => Some(FluidRed::new(cfg, b_rate)),
            // check_fields let only drop-tail and RED through.
            _ => None,
        },
        sync_gap: sc.metrics.sync_gap.map(|d| d.0.as_secs_f64()),
        rng: stream(seed, "fluid/sync"),
        info,
    };
    Ok((m, routes))
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
            max_q_delay += l.qmax / l.cap;
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
    /// apart are separate events, the grouping DESIGN.md's synchronization metric uses).
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
        for n in 0..self.steps {
            let t = n as f64 * dt;
            let measuring = t >= self.warmup;
            if countdown == 0 {
                countdown = report_every;
                if !progress(n as f64 / self.steps as f64) {
                    return Err(RunError::Interrupted);
                }
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
        }
        progress(1.0);
        Ok(())
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
            if lost > 0.0 {
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
                    if measuring && active > 0 {
                        l.events += 1;
                        l.sync_sum += m as f64 / active as f64;
                    }
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
                    let up = l.up_s[k];
                    let cl = f.cal.len();
                    let d = (((f.rtt - up) / dt).round() as usize).clamp(1, cl - 1);
                    let mut j = f.c_pos + d;
                    if j >= cl {
                        j -= cl;
                    }
                    f.cal[j] += lk;
                }
                if measuring {
                    // Goodput: what the route's last link accepts, less what upstream
                    // links dropped (counted there).
                    let acc = if l.last[k] {
                        (l.arr[k] * dt - lk).max(0.0)
                    } else {
                        -lk
                    };
                    f.accepted += acc;
                    f.sample_accepted += acc;
                    f.lost += lk;
                }
            }
            if measuring {
                l.departed += departed;
                l.sample_departed += departed;
                l.arrived += sum * dt;
                l.dropped += l.loss.iter().sum::<f64>();
                l.q_area += q * dt;
                l.q_max = l.q_max.max(q);
            }
        }
    }

    fn sample_into(&mut self, s: &mut SeriesBuf, t: f64, iv: f64) {
        let iv = iv.max(self.dt);
        for (id, l) in self.links.iter_mut().enumerate() {
            let u = std::mem::take(&mut l.sample_departed) / (l.cap * iv);
            s.push_link(t, id as u32, SeriesMetric::Utilization, u);
            s.push_link(t, id as u32, SeriesMetric::QueuePkts, l.q / l.pkt);
            s.push_link(t, id as u32, SeriesMetric::QueueBytes, l.q);
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            let b = std::mem::take(&mut f.sample_accepted) * f.mss / f.size;
            s.push_flow(t, i as u32, SeriesMetric::Throughput, b * 8.0 / iv);
            s.push_flow(t, i as u32, SeriesMetric::Cwnd, f.w);
        }
    }
}

/// A link's summary; `payload_share`: the payload fraction of the bytes it carried.
fn link_summary(l: &LinkM, win: f64, payload_share: f64) -> Value {
    json!({
        "rate_bps": l.rate_bps,
        "delay_s": l.delay,
        "utilization": l.departed / (l.cap * win),
        "utilization_data": l.departed * payload_share / (l.cap * win),
        "throughput_bps": l.departed * 8.0 / win,
        "tx_pkts": l.departed / l.pkt,
        "arrivals": l.arrived / l.pkt,
        "drops": l.dropped / l.pkt,
        "random_losses": 0,
        "drop_rate": if l.arrived > 0.0 { l.dropped / l.arrived } else { 0.0 },
        "queue_max_pkts": l.q_max / l.pkt,
        "queue_max_bytes": l.q_max,
        "queue_mean_pkts": l.q_area / win / l.pkt,
        "queue_mean_bytes": l.q_area / win,
        "queue_delay_mean_s": l.q_area / win / l.cap,
        "congestion_events": l.events,
        "sync_level_mean": if l.events > 0 { l.sync_sum / l.events as f64 } else { f64::NAN },
    })
}

fn collect(sc: &Scenario, m: Model, series: SeriesBuf, seed: u64, wall_s: f64) -> Output {
    let win = m.duration - m.warmup;
    let mut links = Map::new();
    for l in &m.links {
        // Payload share of what this link carried, weighted by its flows' bytes.
        let (mut num, mut den) = (0.0, 0.0);
        for &i in &l.flows {
            num += m.flows[i].accepted * m.flows[i].mss / m.flows[i].size;
            den += m.flows[i].accepted;
        }
        let v = link_summary(l, win, if den > 0.0 { num / den } else { 1.0 });
        links.insert(l.name.clone(), v);
    }
    let nf = m.flows.len();
    let goodput: Vec<f64> = m
        .flows
        .iter()
        .map(|f| f.accepted * f.mss / f.size * 8.0 / win)
        .collect();
    let fwd: Vec<f64> = m
        .flows
        .iter()
        .zip(&goodput)
        .filter(|(f, _)| !f.reverse)
        .map(|(_, &g)| g)
        .collect();
    let mut flows = Table::default();
    flows.push("flow", Column::I32((0..nf as i32).collect()));
    flows.push(
        "group",
        categorical(&m.flows.iter().map(|f| f.group.as_str()).collect::<Vec<_>>()),
    );
    flows.push(
        "cc",
        categorical(&m.flows.iter().map(|f| f.cc.as_str()).collect::<Vec<_>>()),
    );
    flows.push(
        "direction",
        categorical(
            &m.flows
                .iter()
                .map(|f| if f.reverse { "reverse" } else { "forward" })
                .collect::<Vec<_>>(),
        ),
    );
    let col = |g: &dyn Fn(&FlowM) -> f64| Column::F64(m.flows.iter().map(g).collect());
    let coli = |g: &dyn Fn(&FlowM) -> i64| Column::I64(m.flows.iter().map(g).collect());
    flows.push("start_s", col(&|f| f.start));
    flows.push("rtt_prop_s", col(&|f| f.prop));
    flows.push("size_bytes", col(&|_| f64::NAN));
    flows.push("goodput_bps", Column::F64(goodput.clone()));
    flows.push(
        "bytes_delivered",
        coli(&|f| (f.accepted * f.mss / f.size).round() as i64),
    );
    flows.push("fct_s", col(&|_| f64::NAN));
    flows.push("losses", coli(&|f| (f.lost / f.size).round() as i64));
    flows.push("retransmits", coli(&|f| (f.lost / f.size).round() as i64));
    flows.push("timeouts", coli(&|_| 0));
    flows.push("fast_retransmits", coli(&|f| f.loss_events as i64));
    flows.push("cwnd_final", col(&|f| f.w));
    flows.push("cwnd_at_first_drop", col(&|f| f.first_drop_cwnd));
    flows.push("flight_at_first_drop", col(&|_| f64::NAN));
    flows.push("back_to_back", coli(&|_| 0));
    flows.push("loss_events", coli(&|f| f.loss_events as i64));

    let summary = json!({
        "name": sc.name.clone().unwrap_or_else(|| "unnamed".into()),
        "seed": seed,
        "engine": "fluid",
        "duration_s": m.duration,
        "warmup_s": m.warmup,
        "wall_s": wall_s,
        "steps": m.steps,
        "step_s": m.dt,
        "bottleneck": m.links[0].name.clone(),
        "bdp_bytes": m.info.bdp_bytes,
        "bdp_pkts": if m.info.packet_size > 0.0 { m.info.bdp_bytes / m.info.packet_size } else { 0.0 },
        "mean_rtt_s": m.info.mean_rtt,
        "buffer": m.info.buffer_limit,
        "links": links,
        "flows": {
            "count": nf,
            "goodput_bps_total": goodput.iter().sum::<f64>(),
            "goodput_bps_forward": fwd.iter().sum::<f64>(),
            "jain_fairness": jain(&fwd),
            "completed": 0,
        },
    });
    Output {
        summary,
        series: series.into_table(),
        flows,
        ..Output::default()
    }
}

/// Run a scenario with the fluid engine (`engine = "fluid"`).
pub fn run(sc: &Scenario, progress: &mut dyn FnMut(f64) -> bool) -> Result<Output, RunError> {
    run_seeded(sc, sc.seed, progress)
}

/// Run with an explicit seed in place of the scenario's (replications).
pub fn run_seeded(
    sc: &Scenario,
    seed: u64,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Output, RunError> {
    let wall = std::time::Instant::now();
    let mut m = build(sc, seed)?;
    let mut series = SeriesBuf::default();
    m.integrate(progress, &mut series)?;
    Ok(collect(sc, m, series, seed, wall.elapsed().as_secs_f64()))
}

/// Map `f` over `items` on `workers` threads (scoped threads pulling from a shared
/// counter, so long and short items balance); results in input order.
fn par_map<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let n = items.len();
    let workers = workers.clamp(1, n.max(1));
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i, &items[i]);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// All cores of this machine.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |p| p.get())
}

/// Integrate many scenarios at once on all cores; results in input order.
pub fn run_batch(scenarios: &[Scenario]) -> Vec<Result<Output, RunError>> {
    par_map(scenarios, all_cores(), |_, sc| run(sc, &mut |_| true))
}

/// The seed of replication `k` of a scenario with seed `seed`: derived by name
/// (`replication/k`), so replications are reproducible and independent of how many
/// are run. 63 bits, so that it can be written back into a scenario (TOML integers
/// are signed 64-bit).
pub fn replication_seed(seed: u64, k: usize) -> u64 {
    crate::random::next_u64(&mut stream(seed, &format!("replication/{k}"))) >> 1
}

/// The per-run scalars of a batch table: column name and summary path (the names of
/// summary.json, so a batch row reads like a run's summary). `links.bottleneck.` is
/// the summary's `bottleneck` link, whatever its name (`link1` in a parking lot).
pub const BATCH_METRICS: &[(&str, &str)] = &[
    ("utilization", "links.bottleneck.utilization"),
    ("utilization_data", "links.bottleneck.utilization_data"),
    ("throughput_bps", "links.bottleneck.throughput_bps"),
    ("drop_rate", "links.bottleneck.drop_rate"),
    ("queue_mean_pkts", "links.bottleneck.queue_mean_pkts"),
    ("queue_max_pkts", "links.bottleneck.queue_max_pkts"),
    ("queue_delay_mean_s", "links.bottleneck.queue_delay_mean_s"),
    ("congestion_events", "links.bottleneck.congestion_events"),
    ("sync_level_mean", "links.bottleneck.sync_level_mean"),
    ("goodput_bps_total", "flows.goodput_bps_total"),
    ("jain_fairness", "flows.jain_fairness"),
    ("flows", "flows.count"),
    ("duration_s", "duration_s"),
    ("step_s", "step_s"),
    ("steps", "steps"),
    ("wall_s", "wall_s"),
];

/// A batch failed: which scenario (its index in the input) and why.
#[derive(Debug, thiserror::Error)]
#[error("scenarios[{index}]: {error}")]
pub struct BatchError {
    pub index: usize,
    pub error: RunError,
}

/// The result of `batch`: one row per run, `BATCH_METRICS` plus `scenario` (index
/// in the input), `replication` and `seed`; `names` has each row's scenario name.
#[derive(Debug)]
pub struct BatchTable {
    pub table: Table,
    pub names: Vec<String>,
}

/// Integrate `scenarios` × `replications` runs on `workers` threads, as one table.
/// With one replication each scenario runs with its own seed (the row equals a
/// single run of it); with more, replication k runs with `replication_seed(seed, k)`
/// (the seeds `replicate` uses). Every scenario must be `engine = "fluid"`; the
/// first failing scenario (lowest index) is reported by its index.
pub fn batch(
    scenarios: &[Scenario],
    replications: usize,
    workers: usize,
) -> Result<BatchTable, BatchError> {
    batch_with_progress(scenarios, replications, workers, &|_, _| true)
}

/// `batch` with `progress(done, total)` called by the workers after each run (from
/// any of them; keep it cheap); returning false stops the batch after the runs in
/// progress (`RunError::Interrupted`, reported at the first scenario not run).
pub fn batch_with_progress(
    scenarios: &[Scenario],
    replications: usize,
    workers: usize,
    progress: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Result<BatchTable, BatchError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    for (index, sc) in scenarios.iter().enumerate() {
        if sc.engine != crate::scenario::Engine::Fluid {
            return Err(BatchError {
                index,
                error: ScenarioError::at(
                    "engine",
                    "a fluid batch runs engine = \"fluid\" scenarios only",
                )
                .into(),
            });
        }
        check_fields(sc).map_err(|e| BatchError {
            index,
            error: e.into(),
        })?;
    }
    let reps = replications.max(1);
    let jobs: Vec<(usize, usize, u64)> = scenarios
        .iter()
        .enumerate()
        .flat_map(|(i, sc)| {
            (0..reps).map(move |k| {
                let seed = if reps == 1 {
                    sc.seed
                } else {
                    replication_seed(sc.seed, k)
                };
                (i, k, seed)
            })
        })
        .collect();
    // Each worker keeps only the row, not the run's series and flow tables.
    let (done, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
    let rows = par_map(&jobs, workers, |_, &(i, _, seed)| {
        if stop.load(Ordering::Relaxed) {
            return Err(RunError::Interrupted);
        }
        let r = run_seeded(&scenarios[i], seed, &mut |_| true).map(|o| {
            let v: Vec<f64> = BATCH_METRICS.iter().map(|(_, p)| metric(&o, p)).collect();
            (v, o.summary["name"].as_str().unwrap_or("").to_string())
        });
        if !progress(done.fetch_add(1, Ordering::Relaxed) + 1, jobs.len()) {
            stop.store(true, Ordering::Relaxed);
        }
        r
    });
    let mut cols: Vec<Vec<f64>> = vec![Vec::with_capacity(jobs.len()); BATCH_METRICS.len()];
    let mut names = Vec::with_capacity(jobs.len());
    for (r, &(index, _, _)) in rows.into_iter().zip(&jobs) {
        let (v, name) = r.map_err(|error| BatchError { index, error })?;
        for (c, x) in cols.iter_mut().zip(v) {
            c.push(x);
        }
        names.push(name);
    }
    let mut table = Table::default();
    table.push(
        "scenario",
        Column::I64(jobs.iter().map(|j| j.0 as i64).collect()),
    );
    table.push(
        "replication",
        Column::I32(jobs.iter().map(|j| j.1 as i32).collect()),
    );
    table.push(
        "seed",
        Column::I64(jobs.iter().map(|j| j.2 as i64).collect()),
    );
    for ((name, _), c) in BATCH_METRICS.iter().zip(cols) {
        table.push(name, Column::F64(c));
    }
    Ok(BatchTable { table, names })
}

impl BatchTable {
    /// Per scenario: the number of runs and, for every metric, the mean and the 95 %
    /// half-width (Student t; NaN with one run; runs where the metric is undefined,
    /// such as `sync_level_mean` without congestion events, left out). Columns
    /// `scenario`, `runs`, then `{metric}_mean`, `{metric}_ci95`.
    pub fn estimates(&self) -> Table {
        let Some(Column::I64(sc)) = self.table.get("scenario") else {
            unreachable!("batch tables have a scenario column")
        };
        let mut groups: Vec<(i64, Vec<usize>)> = Vec::new();
        for (row, &s) in sc.iter().enumerate() {
            match groups.last_mut() {
                Some((g, rows)) if *g == s => rows.push(row),
                _ => groups.push((s, vec![row])),
            }
        }
        let mut t = Table::default();
        t.push(
            "scenario",
            Column::I64(groups.iter().map(|g| g.0).collect()),
        );
        t.push(
            "runs",
            Column::I64(groups.iter().map(|g| g.1.len() as i64).collect()),
        );
        for (name, _) in BATCH_METRICS {
            let col = self.table.f64(name).expect("batch metric column");
            let est: Vec<Estimate> = groups
                .iter()
                .map(|(_, rows)| {
                    let xs: Vec<f64> = rows
                        .iter()
                        .map(|&r| col[r])
                        .filter(|x| x.is_finite())
                        .collect();
                    Estimate::of(&xs)
                })
                .collect();
            t.push(
                &format!("{name}_mean"),
                Column::F64(
                    est.iter()
                        .map(|e| if e.n > 0 { e.mean } else { f64::NAN })
                        .collect(),
                ),
            );
            t.push(
                &format!("{name}_ci95"),
                Column::F64(est.iter().map(|e| e.half_width).collect()),
            );
        }
        t
    }
}

/// A number in a summary by path; NaN where the summary has none (e.g. the mean
/// synchronization level of a run without congestion events).
fn metric(o: &Output, path: &str) -> f64 {
    let mut v = &o.summary;
    if let Some(rest) = path.strip_prefix("links.bottleneck.") {
        let name = o.summary["bottleneck"].as_str().unwrap_or("bottleneck");
        v = &v["links"][name];
        for k in rest.split('.') {
            v = &v[k];
        }
        return v.as_f64().unwrap_or(f64::NAN);
    }
    for k in path.split('.') {
        v = &v[k];
    }
    v.as_f64().unwrap_or(f64::NAN)
}

/// Mean and 95 % confidence half-width (Student t, n − 1 degrees of freedom).
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub mean: f64,
    pub half_width: f64,
    pub n: usize,
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        // Cornish–Fisher style expansion around the normal quantile; < 0.1 % error.
        _ => {
            let z: f64 = 1.959964;
            let d = df as f64;
            z + (z.powi(3) + z) / (4.0 * d)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        }
    }
}

impl Estimate {
    pub fn of(xs: &[f64]) -> Estimate {
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n.max(1) as f64;
        let half_width = if n < 2 {
            f64::NAN
        } else {
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            t95(n - 1) * (var / n as f64).sqrt()
        };
        Estimate {
            mean,
            half_width,
            n,
        }
    }
}

/// Results of `replicate`.
#[derive(Debug)]
pub struct Replications {
    pub seeds: Vec<u64>,
    pub utilization: Estimate,
    pub jain: Estimate,
    pub outputs: Vec<Output>,
}

/// Run `n` replications of a scenario, seeds `replication_seed(seed, k)`, on all
/// cores; mean and 95 % CI of bottleneck utilization and Jain fairness.
pub fn replicate(sc: &Scenario, n: usize) -> Result<Replications, RunError> {
    let seeds: Vec<u64> = (0..n).map(|k| replication_seed(sc.seed, k)).collect();
    let outs = par_map(&seeds, all_cores(), |_, &s| {
        run_seeded(sc, s, &mut |_| true)
    });
    let outputs: Vec<Output> = outs.into_iter().collect::<Result<_, _>>()?;
    let u: Vec<f64> = outputs
        .iter()
        .map(|o| metric(o, "links.bottleneck.utilization"))
        .collect();
    let j: Vec<f64> = outputs
        .iter()
        .map(|o| o.get("flows.jain_fairness"))
        .collect();
    Ok(Replications {
        seeds,
        utilization: Estimate::of(&u),
        jain: Estimate::of(&j),
        outputs,
    })
}

/// The speed benchmark: study 004 §5.2's setting — 10 HSTCP flows, 10 Gb/s, RTTs
/// 80–260 ms (20 ms apart), buffer 0.1 BDP, X = 0.3 — 3000 s on one core (the same
/// scenario as python/ccsim/bench.py). Returns the wall-clock seconds and the output.
pub fn bench() -> (f64, Output) {
    let mut text = r#"
name = "bench-fluid"
engine = "fluid"
duration = "3000s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Gbps"
bottleneck_delay = "10ms"
buffer = "0.1bdp"
[tcp]
init_ssthresh = 1e9
[fluid]
sync = { min_level = 0.3 }
"#
    .to_string();
    for i in 0..10 {
        text += &format!(
            "[[flows]]\ncc = \"highspeed\"\nrtt = \"{}ms\"\n",
            80 + 20 * i
        );
    }
    let text = text.as_str();
    let sc = crate::scenario::parse(text, &[]).expect("bench scenario parses");
    let t = std::time::Instant::now();
    let out = run(&sc, &mut |_| true).expect("bench runs");
    (t.elapsed().as_secs_f64(), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-link parking lot: flow 0 crosses links A and B, flow 1 only A, flow 2 only
    /// B; 10 Mb/s each, RED, equal propagation RTTs (100 ms). Built from a dumbbell
    /// scenario whose forward bottleneck becomes link A, with link B a copy of it.
    fn parking_lot() -> (Scenario, Model) {
        let text = r#"
engine = "fluid"
duration = "300s"
warmup = "50s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
buffer = "200pkt"
queue = { kind = "red", min_th = "10pkt", max_th = "30pkt", max_p = 0.1 }
[[flows]]
count = 3
cc = "reno"
rtt = "100ms"
"#;
        let sc = crate::scenario::parse(text, &[]).unwrap();
        let (mut m, routes) = build_unrouted(&sc, sc.seed).unwrap();
        let d_src: Vec<f64> = routes.iter().map(|r| r[0].1).collect();
        let mut b = m.links[0].clone();
        b.name = "second".into();
        m.links.push(b);
        // Link B's queue is one bottleneck delay (10 ms) downstream of link A's.
        m.set_route(0, &[(0, d_src[0]), (2, d_src[0] + 0.01)]);
        m.set_route(1, &[(0, d_src[1])]);
        m.set_route(2, &[(2, d_src[2])]);
        m.finish_links();
        (sc, m)
    }

    #[test]
    fn multi_link_route_sees_both_queues() {
        // Each link drops independently (RED early drops at its own average queue), so
        // the long flow's loss-event rate is the sum of what the one-link flows see at
        // each link, and every flow keeps Mathis's relation x = √(3/(2p))/RTT with its
        // own p and RTT (its queues summed): the long flow gets ~1/√2 of the others.
        let (sc, mut m) = parking_lot();
        let mut series = SeriesBuf::default();
        m.integrate(&mut |_| true, &mut series).unwrap();
        let qd = [m.links[0].q_area, m.links[2].q_area].map(|a| a / 250.0 / m.links[0].cap);
        let rtt = [
            m.flows[0].prop + qd[0] + qd[1],
            m.flows[1].prop + qd[0],
            m.flows[2].prop + qd[1],
        ];
        let out = collect(&sc, m, series, 1, 0.0);
        let g = out.flows.f64("goodput_bps").unwrap();
        let Some(Column::I64(ev)) = out.flows.get("loss_events") else {
            panic!()
        };
        let pkts: Vec<f64> = g.iter().map(|x| x * 250.0 / 8.0 / 1460.0).collect();
        let p: Vec<f64> = (0..3).map(|i| ev[i] as f64 / pkts[i]).collect();
        let Some(Column::I64(lost)) = out.flows.get("losses") else {
            panic!()
        };
        let (da, db) = (
            out.get("links.bottleneck.drop_rate"),
            out.get("links.second.drop_rate"),
        );
        eprintln!(
            "loss events {ev:?}, lost {lost:?}, delivered {pkts:.0?}, drop rates {da:.2e} {db:.2e}"
        );
        for i in 0..3 {
            let mathis = (1.5 / p[i]).sqrt() / rtt[i];
            let x = pkts[i] / 250.0;
            eprintln!("flow {i}: {x:.1} pkt/s, Mathis {mathis:.1}");
            // 10 %: with two flows per link each flow's own sawtooth moves the RED
            // queue it sees (windows of ~40 packets), so its RTT and p vary in-cycle.
            assert!(
                (x / mathis - 1.0).abs() < 0.10,
                "flow {i}: {x} pkt/s vs Mathis {mathis} (p {}, RTT {})",
                p[i],
                rtt[i]
            );
        }
        // The long flow loses at the sum of the two links' drop rates (each drops the
        // same fraction of every flow's arrivals).
        let p_long = lost[0] as f64 / (lost[0] as f64 + pkts[0]);
        assert!(
            (p_long / (da + db) - 1.0).abs() < 0.1,
            "long flow loses {p_long}, links drop {da} + {db}"
        );
        let ratio = 2.0 * g[0] / (g[1] + g[2]);
        assert!(ratio > 0.55 && ratio < 0.85, "long/short goodput {ratio}");
        // Both links are used, and equally (the topology is symmetric).
        let (ua, ub) = (
            out.get("links.bottleneck.utilization"),
            out.get("links.second.utilization"),
        );
        assert!(ua > 0.8 && (ua - ub).abs() < 0.02, "{ua} {ub}");
    }
}
