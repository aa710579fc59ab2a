//! Queue disciplines. A queue accepts, drops or marks on enqueue and chooses what
//! leaves on dequeue. The packet in transmission is not in the queue.

pub mod codel;
pub mod discipline;
pub mod droptail;
pub mod dualpi2;
pub mod flow_queues;
pub mod fq;
pub mod fq_codel;
pub mod fq_pie;
pub mod pie;
pub mod red;
pub mod spec;
pub mod step;
pub mod xcp;

use crate::units::Rate;
pub use discipline::{DropReason, Drops, Limit, Queue, QueueCtx};

pub use codel::{Codel, CodelConfig};
pub use droptail::DropTail;
pub use dualpi2::{DualPi2, DualPi2Config};
pub use fq::{Fq, FqConfig};
pub use fq_codel::{FqCodel, FqCodelConfig};
pub use fq_pie::{FqPie, FqPieConfig};
pub use pie::{Pie, PieConfig};
pub use red::{Red, RedConfig};
pub use spec::QueueSpec;
pub use step::{Step, StepConfig};
pub use xcp::{Xcp, XcpConfig};

/// Build the queue a spec names, with the buffer `limit` (from `topology.buffer`),
/// the link's `rate` (RED's idle-time decay needs it) and a `salt` for the flow hash
/// of the hashed fair queues (so that which flows collide varies with the seed and
/// the link, deterministically).
pub fn build_queue(spec: &QueueSpec, limit: Limit, rate: Rate, salt: u64) -> Box<dyn Queue> {
    match spec {
        QueueSpec::DropTail => Box::new(DropTail::new(limit)),
        QueueSpec::Red(c) => Box::new(Red::new(c.clone(), limit, rate)),
        QueueSpec::Fq(c) => Box::new(Fq::new(c.clone(), limit, salt)),
        QueueSpec::Codel(c) => Box::new(Codel::new(c.clone(), limit)),
        QueueSpec::FqCodel(c) => Box::new(FqCodel::new(c.clone(), limit, salt)),
        QueueSpec::Xcp(c) => Box::new(Xcp::new(c.clone(), limit, rate)),
        QueueSpec::Step(c) => Box::new(Step::new(c.clone(), limit)),
        QueueSpec::Pie(c) => Box::new(Pie::new(c.clone(), limit)),
        QueueSpec::DualPi2(c) => Box::new(DualPi2::new(c.clone(), limit)),
        QueueSpec::FqPie(c) => Box::new(FqPie::new(c.clone(), limit, salt)),
    }
}
