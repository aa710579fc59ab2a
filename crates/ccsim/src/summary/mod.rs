//! The summary: every metric of docs/metrics.md, computed from an engine's records,
//! into the one `summary.json`, flows table, series and events tables that both
//! engines produce. Nothing here knows which engine ran, except to say so.

mod events;
mod groups;
mod latency;
pub mod table;
mod values;

use crate::metrics::sync::{summarize as sync_summary, CongestionEvent};
use crate::metrics::{jain, jain_rtt};
use crate::records::{
    FlowRecord, LinkRecord, Records, SeriesBuf, SeriesMetric, SERIES_ENTITIES, SERIES_METRICS,
};
use crate::units::Time;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use table::{categorical, Column, Table};
use values::{count, finite_mean, nan_null};

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

/// When each flow id was active, as `[start, end]` intervals: a static flow from its
/// start to its last byte's arrival (or the end), a workload slot once per instance,
/// from its start until its sender had every byte acknowledged.
fn activity(rec: &Records) -> Vec<Vec<(Time, Time)>> {
    let n = rec
        .flows
        .iter()
        .map(|f| f.flow as usize + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![Vec::new(); n];
    for f in &rec.flows {
        if !f.started {
            continue;
        }
        let end = if f.instance {
            f.finished.unwrap_or(Time::MAX)
        } else {
            f.completed.unwrap_or(Time::MAX)
        };
        out[f.flow as usize].push((f.start, end));
    }
    out
}

/// Per link: the flow ids whose data crosses it, in id order.
fn crossing(rec: &Records) -> Vec<Vec<usize>> {
    let n = rec
        .flows
        .iter()
        .map(|f| f.flow as usize + 1)
        .max()
        .unwrap_or(0);
    let mut path_of: Vec<Option<u32>> = vec![None; n];
    for f in &rec.flows {
        path_of[f.flow as usize].get_or_insert(f.data_path);
    }
    let mut out = vec![Vec::new(); rec.links.len()];
    for (i, p) in path_of.iter().enumerate() {
        if let Some(p) = p {
            for &l in &rec.paths[*p as usize] {
                out[l as usize].push(i);
            }
        }
    }
    out
}

/// Fill in each congestion event's active flows: those crossing its link that were
/// active at some time during it (never fewer than those that lost).
fn count_active(
    events: &mut [CongestionEvent],
    crossing: &[Vec<usize>],
    act: &[Vec<(Time, Time)>],
) {
    for e in events {
        let on_link = &crossing[e.link as usize];
        let active = on_link
            .iter()
            .filter(|&&i| {
                act.get(i)
                    .is_some_and(|v| v.iter().any(|&(a, b)| a <= e.end && b >= e.start))
            })
            .count() as u32;
        e.flows_active = active.max(e.flows_lost);
    }
}

fn link_summary(l: &LinkRecord, win: f64) -> Value {
    let c = &l.window;
    let drops = c.drops_overflow + c.drops_aqm;
    // Against the capacity offered: rate × window for a constant rate, ∫C dt for a
    // trace or a rate that changed (where busy time / window would misstate it).
    let (utilization, utilization_data, capacity_bps) = match &l.capacity {
        None => (c.busy_s / win, c.busy_data_s / win, l.rate_bps),
        Some(cap) if cap.offered_bits > 0.0 => (
            cap.used_bits / cap.offered_bits,
            cap.used_data_bits / cap.offered_bits,
            cap.offered_bits / win,
        ),
        Some(_) => (0.0, 0.0, 0.0),
    };
    let sj = &l.sojourn;
    let mut v = json!({
        "rate_bps": l.rate_bps,
        "capacity_bps": capacity_bps,
        "delay_s": l.delay_s,
        "buffer": l.buffer,
        "utilization": utilization,
        "utilization_data": utilization_data,
        "throughput_bps": c.tx_bytes * 8.0 / win,
        "tx_pkts": count(c.tx_pkts),
        "arrivals": count(c.arrivals),
        "drops": count(drops),
        "drops_overflow": count(c.drops_overflow),
        "drops_aqm": count(c.drops_aqm),
        "ecn_marks": count(c.ecn_marks),
        "mark_rate": if c.arrivals > 0.0 { c.ecn_marks / c.arrivals } else { 0.0 },
        "random_losses": count(c.wire_losses),
        "drop_rate": if c.arrivals > 0.0 { (drops + c.wire_losses) / c.arrivals } else { 0.0 },
        "queue_max_pkts": count(l.queue_max_pkts),
        "queue_max_bytes": count(l.queue_max_bytes),
        "queue_mean_pkts": c.q_area_pkts / win,
        "queue_mean_bytes": c.q_area_bytes / win,
        "queue_delay_mean_s": if c.departed > 0.0 { c.sojourn_s / c.departed } else { 0.0 },
        "queue_delay_p50_s": nan_null(sj.p50),
        "queue_delay_p95_s": nan_null(sj.p95),
        "queue_delay_p99_s": nan_null(sj.p99),
        "queue_delay_max_s": nan_null(sj.max),
        "occupancy_dist": Value::Null,
    });
    if !l.occupancy.is_empty() {
        v["occupancy_dist"] = json!(l.occupancy);
    }
    v
}

/// The summary, flows table, series and (with `events`) events table of a run.
pub fn summarize(mut rec: Records, events: bool) -> Output {
    let info = rec.info.clone();
    let win = info.window_s();
    let crossing = crossing(&rec);
    let act = activity(&rec);
    count_active(&mut rec.congestion, &crossing, &act);
    let goodput_of = |f: &FlowRecord| f.window.bytes_delivered * 8.0 / win;

    // Per link: statistics, fairness among the static flows crossing it, and loss
    // synchronization over the congestion events that begin in the window.
    let mut links = Map::new();
    for (li, l) in rec.links.iter().enumerate().filter(|(_, l)| l.monitored) {
        let mut v = link_summary(l, win);
        // The link's id in the series table (its `id` column), so a reader can name it.
        v["id"] = json!(li);
        let on: Vec<&FlowRecord> = rec
            .flows
            .iter()
            .filter(|f| {
                !f.instance && f.started && rec.paths[f.data_path as usize].contains(&(li as u32))
            })
            .collect();
        let x: Vec<f64> = on.iter().map(|f| goodput_of(f)).collect();
        let rtt: Vec<f64> = on.iter().map(|f| f.rtt_prop.as_secs_f64()).collect();
        v["flows"] = json!(on.len());
        // No flows, no fairness to speak of (Jain's index of nothing would read 1).
        let fair = |j: f64| if on.is_empty() { Value::Null } else { json!(j) };
        v["jain"] = fair(jain(&x));
        v["jain_rtt"] = fair(jain_rtt(&x, &rtt));
        let ev: Vec<CongestionEvent> = rec
            .congestion
            .iter()
            .filter(|e| e.link as usize == li && e.start >= info.warmup)
            .copied()
            .collect();
        let s = sync_summary(&ev);
        v["sync"] = json!({
            "gap_s": l.sync_gap.as_secs_f64(),
            "events": s.events,
            "mean": nan_null(s.mean),
            "median": nan_null(s.median),
            "p10": nan_null(s.p10),
            "p90": nan_null(s.p90),
            "hist": s.hist,
        });
        v["balanced"] = json!(l.balance.ok());
        links.insert(l.name.clone(), v);
    }

    // The flows table: static flows, then workload instances.
    let ideal = latency::ideal_latencies(&rec);
    let flows = flows_table(&rec, &ideal, win);
    let goodput = flows.f64("goodput_bps").unwrap_or(&[]).to_vec();
    let norm = flows.f64("normalized_latency").unwrap_or(&[]).to_vec();
    let cov_mean = flows.f64("cov_mean").unwrap_or(&[]).to_vec();
    let statics: Vec<&FlowRecord> = rec.flows.iter().filter(|f| !f.instance).collect();
    let fwd: Vec<&FlowRecord> = statics.iter().copied().filter(|f| !f.reverse).collect();
    let fwd_goodput: Vec<f64> = fwd.iter().map(|f| goodput_of(f)).collect();
    let fwd_rtt: Vec<f64> = fwd.iter().map(|f| f.rtt_prop.as_secs_f64()).collect();
    let fct_all: Vec<f64> = rec
        .flows
        .iter()
        .filter_map(|f| f.completed.map(|t| (t - f.start).as_secs_f64()))
        .collect();

    let balanced = rec.links.iter().all(|l| l.balance.ok());
    let cons = |g: &dyn Fn(&crate::records::Conservation) -> f64| {
        rec.conservation
            .as_ref()
            .map_or(Value::Null, |c| count(g(c)))
    };
    let bottleneck = &rec.links[info.bottleneck];
    let summary = json!({
        "name": info.name,
        "seed": info.seed,
        "engine": info.engine.name(),
        "duration_s": info.duration.as_secs_f64(),
        "warmup_s": info.warmup.as_secs_f64(),
        "wall_s": info.wall_s,
        "events": info.events,
        "steps": info.steps,
        "step_s": info.step_s,
        "bottleneck": bottleneck.name,
        "bottleneck_packets": count(bottleneck.tx_pkts_total),
        "bdp_bytes": info.bdp_bytes,
        "bdp_pkts": if info.packet_size > 0.0 { info.bdp_bytes / info.packet_size } else { 0.0 },
        "mean_rtt_s": info.mean_rtt_s,
        "buffer": info.buffer,
        "tcp": info.tcp.iter().cloned().collect::<Map<String, Value>>(),
        "links": links,
        "flows": {
            "count": rec.flows.len(),
            "goodput_bps_total": goodput.iter().sum::<f64>(),
            "goodput_bps_forward": fwd_goodput.iter().sum::<f64>(),
            "jain_fairness": jain(&fwd_goodput),
            "jain_fairness_rtt": jain_rtt(&fwd_goodput, &fwd_rtt),
            "cov_mean": finite_mean(&cov_mean),
            "fct_mean_s": finite_mean(&fct_all),
            "normalized_latency_mean": finite_mean(&norm),
            "completed": fct_all.len(),
        },
        "groups": groups::groups(&rec, win),
        "sources": rec.sources.iter().map(|s| json!({
            "name": s.name, "sent": s.sent, "delivered": s.delivered, "dropped": s.dropped,
        })).collect::<Vec<_>>(),
        "workloads": rec.workloads.iter().map(|w| json!({
            "name": w.name,
            "kind": w.kind,
            "slots": w.slots,
            "arrivals": w.arrivals,
            "blocked": w.blocked,
            "started": w.started,
            "completed": w.completed,
            "drain_waits": w.drain_waits,
            "offered_bytes": w.offered_bytes,
            "capacity_bps": w.capacity_bps,
            "offered_load": if win > 0.0 {
                w.offered_bytes_window as f64 * 8.0 / (w.capacity_bps * win)
            } else {
                f64::NAN
            },
        })).collect::<Vec<_>>(),
        "conservation": {
            "sent": cons(&|c| c.sent),
            "delivered": cons(&|c| c.delivered),
            "dropped": cons(&|c| c.dropped),
            "in_flight": cons(&|c| c.in_flight),
            "queues_balanced": balanced,
            "ok": rec.conservation.as_ref().is_none_or(|c| c.ok()) && balanced,
        },
    });

    let events_table = events.then(|| events::table(&rec));
    let mut series = std::mem::take(&mut rec.series);
    add_fairness_series(&mut series, &rec);
    if info.sample_interval.is_some() {
        for c in &rec.covs {
            series.push_flow(c.end.as_secs_f64(), c.flow, SeriesMetric::Cov, c.cov);
        }
    }
    Output {
        summary,
        series: series_table(series),
        flows,
        events: events_table,
        pcap: Vec::new(),
    }
}

/// Per reported link and sample: the RTT-normalized Jain fairness (study 001) of the
/// interval's throughputs of the flows whose data crosses it and that were active
/// throughout the interval (started by its beginning, not completed before its end).
fn add_fairness_series(series: &mut SeriesBuf, rec: &Records) {
    let Some(iv) = rec.info.sample_interval else {
        return;
    };
    let n = rec
        .flows
        .iter()
        .map(|f| f.flow as usize + 1)
        .max()
        .unwrap_or(0);
    // Per flow id: its RTT, data route, and [start, receiver completion) intervals.
    let mut rtt = vec![f64::NAN; n];
    let mut path = vec![u32::MAX; n];
    let mut live: Vec<Vec<(Time, Time)>> = vec![Vec::new(); n];
    for f in &rec.flows {
        let i = f.flow as usize;
        rtt[i] = f.rtt_prop.as_secs_f64();
        path[i] = f.data_path;
        if f.started {
            live[i].push((f.start, f.completed.unwrap_or(Time::MAX)));
        }
    }
    let reported: Vec<u32> = (0..rec.links.len() as u32)
        .filter(|&l| rec.links[l as usize].monitored)
        .collect();
    let mut sums = vec![crate::metrics::fairness::JainSums::default(); rec.links.len()];
    let (mut rows, mut i, len) = (Vec::new(), 0, series.len());
    let thr = SeriesMetric::Throughput as u8;
    let iv_s = iv.as_secs_f64();
    while i < len {
        // One sample (its rows are contiguous), at an exact multiple of the interval.
        let t = series.time[i];
        let mut j = i;
        while j < len && series.time[j] == t {
            j += 1;
        }
        let now = Time(iv.0 * (t / iv_s).round() as u64);
        let since = now.saturating_sub(iv);
        sums.iter_mut().for_each(|s| *s = Default::default());
        for k in i..j {
            if series.entity[k] != 1 || series.metric[k] != thr {
                continue;
            }
            let f = series.id[k] as usize;
            let active = live
                .get(f)
                .is_some_and(|v| v.iter().any(|&(a, b)| a <= since && b > now));
            if active {
                let y = series.value[k] * rtt[f];
                for &l in &rec.paths[path[f] as usize] {
                    if rec.links[l as usize].monitored {
                        sums[l as usize].add(y);
                    }
                }
            }
        }
        for &l in &reported {
            let s = &sums[l as usize];
            if !s.is_empty() {
                rows.push((t, l, s.value()));
            }
        }
        i = j;
    }
    for (t, l, v) in rows {
        series.push_link(t, l, SeriesMetric::JainRtt, v);
    }
}

/// The series as a table, rows in time order (within a time: links, then flows).
pub fn series_table(s: SeriesBuf) -> Table {
    let mut order: Vec<usize> = (0..s.len()).collect();
    order.sort_by(|&a, &b| {
        s.time[a]
            .total_cmp(&s.time[b])
            .then(s.entity[a].cmp(&s.entity[b]))
    });
    let pick = |v: &Vec<f64>| order.iter().map(|&k| v[k]).collect::<Vec<f64>>();
    let mut t = Table::default();
    t.push("time", Column::F64(pick(&s.time)));
    t.push(
        "entity",
        Column::Cat(
            order.iter().map(|&k| s.entity[k]).collect(),
            SERIES_ENTITIES.iter().map(|s| s.to_string()).collect(),
        ),
    );
    t.push("id", Column::I32(order.iter().map(|&k| s.id[k]).collect()));
    t.push(
        "metric",
        Column::Cat(
            order.iter().map(|&k| s.metric[k]).collect(),
            SERIES_METRICS.iter().map(|s| s.to_string()).collect(),
        ),
    );
    t.push("value", Column::F64(pick(&s.value)));
    t
}

/// One row per flow record: static flows by id, then workload instances.
fn flows_table(rec: &Records, ideal: &[f64], win: f64) -> Table {
    let fs = &rec.flows;
    let f64col = |g: &dyn Fn(&FlowRecord) -> f64| Column::F64(fs.iter().map(g).collect());
    let i64col = |g: &dyn Fn(&FlowRecord) -> f64| {
        Column::I64(fs.iter().map(|f| g(f).round() as i64).collect())
    };
    let fct = |f: &FlowRecord| {
        f.completed
            .map_or(f64::NAN, |t| (t - f.start).as_secs_f64())
    };
    let mut t = Table::default();
    t.push(
        "flow",
        Column::I32(fs.iter().map(|f| f.flow as i32).collect()),
    );
    t.push(
        "group",
        categorical(&fs.iter().map(|f| f.group.as_str()).collect::<Vec<_>>()),
    );
    t.push(
        "cc",
        categorical(&fs.iter().map(|f| f.cc.as_str()).collect::<Vec<_>>()),
    );
    t.push(
        "direction",
        categorical(
            &fs.iter()
                .map(|f| if f.reverse { "reverse" } else { "forward" })
                .collect::<Vec<_>>(),
        ),
    );
    t.push("start_s", f64col(&|f| f.start.as_secs_f64()));
    t.push("rtt_prop_s", f64col(&|f| f.rtt_prop.as_secs_f64()));
    t.push(
        "size_bytes",
        f64col(&|f| f.size.map_or(f64::NAN, |b| b as f64)),
    );
    t.push(
        "goodput_bps",
        f64col(&|f| f.window.bytes_delivered * 8.0 / win),
    );
    t.push("bytes_delivered", i64col(&|f| f.window.bytes_delivered));
    t.push("fct_s", f64col(&fct));
    t.push("losses", i64col(&|f| f.window.losses));
    t.push("retransmits", i64col(&|f| f.window.retransmits));
    t.push("timeouts", i64col(&|f| f.window.timeouts));
    t.push("fast_retransmits", i64col(&|f| f.window.fast_retransmits));
    t.push("cwnd_final", f64col(&|f| f.cwnd_final));
    t.push(
        "cwnd_at_first_drop",
        f64col(&|f| f.cwnd_at_first_drop.unwrap_or(f64::NAN)),
    );
    t.push(
        "flight_at_first_drop",
        f64col(&|f| f.flight_at_first_drop.unwrap_or(f64::NAN)),
    );
    t.push("back_to_back", i64col(&|f| f.window.back_to_back));
    t.push("ecn_reductions", i64col(&|f| f.window.ecn_reductions));
    t.push("ce_marks", i64col(&|f| f.window.ce_marks));
    t.push("recovery_s", f64col(&|f| f.window.recovery_s));
    t.push("cov_mean", f64col(&|f| f.cov_mean));
    t.push(
        "cov_windows",
        Column::I64(fs.iter().map(|f| f.cov_windows as i64).collect()),
    );
    t.push(
        "convergence_s",
        f64col(&|f| f.convergence.map_or(f64::NAN, |t| t.as_secs_f64())),
    );
    t.push("rtt_min_s", f64col(&|f| f.rtt.min));
    t.push("rtt_mean_s", f64col(&|f| f.rtt.mean));
    t.push("rtt_p50_s", f64col(&|f| f.rtt.p50));
    t.push("rtt_p95_s", f64col(&|f| f.rtt.p95));
    t.push("rtt_p99_s", f64col(&|f| f.rtt.p99));
    t.push("ideal_latency_s", Column::F64(ideal.to_vec()));
    t.push(
        "normalized_latency",
        Column::F64(fs.iter().zip(ideal).map(|(f, &i)| fct(f) / i).collect()),
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{
        CongestionEvent, EngineKind, FlowCounts, FlowRecord, LinkCounts, LinkRecord, Records,
        RunInfo,
    };

    fn s(x: f64) -> Time {
        Time::from_secs_f64(x)
    }

    /// Records made by hand: one 10 Mb/s link over a 10 s window, two flows (the
    /// second starting at 6 s), two congestion events (one before the second flow
    /// existed). No engine runs.
    fn records() -> Records {
        let link = LinkRecord {
            name: "bottleneck".into(),
            rate_bps: 10e6,
            delay_s: 0.01,
            shaped: false,
            monitored: true,
            buffer: "20pkt".into(),
            sync_gap: s(0.1),
            window: LinkCounts {
                arrivals: 1000.0,
                drops_overflow: 8.0,
                drops_aqm: 2.0,
                wire_losses: 5.0,
                tx_pkts: 985.0,
                tx_bytes: 985.0 * 1500.0,
                busy_s: 9.0,
                busy_data_s: 8.5,
                q_area_pkts: 50.0,
                q_area_bytes: 75_000.0,
                departed: 985.0,
                sojourn_s: 49.25,
                ecn_marks: 40.0,
            },
            queue_max_pkts: 20.0,
            queue_max_bytes: 30_000.0,
            tx_pkts_total: 1200.0,
            crossers: 2,
            ..Default::default()
        };
        let flow = |id: u32, start: f64, bytes: f64| FlowRecord {
            flow: id,
            group: "g".into(),
            cc: "newreno".into(),
            started: true,
            start: s(start),
            rtt_prop: s(0.1),
            data_path: 0,
            ack_path: 1,
            mss: 1460,
            header: 40,
            init_cwnd: 1.0,
            window: FlowCounts {
                bytes_delivered: bytes,
                ..Default::default()
            },
            cov_mean: f64::NAN,
            ..Default::default()
        };
        let event = |start: f64, lost: u32| CongestionEvent {
            link: 0,
            start: s(start),
            end: s(start + 0.05),
            drops: 3.0,
            flows_lost: lost,
            flows_active: 0,
        };
        Records {
            info: RunInfo {
                engine: EngineKind::Packet,
                name: "hand".into(),
                seed: 1,
                duration: s(10.0),
                warmup: Time::ZERO,
                end: s(10.0),
                wall_s: 0.0,
                events: Some(7),
                steps: None,
                step_s: None,
                bottleneck: 0,
                bdp_bytes: 0.0,
                mean_rtt_s: 0.1,
                packet_size: 1500.0,
                buffer: "20pkt".into(),
                tcp: Vec::new(),
                sample_interval: None,
                fair_share_flows: None,
            },
            links: vec![link, LinkRecord::default()],
            paths: vec![vec![0], vec![1]],
            flows: vec![flow(0, 0.0, 3.75e6), flow(1, 6.0, 1.25e6)],
            congestion: vec![event(2.0, 1), event(8.0, 1)],
            drops: Vec::new(),
            series: SeriesBuf::default(),
            covs: Vec::new(),
            sources: Vec::new(),
            workloads: Vec::new(),
            conservation: None,
        }
    }

    /// Every number follows its definition in docs/metrics.md.
    #[test]
    fn metrics_of_hand_made_records() {
        let out = summarize(records(), false);
        let l = &out.summary["links"]["bottleneck"];
        let n = |k: &str| l[k].as_f64().unwrap();
        assert_eq!(n("utilization"), 0.9); // busy 9 s of 10
        assert_eq!(n("utilization_data"), 0.85);
        assert_eq!(n("throughput_bps"), 985.0 * 1500.0 * 8.0 / 10.0);
        assert_eq!(n("drops"), 10.0); // overflow + AQM
        assert_eq!(n("drop_rate"), 15.0 / 1000.0); // (queue drops + wire losses) / arrivals
        assert_eq!(n("queue_mean_pkts"), 5.0);
        assert_eq!(n("queue_delay_mean_s"), 0.05); // 49.25 s over 985 departures
        assert_eq!(n("ecn_marks"), 40.0);
        assert_eq!(n("mark_rate"), 0.04); // marks / arrivals
                                          // Goodputs 3 and 1 Mb/s: Jain (3 + 1)² / (2·(9 + 1)) = 0.8.
        assert_eq!(out.get("flows.goodput_bps_total"), 4e6);
        assert!((out.get("flows.jain_fairness") - 0.8).abs() < 1e-12);
        // Synchronization: at 2 s one flow lost of the one active (1), at 8 s one of
        // two (0.5): mean 0.75.
        let sync = &l["sync"];
        assert_eq!(sync["events"], 2);
        assert!((sync["mean"].as_f64().unwrap() - 0.75).abs() < 1e-12);
        assert_eq!(sync["hist"][5], 1);
        assert_eq!(sync["hist"][9], 1);
        // No end-to-end count (as the fluid engine): null, and the queues' own balance.
        assert!(out.summary["conservation"]["sent"].is_null());
        assert_eq!(out.summary["bottleneck_packets"], 1200);
        assert_eq!(out.flows.rows(), 2);
    }

    /// The groups block: sums and ratios over each group's flows.
    #[test]
    fn groups_of_hand_made_records() {
        let mut rec = records();
        rec.flows[1].group = "h".into();
        rec.flows[1].cc = "cubic".into();
        rec.flows[0].window.losses = 5.0;
        rec.flows[0].window.retransmits = 4.0;
        rec.flows[0].window.timeouts = 1.0;
        rec.flows[0].rtt.n = 3;
        rec.flows[0].rtt.mean = 0.1;
        // A workload instance of group "h": left out, as in the summary's fairness.
        let mut inst = rec.flows[1].clone();
        inst.instance = true;
        inst.window.bytes_delivered = 1e9;
        rec.flows.push(inst);
        let out = summarize(rec, false);
        let g = out.summary["groups"].as_array().unwrap();
        assert_eq!(g.len(), 2);
        let n = |i: usize, k: &str| g[i][k].as_f64().unwrap();
        assert_eq!(g[0]["name"], "g");
        assert_eq!(g[0]["cc"], "newreno");
        assert_eq!(g[1]["cc"], "cubic");
        assert_eq!(g[0]["flows"], 1);
        assert_eq!(n(0, "goodput_bps"), 3e6);
        assert_eq!(n(0, "share"), 0.75); // 3 of 4 Mb/s
        assert_eq!(n(1, "capacity_share"), 0.1); // 1 of 10 Mb/s
        assert_eq!(n(0, "jain"), 1.0);
        assert_eq!(g[0]["losses"], 5);
        assert_eq!(g[0]["retransmits"], 4);
        assert_eq!(g[0]["timeouts"], 1);
        // 5 lost of 3.75e6/1460 segments delivered + 4 retransmitted.
        assert!((n(0, "loss_rate") - 5.0 / (3.75e6 / 1460.0 + 4.0)).abs() < 1e-15);
        assert!(g[1]["loss_rate"].as_f64() == Some(0.0));
        // Group g's RTT samples: its one flow's; group h has none.
        assert!((n(0, "rtt_mean_s") - 0.1).abs() < 1e-15);
        assert!(g[1]["rtt_mean_s"].is_null());
    }
}
