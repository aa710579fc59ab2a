//! Loss synchronization at a queue (DESIGN.md "Metrics"; the quantity study 004 models
//! as the m_k flows that lose in a congestion event).
//!
//! The drops of one queue, in time order, are cut into congestion events wherever two
//! consecutive drops are more than `gap` apart (one mean RTT of the flows crossing the
//! queue: a sender reacts to a loss about one RTT later, so drops closer than that
//! belong to the same overflow episode). Per event, the synchronization is the
//! fraction of the flows active during the event that lost at least one packet.

use crate::units::Time;

/// What was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropKind {
    Data = 0,
    Ack = 1,
    Udp = 2,
}

/// Where it was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropCause {
    /// By the queueing discipline (overflow, RED, CoDel, ...).
    Queue = 0,
    /// Bernoulli loss on the wire.
    Wire = 1,
    /// A scripted first-transmission drop (`flows[i].drop_segments`).
    Scripted = 2,
}

pub const DROP_KINDS: &[&str] = &["data", "ack", "udp"];
pub const DROP_CAUSES: &[&str] = &["queue", "wire", "scripted"];

/// One drop in the log: 32 bytes, pushed only when a drop happens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropRecord {
    pub at: Time,
    /// Segment number (data), cumulative ACK (acks) or datagram number (udp).
    pub seq: u64,
    pub link: u32,
    /// Flow index (TCP) or source index (udp).
    pub flow: u32,
    pub kind: DropKind,
    pub cause: DropCause,
}

/// One congestion event at a queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongestionEvent {
    pub link: u32,
    /// First and last drop of the event.
    pub start: Time,
    pub end: Time,
    pub drops: u32,
    /// Distinct flows that lost at least one packet.
    pub flows_lost: u32,
    /// Flows active at some time during the event (never fewer than `flows_lost`).
    pub flows_active: u32,
}

impl CongestionEvent {
    /// The event's synchronization: flows_lost / flows_active.
    pub fn fraction(&self) -> f64 {
        self.flows_lost as f64 / self.flows_active.max(1) as f64
    }
}

/// Cut the drops of one queue (`(time, flow)`, in time order, flows `< n_flows`) into
/// congestion events. `active(start, end)` counts the flows crossing the queue that
/// were active at some time in `[start, end]`. `event_of[i]` receives the index (into
/// the returned vector, offset by `first_id`) of the event drop `i` belongs to.
pub fn congestion_events(
    link: u32,
    drops: &[(Time, u32)],
    gap: Time,
    n_flows: usize,
    mut active: impl FnMut(Time, Time) -> u32,
    first_id: usize,
    event_of: &mut Vec<i64>,
) -> Vec<CongestionEvent> {
    let mut events = Vec::new();
    // `seen[f] == k + 1`: flow f already lost in event k (no clearing between events).
    let mut seen = vec![0usize; n_flows];
    let mut i = 0;
    while i < drops.len() {
        let k = events.len();
        let start = drops[i].0;
        let (mut end, mut lost, mut n) = (start, 0u32, 0u32);
        while i < drops.len() && drops[i].0 - end <= gap {
            debug_assert!(drops[i].0 >= end, "drops out of time order");
            end = drops[i].0;
            let f = drops[i].1 as usize;
            if seen[f] != k + 1 {
                seen[f] = k + 1;
                lost += 1;
            }
            n += 1;
            event_of.push((first_id + k) as i64);
            i += 1;
        }
        events.push(CongestionEvent {
            link,
            start,
            end,
            drops: n,
            flows_lost: lost,
            flows_active: active(start, end).max(lost),
        });
    }
    events
}

/// Mean and distribution of the per-event synchronization.
#[derive(Clone, Debug, PartialEq)]
pub struct SyncSummary {
    pub events: usize,
    pub mean: f64,
    /// Counts of events by fraction in ten bins [0, 0.1), ..., [0.9, 1.0].
    pub hist: [u32; 10],
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
}

pub fn summarize(events: &[CongestionEvent]) -> SyncSummary {
    let mut f: Vec<f64> = events.iter().map(|e| e.fraction()).collect();
    let mut hist = [0u32; 10];
    for &x in &f {
        hist[((x * 10.0) as usize).min(9)] += 1;
    }
    f.sort_by(f64::total_cmp);
    SyncSummary {
        events: f.len(),
        mean: if f.is_empty() {
            f64::NAN
        } else {
            f.iter().sum::<f64>() / f.len() as f64
        },
        hist,
        median: quantile(&f, 0.5),
        p10: quantile(&f, 0.1),
        p90: quantile(&f, 0.9),
    }
}

/// Linear-interpolation quantile (numpy's default) of sorted values; NaN if empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    fn run(drops: &[(Time, u32)], gap: Time, n: usize, active: u32) -> Vec<CongestionEvent> {
        let mut ev = Vec::new();
        let e = congestion_events(0, drops, gap, n, |_, _| active, 0, &mut ev);
        assert_eq!(ev.len(), drops.len());
        e
    }

    /// Two flows that always lose together, once per 1 s sawtooth: every event has
    /// both, synchronization 1.
    #[test]
    fn fully_synchronized_pair_gives_one() {
        let mut d = Vec::new();
        for k in 0..10 {
            d.push((ms(1000 * k), 0));
            d.push((ms(1000 * k + 3), 1));
            d.push((ms(1000 * k + 5), 0)); // a second loss of the same flow
        }
        let e = run(&d, ms(100), 2, 2);
        assert_eq!(e.len(), 10);
        let s = summarize(&e);
        assert_eq!(s.mean, 1.0);
        assert_eq!(s.hist[9], 10);
        assert!(e.iter().all(|x| x.drops == 3 && x.flows_lost == 2));
    }

    /// Two flows losing in turn, half a period apart: one of two per event, 0.5.
    #[test]
    fn alternating_pair_gives_one_half() {
        let d: Vec<(Time, u32)> = (0..20).map(|k| (ms(500 * k), (k % 2) as u32)).collect();
        let s = summarize(&run(&d, ms(100), 2, 2));
        assert_eq!(s.events, 20);
        assert_eq!(s.mean, 0.5);
        assert_eq!(s.hist[5], 20);
    }

    /// The gap rule: drops 100 ms apart are one event when the gap is 100 ms (only a
    /// gap of *more* than one RTT separates), two when it is 99 ms.
    #[test]
    fn gap_of_more_than_one_rtt_separates() {
        let d = [(ms(0), 0), (ms(100), 1), (ms(200), 2), (ms(301), 3)];
        let e = run(&d, ms(100), 4, 4);
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].flows_lost, e[1].flows_lost), (3, 1));
        assert_eq!((e[0].start, e[0].end), (ms(0), ms(200)));
        assert_eq!(run(&d, ms(99), 4, 4).len(), 4);
        // Means 3/4 and 1/4: 0.5; median of two = their mean.
        let s = summarize(&e);
        assert_eq!(s.mean, 0.5);
        assert_eq!(s.median, 0.5);
    }

    /// A flow that lost counts as active even if the activity oracle missed it.
    #[test]
    fn active_never_below_lost() {
        let e = run(&[(ms(0), 0), (ms(1), 1)], ms(10), 2, 1);
        assert_eq!(e[0].flows_active, 2);
        assert_eq!(e[0].fraction(), 1.0);
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [0.0, 0.5, 1.0];
        assert_eq!(quantile(&v, 0.5), 0.5);
        assert_eq!(quantile(&v, 0.25), 0.25);
        assert!(quantile(&[], 0.5).is_nan());
    }
}
