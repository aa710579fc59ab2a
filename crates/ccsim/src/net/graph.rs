//! The one network representation every topology builds into: named nodes and
//! directed links (a duplex link is two directed links, forward first), plus static
//! shortest-path routes between nodes. The dumbbell and the parking lot are builders
//! that lay out such a graph (`net::topology`); `kind = "graph"` reads it from the
//! scenario.
//!
//! Routes are computed once, at build time, into link-id vectors (`World::paths`);
//! forwarding a packet is an index into its path, never a lookup.

use crate::queue::{Limit, QueueSpec};
use crate::scenario::quantity::{BufferSpec, Dur, RateQ};
use crate::scenario::{Scenario, ScenarioError, TopologyKind};
use crate::units::{Rate, Time};
use serde::Deserialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `topology.links[i]` of a graph.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub from: String,
    pub to: String,
    pub rate: RateQ,
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
    /// Two directed links (default) or only from→to.
    #[serde(default = "yes")]
    pub duplex: bool,
    /// Report statistics and series of this link (both directions); default true.
    #[serde(default = "yes")]
    pub monitor: bool,
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

/// How a link's buffer limit is obtained.
#[derive(Clone, Debug)]
pub enum BufferPlan {
    /// Already resolved.
    Limit(Limit),
    /// A rule (`"bdp"`, `"stanford"`, ...) or plain size, resolved after routing
    /// against the bandwidth-delay product of directed link `basis`: its rate times
    /// the mean two-way propagation RTT of the flows whose data crosses it (if none,
    /// of those whose data crosses its reverse twin `twin`).
    Rule {
        spec: BufferSpec,
        basis: usize,
        twin: Option<usize>,
        /// Field path for errors (`topology.links[2].buffer`).
        path: String,
    },
}

/// One directed link to build.
#[derive(Clone, Debug)]
pub struct LinkPlan {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: Time,
    pub queue: QueueSpec,
    pub buffer: BufferPlan,
    pub loss: f64,
    pub monitor: bool,
}

/// Nodes and directed links, in id order.
#[derive(Clone, Debug, Default)]
pub struct Net {
    pub nodes: Vec<String>,
    pub links: Vec<LinkPlan>,
}

impl Net {
    pub fn add_node(&mut self, name: String) -> u32 {
        self.nodes.push(name);
        (self.nodes.len() - 1) as u32
    }

    pub fn add_link(&mut self, l: LinkPlan) -> usize {
        self.links.push(l);
        self.links.len() - 1
    }

    pub fn node(&self, name: &str) -> Option<u32> {
        self.nodes.iter().position(|n| n == name).map(|i| i as u32)
    }

    pub fn link(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }
}

/// Shortest-path routes with per-source trees cached (build time only).
///
/// Tie-break, so that routes are deterministic: Dijkstra settles nodes in order of
/// (cost, node index), relaxes a node's out-links in link-id order, and replaces a
/// node's predecessor only on a strictly smaller cost. Among equal-cost paths the
/// route therefore enters each node from the neighbour settled first (lower cost,
/// then lower node index), and between parallel links takes the lower link id.
/// Cost is (hops, delay) for `Routing::Hops` and (delay, hops) for `Routing::Delay`,
/// compared lexicographically.
pub struct Router<'a> {
    net: &'a Net,
    metric: Routing,
    /// Out-links of every node in link-id order.
    out: Vec<Vec<usize>>,
    /// Per source node: the predecessor link of every node (usize::MAX: none).
    trees: Vec<Option<Vec<usize>>>,
}

impl<'a> Router<'a> {
    pub fn new(net: &'a Net, metric: Routing) -> Self {
        let mut out = vec![Vec::new(); net.nodes.len()];
        for (i, l) in net.links.iter().enumerate() {
            out[l.from as usize].push(i);
        }
        Router {
            net,
            metric,
            out,
            trees: vec![None; net.nodes.len()],
        }
    }

    fn cost(&self, link: usize) -> (u64, u64) {
        let d = self.net.links[link].delay.0;
        match self.metric {
            Routing::Hops => (1, d),
            Routing::Delay => (d, 1),
        }
    }

    fn tree(&mut self, src: u32) -> &Vec<usize> {
        let s = src as usize;
        if self.trees[s].is_none() {
            let n = self.net.nodes.len();
            let mut best = vec![(u64::MAX, u64::MAX); n];
            let mut pred = vec![usize::MAX; n];
            let mut done = vec![false; n];
            let mut heap = BinaryHeap::new();
            best[s] = (0, 0);
            heap.push(Reverse((best[s], s)));
            while let Some(Reverse((c, u))) = heap.pop() {
                if done[u] || c != best[u] {
                    continue;
                }
                done[u] = true;
                for &l in &self.out[u] {
                    let v = self.net.links[l].to as usize;
                    let (a, b) = self.cost(l);
                    let nc = (c.0.saturating_add(a), c.1.saturating_add(b));
                    if !done[v] && nc < best[v] {
                        best[v] = nc;
                        pred[v] = l;
                        heap.push(Reverse((nc, v)));
                    }
                }
            }
            self.trees[s] = Some(pred);
        }
        self.trees[s].as_ref().expect("tree just built")
    }

    /// The links from `src` to `dst`, or None if `dst` is unreachable.
    pub fn route(&mut self, src: u32, dst: u32) -> Option<Vec<usize>> {
        // A node with one out-link (a host) can only leave through it: follow such
        // links first and take the tree of the first node with a choice, so that a
        // dumbbell of n hosts builds two trees, not n. The shortest path is the same
        // (and so is the tie-break: every cost beyond is shifted by one constant).
        let net = self.net;
        let mut path = Vec::new();
        let mut s = src;
        while s != dst && self.out[s as usize].len() == 1 {
            if path.len() >= net.nodes.len() {
                return None; // a ring of one-way links that never meets dst
            }
            let up = self.out[s as usize][0];
            path.push(up);
            s = net.links[up].to;
        }
        if s == dst {
            return Some(path);
        }
        let pred = self.tree(s);
        let start = path.len();
        let mut v = dst as usize;
        while v != s as usize {
            let l = pred[v];
            if l == usize::MAX {
                return None;
            }
            path.push(l);
            v = net.links[l].from as usize;
        }
        path[start..].reverse();
        Some(path)
    }
}

/// Lay out a `kind = "graph"` topology: nodes as listed, then each link's forward
/// and (duplex) reverse direction in list order.
pub fn graph_net(sc: &Scenario) -> Result<Net, ScenarioError> {
    let t = &sc.topology;
    let mut net = Net::default();
    for n in &t.nodes {
        net.add_node(n.clone());
    }
    for (i, ls) in t.links.iter().enumerate() {
        let p = format!("topology.links[{i}]");
        let from = net
            .node(&ls.from)
            .ok_or_else(|| ScenarioError::at(&format!("{p}.from"), unknown_node(&ls.from, t)))?;
        let to = net
            .node(&ls.to)
            .ok_or_else(|| ScenarioError::at(&format!("{p}.to"), unknown_node(&ls.to, t)))?;
        let name = ls
            .name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", ls.from, ls.to));
        let rev_name = ls.reverse_name.clone().unwrap_or_else(|| match &ls.name {
            Some(n) => format!("{n}_rev"),
            None => format!("{}-{}", ls.to, ls.from),
        });
        let buffer = ls.buffer.or(t.buffer).ok_or_else(|| {
            ScenarioError::at(
                &format!("{p}.buffer"),
                "missing: give the link a buffer or set topology.buffer",
            )
        })?;
        let queue = ls.queue.clone().unwrap_or_else(|| t.queue.clone());
        let fwd = net.links.len();
        let twin = ls.duplex.then_some(fwd + 1);
        net.add_link(LinkPlan {
            name,
            from,
            to,
            rate: ls.rate.0,
            delay: ls.delay.0,
            queue: queue.clone(),
            buffer: BufferPlan::Rule {
                spec: buffer,
                basis: fwd,
                twin,
                path: format!("{p}.buffer"),
            },
            loss: ls.loss,
            monitor: ls.monitor,
        });
        if ls.duplex {
            net.add_link(LinkPlan {
                name: rev_name,
                from: to,
                to: from,
                rate: ls.reverse_rate.map_or(ls.rate.0, |r| r.0),
                delay: ls.delay.0,
                queue: ls.reverse_queue.clone().unwrap_or(queue),
                buffer: BufferPlan::Rule {
                    spec: ls.reverse_buffer.unwrap_or(buffer),
                    basis: fwd,
                    twin: Some(fwd + 1),
                    path: format!(
                        "{p}.{}",
                        if ls.reverse_buffer.is_some() {
                            "reverse_buffer"
                        } else {
                            "buffer"
                        }
                    ),
                },
                loss: ls.reverse_loss,
                monitor: ls.monitor,
            });
        }
    }
    Ok(net)
}

fn unknown_node(name: &str, t: &crate::scenario::Topology) -> String {
    let known: Vec<&str> = t.nodes.iter().take(8).map(|s| s.as_str()).collect();
    let more = if t.nodes.len() > 8 { ", ..." } else { "" };
    format!(
        "no node named \"{name}\" in topology.nodes (nodes: {}{more})",
        known.join(", ")
    )
}

fn positive_rate(r: Option<RateQ>, path: &str) -> Result<(), ScenarioError> {
    match r {
        Some(r) if r.0.bps() == 0 => Err(ScenarioError::at(
            path,
            "a link needs a positive rate, got 0bps",
        )),
        _ => Ok(()),
    }
}

/// The fields each topology kind needs and allows, checked with their paths.
pub fn check_topology(sc: &Scenario) -> Result<(), ScenarioError> {
    let t = &sc.topology;
    let kind = t.kind.name();
    let not_here = |field: &str| {
        ScenarioError::at(
            &format!("topology.{field}"),
            format!("not a field of kind = \"{kind}\""),
        )
    };
    match t.kind {
        TopologyKind::Dumbbell | TopologyKind::ParkingLot => {
            for (present, field) in [
                (t.bottleneck_rate.is_none(), "bottleneck_rate"),
                (t.bottleneck_delay.is_none(), "bottleneck_delay"),
                (t.buffer.is_none(), "buffer"),
            ] {
                if present {
                    return Err(ScenarioError::at(
                        &format!("topology.{field}"),
                        format!("missing (required for kind = \"{kind}\")"),
                    ));
                }
            }
            positive_rate(t.bottleneck_rate, "topology.bottleneck_rate")?;
            if !t.nodes.is_empty() {
                return Err(not_here("nodes"));
            }
            if !t.links.is_empty() {
                return Err(not_here("links"));
            }
            if t.routing != Routing::Hops {
                return Err(not_here("routing"));
            }
            let k = match (t.kind, t.middle_links) {
                (TopologyKind::Dumbbell, Some(_)) => return Err(not_here("middle_links")),
                (TopologyKind::Dumbbell, None) => 1,
                (_, None) => {
                    return Err(ScenarioError::at(
                        "topology.middle_links",
                        "missing (required for kind = \"parking_lot\")",
                    ))
                }
                (_, Some(0)) => {
                    return Err(ScenarioError::at(
                        "topology.middle_links",
                        "must be at least 1",
                    ))
                }
                (_, Some(k)) => k,
            };
            let d = t.delay().as_secs_f64();
            for (i, g) in sc.flows.iter().enumerate() {
                let p = format!("flows[{i}]");
                for (set, f) in [(g.src.is_some(), "src"), (g.dst.is_some(), "dst")] {
                    if set {
                        return Err(ScenarioError::at(
                            &format!("{p}.{f}"),
                            format!("endpoints are for kind = \"graph\"; this is \"{kind}\""),
                        ));
                    }
                }
                let (a, b) = check_span(g.span, t.kind, k, &format!("{p}.span"))?;
                check_rtt(g.rtt.as_ref().map(|r| &r.dist), (b - a + 1) as f64 * d, &p)?;
            }
            for (i, s) in sc.poisson.iter().enumerate() {
                if s.src.is_some() || s.dst.is_some() {
                    return Err(ScenarioError::at(
                        &format!("poisson[{i}].src"),
                        "endpoints are for kind = \"graph\"; use link or direction",
                    ));
                }
            }
        }
        TopologyKind::Graph => {
            for (present, field) in [
                (t.bottleneck_rate.is_some(), "bottleneck_rate"),
                (t.bottleneck_delay.is_some(), "bottleneck_delay"),
                (t.middle_links.is_some(), "middle_links"),
                (t.access_rate.is_some(), "access_rate"),
                (t.access_delay.is_some(), "access_delay"),
                (t.access_buffer.is_some(), "access_buffer"),
                (t.loss != 0.0, "loss"),
                (t.reverse_loss != 0.0, "reverse_loss"),
            ] {
                if present {
                    return Err(not_here(field));
                }
            }
            if t.links.is_empty() {
                return Err(ScenarioError::at(
                    "topology.links",
                    "a graph needs at least one link",
                ));
            }
            for (i, n) in t.nodes.iter().enumerate() {
                if t.nodes[..i].contains(n) {
                    return Err(ScenarioError::at(
                        &format!("topology.nodes[{i}]"),
                        format!("\"{n}\" is listed twice"),
                    ));
                }
            }
            for (i, l) in t.links.iter().enumerate() {
                let p = format!("topology.links[{i}]");
                positive_rate(Some(l.rate), &format!("{p}.rate"))?;
                positive_rate(l.reverse_rate, &format!("{p}.reverse_rate"))?;
                if l.from == l.to {
                    return Err(ScenarioError::at(
                        &format!("{p}.to"),
                        format!("a link joins two different nodes, got \"{}\" twice", l.to),
                    ));
                }
                for (name, v) in [("loss", l.loss), ("reverse_loss", l.reverse_loss)] {
                    if !(0.0..1.0).contains(&v) {
                        return Err(ScenarioError::at(
                            &format!("{p}.{name}"),
                            format!("a loss probability must be in [0, 1), got {v}"),
                        ));
                    }
                }
            }
            let net = graph_net(sc)?;
            let mut names: Vec<&str> = net.links.iter().map(|l| l.name.as_str()).collect();
            names.sort_unstable();
            if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                return Err(ScenarioError::at(
                    "topology.links",
                    format!("two directed links are named \"{}\"", w[0]),
                ));
            }
            let mut router = Router::new(&net, t.routing);
            for (i, g) in sc.flows.iter().enumerate() {
                let p = format!("flows[{i}]");
                check_endpoints(&mut router, &net, t, &g.src, &g.dst, &p)?;
                for (set, f) in [
                    (g.rtt.is_some(), "rtt"),
                    (g.access_delay.is_some(), "access_delay"),
                    (g.span.is_some(), "span"),
                ] {
                    if set {
                        return Err(ScenarioError::at(
                            &format!("{p}.{f}"),
                            "not used in a graph: delays come from the links, routes from src and dst",
                        ));
                    }
                }
            }
            for (i, s) in sc.poisson.iter().enumerate() {
                let p = format!("poisson[{i}]");
                match (&s.link, &s.src, &s.dst) {
                    (Some(_), None, None) => {}
                    (None, Some(_), Some(_)) => {
                        let si = net.node(s.src.as_deref().unwrap_or_default());
                        let di = net.node(s.dst.as_deref().unwrap_or_default());
                        match (si, di) {
                            (Some(a), Some(b)) if a != b => {
                                if router.route(a, b).is_none() {
                                    return Err(ScenarioError::at(&p, "no route from src to dst"));
                                }
                            }
                            _ => {
                                return Err(ScenarioError::at(
                                    &format!("{p}.src"),
                                    "src and dst must be two different nodes of topology.nodes",
                                ))
                            }
                        }
                    }
                    _ => {
                        return Err(ScenarioError::at(
                            &p,
                            "in a graph, give either link or both src and dst",
                        ))
                    }
                }
            }
            for (i, w) in sc.workloads.iter().enumerate() {
                check_endpoints(
                    &mut router,
                    &net,
                    t,
                    &w.src,
                    &w.dst,
                    &format!("workloads[{i}]"),
                )?;
            }
        }
    }
    for (i, s) in sc.poisson.iter().enumerate() {
        if s.link.is_some() && s.direction != crate::scenario::Direction::Forward {
            return Err(ScenarioError::at(
                &format!("poisson[{i}].direction"),
                "the link already says where the packets go",
            ));
        }
    }
    Ok(())
}

/// Graph endpoints `src`/`dst` of a flow group or workload at path `p`: named nodes,
/// different, with routes both ways.
fn check_endpoints(
    router: &mut Router<'_>,
    net: &Net,
    t: &crate::scenario::Topology,
    src: &Option<String>,
    dst: &Option<String>,
    p: &str,
) -> Result<(), ScenarioError> {
    let s = src.as_deref().ok_or_else(|| {
        ScenarioError::at(
            &format!("{p}.src"),
            "missing (a graph's flows name their endpoints)",
        )
    })?;
    let d = dst.as_deref().ok_or_else(|| {
        ScenarioError::at(
            &format!("{p}.dst"),
            "missing (a graph's flows name their endpoints)",
        )
    })?;
    let si = net
        .node(s)
        .ok_or_else(|| ScenarioError::at(&format!("{p}.src"), unknown_node(s, t)))?;
    let di = net
        .node(d)
        .ok_or_else(|| ScenarioError::at(&format!("{p}.dst"), unknown_node(d, t)))?;
    if si == di {
        return Err(ScenarioError::at(
            &format!("{p}.dst"),
            "the same node as src",
        ));
    }
    if router.route(si, di).is_none() || router.route(di, si).is_none() {
        return Err(ScenarioError::at(
            p,
            format!("no route between \"{s}\" and \"{d}\" in both directions (TCP needs one for data and one for ACKs)"),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(from: u32, to: u32, delay_ms: u64) -> LinkPlan {
        LinkPlan {
            name: format!("{from}-{to}"),
            from,
            to,
            rate: Rate(1_000_000),
            delay: Time::from_millis(delay_ms),
            queue: QueueSpec::DropTail,
            buffer: BufferPlan::Limit(Limit::Packets(10)),
            loss: 0.0,
            monitor: false,
        }
    }

    /// A square 0-1-3 / 0-2-3 plus a long direct 0-3 link: hops picks the direct
    /// link, delay the fast two-hop path; the two equal two-hop paths tie and the one
    /// through the lower node index (1) wins.
    #[test]
    fn routes_follow_the_metric_and_tie_break() {
        let mut net = Net::default();
        for i in 0..4 {
            net.add_node(format!("n{i}"));
        }
        let a = net.add_link(plan(0, 2, 1)); // 0
        let b = net.add_link(plan(2, 3, 1)); // 1
        let c = net.add_link(plan(0, 1, 1)); // 2
        let d = net.add_link(plan(1, 3, 1)); // 3
        let e = net.add_link(plan(0, 3, 50)); // 4
        let mut r = Router::new(&net, Routing::Hops);
        assert_eq!(r.route(0, 3), Some(vec![e]));
        let mut r = Router::new(&net, Routing::Delay);
        assert_eq!(r.route(0, 3), Some(vec![c, d]), "{a} {b}");
        assert_eq!(r.route(3, 0), None);
        assert_eq!(r.route(2, 2), Some(vec![]));
    }

    /// A ring of one-way links that never meets the destination: no route (and no
    /// endless walk around the ring).
    #[test]
    fn one_way_ring_without_the_destination_has_no_route() {
        let mut net = Net::default();
        for i in 0..4 {
            net.add_node(format!("n{i}"));
        }
        net.add_link(plan(0, 1, 1));
        net.add_link(plan(1, 2, 1));
        net.add_link(plan(2, 0, 1));
        net.add_link(plan(3, 0, 1));
        let mut r = Router::new(&net, Routing::Hops);
        assert_eq!(r.route(0, 3), None);
        assert_eq!(r.route(3, 2), Some(vec![3, 0, 1]));
    }

    /// A host (one out-link) routes through its router's tree.
    #[test]
    fn hosts_route_through_their_router() {
        let mut net = Net::default();
        for i in 0..4 {
            net.add_node(format!("n{i}"));
        }
        let core = net.add_link(plan(0, 1, 5));
        let up = net.add_link(plan(2, 0, 1));
        let down = net.add_link(plan(1, 3, 1));
        let mut r = Router::new(&net, Routing::Hops);
        assert_eq!(r.route(2, 3), Some(vec![up, core, down]));
    }
}
