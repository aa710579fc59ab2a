//! `[[workloads]]`: dynamic TCP workloads (web-like ON/OFF, closed loop, Poisson flow
//! arrivals) as data, their checks, and how many flow slots each needs. `traffic`
//! runs them.

use super::tcp::{CcSpec, TcpOpts};
use crate::quantity::{ByteSize, DistSpec, Dur, RateQ, Secs};
use serde::Deserialize;

/// `[[workloads]]` in a scenario.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub kind: WorkloadKind,
    /// Group name of its flows in the flow table (default `workload<i>`).
    pub name: Option<String>,
    /// `web`, `closed_loop`: the number of source nodes (node pairs).
    pub nodes: Option<u32>,
    /// `poisson_flows`: host pairs, i.e. the most flows in progress at once (default
    /// from the load, see `default_hosts`). An arrival that finds all busy is counted
    /// as blocked.
    pub hosts: Option<u32>,
    /// Flow (file) size: `"100KB"`, `"30pkt"` or a distribution.
    pub size: Option<DistSpec<ByteSize>>,
    /// OFF time (web) or think time (closed loop) between a flow's end and the next.
    #[serde(alias = "think")]
    pub off: Option<DistSpec<Secs>>,
    /// `poisson_flows`: offered load ρ, a fraction of the bottleneck rate (payload
    /// bytes of the arriving flows per second / capacity).
    pub load: Option<f64>,
    /// First flow of each node (web, closed loop) or first arrival (poisson_flows).
    pub start: Option<DistSpec<Secs>>,
    /// No new flow starts from this time on.
    pub stop: Option<Dur>,
    /// `forward` (default), `reverse`, or `both`: the same workload mirrored in the
    /// reverse direction too (study 000's two-way traffic).
    #[serde(default)]
    pub direction: WorkloadDirection,
    #[serde(default)]
    pub cc: CcSpec,
    pub recovery: Option<String>,
    #[serde(default)]
    pub tcp: TcpOpts,
    /// Dumbbell and parking lot: each node's two-way propagation RTT (drawn once per
    /// node), or its access links' one-way delay; and the access links' rate (the
    /// per-flow peak rate of `poisson_flows`).
    pub rtt: Option<DistSpec<Secs>>,
    pub access_delay: Option<DistSpec<Secs>>,
    pub access_rate: Option<RateQ>,
    /// Parking lot: the middle links crossed (as `flows[i].span`).
    pub span: Option<[u32; 2]>,
    /// Graph: the endpoints (all the workload's flows share them).
    pub src: Option<String>,
    pub dst: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    Web,
    ClosedLoop,
    PoissonFlows,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadDirection {
    #[default]
    Forward,
    Reverse,
    Both,
}

/// The workload's group name in the flow table: `name`, or `workload<i>`.
pub fn workload_name(spec: &WorkloadSpec, w: usize) -> String {
    spec.name.clone().unwrap_or_else(|| format!("workload{w}"))
}

/// The direction of each slot, in slot order: all forward slots, then all reverse.
/// `ratio` is the bottleneck rate over a flow's access rate (1 in a graph).
pub fn slot_directions(spec: &WorkloadSpec, ratio: f64) -> Vec<bool> {
    let n = slots_per_direction(spec, ratio);
    match spec.direction {
        WorkloadDirection::Forward => vec![false; n],
        WorkloadDirection::Reverse => vec![true; n],
        WorkloadDirection::Both => [vec![false; n], vec![true; n]].concat(),
    }
}

/// Slots in each direction the workload runs in (see `slot_directions`).
pub fn slots_per_direction(spec: &WorkloadSpec, ratio: f64) -> usize {
    match (spec.kind, spec.hosts) {
        (WorkloadKind::PoissonFlows, Some(h)) => h as usize,
        (WorkloadKind::PoissonFlows, None) => default_hosts(spec.load.unwrap_or(0.0), ratio),
        _ => spec.nodes.unwrap_or(0) as usize,
    }
}

/// The default host pool of `poisson_flows`. Flows each capped at 1/ratio of the
/// bottleneck are in progress m = ρ·ratio at a time on average if they always ran
/// at their cap (M/G/∞); slow start makes them last longer, so take twice that and
/// a margin deep in the Poisson tail: 2m + 10·√(2m) + 16 (at most 100 000).
fn default_hosts(load: f64, ratio: f64) -> usize {
    let m = 2.0 * load * ratio.max(1.0);
    (m + 10.0 * m.sqrt() + 16.0).ceil().min(100_000.0) as usize
}
