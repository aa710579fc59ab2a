//! TCP end points: one flow = one sender + one receiver.

pub mod pacer;
pub mod receiver;
pub mod rtt;
pub mod sender;

pub use receiver::Receiver;
pub use sender::{Recovery, Sender, SenderConfig};
