//! Building the packet world from a scenario's plan (`net::plan`).

use super::{DropLogging, Flow, LinkSnap, PathTable, Source, World};
use crate::error::{RunError, ScenarioError};
use crate::metrics::probe::{Probe, ProbeConfig};
use crate::metrics::sync::{default_gap, EventGrouper};
use crate::net::{limit_text, Link, Owner, Plan};
use crate::queue::{build_queue, Drops, Limit};
use crate::random::stream;
use crate::records::SeriesBuf;
use crate::scenario::Scenario;
use crate::sim::EventQueue;
use crate::traffic::Workload;
use crate::units::Time;
use std::path::Path;

/// Largest number-in-system histogram kept per reported link (bins of one packet).
const MAX_OCCUPANCY_BINS: u64 = 4096;

impl World {
    /// The world of a packet-engine scenario, from its plan, its random streams
    /// derived from `seed`.
    pub fn build(sc: &Scenario, plan: &Plan, seed: u64) -> Result<World, ScenarioError> {
        let mut links: Vec<Link> = Vec::with_capacity(plan.links.len());
        for (id, lp) in plan.links.iter().enumerate() {
            let mut link = Link::new(
                lp.name.clone(),
                lp.from,
                lp.to,
                lp.rate,
                lp.delay,
                build_queue(&lp.queue, lp.limit, lp.rate, seed ^ ((id as u64) << 48)),
                stream(seed, &format!("link/{id}/loss")),
            );
            link.loss = lp.loss;
            link.trace = lp.trace.clone();
            link.shaper = lp
                .shaper_burst
                .map(|b| Box::new(crate::net::link::TokenBucket::new(b)));
            link.jitter = lp.jitter.clone().map(Box::new);
            link.update_slow();
            if lp.monitor {
                link.monitor = true;
                link.sojourn = Some(Box::new(crate::metrics::hist::DelayHist::new()));
                // Number-in-system distribution for queueing validations.
                let bins = match lp.limit {
                    Limit::Packets(n) => n.saturating_add(2).min(MAX_OCCUPANCY_BINS),
                    Limit::Bytes(b) => (b / 40).saturating_add(2).min(MAX_OCCUPANCY_BINS),
                };
                link.nsys_hist = vec![0; bins as usize];
            }
            links.push(link);
        }

        let mut flows = Vec::with_capacity(plan.flows.len());
        for (i, p) in plan.flows.iter().enumerate() {
            let tmpl = &plan.templates[p.template];
            let (mut sender, mut receiver) =
                tmpl.endpoints(i as u32, p.data_path, p.ack_path, p.size, p.rtt_prop);
            sender.seed_cc(crate::random::cc_seed(seed, i as u32, 0));
            receiver.seed_reads(crate::random::read_seed(seed, i as u32, 0));
            let mut fl = Flow::new(
                sender,
                receiver,
                p.group.clone(),
                p.cc.clone(),
                p.reverse,
                p.start,
                p.rtt_prop,
                p.size,
            );
            fl.stop = p.stop;
            match p.owner {
                Owner::Group(g) => fl.set_forced_drops(&sc.flows[g].drop_segments),
                Owner::Workload(w, j) => fl.slot = Some((w as u32, j as u32)),
            }
            flows.push(fl);
        }

        let sources = plan
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| Source {
                name: s.name.clone(),
                path: s.path,
                mean_gap: s.mean_gap,
                size: s.size.clone(),
                rng: stream(seed, &format!("poisson/{i}")),
                start: s.start,
                stop: s.stop,
                sent: 0,
                delivered: 0,
                dropped: 0,
            })
            .collect();

        let workloads = plan
            .workloads
            .iter()
            .zip(&sc.workloads)
            .enumerate()
            .map(|(w, (pw, spec))| {
                let mss = plan.templates[pw.template].cfg.mss;
                Workload::new(spec, w, seed, pw.slots.len(), mss, pw.capacity)
            })
            .collect();

        // The CoV and convergence probe (docs/metrics.md), always on.
        let m = &sc.metrics;
        let (sample, per_window, conv_every, fraction) = m.resolve()?;
        // The reference of the convergence time: the one static flow of that group
        // (the scenario checked there is exactly one).
        let reference = m.converge_to.as_ref().and_then(|name| {
            plan.flows
                .iter()
                .position(|f| &f.group == name && matches!(f.owner, Owner::Group(_)))
        });
        let probe = Probe::new(ProbeConfig {
            sample,
            per_window,
            conv_every,
            fraction,
            reference,
            warmup: sc.warmup.0,
            series: sc.sample_interval.is_some(),
        });

        // Congestion events at every reported queue, the gap between events being
        // `metrics.sync_gap` or the mean RTT of the flows crossing it.
        let mut groupers: Vec<Option<EventGrouper>> = vec![None; links.len()];
        for l in &plan.monitored {
            let gap = match m.sync_gap {
                Some(d) => d.0,
                None => default_gap(
                    plan.flows
                        .iter()
                        .filter(|f| plan.paths[f.data_path as usize].contains(l))
                        .map(|f| f.rtt_prop),
                    plan.info.mean_rtt,
                ),
            };
            groupers[l.0 as usize] = Some(EventGrouper::new(l.0, gap));
        }

        let nl = links.len();
        Ok(World {
            now: Time::ZERO,
            events: EventQueue::default(),
            links,
            paths: PathTable::new(&plan.paths),
            flows,
            sources,
            duration: sc.duration.0,
            warmup: sc.warmup.0,
            sample_interval: sc.sample_interval.map(|d| d.0),
            monitored: plan.monitored.clone(),
            bottleneck: plan.bottleneck,
            link_snap: vec![LinkSnap::default(); nl],
            series: SeriesBuf::default(),
            last_busy: vec![0; nl],
            injected: 0,
            delivered: 0,
            dropped: 0,
            out: Vec::with_capacity(256),
            drops: Drops::default(),
            qrng: stream(seed, "queues"),
            ended: false,
            any_forced_drops: false,
            track_in_net: false,
            probe,
            probe_scratch: Vec::new(),
            groupers,
            drop_logging: if sc.output.events {
                DropLogging::All
            } else {
                DropLogging::Off
            },
            drop_log: Vec::new(),
            drop_log_limit: usize::try_from(sc.output.drop_log_limit()).unwrap_or(usize::MAX),
            drops_unlogged: 0,
            pcap: None,
            last_drops: vec![0; nl],
            link_changes: plan.events.clone(),
            last_cap: vec![(0.0, 0.0); nl],
            templates: plan.templates.clone(),
            workloads,
            slot_ids: plan.workloads.iter().map(|w| w.slots.clone()).collect(),
            finished: Vec::new(),
            actions: Vec::new(),
            crossers: plan.crossers.clone(),
            fair_share_flows: m.fair_share_flows,
            name: sc.name.clone().unwrap_or_else(|| "unnamed".into()),
            seed,
            info: plan.info.clone(),
            buffers: plan.links.iter().map(|l| limit_text(l.limit)).collect(),
        })
    }

    /// The links `output.pcap` names, checked: known and listed once.
    pub fn pcap_links(&self, sc: &Scenario) -> Result<Vec<usize>, ScenarioError> {
        let mut taps: Vec<usize> = Vec::new();
        for (i, name) in sc.output.pcap.iter().enumerate() {
            let Some(l) = self.links.iter().position(|l| &l.name == name) else {
                let known: Vec<&str> = self.links.iter().take(6).map(|l| l.name.as_str()).collect();
                let more = if self.links.len() > 6 { ", ..." } else { "" };
                return Err(ScenarioError::at(
                    &format!("output.pcap[{i}]"),
                    format!(
                        "no link named \"{name}\" (links: {}{more})",
                        known.join(", ")
                    ),
                ));
            };
            if taps.contains(&l) {
                return Err(ScenarioError::at(
                    &format!("output.pcap[{i}]"),
                    format!("link \"{name}\" is listed twice"),
                ));
            }
            taps.push(l);
        }
        Ok(taps)
    }

    /// Trace the links `output.pcap` names into `<dir>/<link name>.pcap`.
    pub fn open_pcap(&mut self, sc: &Scenario, dir: &Path) -> Result<(), RunError> {
        let taps: Vec<(usize, std::path::PathBuf)> = self
            .pcap_links(sc)?
            .into_iter()
            .map(|l| (l, dir.join(format!("{}.pcap", self.links[l].name))))
            .collect();
        if taps.is_empty() {
            return Ok(());
        }
        let flows = self
            .flows
            .iter()
            .map(|f| crate::pcap::FlowInfo {
                mss: f.sender.cfg.mss,
                bytes: f.size_bytes.unwrap_or(u64::MAX),
            })
            .collect();
        std::fs::create_dir_all(dir)
            .map_err(|e| RunError::Output(format!("pcap directory {}: {e}", dir.display())))?;
        let snaplen = sc.output.pcap_snaplen.unwrap_or(128);
        let t = crate::pcap::Taps::open(self.links.len(), &taps, snaplen, flows).map_err(|e| {
            RunError::Output(format!("opening a pcap file in {}: {e}", dir.display()))
        })?;
        self.pcap = Some(t);
        Ok(())
    }

    /// Flush and close the pcap traces: the files and their packet counts.
    pub fn close_pcap(&mut self) -> Result<Vec<(std::path::PathBuf, u64)>, RunError> {
        let Some(t) = self.pcap.take() else {
            return Ok(Vec::new());
        };
        t.finish()
            .map_err(|e| RunError::Output(format!("writing a pcap trace: {e}")))
    }
}
