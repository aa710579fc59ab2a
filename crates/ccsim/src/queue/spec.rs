//! `topology.queue` in a scenario: `"droptail"`, `"red"`, `"fq"`, `"codel"`,
//! `"fq_codel"`, `"xcp"`, or an inline table `{ kind = "red", min_th = "5pkt", ... }`.
//!
//! The table is read key by key through the map the deserializer hands us, so that
//! serde_path_to_error sees every key: a bad value is reported at its own path
//! (`topology.queue.max_p: must be in (0, 1], got 2`). Checks that need several keys
//! (`max_th` above `min_th`, a field that does not belong to the kind) are reported at
//! `topology.queue` and name the fields in the message.

use super::codel::CodelConfig;
use super::dualpi2::DualPi2Config;
use super::fq::FqConfig;
use super::fq_codel::FqCodelConfig;
use super::fq_pie::FqPieConfig;
use super::pie::{PieConfig, PieEstimator};
use super::red::{RedConfig, RedMode, Thresh};
use super::step::{StepConfig, StepThreshold};
use super::xcp::XcpConfig;
use crate::quantity::{Dur, SizeQ};
use crate::units::Time;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// Which discipline the bottleneck queues run, with its parameters. The buffer limit
/// is not here: it comes from `topology.buffer` for every kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum QueueSpec {
    #[default]
    DropTail,
    Red(RedConfig),
    Fq(FqConfig),
    Codel(CodelConfig),
    FqCodel(FqCodelConfig),
    Xcp(XcpConfig),
    Step(StepConfig),
    Pie(PieConfig),
    FqPie(FqPieConfig),
    DualPi2(DualPi2Config),
}

const KINDS: &str = "droptail, red, fq, codel, fq_codel, xcp, step, pie, fq_pie, dualpi2";

/// PIE's fields (RFC 8033), shared by "pie" and "fq_pie".
const PIE_FIELDS: &[&str] = &[
    "target",
    "tupdate",
    "alpha",
    "beta",
    "max_burst",
    "ecn",
    "mark_threshold",
    "estimator",
    "cap_drop",
    "coupling",
    "l4s_threshold",
    "l4s_ramp",
    "tshift",
];

/// The fields each kind accepts (besides `kind`).
fn fields_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "droptail" => &[],
        "red" => &[
            "min_th",
            "max_th",
            "max_p",
            "w_q",
            "gentle",
            "mode",
            "ecn",
            "mean_size",
        ],
        "fq" => &["quantum", "buckets"],
        "codel" => &["target", "interval", "ecn"],
        "fq_codel" => &["quantum", "buckets", "target", "interval", "ecn"],
        "xcp" => &[
            "preset",
            "alpha",
            "beta",
            "gamma",
            "capacity",
            "count_ack_bytes",
            "feedback_budget",
        ],
        "step" => &["threshold"],
        "pie" => PIE_FIELDS,
        "dualpi2" => &[
            "target",
            "tupdate",
            "alpha",
            "beta",
            "coupling",
            "l4s_threshold",
            "l4s_ramp",
            "tshift",
            "ecn",
        ],
        "fq_pie" => &[
            "quantum",
            "buckets",
            "target",
            "tupdate",
            "alpha",
            "beta",
            "max_burst",
            "ecn",
            "mark_threshold",
            "estimator",
            "cap_drop",
        ],
        _ => return None,
    })
}

const ALL_FIELDS: &[&str] = &[
    "kind",
    "min_th",
    "max_th",
    "max_p",
    "w_q",
    "gentle",
    "mode",
    "ecn",
    "mean_size",
    "quantum",
    "buckets",
    "target",
    "interval",
    "preset",
    "alpha",
    "beta",
    "gamma",
    "capacity",
    "count_ack_bytes",
    "feedback_budget",
    "threshold",
    "tupdate",
    "max_burst",
    "mark_threshold",
    "estimator",
    "cap_drop",
];

/// A probability or weight in (0, 1].
struct Frac(f64);
impl<'de> Deserialize<'de> for Frac {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if v > 0.0 && v <= 1.0 {
            Ok(Frac(v))
        } else {
            Err(de::Error::custom(format!("must be in (0, 1], got {v}")))
        }
    }
}

/// PIE's delay estimator: "timestamp" or "rate".
struct Est(PieEstimator);
impl<'de> Deserialize<'de> for Est {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "timestamp" => Ok(Est(PieEstimator::Timestamp)),
            "rate" => Ok(Est(PieEstimator::Rate)),
            other => Err(de::Error::custom(format!(
                "expected \"timestamp\" or \"rate\", got \"{other}\""
            ))),
        }
    }
}

/// A positive finite number (a gain).
struct Pos(f64);
impl<'de> Deserialize<'de> for Pos {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if v > 0.0 && v.is_finite() {
            Ok(Pos(v))
        } else {
            Err(de::Error::custom(format!("must be positive, got {v}")))
        }
    }
}

/// A positive duration.
struct PosDur(Time);
impl<'de> Deserialize<'de> for PosDur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Dur::deserialize(d)?;
        if v.0 > Time::ZERO {
            Ok(PosDur(v.0))
        } else {
            Err(de::Error::custom("must be positive"))
        }
    }
}

/// A positive size in bytes that fits a packet-sized counter.
struct PosSize(u32);
impl<'de> Deserialize<'de> for PosSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = SizeQ::deserialize(d)?;
        if v.0 == 0 || v.0 > u32::MAX as u64 {
            Err(de::Error::custom(format!(
                "must be between 1B and {}B, got {}B",
                u32::MAX,
                v.0
            )))
        } else {
            Ok(PosSize(v.0 as u32))
        }
    }
}

/// A step threshold: "20pkt", "30KB" or "1ms", positive.
struct StepK(StepThreshold);
impl<'de> Deserialize<'de> for StepK {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let k = StepThreshold::parse(&s).map_err(de::Error::custom)?;
        let zero = matches!(
            k,
            StepThreshold::Pkts(0) | StepThreshold::Bytes(0) | StepThreshold::Sojourn(Time::ZERO)
        );
        if zero {
            return Err(de::Error::custom(format!("must be positive, got \"{s}\"")));
        }
        Ok(StepK(k))
    }
}

#[derive(Default)]
struct Fields {
    min_th: Option<Thresh>,
    max_th: Option<Thresh>,
    max_p: Option<f64>,
    w_q: Option<f64>,
    gentle: Option<bool>,
    mode: Option<RedMode>,
    ecn: Option<bool>,
    mean_size: Option<u32>,
    quantum: Option<u32>,
    buckets: Option<u32>,
    target: Option<Time>,
    interval: Option<Time>,
    preset: Option<String>,
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<f64>,
    capacity: Option<f64>,
    count_ack_bytes: Option<bool>,
    feedback_budget: Option<bool>,
    threshold: Option<StepThreshold>,
    tupdate: Option<Time>,
    max_burst: Option<Time>,
    mark_threshold: Option<f64>,
    estimator: Option<PieEstimator>,
    cap_drop: Option<bool>,
    coupling: Option<f64>,
    l4s_threshold: Option<Time>,
    l4s_ramp: Option<Time>,
    tshift: Option<Time>,
}

/// RFC 8033's parameters, over the defaults.
fn pie_config(f: &Fields) -> PieConfig {
    let mut c = PieConfig::default();
    set(&mut c.target, f.target);
    set(&mut c.tupdate, f.tupdate);
    set(&mut c.alpha, f.alpha);
    set(&mut c.beta, f.beta);
    set(&mut c.max_burst, f.max_burst);
    set(&mut c.ecn, f.ecn);
    set(&mut c.mark_threshold, f.mark_threshold);
    set(&mut c.estimator, f.estimator);
    set(&mut c.cap_drop, f.cap_drop);
    c
}

fn build(kind: &str, f: Fields, present: &[String]) -> Result<QueueSpec, String> {
    let allowed =
        fields_of(kind).ok_or_else(|| format!("unknown queue kind \"{kind}\" (known: {KINDS})"))?;
    if let Some(bad) = present.iter().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "field `{bad}` does not apply to kind \"{kind}\" (its fields: {})",
            if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            }
        ));
    }
    Ok(match kind {
        "droptail" => QueueSpec::DropTail,
        "red" => {
            let mut c = RedConfig::default();
            set(&mut c.mean_size, f.mean_size);
            // Floyd's rule of thumb max_th = 3·min_th fills in whichever is missing.
            let (min_th, max_th) = match (f.min_th, f.max_th) {
                (Some(a), Some(b)) => (a, b),
                (Some(a), None) => (a, a.scale(3.0)),
                (None, Some(b)) => (b.scale(1.0 / 3.0), b),
                (None, None) => (c.min_th, c.max_th),
            };
            if min_th.in_bytes() != max_th.in_bytes() {
                return Err(format!(
                    "min_th ({min_th}) and max_th ({max_th}) must both be in packets or both in bytes"
                ));
            }
            if max_th.value() <= min_th.value() {
                return Err(format!("max_th ({max_th}) must exceed min_th ({min_th})"));
            }
            c.min_th = min_th;
            c.max_th = max_th;
            set(&mut c.max_p, f.max_p);
            set(&mut c.w_q, f.w_q);
            set(&mut c.gentle, f.gentle);
            set(&mut c.mode, f.mode);
            set(&mut c.ecn, f.ecn);
            QueueSpec::Red(c)
        }
        "fq" => {
            let mut c = FqConfig::default();
            set(&mut c.quantum, f.quantum);
            set(&mut c.buckets, f.buckets);
            QueueSpec::Fq(c)
        }
        "codel" => {
            let mut c = CodelConfig::default();
            set(&mut c.target, f.target);
            set(&mut c.interval, f.interval);
            set(&mut c.ecn, f.ecn);
            QueueSpec::Codel(c)
        }
        "fq_codel" => {
            let mut c = FqCodelConfig::default();
            set(&mut c.quantum, f.quantum);
            if let Some(v) = f.buckets {
                if v == 0 {
                    return Err("buckets must be at least 1 for fq_codel (RFC 8290 hashes flows into a fixed set of queues)".into());
                }
                c.buckets = v;
            }
            set(&mut c.codel.target, f.target);
            set(&mut c.codel.interval, f.interval);
            set(&mut c.codel.ecn, f.ecn);
            QueueSpec::FqCodel(c)
        }
        "xcp" => {
            // A preset first, then any parameter given overrides it.
            let mut c = match f.preset.as_deref() {
                None => XcpConfig::default(),
                Some(p) => XcpConfig::preset(p).ok_or_else(|| {
                    format!("unknown xcp preset \"{p}\" (known: {})", XcpConfig::PRESETS)
                })?,
            };
            for (name, v) in [("alpha", f.alpha), ("beta", f.beta)] {
                if v.is_some_and(|v| v > 1.0) {
                    return Err(format!(
                        "{name} must be in (0, 1] for kind \"xcp\", got {}",
                        v.unwrap()
                    ));
                }
            }
            set(&mut c.alpha, f.alpha);
            set(&mut c.beta, f.beta);
            set(&mut c.gamma, f.gamma);
            set(&mut c.capacity, f.capacity);
            set(&mut c.count_ack_bytes, f.count_ack_bytes);
            set(&mut c.feedback_budget, f.feedback_budget);
            QueueSpec::Xcp(c)
        }
        "pie" => QueueSpec::Pie(pie_config(&f)),
        "dualpi2" => {
            let mut c = DualPi2Config::default();
            set(&mut c.target, f.target);
            set(&mut c.tupdate, f.tupdate);
            set(&mut c.alpha, f.alpha);
            set(&mut c.beta, f.beta);
            set(&mut c.k, f.coupling);
            set(&mut c.l4s_threshold, f.l4s_threshold);
            set(&mut c.l4s_ramp, f.l4s_ramp);
            set(&mut c.tshift, f.tshift);
            set(&mut c.classic_ecn, f.ecn);
            QueueSpec::DualPi2(c)
        }
        "fq_pie" => {
            let mut c = FqPieConfig {
                pie: pie_config(&f),
                ..FqPieConfig::default()
            };
            set(&mut c.quantum, f.quantum);
            if let Some(v) = f.buckets {
                if v == 0 {
                    return Err("buckets must be at least 1 for fq_pie (Linux hashes flows into a fixed set of queues)".into());
                }
                c.buckets = v;
            }
            QueueSpec::FqPie(c)
        }
        "step" => {
            let mut c = StepConfig::default();
            set(&mut c.k, f.threshold);
            QueueSpec::Step(c)
        }
        _ => unreachable!("checked by fields_of"),
    })
}

struct SpecVisitor;

impl<'de> Visitor<'de> for SpecVisitor {
    type Value = QueueSpec;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a queue kind ({KINDS}) or a table like {{ kind = \"red\", max_p = 0.1 }}"
        )
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<QueueSpec, E> {
        build(s, Fields::default(), &[]).map_err(E::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<QueueSpec, A::Error> {
        let mut kind: Option<String> = None;
        let mut f = Fields::default();
        let mut present: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if present.contains(&key) || (key == "kind" && kind.is_some()) {
                return Err(de::Error::custom(format!("duplicate field `{key}`")));
            }
            match key.as_str() {
                "kind" => kind = Some(map.next_value()?),
                "min_th" => f.min_th = Some(map.next_value()?),
                "max_th" => f.max_th = Some(map.next_value()?),
                "max_p" => f.max_p = Some(map.next_value::<Frac>()?.0),
                "w_q" => f.w_q = Some(map.next_value::<Frac>()?.0),
                "gentle" => f.gentle = Some(map.next_value()?),
                "mode" => f.mode = Some(map.next_value()?),
                "ecn" => f.ecn = Some(map.next_value()?),
                "mean_size" => f.mean_size = Some(map.next_value::<PosSize>()?.0),
                "quantum" => f.quantum = Some(map.next_value::<PosSize>()?.0),
                "buckets" => f.buckets = Some(map.next_value()?),
                "target" => f.target = Some(map.next_value::<PosDur>()?.0),
                "interval" => f.interval = Some(map.next_value::<PosDur>()?.0),
                "preset" => f.preset = Some(map.next_value()?),
                "alpha" => f.alpha = Some(map.next_value::<Pos>()?.0),
                "beta" => f.beta = Some(map.next_value::<Pos>()?.0),
                "gamma" => f.gamma = Some(map.next_value::<Frac>()?.0),
                "capacity" => f.capacity = Some(map.next_value::<Frac>()?.0),
                "count_ack_bytes" => f.count_ack_bytes = Some(map.next_value()?),
                "feedback_budget" => f.feedback_budget = Some(map.next_value()?),
                "threshold" => f.threshold = Some(map.next_value::<StepK>()?.0),
                "tupdate" => f.tupdate = Some(map.next_value::<PosDur>()?.0),
                "max_burst" => f.max_burst = Some(map.next_value::<Dur>()?.0),
                "mark_threshold" => f.mark_threshold = Some(map.next_value::<Frac>()?.0),
                "estimator" => f.estimator = Some(map.next_value::<Est>()?.0),
                "cap_drop" => f.cap_drop = Some(map.next_value()?),
                "coupling" => f.coupling = Some(map.next_value::<Pos>()?.0),
                "l4s_threshold" => f.l4s_threshold = Some(map.next_value::<Dur>()?.0),
                "l4s_ramp" => f.l4s_ramp = Some(map.next_value::<Dur>()?.0),
                "tshift" => f.tshift = Some(map.next_value::<Dur>()?.0),
                other => return Err(de::Error::unknown_field(other, ALL_FIELDS)),
            }
            if key != "kind" {
                present.push(key);
            }
        }
        let kind = kind.ok_or_else(|| de::Error::missing_field("kind"))?;
        build(&kind, f, &present).map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for QueueSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SpecVisitor)
    }
}

/// A field the scenario gives overrides the default.
fn set<T>(dst: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *dst = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<QueueSpec, String> {
        let v: toml::Value = toml::from_str(&format!("queue = {s}")).unwrap();
        let r: Result<QueueSpec, _> = serde_path_to_error::deserialize(v["queue"].clone());
        r.map_err(|e| {
            let path = e.path().to_string();
            format!("{path}: {}", e.into_inner())
        })
    }

    #[test]
    fn names_and_tables() {
        assert_eq!(parse("\"droptail\"").unwrap(), QueueSpec::DropTail);
        assert_eq!(
            parse("\"red\"").unwrap(),
            QueueSpec::Red(RedConfig::default())
        );
        let QueueSpec::Red(c) = parse(
            "{ kind = \"red\", min_th = \"10pkt\", max_p = 0.2, gentle = false, mode = \"byte\", ecn = true }",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            (c.min_th, c.max_th),
            (Thresh::Pkts(10.0), Thresh::Pkts(30.0))
        );
        assert_eq!(
            (c.max_p, c.gentle, c.mode, c.ecn),
            (0.2, false, RedMode::Byte, true)
        );
        let QueueSpec::Red(c) =
            parse("{ kind = \"red\", min_th = \"15KB\", max_th = \"60KB\" }").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (c.min_th, c.max_th),
            (Thresh::Bytes(15000.0), Thresh::Bytes(60000.0))
        );
        let QueueSpec::Fq(c) =
            parse("{ kind = \"fq\", quantum = \"3000B\", buckets = 64 }").unwrap()
        else {
            panic!()
        };
        assert_eq!((c.quantum, c.buckets), (3000, 64));
        let QueueSpec::Codel(c) = parse("{ kind = \"codel\", target = \"2ms\" }").unwrap() else {
            panic!()
        };
        assert_eq!(
            (c.target, c.interval),
            (Time::from_millis(2), Time::from_millis(100))
        );
        let QueueSpec::FqCodel(c) = parse("{ kind = \"fq_codel\", buckets = 16 }").unwrap() else {
            panic!()
        };
        assert_eq!((c.buckets, c.quantum), (16, 1514));
        assert_eq!(
            parse("\"xcp\"").unwrap(),
            QueueSpec::Xcp(XcpConfig::ORIGINAL)
        );
        let QueueSpec::Xcp(c) =
            parse("{ kind = \"xcp\", preset = \"conservative\", count_ack_bytes = true }").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (c.alpha, c.beta, c.gamma, c.capacity, c.count_ack_bytes),
            (0.2, 0.056, 0.05, 0.9, true)
        );
        // An individual parameter overrides the preset's.
        let QueueSpec::Xcp(c) =
            parse("{ kind = \"xcp\", preset = \"conservative\", capacity = 0.95 }").unwrap()
        else {
            panic!()
        };
        assert_eq!((c.alpha, c.capacity), (0.2, 0.95));
        assert!(c.feedback_budget);
        let QueueSpec::Xcp(c) = parse("{ kind = \"xcp\", feedback_budget = false }").unwrap()
        else {
            panic!()
        };
        assert!(!c.feedback_budget);
        let QueueSpec::Step(c) = parse("{ kind = \"step\", threshold = \"65pkt\" }").unwrap()
        else {
            panic!()
        };
        assert_eq!(c.k, StepThreshold::Pkts(65));
        assert_eq!(
            parse("\"pie\"").unwrap(),
            QueueSpec::Pie(PieConfig::default())
        );
        let QueueSpec::Pie(c) = parse(
            "{ kind = \"pie\", target = \"20ms\", beta = 1.5, ecn = true, estimator = \"rate\" }",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            (c.target, c.beta, c.ecn, c.estimator),
            (Time::from_millis(20), 1.5, true, PieEstimator::Rate)
        );
        let QueueSpec::FqPie(c) =
            parse("{ kind = \"fq_pie\", buckets = 64, tupdate = \"30ms\" }").unwrap()
        else {
            panic!()
        };
        assert_eq!((c.buckets, c.pie.tupdate), (64, Time::from_millis(30)));
        let QueueSpec::DualPi2(c) =
            parse("{ kind = \"dualpi2\", coupling = 1.5, l4s_threshold = \"2ms\" }").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (c.k, c.l4s_threshold, c.beta),
            (1.5, Time::from_millis(2), 3.2)
        );
    }

    #[test]
    fn errors_name_the_field() {
        enum Says {
            Starts(&'static str),
            Contains(&'static str),
        }
        use Says::*;
        let cases = [
            (
                "{ kind = \"red\", max_p = 2.0 }",
                Starts("max_p: must be in (0, 1]"),
            ),
            ("{ kind = \"red\", min_th = \"lots\" }", Starts("min_th: ")),
            (
                "{ kind = \"codel\", interval = \"0ms\" }",
                Starts("interval: must be positive"),
            ),
            (
                "{ kind = \"red\", bogus = 1 }",
                Contains("unknown field `bogus`"),
            ),
            (
                "{ kind = \"red\", quantum = \"1500B\" }",
                Contains("`quantum` does not apply to kind \"red\""),
            ),
            (
                "{ kind = \"red\", min_th = \"10pkt\", max_th = \"5pkt\" }",
                Contains("max_th (5pkt) must exceed min_th (10pkt)"),
            ),
            (
                "{ kind = \"red\", min_th = \"10pkt\", max_th = \"50KB\" }",
                Contains("must both be in packets or both in bytes"),
            ),
            ("\"wfq\"", Contains("unknown queue kind \"wfq\"")),
            ("{ max_p = 0.1 }", Contains("missing field `kind`")),
            (
                "{ kind = \"fq_codel\", buckets = 0 }",
                Contains("buckets must be at least 1"),
            ),
            (
                "{ kind = \"xcp\", preset = \"fast\" }",
                Contains("unknown xcp preset \"fast\""),
            ),
            (
                "{ kind = \"xcp\", capacity = 1.5 }",
                Starts("capacity: must be in (0, 1]"),
            ),
            (
                "{ kind = \"pie\", beta = -1 }",
                Starts("beta: must be positive"),
            ),
            (
                "{ kind = \"pie\", estimator = \"guess\" }",
                Starts("estimator: expected \"timestamp\" or \"rate\""),
            ),
            (
                "{ kind = \"pie\", mark_threshold = 1.5 }",
                Starts("mark_threshold: must be in (0, 1]"),
            ),
            (
                "{ kind = \"xcp\", alpha = 1.5 }",
                Contains("alpha must be in (0, 1] for kind \"xcp\""),
            ),
            (
                "{ kind = \"pie\", quantum = \"1500B\" }",
                Contains("`quantum` does not apply to kind \"pie\""),
            ),
            (
                "{ kind = \"dualpi2\", coupling = 0 }",
                Starts("coupling: must be positive"),
            ),
            (
                "{ kind = \"dualpi2\", l4s_threshold = \"soon\" }",
                Starts("l4s_threshold: "),
            ),
            (
                "{ kind = \"step\", threshold = \"many\" }",
                Starts("threshold: expected a threshold like"),
            ),
            (
                "{ kind = \"step\", threshold = \"0pkt\" }",
                Starts("threshold: must be positive"),
            ),
            (
                "{ kind = \"red\", alpha = 0.4 }",
                Contains("`alpha` does not apply to kind \"red\""),
            ),
        ];
        for (input, says) in cases {
            let e = parse(input).unwrap_err();
            let ok = match says {
                Starts(x) => e.starts_with(x),
                Contains(x) => e.contains(x),
            };
            assert!(ok, "{input}: {e}");
        }
    }
}
