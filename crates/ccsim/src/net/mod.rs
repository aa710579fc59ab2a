//! The network: links (each a unit of discipline, transmitter, pipe and statistics),
//! the graph every topology lays out with its static routes, and the plan of a
//! scenario's network and flows that both engines build from.

pub mod events;
pub mod graph;
pub mod link;
pub mod topology;
pub mod trace;

pub use link::{Link, LinkCounters};
pub use topology::{
    limit_text, plan, BuildInfo, Owner, Plan, PlannedFlow, PlannedLink, PlannedSource,
    PlannedWorkload, TcpTemplate,
};
