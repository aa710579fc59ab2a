//! The memory a run will need, estimated before anything big is allocated, and the
//! limit it must fit: a scenario over the limit is refused with an error naming the
//! field that drives it, instead of aborting the process half-way (an allocation
//! failure in Rust aborts; it cannot be caught).
//!
//! The estimate is a sum of terms, each `count × bytes per item`, the bytes measured
//! as the slope of the peak resident memory of `ccsim run` (docs/limits.md has the
//! measurements). It is checked twice: from the scenario alone before the network is
//! laid out (the flow count, the series, the graph's routing tables, the drop log), and
//! with the plan before an engine is built (exact flow and link counts, the fluid
//! engine's history buffers, the first window's burst).
//!
//! The limit: `CCSIM_MEMORY_LIMIT` (`"8GB"`, `"512MB"`, `"off"`) or the caller's value
//! (`RunOptions::memory_limit`, `--memory-limit`); by default half of the machine's
//! memory, less where the process's address space (`ulimit -v`) or its cgroup allows
//! less.

use crate::error::ScenarioError;
use crate::fluid::step_for;
use crate::net::Plan;
use crate::packet::Packet;
use crate::queue::Limit;
use crate::scenario::{Engine, Scenario, TopologyKind};

/// Resident bytes per flow of the packet engine: plan, sender, receiver, records and
/// the flows table (measured ≈ 24 KB per idle flow at 100 000 and 300 000 flows),
/// plus its RTT histogram (`metrics::hist`, 4.5 KB).
const FLOW_PACKET: f64 = 32.0 * 1024.0 + HIST;
/// Per flow of the fluid engine, besides its history buffers (measured ≈ 4.4 KB with
/// 200 history slots), plus its RTT histogram.
const FLOW_FLUID: f64 = 6.0 * 1024.0 + HIST;
/// Per link (queue, pipe, statistics, plan; a reported link's queueing-delay
/// histogram is counted with it, as every link might be one).
const LINK: f64 = 4.0 * 1024.0 + HIST;
/// One delay histogram (`metrics::hist::BINS` counters of 4 bytes).
const HIST: f64 = (crate::metrics::hist::BINS * 4) as f64;
/// Per point of the sampled series, from the engine's buffer to the Python data frame
/// (22 bytes in Rust, then the table, the bytes handed over, numpy's copy and
/// pandas'; measured ≈ 75).
const SERIES_POINT: f64 = 100.0;
/// Per row of the drop log, from the engine to the events data frame.
const DROP_ROW: f64 = 200.0;
/// Series points per sample: per reported link (utilization, queue packets and
/// bytes, drops, and the summary's RTT-normalized fairness) and per flow (throughput,
/// cwnd, ssthresh, srtt).
const POINTS_PER_LINK: f64 = 5.0;
const POINTS_PER_FLOW: f64 = 4.0;

/// One part of the estimate: the scenario field that drives it, what it is, bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub field: String,
    pub what: String,
    pub bytes: f64,
}

/// The estimated peak memory of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    pub terms: Vec<Term>,
}

impl Estimate {
    pub fn total(&self) -> f64 {
        self.terms.iter().map(|t| t.bytes).sum()
    }

    fn add(&mut self, field: impl Into<String>, what: impl Into<String>, bytes: f64) {
        if bytes > 0.0 {
            self.terms.push(Term {
                field: field.into(),
                what: what.into(),
                bytes,
            });
        }
    }

    /// Refuse the run if the estimate is over `limit` bytes, naming the largest term's
    /// field first.
    pub fn check(&self, limit: u64) -> Result<(), ScenarioError> {
        let total = self.total();
        if total <= limit as f64 {
            return Ok(());
        }
        let top = self
            .terms
            .iter()
            .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
            .expect("an estimate over a limit has terms");
        // Other fields whose part alone is over the limit are named too.
        let also: Vec<String> = self
            .terms
            .iter()
            .filter(|t| !std::ptr::eq(*t, top) && t.bytes > limit as f64 && t.field != top.field)
            .map(|t| format!("; {} alone: {} ({})", t.field, human(t.bytes), t.what))
            .collect();
        Err(ScenarioError::at(
            &top.field,
            format!(
                "the run would need about {} of memory ({}: {}){}, over the limit of {}; \
                 lower it, or raise the limit (--memory-limit SIZE, \
                 CCSIM_MEMORY_LIMIT=SIZE, memory_limit= in Python)",
                human(total),
                top.what,
                human(top.bytes),
                also.concat(),
                human(limit as f64)
            ),
        ))
    }
}

/// `1.5 GB`, `320 MB`, `12 KB`, `1.2e+12 GB`.
pub fn human(bytes: f64) -> String {
    const UNITS: [(&str, f64); 4] = [("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1.0)];
    for (u, s) in UNITS {
        if bytes >= s || u == "B" {
            let v = bytes / s;
            return if v >= 1e6 {
                format!("{v:.2e} {u}")
            } else if v >= 100.0 {
                format!("{v:.0} {u}")
            } else {
                let s = format!("{v:.2}");
                format!("{} {u}", s.trim_end_matches('0').trim_end_matches('.'))
            };
        }
    }
    unreachable!()
}

/// Samples of the series over the run: duration / sample_interval (none: none).
fn samples(sc: &Scenario) -> f64 {
    match sc.sample_interval {
        Some(iv) if iv.0 .0 > 0 => (sc.duration.0 .0 as f64 / iv.0 .0 as f64).ceil(),
        _ => 0.0,
    }
}

/// CoV windows over the run (`metrics.cov_window`, 5 s by default): each flow's CoV per
/// window goes to the series, so a run with a series keeps flows × windows points
/// however coarse its `sample_interval`; without a series none are kept.
fn cov_windows(sc: &Scenario) -> f64 {
    if sc.sample_interval.is_none() {
        return 0.0;
    }
    match sc.metrics.resolve() {
        Ok((sample, per_window, _, _)) if sample.0 > 0 => {
            (sc.duration.0 .0 as f64 / (sample.0 as f64 * per_window as f64)).ceil()
        }
        _ => 0.0,
    }
}

/// The largest flow group (its field path and count) and the total static flows.
fn static_flows(sc: &Scenario) -> (String, f64) {
    let mut top = (String::from("flows"), 0u32);
    for (i, g) in sc.flows.iter().enumerate() {
        if g.count > top.1 {
            top = (format!("flows[{i}].count"), g.count);
        }
    }
    let field = if sc.flows.len() > 1 || top.1 == 0 {
        "flows".to_string()
    } else {
        top.0
    };
    (field, sc.flows.iter().map(|g| g.count as f64).sum())
}

/// Workload flow slots, as the plan will lay them out (`poisson_flows` without `hosts`
/// gets a pool from its load, up to 100 000).
fn stated_slots(sc: &Scenario) -> f64 {
    let t = &sc.topology;
    let b_rate = t
        .bottleneck_rate
        .as_ref()
        .and_then(|r| r.fixed())
        .map_or(1.0, |r| r.as_f64());
    sc.workloads
        .iter()
        .map(|w| {
            let access = w
                .access_rate
                .or(t.access_rate)
                .map_or(b_rate, |r| r.0.as_f64())
                .max(1.0);
            let n = crate::scenario::workload::slots_per_direction(w, b_rate / access) as f64;
            if w.direction == crate::scenario::WorkloadDirection::Both {
                2.0 * n
            } else {
                n
            }
        })
        .sum()
}

/// What the scenario alone says: before the network is laid out.
pub fn of_scenario(sc: &Scenario) -> Estimate {
    let mut e = Estimate::default();
    let (field, n) = static_flows(sc);
    let slots = stated_slots(sc);
    let per_flow = match sc.engine {
        Engine::Packet => FLOW_PACKET,
        Engine::Fluid => FLOW_FLUID,
    };
    e.add(field.clone(), format!("{n} flows"), n * per_flow);
    e.add(
        "workloads",
        format!("{slots} workload flow slots"),
        slots * per_flow,
    );
    let t = &sc.topology;
    // Links the series reports: a dumbbell's or parking lot's bottlenecks (both
    // directions), a graph's links; `output.links = "all"` adds every access link.
    let links = match t.kind {
        TopologyKind::Dumbbell => 2.0,
        TopologyKind::ParkingLot => 2.0 * (t.middle_links.unwrap_or(1) as f64 + 2.0),
        TopologyKind::Graph => 2.0 * t.links.len() as f64,
    };
    let reported = if sc.output.links == crate::scenario::LinkReport::All {
        links + 4.0 * (n + slots)
    } else {
        links
    };
    e.add("topology", format!("{links} links"), links * LINK);
    let per = POINTS_PER_LINK * reported + POINTS_PER_FLOW * (n + slots);
    e.add(
        "sample_interval",
        format!("{} samples × {per} series points", samples(sc)),
        samples(sc) * per * SERIES_POINT,
    );
    let windows = cov_windows(sc);
    e.add(
        "metrics.cov_window",
        format!("{windows} CoV windows × {n} flows in the series"),
        windows * n * SERIES_POINT,
    );
    if t.kind == TopologyKind::Graph {
        // A shortest-path tree (one predecessor per node) per source node.
        let nodes = t.nodes.len() as f64;
        e.add(
            "topology.nodes",
            format!("routing tables of {nodes} nodes"),
            nodes * nodes * 8.0,
        );
    }
    if sc.output.events {
        let rows = sc.output.drop_log_limit() as f64;
        e.add(
            "output.drop_log_limit",
            format!("a drop log of up to {rows} rows"),
            rows * DROP_ROW,
        );
    }
    e
}

/// The full estimate, with the plan: exact flow and link counts, the series of the
/// links reported, the first window's burst (packet engine) and the history buffers
/// (fluid engine).
pub fn of_plan(sc: &Scenario, plan: &Plan) -> Estimate {
    let mut e = Estimate::default();
    let n = plan.flows.len() as f64;
    let (field, _) = static_flows(sc);
    let field = if sc.workloads.is_empty() {
        field
    } else {
        "workloads".into()
    };
    let per_flow = match sc.engine {
        Engine::Packet => FLOW_PACKET,
        Engine::Fluid => FLOW_FLUID,
    };
    e.add(field, format!("{n} flows"), n * per_flow);
    let links = plan.links.len() as f64;
    e.add("topology", format!("{links} links"), links * LINK);
    let reported = plan.monitored.len() as f64;
    let per = POINTS_PER_LINK * reported + POINTS_PER_FLOW * n;
    e.add(
        "sample_interval",
        format!("{} samples × {per} series points", samples(sc)),
        samples(sc) * per * SERIES_POINT,
    );
    let windows = cov_windows(sc);
    e.add(
        "metrics.cov_window",
        format!("{windows} CoV windows × {n} flows in the series"),
        windows * n * SERIES_POINT,
    );
    // The rest of the scenario-level terms (graph routing, drop log) stand.
    for t in of_scenario(sc).terms {
        if t.field == "topology.nodes" || t.field == "output.drop_log_limit" {
            e.terms.push(t);
        }
    }
    match sc.engine {
        Engine::Packet => burst(sc, plan, &mut e),
        Engine::Fluid => history(sc, plan, &mut e),
    }
    e
}

/// A sender emits its first window at once into a vector (which grows by doubling)
/// before the packets enter the first link: init_cwnd packets (at most the receive
/// window) of one flow at a time.
fn burst(sc: &Scenario, plan: &Plan, e: &mut Estimate) {
    let mut worst = (0.0f64, usize::MAX);
    for f in &plan.flows {
        let cfg = &plan.templates[f.template].cfg;
        let w = cfg.init_cwnd.min(cfg.rwnd as f64);
        if w > worst.0 {
            worst = (w, f.template);
        }
    }
    if worst.1 == usize::MAX {
        return;
    }
    let field = if worst.1 < sc.flows.len() {
        if sc.flows[worst.1].tcp.init_cwnd.is_some() {
            format!("flows[{}].tcp.init_cwnd", worst.1)
        } else {
            "tcp.init_cwnd".into()
        }
    } else {
        let w = worst.1 - sc.flows.len();
        if sc.workloads[w].tcp.init_cwnd.is_some() {
            format!("workloads[{w}].tcp.init_cwnd")
        } else {
            "tcp.init_cwnd".into()
        }
    };
    let bytes = 3.0 * worst.0 * std::mem::size_of::<Packet>() as f64;
    e.add(
        field,
        format!("a first window of {} packets", worst.0),
        bytes,
    );
}

/// The fluid engine keeps per flow a history of its sending rate reaching its farthest
/// queue and a loss calendar one RTT long with every queue full, in integration steps
/// (`fluid::Model::set_route`): long delays, slow links with big buffers or a fine step
/// make them long.
fn history(sc: &Scenario, plan: &Plan, e: &mut Estimate) {
    let min_rtt = plan
        .flows
        .iter()
        .map(|f| f.rtt_prop.as_secs_f64())
        .fold(f64::INFINITY, f64::min);
    let dt = step_for(
        sc.fluid.as_ref(),
        if min_rtt.is_finite() { min_rtt } else { 0.1 },
    );
    let mut slots = 0.0;
    let mut worst = (0.0f64, 0usize);
    for (i, f) in plan.flows.iter().enumerate() {
        let (mut up, mut max_up, mut q_delay) = (0.0f64, 0.0f64, 0.0f64);
        for &l in &plan.paths[f.data_path as usize] {
            let lp = &plan.links[l.0 as usize];
            if plan.monitored.contains(&l) {
                max_up = max_up.max(up);
                let qmax = match lp.limit {
                    Limit::Packets(n) => n as f64 * lp.packet_size,
                    Limit::Bytes(b) => b as f64,
                };
                q_delay += qmax / (lp.rate.as_f64() / 8.0);
            }
            up += lp.delay.as_secs_f64();
        }
        let s = max_up / dt + (f.rtt_prop.as_secs_f64() + q_delay) / dt + 4.0;
        slots += s;
        if s > worst.0 {
            worst = (s, i);
        }
    }
    let flow = &plan.flows[worst.1.min(plan.flows.len().saturating_sub(1))];
    let field = match flow.owner {
        crate::net::Owner::Group(g) if sc.flows[g].rtt.is_some() => format!("flows[{g}].rtt"),
        _ if sc.fluid.as_ref().is_some_and(|f| f.step.is_some()) => "fluid.step".into(),
        _ => "topology".into(),
    };
    e.add(
        field,
        format!("fluid history buffers of {slots:.3e} steps (step {dt:.3e} s)"),
        slots * 8.0,
    );
}

/// The memory limit of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryLimit {
    /// `default_limit()`: `CCSIM_MEMORY_LIMIT`, else half of the machine's memory.
    #[default]
    Default,
    /// At most this many bytes.
    Bytes(u64),
    /// No limit.
    Off,
}

impl MemoryLimit {
    /// The limit in bytes (None: none).
    pub fn bytes(self) -> Result<Option<u64>, ScenarioError> {
        match self {
            MemoryLimit::Default => default_limit(),
            MemoryLimit::Bytes(b) => Ok(Some(b)),
            MemoryLimit::Off => Ok(None),
        }
    }

    /// Check a scenario before its network is laid out, then (`plan`) before an
    /// engine is built; returns the limit in bytes it was checked against.
    pub fn check(self, sc: &Scenario, plan: Option<&Plan>) -> Result<Option<u64>, ScenarioError> {
        let limit = self.bytes()?;
        if let Some(l) = limit {
            match plan {
                None => of_scenario(sc).check(l)?,
                Some(p) => of_plan(sc, p).check(l)?,
            }
        }
        Ok(limit)
    }
}

/// The limit a run must fit when the caller gives none: `CCSIM_MEMORY_LIMIT`, else
/// half of the machine's memory, at most what the address-space limit (`ulimit -v`,
/// less what the process already maps) and the cgroup allow. None: no limit known
/// (not Linux) or `CCSIM_MEMORY_LIMIT=off`.
pub fn default_limit() -> Result<Option<u64>, ScenarioError> {
    if let Ok(v) = std::env::var("CCSIM_MEMORY_LIMIT") {
        return parse_limit(&v).map_err(|e| ScenarioError::at("CCSIM_MEMORY_LIMIT", e));
    }
    Ok(machine_limit())
}

/// `"8GB"`, `"512MB"`, `"1.5GiB"`, `"1000000"` (bytes), `"off"` / `"none"` / `"0"`: no limit.
pub fn parse_limit(text: &str) -> Result<Option<u64>, String> {
    let t = text.trim();
    if matches!(
        t.to_ascii_lowercase().as_str(),
        "off" | "none" | "0" | "unlimited"
    ) {
        return Ok(None);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("expected a size like \"8GB\" or \"off\", got {text:?}"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024f64.powi(4),
        _ => {
            return Err(format!(
                "expected a size like \"8GB\" or \"off\", got {text:?}"
            ))
        }
    };
    let bytes = x * scale;
    if !(bytes.is_finite() && bytes >= 1.0) {
        return Err(format!("expected a positive size, got {text:?}"));
    }
    Ok(Some(bytes.min(u64::MAX as f64) as u64))
}

/// Half of the memory this process may use: the machine's, its cgroup's, and its
/// address space left under `ulimit -v` (Linux; elsewhere None).
fn machine_limit() -> Option<u64> {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let kb_field = |text: &str, key: &str| -> Option<u64> {
        text.lines()
            .find(|l| l.starts_with(key))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
            .map(|kb| kb * 1024)
    };
    let mut room: Option<u64> = read("/proc/meminfo").and_then(|m| kb_field(&m, "MemTotal:"));
    let mut least = |v: u64| room = Some(room.map_or(v, |r| r.min(v)));
    if let Some(v) = read("/sys/fs/cgroup/memory.max").and_then(|s| s.trim().parse::<u64>().ok()) {
        least(v);
    }
    if let Some(limits) = read("/proc/self/limits") {
        let soft = limits
            .lines()
            .find(|l| l.starts_with("Max address space"))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(cap) = soft {
            let mapped = read("/proc/self/status")
                .and_then(|s| kb_field(&s, "VmSize:"))
                .unwrap_or(0);
            least(cap.saturating_sub(mapped));
        }
    }
    room.map(|r| r / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_with_units_and_off() {
        assert_eq!(parse_limit("8GB"), Ok(Some(8_000_000_000)));
        assert_eq!(parse_limit("1.5 GiB"), Ok(Some(1_610_612_736)));
        assert_eq!(parse_limit("512MB"), Ok(Some(512_000_000)));
        assert_eq!(parse_limit("1000"), Ok(Some(1000)));
        assert_eq!(parse_limit("off"), Ok(None));
        assert!(parse_limit("lots").is_err());
        assert!(parse_limit("-1GB").is_err());
        assert!(parse_limit("8 parsecs").is_err());
    }

    #[test]
    fn the_error_names_the_largest_term() {
        let mut e = Estimate::default();
        e.add("flows[0].count", "10 flows", 10.0);
        e.add("sample_interval", "many points", 3e9);
        assert!(e.check(4_000_000_000).is_ok());
        let err = e.check(1_000_000_000).unwrap_err().0;
        assert!(
            err.starts_with("sample_interval: the run would need about 3 GB"),
            "{err}"
        );
        assert!(err.contains("over the limit of 1 GB"), "{err}");
    }

    #[test]
    fn cov_windows_of_a_long_run_are_counted_only_with_a_series() {
        let text = |si: &str| {
            format!(
                "duration = \"1000000s\"\n{si}\n[topology]\nkind = \"dumbbell\"\n\
                 bottleneck_rate = \"1Gbps\"\nbottleneck_delay = \"10ms\"\n\
                 buffer = \"bdp\"\n[[flows]]\ncount = 1000\ncc = \"newreno\"\n"
            )
        };
        let with = crate::parse(&text("sample_interval = \"1000s\""), &[]).unwrap();
        let e = of_scenario(&with);
        // 10^6 s / 5 s windows × 1000 flows, each a series point.
        let t = e.terms.iter().find(|t| t.field == "metrics.cov_window");
        assert_eq!(t.map(|t| t.bytes), Some(200_000.0 * 1000.0 * SERIES_POINT));
        let err = e.check(4_000_000_000).unwrap_err().0;
        assert!(err.starts_with("metrics.cov_window: "), "{err}");
        let without = crate::parse(&text(""), &[]).unwrap();
        let terms = of_scenario(&without).terms;
        assert!(terms.iter().all(|t| t.field != "metrics.cov_window"));
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human(3.2e9), "3.2 GB");
        assert_eq!(human(512e6), "512 MB");
        assert_eq!(human(12.0), "12 B");
        assert_eq!(human(1.2e21), "1.20e12 GB");
    }
}
