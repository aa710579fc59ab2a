//! The one network representation every topology builds into: named nodes and
//! directed links (a duplex link is two directed links, forward first), plus static
//! shortest-path routes between nodes. The dumbbell and the parking lot are builders
//! that lay out such a graph (`net::topology`); `kind = "graph"` reads it from the
//! scenario.
//!
//! Routes are computed once, at build time, into link-id vectors (`World::paths`);
//! forwarding a packet is an index into its path, never a lookup.

use super::trace::Trace;
use crate::quantity::BufferSpec;
use crate::queue::{Limit, QueueSpec};
use crate::scenario::topology::node_index;
use crate::scenario::{Routing, Scenario, ScenarioError};
use crate::units::{Rate, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
    /// A Mahimahi trace sets the capacity (`rate` is then its mean).
    pub trace: Option<std::sync::Arc<Trace>>,
    /// A token-bucket shaper of this many bytes replaces the transmitter.
    pub shaper_burst: Option<u64>,
    /// Extra propagation delay per packet, drawn from this distribution (seconds),
    /// never reordering (`Link::jitter`).
    pub jitter: Option<crate::random::Law>,
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

/// Read the trace file `file` of the field at `path`, relative to the scenario's
/// directory (`Scenario::base_dir`; the current directory when it has none).
pub fn load_trace(
    sc: &Scenario,
    file: &str,
    path: &str,
) -> Result<std::sync::Arc<Trace>, ScenarioError> {
    let f = std::path::Path::new(file);
    let full = match &sc.base_dir {
        Some(d) if f.is_relative() => d.join(f),
        _ => f.to_path_buf(),
    };
    Trace::load(&full)
        .map(std::sync::Arc::new)
        .map_err(|e| ScenarioError::at(path, e))
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
        // The scenario checked both names (scenario::topology::check_topology).
        let from = node_index(t, &ls.from, &format!("{p}.from"))?;
        let to = node_index(t, &ls.to, &format!("{p}.to"))?;
        let name = ls
            .name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", ls.from, ls.to));
        let rev_name = ls.reverse_name.clone().unwrap_or_else(|| match &ls.name {
            Some(n) => format!("{n}_rev"),
            None => format!("{}-{}", ls.to, ls.from),
        });
        let trace = match ls.rate.trace() {
            Some(file) => Some(load_trace(sc, file, &format!("{p}.rate.trace"))?),
            None => None,
        };
        let rate = match &trace {
            Some(tr) => tr.mean_rate(),
            None => ls.rate.fixed().unwrap_or(Rate(0)),
        };
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
            rate,
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
            trace,
            shaper_burst: ls.shaper.map(|s| s.burst_bytes()),
            jitter: None,
        });
        if ls.duplex {
            net.add_link(LinkPlan {
                name: rev_name,
                from: to,
                to: from,
                rate: ls.reverse_rate.map_or(rate, |r| r.0),
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
                trace: None,
                shaper_burst: ls.reverse_shaper.map(|s| s.burst_bytes()),
                jitter: None,
            });
        }
    }
    Ok(net)
}

/// Routes a graph needs, checked on its layout: unique directed-link names, and a
/// route both ways between every flow group's and workload's endpoints (TCP needs
/// one for data and one for ACKs), one way for every Poisson source's.
pub fn check_routes(sc: &Scenario, net: &Net) -> Result<(), ScenarioError> {
    let mut names: Vec<&str> = net.links.iter().map(|l| l.name.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(ScenarioError::at(
            "topology.links",
            format!("two directed links are named \"{}\"", w[0]),
        ));
    }
    let mut router = Router::new(net, sc.topology.routing);
    let node = |n: &Option<String>| net.node(n.as_deref().unwrap_or_default());
    let ends = sc
        .flows
        .iter()
        .enumerate()
        .map(|(i, g)| (format!("flows[{i}]"), &g.src, &g.dst))
        .chain(
            sc.workloads
                .iter()
                .enumerate()
                .map(|(i, w)| (format!("workloads[{i}]"), &w.src, &w.dst)),
        );
    for (p, src, dst) in ends {
        if let (Some(a), Some(b)) = (node(src), node(dst)) {
            if router.route(a, b).is_none() || router.route(b, a).is_none() {
                return Err(ScenarioError::at(
                    &p,
                    format!(
                        "no route between \"{}\" and \"{}\" in both directions (TCP needs one for data and one for ACKs)",
                        net.nodes[a as usize], net.nodes[b as usize]
                    ),
                ));
            }
        }
    }
    for (i, s) in sc.poisson.iter().enumerate() {
        if let (Some(a), Some(b)) = (node(&s.src), node(&s.dst)) {
            if router.route(a, b).is_none() {
                return Err(ScenarioError::at(
                    &format!("poisson[{i}]"),
                    "no route from src to dst",
                ));
            }
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
            trace: None,
            shaper_burst: None,
            jitter: None,
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
