//! Dynamic TCP workloads: flows that come and go during a run.
//!
//! - `web` (study 000 §4.3): each of `nodes` source nodes carries one flow at a time;
//!   file sizes Pareto (shape 1.35, mean 30 packets by default), then an OFF time
//!   (exponential, mean 0.2 s by default) before the next file.
//! - `closed_loop` (study 001 §5.4): each of `nodes` node pairs sends a flow of
//!   `size`, and a new one a think time (exponential, mean 1 s by default) after the
//!   last completes. Mechanically the web source with other defaults.
//! - `poisson_flows` (study 003): finite TCP flows arriving as a Poisson process at
//!   an offered load ρ of the bottleneck, each on its own host pair whose access link
//!   caps its rate.
//!
//! Static flows (`[[flows]]`: staged, named, started from a distribution) are not
//! here: they are planned once by the topology builders.
//!
//! **Slots.** A workload owns a fixed set of flow slots (one per node, or the host
//! pool of `poisson_flows`), built with the topology. A slot runs one flow
//! *instance* at a time and is reused for the next, so memory stays bounded however
//! many flows a run creates. A slot is reused only once none of its packets is left
//! in the network (the engine counts them), so a late duplicate or ACK of the last
//! instance can never reach the next one; timers of the old instance are discarded by
//! their generation. Every finished instance is kept as a compact record (the rows
//! of the flow table).
//!
//! **State machines.** A `Workload` decides, and returns `Action`s (wake me at t,
//! start a flow of this size in that slot); the engine carries them out. Nothing
//! here touches the network, so the logic is testable without an engine.
//!
//! A flow is *finished* when its sender has every byte acknowledged; its FCT is
//! measured at the receiver (last byte delivered in order), as for static flows.

use crate::quantity::size_bytes;
use crate::random::{exponential, stream, Dist, Rng};
use crate::scenario::workload::workload_name;
use crate::scenario::{WorkloadKind, WorkloadSpec};
use crate::units::{Rate, Time};

/// Study 000 §4.3: Pareto file sizes, shape 1.35, mean 30 packets.
pub const WEB_SIZE: Dist = Dist::Pareto {
    shape: 1.35,
    mean: -30.0, // negative: packets (quantity::ByteSize)
};
/// Study 000 §4.3: exponential OFF time, mean 0.2 s.
pub const WEB_OFF: Dist = Dist::Exponential { mean: 0.2 };
/// Study 001 §5.4: exponential think time, mean 1 s.
pub const THINK: Dist = Dist::Exponential { mean: 1.0 };

/// The traffic state of one slot.
#[derive(Clone, Debug)]
pub struct Slot {
    /// The node's own stream: first start, sizes, OFF times (web, closed loop).
    pub rng: Rng,
    /// An instance is running (started, not yet finished).
    pub busy: bool,
    /// The next instance is due but waits for the network to drain of this slot's
    /// packets.
    pub want_start: bool,
    /// Instances started in this slot so far.
    pub instances: u32,
}

/// What a workload asks the engine to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Call `on_wake(slot)` at `at` (`slot` = `ARRIVAL`: the next Poisson arrival).
    Wake { at: Time, slot: u32 },
    /// Start a flow of `size` bytes in `slot` now.
    Start { slot: u32, size: u64 },
}

/// Sentinel slot of an arrival wake-up (poisson_flows).
pub const ARRIVAL: u32 = u32::MAX;

/// Runtime state of one workload.
pub struct Workload {
    pub name: String,
    pub kind: WorkloadKind,
    /// Flow size (negative: packets) and OFF/think time.
    pub size: Dist,
    pub off: Dist,
    pub start: Option<Dist>,
    pub stop: Time,
    /// Segment payload of its flows (sizes given in packets).
    pub mss: u32,
    /// poisson_flows: mean time between arrivals, s (ρ·C = λ·E[size]·8).
    pub mean_gap: f64,
    /// poisson_flows: the arrivals stream (times and sizes).
    pub rng: Rng,
    pub slots: Vec<Slot>,
    /// poisson_flows: slots idle now, lowest index last.
    pub idle: Vec<u32>,
    /// The rate ρ refers to: the slowest link of the first slot's data route.
    pub capacity: Rate,
    pub arrivals: u64,
    pub blocked: u64,
    /// Payload bytes of the flows started (offered), in total and within the
    /// measurement window.
    pub offered_bytes: u64,
    pub offered_bytes_window: u64,
    pub completed: u64,
    /// Times a node's next flow was due while packets of its last one were still in
    /// the network, and waited for them to drain.
    pub drain_waits: u64,
}

/// `secs` after `now`, saturating (a huge draw lands after the end, never overflows).
fn after(now: Time, secs: f64) -> Time {
    Time(now.0.saturating_add(Time::from_secs_f64(secs).0))
}

impl Workload {
    /// `workloads[w]` with `n_slots` slots, flows of payload `mss`, offered load of
    /// `capacity`.
    pub fn new(
        spec: &WorkloadSpec,
        w: usize,
        seed: u64,
        n_slots: usize,
        mss: u32,
        capacity: Rate,
    ) -> Self {
        let size = spec.size.as_ref().map_or(WEB_SIZE, |s| s.dist.clone());
        let off = spec.off.as_ref().map_or(
            if spec.kind == WorkloadKind::ClosedLoop {
                THINK
            } else {
                WEB_OFF
            },
            |d| d.dist.clone(),
        );
        let mean_bytes = {
            let m = size.mean();
            if m < 0.0 {
                -m * mss as f64
            } else {
                m
            }
        };
        let lambda = spec.load.unwrap_or(0.0) * capacity.as_f64() / (8.0 * mean_bytes);
        let slots = (0..n_slots)
            .map(|j| Slot {
                rng: stream(seed, &format!("workload/{w}/node/{j}")),
                busy: false,
                want_start: false,
                instances: 0,
            })
            .collect();
        Workload {
            name: workload_name(spec, w),
            kind: spec.kind,
            size,
            off,
            start: spec.start.as_ref().map(|d| d.dist.clone()),
            stop: spec.stop.map_or(Time::MAX, |d| d.0),
            mss,
            mean_gap: if lambda > 0.0 {
                1.0 / lambda
            } else {
                f64::INFINITY
            },
            rng: stream(seed, &format!("workload/{w}/arrivals")),
            slots,
            idle: (0..n_slots as u32).rev().collect(),
            capacity,
            arrivals: 0,
            blocked: 0,
            offered_bytes: 0,
            offered_bytes_window: 0,
            completed: 0,
            drain_waits: 0,
        }
    }

    /// The first wake-ups: the first arrival, or each node's first flow.
    pub fn prime(&mut self, out: &mut Vec<Action>) {
        match self.kind {
            WorkloadKind::PoissonFlows => {
                let base = self.start.as_ref().map_or(0.0, |d| d.sample(&mut self.rng));
                let at = base + exponential(&mut self.rng, self.mean_gap);
                if at.is_finite() {
                    out.push(Action::Wake {
                        at: Time::from_secs_f64(at.max(0.0)),
                        slot: ARRIVAL,
                    });
                }
            }
            WorkloadKind::Web | WorkloadKind::ClosedLoop => {
                for (j, slot) in self.slots.iter_mut().enumerate() {
                    let at = self.start.as_ref().map_or(0.0, |d| d.sample(&mut slot.rng));
                    out.push(Action::Wake {
                        at: Time::from_secs_f64(at.max(0.0)),
                        slot: j as u32,
                    });
                }
            }
        }
    }

    /// A wake-up at `now`: a Poisson arrival, or a node's next flow being due.
    /// `draining(j)`: packets of slot j's last flow are still in the network.
    pub fn on_wake(
        &mut self,
        slot: u32,
        now: Time,
        warmup: Time,
        draining: impl Fn(u32) -> bool,
        out: &mut Vec<Action>,
    ) {
        if now >= self.stop {
            return;
        }
        if slot == ARRIVAL {
            let gap = exponential(&mut self.rng, self.mean_gap);
            let size_v = self.size.sample(&mut self.rng);
            out.push(Action::Wake {
                at: after(now, gap),
                slot: ARRIVAL,
            });
            self.arrivals += 1;
            match self.idle.pop() {
                Some(j) => self.start(j, size_v, now, warmup, out),
                None => self.blocked += 1,
            }
            return;
        }
        let draining = draining(slot);
        let s = &mut self.slots[slot as usize];
        if s.busy {
            return;
        }
        if draining {
            // Wait until the last instance's packets have left (see the module doc).
            s.want_start = true;
            self.drain_waits += 1;
            return;
        }
        s.want_start = false;
        let size_v = self.size.sample(&mut s.rng);
        self.start(slot, size_v, now, warmup, out);
    }

    fn start(&mut self, j: u32, size_v: f64, now: Time, warmup: Time, out: &mut Vec<Action>) {
        let size = size_bytes(size_v, self.mss);
        self.offered_bytes += size;
        if now >= warmup {
            self.offered_bytes_window += size;
        }
        let s = &mut self.slots[j as usize];
        s.busy = true;
        s.instances += 1;
        out.push(Action::Start { slot: j, size });
    }

    /// The flow in `slot` finished (its sender has every byte acknowledged) at `now`;
    /// `drained`: none of its packets is left in the network.
    pub fn on_finished(&mut self, slot: u32, now: Time, drained: bool, out: &mut Vec<Action>) {
        self.completed += 1;
        let s = &mut self.slots[slot as usize];
        s.busy = false;
        match self.kind {
            WorkloadKind::PoissonFlows => {
                if drained {
                    self.idle.push(slot);
                }
            }
            WorkloadKind::Web | WorkloadKind::ClosedLoop => {
                let off = self.off.sample(&mut s.rng).max(0.0);
                out.push(Action::Wake {
                    at: after(now, off),
                    slot,
                });
            }
        }
    }

    /// The last packet of `slot`'s finished flow left the network at `now`.
    pub fn on_drained(&mut self, slot: u32, now: Time, out: &mut Vec<Action>) {
        let s = &self.slots[slot as usize];
        if s.busy || s.instances == 0 {
            return;
        }
        match self.kind {
            WorkloadKind::PoissonFlows => self.idle.push(slot),
            _ => {
                if s.want_start {
                    // Not from inside a drop or a delivery: start it as its own event.
                    out.push(Action::Wake { at: now, slot });
                }
            }
        }
    }

    /// Flow instances started so far.
    pub fn started(&self) -> u64 {
        self.slots.iter().map(|s| s.instances as u64).sum()
    }

    /// The name of its kind, as scenarios write it.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            WorkloadKind::Web => "web",
            WorkloadKind::ClosedLoop => "closed_loop",
            WorkloadKind::PoissonFlows => "poisson_flows",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Study 000 §4.3's file sizes: Pareto with tail index α = 1.35 and mean 30
    /// packets, so scale x_m = 30·(α−1)/α. The mean itself has infinite variance
    /// (α < 2), so it is checked through quantities with finite variance:
    /// - the survival function P(X > x) = (x_m/x)^α at several x (binomial error);
    /// - the truncated mean E[min(X, c)] = x_m·α/(α−1) − c·(x_m/c)^α/(α−1), which
    ///   with the closed-form tail E[(X−c)+] = c·(x_m/c)^α/(α−1) adds up to the mean;
    /// - the Hill estimator of α over the top k order statistics (s.e. α/√k).
    #[test]
    fn web_sizes_are_pareto_with_the_studys_mean_and_tail() {
        let (alpha, mean) = (1.35, 30.0);
        let xm = mean * (alpha - 1.0) / alpha;
        let mut rng = stream(11, "web-size-test");
        let n = 400_000usize;
        // Sizes in packets (the spec's negative convention).
        let mut x: Vec<f64> = (0..n).map(|_| -WEB_SIZE.sample(&mut rng)).collect();
        assert!(x.iter().all(|&v| v >= xm * (1.0 - 1e-12)));
        for &q in &[2.0 * xm, 10.0 * xm, 100.0 * xm] {
            let p = (xm / q).powf(alpha);
            let got = x.iter().filter(|&&v| v > q).count() as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((got - p).abs() < 4.0 * se, "P(X > {q}) = {got}, theory {p}");
        }
        let c = 1000.0 * xm;
        let tail = c * (xm / c).powf(alpha) / (alpha - 1.0);
        let trunc_theory = mean - tail;
        let t: Vec<f64> = x.iter().map(|&v| v.min(c)).collect();
        let m = t.iter().sum::<f64>() / n as f64;
        let var = t.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1) as f64;
        let se = (var / n as f64).sqrt();
        assert!(
            (m - trunc_theory).abs() < 4.0 * se,
            "E[min(X, c)] = {m}, theory {trunc_theory} ± {se}"
        );
        assert!((trunc_theory + tail - mean).abs() < 1e-9);
        // Hill: 1/α̂ = mean of ln(X_(i)/X_(k+1)) over the k largest.
        x.sort_unstable_by(|a, b| b.partial_cmp(a).expect("finite"));
        let k = 4000;
        let h = (0..k).map(|i| (x[i] / x[k]).ln()).sum::<f64>() / k as f64;
        let a_hat = 1.0 / h;
        assert!(
            (a_hat - alpha).abs() < 4.0 * alpha / (k as f64).sqrt(),
            "Hill estimate {a_hat}, α = {alpha}"
        );
    }

    /// OFF times: exponential with mean 0.2 s (s.e. of the mean 0.2/√n).
    #[test]
    fn web_off_times_have_the_studys_mean() {
        let mut rng = stream(3, "web-off-test");
        let n = 200_000;
        let m = (0..n).map(|_| WEB_OFF.sample(&mut rng)).sum::<f64>() / n as f64;
        assert!((m - 0.2).abs() < 4.0 * 0.2 / (n as f64).sqrt(), "{m}");
    }
}
