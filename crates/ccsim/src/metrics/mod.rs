//! Metric definitions (one each, used everywhere; see DESIGN.md "Metrics" and
//! docs/metrics.md) and the columnar tables a run produces.

pub mod convergence;
pub mod cov;
pub mod fairness;
pub mod latency;
pub mod probe;
pub mod report;
pub mod sync;

pub use fairness::{jain, jain_rtt};

use crate::scenario::quantity::Dur;
use crate::scenario::ScenarioError;
use crate::units::Time;
use serde::Deserialize;

/// `[metrics]`: how the metrics of DESIGN.md are measured (docs/metrics.md).
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

/// A column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    /// Codes into the table's category list for this column.
    Cat(Vec<u8>, Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Cat(v, _) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A table as named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, c: Column) {
        self.columns.push((name.to_string(), c));
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn f64(&self, name: &str) -> Option<&[f64]> {
        match self.get(name)? {
            Column::F64(v) => Some(v),
            _ => None,
        }
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}

/// Build a categorical column from strings.
pub fn categorical<S: AsRef<str>>(values: &[S]) -> Column {
    let mut cats: Vec<String> = Vec::new();
    let codes = values
        .iter()
        .map(|v| {
            let v = v.as_ref();
            match cats.iter().position(|c| c == v) {
                Some(i) => i as u8,
                None => {
                    cats.push(v.to_string());
                    (cats.len() - 1) as u8
                }
            }
        })
        .collect();
    Column::Cat(codes, cats)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SeriesMetric {
    Utilization = 0,
    QueuePkts = 1,
    QueueBytes = 2,
    Throughput = 3,
    Cwnd = 4,
    Ssthresh = 5,
    /// Per flow: CoV of the throughput over the window ending at `time`.
    Cov = 6,
    /// Per link: drops at the queue during the sample interval.
    Drops = 7,
    /// Per link: RTT-normalized Jain fairness of the interval's throughputs of the
    /// flows crossing it (study 001).
    JainRtt = 8,
}

pub const SERIES_METRICS: &[&str] = &[
    "utilization",
    "queue_pkts",
    "queue_bytes",
    "throughput_bps",
    "cwnd_pkts",
    "ssthresh_pkts",
    "cov",
    "drops",
    "jain_rtt",
];
pub const SERIES_ENTITIES: &[&str] = &["link", "flow"];

/// Sampled time series in tidy form: (time, entity, id, metric, value).
#[derive(Default, Debug)]
pub struct SeriesBuf {
    pub time: Vec<f64>,
    pub entity: Vec<u8>,
    pub id: Vec<i32>,
    pub metric: Vec<u8>,
    pub value: Vec<f64>,
}

impl SeriesBuf {
    pub fn push_link(&mut self, t: f64, id: u32, m: SeriesMetric, v: f64) {
        self.push(t, 0, id, m, v);
    }
    pub fn push_flow(&mut self, t: f64, id: u32, m: SeriesMetric, v: f64) {
        self.push(t, 1, id, m, v);
    }
    fn push(&mut self, t: f64, e: u8, id: u32, m: SeriesMetric, v: f64) {
        self.time.push(t);
        self.entity.push(e);
        self.id.push(id as i32);
        self.metric.push(m as u8);
        self.value.push(v);
    }
    pub fn into_table(self) -> Table {
        let mut t = Table::default();
        t.push("time", Column::F64(self.time));
        t.push(
            "entity",
            Column::Cat(
                self.entity,
                SERIES_ENTITIES.iter().map(|s| s.to_string()).collect(),
            ),
        );
        t.push("id", Column::I32(self.id));
        t.push(
            "metric",
            Column::Cat(
                self.metric,
                SERIES_METRICS.iter().map(|s| s.to_string()).collect(),
            ),
        );
        t.push("value", Column::F64(self.value));
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categorical_codes() {
        match categorical(&["a", "b", "a"]) {
            Column::Cat(c, cats) => {
                assert_eq!(c, vec![0, 1, 0]);
                assert_eq!(cats, vec!["a", "b"]);
            }
            _ => unreachable!(),
        }
    }
}
