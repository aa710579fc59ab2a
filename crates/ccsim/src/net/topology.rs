//! Topology builders over the one graph representation of `net::graph`.
//!
//! - **dumbbell**: routers `left`/`right` joined by `bottleneck` (+ `bottleneck_rev`);
//!   every flow has its own sender and receiver host, each joined to a router by an
//!   access link (one per direction).
//! - **parking lot** (study 000 §4.4): routers r0..rk joined by k middle links
//!   `link1`..`linkk` (+ `_rev`); a flow group's `span = [a, b]` says which middle
//!   links it crosses (default: all of them, the long flows); hosts as in the dumbbell.
//!   A dumbbell is the parking lot with k = 1 and other link names.
//! - **graph**: nodes and links as the scenario lists them; flows by endpoints.
//!
//! All three become a `Net` (nodes, directed links) plus flows by endpoints; one
//! assembly routes them (shortest paths, `net::graph::Router`), resolves buffer rules
//! against each link's flows, and builds the world.
//!
//! Link order and random-stream names are part of the contract: a flow's stream is
//! `flow/<i>` (start, then the access delays or RTT, then the size), a link's loss
//! stream `link/<id>/loss`, so a graph that lists the dumbbell's links in the
//! dumbbell's order reproduces the dumbbell exactly (tests/topology.rs).

use crate::cc::{self, EcnStyle, Profile};
use crate::net::graph::{check_routes, graph_net, BufferPlan, LinkPlan, Net, Router};
use crate::quantity::{size_bytes, BufferSpec};
use crate::queue::{Limit, QueueSpec};
use crate::random::{stream, Dist};
use crate::scenario::{
    parse_rwnd, BufferUnit, CcSpec, Direction, ProfileDefaults, Scenario, ScenarioError, TcpOpts,
    TopologyKind, INFINITE_SSTHRESH,
};
use crate::sim::{LinkId, NodeId};
use crate::tcp::pacer::PacingMode;
use crate::tcp::{Receiver, Recovery, Sender, SenderConfig};
use crate::units::{Rate, Time};

/// What the build resolved, reported in the summary (for the main bottleneck).
#[derive(Clone, Debug, Default)]
pub struct BuildInfo {
    pub bdp_bytes: f64,
    pub mean_rtt: f64,
    pub packet_size: f64,
    pub buffer_limit: String,
    pub long_flows: usize,
    /// Each flow group's and workload's effective TCP settings, by name.
    pub tcp: Vec<(String, serde_json::Value)>,
}

/// Resolve a buffer spec into a queue limit.
pub fn resolve_limit(
    b: BufferSpec,
    unit: BufferUnit,
    info: &BuildInfo,
    path: &str,
) -> Result<Limit, ScenarioError> {
    let need_rtt = || {
        if info.mean_rtt <= 0.0 {
            Err(ScenarioError::at(
                path,
                "this buffer rule needs TCP flows to define the RTT of the bandwidth-delay product",
            ))
        } else {
            Ok(())
        }
    };
    let bytes = match b {
        BufferSpec::Packets(n) => return Ok(Limit::Packets(n)),
        BufferSpec::Bytes(n) => return Ok(Limit::Bytes(n)),
        BufferSpec::Tiny => return Ok(Limit::Packets(20)),
        BufferSpec::Bdp(f) => {
            need_rtt()?;
            f * info.bdp_bytes
        }
        BufferSpec::Stanford(f) => {
            need_rtt()?;
            f * info.bdp_bytes / (info.long_flows.max(1) as f64).sqrt()
        }
    };
    Ok(match unit {
        BufferUnit::Bytes => Limit::Bytes(bytes.round() as u64),
        // At least one packet, so that a "0.01bdp" buffer still forwards.
        BufferUnit::Packets => Limit::Packets((bytes / info.packet_size).round().max(1.0) as u64),
    })
}

/// Linux's `net.ipv4.tcp_comp_sack_delay_ns` default: the longest a compressed SACK waits.
const COMP_SACK_DELAY: Time = Time::from_millis(1);

/// The TCP configuration of a flow group or a workload: everything needed to make
/// the endpoints of a new flow.
#[derive(Clone, Debug)]
pub struct TcpTemplate {
    pub cfg: SenderConfig,
    pub cc: CcSpec,
    pub profile: Profile,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    pub quickack: u32,
    pub sack_compression: bool,
    /// The receiving application's wake-up latency (seconds): ACKs at its reads.
    pub read_latency: Option<crate::random::Law>,
}

impl TcpTemplate {
    /// `path` is the field path of the group (`flows[2]`, `workloads[0]`).
    pub fn new(
        cc_spec: &CcSpec,
        recovery: Option<&str>,
        own: &TcpOpts,
        base: &TcpOpts,
        path: &str,
    ) -> Result<Self, ScenarioError> {
        let opts = own.over(base);
        let profile = opts
            .profile()
            .map_err(|e| ScenarioError::at(&format!("{path}.tcp.profile"), e))?;
        let d = ProfileDefaults::of(profile);
        let mss = opts.mss.map_or(d.mss, |m| m.0) as u32;
        let recovery = match recovery {
            Some("reno") => Recovery::Reno,
            Some("sack") => Recovery::Sack,
            Some(_) => Recovery::NewReno,
            None if cc_spec.name == "reno" && !d.sack => Recovery::Reno,
            // The XCP header and SACK blocks share one option slot of the packet
            // (packet.rs): XCP senders recover with NewReno under every profile.
            None if d.sack && cc_spec.name != "xcp" => Recovery::Sack,
            None => Recovery::NewReno,
        };
        let cfg = SenderConfig {
            mss,
            header: opts.header.map_or(d.header, |h| h.0) as u32,
            init_cwnd: opts.init_cwnd.unwrap_or(d.init_cwnd),
            init_ssthresh: opts.init_ssthresh.unwrap_or(d.init_ssthresh),
            rwnd: match &opts.rwnd {
                Some(r) => parse_rwnd(r, mss)
                    .map_err(|e| ScenarioError::at(&format!("{path}.tcp.rwnd"), e))?,
                None => u64::MAX,
            },
            min_rto: opts.min_rto.map_or(d.min_rto, |x| x.0),
            max_rto: opts.max_rto.map_or(d.max_rto, |x| x.0),
            initial_rto: opts.initial_rto.map_or(d.initial_rto, |x| x.0),
            linux_rto: match opts.rto_estimator.as_deref() {
                None => d.linux_rto,
                Some("linux") => true,
                Some("rfc6298") => false,
                Some(other) => {
                    return Err(ScenarioError::at(
                        &format!("{path}.tcp.rto_estimator"),
                        format!("unknown RTO estimator \"{other}\" (known: linux, rfc6298)"),
                    ))
                }
            },
            timestamps: opts.timestamps.unwrap_or(d.timestamps),
            dupthresh: opts.dupthresh.unwrap_or(d.dupthresh),
            recovery,
            prr: opts.prr.unwrap_or(d.prr),
            prr_ns3: opts.prr_ns3.unwrap_or(d.prr_ns3),
            partial_ack_send: opts.partial_ack_send.unwrap_or(d.partial_ack_send),
            exit_ack_increase: opts.exit_ack_increase.unwrap_or(d.exit_ack_increase),
            grow_by_delivered: opts.grow_by_delivered.unwrap_or(d.grow_by_delivered),
            rto_new_ssthresh: opts.rto_new_ssthresh.unwrap_or(d.rto_new_ssthresh),
            rto_keeps_sack: opts.rto_keeps_sack.unwrap_or(d.rto_keeps_sack),
            ssthresh_from_pipe: opts.ssthresh_from_pipe.unwrap_or(d.ssthresh_from_pipe),
            limited_transmit: opts.limited_transmit.unwrap_or(d.limited_transmit),
            ecn: opts.ecn.unwrap_or(false),
            cwnd_validation: opts.cwnd_validation.unwrap_or(d.cwnd_validation),
            rack: opts.rack.unwrap_or(d.rack),
            gso_bursts: opts.gso_bursts.unwrap_or(d.gso_bursts),
            tso_defer: opts.tso_defer.unwrap_or(d.tso_defer),
            mark_psh: opts.read_latency.is_some(),
            linux_rounds: profile == Profile::Linux,
            pacing: match &opts.pacing {
                Some(pc) => pacing_mode(
                    pc.resolve()
                        .map_err(|e| ScenarioError::at(&format!("{path}.tcp.pacing"), e))?,
                ),
                None => PacingMode::None,
            },
        };
        let algo = cc::build(&cc_spec.name, &cc_spec.params, profile)
            .map_err(|e| ScenarioError::at(&format!("{path}.cc"), e))?;
        let mut cfg = cfg;
        if algo.ecn() == EcnStyle::L4s && opts.pacing.is_none() {
            // An L4S sender is paced (Linux Prague sets SK_PACING_NEEDED): the rate
            // pacer at 200 % of cwnd/SRTT in slow start, 100 % after (Linux
            // `prague_update_pacing_rate`), one packet deep.
            cfg.pacing = PacingMode::Rate {
                ss_factor: 2.0,
                ca_factor: 1.0,
                depth: 1.0,
            };
        }
        Ok(TcpTemplate {
            cfg,
            cc: cc_spec.clone(),
            profile,
            delayed_ack: opts.delayed_ack.unwrap_or(d.delayed_ack),
            delack_timeout: opts.delack_timeout.map_or(d.delack_timeout, |x| x.0),
            quickack: opts.quickack.unwrap_or(d.quickack),
            sack_compression: opts.sack_compression.unwrap_or(d.sack_compression),
            read_latency: opts.read_latency.as_ref().map(|l| l.law.clone()),
        })
    }

    /// The effective settings, for the summary: every option as the flow runs it.
    pub fn describe(&self) -> serde_json::Value {
        let c = &self.cfg;
        let ssthresh = if c.init_ssthresh >= INFINITE_SSTHRESH {
            serde_json::Value::from("inf")
        } else {
            serde_json::Value::from(c.init_ssthresh)
        };
        serde_json::json!({
            "profile": self.profile.name(),
            "cc": self.cc.name,
            "recovery": match c.recovery {
                Recovery::Reno => "reno",
                Recovery::NewReno => "newreno",
                Recovery::Sack => "sack",
            },
            "mss": c.mss,
            "header": c.header,
            "init_cwnd": c.init_cwnd,
            "init_ssthresh": ssthresh,
            // Segments; null: no receive-window limit.
            "rwnd": (c.rwnd != u64::MAX).then_some(c.rwnd),
            "delayed_ack": self.delayed_ack,
            "delack_timeout_s": self.delack_timeout.as_secs_f64(),
            "quickack": self.quickack,
            "sack_compression": self.sack_compression && c.recovery == Recovery::Sack,
            // When in-order data is acknowledged: as it arrives, or at the receiving
            // application's reads, with its mean wake-up latency (0 with "arrival").
            "ack_at": if self.read_latency.is_some() { "read" } else { "arrival" },
            "read_latency_mean_s": self.read_latency.as_ref().map_or(0.0, |d| d.mean()),
            "min_rto_s": c.min_rto.as_secs_f64(),
            "max_rto_s": c.max_rto.as_secs_f64(),
            "initial_rto_s": c.initial_rto.as_secs_f64(),
            "rto_estimator": if c.linux_rto { "linux" } else { "rfc6298" },
            "timestamps": c.timestamps,
            "dupthresh": c.dupthresh,
            "prr": c.prr && c.recovery == Recovery::Sack,
            "prr_ns3": c.prr && c.prr_ns3 && c.recovery == Recovery::Sack,
            "partial_ack_send": c.partial_ack_send && c.recovery == Recovery::Sack,
            "exit_ack_increase": c.exit_ack_increase,
            "grow_by_delivered": c.grow_by_delivered && c.recovery == Recovery::Sack,
            "rto_new_ssthresh": c.rto_new_ssthresh,
            "rto_keeps_sack": c.rto_keeps_sack && c.recovery == Recovery::Sack,
            "ssthresh_from_pipe": c.ssthresh_from_pipe && c.recovery == Recovery::Sack,
            "limited_transmit": c.limited_transmit && c.recovery == Recovery::Sack,
            "ecn": c.ecn,
            "cwnd_validation": c.cwnd_validation,
            "rack": c.rack && c.recovery == Recovery::Sack,
            "gso_bursts": c.gso_bursts,
            "tso_defer": c.tso_defer,
            "pacing": match c.pacing {
                PacingMode::None => "none",
                PacingMode::Leaky { .. } => "leaky",
                PacingMode::Rate { .. } => "rate",
                PacingMode::Linux => "linux",
            },
        })
    }

    /// Fresh endpoints of flow `flow` over the given paths, whose propagation RTT is
    /// `rtt_prop`.
    pub fn endpoints(
        &self,
        flow: u32,
        data_path: u32,
        ack_path: u32,
        size: Option<u64>,
        rtt_prop: Time,
    ) -> (Sender, Receiver) {
        // The algorithm and its parameters were checked when the template was made.
        let algo = cc::build(&self.cc.name, &self.cc.params, self.profile)
            .unwrap_or_else(|_| Box::new(crate::cc::reno::Reno));
        let algo_ecn = algo.ecn();
        let sender = Sender::new(self.cfg.clone(), algo, flow, data_path, size);
        let mut receiver = Receiver::new(
            flow,
            ack_path,
            self.cfg.header,
            self.cfg.mss,
            sender.limit,
            sender.last_payload,
        );
        receiver.delayed_ack = self.delayed_ack;
        receiver.quickack = self.quickack;
        receiver.delack_timeout = self.delack_timeout;
        receiver.sack = self.cfg.recovery == Recovery::Sack;
        if self.sack_compression && receiver.sack {
            // Linux: min(tcp_comp_sack_delay_ns, RTT/20), the RTT the receiver's
            // (min of rcv_rtt_est and the handshake's srtt: the path's, here).
            receiver.sack_compression = Some(COMP_SACK_DELAY.min(Time(rtt_prop.ps() / 20)));
        }
        receiver.per_packet_echo = matches!(algo_ecn, EcnStyle::Dctcp | EcnStyle::L4s);
        if let Some(l) = &self.read_latency {
            // Seeded for real by `Receiver::seed_reads` when the flow starts.
            receiver.ack_at_reads(l.clone(), crate::random::stream(0, "reads"));
        }
        (sender, receiver)
    }
}

/// The tcp pacer a resolved `tcp.pacing` names.
fn pacing_mode(p: crate::scenario::Pacing) -> PacingMode {
    use crate::scenario::Pacing;
    match p {
        Pacing::None => PacingMode::None,
        Pacing::Leaky { depth } => PacingMode::Leaky { depth },
        Pacing::Linux => PacingMode::Linux,
        Pacing::Rate {
            ss_factor,
            ca_factor,
            depth,
        } => PacingMode::Rate {
            ss_factor,
            ca_factor,
            depth,
        },
    }
}

/// Who a planned TCP flow belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// `flows[g]`.
    Group(usize),
    /// Slot `j` of `workloads[w]`.
    Workload(usize, usize),
}

/// A TCP flow (or workload slot) by endpoints.
struct FlowPlan {
    owner: Owner,
    reverse: bool,
    start: Time,
    size: Option<u64>,
    src: u32,
    dst: u32,
}

/// Where a Poisson packet source's packets go.
enum PoissonRoute {
    Links(Vec<usize>),
    Nodes(u32, u32),
}

/// A topology laid out as a graph, with every flow by its endpoints.
struct Layout {
    net: Net,
    routing: crate::scenario::Routing,
    flows: Vec<FlowPlan>,
    poisson: Vec<PoissonRoute>,
    /// Directed links reported in the summary, in order; the first is the bottleneck.
    monitored: Vec<usize>,
}

fn secs(v: f64) -> Time {
    Time::from_secs_f64(v.max(0.0))
}

/// Dumbbell and parking lot: a chain of k middle links with a host pair per flow.
fn chain_layout(sc: &Scenario, seed: u64) -> Result<Layout, ScenarioError> {
    let t = &sc.topology;
    let dumbbell = t.kind == TopologyKind::Dumbbell;
    let k = if dumbbell {
        1
    } else {
        t.middle_links.unwrap_or(1)
    };
    let trace = match t.bottleneck_rate.as_ref().and_then(|r| r.trace()) {
        Some(file) => Some(super::graph::load_trace(
            sc,
            file,
            "topology.bottleneck_rate.trace",
        )?),
        None => None,
    };
    let b_rate = trace.as_ref().map_or(t.rate(), |tr| tr.mean_rate());
    let b_delay = t.delay();
    let a_rate = t
        .access_rate
        .map(|r| r.0)
        .unwrap_or(Rate(b_rate.0.saturating_mul(10)));

    let mut net = Net::default();
    for r in 0..=k {
        let name = match (dumbbell, r) {
            (true, 0) => "left".to_string(),
            (true, _) => "right".to_string(),
            _ => format!("r{r}"),
        };
        net.add_node(name);
    }
    // Middle links, forward then reverse for each; buffer rules against the
    // forward link's flows (the dumbbell's rule: the forward flows' mean RTT).
    let mut monitored = Vec::new();
    for j in 1..=k {
        let (f, r) = if dumbbell {
            ("bottleneck".to_string(), "bottleneck_rev".to_string())
        } else {
            (format!("link{j}"), format!("link{j}_rev"))
        };
        let fwd = net.links.len();
        for (name, from, to, loss) in [(f, j - 1, j, t.loss), (r, j, j - 1, t.reverse_loss)] {
            // A trace drives the forward direction; the reverse runs at its mean rate.
            let trace = if from < to { trace.clone() } else { None };
            let id = net.add_link(LinkPlan {
                name,
                from,
                to,
                rate: b_rate,
                delay: b_delay,
                queue: t.queue.clone(),
                buffer: BufferPlan::Rule {
                    spec: t.buffer_spec(),
                    basis: fwd,
                    twin: Some(fwd + 1),
                    path: "topology.buffer".into(),
                },
                loss,
                monitor: true,
                trace,
                // Like the loss and the trace, the shaper is the forward direction's.
                shaper_burst: t.shaper.filter(|_| from < to).map(|s| s.burst_bytes()),
                // A delay element's lateness delays both directions.
                jitter: t.bottleneck_jitter.as_ref().map(|j| j.law.clone()),
            });
            monitored.push(id);
        }
    }
    let access_buffer = match t.access_buffer {
        Some(spec) => BufferPlan::Rule {
            spec,
            basis: 0,
            twin: Some(1),
            path: "topology.access_buffer".into(),
        },
        None => BufferPlan::Limit(Limit::Packets(100_000)),
    };
    // A host pair with its four access links; returns (src host, dst host).
    let host_pair = |net: &mut Net, label: &str, src_r: u32, dst_r: u32, d_src, d_dst, rate| {
        let hs = net.add_node(format!("{label}.src"));
        let hd = net.add_node(format!("{label}.dst"));
        for (suffix, from, to, d) in [
            ("src_up", hs, src_r, d_src),
            ("src_down", src_r, hs, d_src),
            ("dst_down", dst_r, hd, d_dst),
            ("dst_up", hd, dst_r, d_dst),
        ] {
            net.add_link(LinkPlan {
                name: format!("{label}.{suffix}"),
                from,
                to,
                rate,
                delay: d,
                queue: QueueSpec::DropTail,
                buffer: access_buffer.clone(),
                loss: 0.0,
                monitor: false,
                trace: None,
                shaper_burst: None,
                jitter: None,
            });
        }
        (hs, hd)
    };
    // Routers of a span [a, b] in a direction: (sender's router, receiver's router),
    // and the one-way delay of the middle links between them.
    let ends = |span: Option<[u32; 2]>, reverse: bool| {
        let [a, b] = span.unwrap_or([1, k]);
        let core = Time(b_delay.0 * (b - a + 1) as u64);
        if reverse {
            (b, a - 1, core)
        } else {
            (a - 1, b, core)
        }
    };
    // Access delays of one host pair: from its RTT (split evenly over the two access
    // links: RTT = 2·(d_src + core + d_dst)) or drawn per link.
    let access =
        |rtt: Option<&Dist>, ad: Option<&Dist>, core: Time, rng: &mut crate::random::Rng| {
            if let Some(rtt) = rtt {
                let r = rtt.sample(rng);
                let each = ((r / 2.0 - core.as_secs_f64()) / 2.0).max(0.0);
                (secs(each), secs(each))
            } else {
                match ad.or(t.access_delay.as_ref().map(|d| &d.dist)) {
                    None => (Time::ZERO, Time::ZERO),
                    Some(d) => (secs(d.sample(rng)), secs(d.sample(rng))),
                }
            }
        };

    let mut flows = Vec::new();
    for (g, grp) in sc.flows.iter().enumerate() {
        let mss = grp.tcp.over(&sc.tcp).mss.map_or(1460, |m| m.0) as u32;
        let reverse = grp.direction == Direction::Reverse;
        let (src_r, dst_r, core) = ends(grp.span, reverse);
        for _ in 0..grp.count {
            let i = flows.len();
            let mut rng = stream(seed, &format!("flow/{i}"));
            let start = grp.start.as_ref().map_or(0.0, |d| d.dist.sample(&mut rng));
            let (d_src, d_dst) = access(
                grp.rtt.as_ref().map(|d| &d.dist),
                grp.access_delay.as_ref().map(|d| &d.dist),
                core,
                &mut rng,
            );
            let size = grp
                .size
                .as_ref()
                .map(|s| size_bytes(s.dist.sample(&mut rng), mss));
            let (src, dst) = host_pair(
                &mut net,
                &format!("flow{i}"),
                src_r,
                dst_r,
                d_src,
                d_dst,
                a_rate,
            );
            flows.push(FlowPlan {
                owner: Owner::Group(g),
                reverse,
                start: secs(start),
                size,
                src,
                dst,
            });
        }
    }
    for (w, spec) in sc.workloads.iter().enumerate() {
        let name = crate::scenario::workload::workload_name(spec, w);
        let rate = spec.access_rate.map_or(a_rate, |r| r.0);
        let ratio = b_rate.as_f64() / rate.as_f64();
        for (j, reverse) in crate::scenario::workload::slot_directions(spec, ratio)
            .into_iter()
            .enumerate()
        {
            let (src_r, dst_r, core) = ends(spec.span, reverse);
            let mut rng = stream(seed, &format!("workload/{w}/slot/{j}"));
            let (d_src, d_dst) = access(
                spec.rtt.as_ref().map(|d| &d.dist),
                spec.access_delay.as_ref().map(|d| &d.dist),
                core,
                &mut rng,
            );
            let (src, dst) = host_pair(
                &mut net,
                &format!("{name}.{j}"),
                src_r,
                dst_r,
                d_src,
                d_dst,
                rate,
            );
            flows.push(FlowPlan {
                owner: Owner::Workload(w, j),
                reverse,
                start: Time::MAX,
                size: None,
                src,
                dst,
            });
        }
    }
    let mut poisson = Vec::new();
    for s in &sc.poisson {
        let links = match &s.link {
            Some(name) => vec![net.link(name).ok_or_else(|| {
                ScenarioError::at(
                    &format!("poisson[{}].link", poisson.len()),
                    format!("no link named \"{name}\" among the middle links"),
                )
            })?],
            // Attached at the routers: the packets cross every middle link.
            None => (1..=k as usize)
                .map(|j| 2 * (j - 1) + usize::from(s.direction == Direction::Reverse))
                .collect::<Vec<_>>(),
        };
        let links = if s.link.is_none() && s.direction == Direction::Reverse {
            links.into_iter().rev().collect()
        } else {
            links
        };
        poisson.push(PoissonRoute::Links(links));
    }
    Ok(Layout {
        net,
        routing: crate::scenario::Routing::Hops,
        flows,
        poisson,
        monitored,
    })
}

/// `kind = "graph"`: the listed nodes and links; flows by endpoints.
fn graph_layout(sc: &Scenario, seed: u64) -> Result<Layout, ScenarioError> {
    let t = &sc.topology;
    let net = graph_net(sc)?;
    check_routes(sc, &net)?;
    let node = |name: &Option<String>| net.node(name.as_deref().unwrap_or_default()).unwrap_or(0);
    let mut flows = Vec::new();
    for (g, grp) in sc.flows.iter().enumerate() {
        let mss = grp.tcp.over(&sc.tcp).mss.map_or(1460, |m| m.0) as u32;
        for _ in 0..grp.count {
            let i = flows.len();
            // Same stream and draw order as the chain builders (start, size).
            let mut rng = stream(seed, &format!("flow/{i}"));
            let start = grp.start.as_ref().map_or(0.0, |d| d.dist.sample(&mut rng));
            let size = grp
                .size
                .as_ref()
                .map(|s| size_bytes(s.dist.sample(&mut rng), mss));
            flows.push(FlowPlan {
                owner: Owner::Group(g),
                // In a graph the direction is only a label (forward/reverse columns,
                // the summary's forward goodput and fairness).
                reverse: grp.direction == Direction::Reverse,
                start: secs(start),
                size,
                src: node(&grp.src),
                dst: node(&grp.dst),
            });
        }
    }
    for (w, spec) in sc.workloads.iter().enumerate() {
        for (j, reverse) in crate::scenario::workload::slot_directions(spec, 1.0)
            .into_iter()
            .enumerate()
        {
            let (a, b) = (node(&spec.src), node(&spec.dst));
            let (src, dst) = if reverse { (b, a) } else { (a, b) };
            flows.push(FlowPlan {
                owner: Owner::Workload(w, j),
                reverse,
                start: Time::MAX,
                size: None,
                src,
                dst,
            });
        }
    }
    let mut poisson = Vec::new();
    for (i, s) in sc.poisson.iter().enumerate() {
        poisson.push(match &s.link {
            Some(name) => PoissonRoute::Links(vec![net.link(name).ok_or_else(|| {
                ScenarioError::at(
                    &format!("poisson[{i}].link"),
                    format!("no link named \"{name}\""),
                )
            })?]),
            None => PoissonRoute::Nodes(node(&s.src), node(&s.dst)),
        });
    }
    let monitored: Vec<usize> = (0..net.links.len())
        .filter(|&l| net.links[l].monitor)
        .collect();
    Ok(Layout {
        net,
        routing: t.routing,
        flows,
        poisson,
        monitored,
    })
}

/// A link of the plan, with its buffer limit resolved.
#[derive(Clone, Debug)]
pub struct PlannedLink {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: Time,
    pub queue: QueueSpec,
    pub limit: Limit,
    /// Bernoulli loss probability on the wire.
    pub loss: f64,
    /// One of the topology's reported links (a dumbbell's bottleneck pair, a graph
    /// link with `monitor`): its queue-occupancy distribution is kept.
    pub monitor: bool,
    /// A Mahimahi trace sets its capacity (`rate` is the trace's mean).
    pub trace: Option<std::sync::Arc<super::trace::Trace>>,
    /// A token-bucket shaper of this many bytes replaces the transmitter.
    pub shaper_burst: Option<u64>,
    /// Extra propagation delay per packet (`Link::jitter`).
    pub jitter: Option<crate::random::Law>,
    /// Mean packet size (bytes on the wire) of the flows its buffer rule is based
    /// on: the unit of a packet limit in the fluid engine.
    pub packet_size: f64,
}

/// A TCP flow (or a workload's flow slot) of the plan.
#[derive(Clone, Debug)]
pub struct PlannedFlow {
    pub owner: Owner,
    /// Its group's name in the flow table and its algorithm's name.
    pub group: String,
    pub cc: String,
    pub reverse: bool,
    /// Start time (`Time::MAX` for a workload slot: its workload starts it); a group
    /// started by an event starts at the event plus its own `start`.
    pub start: Time,
    /// When it stops sending (`flows[i].stop`, a stop event of its group).
    pub stop: Option<Time>,
    pub size: Option<u64>,
    /// Indices into `Plan::paths`: data src→dst, ACKs dst→src.
    pub data_path: u32,
    pub ack_path: u32,
    /// Two-way propagation delay of the two paths.
    pub rtt_prop: Time,
    /// Index into `Plan::templates`.
    pub template: usize,
}

/// An open-loop Poisson packet source of the plan.
#[derive(Clone, Debug)]
pub struct PlannedSource {
    pub name: String,
    pub path: u32,
    /// Mean time between packets, s.
    pub mean_gap: f64,
    pub size: Dist,
    pub start: Time,
    pub stop: Time,
}

/// A workload of the plan: its slots (flow ids, in slot order) and the rate its
/// offered load refers to.
#[derive(Clone, Debug)]
pub struct PlannedWorkload {
    pub slots: Vec<u32>,
    pub capacity: Rate,
    /// Index into `Plan::templates`.
    pub template: usize,
}

/// A scenario's network and traffic, laid out, routed and with every buffer rule
/// resolved: what both engines build from, so that a scenario has the same links,
/// routes, delays, starts and buffers under either.
#[derive(Clone, Debug)]
pub struct Plan {
    pub links: Vec<PlannedLink>,
    pub paths: Vec<Vec<LinkId>>,
    /// Static flows (`flows[]`, by id), then every workload's slots.
    pub flows: Vec<PlannedFlow>,
    /// TCP configurations: one per flow group, then one per workload.
    pub templates: Vec<TcpTemplate>,
    pub sources: Vec<PlannedSource>,
    pub workloads: Vec<PlannedWorkload>,
    /// Links reported in the summary and the series, in order (`output.links`); the
    /// first is the bottleneck.
    pub monitored: Vec<LinkId>,
    pub bottleneck: LinkId,
    pub info: BuildInfo,
    /// Per link: how many flows' (and slots') data routes cross it.
    pub crossers: Vec<u32>,
    /// Scheduled link changes (`[[events]]`), in scenario order.
    pub events: Vec<super::events::LinkChange>,
}

/// Lay out, route and size a scenario's network (both engines start here), drawing
/// starts, RTTs and sizes from `seed` (the scenario's, or a replication's).
pub fn plan(sc: &Scenario, seed: u64) -> Result<Plan, ScenarioError> {
    let layout = match sc.topology.kind {
        TopologyKind::Dumbbell | TopologyKind::ParkingLot => chain_layout(sc, seed)?,
        TopologyKind::Graph => graph_layout(sc, seed)?,
    };
    assemble(sc, layout)
}

/// Route every flow, resolve buffers, and put the plan together.
fn assemble(sc: &Scenario, lay: Layout) -> Result<Plan, ScenarioError> {
    let t = &sc.topology;
    let net = &lay.net;
    let mut router = Router::new(net, lay.routing);
    let as_ids = |v: Vec<usize>| v.into_iter().map(|l| LinkId(l as u32)).collect::<Vec<_>>();

    // TCP templates, one per group, then one per workload.
    let mut templates = Vec::new();
    for (g, grp) in sc.flows.iter().enumerate() {
        templates.push(TcpTemplate::new(
            &grp.cc,
            grp.recovery.as_deref(),
            &grp.tcp,
            &sc.tcp,
            &format!("flows[{g}]"),
        )?);
    }
    for (w, spec) in sc.workloads.iter().enumerate() {
        templates.push(TcpTemplate::new(
            &spec.cc,
            spec.recovery.as_deref(),
            &spec.tcp,
            &sc.tcp,
            &format!("workloads[{w}]"),
        )?);
    }
    let n_groups = sc.flows.len();
    let tmpl_index = |o: Owner| match o {
        Owner::Group(g) => g,
        Owner::Workload(w, _) => n_groups + w,
    };

    // Routes: data src→dst, ACKs dst→src.
    let mut paths: Vec<Vec<LinkId>> = Vec::new();
    let mut routes = Vec::with_capacity(lay.flows.len());
    for p in &lay.flows {
        let no_route = || {
            ScenarioError(format!(
                "no route between nodes \"{}\" and \"{}\"",
                net.nodes[p.src as usize], net.nodes[p.dst as usize]
            ))
        };
        let data = router.route(p.src, p.dst).ok_or_else(no_route)?;
        let ack = router.route(p.dst, p.src).ok_or_else(no_route)?;
        let delay: u64 = data
            .iter()
            .chain(&ack)
            .fold(0u64, |a, &l| a.saturating_add(net.links[l].delay.0));
        routes.push((paths.len() as u32, paths.len() as u32 + 1, Time(delay)));
        paths.push(as_ids(data));
        paths.push(as_ids(ack));
    }

    // Buffer limits: rules against the bandwidth-delay product of their basis link.
    let info_of = |basis: usize, twin: Option<usize>| {
        let crosses = |l: usize| {
            (0..lay.flows.len())
                .filter(|&i| paths[routes[i].0 as usize].contains(&LinkId(l as u32)))
                .collect::<Vec<_>>()
        };
        let mut on = crosses(basis);
        if on.is_empty() {
            if let Some(tw) = twin {
                on = crosses(tw);
            }
        }
        let mut info = BuildInfo {
            packet_size: 1500.0,
            ..Default::default()
        };
        if !on.is_empty() {
            let n = on.len() as f64;
            info.mean_rtt = on.iter().map(|&i| routes[i].2.as_secs_f64()).sum::<f64>() / n;
            info.bdp_bytes = net.links[basis].rate.as_f64() * info.mean_rtt / 8.0;
            info.packet_size = on
                .iter()
                .map(|&i| {
                    let c = &templates[tmpl_index(lay.flows[i].owner)].cfg;
                    (c.mss + c.header) as f64
                })
                .sum::<f64>()
                / n;
            info.long_flows = on.len();
        }
        info
    };
    let mut infos: Vec<Option<BuildInfo>> = vec![None; net.links.len()];
    let mut limits = Vec::with_capacity(net.links.len());
    let mut pkt_sizes = Vec::with_capacity(net.links.len());
    for lp in &net.links {
        let (limit, size) = match &lp.buffer {
            BufferPlan::Limit(l) => (*l, 1500.0),
            BufferPlan::Rule {
                spec,
                basis,
                twin,
                path,
            } => {
                if infos[*basis].is_none() {
                    infos[*basis] = Some(info_of(*basis, *twin));
                }
                let info = infos[*basis].as_ref().expect("computed above");
                (
                    resolve_limit(*spec, t.buffer_unit, info, path)?,
                    info.packet_size,
                )
            }
        };
        limits.push(limit);
        pkt_sizes.push(size);
    }
    let bottleneck = lay.monitored.first().copied().unwrap_or(0);
    let basis = match &net.links[bottleneck].buffer {
        BufferPlan::Rule { basis, .. } => *basis,
        BufferPlan::Limit(_) => bottleneck,
    };
    let mut info = match infos[basis].take() {
        Some(i) => i,
        None => info_of(basis, None),
    };
    info.buffer_limit = limit_text(limits[bottleneck]);
    info.tcp = templates
        .iter()
        .enumerate()
        .map(|(i, tp)| {
            let name = if i < n_groups {
                sc.flows[i].group_name(i)
            } else {
                let w = i - n_groups;
                sc.workloads[w]
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("workloads[{w}]"))
            };
            (name, tp.describe())
        })
        .collect();

    // Reported links: the layout's (its `monitor` ones), or every link.
    let monitored: Vec<LinkId> = if sc.output.links == crate::scenario::LinkReport::All {
        (0..net.links.len() as u32).map(LinkId).collect()
    } else {
        lay.monitored.iter().map(|&l| LinkId(l as u32)).collect()
    };
    let mut links: Vec<PlannedLink> = net
        .links
        .iter()
        .zip(&limits)
        .zip(&pkt_sizes)
        .map(|((lp, &limit), &packet_size)| PlannedLink {
            name: lp.name.clone(),
            from: NodeId(lp.from),
            to: NodeId(lp.to),
            rate: lp.rate,
            delay: lp.delay,
            queue: lp.queue.clone(),
            limit,
            loss: lp.loss,
            monitor: false,
            trace: lp.trace.clone(),
            shaper_burst: lp.shaper_burst,
            jitter: lp.jitter.clone(),
            packet_size,
        })
        .collect();
    for &l in &lay.monitored {
        links[l].monitor = true;
    }

    let mut flows = Vec::with_capacity(lay.flows.len());
    let mut slots: Vec<Vec<u32>> = vec![Vec::new(); sc.workloads.len()];
    for (i, p) in lay.flows.iter().enumerate() {
        let (data_path, ack_path, rtt_prop) = routes[i];
        let (group, cc) = match p.owner {
            Owner::Group(g) => (sc.flows[g].group_name(g), sc.flows[g].cc.name.clone()),
            Owner::Workload(w, _) => {
                slots[w].push(i as u32);
                (
                    crate::scenario::workload::workload_name(&sc.workloads[w], w),
                    sc.workloads[w].cc.name.clone(),
                )
            }
        };
        let (start, stop) = match p.owner {
            Owner::Group(g) => super::events::group_times(sc, g, p.start),
            Owner::Workload(..) => (p.start, None),
        };
        flows.push(PlannedFlow {
            owner: p.owner,
            group,
            cc,
            reverse: p.reverse,
            start,
            stop,
            size: p.size,
            data_path,
            ack_path,
            rtt_prop,
            template: tmpl_index(p.owner),
        });
    }

    // Poisson packet sources.
    let mut sources = Vec::new();
    for (i, (s, route)) in sc.poisson.iter().zip(lay.poisson).enumerate() {
        let path = paths.len() as u32;
        paths.push(match route {
            PoissonRoute::Links(v) => as_ids(v),
            PoissonRoute::Nodes(a, b) => as_ids(router.route(a, b).ok_or_else(|| {
                ScenarioError::at(&format!("poisson[{i}]"), "no route from src to dst")
            })?),
        });
        let size = match &s.size {
            None => Dist::Fixed(1000.0),
            Some(d) => {
                // Packet counts make no sense for a packet size.
                if d.dist.mean() < 0.0 {
                    return Err(ScenarioError::at(
                        &format!("poisson[{i}].size"),
                        "give a size in bytes, not packets",
                    ));
                }
                d.dist.clone()
            }
        };
        let first = paths[path as usize][0].0 as usize;
        let rate_bps = match (s.rate, s.load) {
            (Some(r), _) => r.0.as_f64(),
            // The load is of the first link the packets cross (the bottleneck).
            (None, Some(l)) => l * links[first].rate.as_f64(),
            _ => unreachable!("validated"),
        };
        sources.push(PlannedSource {
            name: s.name.clone().unwrap_or_else(|| format!("poisson{i}")),
            path,
            mean_gap: size.mean() * 8.0 / rate_bps,
            size,
            start: s.start.map_or(Time::ZERO, |d| d.0),
            stop: s.stop.map_or(Time::MAX, |d| d.0),
        });
    }

    // Workloads: their slots, with the rate their load refers to.
    let mut workloads = Vec::new();
    for (w, slot_ids) in slots.into_iter().enumerate() {
        let first_slot = slot_ids.first().copied().unwrap_or(0) as usize;
        let data = &paths[routes[first_slot].0 as usize];
        // Offered load ρ is of the bottleneck: the middle links' rate in a dumbbell
        // or parking lot (not the access links that cap each flow), the slowest link
        // of the route in a graph.
        let capacity = match t.kind {
            TopologyKind::Graph => data
                .iter()
                .map(|l| links[l.0 as usize].rate)
                .min()
                .unwrap_or(Rate(1)),
            _ => t.rate(),
        };
        workloads.push(PlannedWorkload {
            slots: slot_ids,
            capacity,
            template: n_groups + w,
        });
    }

    let mut crossers = vec![0u32; links.len()];
    for &(data, _, _) in &routes {
        for l in &paths[data as usize] {
            crossers[l.0 as usize] += 1;
        }
    }
    let facts: Vec<super::events::LinkFacts> = links
        .iter()
        .map(|l| super::events::LinkFacts {
            name: &l.name,
            traced: l.trace.is_some(),
            queue: &l.queue,
        })
        .collect();
    let events = super::events::link_changes(sc, &facts)?;
    Ok(Plan {
        events,
        links,
        paths,
        flows,
        templates,
        sources,
        workloads,
        monitored,
        bottleneck: LinkId(bottleneck as u32),
        info,
        crossers,
    })
}

/// A resolved buffer limit as the summary prints it.
pub fn limit_text(l: Limit) -> String {
    match l {
        Limit::Packets(n) => format!("{n}pkt"),
        Limit::Bytes(b) => format!("{b}B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receiver_of(tcp: TcpOpts, rtt_prop: Time) -> Receiver {
        let cc = CcSpec {
            name: "cubic".into(),
            params: Default::default(),
        };
        let t = TcpTemplate::new(&cc, None, &tcp, &TcpOpts::default(), "flows[0]").unwrap();
        t.endpoints(0, 0, 1, None, rtt_prop).1
    }

    /// Linux's compressed SACK waits min(tcp_comp_sack_delay_ns = 1 ms, RTT/20); the
    /// other profiles, or `sack_compression = false`, ACK every out-of-order segment.
    #[test]
    fn linux_receivers_compress_sacks_for_min_1ms_and_a_twentieth_of_the_rtt() {
        let linux = TcpOpts::default();
        let r = receiver_of(linux.clone(), Time::from_millis(100));
        assert_eq!(r.sack_compression, Some(Time::from_millis(1)));
        let r = receiver_of(linux, Time::from_millis(10));
        assert_eq!(r.sack_compression, Some(Time::from_micros(500)));
        for profile in ["ns2", "ns3"] {
            let o = TcpOpts {
                profile: Some(profile.into()),
                ..Default::default()
            };
            assert_eq!(
                receiver_of(o, Time::from_millis(100)).sack_compression,
                None
            );
        }
        let off = TcpOpts {
            sack_compression: Some(false),
            ..Default::default()
        };
        assert_eq!(
            receiver_of(off, Time::from_millis(100)).sack_compression,
            None
        );
    }
}
