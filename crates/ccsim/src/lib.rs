//! ccsim: a packet-level and fluid simulator for congestion control and router
//! buffers. See docs/architecture.md for the tour and the layer map.

pub mod cc;
pub mod engine;
pub mod error;
pub mod fluid;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod pcap;
pub mod quantity;
pub mod queue;
pub mod random;
pub mod records;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod summary;
pub mod tcp;
pub mod traffic;
pub mod units;

pub use error::{RunError, ScenarioError};
pub use run::{run, run_with_progress, validate};
pub use scenario::{parse, Scenario};
pub use summary::Output;
