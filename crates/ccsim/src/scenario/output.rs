//! `[output]`: what a run produces besides the summary, series and flow table.

use crate::error::ScenarioError;
use serde::Deserialize;

/// `[output]`: what a run produces besides the summary, series and flow table.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Return the events table (every drop, every congestion event): events.parquet.
    #[serde(default)]
    pub events: bool,
    /// Links traced into `<link name>.pcap` (docs/metrics.md#pcap).
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Bytes kept of each packet (default 128: every synthesized header whole).
    pub pcap_snaplen: Option<u32>,
    /// Links with statistics and series: `"monitored"` (the topology's, default) or
    /// `"all"`.
    #[serde(default)]
    pub links: LinkReport,
    /// Most drops kept in the events table (default 1 000 000, about 200 MB): the log
    /// stops there, the counters go on, and the summary's `drop_log` says how many
    /// drops were left out, so that a long run's memory stays flat.
    pub drop_log_limit: Option<u64>,
}

/// The drop log's length when `output.drop_log_limit` is not given.
pub const DEFAULT_DROP_LOG_LIMIT: u64 = 1_000_000;

impl OutputSpec {
    /// Most drops the events table keeps.
    pub fn drop_log_limit(&self) -> u64 {
        self.drop_log_limit.unwrap_or(DEFAULT_DROP_LOG_LIMIT)
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LinkReport {
    #[default]
    Monitored,
    All,
}

impl OutputSpec {
    /// Checks that need no built topology.
    pub fn check(&self) -> Result<(), ScenarioError> {
        if let Some(s) = self.pcap_snaplen {
            if s < 20 {
                return Err(ScenarioError::at(
                    "output.pcap_snaplen",
                    format!("must hold at least the 20-byte IPv4 header, got {s}"),
                ));
            }
        }
        Ok(())
    }
}
