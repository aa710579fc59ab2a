//! ccsim: a packet-level and a fluid simulator for congestion control and router
//! buffers, over one scenario language and one set of metrics.
//!
//! A run flows down the crate's layers and back up (docs/architecture.md has the map
//! and the rules, `tests/test_architecture.py` checks them):
//!
//! ```text
//!  text ─▶ scenario::parse ─▶ net::plan ─▶ engine::World  ─┐
//!                                        └▶ fluid::Model ──┴▶ records ─▶ summary ─▶ Output
//! ```
//!
//! - [`scenario`]: the TOML language, pure data and every check that needs no network;
//! - [`net`]: links (discipline + transmitter + pipe + statistics), routes, and the
//!   plan both engines build from;
//! - [`engine`] (packet, discrete events in integer picoseconds) and [`fluid`]
//!   (Misra–Gong–Towsley equations): they measure, and emit [`records`];
//! - [`summary`]: every metric of docs/metrics.md from records, for both engines;
//! - [`cc`] (the algorithms, one file each, per-ACK and rate forms), [`queue`] (the
//!   disciplines), [`tcp`] (sender and receiver), [`traffic`] (workloads);
//! - [`budget`]: the memory a run will need, checked against a limit before anything
//!   big is allocated;
//! - [`run`]: one run, batches, replications, `validate`.
//!
//! Two NewReno flows on a 10 Mb/s dumbbell for two seconds:
//!
//! ```
//! let text = r#"
//! duration = "2s"
//! [topology]
//! kind = "dumbbell"
//! bottleneck_rate = "10Mbps"
//! bottleneck_delay = "10ms"
//! buffer = "bdp"
//! [[flows]]
//! count = 2
//! cc = "newreno"
//! rtt = "40ms"
//! "#;
//! let out = ccsim::run(text, &[]).unwrap();
//! assert_eq!(out.summary["engine"], "packet");
//! assert!(out.get("links.bottleneck.utilization") > 0.5);
//! // The same scenario on the fluid engine: the same summary keys.
//! let fluid = ccsim::run(text, &["engine=\"fluid\"".into()]).unwrap();
//! assert!(fluid.get("links.bottleneck.utilization") > 0.5);
//! ```

pub mod budget;
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
pub use run::{run, run_with_progress, validate, validate_with, MemoryLimit};
pub use scenario::{parse, Scenario};
pub use summary::Output;
