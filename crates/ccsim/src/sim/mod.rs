//! The event queue: a binary heap ordered by (time, insertion sequence), so ties
//! break deterministically in the order events were scheduled.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Typed ids into the world's arenas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// Everything that can happen. A plain enum: no boxed closures on the hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The link's transmitter finished a packet and its queue is not empty.
    TxDone(LinkId),
    /// The first packet in the link's propagation pipe reaches the far end.
    Arrive(LinkId),
    FlowStart(FlowId),
    /// Retransmission timer; the generation discards superseded timers.
    Rto(FlowId, u32),
    /// Delayed-ACK timer at the receiver.
    DelAck(FlowId, u32),
    /// The receiving application's read (`tcp.read_latency`).
    Read(FlowId, u32),
    /// Pacing release at the sender.
    Pace(FlowId, u32),
    SourceEmit(SourceId),
    /// A dynamic workload (traffic/): a Poisson flow arrival (slot `u32::MAX`) or the
    /// next flow of the node whose slot is the given flow id.
    Workload(u32, u32),
    Sample,
    /// Metrics probe tick (CoV samples, convergence; metrics::probe).
    Probe,
    Warmup,
    End,
    /// A flow stops sending (`flows[i].stop`, a group's stop event).
    FlowStop(FlowId),
    /// A scheduled link change: its index in the world's list (`[[events]]`).
    LinkChange(u32),
}

/// One pending event; `key` is (time, insertion sequence) packed so that one integer
/// comparison orders two events: earliest first, ties in insertion order.
struct Entry {
    key: u128,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest first.
        o.key.cmp(&self.key)
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn schedule(&mut self, at: Time, ev: Event) {
        self.seq += 1;
        self.heap.push(Entry {
            key: ((at.0 as u128) << 64) | self.seq as u128,
            ev,
        });
    }
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| {
            self.popped += 1;
            (Time((e.key >> 64) as u64), e.ev)
        })
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time((e.key >> 64) as u64))
    }
    pub fn processed(&self) -> u64 {
        self.popped
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(Time(5), Event::Sample);
        q.schedule(Time(1), Event::End);
        q.schedule(Time(5), Event::Warmup);
        q.schedule(Time(5), Event::TxDone(LinkId(3)));
        assert_eq!(q.pop(), Some((Time(1), Event::End)));
        assert_eq!(q.pop(), Some((Time(5), Event::Sample)));
        assert_eq!(q.pop(), Some((Time(5), Event::Warmup)));
        assert_eq!(q.pop(), Some((Time(5), Event::TxDone(LinkId(3)))));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn pops_in_the_order_of_a_sorted_list() {
        // Random times with many ties, pops interleaved with pushes, against a
        // reference: the (time, sequence) order of everything scheduled.
        let mut q = EventQueue::default();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut out: Vec<(u64, u64)> = Vec::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut seq = 0u64;
        let mut now = 0u64;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if !x.is_multiple_of(3) || q.is_empty() {
                let at = now + x % 50;
                seq += 1;
                q.schedule(Time(at), Event::Rto(FlowId(0), seq as u32));
                reference.push((at, seq));
            } else {
                let (t, ev) = q.pop().unwrap();
                assert!(t.0 >= now, "step {step}: time went back");
                now = t.0;
                let Event::Rto(_, s) = ev else { unreachable!() };
                out.push((t.0, s as u64));
            }
        }
        while let Some((t, Event::Rto(_, s))) = q.pop() {
            out.push((t.0, s as u64));
        }
        // Each pop is the least pending (time, seq): out is reference sorted,
        // provided nothing was scheduled before the current time (true above).
        reference.sort();
        assert_eq!(out, reference);
    }
}
