//! ccsim: a packet-level (and, later, fluid) simulator for congestion control and
//! router buffers. See DESIGN.md for the map.

pub mod cc;
pub mod engine;
pub mod error;
pub mod fluid;
pub mod metrics;
pub mod net;
pub mod output;
pub mod packet;
pub mod pcap;
pub mod quantity;
pub mod queue;
pub mod random;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod traffic;
pub mod units;

pub use output::{run, run_with_progress, Output, RunError};
pub use scenario::{parse, Scenario, ScenarioError};
