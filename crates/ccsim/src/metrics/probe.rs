//! The periodic metrics probe: per-flow throughput samples for the CoV (study 002
//! §7.3) and the 1 s throughputs of the convergence time (§7.4), kept online so that a
//! long run stores one number per flow and 5 s window, not every sample.
//!
//! An engine ticks it every `sample` with one `ProbeSample` per flow id; both engines
//! do, so both report CoV and convergence with one definition.

use super::convergence::reached;
use super::cov;
pub use crate::records::CovSample;
use crate::units::Time;

/// What the probe needs of one flow at a tick.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeSample {
    /// In-order payload bytes delivered to the receiver so far (of the current
    /// instance, for a workload slot).
    pub bytes: f64,
    pub start: Time,
    pub started: bool,
    /// When the receiver got the last byte.
    pub completed: Option<Time>,
    /// A workload slot, whose flows come and go: left out.
    pub slot: bool,
}

/// Probe settings resolved from `[metrics]`.
#[derive(Clone, Copy, Debug)]
pub struct ProbeConfig {
    /// Throughput sampling interval inside a CoV window.
    pub sample: Time,
    /// Samples per CoV window (window = sample · per_window).
    pub per_window: u32,
    /// Samples per convergence interval.
    pub conv_every: u32,
    pub fraction: f64,
    /// Index of the reference ("pre-existing") flow of the convergence time.
    pub reference: Option<usize>,
    /// Start of the measurement window: CoV windows starting earlier are reported in
    /// the series but left out of the per-flow mean.
    pub warmup: Time,
    /// Keep every window's CoV for the series (a run with `sample_interval`); without
    /// a series only the per-flow mean is kept, so memory does not grow with the
    /// duration.
    pub series: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct FlowProbe {
    last_bytes: f64,
    win: cov::Window,
    conv_bytes: f64,
    converged: Option<Time>,
    cov_sum: f64,
    cov_n: u32,
}

#[derive(Debug, Default)]
pub struct Probe {
    pub cfg: Option<ProbeConfig>,
    ticks: u64,
    flows: Vec<FlowProbe>,
    /// Every complete window's CoV, in time order.
    pub covs: Vec<CovSample>,
}

impl Probe {
    pub fn new(cfg: ProbeConfig) -> Self {
        Probe {
            cfg: Some(cfg),
            ..Default::default()
        }
    }

    /// The tick interval, if the probe is on.
    pub fn interval(&self) -> Option<Time> {
        self.cfg.map(|c| c.sample)
    }

    /// One tick at `now` (a multiple of the sample interval).
    pub fn tick(&mut self, now: Time, flows: &[ProbeSample]) {
        let Some(cfg) = self.cfg else { return };
        self.ticks += 1;
        if self.flows.len() < flows.len() {
            self.flows.resize(flows.len(), FlowProbe::default());
        }
        let dt = cfg.sample.as_secs_f64();
        let sample_start = Time(now.0.saturating_sub(cfg.sample.0));
        for (fl, p) in flows.iter().zip(self.flows.iter_mut()) {
            // Workload slots run a new flow now and then (traffic/): no series.
            if !fl.started || fl.slot {
                continue;
            }
            let b = fl.bytes;
            let thr = (b - p.last_bytes) * 8.0 / dt;
            p.last_bytes = b;
            // Only samples the flow lived through entirely: a window is complete iff
            // it holds `per_window` of them.
            let whole = fl.start <= sample_start && fl.completed.is_none_or(|c| c >= now);
            if whole {
                p.win.push(thr);
            }
        }
        if self.ticks.is_multiple_of(cfg.per_window as u64) {
            let win_start = Time(now.0.saturating_sub(cfg.sample.0 * cfg.per_window as u64));
            for (i, p) in self.flows.iter_mut().enumerate() {
                if p.win.len() == cfg.per_window {
                    if let Some(c) = p.win.cov() {
                        if cfg.series {
                            self.covs.push(CovSample {
                                end: now,
                                flow: i as u32,
                                cov: c,
                            });
                        }
                        if win_start >= cfg.warmup {
                            p.cov_sum += c;
                            p.cov_n += 1;
                        }
                    }
                }
                p.win = cov::Window::default();
            }
        }
        if self.ticks.is_multiple_of(cfg.conv_every as u64) {
            self.convergence_step(now, flows, cfg);
        }
    }

    fn convergence_step(&mut self, now: Time, flows: &[ProbeSample], cfg: ProbeConfig) {
        let span = (cfg.sample.0 * cfg.conv_every as u64) as f64 / 1e12;
        let thr_of = |p: &FlowProbe, fl: &ProbeSample| (fl.bytes - p.conv_bytes) * 8.0 / span;
        let reference = cfg
            .reference
            .filter(|&r| r < flows.len() && flows[r].started)
            .map(|r| (r, flows[r].start, thr_of(&self.flows[r], &flows[r])));
        for (i, (fl, p)) in flows.iter().zip(self.flows.iter_mut()).enumerate() {
            if fl.slot {
                continue; // a workload slot's bytes restart with each instance
            }
            if let Some((r, r_start, r_thr)) = reference {
                if i != r
                    && fl.started
                    && p.converged.is_none()
                    && fl.start >= r_start
                    && now > fl.start
                    && reached(thr_of(p, fl), r_thr, cfg.fraction)
                {
                    p.converged = Some(now - fl.start);
                }
            }
            p.conv_bytes = fl.bytes;
        }
    }

    /// Mean CoV of flow `i` over its complete windows inside the measurement window.
    pub fn cov_mean(&self, i: usize) -> f64 {
        match self.flows.get(i) {
            Some(p) if p.cov_n > 0 => p.cov_sum / p.cov_n as f64,
            _ => f64::NAN,
        }
    }

    /// Complete windows counted in `cov_mean`.
    pub fn cov_windows(&self, i: usize) -> u32 {
        self.flows.get(i).map_or(0, |p| p.cov_n)
    }

    /// Convergence time of flow `i`, if it converged.
    pub fn convergence(&self, i: usize) -> Option<Time> {
        self.flows.get(i).and_then(|p| p.converged)
    }
}
