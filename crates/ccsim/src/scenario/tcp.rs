//! `[tcp]` and `flows[i].tcp`: the TCP options of a flow group, its congestion-control
//! algorithm (`cc`) and its pacer, as data with their checks. `net` turns them into
//! sender configurations.

use crate::quantity::{Dur, SizeQ};
use serde::Deserialize;

/// TCP options; `[tcp]` sets defaults, `flows[i].tcp` overrides them per group.
#[derive(Debug, Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct TcpOpts {
    /// Segment payload (default 1460 B).
    pub mss: Option<SizeQ>,
    /// IP + TCP header bytes on every packet (default 40 B).
    pub header: Option<SizeQ>,
    /// Initial window in segments (default 1).
    pub init_cwnd: Option<f64>,
    /// Initial ssthresh in segments (default 64, as the studies).
    pub init_ssthresh: Option<f64>,
    /// Receive window: a size (`"64KB"`), `"65pkt"`, or `"unlimited"` (default).
    pub rwnd: Option<String>,
    /// RFC 1122 delayed ACKs (default off) and their timeout (default 200 ms).
    pub delayed_ack: Option<bool>,
    pub delack_timeout: Option<Dur>,
    /// RFC 6298 minimum RTO (default 200 ms), maximum (60 s) and initial (1 s).
    pub min_rto: Option<Dur>,
    pub max_rto: Option<Dur>,
    pub initial_rto: Option<Dur>,
    /// RFC 7323 timestamps for RTT samples (default on; off: Karn's timed segment).
    pub timestamps: Option<bool>,
    /// Duplicate ACKs that trigger fast retransmit (default 3).
    pub dupthresh: Option<u32>,
    /// `"none"` (default), `"leaky"`, `"rate"`, or a table (see tcp::pacer).
    pub pacing: Option<PacingSpec>,
    /// RFC 3168 ECN: data sent ECN-capable, the sender halves once per window on
    /// ECN-Echo (default off).
    pub ecn: Option<bool>,
    /// RFC 7661 spirit (Linux `tcp_is_cwnd_limited`): a window that did not limit
    /// sending (pacer, receive window or application) does not grow (default off, as
    /// ns-2).
    pub cwnd_validation: Option<bool>,
}

impl TcpOpts {
    /// Fields set here override those of `base`.
    pub fn over(&self, base: &TcpOpts) -> TcpOpts {
        macro_rules! pick {
            ($($f:ident),*) => { TcpOpts { $($f: self.$f.clone().or_else(|| base.$f.clone())),* } };
        }
        pick!(
            mss,
            header,
            init_cwnd,
            init_ssthresh,
            rwnd,
            delayed_ack,
            delack_timeout,
            min_rto,
            max_rto,
            initial_rto,
            timestamps,
            dupthresh,
            pacing,
            ecn,
            cwnd_validation
        )
    }
}

/// `cc = "newreno"` or `cc = { name = "fast", alpha = 200 }`.
#[derive(Debug, Clone)]
pub struct CcSpec {
    pub name: String,
    pub params: toml::value::Table,
}

impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = toml::Value::deserialize(d)?;
        let spec = match v {
            toml::Value::String(name) => CcSpec {
                name,
                params: Default::default(),
            },
            toml::Value::Table(mut t) => {
                let name = match t.remove("name") {
                    Some(toml::Value::String(s)) => s,
                    _ => {
                        return Err(D::Error::custom(
                            "expected { name = \"...\", ... } with a string name",
                        ))
                    }
                };
                CcSpec { name, params: t }
            }
            other => {
                return Err(D::Error::custom(format!(
                    "expected an algorithm name like \"newreno\", got {other}"
                )))
            }
        };
        // Validate the name and parameters here so the error carries the field path.
        crate::cc::build(&spec.name, &spec.params).map_err(D::Error::custom)?;
        Ok(spec)
    }
}

impl Default for CcSpec {
    fn default() -> Self {
        CcSpec {
            name: "newreno".into(),
            params: Default::default(),
        }
    }
}

/// Receive window in segments: `"unlimited"`, `"65pkt"` or a size in bytes.
pub fn parse_rwnd(s: &str, mss: u32) -> Result<u64, String> {
    let s = s.trim();
    if s == "unlimited" {
        return Ok(u64::MAX);
    }
    if let Some(n) = s.strip_suffix("pkt") {
        return n
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("expected \"unlimited\", \"64pkt\" or a size, got \"{s}\""));
    }
    let b = crate::units::parse_bytes(s)?;
    Ok((b / mss as u64).max(1))
}

/// A pacer, resolved from `tcp.pacing` (tcp/pacer.rs implements it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pacing {
    None,
    /// RTT/cwnd between packets (studies 000 and 001); bucket `depth` packets.
    Leaky {
        depth: f64,
    },
    /// factor·cwnd/SRTT, `ss_factor` in slow start and `ca_factor` after.
    Rate {
        ss_factor: f64,
        ca_factor: f64,
        depth: f64,
    },
}

/// `pacing = "leaky"` or `pacing = { kind = "rate", ca_factor = 1.25, depth = 2 }`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum PacingSpec {
    Name(String),
    Table(PacingTable),
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PacingTable {
    pub kind: String,
    pub depth: Option<f64>,
    pub ss_factor: Option<f64>,
    pub ca_factor: Option<f64>,
}

impl PacingSpec {
    /// The pacer this spec asks for, checked.
    pub fn resolve(&self) -> Result<Pacing, String> {
        let (kind, depth, ss, ca) = match self {
            PacingSpec::Name(n) => (n.as_str(), None, None, None),
            PacingSpec::Table(t) => (t.kind.as_str(), t.depth, t.ss_factor, t.ca_factor),
        };
        let depth = depth.unwrap_or(1.0);
        if depth.is_nan() || depth < 1.0 {
            return Err(format!("depth must be at least one packet, got {depth}"));
        }
        let mode = match kind {
            "none" => Pacing::None,
            "leaky" => Pacing::Leaky { depth },
            "rate" => Pacing::Rate {
                ss_factor: ss.unwrap_or(2.0),
                ca_factor: ca.unwrap_or(1.2),
                depth,
            },
            other => {
                return Err(format!(
                    "unknown pacing \"{other}\" (known: none, leaky, rate)"
                ))
            }
        };
        if let Pacing::Rate {
            ss_factor,
            ca_factor,
            ..
        } = mode
        {
            if ss_factor.is_nan() || ss_factor <= 0.0 || ca_factor.is_nan() || ca_factor <= 0.0 {
                return Err("pacing factors must be positive".into());
            }
        }
        if !matches!(mode, Pacing::Rate { .. }) && (ss.is_some() || ca.is_some()) {
            return Err(format!("\"{kind}\" pacing has no factors"));
        }
        Ok(mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_errors() {
        assert!(PacingSpec::Name("warp".into())
            .resolve()
            .unwrap_err()
            .contains("warp"));
        let t = PacingTable {
            kind: "leaky".into(),
            depth: Some(0.5),
            ss_factor: None,
            ca_factor: None,
        };
        assert!(PacingSpec::Table(t).resolve().is_err());
    }
}
