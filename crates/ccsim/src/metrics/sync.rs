//! Loss synchronization at a queue (docs/metrics.md; the quantity study 004 models
//! as the m_k flows that lose in a congestion event).
//!
//! The drops of one queue, in time order, are cut into congestion events wherever two
//! consecutive drops are more than `gap` apart (one mean RTT of the flows crossing the
//! queue: a sender reacts to a loss about one RTT later, so drops closer than that
//! belong to the same overflow episode). Per event, the synchronization is the
//! fraction of the flows active during the event that lost at least one packet.

pub use crate::records::CongestionEvent;
use crate::units::Time;

/// The gap that separates congestion events at a queue by default: the mean two-way
/// propagation RTT of the flows crossing it (`fallback` when none does).
pub fn default_gap(rtts: impl Iterator<Item = Time>, fallback: f64) -> Time {
    let (mut sum, mut n) = (0.0, 0usize);
    for r in rtts {
        sum += r.as_secs_f64();
        n += 1;
    }
    if n == 0 {
        Time::from_secs_f64(fallback)
    } else {
        Time::from_secs_f64(sum / n as f64)
    }
}

/// Cuts one queue's drops into congestion events as they happen, so that a run keeps
/// one record per event, not one per drop. Both engines feed it: the packet engine
/// one call per dropped data packet, the fluid engine one per integration step and
/// flow that lost fluid (with the packets' worth it lost).
#[derive(Clone, Debug)]
pub struct EventGrouper {
    link: u32,
    gap: Time,
    events: Vec<CongestionEvent>,
    /// Per flow: 1 + the index of the last event it lost in (sized on first use).
    seen: Vec<u32>,
}

impl EventGrouper {
    pub fn new(link: u32, gap: Time) -> Self {
        EventGrouper {
            link,
            gap,
            events: Vec::new(),
            seen: Vec::new(),
        }
    }

    pub fn gap(&self) -> Time {
        self.gap
    }

    /// A drop of `packets` from `flow` at `at` (drops come in time order). Returns the
    /// index of the event it belongs to: a new one when it is more than `gap` after
    /// the previous drop.
    pub fn push(&mut self, at: Time, flow: u32, packets: f64) -> usize {
        let link = self.link;
        let fresh = match self.events.last() {
            Some(e) => {
                debug_assert!(at >= e.end, "drops out of time order");
                at.saturating_sub(e.end) > self.gap
            }
            None => true,
        };
        if fresh {
            self.events.push(CongestionEvent {
                link,
                start: at,
                end: at,
                drops: 0.0,
                flows_lost: 0,
                flows_active: 0,
            });
        }
        let k = self.events.len() - 1;
        let e = &mut self.events[k];
        e.end = at;
        e.drops += packets;
        let f = flow as usize;
        if self.seen.len() <= f {
            self.seen.resize(f + 1, 0);
        }
        if self.seen[f] != k as u32 + 1 {
            self.seen[f] = k as u32 + 1;
            e.flows_lost += 1;
        }
        k
    }

    /// The events, in time order.
    pub fn into_events(self) -> Vec<CongestionEvent> {
        self.events
    }
}

/// Cut the drops of one queue (`(time, flow)`, in time order) into congestion events
/// (`EventGrouper` over a list). `active(start, end)` counts the flows crossing the
/// queue that were active at some time in `[start, end]`. `event_of[i]` receives the
/// index (offset by `first_id`) of the event drop `i` belongs to.
pub fn congestion_events(
    link: u32,
    drops: &[(Time, u32)],
    gap: Time,
    mut active: impl FnMut(Time, Time) -> u32,
    first_id: usize,
    event_of: &mut Vec<i64>,
) -> Vec<CongestionEvent> {
    let mut g = EventGrouper::new(link, gap);
    for &(at, flow) in drops {
        event_of.push((first_id + g.push(at, flow, 1.0)) as i64);
    }
    let mut events = g.into_events();
    for e in &mut events {
        e.flows_active = active(e.start, e.end).max(e.flows_lost);
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

    fn run(drops: &[(Time, u32)], gap: Time, _n: usize, active: u32) -> Vec<CongestionEvent> {
        let mut ev = Vec::new();
        let e = congestion_events(0, drops, gap, |_, _| active, 0, &mut ev);
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
        assert!(e.iter().all(|x| x.drops == 3.0 && x.flows_lost == 2));
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

    /// The fluid engine feeds one weighted drop per step and flow: a continuous loss
    /// episode is one event whose drops are the packets' worth lost, and a flow that
    /// loses in many steps of it counts once.
    #[test]
    fn weighted_drops_of_a_loss_episode_make_one_event() {
        let mut g = EventGrouper::new(3, ms(100));
        for k in 0..50 {
            // Steps of 1 ms: flows 0 and 1 lose in every step, flow 2 in every tenth.
            g.push(ms(k), 0, 0.25);
            g.push(ms(k), 1, 0.25);
            if k % 10 == 0 {
                assert_eq!(g.push(ms(k), 2, 0.5), 0);
            }
        }
        assert_eq!(
            g.push(ms(200), 1, 1.0),
            1,
            "101 ms after the last drop: a new event"
        );
        let e = g.into_events();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].link, e[0].start, e[0].end), (3, ms(0), ms(49)));
        assert!((e[0].drops - (50.0 * 0.5 + 5.0 * 0.5)).abs() < 1e-12);
        assert_eq!((e[0].flows_lost, e[1].flows_lost), (3, 1));
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [0.0, 0.5, 1.0];
        assert_eq!(quantile(&v, 0.5), 0.5);
        assert_eq!(quantile(&v, 0.25), 0.25);
        assert!(quantile(&[], 0.5).is_nan());
    }
}
