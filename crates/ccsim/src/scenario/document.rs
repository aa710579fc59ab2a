//! The scenario document: its top-level fields and its sections (one file each).

use super::events::EventSpec;
use super::flows::{FlowGroup, PoissonSpec};
use super::fluid::FluidSpec;
use super::metrics::MetricsSpec;
use super::output::OutputSpec;
use super::tcp::TcpOpts;
use super::topology::Topology;
use super::workload::WorkloadSpec;
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
    /// Scheduled changes of links and flow groups (docs/scenarios.md#events).
    #[serde(default)]
    pub events: Vec<EventSpec>,
    /// The directory of the scenario file, for relative trace paths (set by
    /// `parse_file`; none: the current directory).
    #[serde(skip)]
    pub base_dir: Option<std::path::PathBuf>,
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
