//! What the packet engine measured, as records (`records`): the boundary to the
//! summary.

use super::World;
use crate::records::{
    Capacity, Conservation, EngineKind, FlowCounts, FlowRecord, LinkCounts, LinkRecord, Records,
    RunInfo, SourceRecord, WorkloadRecord,
};
use crate::units::Time;

const PS: f64 = 1e12;

impl World {
    /// A finished or running workload instance of slot `f`, with its counters now.
    pub(super) fn instance_record(&self, f: usize) -> FlowRecord {
        let mut r = self.flow_record(f);
        r.instance = true;
        r.fair_share = self.flows[f].fair_share;
        r.cov_mean = f64::NAN;
        r.cov_windows = 0;
        r.convergence = None;
        r
    }

    fn flow_record(&self, i: usize) -> FlowRecord {
        let fl = &self.flows[i];
        let c = fl.window();
        let cfg = &fl.sender.cfg;
        FlowRecord {
            flow: i as u32,
            group: fl.group.clone(),
            cc: fl.cc_name.clone(),
            reverse: fl.reverse,
            instance: false,
            started: fl.started,
            start: fl.start,
            rtt_prop: fl.rtt_prop,
            size: fl.size_bytes,
            data_path: fl.sender.data_path,
            ack_path: fl.receiver.ack_path,
            mss: cfg.mss,
            header: cfg.header,
            init_cwnd: cfg.init_cwnd,
            completed: fl.receiver.completed_at,
            finished: None,
            window: FlowCounts {
                bytes_delivered: c.bytes_delivered as f64,
                losses: c.losses as f64,
                retransmits: c.retransmits as f64,
                timeouts: c.timeouts as f64,
                fast_retransmits: c.fast_retransmits as f64,
                back_to_back: c.back_to_back as f64,
                ecn_reductions: c.ecn_reductions as f64,
                ce_marks: c.ce_marks as f64,
                recovery_s: c.recovery_time.as_secs_f64(),
            },
            cwnd_final: fl.sender.cwnd(),
            cwnd_at_first_drop: fl.cwnd_at_first_drop,
            flight_at_first_drop: fl.flight_at_first_drop.map(|x| x as f64),
            cov_mean: self.probe.cov_mean(i),
            cov_windows: self.probe.cov_windows(i),
            convergence: self.probe.convergence(i),
            fair_share: None,
            rtt: fl.sender.rtt_samples.summary(),
        }
    }

    fn link_record(&self, li: usize) -> LinkRecord {
        let l = &self.links[li];
        let s = &self.link_snap[li];
        let (busy, busy_data) = l.busy_at(self.now);
        let drops = l.c.drops - s.c.drops;
        let overflow = l.c.drops_overflow - s.c.drops_overflow;
        let mut occupancy = Vec::new();
        let total: u128 = l.nsys_hist.iter().sum();
        if total > 0 {
            let last = l.nsys_hist.iter().rposition(|&x| x > 0).unwrap_or(0);
            occupancy = l.nsys_hist[..=last]
                .iter()
                .map(|&x| x as f64 / total as f64)
                .collect();
        }
        LinkRecord {
            name: l.name.clone(),
            rate_bps: l.rate.as_f64(),
            delay_s: l.delay.as_secs_f64(),
            shaped: l.shaper.is_some(),
            monitored: false,
            buffer: self.buffers[li].clone(),
            sync_gap: self.groupers[li].as_ref().map_or(Time::ZERO, |g| g.gap()),
            window: LinkCounts {
                arrivals: (l.c.arrivals - s.c.arrivals) as f64,
                drops_overflow: overflow as f64,
                drops_aqm: (drops - overflow) as f64,
                wire_losses: (l.c.random_losses - s.c.random_losses) as f64,
                tx_pkts: (l.c.tx_pkts - s.c.tx_pkts) as f64,
                tx_bytes: (l.c.tx_bytes - s.c.tx_bytes) as f64,
                busy_s: (busy - s.busy.0) as f64 / PS,
                busy_data_s: (busy_data - s.busy.1) as f64 / PS,
                q_area_pkts: (l.c.q_area_pkts - s.c.q_area_pkts) as f64 / PS,
                q_area_bytes: (l.c.q_area_bytes - s.c.q_area_bytes) as f64 / PS,
                departed: (l.c.dequeued - s.c.dequeued) as f64,
                sojourn_s: (l.c.sojourn_ps - s.c.sojourn_ps) as f64 / PS,
                ecn_marks: (l.queue.marks() - s.marks) as f64,
            },
            queue_max_pkts: l.max_pkts as f64,
            queue_max_bytes: l.max_bytes as f64,
            occupancy,
            tx_pkts_total: l.c.tx_pkts as f64,
            crossers: self.crossers[li],
            balance: l.balance(),
            capacity: l.dynamic().then(|| {
                let (o, u, ud) = l.capacity_at(self.now);
                Capacity {
                    offered_bits: o - s.cap.0,
                    used_bits: u - s.cap.1,
                    used_data_bits: ud - s.cap.2,
                }
            }),
            sojourn: l
                .sojourn
                .as_ref()
                .map(|h| {
                    // The packets that found the link idle waited 0 (not added one
                    // by one: they are the window's departures the histogram lacks).
                    let mut h = (**h).clone();
                    let departed = l.c.dequeued - s.c.dequeued;
                    h.add_zeros(departed.saturating_sub(h.count()));
                    h.summary()
                })
                .unwrap_or_default(),
        }
    }

    /// The records of the run, once it ended.
    pub fn records(&mut self, wall_s: f64) -> Records {
        let mut links: Vec<LinkRecord> =
            (0..self.links.len()).map(|l| self.link_record(l)).collect();
        for l in &self.monitored {
            links[l.0 as usize].monitored = true;
        }
        let mut flows: Vec<FlowRecord> = (0..self.flows.len())
            .filter(|&i| self.flows[i].slot.is_none())
            .map(|i| self.flow_record(i))
            .collect();
        // Workload instances: every finished one, then those still running.
        flows.append(&mut self.finished);
        for i in 0..self.flows.len() {
            if let Some((w, j)) = self.flows[i].slot {
                if self.workloads[w as usize].slots[j as usize].busy {
                    flows.push(self.instance_record(i));
                }
            }
        }
        let mut congestion = Vec::new();
        for l in &self.monitored {
            if let Some(g) = self.groupers[l.0 as usize].take() {
                congestion.extend(g.into_events());
            }
        }
        let window_start = self.warmup;
        let workloads = self
            .workloads
            .iter()
            .map(|wl| WorkloadRecord {
                name: wl.name.clone(),
                kind: wl.kind_name(),
                slots: wl.slots.len(),
                arrivals: wl.arrivals,
                blocked: wl.blocked,
                started: wl.started(),
                completed: wl.completed,
                drain_waits: wl.drain_waits,
                offered_bytes: wl.offered_bytes,
                offered_bytes_window: wl.offered_bytes_window,
                capacity_bps: wl.capacity.as_f64(),
            })
            .collect();
        Records {
            info: RunInfo {
                engine: EngineKind::Packet,
                name: self.name.clone(),
                seed: self.seed,
                duration: self.duration,
                warmup: window_start,
                end: self.now,
                wall_s,
                events: Some(self.events.processed()),
                steps: None,
                step_s: None,
                bottleneck: self.bottleneck.0 as usize,
                bdp_bytes: self.info.bdp_bytes,
                mean_rtt_s: self.info.mean_rtt,
                packet_size: self.info.packet_size,
                buffer: self.info.buffer_limit.clone(),
                tcp: self.info.tcp.clone(),
                sample_interval: self.sample_interval,
                fair_share_flows: self.fair_share_flows,
            },
            links,
            paths: self
                .paths
                .iter()
                .map(|p| p.iter().map(|l| l.0).collect())
                .collect(),
            flows,
            congestion,
            drops: std::mem::take(&mut self.drop_log),
            series: std::mem::take(&mut self.series),
            covs: std::mem::take(&mut self.probe.covs),
            sources: self
                .sources
                .iter()
                .map(|s| SourceRecord {
                    name: s.name.clone(),
                    sent: s.sent,
                    delivered: s.delivered,
                    dropped: s.dropped,
                })
                .collect(),
            workloads,
            conservation: Some(Conservation {
                sent: self.injected as f64,
                delivered: self.delivered as f64,
                dropped: self.dropped as f64,
                in_flight: self.in_flight() as f64,
            }),
        }
    }
}
