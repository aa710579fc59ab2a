//! Topology builders. The dumbbell: every flow has its own sender and receiver host,
//! each joined to a router by an access link (one per direction); the routers are
//! joined by the bottleneck (one link per direction, same rate, delay and buffer).

use crate::cc;
use crate::engine::{Flow, Source, World};
use crate::net::Link;
use crate::queue::{DropTail, Limit, Queue};
use crate::random::{stream, Dist};
use crate::scenario::quantity::BufferSpec;
use crate::scenario::{parse_rwnd, BufferUnit, Direction, Scenario, ScenarioError};
use crate::sim::{LinkId, NodeId};
use crate::tcp::pacer::PacingMode;
use crate::tcp::{Receiver, Recovery, Sender, SenderConfig};
use crate::units::{Rate, Time};

/// What the build resolved, reported in the summary.
#[derive(Clone, Debug, Default)]
pub struct BuildInfo {
    pub bdp_bytes: f64,
    pub mean_rtt: f64,
    pub packet_size: f64,
    pub buffer_limit: String,
    pub long_flows: usize,
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

struct FlowPlan {
    group: usize,
    index_in_group: usize,
    reverse: bool,
    start: Time,
    d_src: Time,
    d_dst: Time,
    size: Option<u64>,
}

fn secs(v: f64) -> Time {
    Time::from_secs_f64(v.max(0.0))
}

/// Build the world for a dumbbell scenario.
pub fn build_dumbbell(sc: &Scenario) -> Result<(World, BuildInfo), ScenarioError> {
    let t = &sc.topology;
    let seed = sc.seed;
    let b_rate = t.bottleneck_rate.0;
    let b_delay = t.bottleneck_delay.0;
    let a_rate = t
        .access_rate
        .map(|r| r.0)
        .unwrap_or(Rate(b_rate.0.saturating_mul(10)));

    // Plan every flow: start, access delays, size.
    let mut plans = Vec::new();
    for (g, grp) in sc.flows.iter().enumerate() {
        let opts = grp.tcp.over(&sc.tcp);
        let mss = opts.mss.map_or(1460, |m| m.0) as f64;
        for k in 0..grp.count as usize {
            let id = plans.len();
            let mut rng = stream(seed, &format!("flow/{id}"));
            let start = grp.start.as_ref().map_or(0.0, |d| d.dist.sample(&mut rng));
            let (d_src, d_dst) = if let Some(rtt) = &grp.rtt {
                // Two-way propagation RTT = 2·(d_src + d_bottleneck + d_dst), split evenly.
                let r = rtt.dist.sample(&mut rng);
                let each = ((r / 2.0 - b_delay.as_secs_f64()) / 2.0).max(0.0);
                (each, each)
            } else {
                let d = grp.access_delay.as_ref().or(t.access_delay.as_ref());
                match d {
                    None => (0.0, 0.0),
                    Some(d) => (d.dist.sample(&mut rng), d.dist.sample(&mut rng)),
                }
            };
            let size = grp.size.as_ref().map(|s| {
                let v = s.dist.sample(&mut rng);
                // Negative values are packet counts (see quantity::ByteSize).
                let bytes = if v < 0.0 { -v * mss } else { v };
                bytes.round().max(1.0) as u64
            });
            plans.push(FlowPlan {
                group: g,
                index_in_group: k,
                reverse: grp.direction == Direction::Reverse,
                start: secs(start),
                d_src: secs(d_src),
                d_dst: secs(d_dst),
                size,
            });
        }
    }

    // BDP from the bottleneck rate and the forward flows' mean two-way propagation RTT.
    let fwd: Vec<&FlowPlan> = plans.iter().filter(|p| !p.reverse).collect();
    let basis: Vec<&FlowPlan> = if fwd.is_empty() {
        plans.iter().collect()
    } else {
        fwd
    };
    let mut info = BuildInfo {
        packet_size: 1500.0,
        ..Default::default()
    };
    if !basis.is_empty() {
        let rtts: f64 = basis
            .iter()
            .map(|p| 2.0 * (p.d_src + b_delay + p.d_dst).as_secs_f64())
            .sum();
        info.mean_rtt = rtts / basis.len() as f64;
        info.bdp_bytes = b_rate.as_f64() * info.mean_rtt / 8.0;
        info.packet_size = basis
            .iter()
            .map(|p| {
                let o = sc.flows[p.group].tcp.over(&sc.tcp);
                (o.mss.map_or(1460, |m| m.0) + o.header.map_or(40, |h| h.0)) as f64
            })
            .sum::<f64>()
            / basis.len() as f64;
        info.long_flows = basis.len();
    }
    let limit = resolve_limit(t.buffer, t.buffer_unit, &info, "topology.buffer")?;
    info.buffer_limit = match limit {
        Limit::Packets(n) => format!("{n}pkt"),
        Limit::Bytes(b) => format!("{b}B"),
    };
    let access_limit = match t.access_buffer {
        Some(b) => resolve_limit(b, t.buffer_unit, &info, "topology.access_buffer")?,
        None => Limit::Packets(100_000),
    };

    let mut links: Vec<Link> = Vec::new();
    let mut add_link = |name: String, from: u32, to: u32, rate: Rate, delay: Time, limit: Limit| {
        let id = links.len();
        let q: Box<dyn Queue> = Box::new(DropTail::new(limit));
        links.push(Link::new(
            name,
            NodeId(from),
            NodeId(to),
            rate,
            delay,
            q,
            stream(seed, &format!("link/{id}/loss")),
        ));
        LinkId(id as u32)
    };
    // Nodes: 0 = left router, 1 = right router, hosts from 2.
    let bn = add_link("bottleneck".into(), 0, 1, b_rate, b_delay, limit);
    let bn_rev = add_link("bottleneck_rev".into(), 1, 0, b_rate, b_delay, limit);

    let mut paths: Vec<Vec<LinkId>> = Vec::new();
    let mut flows = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        let grp = &sc.flows[p.group];
        let opts = grp.tcp.over(&sc.tcp);
        // Hosts: the sender is on the left for forward flows, on the right for reverse.
        let (src_router, dst_router, mid, mid_rev) = if p.reverse {
            (1, 0, bn_rev, bn)
        } else {
            (0, 1, bn, bn_rev)
        };
        let h_src = 2 + 2 * i as u32;
        let h_dst = h_src + 1;
        let s_up = add_link(
            format!("flow{i}.src_up"),
            h_src,
            src_router,
            a_rate,
            p.d_src,
            access_limit,
        );
        let s_down = add_link(
            format!("flow{i}.src_down"),
            src_router,
            h_src,
            a_rate,
            p.d_src,
            access_limit,
        );
        let d_down = add_link(
            format!("flow{i}.dst_down"),
            dst_router,
            h_dst,
            a_rate,
            p.d_dst,
            access_limit,
        );
        let d_up = add_link(
            format!("flow{i}.dst_up"),
            h_dst,
            dst_router,
            a_rate,
            p.d_dst,
            access_limit,
        );
        let data_path = paths.len() as u32;
        paths.push(vec![s_up, mid, d_down]);
        let ack_path = paths.len() as u32;
        paths.push(vec![d_up, mid_rev, s_down]);

        let mss = opts.mss.map_or(1460, |m| m.0) as u32;
        let header = opts.header.map_or(40, |h| h.0) as u32;
        let recovery = match grp.recovery.as_deref() {
            Some("reno") => Recovery::Reno,
            Some("sack") => Recovery::Sack,
            Some(_) => Recovery::NewReno,
            None if grp.cc.name == "reno" => Recovery::Reno,
            None => Recovery::NewReno,
        };
        let cfg = SenderConfig {
            mss,
            header,
            init_cwnd: opts.init_cwnd.unwrap_or(1.0),
            init_ssthresh: opts.init_ssthresh.unwrap_or(64.0),
            rwnd: match &opts.rwnd {
                Some(r) => parse_rwnd(r, mss)
                    .map_err(|e| ScenarioError::at(&format!("flows[{}].tcp.rwnd", p.group), e))?,
                None => u64::MAX,
            },
            min_rto: opts.min_rto.map_or(Time::from_millis(200), |d| d.0),
            max_rto: opts.max_rto.map_or(Time::from_secs(60), |d| d.0),
            initial_rto: opts.initial_rto.map_or(Time::from_secs(1), |d| d.0),
            timestamps: opts.timestamps.unwrap_or(true),
            dupthresh: opts.dupthresh.unwrap_or(3),
            recovery,
            ecn: opts.ecn.unwrap_or(false),
            pacing: match &opts.pacing {
                Some(pc) => pc
                    .mode()
                    .map_err(|e| ScenarioError::at(&format!("flows[{}].tcp.pacing", p.group), e))?,
                None => PacingMode::None,
            },
        };
        let algo = cc::build(&grp.cc.name, &grp.cc.params)
            .map_err(|e| ScenarioError::at(&format!("flows[{}].cc", p.group), e))?;
        let sender = Sender::new(cfg, algo, i as u32, data_path, p.size);
        let mut receiver = Receiver::new(
            i as u32,
            ack_path,
            header,
            mss,
            sender.limit,
            sender.last_payload,
        );
        receiver.delayed_ack = opts.delayed_ack.unwrap_or(false);
        receiver.sack = recovery == Recovery::Sack;
        if let Some(d) = opts.delack_timeout {
            receiver.delack_timeout = d.0;
        }
        let group = grp
            .name
            .clone()
            .unwrap_or_else(|| format!("group{}", p.group));
        let _ = p.index_in_group;
        let rtt_prop = Time((p.d_src.0 + b_delay.0 + p.d_dst.0) * 2);
        flows.push(Flow::new(
            sender,
            receiver,
            group,
            grp.cc.name.clone(),
            p.reverse,
            p.start,
            rtt_prop,
            p.size,
        ));
        if let Some(fl) = flows.last_mut() {
            fl.set_forced_drops(&grp.drop_segments);
        }
    }

    // Poisson packet sources attach at the routers: their only queue is the bottleneck.
    let mut sources = Vec::new();
    for (i, s) in sc.poisson.iter().enumerate() {
        let reverse = s.direction == Direction::Reverse;
        let path = paths.len() as u32;
        paths.push(vec![if reverse { bn_rev } else { bn }]);
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
        let rate_bps = match (s.rate, s.load) {
            (Some(r), _) => r.0.as_f64(),
            (None, Some(l)) => l * b_rate.as_f64(),
            _ => unreachable!("validated"),
        };
        let mean_gap = size.mean() * 8.0 / rate_bps;
        sources.push(Source {
            name: s.name.clone().unwrap_or_else(|| format!("poisson{i}")),
            path,
            mean_gap,
            size,
            rng: stream(seed, &format!("poisson/{i}")),
            start: s.start.map_or(Time::ZERO, |d| d.0),
            stop: s.stop.map_or(Time::MAX, |d| d.0),
            sent: 0,
            delivered: 0,
            dropped: 0,
        });
    }

    let mut links = links;
    links[bn.0 as usize].loss = t.loss;
    links[bn_rev.0 as usize].loss = t.reverse_loss;
    for l in [bn, bn_rev] {
        links[l.0 as usize].queue =
            crate::queue::build_queue(&t.queue, limit, b_rate, seed ^ ((l.0 as u64) << 48));
        links[l.0 as usize].monitor = true;
        // Number-in-system distribution for queueing validations (bounded size).
        let bins = match limit {
            Limit::Packets(n) => (n + 2).min(4096),
            Limit::Bytes(b) => (b / 40 + 2).min(4096),
        };
        links[l.0 as usize].nsys_hist = vec![0; bins as usize];
    }
    let world = World::new(
        links,
        paths,
        flows,
        sources,
        sc.duration.0,
        sc.warmup.0,
        sc.sample_interval.map(|d| d.0),
        vec![bn, bn_rev],
        bn,
        stream(seed, "queues"),
    );
    Ok((world, info))
}
