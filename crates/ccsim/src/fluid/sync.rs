//! The loss-synchronization module of study 004 §4.3: at each congestion event k a
//! synchronization level m_k (how many flows record a loss) and a drop policy (which
//! ones). The selected flows' loss rates sum to the excess arrival rate (eq. 8).

use crate::random::{normal, unit, Rng};
use serde::de::{self, Deserializer};
use serde::Deserialize;

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
    pub fn validate(&self) -> Result<(), crate::scenario::ScenarioError> {
        if let Some(x) = self.min_level {
            if !(0.0..=1.0).contains(&x) {
                return Err(crate::scenario::ScenarioError::at(
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

/// Draw m_k for an event with `n` active flows (eq. 7 and 9: m_k ∈ [⌈X·N⌉, N], ≥ 1).
pub fn draw_level(level: Level, min_level: f64, n: usize, rng: &mut Rng) -> usize {
    if n == 0 {
        return 0;
    }
    let lo = ((min_level * n as f64).ceil() as usize).clamp(1, n);
    let m = match level {
        Level::All => n as f64,
        Level::Fixed(m) => m as f64,
        Level::Band => {
            let (a, b) = (lo as f64, n as f64);
            normal(rng, 0.5 * (a + b), 0.25 * (b - a))
        }
        Level::Normal { mean, sd } => normal(rng, mean, sd),
    };
    (m.round().max(0.0) as usize).clamp(lo, n)
}

/// Choose `m` of the candidates (`rates[i] > 0`) by the policy; writes their indices
/// into `out`. `scratch` is reused between events to avoid allocation.
pub fn select(
    policy: Policy,
    m: usize,
    rates: &[f64],
    rng: &mut Rng,
    scratch: &mut Vec<usize>,
    out: &mut Vec<usize>,
) {
    scratch.clear();
    scratch.extend((0..rates.len()).filter(|&i| rates[i] > 0.0));
    out.clear();
    let m = m.min(scratch.len());
    match policy {
        Policy::HighestRate => {
            // Highest arrival rate first; ties broken by index so runs are reproducible.
            scratch.sort_by(|&a, &b| rates[b].total_cmp(&rates[a]).then(a.cmp(&b)));
            out.extend_from_slice(&scratch[..m]);
        }
        Policy::Random => {
            // Partial Fisher–Yates.
            for k in 0..m {
                let j = k
                    + ((unit(rng) * (scratch.len() - k) as f64) as usize)
                        .min(scratch.len() - k - 1);
                scratch.swap(k, j);
            }
            out.extend_from_slice(&scratch[..m]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::stream;

    #[test]
    fn levels_are_clipped_to_the_study_range() {
        let mut r = stream(1, "t");
        for _ in 0..1000 {
            let m = draw_level(Level::Normal { mean: 1.0, sd: 5.0 }, 0.3, 10, &mut r);
            assert!((3..=10).contains(&m), "{m}");
        }
        assert_eq!(draw_level(Level::All, 0.0, 7, &mut r), 7);
        assert_eq!(draw_level(Level::Fixed(1), 1.0, 7, &mut r), 7);
        assert_eq!(draw_level(Level::Fixed(20), 0.0, 7, &mut r), 7);
    }

    #[test]
    fn highest_rate_first() {
        let mut r = stream(1, "t");
        let (mut s, mut o) = (Vec::new(), Vec::new());
        select(
            Policy::HighestRate,
            2,
            &[1.0, 5.0, 0.0, 3.0],
            &mut r,
            &mut s,
            &mut o,
        );
        assert_eq!(o, vec![1, 3]);
        select(
            Policy::Random,
            9,
            &[1.0, 5.0, 0.0, 3.0],
            &mut r,
            &mut s,
            &mut o,
        );
        o.sort();
        assert_eq!(o, vec![0, 1, 3]);
    }
}
