//! Metric definitions: one each, used everywhere (docs/metrics.md). Pure functions
//! and online accumulators over what the engines record (`records`); `summary`
//! applies them to a run.

pub mod convergence;
pub mod cov;
pub mod fairness;
pub mod hist;
pub mod latency;
pub mod probe;
pub mod stats;
pub mod sync;

pub use fairness::{jain, jain_rtt};
