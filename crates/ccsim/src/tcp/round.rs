//! Once-per-RTT rounds, kept once by the sender for every algorithm (Linux keeps them
//! per algorithm: Vegas `beg_snd_nxt`, Illinois `end_seq`).
//!
//! A round ends when the cumulative ACK reaches the first segment sent after the
//! previous round ended (that segment still unacknowledged), or, as Linux's
//! per-algorithm rounds end (`after(snd_una, end_seq)` in `tcp_cubic.c`'s HyStart,
//! Vegas, Illinois), when it covers that segment: one ACK later, and in slow start
//! at the first ACK of the next train rather than at the last of this one. The RTT
//! samples and the data acknowledged in between are its statistics.

use crate::units::Time;

/// The round in progress.
#[derive(Clone, Debug, Default)]
pub struct RoundTracker {
    /// The round ends when snd_una reaches this segment (passes it, with `covers`).
    end: u64,
    /// Linux's rule: the ACK must cover segment `end`.
    covers: bool,
    /// Rounds closed so far.
    index: u64,
    /// RTT samples of the round: minimum, sum (seconds) and count.
    min: Option<Time>,
    sum: f64,
    n: u32,
    /// Segments acknowledged during the round.
    acked: u64,
}

/// The statistics of a round just closed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosedRound {
    pub index: u64,
    pub samples: u32,
    pub min_rtt: Option<Time>,
    pub mean_rtt: Option<Time>,
    pub acked: u64,
}

impl RoundTracker {
    /// `covers`: a round ends at the ACK that covers the first segment sent after the
    /// last one ended (Linux), not at the ACK that reaches it.
    pub fn new(covers: bool) -> Self {
        RoundTracker {
            covers,
            ..RoundTracker::default()
        }
    }

    /// The first ACK of the flow closes a round (the sender starts one at segment 0).
    pub fn restart(&mut self) {
        self.end = 0;
    }

    /// An RTT sample taken during the round.
    pub fn sample(&mut self, r: Time) {
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        self.sum += r.as_secs_f64();
        self.n += 1;
    }

    /// `n` segments newly acknowledged.
    pub fn acked(&mut self, n: u64) {
        self.acked += n;
    }

    /// Close the round if `snd_una` has reached its end: its statistics, and the next
    /// round ends at the first segment not yet sent (`snd_nxt`, at least snd_una + 1).
    pub fn close_if_due(&mut self, snd_una: u64, snd_nxt: u64) -> Option<ClosedRound> {
        if snd_una < self.end + u64::from(self.covers) {
            return None;
        }
        let closed = ClosedRound {
            index: self.index,
            samples: self.n,
            min_rtt: self.min,
            mean_rtt: (self.n > 0).then(|| Time::from_secs_f64(self.sum / self.n as f64)),
            acked: self.acked,
        };
        self.index += 1;
        self.end = snd_nxt.max(snd_una + 1);
        self.min = None;
        self.sum = 0.0;
        self.n = 0;
        self.acked = 0;
        Some(closed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_closes_when_its_first_segment_is_acknowledged() {
        let mut r = RoundTracker::default();
        r.restart();
        // The first ACK closes round 0 (empty) and opens one ending at snd_nxt = 10.
        let c = r.close_if_due(1, 10).unwrap();
        assert_eq!((c.index, c.samples, c.mean_rtt), (0, 0, None));
        r.sample(Time::from_millis(100));
        r.sample(Time::from_millis(120));
        r.acked(5);
        assert_eq!(r.close_if_due(9, 20), None);
        let c = r.close_if_due(10, 20).unwrap();
        assert_eq!(c.index, 1);
        assert_eq!(c.samples, 2);
        assert_eq!(c.min_rtt, Some(Time::from_millis(100)));
        assert_eq!(c.mean_rtt, Some(Time::from_millis(110)));
        assert_eq!(c.acked, 5);
        // Nothing outstanding: the next round ends one segment above snd_una.
        assert!(r.close_if_due(19, 19).is_none());
        assert!(r.close_if_due(20, 20).is_some());
    }

    /// Linux's rule (`after(snd_una, end_seq)`): the round that ends at snd_nxt = 10
    /// closes when segment 10 is acknowledged (snd_una 11), one ACK after the rule above.
    /// In slow start that is the first ACK of the next train, not the last of this one.
    #[test]
    fn a_linux_round_closes_when_the_first_segment_sent_after_it_began_is_acknowledged() {
        let mut r = RoundTracker::new(true);
        r.restart();
        // The first ACK of the flow covers segment 0, sent after the (empty) round 0.
        assert!(r.close_if_due(0, 10).is_none());
        assert_eq!(r.close_if_due(1, 10).unwrap().index, 0);
        assert!(r.close_if_due(10, 20).is_none());
        assert_eq!(r.close_if_due(11, 20).unwrap().index, 1);
        assert!(r.close_if_due(20, 25).is_none());
        assert_eq!(r.close_if_due(21, 25).unwrap().index, 2);
    }
}
