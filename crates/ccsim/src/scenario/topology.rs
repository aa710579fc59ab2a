//! `[topology]`: the network's shape (dumbbell, parking lot, graph), its links and
//! buffers, and the checks of these fields that need no built network (routes are
//! checked when `net` lays the network out).

use crate::error::ScenarioError;
use crate::quantity::{BufferSpec, DistSpec, Dur, LawSpec, RateQ, RateSpec, Secs};
use crate::queue::QueueSpec;
use serde::Deserialize;

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    /// Two routers joined by one bottleneck; every flow has its own access links.
    Dumbbell,
    /// `middle_links` routers-to-router links in a chain (study 000 §4.4).
    ParkingLot,
    /// Nodes and links as listed; flows by endpoints; shortest-path routes.
    Graph,
}

impl TopologyKind {
    pub fn name(self) -> &'static str {
        match self {
            TopologyKind::Dumbbell => "dumbbell",
            TopologyKind::ParkingLot => "parking_lot",
            TopologyKind::Graph => "graph",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    pub kind: TopologyKind,
    /// Rate and one-way delay of the bottleneck (dumbbell) or of every middle link
    /// (parking lot). Not used by graphs, whose links carry their own.
    /// A constant rate, or `{ trace = "file" }` (forward direction; the reverse one
    /// runs at the trace's mean rate).
    pub bottleneck_rate: Option<RateSpec>,
    pub bottleneck_delay: Option<Dur>,
    /// Buffer of the bottleneck queues (both directions; every middle link of a parking
    /// lot); in a graph, the default of links that give none.
    pub buffer: Option<BufferSpec>,
    /// How buffer rules (bdp, stanford, tiny) are realized: in packets or bytes.
    #[serde(default)]
    pub buffer_unit: BufferUnit,
    /// Discipline of the bottleneck queues: `"droptail"` (default), `"red"`, `"fq"`,
    /// `"codel"`, `"fq_codel"` or a table with `kind` and parameters (docs/queues.md).
    #[serde(default)]
    pub queue: QueueSpec,
    /// Access links: rate (default 10× the bottleneck) and one-way delay per link.
    pub access_rate: Option<RateQ>,
    pub access_delay: Option<DistSpec<Secs>>,
    /// Buffer of every access link (default 100 000 packets: never the bottleneck).
    pub access_buffer: Option<BufferSpec>,
    /// Bernoulli loss probability on the forward bottleneck link.
    #[serde(default)]
    pub loss: f64,
    /// Bernoulli loss probability on the reverse bottleneck link.
    #[serde(default)]
    pub reverse_loss: f64,
    /// A token-bucket shaper in place of the forward bottleneck's (every forward
    /// middle link's) transmitter, as a Linux HTB class (docs/scenarios.md,
    /// "Token-bucket shapers").
    pub shaper: Option<ShaperSpec>,
    /// Extra one-way delay on every bottleneck link, both directions, drawn per packet
    /// from a distribution and never reordering: a packet arrives no earlier than the
    /// one sent before it, as from a delay element whose releases come late (the Linux
    /// testbed's NFQUEUE hop; docs/scenarios.md, "Delay jitter").
    pub bottleneck_jitter: Option<LawSpec<Secs>>,
    /// Parking lot: the number k of middle links in the chain (routers r0..rk).
    pub middle_links: Option<u32>,
    /// Graph: node names.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Graph: links between nodes (duplex unless `duplex = false`).
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Graph: the metric of the static shortest-path routes (docs/scenarios.md#graph).
    #[serde(default)]
    pub routing: Routing,
}

impl Topology {
    /// The bottleneck (dumbbell) or middle-link (parking lot) rate; validated present.
    pub fn rate(&self) -> crate::units::Rate {
        self.bottleneck_rate
            .as_ref()
            .and_then(|r| r.fixed())
            .unwrap_or(crate::units::Rate(0))
    }
    /// The bottleneck or middle-link one-way delay; validated present.
    pub fn delay(&self) -> crate::units::Time {
        self.bottleneck_delay
            .map_or(crate::units::Time::ZERO, |d| d.0)
    }
    /// The bottleneck buffer; validated present for dumbbells and parking lots.
    pub fn buffer_spec(&self) -> BufferSpec {
        self.buffer.unwrap_or(BufferSpec::Tiny)
    }
}

#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BufferUnit {
    #[default]
    Packets,
    Bytes,
}
/// `topology.links[i]` of a graph.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub from: String,
    pub to: String,
    /// A constant rate, or `{ trace = "file" }` (the from→to direction).
    pub rate: RateSpec,
    pub delay: Dur,
    /// Name of the from→to direction (default `"from-to"`); the reverse direction is
    /// `reverse_name`, default `"<name>_rev"` (or `"to-from"` when no name is given).
    pub name: Option<String>,
    pub reverse_name: Option<String>,
    /// Rate of the to→from direction (default: `rate`).
    pub reverse_rate: Option<RateQ>,
    /// Buffer and discipline of each direction's output queue (defaults:
    /// `topology.buffer`, `topology.queue`; the reverse ones default to the forward).
    pub buffer: Option<BufferSpec>,
    pub reverse_buffer: Option<BufferSpec>,
    pub queue: Option<QueueSpec>,
    pub reverse_queue: Option<QueueSpec>,
    /// Bernoulli loss probability on the wire, per direction.
    #[serde(default)]
    pub loss: f64,
    #[serde(default)]
    pub reverse_loss: f64,
    /// A token-bucket shaper in place of the transmitter, per direction.
    pub shaper: Option<ShaperSpec>,
    pub reverse_shaper: Option<ShaperSpec>,
    /// Two directed links (default) or only from→to.
    #[serde(default = "yes")]
    pub duplex: bool,
    /// Report statistics and series of this link (both directions); default true.
    #[serde(default = "yes")]
    pub monitor: bool,
}

/// A token bucket that releases a link's packets in place of its transmitter: Linux's
/// HTB with rate = ceil = the link's rate and burst = cburst = `burst`. A packet leaves
/// whole the moment the bucket holds tokens (no serialization time), which then pay
/// for it at the link's rate; after idle, `burst` bytes and one packet more leave back
/// to back. The rate is the link's own.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShaperSpec {
    /// The bucket's depth (HTB's `burst`), e.g. `"3000B"`.
    pub burst: crate::quantity::SizeQ,
}

impl ShaperSpec {
    /// Bytes of the bucket (0: a pure rate limiter of whole packets).
    pub fn burst_bytes(self) -> u64 {
        self.burst.0
    }
}

fn yes() -> bool {
    true
}

/// The metric of the static routes.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Routing {
    /// Fewest hops; among those, least propagation delay.
    #[default]
    Hops,
    /// Least propagation delay; among those, fewest hops.
    Delay,
}

pub fn positive_rate(r: Option<RateQ>, path: &str) -> Result<(), ScenarioError> {
    positive_spec(r.map(RateSpec::Fixed).as_ref(), path)
}

/// `positive_rate` for a rate that may be a trace (a trace is checked when read).
pub fn positive_spec(r: Option<&RateSpec>, path: &str) -> Result<(), ScenarioError> {
    match r.and_then(|r| r.fixed()) {
        Some(r) if r.bps() == 0 => Err(ScenarioError::at(
            path,
            "a link needs a positive rate, got 0bps",
        )),
        _ => Ok(()),
    }
}

/// The index of node `name` in `topology.nodes`, or an error at `path` listing some.
pub fn node_index(t: &Topology, name: &str, path: &str) -> Result<u32, ScenarioError> {
    t.nodes
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
        .ok_or_else(|| {
            let known: Vec<&str> = t.nodes.iter().take(8).map(|s| s.as_str()).collect();
            let more = if t.nodes.len() > 8 { ", ..." } else { "" };
            ScenarioError::at(
                path,
                format!(
                    "no node named \"{name}\" in topology.nodes (nodes: {}{more})",
                    known.join(", ")
                ),
            )
        })
}

/// Graph endpoints `src`/`dst` of a flow group or workload at path `p`: two
/// different named nodes. (Routes between them are checked by `net`.)
pub fn check_endpoints(
    t: &Topology,
    src: &Option<String>,
    dst: &Option<String>,
    p: &str,
) -> Result<(), ScenarioError> {
    let missing = |f: &str| {
        ScenarioError::at(
            &format!("{p}.{f}"),
            "missing (a graph's flows name their endpoints)",
        )
    };
    let s = src.as_deref().ok_or_else(|| missing("src"))?;
    let d = dst.as_deref().ok_or_else(|| missing("dst"))?;
    let si = node_index(t, s, &format!("{p}.src"))?;
    let di = node_index(t, d, &format!("{p}.dst"))?;
    if si == di {
        return Err(ScenarioError::at(
            &format!("{p}.dst"),
            "the same node as src",
        ));
    }
    Ok(())
}

/// A span `[a, b]` of middle links (1-based) or the whole chain.
pub fn check_span(
    span: Option<[u32; 2]>,
    kind: TopologyKind,
    k: u32,
    path: &str,
) -> Result<(u32, u32), ScenarioError> {
    match span {
        None => Ok((1, k)),
        Some(_) if kind != TopologyKind::ParkingLot => Err(ScenarioError::at(
            path,
            "a span of middle links is for kind = \"parking_lot\"",
        )),
        Some([a, b]) if a >= 1 && a <= b && b <= k => Ok((a, b)),
        Some([a, b]) => Err(ScenarioError::at(
            path,
            format!("expected [first, last] with 1 <= first <= last <= {k}, got [{a}, {b}]"),
        )),
    }
}

/// An RTT must exceed the two-way propagation delay of the middle links it crosses.
pub fn check_rtt(
    rtt: Option<&crate::random::Dist>,
    one_way_core: f64,
    p: &str,
) -> Result<(), ScenarioError> {
    if let Some(crate::random::Dist::Fixed(v) | crate::random::Dist::Uniform(v, _)) = rtt {
        if *v <= 2.0 * one_way_core {
            return Err(ScenarioError::at(
                &format!("{p}.rtt"),
                format!(
                    "an RTT of {v}s does not exceed twice the one-way delay of the links crossed ({}s)",
                    one_way_core
                ),
            ));
        }
    }
    Ok(())
}
