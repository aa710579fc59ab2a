//! The checks of a whole scenario that types alone cannot express and that need no
//! built network: fields per topology kind, spans, RTTs and endpoints, workloads,
//! what the fluid engine can honour, the metrics' references. Each error names its
//! field path.

use super::document::{Engine, Scenario};
use super::flows::{Direction, FlowGroup};
use super::metrics::MetricsSpec;
use super::output::{LinkReport, OutputSpec};
use super::tcp::{parse_rwnd, TcpOpts};
use super::topology::{
    check_endpoints, check_rtt, check_span, node_index, positive_rate, positive_spec, Routing,
    Topology, TopologyKind,
};
use super::workload::{WorkloadDirection, WorkloadKind};
use crate::error::ScenarioError;
use crate::queue::QueueSpec;

/// Every check of a parsed scenario (`parse` calls it).
pub fn validate(sc: &Scenario) -> Result<(), ScenarioError> {
    sc.check()
}

impl Scenario {
    /// Checks that types alone cannot express.
    /// XCP senders grow only by the routers' feedback (cc/xcp.rs): an `"xcp"` flow
    /// (static or in a workload, at `path`) needs an XCP queue somewhere.
    pub(crate) fn check_xcp_routers(&self, path: &str) -> Result<(), ScenarioError> {
        let t = &self.topology;
        if matches!(t.queue, QueueSpec::Xcp(_))
            || t.links.iter().any(|l| {
                matches!(l.queue, Some(QueueSpec::Xcp(_)))
                    || matches!(l.reverse_queue, Some(QueueSpec::Xcp(_)))
            })
        {
            return Ok(());
        }
        Err(ScenarioError::at(
            path,
            "\"xcp\" senders need XCP routers: set topology.queue = { kind = \"xcp\" } \
             (through any other queue their window would never grow)",
        ))
    }

    fn check(&self) -> Result<(), ScenarioError> {
        let t = &self.topology;
        // Fields per kind, spans and endpoints.
        check_topology(self)?;
        check_workloads(self)?;
        super::events::check_events(&self.events, &self.flows)?;

        if let Some(r) = t.access_rate {
            if r.0.bps() == 0 {
                return Err(ScenarioError::at(
                    "topology.access_rate",
                    "a link needs a positive rate, got 0bps",
                ));
            }
        }
        for (name, p) in [
            ("topology.loss", t.loss),
            ("topology.reverse_loss", t.reverse_loss),
        ] {
            if !(0.0..1.0).contains(&p) {
                return Err(ScenarioError::at(
                    name,
                    format!("a loss probability must be in [0, 1), got {p}"),
                ));
            }
        }
        // A shaper paces the link's own constant rate; a trace's capacity has no
        // bucket to fill.
        let traced = |r: Option<&crate::quantity::RateSpec>| r.is_some_and(|r| r.trace().is_some());
        if t.shaper.is_some() && traced(t.bottleneck_rate.as_ref()) {
            return Err(ScenarioError::at(
                "topology.shaper",
                "a shaper needs a constant bottleneck_rate, not a trace",
            ));
        }
        for (i, l) in t.links.iter().enumerate() {
            if l.shaper.is_some() && traced(Some(&l.rate)) {
                return Err(ScenarioError::at(
                    &format!("topology.links[{i}].shaper"),
                    "a shaper needs a constant rate, not a trace",
                ));
            }
            if l.reverse_shaper.is_some() && !l.duplex {
                return Err(ScenarioError::at(
                    &format!("topology.links[{i}].reverse_shaper"),
                    "the link has no reverse direction (duplex = false)",
                ));
            }
        }
        if self.duration.0 == crate::units::Time::ZERO {
            return Err(ScenarioError::at("duration", "must be positive"));
        }
        if self.warmup.0 >= self.duration.0 {
            return Err(ScenarioError::at(
                "warmup",
                format!("must be shorter than the duration ({})", self.duration.0),
            ));
        }
        if let Some(s) = self.sample_interval {
            if s.0 == crate::units::Time::ZERO {
                return Err(ScenarioError::at("sample_interval", "must be positive"));
            }
        }
        for (i, g) in self.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            if g.count == 0 {
                return Err(ScenarioError::at(
                    &format!("{p}.count"),
                    "must be at least 1",
                ));
            }
            if g.cc.name == "xcp" && self.engine == Engine::Packet {
                self.check_xcp_routers(&format!("{p}.cc"))?;
            }
            if let Some(r) = &g.recovery {
                if r != "reno" && r != "newreno" && r != "sack" {
                    return Err(ScenarioError::at(
                        &format!("{p}.recovery"),
                        format!("unknown recovery \"{r}\" (known: reno, newreno, sack)"),
                    ));
                }
                // The XCP header and SACK blocks share one option slot of the packet
                // (packet.rs); XCP senders recover with NewReno, as in the studies.
                if r == "sack" && g.cc.name == "xcp" {
                    return Err(ScenarioError::at(
                        &format!("{p}.recovery"),
                        "\"sack\" is not available with cc = \"xcp\" (XCP senders use newreno)",
                    ));
                }
            }
            check_tcp(&g.tcp.over(&self.tcp), &p)?;
            if let Some(s) = &g.size {
                if s.dist.mean() == 0.0 {
                    return Err(ScenarioError::at(
                        &format!("{p}.size"),
                        "a flow needs at least one byte",
                    ));
                }
            }
        }
        for (i, s) in self.poisson.iter().enumerate() {
            let p = format!("poisson[{i}]");
            match (s.rate, s.load) {
                (Some(_), Some(_)) => {
                    return Err(ScenarioError::at(&p, "give either rate or load, not both"))
                }
                (None, None) => return Err(ScenarioError::at(&p, "needs a rate or a load")),
                (Some(r), None) if r.0.bps() == 0 => {
                    return Err(ScenarioError::at(&format!("{p}.rate"), "must be positive"))
                }
                (None, Some(l)) if !(l > 0.0 && l.is_finite()) => {
                    return Err(ScenarioError::at(
                        &format!("{p}.load"),
                        format!("must be positive, got {l}"),
                    ))
                }
                _ => {}
            }
        }
        self.metrics.resolve()?;
        if let Some(name) = &self.metrics.converge_to {
            // The reference of the convergence time is one static flow.
            let groups: Vec<&FlowGroup> = self
                .flows
                .iter()
                .enumerate()
                .filter(|(i, g)| &g.group_name(*i) == name)
                .map(|(_, g)| g)
                .collect();
            let n: u32 = groups.iter().map(|g| g.count).sum();
            if groups.is_empty() {
                return Err(ScenarioError::at(
                    "metrics.converge_to",
                    format!("no flow group named \"{name}\""),
                ));
            }
            if n != 1 {
                return Err(ScenarioError::at(
                    "metrics.converge_to",
                    format!("group \"{name}\" has {n} flows; the reference must be one flow"),
                ));
            }
        }
        self.output.check()?;
        match self.engine {
            Engine::Fluid => check_fluid_fields(self)?,
            Engine::Packet if self.fluid.is_some() => {
                return Err(ScenarioError::at(
                    "fluid",
                    "only read by engine = \"fluid\"",
                ))
            }
            Engine::Packet => {}
        }
        if self.flows.is_empty() && self.poisson.is_empty() && self.workloads.is_empty() {
            return Err(ScenarioError(
                "the scenario has no traffic: add [[flows]], [[poisson]] or [[workloads]]".into(),
            ));
        }
        Ok(())
    }
}

/// The fields each topology kind needs and allows, checked with their paths. Routes
/// (a graph's endpoints joined both ways, unique link names) are checked when the
/// network is laid out (`net::graph::check_routes`).
fn check_topology(sc: &Scenario) -> Result<(), ScenarioError> {
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
            positive_spec(t.bottleneck_rate.as_ref(), "topology.bottleneck_rate")?;
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
                (t.shaper.is_some(), "shaper"),
                (t.bottleneck_jitter.is_some(), "bottleneck_jitter"),
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
                positive_spec(Some(&l.rate), &format!("{p}.rate"))?;
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
                node_index(t, &l.from, &format!("{p}.from"))?;
                node_index(t, &l.to, &format!("{p}.to"))?;
                if l.buffer.or(t.buffer).is_none() {
                    return Err(ScenarioError::at(
                        &format!("{p}.buffer"),
                        "missing: give the link a buffer or set topology.buffer",
                    ));
                }
            }
            for (i, g) in sc.flows.iter().enumerate() {
                check_endpoints(t, &g.src, &g.dst, &format!("flows[{i}]"))?;
            }
            for (i, w) in sc.workloads.iter().enumerate() {
                check_endpoints(t, &w.src, &w.dst, &format!("workloads[{i}]"))?;
            }
            for (i, s) in sc.poisson.iter().enumerate() {
                let p = format!("poisson[{i}]");
                match (&s.link, &s.src, &s.dst) {
                    (Some(_), None, None) => {}
                    (None, Some(a), Some(b)) => {
                        let two = t.nodes.contains(a) && t.nodes.contains(b) && a != b;
                        if !two {
                            return Err(ScenarioError::at(
                                &format!("{p}.src"),
                                "src and dst must be two different nodes of topology.nodes",
                            ));
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
            for (i, g) in sc.flows.iter().enumerate() {
                let p = format!("flows[{i}]");
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
        }
    }
    for (i, s) in sc.poisson.iter().enumerate() {
        if s.link.is_some() && s.direction != Direction::Forward {
            return Err(ScenarioError::at(
                &format!("poisson[{i}].direction"),
                "the link already says where the packets go",
            ));
        }
    }
    Ok(())
}

/// Checks of `[[workloads]]` with their field paths.
fn check_workloads(sc: &Scenario) -> Result<(), ScenarioError> {
    let t = &sc.topology;
    for (i, w) in sc.workloads.iter().enumerate() {
        let p = format!("workloads[{i}]");
        let not_for = |field: &str, why: &str| {
            Err(ScenarioError::at(&format!("{p}.{field}"), why.to_string()))
        };
        match w.kind {
            WorkloadKind::Web | WorkloadKind::ClosedLoop => {
                match w.nodes {
                    None => return not_for("nodes", "missing: how many source nodes"),
                    Some(0) => return not_for("nodes", "must be at least 1"),
                    _ => {}
                }
                if w.load.is_some() {
                    return not_for("load", "only for kind = \"poisson_flows\" (here each node runs one flow at a time)");
                }
                if w.hosts.is_some() {
                    return not_for("hosts", "only for kind = \"poisson_flows\"; use nodes");
                }
                if w.kind == WorkloadKind::ClosedLoop && w.size.is_none() {
                    return not_for("size", "missing: the size of every flow");
                }
            }
            WorkloadKind::PoissonFlows => {
                match w.load {
                    None => {
                        return not_for("load", "missing: the offered load ρ of the bottleneck")
                    }
                    Some(l) if !(l > 0.0 && l.is_finite()) => {
                        return not_for("load", &format!("must be positive, got {l}"))
                    }
                    _ => {}
                }
                if w.size.is_none() {
                    return not_for("size", "missing: the size distribution of the flows");
                }
                if w.nodes.is_some() {
                    return not_for("nodes", "for web and closed_loop; the host pool is `hosts`");
                }
                if w.hosts == Some(0) {
                    return not_for("hosts", "must be at least 1");
                }
                if w.off.is_some() {
                    return not_for("off", "arrivals are Poisson; there is no OFF time");
                }
            }
        }
        if let Some(s) = &w.size {
            if s.dist.mean() == 0.0 {
                return not_for("size", "a flow needs at least one byte");
            }
        }
        if let Some(r) = w.access_rate {
            if r.0.bps() == 0 {
                return not_for("access_rate", "a link needs a positive rate, got 0bps");
            }
        }
        if let Some(r) = &w.recovery {
            if r != "reno" && r != "newreno" && r != "sack" {
                return not_for(
                    "recovery",
                    &format!("unknown recovery \"{r}\" (known: reno, newreno, sack)"),
                );
            }
        }
        check_tcp(&w.tcp.over(&sc.tcp), &p)?;
        // XCP flows come and go like any other: each instance builds its own sender,
        // and the router keeps no per-flow state (queue/xcp.rs), so nothing of a
        // finished instance outlives it but its packets, which the slot waits out.
        if w.cc.name == "xcp" {
            sc.check_xcp_routers(&format!("{p}.cc"))?;
        }
        match t.kind {
            TopologyKind::Graph => {
                for (set, f) in [
                    (w.rtt.is_some(), "rtt"),
                    (w.access_delay.is_some(), "access_delay"),
                    (w.access_rate.is_some(), "access_rate"),
                    (w.span.is_some(), "span"),
                ] {
                    if set {
                        return not_for(f, "not used in a graph: the links carry rates and delays");
                    }
                }
                if w.direction != WorkloadDirection::Forward {
                    return not_for("direction", "in a graph the direction is src → dst; add a second workload for the reverse");
                }
            }
            _ => {
                if w.src.is_some() || w.dst.is_some() {
                    return not_for("src", "endpoints are for kind = \"graph\"");
                }
                let k = t.middle_links.unwrap_or(1);
                let (a, b) = check_span(w.span, t.kind, k, &format!("{p}.span"))?;
                check_rtt(
                    w.rtt.as_ref().map(|r| &r.dist),
                    (b - a + 1) as f64 * t.delay().as_secs_f64(),
                    &p,
                )?;
            }
        }
    }
    Ok(())
}

/// Reject fields that only the packet engine can honour, naming them all.
///
/// The structs are destructured without `..`: a field added to the scenario schema
/// stops this from compiling until someone decides whether the fluid engine honours
/// it, so the list cannot silently fall behind.
fn check_fluid_fields(sc: &Scenario) -> Result<(), ScenarioError> {
    let mut bad: Vec<String> = Vec::new();
    let Scenario {
        name: _,
        description: _,
        seed: _,
        engine: _,
        duration: _,
        warmup: _,
        sample_interval: _,
        topology,
        tcp,
        flows,
        poisson,
        workloads,
        fluid,
        metrics,
        output,
        events,
        base_dir: _,
    } = sc;
    // Rate and buffer changes and group starts and stops are in the model (its
    // capacity and limit are per step); a wire loss it has not, and a delay change
    // would have to re-time every flow's history buffers.
    for (i, e) in events.iter().enumerate() {
        if e.loss.is_some() {
            bad.push(format!("events[{i}].loss"));
        }
        if e.delay.is_some() {
            bad.push(format!("events[{i}].delay"));
        }
    }
    // The fluid engine reports CoV and convergence (the same probe as the packet
    // engine) and honours sync_gap; it has no finite flows, so no ideal latency.
    let MetricsSpec {
        cov_window: _,
        cov_sample: _,
        converge_to: _,
        convergence_interval: _,
        convergence_fraction: _,
        sync_gap: _,
        fair_share_flows,
    } = metrics;
    if fair_share_flows.is_some() {
        bad.push("metrics.fair_share_flows".into());
    }
    // Drop/event tables and packet traces need packets; the fluid engine has its two
    // bottleneck links only.
    let OutputSpec {
        events,
        pcap,
        pcap_snaplen,
        links,
        drop_log_limit,
    } = output;
    for (set, name) in [
        (*events, "output.events"),
        (drop_log_limit.is_some(), "output.drop_log_limit"),
        (!pcap.is_empty(), "output.pcap"),
        (pcap_snaplen.is_some(), "output.pcap_snaplen"),
        (*links != LinkReport::default(), "output.links"),
    ] {
        if set {
            bad.push(name.into());
        }
    }
    let Topology {
        kind: _,
        bottleneck_rate,
        bottleneck_delay: _,
        buffer: _,
        buffer_unit: _,
        queue,
        access_rate,
        access_delay: _,
        access_buffer,
        loss,
        reverse_loss,
        shaper,
        bottleneck_jitter,
        middle_links: _,
        nodes: _,
        links: _,
        routing: _,
    } = topology;
    // Dumbbells and parking lots are chains of bottlenecks the fluid model builds;
    // graphs (arbitrary routes, per-link rates) are packet-only for now.
    if topology.kind == TopologyKind::Graph {
        bad.push(format!("topology.kind = \"{}\"", topology.kind.name()));
    }
    if *loss != 0.0 {
        bad.push("topology.loss".into());
    }
    // A trace's capacity changes every millisecond, faster than the model's step
    // may resolve; refused rather than averaged.
    if bottleneck_rate
        .as_ref()
        .is_some_and(|r| r.trace().is_some())
    {
        bad.push("topology.bottleneck_rate (a trace)".into());
    }
    if *reverse_loss != 0.0 {
        bad.push("topology.reverse_loss".into());
    }
    // A bucket of a few packets is invisible at the model's scale: refused rather
    // than silently ignored.
    if shaper.is_some() {
        bad.push("topology.shaper".into());
    }
    // Per-packet lateness has no fluid counterpart.
    if bottleneck_jitter.is_some() {
        bad.push("topology.bottleneck_jitter".into());
    }
    if access_rate.is_some() {
        bad.push("topology.access_rate".into());
    }
    if access_buffer.is_some() {
        bad.push("topology.access_buffer".into());
    }
    match queue {
        QueueSpec::DropTail => {}
        QueueSpec::Red(c) => {
            // ECN marking is not modelled (a mark would have to reduce the window
            // without removing fluid); the sender's tcp.ecn is rejected below too.
            if c.ecn {
                bad.push("topology.queue.ecn".into());
            }
        }
        // Per-flow queues (fq) and sojourn-time AQMs (codel) have no fluid law here.
        QueueSpec::Fq(_) => bad.push("topology.queue (kind \"fq\")".into()),
        QueueSpec::Codel(_) => bad.push("topology.queue (kind \"codel\")".into()),
        QueueSpec::FqCodel(_) => bad.push("topology.queue (kind \"fq_codel\")".into()),
        // XCP's router rewrites per-packet headers; the fluid model has no packets.
        QueueSpec::Xcp(_) => bad.push("topology.queue (kind \"xcp\")".into()),
        // ECN marking is not in the fluid model (see RED's ecn above).
        QueueSpec::Step(_) => bad.push("topology.queue (kind \"step\")".into()),
        // PIE's controller acts per T_UPDATE on a measured delay: no fluid law here.
        QueueSpec::Pie(_) => bad.push("topology.queue (kind \"pie\")".into()),
        QueueSpec::FqPie(_) => bad.push("topology.queue (kind \"fq_pie\")".into()),
        // Two coupled queues told apart by the ECN field: packet-level only.
        QueueSpec::DualPi2(_) => bad.push("topology.queue (kind \"dualpi2\")".into()),
    }
    let tcp_bad = |o: &TcpOpts, p: &str, bad: &mut Vec<String>| {
        // A profile itself is fine: the fluid engine takes its initial window and
        // ssthresh and has no use for the rest (packet mechanisms); only options set
        // explicitly are refused.
        let TcpOpts {
            profile: _,
            mss: _,
            header: _,
            init_cwnd: _,
            init_ssthresh: _,
            rwnd: _,
            delayed_ack,
            delack_timeout,
            quickack,
            sack_compression,
            min_rto,
            max_rto,
            initial_rto,
            rto_estimator,
            timestamps,
            dupthresh,
            prr,
            prr_ns3,
            partial_ack_send,
            exit_ack_increase,
            grow_by_delivered,
            rto_new_ssthresh,
            rto_keeps_sack,
            ssthresh_from_pipe,
            limited_transmit,
            pacing,
            gso_bursts,
            ecn,
            cwnd_validation,
            rack,
            tso_defer,
            read_latency,
        } = o;
        let f = [
            ("delayed_ack", delayed_ack.is_some()),
            ("delack_timeout", delack_timeout.is_some()),
            ("quickack", quickack.is_some()),
            ("sack_compression", sack_compression.is_some()),
            ("prr", prr.is_some()),
            ("prr_ns3", prr_ns3.is_some()),
            ("partial_ack_send", partial_ack_send.is_some()),
            ("exit_ack_increase", exit_ack_increase.is_some()),
            ("grow_by_delivered", grow_by_delivered.is_some()),
            ("rto_new_ssthresh", rto_new_ssthresh.is_some()),
            ("rto_keeps_sack", rto_keeps_sack.is_some()),
            ("ssthresh_from_pipe", ssthresh_from_pipe.is_some()),
            ("limited_transmit", limited_transmit.is_some()),
            ("min_rto", min_rto.is_some()),
            ("max_rto", max_rto.is_some()),
            ("initial_rto", initial_rto.is_some()),
            ("rto_estimator", rto_estimator.is_some()),
            ("timestamps", timestamps.is_some()),
            ("dupthresh", dupthresh.is_some()),
            ("pacing", pacing.is_some()),
            ("gso_bursts", gso_bursts.is_some()),
            ("ecn", ecn.is_some()),
            ("cwnd_validation", cwnd_validation.is_some()),
            ("rack", rack.is_some()),
            ("tso_defer", tso_defer.is_some()),
            ("read_latency", read_latency.is_some()),
        ];
        for (name, set) in f {
            if set {
                bad.push(format!("{p}.{name}"));
            }
        }
    };
    tcp_bad(tcp, "tcp", &mut bad);
    for (i, g) in flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        let FlowGroup {
            name: _,
            count: _,
            cc: _,
            recovery,
            direction: _,
            start: _,
            stop: _,
            size,
            rtt: _,
            access_delay: _,
            tcp,
            drop_segments,
            src: _,
            dst: _,
            span: _,
        } = g;
        if size.is_some() {
            bad.push(format!("{p}.size"));
        }
        if recovery.is_some() {
            bad.push(format!("{p}.recovery"));
        }
        if !drop_segments.is_empty() {
            bad.push(format!("{p}.drop_segments"));
        }
        tcp_bad(tcp, &format!("{p}.tcp"), &mut bad);
    }
    if !poisson.is_empty() {
        bad.push("poisson".into());
    }
    if !workloads.is_empty() {
        bad.push("workloads".into());
    }
    if !bad.is_empty() {
        return Err(ScenarioError(format!(
            "engine = \"fluid\" cannot honour {} (packet-engine only; remove {} or use engine = \"packet\")",
            bad.join(", "),
            if bad.len() == 1 { "it" } else { "them" }
        )));
    }
    if let Some(f) = fluid {
        f.check()?;
    }
    Ok(())
}

/// The TCP options of a group (`flows[i]` or `workloads[i]`, with `[tcp]` under them):
/// the checks that need no network.
fn check_tcp(opts: &TcpOpts, p: &str) -> Result<(), ScenarioError> {
    opts.profile()
        .map_err(|e| ScenarioError::at(&format!("{p}.tcp.profile"), e))?;
    if let Some(m) = opts.mss {
        if m.0 == 0 || m.0 > 65_000 {
            return Err(ScenarioError::at(
                &format!("{p}.tcp.mss"),
                format!("must be in 1..65000 bytes, got {}", m.0),
            ));
        }
    }
    if let Some(h) = opts.header {
        // IP + TCP headers with every option fit in 120 bytes; a bound well above
        // that keeps mss + header (a packet's size, u32) from overflowing.
        if h.0 > 1_000 {
            return Err(ScenarioError::at(
                &format!("{p}.tcp.header"),
                format!("must be at most 1000 bytes, got {}", h.0),
            ));
        }
    }
    if let Some(w) = opts.init_cwnd {
        if w.is_nan() || w < 1.0 {
            return Err(ScenarioError::at(
                &format!("{p}.tcp.init_cwnd"),
                format!("must be at least 1, got {w}"),
            ));
        }
    }
    if let Some(w) = opts.init_ssthresh {
        if w.is_nan() || w < 2.0 {
            return Err(ScenarioError::at(
                &format!("{p}.tcp.init_ssthresh"),
                format!("must be at least 2, got {w}"),
            ));
        }
    }
    if let Some(d) = opts.dupthresh {
        if d == 0 {
            return Err(ScenarioError::at(
                &format!("{p}.tcp.dupthresh"),
                "must be at least 1",
            ));
        }
    }
    if let Some(pc) = &opts.pacing {
        pc.resolve()
            .map_err(|e| ScenarioError::at(&format!("{p}.tcp.pacing"), e))?;
    }
    if let Some(r) = &opts.rwnd {
        parse_rwnd(r, 1460).map_err(|e| ScenarioError::at(&format!("{p}.tcp.rwnd"), e))?;
    }
    Ok(())
}
