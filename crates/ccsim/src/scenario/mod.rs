//! The scenario language: TOML read into typed structs, one file per section. Unknown
//! fields are errors, and every error names the field path (`flows[2].start: ...`).
//!
//! This module is pure data and every check that needs no built network: a scenario
//! that `parse` accepts can still be refused when `net` lays it out (a graph without
//! a route, a pcap link that does not exist); `crate::run::validate` does both.

pub mod flows;
pub mod fluid;
pub mod metrics;
pub mod output;
pub mod tcp;
pub mod topology;
pub mod workload;

pub use crate::error::ScenarioError;
pub use crate::queue::QueueSpec;
pub use flows::{Direction, FlowGroup, PoissonSpec};
pub use fluid::FluidSpec;
pub use metrics::MetricsSpec;
pub use output::{LinkReport, OutputSpec};
pub use tcp::{parse_rwnd, CcSpec, Pacing, PacingSpec, TcpOpts};
pub use topology::{BufferUnit, LinkSpec, Routing, Topology, TopologyKind};
pub use workload::{WorkloadDirection, WorkloadKind, WorkloadSpec};

use crate::quantity::Dur;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub engine: Engine,
    pub duration: Dur,
    #[serde(default = "zero_dur")]
    pub warmup: Dur,
    /// Interval of the sampled series; none: no series.
    pub sample_interval: Option<Dur>,
    pub topology: Topology,
    #[serde(default)]
    pub tcp: TcpOpts,
    #[serde(default)]
    pub flows: Vec<FlowGroup>,
    #[serde(default)]
    pub poisson: Vec<PoissonSpec>,
    /// Dynamic TCP workloads: web-like ON/OFF, closed loop, Poisson flow arrivals.
    #[serde(default)]
    pub workloads: Vec<WorkloadSpec>,
    /// Options of the fluid engine (`engine = "fluid"`).
    pub fluid: Option<FluidSpec>,
    /// How metrics are measured (docs/metrics.md).
    #[serde(default)]
    pub metrics: MetricsSpec,
    /// Optional outputs: events.parquet, pcap traces, every link's statistics.
    #[serde(default)]
    pub output: OutputSpec,
}

fn default_seed() -> u64 {
    1
}
fn zero_dur() -> Dur {
    Dur(crate::units::Time::ZERO)
}

#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    #[default]
    Packet,
    Fluid,
}

/// Apply `path=value` overrides to a parsed TOML tree. `value` is read as TOML
/// (`3`, `"0.5bdp"`, `true`, `{ uniform = [...] }`), or taken as a bare string.
pub fn apply_override(root: &mut toml::Value, spec: &str) -> Result<(), ScenarioError> {
    let (path, raw) = spec
        .split_once('=')
        .ok_or_else(|| ScenarioError(format!("--set {spec}: expected path=value")))?;
    let path = path.trim();
    let raw = raw.trim();
    let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").unwrap(),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    let mut cur = root;
    let parts = split_path(path).map_err(|e| ScenarioError(format!("--set {path}: {e}")))?;
    let n = parts.len();
    for (i, part) in parts.into_iter().enumerate() {
        let last = i + 1 == n;
        cur = match part {
            PathPart::Key(k) => {
                let t = cur.as_table_mut().ok_or_else(|| {
                    ScenarioError(format!("--set {path}: \"{k}\" is not inside a table"))
                })?;
                if last {
                    t.insert(k, value);
                    return Ok(());
                }
                t.entry(k)
                    .or_insert_with(|| toml::Value::Table(Default::default()))
            }
            PathPart::Index(k, idx) => {
                let t = cur.as_table_mut().ok_or_else(|| {
                    ScenarioError(format!("--set {path}: \"{k}\" is not inside a table"))
                })?;
                let arr = t
                    .get_mut(&k)
                    .and_then(|a| a.as_array_mut())
                    .ok_or_else(|| ScenarioError(format!("--set {path}: no array \"{k}\"")))?;
                let len = arr.len();
                let slot = arr.get_mut(idx).ok_or_else(|| {
                    ScenarioError(format!(
                        "--set {path}: index {idx} out of range ({k} has {len})"
                    ))
                })?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
        };
    }
    Ok(())
}

enum PathPart {
    Key(String),
    Index(String, usize),
}

fn split_path(path: &str) -> Result<Vec<PathPart>, String> {
    let mut out = Vec::new();
    for seg in path.split('.') {
        if seg.is_empty() {
            return Err("empty path segment".into());
        }
        if let Some(open) = seg.find('[') {
            let key = &seg[..open];
            let idx = seg[open + 1..]
                .strip_suffix(']')
                .and_then(|s| s.parse::<usize>().ok())
                .ok_or_else(|| format!("bad index in \"{seg}\""))?;
            out.push(PathPart::Index(key.to_string(), idx));
        } else {
            out.push(PathPart::Key(seg.to_string()));
        }
    }
    Ok(out)
}

/// Parse scenario text with overrides applied. Errors name the field path.
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let mut root: toml::Value = toml::from_str::<toml::Table>(text)
        .map(toml::Value::Table)
        .map_err(|e| {
            // One line: the parser's message can carry a second "expected ..." line.
            let msg = e.message().lines().collect::<Vec<_>>().join("; ");
            match e.span() {
                Some(sp) => {
                    let line = text[..sp.start.min(text.len())].matches('\n').count() + 1;
                    ScenarioError(format!("malformed TOML at line {line}: {msg}"))
                }
                None => ScenarioError(format!("malformed TOML: {msg}")),
            }
        })?;
    for o in overrides {
        apply_override(&mut root, o)?;
    }
    let sc: Scenario = serde_path_to_error::deserialize(root).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let inner = inner.lines().next().unwrap_or("").to_string();
        if path == "." || path.is_empty() {
            ScenarioError(inner)
        } else {
            ScenarioError(format!("{path}: {inner}"))
        }
    })?;
    sc.validate()?;
    Ok(sc)
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

    pub fn validate(&self) -> Result<(), ScenarioError> {
        let t = &self.topology;
        // Fields per kind, spans and endpoints.
        topology::check_topology(self)?;
        workload::check_workloads(self)?;
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
            let opts = g.tcp.over(&self.tcp);
            if let Some(m) = opts.mss {
                if m.0 == 0 || m.0 > 65_000 {
                    return Err(ScenarioError::at(
                        &format!("{p}.tcp.mss"),
                        format!("must be in 1..65000 bytes, got {}", m.0),
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
            Engine::Fluid => fluid::check_fields(self)?,
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

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
duration = "10s"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "20ms"
buffer = "bdp"
[[flows]]
count = 2
cc = "reno"
"#;

    #[test]
    fn parses_and_overrides() {
        let sc = parse(BASE, &["seed=5".into(), "flows[0].count=3".into()]).unwrap();
        assert_eq!(sc.seed, 5);
        assert_eq!(sc.flows[0].count, 3);
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse(BASE, &["flows[0].start=\"ten\"".into()]).unwrap_err();
        assert!(e.0.starts_with("flows[0].start:"), "{e}");
        assert!(e.0.contains("\"ten\""), "{e}");
        let e = parse(BASE, &["bogus=1".into()]).unwrap_err();
        assert!(e.0.contains("bogus"), "{e}");
        let e = parse(BASE, &["topology.bottleneck_rate=\"-5Mbps\"".into()]).unwrap_err();
        assert!(e.0.starts_with("topology.bottleneck_rate:"), "{e}");
        let e = parse(BASE, &["topology.bottleneck_rate=\"0Mbps\"".into()]).unwrap_err();
        assert!(e.0.starts_with("topology.bottleneck_rate:"), "{e}");
        let e = parse(BASE, &["flows[0].cc=\"warp\"".into()]).unwrap_err();
        assert!(
            e.0.starts_with("flows[0].cc:") && e.0.contains("warp"),
            "{e}"
        );
        let e = parse("duration = ", &[]).unwrap_err();
        assert!(e.0.contains("malformed TOML"), "{e}");
    }
}
