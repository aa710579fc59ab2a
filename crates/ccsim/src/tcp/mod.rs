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

/// Test support: an algorithm that owns cwnd (`cong_control`, as BBR), holds it at 10
/// segments and records the state and rate sample of every ACK it is handed.
#[cfg(test)]
pub(crate) mod recorder {
    use crate::cc::{Ack, CaState, Congestion, CongestionControl, RateSample, Window};
    use std::sync::{Arc, Mutex};

    pub type Heard = Arc<Mutex<Vec<(CaState, RateSample)>>>;

    pub struct Recorder(pub Heard);

    impl CongestionControl for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn cong_control(&self) -> bool {
            true
        }
        fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
            let rs = ack.rate.expect("a rate sample on every ACK");
            self.0.lock().unwrap().push((ack.ca_state, rs));
            w.cwnd = 10.0;
        }
        fn on_congestion(&mut self, w: &Window, _ev: &Congestion) -> f64 {
            w.ssthresh
        }
    }
}
