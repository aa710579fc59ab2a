//! TCP end points: one flow = one sender + one receiver.
//!
//! The sender (`sender.rs`) is a state machine over `cc::CaState` (Open / Recovery /
//! Loss); its RFC 6675 scoreboard is `scoreboard.rs`, its RFC 8985 RACK-TLP state
//! `rack.rs`, its once-per-RTT rounds `round.rs`, its RFC 6298 estimator `rtt.rs`, its
//! pacers `pacer.rs`.

pub mod delivery;
pub mod pacer;
pub mod rack;
pub mod receiver;
pub mod round;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

pub use receiver::Receiver;
pub use sender::{Recovery, Sender, SenderConfig};
