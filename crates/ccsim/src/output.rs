//! Running a scenario and shaping its results: the summary (scalars), the sampled
//! series and the per-flow table.

use crate::engine::World;
use crate::metrics::{categorical, jain, Column, Table};
use crate::net::topology::{build_dumbbell, BuildInfo};
use crate::scenario::{self, Engine, Scenario, ScenarioError, TopologyKind};
use serde_json::{json, Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("interrupted")]
    Interrupted,
}

/// Everything a run produces.
#[derive(Debug)]
pub struct Output {
    pub summary: Value,
    pub series: Table,
    pub flows: Table,
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
    if sc.engine == Engine::Fluid {
        return crate::fluid::run(sc, progress);
    }
    if sc.fluid.is_some() {
        return Err(ScenarioError::at("fluid", "only read by engine = \"fluid\"").into());
    }
    let (mut world, info) = match sc.topology.kind {
        TopologyKind::Dumbbell => build_dumbbell(sc)?,
    };
    let wall = std::time::Instant::now();
    world.run(progress).map_err(|_| RunError::Interrupted)?;
    let wall_s = wall.elapsed().as_secs_f64();
    Ok(collect(sc, &mut world, &info, wall_s))
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
    let mut links = Map::new();
    for &l in &w.monitored {
        links.insert(
            w.links[l.0 as usize].name.clone(),
            link_summary(w, l.0 as usize),
        );
    }

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
    let (mut losses, mut retx, mut tos, mut frs, mut cwnd) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, f) in w.flows.iter().enumerate() {
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
        cwnd.push(f.sender.st.cwnd);
        b2b.push(c.back_to_back as i64);
        ecn_red.push(c.ecn_reductions as i64);
        rec_time.push(c.recovery_time.as_secs_f64());
        first_drop.push(f.cwnd_at_first_drop.unwrap_or(f64::NAN));
        flight_drop.push(f.flight_at_first_drop.map_or(f64::NAN, |x| x as f64));
    }
    let fwd_goodput: Vec<f64> = w
        .flows
        .iter()
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
            "count": w.flows.len(),
            "goodput_bps_total": goodput.iter().sum::<f64>(),
            "goodput_bps_forward": fwd_goodput.iter().sum::<f64>(),
            "jain_fairness": jain(&fwd_goodput),
            "completed": w.flows.iter().filter(|f| f.receiver.completed_at.is_some()).count(),
        },
        "sources": sources,
        "conservation": {
            "sent": sent,
            "delivered": w.delivered,
            "dropped": w.dropped,
            "in_flight": in_flight,
            "ok": sent == accounted,
        },
    });
    let series = std::mem::take(&mut w.series);
    Output {
        summary,
        series: series.into_table(),
        flows,
    }
}
