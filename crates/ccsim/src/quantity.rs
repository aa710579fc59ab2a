//! Scenario values with units, and distributions over them, as serde types whose
//! errors say what was expected and what was found.

use crate::random::{Dist, Law};
use crate::units::{parse_bytes, Rate, Time};
use serde::de::{self, Deserializer};
use serde::Deserialize;

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// A duration such as `"30ms"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dur(pub Time);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::String(s) => Time::parse(s).map(Dur).map_err(de::Error::custom),
            _ => Err(de::Error::custom(format!(
                "expected a duration like \"10s\", got {}",
                value_text(&v)
            ))),
        }
    }
}

/// A rate such as `"622Mbps"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateQ(pub Rate);

impl<'de> Deserialize<'de> for RateQ {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::String(s) => Rate::parse(s).map(RateQ).map_err(de::Error::custom),
            _ => Err(de::Error::custom(format!(
                "expected a rate like \"100Mbps\", got {}",
                value_text(&v)
            ))),
        }
    }
}

/// A link's rate: a constant (`"100Mbps"`) or a Mahimahi delivery trace
/// (`{ trace = "traces/cell.mahimahi" }`, relative to the scenario file).
#[derive(Clone, Debug, PartialEq)]
pub enum RateSpec {
    Fixed(RateQ),
    Trace(String),
}

impl RateSpec {
    /// The constant rate, if it is one.
    pub fn fixed(&self) -> Option<Rate> {
        match self {
            RateSpec::Fixed(r) => Some(r.0),
            RateSpec::Trace(_) => None,
        }
    }
    pub fn trace(&self) -> Option<&str> {
        match self {
            RateSpec::Fixed(_) => None,
            RateSpec::Trace(t) => Some(t),
        }
    }
}

impl<'de> Deserialize<'de> for RateSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::String(s) => Rate::parse(s)
                .map(|r| RateSpec::Fixed(RateQ(r)))
                .map_err(de::Error::custom),
            toml::Value::Table(t) if t.len() == 1 && t.contains_key("trace") => match &t["trace"] {
                toml::Value::String(s) if !s.is_empty() => Ok(RateSpec::Trace(s.clone())),
                other => Err(de::Error::custom(format!(
                    "trace: expected a file name like \"traces/cell.mahimahi\", got {}",
                    value_text(other)
                ))),
            },
            _ => Err(de::Error::custom(format!(
                "expected a rate like \"100Mbps\" or {{ trace = \"file.mahimahi\" }}, got {}",
                value_text(&v)
            ))),
        }
    }
}

/// A size in bytes such as `"1460B"` or `"64KB"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizeQ(pub u64);

impl<'de> Deserialize<'de> for SizeQ {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::String(s) => parse_bytes(s).map(SizeQ).map_err(de::Error::custom),
            _ => Err(de::Error::custom(format!(
                "expected a size like \"1500B\", got {}",
                value_text(&v)
            ))),
        }
    }
}

/// What a distribution's values are: the parser for one scalar.
pub trait Unit {
    const WHAT: &'static str;
    fn parse(v: &toml::Value) -> Result<f64, String>;
}

/// Durations, in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Secs;
impl Unit for Secs {
    const WHAT: &'static str = "a duration like \"10ms\"";
    fn parse(v: &toml::Value) -> Result<f64, String> {
        match v {
            toml::Value::String(s) => Time::parse(s).map(|t| t.as_secs_f64()),
            _ => Err(format!("expected {}, got {}", Self::WHAT, value_text(v))),
        }
    }
}

/// Sizes in bytes; `"30pkt"` is allowed and resolved later against the MSS, so it is
/// kept as a negative number of packets here (see `DistSpec::resolve_packets`).
#[derive(Debug, Clone, PartialEq)]
pub struct ByteSize;
impl Unit for ByteSize {
    const WHAT: &'static str = "a size like \"1000B\" or \"30pkt\"";
    fn parse(v: &toml::Value) -> Result<f64, String> {
        match v {
            toml::Value::String(s) => {
                if let Some(n) = s.trim().strip_suffix("pkt") {
                    let n: f64 = n
                        .trim()
                        .parse()
                        .map_err(|_| format!("expected {}, got {}", Self::WHAT, value_text(v)))?;
                    if n <= 0.0 {
                        return Err(format!("a size must be positive, got {}", value_text(v)));
                    }
                    Ok(-n)
                } else {
                    parse_bytes(s).map(|b| b as f64)
                }
            }
            _ => Err(format!("expected {}, got {}", Self::WHAT, value_text(v))),
        }
    }
}

/// A distribution over a unit: a plain value (fixed), or an inline table:
/// `{ uniform = [a, b] }`, `{ exponential = mean }`, `{ pareto = { shape, mean } }`,
/// `{ normal = { mean, sd } }`.
#[derive(Clone, Debug, PartialEq)]
pub struct DistSpec<U: Unit> {
    pub dist: Dist,
    _u: std::marker::PhantomData<U>,
}

impl<U: Unit> DistSpec<U> {
    pub fn fixed(v: f64) -> Self {
        DistSpec {
            dist: Dist::Fixed(v),
            _u: Default::default(),
        }
    }

    fn from_value(v: &toml::Value) -> Result<Self, String> {
        let dist = match v {
            toml::Value::Table(t) => {
                if t.len() != 1 {
                    return Err(format!(
                        "a distribution is one of {{ uniform = [a, b] }}, {{ exponential = mean }}, {{ pareto = {{ shape = s, mean = m }} }}, {{ normal = {{ mean = m, sd = s }} }}; got {}",
                        value_text(v)
                    ));
                }
                let (k, inner) = t.iter().next().unwrap();
                match k.as_str() {
                    "uniform" => {
                        let arr = inner.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
                            format!("uniform: expected [low, high], got {}", value_text(inner))
                        })?;
                        let a = U::parse(&arr[0]).map_err(|e| format!("uniform: {e}"))?;
                        let b = U::parse(&arr[1]).map_err(|e| format!("uniform: {e}"))?;
                        if b < a {
                            return Err(format!("uniform: high is below low in {}", value_text(inner)));
                        }
                        Dist::Uniform(a, b)
                    }
                    "exponential" => Dist::Exponential {
                        mean: U::parse(inner).map_err(|e| format!("exponential: {e}"))?,
                    },
                    "fixed" => Dist::Fixed(U::parse(inner).map_err(|e| format!("fixed: {e}"))?),
                    "pareto" => {
                        let t = inner.as_table().ok_or_else(|| {
                            format!("pareto: expected {{ shape = 1.35, mean = ... }}, got {}", value_text(inner))
                        })?;
                        let shape = t.get("shape").and_then(|s| s.as_float().or(s.as_integer().map(|i| i as f64)))
                            .ok_or("pareto: needs a numeric shape")?;
                        if shape <= 1.0 {
                            return Err(format!("pareto: shape must exceed 1 for a finite mean, got {shape}"));
                        }
                        let mean = U::parse(t.get("mean").ok_or("pareto: needs a mean")?)
                            .map_err(|e| format!("pareto.mean: {e}"))?;
                        if let Some(extra) = t.keys().find(|k| *k != "shape" && *k != "mean") {
                            return Err(format!("pareto: unknown field \"{extra}\""));
                        }
                        Dist::Pareto { shape, mean }
                    }
                    "normal" => {
                        let t = inner.as_table().ok_or("normal: expected { mean = ..., sd = ... }")?;
                        let mean = U::parse(t.get("mean").ok_or("normal: needs a mean")?)
                            .map_err(|e| format!("normal.mean: {e}"))?;
                        let sd = U::parse(t.get("sd").ok_or("normal: needs an sd")?)
                            .map_err(|e| format!("normal.sd: {e}"))?;
                        Dist::Normal { mean, sd }
                    }
                    other => {
                        return Err(format!(
                            "unknown distribution \"{other}\" (known: uniform, exponential, pareto, normal, fixed)"
                        ))
                    }
                }
            }
            _ => Dist::Fixed(U::parse(v)?),
        };
        Ok(DistSpec {
            dist,
            _u: Default::default(),
        })
    }
}

impl<'de, U: Unit> Deserialize<'de> for DistSpec<U> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        Self::from_value(&v).map_err(de::Error::custom)
    }
}

/// `{ quantiles = [[0, v0], [p, v], ..., [1, v1]] }`'s table: at least two points, the
/// probabilities from 0 to 1 increasing, the values never decreasing.
fn parse_quantiles<U: Unit>(inner: &toml::Value) -> Result<crate::random::Quantiles, String> {
    let form = "quantiles: expected a list of at least two [probability, value] pairs from probability 0 to 1, e.g. [[0, \"20us\"], [0.5, \"90us\"], [1, \"2ms\"]]";
    let arr = inner
        .as_array()
        .filter(|a| a.len() >= 2)
        .ok_or_else(|| format!("{form}; got {}", value_text(inner)))?;
    let (mut p, mut v) = (Vec::new(), Vec::new());
    for (i, pair) in arr.iter().enumerate() {
        let pv = pair
            .as_array()
            .filter(|x| x.len() == 2)
            .ok_or_else(|| format!("{form}; quantiles[{i}] is {}", value_text(pair)))?;
        let prob = pv[0]
            .as_float()
            .or(pv[0].as_integer().map(|n| n as f64))
            .filter(|x| (0.0..=1.0).contains(x))
            .ok_or_else(|| {
                format!(
                    "quantiles[{i}]: the probability must be a number in [0, 1], got {}",
                    value_text(&pv[0])
                )
            })?;
        p.push(prob);
        v.push(U::parse(&pv[1]).map_err(|e| format!("quantiles[{i}]: {e}"))?);
    }
    if p[0] != 0.0 || p[p.len() - 1] != 1.0 {
        return Err(format!(
            "quantiles: the probabilities must run from 0 to 1, got {} to {}",
            p[0],
            p[p.len() - 1]
        ));
    }
    if let Some(i) = (1..p.len()).find(|&i| p[i] <= p[i - 1]) {
        return Err(format!(
            "quantiles: the probabilities must increase, but quantiles[{i}] has {} after {}",
            p[i],
            p[i - 1]
        ));
    }
    if let Some(i) = (1..v.len()).find(|&i| v[i] < v[i - 1]) {
        let value = |k: usize| value_text(&arr[k].as_array().unwrap()[1]);
        return Err(format!(
            "quantiles: the values must not decrease, but quantiles[{i}]'s {} is below quantiles[{}]'s {}",
            value(i),
            i - 1,
            value(i - 1)
        ));
    }
    Ok(crate::random::Quantiles {
        p: p.into_boxed_slice(),
        v: v.into_boxed_slice(),
    })
}

/// The law of a per-packet delay (`tcp.read_latency`, `topology.bottleneck_jitter`): any
/// distribution of `DistSpec`, or a measured one by its quantiles,
/// `{ quantiles = [[0, v0], [p, v], ..., [1, v1]] }`.
#[derive(Clone, Debug, PartialEq)]
pub struct LawSpec<U: Unit> {
    pub law: Law,
    _u: std::marker::PhantomData<U>,
}

impl<U: Unit> LawSpec<U> {
    fn from_value(v: &toml::Value) -> Result<Self, String> {
        let law = match v
            .as_table()
            .and_then(|t| t.get("quantiles").filter(|_| t.len() == 1))
        {
            Some(inner) => Law::Quantiles(Box::new(parse_quantiles::<U>(inner)?)),
            None => Law::Dist(
                DistSpec::<U>::from_value(v)
                    .map_err(|e| {
                        if e.starts_with("unknown distribution") {
                            e.replace("(known: ", "(known: quantiles, ")
                        } else {
                            e
                        }
                    })?
                    .dist,
            ),
        };
        Ok(LawSpec {
            law,
            _u: Default::default(),
        })
    }
}

impl<'de, U: Unit> Deserialize<'de> for LawSpec<U> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        Self::from_value(&v).map_err(de::Error::custom)
    }
}

/// A buffer size: packets, bytes, or a rule resolved against the topology.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSpec {
    Packets(u64),
    Bytes(u64),
    /// factor · bandwidth-delay product.
    Bdp(f64),
    /// factor · BDP/√N (Appenzeller, Keslassy, McKeown 2004).
    Stanford(f64),
    /// 20 packets (the "tiny buffers" regime of Enachescu et al. 2006).
    Tiny,
}

impl BufferSpec {
    pub fn parse(s: &str) -> Result<BufferSpec, String> {
        let t = s.trim();
        let rule = |suffix: &str| -> Option<Result<f64, String>> {
            let head = t.strip_suffix(suffix)?.trim();
            if head.is_empty() {
                return Some(Ok(1.0));
            }
            Some(
                head.trim_end_matches('*')
                    .trim()
                    .parse::<f64>()
                    .map_err(|_| format!("expected a factor before \"{suffix}\", got \"{s}\""))
                    .and_then(|f| {
                        if f >= 0.0 {
                            Ok(f)
                        } else {
                            Err(format!("a buffer cannot be negative, got \"{s}\""))
                        }
                    }),
            )
        };
        if t == "tiny" {
            return Ok(BufferSpec::Tiny);
        }
        if let Some(f) = rule("bdp") {
            return f.map(BufferSpec::Bdp);
        }
        if let Some(f) = rule("stanford") {
            return f.map(BufferSpec::Stanford);
        }
        if let Some(n) = t.strip_suffix("pkt").or_else(|| t.strip_suffix("pkts")) {
            let n: f64 = n.trim().parse().map_err(|_| {
                format!("expected a buffer like \"20pkt\", \"64KB\", \"bdp\", \"0.25bdp\", \"stanford\" or \"tiny\", got \"{s}\"")
            })?;
            if n < 0.0 || n.fract() != 0.0 {
                return Err(format!(
                    "a buffer in packets must be a whole number >= 0, got \"{s}\""
                ));
            }
            return Ok(BufferSpec::Packets(n as u64));
        }
        parse_bytes(t).map(BufferSpec::Bytes).map_err(|_| {
            format!("expected a buffer like \"20pkt\", \"64KB\", \"bdp\", \"0.25bdp\", \"stanford\" or \"tiny\", got \"{s}\"")
        })
    }
}

impl<'de> Deserialize<'de> for BufferSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::String(s) => BufferSpec::parse(s).map_err(de::Error::custom),
            _ => Err(de::Error::custom(format!(
                "expected a buffer like \"20pkt\" or \"bdp\", got {}",
                value_text(&v)
            ))),
        }
    }
}

/// Bytes of a sampled size; negative values are packet counts (`ByteSize`).
pub fn size_bytes(v: f64, mss: u32) -> u64 {
    let bytes = if v < 0.0 { -v * mss as f64 } else { v };
    bytes.round().max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_rules() {
        assert_eq!(BufferSpec::parse("bdp").unwrap(), BufferSpec::Bdp(1.0));
        assert_eq!(BufferSpec::parse("0.25bdp").unwrap(), BufferSpec::Bdp(0.25));
        assert_eq!(
            BufferSpec::parse("stanford").unwrap(),
            BufferSpec::Stanford(1.0)
        );
        assert_eq!(BufferSpec::parse("tiny").unwrap(), BufferSpec::Tiny);
        assert_eq!(BufferSpec::parse("20pkt").unwrap(), BufferSpec::Packets(20));
        assert_eq!(
            BufferSpec::parse("64KB").unwrap(),
            BufferSpec::Bytes(64_000)
        );
        assert!(BufferSpec::parse("lots").is_err());
        assert!(BufferSpec::parse("-1bdp").is_err());
    }

    #[test]
    fn distributions() {
        let v: toml::Value = toml::from_str("x = { uniform = [\"64ms\", \"100ms\"] }").unwrap();
        let d = DistSpec::<Secs>::from_value(&v["x"]).unwrap();
        assert_eq!(d.dist, Dist::Uniform(0.064, 0.1));
        let v: toml::Value =
            toml::from_str("x = { pareto = { shape = 1.35, mean = \"30pkt\" } }").unwrap();
        let d = DistSpec::<ByteSize>::from_value(&v["x"]).unwrap();
        assert_eq!(
            d.dist,
            Dist::Pareto {
                shape: 1.35,
                mean: -30.0
            }
        );
        let v: toml::Value =
            toml::from_str("x = { quantiles = [[0, \"50us\"], [0.9, \"0.4ms\"], [1, \"2ms\"]] }")
                .unwrap();
        let d = LawSpec::<Secs>::from_value(&v["x"]).unwrap();
        assert_eq!(
            d.law,
            Law::Quantiles(Box::new(crate::random::Quantiles {
                p: vec![0.0, 0.9, 1.0].into(),
                v: vec![50e-6, 0.4e-3, 2e-3].into()
            }))
        );
        // Any other distribution is a DistSpec's; DistSpec itself has no quantiles.
        let v: toml::Value = toml::from_str("x = { exponential = \"1ms\" }").unwrap();
        let d = LawSpec::<Secs>::from_value(&v["x"]).unwrap();
        assert_eq!(d.law, Law::Dist(Dist::Exponential { mean: 1e-3 }));
        let v: toml::Value =
            toml::from_str("x = { quantiles = [[0, \"1ms\"], [1, \"2ms\"]] }").unwrap();
        assert!(DistSpec::<Secs>::from_value(&v["x"]).is_err());
        for (bad, says) in [
            ("[[0.1, \"1ms\"], [1, \"2ms\"]]", "from 0 to 1"),
            ("[[0, \"1ms\"], [0.9, \"2ms\"]]", "from 0 to 1"),
            (
                "[[0, \"1ms\"], [0.5, \"3ms\"], [0.5, \"4ms\"], [1, \"5ms\"]]",
                "must increase",
            ),
            (
                "[[0, \"3ms\"], [1, \"2ms\"]]",
                "quantiles[1]'s \"2ms\" is below quantiles[0]'s \"3ms\"",
            ),
            (
                "[[0, \"1ms\"], [1.5, \"2ms\"]]",
                "quantiles[1]: the probability must be a number in [0, 1]",
            ),
            ("[[0, \"1ms\"], \"2ms\"]", "quantiles[1] is \"2ms\""),
            ("[[0, \"1ms\"], [1, -2]]", "quantiles[1]:"),
            ("[[0, \"1ms\"]]", "at least"),
        ] {
            let v: toml::Value = toml::from_str(&format!("x = {{ quantiles = {bad} }}")).unwrap();
            let e = LawSpec::<Secs>::from_value(&v["x"]).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let v: toml::Value = toml::from_str("x = { gamma = 1 }").unwrap();
        assert!(DistSpec::<Secs>::from_value(&v["x"])
            .unwrap_err()
            .contains("gamma"));
    }
}
