//! Running a scenario and shaping its results: the summary (scalars), the sampled
//! series and the per-flow table.

use crate::engine::{DropLogging, World};
pub use crate::error::RunError;
use crate::metrics::probe::{Probe, ProbeConfig};
use crate::metrics::{categorical, jain, jain_rtt, report, sync, Column, Table};
use crate::net::topology::BuildInfo;
use crate::scenario::{self, Engine, LinkReport, Scenario, ScenarioError};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Where a run may write files.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Directory of the pcap traces (default: the current directory).
    pub pcap_dir: Option<PathBuf>,
}

/// One pcap trace written by a run.
#[derive(Clone, Debug)]
pub struct PcapFile {
    pub link: String,
    pub path: PathBuf,
    pub packets: u64,
}

/// Everything a run produces.
#[derive(Debug, Default)]
pub struct Output {
    pub summary: Value,
    pub series: Table,
    pub flows: Table,
    /// Drops and congestion events, when `output.events` asked for them.
    pub events: Option<Table>,
    pub pcap: Vec<PcapFile>,
}

impl Output {
    /// Shorthand for a number in the summary by a dotted path (`links.bottleneck.utilization`).
    pub fn get(&self, path: &str) -> f64 {
        let mut v = &self.summary;
        for k in path.split('.') {
            v = &v[k];
        }
        v.as_f64()
            .unwrap_or_else(|| panic!("summary has no number at {path}"))
    }
}

pub fn run(text: &str, overrides: &[String]) -> Result<Output, RunError> {
    run_with_progress(text, overrides, &mut |_| true)
}

pub fn run_with_progress(
    text: &str,
    overrides: &[String],
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Output, RunError> {
    let sc = scenario::parse(text, overrides)?;
    run_scenario(&sc, progress)
}

pub fn run_scenario(
    sc: &Scenario,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Output, RunError> {
    run_scenario_with(sc, progress, &RunOptions::default())
}

/// Parse and run with file options (pcap directory).
pub fn run_with_options(
    text: &str,
    overrides: &[String],
    progress: &mut dyn FnMut(f64) -> bool,
    opts: &RunOptions,
) -> Result<Output, RunError> {
    let sc = scenario::parse(text, overrides)?;
    run_scenario_with(&sc, progress, opts)
}

pub fn run_scenario_with(
    sc: &Scenario,
    progress: &mut dyn FnMut(f64) -> bool,
    opts: &RunOptions,
) -> Result<Output, RunError> {
    if sc.engine == Engine::Fluid {
        let o = &sc.output;
        for (bad, field) in [
            (o.events, "output.events"),
            (!o.pcap.is_empty(), "output.pcap"),
            (o.links == LinkReport::All, "output.links"),
        ] {
            if bad {
                return Err(ScenarioError::at(field, "only the packet engine records it").into());
            }
        }
        return crate::fluid::run(sc, progress);
    }
    if sc.fluid.is_some() {
        return Err(ScenarioError::at("fluid", "only read by engine = \"fluid\"").into());
    }
    let (mut world, info) = crate::net::topology::build(sc)?;
    configure(sc, &mut world)?;
    open_pcap(sc, &mut world, opts)?;
    let wall = std::time::Instant::now();
    let ran = world.run(progress);
    let pcap = close_pcap(&mut world)?;
    ran.map_err(|_| RunError::Interrupted)?;
    let wall_s = wall.elapsed().as_secs_f64();
    let mut out = collect(sc, &mut world, &info, wall_s);
    out.pcap = pcap;
    Ok(out)
}

/// Resolve `[metrics]` and `[output]` against the built world: the probe, drop
/// logging, the links reported.
fn configure(sc: &Scenario, w: &mut World) -> Result<(), RunError> {
    let m = &sc.metrics;
    let reference = match &m.converge_to {
        None => None,
        Some(name) => {
            let ids: Vec<usize> = (0..w.flows.len())
                .filter(|&i| &w.flows[i].group == name && w.flows[i].slot.is_none())
                .collect();
            match ids.as_slice() {
                [i] => Some(*i),
                [] => {
                    return Err(ScenarioError::at(
                        "metrics.converge_to",
                        format!("no flow group named \"{name}\""),
                    )
                    .into())
                }
                many => {
                    return Err(ScenarioError::at(
                        "metrics.converge_to",
                        format!(
                            "group \"{name}\" has {} flows; the reference must be one flow",
                            many.len()
                        ),
                    )
                    .into())
                }
            }
        }
    };
    let (sample, per_window, conv_every, fraction) = m.resolve()?;
    w.probe = Probe::new(ProbeConfig {
        sample,
        per_window,
        conv_every,
        fraction,
        reference,
        warmup: w.warmup,
    });
    w.drop_logging = if sc.output.events {
        DropLogging::All
    } else {
        DropLogging::MonitoredQueues
    };
    if sc.output.links == LinkReport::All {
        w.monitored = (0..w.links.len() as u32).map(crate::sim::LinkId).collect();
    }
    // The engine reads the flag on its hot paths (drop logging, fairness samples).
    for i in 0..w.monitored.len() {
        let l = w.monitored[i].0 as usize;
        w.links[l].monitor = true;
    }
    Ok(())
}

fn open_pcap(sc: &Scenario, w: &mut World, opts: &RunOptions) -> Result<(), RunError> {
    let o = &sc.output;
    if o.pcap.is_empty() {
        return Ok(());
    }
    let dir = opts.pcap_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let mut taps = Vec::new();
    for (i, name) in o.pcap.iter().enumerate() {
        let Some(l) = w.links.iter().position(|l| &l.name == name) else {
            let known: Vec<&str> = w.links.iter().take(6).map(|l| l.name.as_str()).collect();
            let more = if w.links.len() > 6 { ", ..." } else { "" };
            return Err(ScenarioError::at(
                &format!("output.pcap[{i}]"),
                format!(
                    "no link named \"{name}\" (links: {}{more})",
                    known.join(", ")
                ),
            )
            .into());
        };
        if taps.iter().any(|(k, _)| *k == l) {
            return Err(ScenarioError::at(
                &format!("output.pcap[{i}]"),
                format!("link \"{name}\" is listed twice"),
            )
            .into());
        }
        taps.push((l, dir.join(format!("{name}.pcap"))));
    }
    let flows = w
        .flows
        .iter()
        .map(|f| crate::pcap::FlowInfo {
            mss: f.sender.cfg.mss,
            bytes: f.size_bytes.unwrap_or(u64::MAX),
        })
        .collect();
    std::fs::create_dir_all(&dir)
        .map_err(|e| RunError::Output(format!("pcap directory {}: {e}", dir.display())))?;
    let t = crate::pcap::Taps::open(w.links.len(), &taps, o.pcap_snaplen.unwrap_or(128), flows)
        .map_err(|e| RunError::Output(format!("opening a pcap file in {}: {e}", dir.display())))?;
    w.pcap = Some(t);
    Ok(())
}

fn close_pcap(w: &mut World) -> Result<Vec<PcapFile>, RunError> {
    let Some(t) = w.pcap.take() else {
        return Ok(Vec::new());
    };
    let files = t
        .finish()
        .map_err(|e| RunError::Output(format!("writing a pcap trace: {e}")))?;
    Ok(files
        .into_iter()
        .map(|(path, packets)| PcapFile {
            link: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path,
            packets,
        })
        .collect())
}

fn link_summary(w: &World, li: usize) -> Value {
    let l = &w.links[li];
    let s = &w.link_snap[li];
    let t0 = w.warmup;
    let t1 = w.now;
    let win = (t1 - t0).0 as f64;
    let (busy, busy_data) = l.busy_at(t1);
    let arrivals = l.c.arrivals - s.c.arrivals;
    let drops = l.c.drops - s.c.drops;
    let losses = l.c.random_losses - s.c.random_losses;
    let dequeued = l.c.dequeued - s.c.dequeued;
    let tx_bytes = l.c.tx_bytes - s.c.tx_bytes;
    let mut v = json!({
        "rate_bps": l.rate.as_f64(),
        "delay_s": l.delay.as_secs_f64(),
        "utilization": (busy - s.busy.0) as f64 / win,
        "utilization_data": (busy_data - s.busy.1) as f64 / win,
        "throughput_bps": tx_bytes as f64 * 8.0 / (win / 1e12),
        "tx_pkts": l.c.tx_pkts - s.c.tx_pkts,
        "arrivals": arrivals,
        "drops": drops,
        "random_losses": losses,
        "drop_rate": if arrivals > 0 { (drops + losses) as f64 / arrivals as f64 } else { 0.0 },
        "queue_max_pkts": l.max_pkts,
        "queue_max_bytes": l.max_bytes,
        "queue_mean_pkts": (l.c.q_area_pkts - s.c.q_area_pkts) as f64 / win,
        "queue_mean_bytes": (l.c.q_area_bytes - s.c.q_area_bytes) as f64 / win,
        "queue_delay_mean_s": if dequeued > 0 { (l.c.sojourn_ps - s.c.sojourn_ps) as f64 / 1e12 / dequeued as f64 } else { 0.0 },
    });
    if !l.nsys_hist.is_empty() {
        // Time-weighted distribution of the number in system (queue + in service).
        let total: u128 = l.nsys_hist.iter().sum();
        if total > 0 {
            let last = l.nsys_hist.iter().rposition(|&x| x > 0).unwrap_or(0);
            let p: Vec<f64> = l.nsys_hist[..=last]
                .iter()
                .map(|&x| x as f64 / total as f64)
                .collect();
            v["occupancy_dist"] = json!(p);
        }
    }
    v
}

fn collect(sc: &Scenario, w: &mut World, info: &BuildInfo, wall_s: f64) -> Output {
    let win = (w.now - w.warmup).as_secs_f64();
    let crossing = report::link_flows(w);
    let monitored: Vec<usize> = w.monitored.iter().map(|l| l.0 as usize).collect();
    let gap_of = |l: usize| {
        sc.metrics
            .sync_gap
            .map_or_else(|| report::sync_gap(w, &crossing[l], info.mean_rtt), |d| d.0)
    };
    let (cong, event_of) = report::all_congestion_events(w, &monitored, &crossing, gap_of);
    let window_goodput = |i: usize| w.flow_window(i).bytes_delivered as f64 * 8.0 / win;
    let mut links = Map::new();
    for &l in &monitored {
        let mut v = link_summary(w, l);
        // Fairness among the flows whose data crosses the link, over the window.
        let on: Vec<usize> = crossing[l]
            .iter()
            .copied()
            .filter(|&i| w.flows[i].started)
            .collect();
        let x: Vec<f64> = on.iter().map(|&i| window_goodput(i)).collect();
        let rtt: Vec<f64> = on
            .iter()
            .map(|&i| w.flows[i].rtt_prop.as_secs_f64())
            .collect();
        v["flows"] = json!(on.len());
        // No flows, no fairness to speak of (Jain's index of nothing would read 1).
        let fair = |j: f64| if on.is_empty() { Value::Null } else { json!(j) };
        v["jain"] = fair(jain(&x));
        v["jain_rtt"] = fair(jain_rtt(&x, &rtt));
        // Loss synchronization over the congestion events that begin in the window.
        let ev: Vec<sync::CongestionEvent> = cong
            .iter()
            .filter(|e| e.link as usize == l && e.start >= w.warmup)
            .copied()
            .collect();
        let s = sync::summarize(&ev);
        v["sync"] = json!({
            "gap_s": gap_of(l).as_secs_f64(),
            "events": s.events,
            "mean": nan_null(s.mean),
            "median": nan_null(s.median),
            "p10": nan_null(s.p10),
            "p90": nan_null(s.p90),
            "hist": s.hist,
        });
        links.insert(w.links[l].name.clone(), v);
    }
    let ideal = report::ideal_latencies(w, &crossing, sc.metrics.fair_share_flows);

    // Per-flow table.
    let n = w.flows.len();
    let mut id = Vec::with_capacity(n);
    let (mut group, mut ccn, mut dir) = (Vec::new(), Vec::new(), Vec::new());
    let (mut start, mut rtt, mut goodput, mut delivered, mut fct, mut size) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    let (mut b2b, mut first_drop, mut flight_drop) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ecn_red, mut rec_time) = (Vec::new(), Vec::new());
    let (mut cov_mean, mut cov_n, mut conv, mut ideal_s, mut norm) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut losses, mut retx, mut tos, mut frs, mut cwnd) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in w.flows.iter().enumerate() {
        if f.slot.is_some() {
            continue; // workload slots: one row per instance, below
        }
        let c = w.flow_window(i);
        id.push(i as i32);
        group.push(f.group.clone());
        ccn.push(f.cc_name.clone());
        dir.push(if f.reverse { "reverse" } else { "forward" });
        start.push(f.start.as_secs_f64());
        rtt.push(f.rtt_prop.as_secs_f64());
        goodput.push(c.bytes_delivered as f64 * 8.0 / win);
        delivered.push(c.bytes_delivered as i64);
        fct.push(
            f.receiver
                .completed_at
                .map_or(f64::NAN, |t| (t - f.start).as_secs_f64()),
        );
        size.push(f.size_bytes.map_or(f64::NAN, |b| b as f64));
        losses.push(c.losses as i64);
        retx.push(c.retransmits as i64);
        tos.push(c.timeouts as i64);
        frs.push(c.fast_retransmits as i64);
        cwnd.push(f.sender.cwnd());
        b2b.push(c.back_to_back as i64);
        ecn_red.push(c.ecn_reductions as i64);
        rec_time.push(c.recovery_time.as_secs_f64());
        cov_mean.push(w.probe.cov_mean(i));
        cov_n.push(w.probe.cov_windows(i) as i64);
        conv.push(w.probe.convergence(i).map_or(f64::NAN, |t| t.as_secs_f64()));
        ideal_s.push(ideal[i]);
        norm.push(
            f.receiver
                .completed_at
                .map_or(f64::NAN, |t| (t - f.start).as_secs_f64() / ideal[i]),
        );
        first_drop.push(f.cwnd_at_first_drop.unwrap_or(f64::NAN));
        flight_drop.push(f.flight_at_first_drop.map_or(f64::NAN, |x| x as f64));
    }
    // Dynamic workloads (traffic/): every finished flow, then those still running;
    // `flow` is the slot's id. The summary's fairness stays over the static flows.
    let wl_rows = crate::traffic::workload_rows(w);
    for r in &wl_rows {
        let c = &r.window;
        let fct_s = r
            .completed
            .map_or(f64::NAN, |t| (t - r.start).as_secs_f64());
        id.push(r.flow as i32);
        group.push(r.group.clone());
        ccn.push(r.cc.clone());
        dir.push(if r.reverse { "reverse" } else { "forward" });
        start.push(r.start.as_secs_f64());
        rtt.push(r.rtt_prop.as_secs_f64());
        goodput.push(c.bytes_delivered as f64 * 8.0 / win);
        delivered.push(c.bytes_delivered as i64);
        fct.push(fct_s);
        size.push(r.size as f64);
        losses.push(c.losses as i64);
        retx.push(c.retransmits as i64);
        tos.push(c.timeouts as i64);
        frs.push(c.fast_retransmits as i64);
        cwnd.push(r.cwnd_final);
        b2b.push(c.back_to_back as i64);
        ecn_red.push(c.ecn_reductions as i64);
        rec_time.push(c.recovery_time.as_secs_f64());
        cov_mean.push(f64::NAN);
        cov_n.push(0);
        conv.push(f64::NAN);
        ideal_s.push(r.ideal_latency);
        norm.push(fct_s / r.ideal_latency);
        first_drop.push(r.cwnd_at_first_drop.unwrap_or(f64::NAN));
        flight_drop.push(r.flight_at_first_drop.map_or(f64::NAN, |x| x as f64));
    }
    let fwd_goodput: Vec<f64> = w
        .flows
        .iter()
        .filter(|f| f.slot.is_none())
        .zip(&goodput)
        .filter(|(f, _)| !f.reverse)
        .map(|(_, &g)| g)
        .collect();
    let mut flows = Table::default();
    flows.push("flow", Column::I32(id));
    flows.push("group", categorical(&group));
    flows.push("cc", categorical(&ccn));
    flows.push("direction", categorical(&dir));
    flows.push("start_s", Column::F64(start));
    flows.push("rtt_prop_s", Column::F64(rtt));
    flows.push("size_bytes", Column::F64(size));
    flows.push("goodput_bps", Column::F64(goodput.clone()));
    flows.push("bytes_delivered", Column::I64(delivered));
    flows.push("fct_s", Column::F64(fct));
    flows.push("losses", Column::I64(losses));
    flows.push("retransmits", Column::I64(retx));
    flows.push("timeouts", Column::I64(tos));
    flows.push("fast_retransmits", Column::I64(frs));
    flows.push("cwnd_final", Column::F64(cwnd));
    flows.push("cwnd_at_first_drop", Column::F64(first_drop));
    flows.push("flight_at_first_drop", Column::F64(flight_drop));
    flows.push("back_to_back", Column::I64(b2b));
    flows.push("ecn_reductions", Column::I64(ecn_red));
    flows.push("recovery_s", Column::F64(rec_time));
    flows.push("cov_mean", Column::F64(cov_mean.clone()));
    flows.push("cov_windows", Column::I64(cov_n));
    flows.push("convergence_s", Column::F64(conv));
    flows.push("ideal_latency_s", Column::F64(ideal_s));
    flows.push("normalized_latency", Column::F64(norm.clone()));
    let fwd_rtt: Vec<f64> = w
        .flows
        .iter()
        .filter(|f| !f.reverse && f.slot.is_none())
        .map(|f| f.rtt_prop.as_secs_f64())
        .collect();
    let finite_mean = |v: &[f64]| {
        let ok: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        if ok.is_empty() {
            Value::Null
        } else {
            json!(ok.iter().sum::<f64>() / ok.len() as f64)
        }
    };
    let statics = || w.flows.iter().filter(|f| f.slot.is_none());
    let fct_all: Vec<f64> = statics()
        .filter_map(|f| f.receiver.completed_at.map(|t| (t - f.start).as_secs_f64()))
        .chain(
            wl_rows
                .iter()
                .filter_map(|r| r.completed.map(|t| (t - r.start).as_secs_f64())),
        )
        .collect();
    let workloads = crate::traffic::summary(w);

    let in_flight = w.in_flight();
    let sent = w.injected;
    let accounted = w.delivered + w.dropped + in_flight;
    let sources: Vec<Value> = w
        .sources
        .iter()
        .map(|s| json!({"name": s.name, "sent": s.sent, "delivered": s.delivered, "dropped": s.dropped}))
        .collect();
    let summary = json!({
        "name": sc.name.clone().unwrap_or_else(|| "unnamed".into()),
        "seed": sc.seed,
        "engine": "packet",
        "duration_s": sc.duration.0.as_secs_f64(),
        "warmup_s": sc.warmup.0.as_secs_f64(),
        "wall_s": wall_s,
        "events": w.events.processed(),
        "bottleneck": w.links[w.bottleneck.0 as usize].name,
        "bottleneck_packets": w.links[w.bottleneck.0 as usize].c.tx_pkts,
        "bdp_bytes": info.bdp_bytes,
        "bdp_pkts": if info.packet_size > 0.0 { info.bdp_bytes / info.packet_size } else { 0.0 },
        "mean_rtt_s": info.mean_rtt,
        "buffer": info.buffer_limit,
        "links": links,
        "flows": {
            "count": statics().count() + wl_rows.len(),
            "goodput_bps_total": goodput.iter().sum::<f64>(),
            "goodput_bps_forward": fwd_goodput.iter().sum::<f64>(),
            "jain_fairness": jain(&fwd_goodput),
            "jain_fairness_rtt": jain_rtt(&fwd_goodput, &fwd_rtt),
            "cov_mean": finite_mean(&cov_mean),
            "fct_mean_s": finite_mean(&fct_all),
            "normalized_latency_mean": finite_mean(&norm),
            "completed": fct_all.len(),
        },
        "sources": sources,
        "workloads": workloads,
        "conservation": {
            "sent": sent,
            "delivered": w.delivered,
            "dropped": w.dropped,
            "in_flight": in_flight,
            "ok": sent == accounted,
        },
    });
    let mut series = std::mem::take(&mut w.series);
    if sc.sample_interval.is_some() {
        for c in &w.probe.covs {
            series.push_flow(
                c.end.as_secs_f64(),
                c.flow,
                crate::metrics::SeriesMetric::Cov,
                c.cov,
            );
        }
    }
    let events = sc
        .output
        .events
        .then(|| report::events_table(w, &cong, &event_of));
    Output {
        summary,
        series: series.into_table(),
        flows,
        events,
        pcap: Vec::new(),
    }
}

/// JSON has no NaN: an undefined statistic is null.
fn nan_null(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}
