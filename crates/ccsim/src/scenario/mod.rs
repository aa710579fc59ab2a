//! The scenario language: TOML read into typed structs, one file per section. Unknown
//! fields are errors, and every error names the field path (`flows[2].start: ...`).
//!
//! This module is pure data and every check that needs no built network: a scenario
//! that `parse` accepts can still be refused when `net` lays it out (a graph without
//! a route, a pcap link that does not exist); `crate::run::validate` does both.
//!
//! Files, each depending only on those before it: the sections (`tcp`, `flows`,
//! `topology`, `workload`, `fluid`, `metrics`, `output`), the `document` that holds
//! them, the cross-section `check`s, and `read` (text, overrides, parse).

pub mod check;
pub mod document;
pub mod events;
pub mod flows;
pub mod fluid;
pub mod metrics;
pub mod output;
pub mod read;
pub mod tcp;
pub mod topology;
pub mod workload;

pub use crate::error::ScenarioError;
pub use crate::queue::QueueSpec;
pub use document::{Engine, Scenario};
pub use events::{EventSpec, GroupAction};
pub use flows::{Direction, FlowGroup, PoissonSpec};
pub use fluid::FluidSpec;
pub use metrics::MetricsSpec;
pub use output::{LinkReport, OutputSpec};
pub use read::{apply_override, parse, parse_file, resolve};
pub use tcp::{
    parse_rwnd, CcSpec, Pacing, PacingSpec, ProfileDefaults, TcpOpts, INFINITE_SSTHRESH,
};
pub use topology::{BufferUnit, LinkSpec, Routing, Topology, TopologyKind};
pub use workload::{WorkloadDirection, WorkloadKind, WorkloadSpec};
