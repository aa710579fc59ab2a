//! `[fluid]`: options only the fluid engine reads, and the loss-synchronization
//! module of study 004 §4.3 (its level m_k and drop policy).

use crate::error::ScenarioError;
use crate::quantity::Dur;
use serde::de::{self, Deserializer};
use serde::Deserialize;

/// `[fluid]`: options only the fluid engine reads. The queue discipline is the
/// scenario's own `topology.queue` (drop-tail or RED), not a fluid option.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluidSpec {
    /// Integration step; default: the smallest propagation RTT / 100 (see `step_for`).
    pub step: Option<Dur>,
    /// Loss synchronization (study 004 §4.3); absent: every flow loses (eq. 5–6).
    pub sync: Option<SyncSpec>,
    /// How a loss signal lowers the window; default: once per RTT, as TCP.
    #[serde(default)]
    pub cut: Cut,
}

/// `cut`: how the losses a flow records lower its window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cut {
    /// One multiplicative decrease W ← (1 − b)·W per loss indication, at most once per
    /// RTT (TCP's fast recovery: the losses of one window are one signal). The default.
    #[default]
    PerRtt,
    /// Study 004 eq. (2) per lost packet: every lost packet cuts W ← (1 − b)·W, so a
    /// step that loses n packets gives W·(1 − b)^n (eq. 2's −W·b·λ to first order),
    /// with no once-per-RTT rule. Opt-in; not TCP's behaviour.
    PerPacket,
}

impl FluidSpec {
    /// Checks that types alone cannot express.
    pub fn check(&self) -> Result<(), ScenarioError> {
        if let Some(s) = self.step {
            if s.0 == crate::units::Time::ZERO {
                return Err(ScenarioError::at("fluid.step", "must be positive"));
            }
        }
        if let Some(s) = &self.sync {
            s.validate()?;
        }
        Ok(())
    }
}

/// `level = 3`, `level = "all"`, `level = { normal = { mean = 5, sd = 2 } }`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    /// Every active flow: the classical model (eq. 5–6).
    All,
    /// m_k = m at every event.
    Fixed(u32),
    /// m_k drawn per event from N(mean, sd²), rounded, clipped to [⌈X·N⌉, N] (eq. 9).
    Normal { mean: f64, sd: f64 },
    /// Only X given: the study draws m_k from a normal inside (X·N, N); centred there,
    /// with ±2 sd spanning the interval (resolved per event, as N varies).
    Band,
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        let bad = || {
            de::Error::custom(format!(
                "expected a number of flows (3), \"all\" or {{ normal = {{ mean = 5, sd = 2 }} }}, got {v}"
            ))
        };
        let as_num = |x: &toml::Value| x.as_float().or(x.as_integer().map(|i| i as f64));
        match &v {
            toml::Value::String(s) if s == "all" => Ok(Level::All),
            toml::Value::Integer(i) if *i >= 1 && *i <= u32::MAX as i64 => {
                Ok(Level::Fixed(*i as u32))
            }
            toml::Value::Integer(_) => Err(de::Error::custom(format!(
                "a synchronization level is at least 1 flow, got {v}"
            ))),
            toml::Value::Table(t) if t.len() == 1 && t.contains_key("normal") => {
                let n = t["normal"].as_table().ok_or_else(bad)?;
                if let Some(k) = n.keys().find(|k| *k != "mean" && *k != "sd") {
                    return Err(de::Error::custom(format!("normal: unknown field \"{k}\"")));
                }
                let mean = n.get("mean").and_then(as_num).ok_or_else(bad)?;
                let sd = n.get("sd").and_then(as_num).ok_or_else(bad)?;
                if !(mean.is_finite() && sd.is_finite() && sd >= 0.0) {
                    return Err(de::Error::custom(format!(
                        "normal: needs a finite mean and sd >= 0, got mean {mean}, sd {sd}"
                    )));
                }
                Ok(Level::Normal { mean, sd })
            }
            _ => Err(bad()),
        }
    }
}

/// Which flows take the loss (the priority matrix P^k of §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The m_k flows with the highest arrival rate at the queue (study 004 §4.4).
    #[default]
    HighestRate,
    /// m_k flows drawn uniformly without replacement.
    Random,
}

/// `[fluid.sync]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncSpec {
    /// m_k; default: drawn from a normal over [X·N, N] when `min_level` is given,
    /// otherwise "all".
    pub level: Option<Level>,
    /// X of eq. 9: at least ⌈X·N⌉ flows lose at every event (0..=1).
    pub min_level: Option<f64>,
    #[serde(default)]
    pub policy: Policy,
}

impl SyncSpec {
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if let Some(x) = self.min_level {
            if !(0.0..=1.0).contains(&x) {
                return Err(ScenarioError::at(
                    "fluid.sync.min_level",
                    format!("must be in [0, 1], got {x}"),
                ));
            }
        }
        Ok(())
    }

    /// The level rule with defaults resolved.
    pub fn level(&self) -> Level {
        match (self.level, self.min_level) {
            (Some(l), _) => l,
            (None, Some(_)) => Level::Band,
            (None, None) => Level::All,
        }
    }
}
