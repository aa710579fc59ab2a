//! `[metrics]`: how the metrics of docs/metrics.md are measured (CoV windows, the
//! convergence reference, the congestion-event gap, the ideal latency's fair share).

use crate::error::ScenarioError;
use crate::quantity::Dur;
use crate::units::Time;
use serde::Deserialize;

/// `[metrics]`: how the metrics of docs/metrics.md are measured.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSpec {
    /// CoV window (default 5 s, study 002 §7.3).
    pub cov_window: Option<Dur>,
    /// Throughput sampling interval inside a CoV window (default 100 ms).
    pub cov_sample: Option<Dur>,
    /// Name of the flow group (of one flow) the convergence time is measured against.
    pub converge_to: Option<String>,
    /// Interval of the throughputs compared for convergence (default 1 s, study 002).
    pub convergence_interval: Option<Dur>,
    /// Fraction of the reference's throughput that counts as converged (default 0.8).
    pub convergence_fraction: Option<f64>,
    /// Gap between drops that separates congestion events (default: the mean
    /// propagation RTT of the flows crossing the queue).
    pub sync_gap: Option<Dur>,
    /// Flows sharing a link in the ideal latency's fair share (default: the flows
    /// crossing it that are active when the flow starts).
    pub fair_share_flows: Option<u32>,
}

impl MetricsSpec {
    /// (CoV sample interval, samples per CoV window, samples per convergence interval,
    /// convergence fraction), checked; errors name the field.
    pub fn resolve(&self) -> Result<(Time, u32, u32, f64), ScenarioError> {
        let sample = self.cov_sample.map_or(Time::from_millis(100), |d| d.0);
        if sample == Time::ZERO {
            return Err(ScenarioError::at("metrics.cov_sample", "must be positive"));
        }
        let multiple = |field: &str, d: Time| -> Result<u32, ScenarioError> {
            let k = d.0 / sample.0;
            if !d.0.is_multiple_of(sample.0) || k == 0 || k > u32::MAX as u64 {
                return Err(ScenarioError::at(
                    field,
                    format!("must be a multiple of metrics.cov_sample ({sample}), got {d}"),
                ));
            }
            Ok(k as u32)
        };
        let per_window = multiple(
            "metrics.cov_window",
            self.cov_window.map_or(Time::from_secs(5), |d| d.0),
        )?;
        if per_window < 2 {
            return Err(ScenarioError::at(
                "metrics.cov_window",
                "must hold at least two samples of metrics.cov_sample",
            ));
        }
        let conv = multiple(
            "metrics.convergence_interval",
            self.convergence_interval
                .map_or(Time::from_secs(1), |d| d.0),
        )?;
        let fraction = self.convergence_fraction.unwrap_or(0.8);
        if !(fraction > 0.0 && fraction.is_finite()) {
            return Err(ScenarioError::at(
                "metrics.convergence_fraction",
                format!("must be positive, got {fraction}"),
            ));
        }
        if self.sync_gap.is_some_and(|d| d.0 == Time::ZERO) {
            return Err(ScenarioError::at("metrics.sync_gap", "must be positive"));
        }
        if self.fair_share_flows == Some(0) {
            return Err(ScenarioError::at(
                "metrics.fair_share_flows",
                "must be at least 1",
            ));
        }
        Ok((sample, per_window, conv, fraction))
    }
}
