//! `[fluid]`: options only the fluid engine reads, and the loss-synchronization
//! module of study 004 §4.3 (its level m_k and drop policy).

use super::{QueueSpec, Scenario};
use crate::error::ScenarioError;
use crate::quantity::Dur;
use serde::de::{self, Deserializer};
use serde::Deserialize;

/// `[fluid]`: options only the fluid engine reads. The queue discipline is the
/// scenario's own `topology.queue` (drop-tail or RED), not a fluid option.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluidSpec {
    /// Integration step; default: the smallest propagation RTT / 100 (see `step_for`).
    pub step: Option<Dur>,
    /// Loss synchronization (study 004 §4.3); absent: every flow loses (eq. 5–6).
    pub sync: Option<SyncSpec>,
}

impl FluidSpec {
    /// Checks that types alone cannot express.
    pub fn check(&self) -> Result<(), ScenarioError> {
        if let Some(s) = self.step {
            if s.0 == crate::units::Time::ZERO {
                return Err(ScenarioError::at("fluid.step", "must be positive"));
            }
        }
        if let Some(s) = &self.sync {
            s.validate()?;
        }
        Ok(())
    }
}

/// `level = 3`, `level = "all"`, `level = { normal = { mean = 5, sd = 2 } }`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    /// Every active flow: the classical model (eq. 5–6).
    All,
    /// m_k = m at every event.
    Fixed(u32),
    /// m_k drawn per event from N(mean, sd²), rounded, clipped to [⌈X·N⌉, N] (eq. 9).
    Normal { mean: f64, sd: f64 },
    /// Only X given: the study draws m_k from a normal inside (X·N, N); centred there,
    /// with ±2 sd spanning the interval (resolved per event, as N varies).
    Band,
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let bad = || {
            de::Error::custom(format!(
                "expected a number of flows (3), \"all\" or {{ normal = {{ mean = 5, sd = 2 }} }}, got {v}"
            ))
        };
        let as_num = |x: &toml::Value| x.as_float().or(x.as_integer().map(|i| i as f64));
        match &v {
            toml::Value::String(s) if s == "all" => Ok(Level::All),
            toml::Value::Integer(i) if *i >= 1 && *i <= u32::MAX as i64 => {
                Ok(Level::Fixed(*i as u32))
            }
            toml::Value::Integer(_) => Err(de::Error::custom(format!(
                "a synchronization level is at least 1 flow, got {v}"
            ))),
            toml::Value::Table(t) if t.len() == 1 && t.contains_key("normal") => {
                let n = t["normal"].as_table().ok_or_else(bad)?;
                if let Some(k) = n.keys().find(|k| *k != "mean" && *k != "sd") {
                    return Err(de::Error::custom(format!("normal: unknown field \"{k}\"")));
                }
                let mean = n.get("mean").and_then(as_num).ok_or_else(bad)?;
                let sd = n.get("sd").and_then(as_num).ok_or_else(bad)?;
                if !(mean.is_finite() && sd.is_finite() && sd >= 0.0) {
                    return Err(de::Error::custom(format!(
                        "normal: needs a finite mean and sd >= 0, got mean {mean}, sd {sd}"
                    )));
                }
                Ok(Level::Normal { mean, sd })
            }
            _ => Err(bad()),
        }
    }
}

/// Which flows take the loss (the priority matrix P^k of §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The m_k flows with the highest arrival rate at the queue (study 004 §4.4).
    #[default]
    HighestRate,
    /// m_k flows drawn uniformly without replacement.
    Random,
}

/// `[fluid.sync]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncSpec {
    /// m_k; default: drawn from a normal over [X·N, N] when `min_level` is given,
    /// otherwise "all".
    pub level: Option<Level>,
    /// X of eq. 9: at least ⌈X·N⌉ flows lose at every event (0..=1).
    pub min_level: Option<f64>,
    #[serde(default)]
    pub policy: Policy,
}

impl SyncSpec {
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if let Some(x) = self.min_level {
            if !(0.0..=1.0).contains(&x) {
                return Err(ScenarioError::at(
                    "fluid.sync.min_level",
                    format!("must be in [0, 1], got {x}"),
                ));
            }
        }
        Ok(())
    }

    /// The level rule with defaults resolved.
    pub fn level(&self) -> Level {
        match (self.level, self.min_level) {
            (Some(l), _) => l,
            (None, Some(_)) => Level::Band,
            (None, None) => Level::All,
        }
    }
}

/// Reject fields that only the packet engine can honour, naming them all.
///
/// The structs are destructured without `..`: a field added to the scenario schema
/// stops this from compiling until someone decides whether the fluid engine honours
/// it, so the list cannot silently fall behind.
pub fn check_fields(sc: &Scenario) -> Result<(), ScenarioError> {
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
    } = sc;
    // The fluid engine reports no CoV, convergence time or ideal-latency metric (no
    // flow sizes, no per-packet throughput); its congestion events honour sync_gap.
    let super::MetricsSpec {
        cov_window,
        cov_sample,
        converge_to,
        convergence_interval,
        convergence_fraction,
        sync_gap: _,
        fair_share_flows,
    } = metrics;
    for (set, name) in [
        (cov_window.is_some(), "metrics.cov_window"),
        (cov_sample.is_some(), "metrics.cov_sample"),
        (converge_to.is_some(), "metrics.converge_to"),
        (
            convergence_interval.is_some(),
            "metrics.convergence_interval",
        ),
        (
            convergence_fraction.is_some(),
            "metrics.convergence_fraction",
        ),
        (fair_share_flows.is_some(), "metrics.fair_share_flows"),
    ] {
        if set {
            bad.push(name.into());
        }
    }
    // Drop/event tables and packet traces need packets; the fluid engine has its two
    // bottleneck links only.
    let super::OutputSpec {
        events,
        pcap,
        pcap_snaplen,
        links,
    } = output;
    for (set, name) in [
        (*events, "output.events"),
        (!pcap.is_empty(), "output.pcap"),
        (pcap_snaplen.is_some(), "output.pcap_snaplen"),
        (*links != super::LinkReport::default(), "output.links"),
    ] {
        if set {
            bad.push(name.into());
        }
    }
    let super::Topology {
        kind: _,
        bottleneck_rate: _,
        bottleneck_delay: _,
        buffer: _,
        buffer_unit: _,
        queue,
        access_rate,
        access_delay: _,
        access_buffer,
        loss,
        reverse_loss,
        middle_links: _,
        nodes: _,
        links: _,
        routing: _,
    } = topology;
    // Dumbbells and parking lots are chains of bottlenecks the fluid model builds;
    // graphs (arbitrary routes, per-link rates) are packet-only for now.
    if topology.kind == super::TopologyKind::Graph {
        bad.push(format!("topology.kind = \"{}\"", topology.kind.name()));
    }
    if *loss != 0.0 {
        bad.push("topology.loss".into());
    }
    if *reverse_loss != 0.0 {
        bad.push("topology.reverse_loss".into());
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
    }
    let tcp_bad = |o: &super::TcpOpts, p: &str, bad: &mut Vec<String>| {
        let super::TcpOpts {
            mss: _,
            header: _,
            init_cwnd: _,
            init_ssthresh: _,
            rwnd: _,
            delayed_ack,
            delack_timeout,
            min_rto,
            max_rto,
            initial_rto,
            timestamps,
            dupthresh,
            pacing,
            ecn,
            cwnd_validation,
        } = o;
        let f = [
            ("delayed_ack", delayed_ack.is_some()),
            ("delack_timeout", delack_timeout.is_some()),
            ("min_rto", min_rto.is_some()),
            ("max_rto", max_rto.is_some()),
            ("initial_rto", initial_rto.is_some()),
            ("timestamps", timestamps.is_some()),
            ("dupthresh", dupthresh.is_some()),
            ("pacing", pacing.is_some()),
            ("ecn", ecn.is_some()),
            ("cwnd_validation", cwnd_validation.is_some()),
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
        let super::FlowGroup {
            name: _,
            count: _,
            cc: _,
            recovery,
            direction: _,
            start: _,
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
