//! The flow queueing shared by FQ-CoDel and FQ-PIE (RFC 8290 §4; Linux `sch_fq_codel`,
//! `sch_fq_pie`): flows hashed into `buckets` queues, each with its own AQM state `V`,
//! scheduled by a deficit round robin over two lists. A queue that becomes active joins
//! the "new" list with one quantum of credit; the new list is served before the "old"
//! one, which gives sparse flows (ACKs, DNS, a connection's first packets) priority over
//! bulk ones.
//!
//! Dequeue (§4.2): take the first queue of the new list, else of the old list. With no
//! credit left (deficit ≤ 0) it gets one quantum and moves to the tail of the old list.
//! Otherwise the queue's AQM dequeues from it; if that yields nothing the queue is empty:
//! one from the new list moves to the tail of the old list (so that a flow cannot stay
//! "new" by emptying its queue every round), one from the old list leaves. A packet sent
//! costs its size in credit.
//!
//! What differs between the two disciplines — the AQM, what happens at the shared limit —
//! stays in theirs; they keep the totals in step through `Totals`.

use super::fq::{flow_key, hash_key};
use crate::packet::Packet;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

/// One hashed flow queue and its AQM state.
pub struct FlowQueue<V> {
    pub q: VecDeque<Packet>,
    /// Bytes queued here.
    pub bytes: u64,
    pub vars: V,
    deficit: i64,
    list: List,
}

/// Packets and bytes queued over all flow queues.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    pub pkts: usize,
    pub bytes: u64,
}

impl Totals {
    /// `p`, popped from flow queue `f`, left it (sent or dropped).
    #[inline]
    pub fn remove_popped<V>(&mut self, f: &mut FlowQueue<V>, p: &Packet) {
        f.bytes -= p.size as u64;
        self.pkts -= 1;
        self.bytes -= p.size as u64;
    }
}

pub struct FlowQueues<V> {
    quantum: i64,
    salt: u64,
    pub flows: Vec<FlowQueue<V>>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    pub totals: Totals,
}

impl<V> FlowQueues<V> {
    /// `buckets` queues (at least one), `quantum` bytes of credit per round, the hash
    /// salted with `salt`; `vars` makes each queue's AQM state.
    pub fn new(buckets: u32, quantum: u32, salt: u64, vars: impl Fn() -> V) -> Self {
        let n = buckets.max(1) as usize;
        FlowQueues {
            quantum: quantum as i64,
            salt,
            flows: (0..n)
                .map(|_| FlowQueue {
                    q: VecDeque::new(),
                    bytes: 0,
                    vars: vars(),
                    deficit: 0,
                    list: List::None,
                })
                .collect(),
            new_flows: VecDeque::with_capacity(n),
            old_flows: VecDeque::with_capacity(n),
            totals: Totals::default(),
        }
    }

    /// The queue of `p`'s flow.
    pub fn bucket(&self, p: &Packet) -> usize {
        (hash_key(flow_key(p), self.salt) % self.flows.len() as u64) as usize
    }

    /// Append `pkt` to queue `i` (§4.1); an idle queue joins the new list.
    pub fn push(&mut self, i: usize, pkt: Packet) {
        let size = pkt.size as u64;
        let f = &mut self.flows[i];
        f.q.push_back(pkt);
        f.bytes += size;
        if f.list == List::None {
            f.list = List::New;
            f.deficit = self.quantum;
            self.new_flows.push_back(i);
        }
        self.totals.pkts += 1;
        self.totals.bytes += size;
    }

    /// Take the head of queue `i` (a drop at the shared limit). The queue stays on its
    /// list; an emptied one is retired by the scheduler.
    pub fn pop_head(&mut self, i: usize) -> Option<Packet> {
        let f = &mut self.flows[i];
        let p = f.q.pop_front()?;
        self.totals.remove_popped(f, &p);
        Some(p)
    }

    /// §4.2: the next packet. `serve` is the chosen queue's AQM dequeue: it returns the
    /// packet to send, or None when the queue is empty (perhaps after it dropped what
    /// was left), and accounts in `Totals` for every packet it removes.
    pub fn dequeue(
        &mut self,
        mut serve: impl FnMut(&mut FlowQueue<V>, &mut Totals) -> Option<Packet>,
    ) -> Option<Packet> {
        loop {
            let (i, from_new) = if let Some(&i) = self.new_flows.front() {
                (i, true)
            } else if let Some(&i) = self.old_flows.front() {
                (i, false)
            } else {
                return None;
            };
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            let f = &mut self.flows[i];
            if f.deficit <= 0 {
                // Out of credit: one more quantum, and to the back of the old list.
                f.deficit += self.quantum;
                list.pop_front();
                self.old_flows.push_back(i);
                f.list = List::Old;
                continue;
            }
            match serve(f, &mut self.totals) {
                Some(p) => {
                    f.deficit -= p.size as i64;
                    return Some(p);
                }
                None => {
                    list.pop_front();
                    if from_new {
                        self.old_flows.push_back(i);
                        f.list = List::Old;
                    } else {
                        f.list = List::None;
                    }
                }
            }
        }
    }
}
