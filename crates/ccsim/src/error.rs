//! The errors a user can meet: a bad scenario (the message names the field path) and
//! the ways a run can end without results.

/// A scenario that cannot run, with the field at fault first:
/// `flows[2].start: expected a duration like "10s", got "ten"`.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{0}")]
pub struct ScenarioError(pub String);

impl ScenarioError {
    /// An error at field `path` (`topology.buffer`, `flows[1].cc`).
    pub fn at(path: &str, msg: impl std::fmt::Display) -> Self {
        ScenarioError(format!("{path}: {msg}"))
    }
}

/// Why a run produced no results.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// The progress callback asked to stop.
    #[error("interrupted")]
    Interrupted,
    /// Writing an output file (a pcap trace) failed.
    #[error("{0}")]
    Output(String),
}
