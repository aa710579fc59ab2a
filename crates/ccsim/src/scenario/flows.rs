//! `[[flows]]` (long-lived and finite TCP flow groups) and `[[poisson]]` (open-loop
//! packet sources).

use super::tcp::{CcSpec, TcpOpts};
use crate::quantity::{ByteSize, DistSpec, Dur, RateQ, Secs};
use serde::Deserialize;

#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Forward,
    Reverse,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowGroup {
    /// A name for the group (staged flows, convergence references).
    pub name: Option<String>,
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default)]
    pub cc: CcSpec,
    /// Loss recovery: "reno" | "newreno" | "sack" (RFC 6675; the receivers then send
    /// SACK blocks). Default: "reno" for cc = "reno", otherwise "newreno".
    pub recovery: Option<String>,
    #[serde(default)]
    pub direction: Direction,
    /// Start time of each flow (default 0 s).
    pub start: Option<DistSpec<Secs>>,
    /// When every flow of the group stops sending (default: never): no new data, no
    /// retransmission from then on.
    pub stop: Option<Dur>,
    /// Flow size (default unlimited): `"100KB"`, `"30pkt"` or a distribution.
    pub size: Option<DistSpec<ByteSize>>,
    /// Two-way propagation RTT of each flow; sets its access delays.
    pub rtt: Option<DistSpec<Secs>>,
    /// One-way delay of each of the flow's two access links (overrides the topology's).
    pub access_delay: Option<DistSpec<Secs>>,
    #[serde(default)]
    pub tcp: TcpOpts,
    /// Segment numbers (from 0) whose first transmission the network drops, in every
    /// flow of the group: deterministic losses for testing loss recovery.
    #[serde(default)]
    pub drop_segments: Vec<u64>,
    /// Graph: the flows' sender and receiver nodes.
    pub src: Option<String>,
    pub dst: Option<String>,
    /// Parking lot: the middle links `[first, last]` the flows cross (1-based,
    /// inclusive); default all of them (the long flows).
    pub span: Option<[u32; 2]>,
}

impl FlowGroup {
    /// The group's name in the flow table: `name`, or `group<i>` for `flows[i]`.
    pub fn group_name(&self, i: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("group{i}"))
    }
}

fn one() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    pub name: Option<String>,
    /// Mean offered rate, or `load` as a fraction of the bottleneck rate.
    pub rate: Option<RateQ>,
    pub load: Option<f64>,
    /// Packet size (bytes on the wire): fixed or `{ exponential = "1000B" }`.
    pub size: Option<DistSpec<ByteSize>>,
    #[serde(default)]
    pub direction: Direction,
    pub start: Option<Dur>,
    pub stop: Option<Dur>,
    /// The one named link the packets cross (any topology; overrides `direction`).
    pub link: Option<String>,
    /// Graph: the source's endpoints; its packets follow the route between them.
    pub src: Option<String>,
    pub dst: Option<String>,
}
