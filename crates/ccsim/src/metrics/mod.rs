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
