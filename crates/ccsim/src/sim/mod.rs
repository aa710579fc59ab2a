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

struct Entry {
    at: Time,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.at.cmp(&self.at).then_with(|| o.seq.cmp(&self.seq))
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
            at,
            seq: self.seq,
            ev,
        });
    }
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| {
            self.popped += 1;
            (e.at, e.ev)
        })
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.at)
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
}
